"""The PPO policy network (torch): a shared MLP trunk with a policy and a value head.

Kept in the package so that a trained policy loads without the training code
(``training/`` imports it from here). The network reads the seat-relative
:class:`~allfives_env.encoders.DefaultEncoder` vector and returns one logit
per action id (114) and a value; illegal actions are masked by
:func:`masked_logits`, never by the network itself.
"""

import torch
from torch import nn

from ..rules.actions import NUM_ACTIONS

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
#: What a masked logit becomes: far below any real logit, yet finite (no NaN in softmax or entropy).
MASKED_LOGIT = -1e9


class PolicyNet(nn.Module):
    """MLP ``obs -> hidden... -> (logits[114], value)`` with a shared trunk.

    With ``skip`` (the default) the logits also get a linear term straight from
    the observation (initialised to zero): the observation holds per-action
    parts (the points each placement scores now, the own hand), and a direct
    path lets the policy use them at once instead of routing 112 action-aligned
    features through the narrow trunk."""

    def __init__(self, obs_dim: int, hidden_sizes=(256, 256), activation: str = "relu", skip: bool = True):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation={activation!r} is not allowed; allowed: {sorted(ACTIVATIONS)}")
        self.obs_dim, self.hidden_sizes, self.activation = int(obs_dim), tuple(int(h) for h in hidden_sizes), activation
        self.skip = bool(skip)
        layers, width = [], self.obs_dim
        for h in self.hidden_sizes:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, NUM_ACTIONS)
        self.value_head = nn.Linear(width, 1)
        for module in self.trunk:
            if isinstance(module, nn.Linear):
                nn.init.orthogonal_(module.weight, gain=2 ** 0.5)
                nn.init.zeros_(module.bias)
        nn.init.orthogonal_(self.policy_head.weight, gain=0.01)  # near-uniform start over legal actions
        nn.init.zeros_(self.policy_head.bias)
        nn.init.orthogonal_(self.value_head.weight, gain=1.0)
        nn.init.zeros_(self.value_head.bias)
        self.direct = nn.Linear(self.obs_dim, NUM_ACTIONS, bias=False) if self.skip else None
        if self.direct is not None:
            nn.init.zeros_(self.direct.weight)

    def forward(self, obs):
        h = self.trunk(obs)
        logits = self.policy_head(h)
        if self.direct is not None:
            logits = logits + self.direct(obs)
        return logits, self.value_head(h).squeeze(-1)

    def spec(self) -> dict:
        """The constructor arguments, stored beside the weights in every checkpoint."""
        return {"obs_dim": self.obs_dim, "hidden_sizes": list(self.hidden_sizes), "activation": self.activation,
                "skip": self.skip}


def masked_logits(logits, mask):
    """``logits`` with every action where ``mask`` is false set to :data:`MASKED_LOGIT`."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


def masked_entropy(logits, mask):
    """Entropy of the policy restricted to legal actions (0 with one legal action, never NaN)."""
    logp = torch.log_softmax(masked_logits(logits, mask), dim=-1)
    p = logp.exp()
    return -torch.where(mask, p * logp, torch.zeros_like(logp)).sum(-1)
