"""The uniform random baseline."""

from .base import BaseAgent


class RandomAgent(BaseAgent):
    """random: uniform over the legal actions."""

    name = "random"

    def act(self, view, legal_actions):
        return legal_actions[int(self.rng.integers(len(legal_actions)))]
