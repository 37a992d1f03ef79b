"""A privileged critic: the value function of centralised training (``critic=privileged``).

The policy acts on its own seat-relative observation only. Its value function,
used only to compute advantages during training, may read more: here the
policy's input plus the other seats' hands (:meth:`VectorAllFives.other_hands
<allfives_env.vector.VectorAllFives.other_hands>`) and which kind of opponent
the game is against. Where the hidden tiles lie decides part of a hand's
points, so a critic that sees them can explain more of the return and give
less noisy advantages (the centralised critic of MAPPO, or the "oracle" critic
of perfect-information training; on the 4-player agent it explained only a
little more, ``docs/results_training.md``). The advantage stays an unbiased
policy-gradient weight: the baseline may depend on anything but the action.

The critic lives only in training checkpoints (``latest.pt``/``best.pt``); a
policy export never holds it, so a played agent cannot read hidden tiles.
"""

import torch
from torch import nn

from allfives_env.agents.ppo.network import ACTIVATIONS

TILES = 28
NUM_GAME_TYPES = 4  # self, pool, greedy, random (training.rollout.OPPONENT_TYPES)


def privileged_size(num_players: int) -> int:
    """Width of the privileged part: the other seats' hands, then the game type one-hot."""
    return (num_players - 1) * TILES + NUM_GAME_TYPES


class PrivilegedCritic(nn.Module):
    """MLP ``[policy input, privileged part] -> value``."""

    def __init__(self, input_dim: int, hidden_sizes=(256, 256), activation: str = "relu"):
        super().__init__()
        layers, width = [], int(input_dim)
        for h in hidden_sizes:
            layers += [nn.Linear(width, int(h)), ACTIVATIONS[activation]()]
            width = int(h)
        layers.append(nn.Linear(width, 1))
        self.mlp = nn.Sequential(*layers)
        for module in self.mlp:
            if isinstance(module, nn.Linear):
                nn.init.orthogonal_(module.weight, gain=2 ** 0.5 if module is not layers[-1] else 1.0)
                nn.init.zeros_(module.bias)

    def forward(self, policy_input, privileged):
        return self.mlp(torch.cat([policy_input, privileged], dim=-1)).squeeze(-1)
