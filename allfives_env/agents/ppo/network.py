"""The PPO policy network (torch): a shared MLP trunk with a policy and a value head.

Kept in the package so that a trained policy loads without the training code
(``training/`` imports it from here). The network reads the seat-relative
:class:`~allfives_env.env.encoders.DefaultEncoder` vector and returns one logit
per action id (114) and a value; illegal actions are masked by
:func:`masked_logits`, never by the network itself.
"""

import torch
from torch import nn

from ...rules.actions import NUM_ACTIONS, NUM_PLACEMENTS, slot_of, tile_of

ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
#: What a masked logit becomes: far below any real logit, yet finite (no NaN in softmax or entropy).
MASKED_LOGIT = -1e9


class PolicyNet(nn.Module):
    """MLP ``obs -> hidden... -> (logits[114], value)`` with a shared trunk.

    With ``skip`` (the default) the logits also get a linear term straight from
    the observation (initialised to zero): the observation holds per-action
    parts (the points each placement scores now, the own hand), and a direct
    path lets the policy use them at once instead of routing 112 action-aligned
    features through the narrow trunk.

    With ``action_width > 0`` an *action scorer* adds to each placement's logit
    a score computed the same way for every placement: a small MLP over the
    trunk's state vector, learned embeddings of the placement's tile and slot,
    and the placement's own action-aligned inputs (``action_inputs``: the
    start offsets of 112-value blocks in the input, one value per placement,
    e.g. the points it scores now and the derived reply features). Sharing
    the scorer across placements lets what is learned about one tile's
    consequences carry over to every other tile, instead of 112 separate
    output weights learning it one by one. Its output layer starts at zero,
    so a scorer added to a trained policy (``init_from``) starts out
    computing exactly that policy. (The first layer is factored into one
    term per position plus one per placement, so it costs width per scored
    placement; given the legal mask, only legal placements are scored.)

    ``action_depth=2`` gives the scorer a second hidden layer (as wide as the
    first) with its own output added to the first layer's: a residual form
    whose second output starts at zero, so a one-layer scorer deepened by
    ``init_from`` also starts out computing the file's policy."""

    def __init__(self, obs_dim: int, hidden_sizes=(256, 256), activation: str = "relu", skip: bool = True,
                 action_width: int = 0, action_inputs=(), action_depth: int = 1):
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
        self.action_width, self.action_inputs = int(action_width), tuple(int(o) for o in action_inputs)
        self.action_depth = int(action_depth)
        if self.action_depth not in (1, 2):
            raise ValueError(f"action_depth={action_depth!r} is not allowed; allowed: 1 or 2 hidden layers")
        if self.action_width:
            self._build_action_scorer(width)

    def _build_action_scorer(self, trunk_width: int):
        placements = NUM_PLACEMENTS
        if not self.action_inputs or min(self.action_inputs) < 0 or max(self.action_inputs) + placements > self.obs_dim:
            raise ValueError(f"action_inputs={list(self.action_inputs)} must be start offsets of {placements}-value "
                             f"blocks inside the {self.obs_dim}-value input")
        w = self.action_width
        self.action_context = nn.Linear(trunk_width, w)
        self.action_tile = nn.Parameter(torch.randn(28, w) * 0.1)
        self.action_slot = nn.Parameter(torch.randn(4, w) * 0.1)
        self.action_features = nn.Linear(len(self.action_inputs), w, bias=False)
        self.action_out = nn.Linear(w, 1)
        nn.init.zeros_(self.action_out.weight)
        nn.init.zeros_(self.action_out.bias)
        self.action_deep = self.action_deep_out = None
        if self.action_depth == 2:
            self.action_deep = nn.Linear(w, w)
            nn.init.orthogonal_(self.action_deep.weight, gain=2 ** 0.5)
            nn.init.zeros_(self.action_deep.bias)
            self.action_deep_out = nn.Linear(w, 1, bias=False)
            nn.init.zeros_(self.action_deep_out.weight)
        # input index of block k's value for placement a (action id a = 4 * tile + slot): (112, k)
        index = torch.tensor(self.action_inputs).unsqueeze(0) + torch.arange(placements).unsqueeze(1)
        self.register_buffer("_action_index", index, persistent=False)
        self._act = ACTIVATIONS[self.activation]()

    def _action_scores(self, obs, h, mask=None):
        """(B, 112) scores of the placements from the shared action scorer; with ``mask`` (B, 114) only
        the legal placements are scored (the others get 0: their logits are masked anyway), without it all."""
        if mask is None:
            mask = torch.ones(obs.shape[0], NUM_ACTIONS, dtype=torch.bool, device=obs.device)
        rows, actions = torch.nonzero(mask[:, :NUM_PLACEMENTS], as_tuple=True)  # the placements to score, packed
        hidden = (self.action_context(h)[rows] + self.action_tile[tile_of(actions)] + self.action_slot[slot_of(actions)]
                  + self.action_features(obs[rows.unsqueeze(1), self._action_index[actions]]))  # (N, w)
        hidden = self._act(hidden)
        scores = self.action_out(hidden)
        if self.action_deep is not None:
            scores = scores + self.action_deep_out(self._act(self.action_deep(hidden)))
        scores = scores.squeeze(-1)
        return obs.new_zeros(obs.shape[0], NUM_PLACEMENTS).index_put((rows, actions), scores)

    def forward(self, obs, mask=None):
        """``(logits[B, 114], value[B])``. ``mask`` (bool, B x 114) is optional: with an action scorer it
        spares scoring illegal placements; the logits of legal actions are the same either way."""
        h = self.trunk(obs)
        logits = self.policy_head(h)
        if self.direct is not None:
            logits = logits + self.direct(obs)
        if self.action_width:
            logits = logits + nn.functional.pad(self._action_scores(obs, h, mask), (0, 2))  # draw, pass: no score
        return logits, self.value_head(h).squeeze(-1)

    def spec(self) -> dict:
        """The constructor arguments, stored beside the weights in every checkpoint."""
        spec = {"obs_dim": self.obs_dim, "hidden_sizes": list(self.hidden_sizes), "activation": self.activation,
                "skip": self.skip}
        if self.action_width:  # older files (and policies without a scorer) keep the shorter spec
            spec.update(action_width=self.action_width, action_inputs=list(self.action_inputs))
        if self.action_depth != 1:
            spec.update(action_depth=self.action_depth)
        return spec


def masked_logits(logits, mask):
    """``logits`` with every action where ``mask`` is false set to :data:`MASKED_LOGIT`."""
    return torch.where(mask, logits, torch.full_like(logits, MASKED_LOGIT))


def entropy_of_log_probs(logp, mask):
    """Entropy of the policy restricted to legal actions, from the masked policy's log-probabilities
    ``logp`` (0 with one legal action, never NaN)."""
    return -torch.where(mask, logp.exp() * logp, torch.zeros_like(logp)).sum(-1)
