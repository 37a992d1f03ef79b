"""Scratch: an N-member policy ensemble (mean log-softmax over the legal placements)."""
import numpy as np

from allfives_env.agents.base import BaseAgent
from allfives_env.agents.ppo.agent import PPOAgent


class Multi(BaseAgent):
    name = "multi"

    def __init__(self, files="checkpoints/ppo_3p.pt"):
        super().__init__()
        self.members = [PPOAgent(f) for f in files.split("+")]

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        for m in self.members:
            m.reset(seat, config, rng)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:
            return legal_actions[0]
        legal = np.asarray(legal_actions)
        total = 0
        for m in self.members:
            z = m.policy.logits(m.input_vector(view, legal), legal)[legal]
            z = z - z.max()
            total = total + (z - np.log(np.exp(z).sum()))
        return int(legal[int(np.argmax(total))])
