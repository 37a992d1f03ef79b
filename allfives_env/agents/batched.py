"""Agents that choose for many games of a :class:`~allfives_env.vector.VectorAllFives` at once.

``make_batched_agent(spec, venv, seed)`` builds one for the specs that have a
batched twin: ``random``, ``greedy``, ``heuristic`` (compiled, the same choices
as their arena agents on the same positions) and ``ppo:PATH[,infer=greedy|off]``
(the shipped network in numpy over all rows at once: what ``ppo:PATH`` plays,
its most likely legal action), and ``search:engine=compiled[,samples=K]`` (the
compiled search game by game, with its own random stream: the same player in
distribution). Other specs raise ``ValueError`` naming these.

The contract, for callers that step the env themselves (the Gymnasium and SB3
vector envs, the training evaluator):

* ``actions(out, games, into)``: the agent's action in each game ``games[i]``
  (int64 indices) of the step output ``out``, written to ``into`` (int64, the
  same length) and returned. A forced draw or pass is returned as it is.
* ``before_step(actions)`` and ``after_step(out)``: called around **every**
  ``venv.step`` (every seat's actions, SKIP included), for agents that keep
  per-game memory (a policy with greedy exclusions follows every play of the
  hand); the others ignore them.
"""

import os

import numpy as np

from ..env.options import check_count
from ..vector import make_rng_state, random_legal_actions
from .greedy import greedy_from_observations
from .heuristic_compiled import HeuristicScratch, checked_out, game_indices
from .search import MAX_SAMPLES
from .search_compiled import HEURISTIC_WEIGHTS

#: The specs with a batched twin (``ppo`` takes a path).
BATCHED_SPECS = ("random", "greedy", "heuristic", "ppo:PATH[,infer=...,any_rules=...]", "search:engine=compiled[,samples=K]")


class BatchedAgent:
    """The base: no memory between steps."""

    name = "agent"

    def actions(self, out, games, into):
        """The agent's action in each game ``games[i]`` of the step output ``out``, written to ``into`` and
        returned; ValueError for indices outside the env's games or an ``into`` that does not fit them."""
        games = game_indices(games, len(out.mask))  # an index past the games reads another game's memory
        return self._actions(out, games, checked_out(into, games))

    def _actions(self, out, games, into):
        raise NotImplementedError

    def before_step(self, actions):
        pass

    def after_step(self, out):
        pass

    def state_dict(self) -> dict:
        """What the agent keeps between steps (random streams, per-game memory), as plain arrays."""
        return {}

    def load_state_dict(self, state: dict) -> None:
        """Continue from :meth:`state_dict` (a trainer's exact resume)."""

    def __repr__(self):
        return self.name


class BatchedRandom(BatchedAgent):
    """A uniformly random legal action, from one SplitMix64 stream per game."""

    name = "random"

    def __init__(self, venv, seed):
        self._streams = make_rng_state(seed, venv.num_envs)

    def _actions(self, out, games, into):
        # a game's stream advances only when that game asks, so its choices do not depend on the other games
        streams = self._streams[games]
        random_legal_actions(out.mask[games], streams, into)
        self._streams[games] = streams
        return into

    def state_dict(self) -> dict:
        return {"streams": self._streams.copy()}

    def load_state_dict(self, state):
        self._streams[...] = state["streams"]


class BatchedGreedy(BatchedAgent):
    """:class:`~allfives_env.agents.greedy.GreedyAgent`, read off the observations' placement points."""

    name = "greedy"

    def __init__(self, venv):
        self._points_offset = venv.layout.offset("placement_points")

    def _actions(self, out, games, into):
        return greedy_from_observations(out.obs[games], out.mask[games], self._points_offset, into)


class BatchedHeuristic(BatchedAgent):
    """:class:`~allfives_env.agents.heuristic.HeuristicAgent` (default weights), compiled."""

    name = "heuristic"

    def __init__(self, venv):
        self._venv = venv
        self._scratch = HeuristicScratch(venv.num_sides)

    def _actions(self, out, games, into):
        return self._scratch.moves(self._venv.compiled_state(), games, HEURISTIC_WEIGHTS, into)


class BatchedPolicy(BatchedAgent):
    """``ppo:PATH``: the policy's most likely legal action in every row, the network in numpy. ``policy`` is
    a policy file (with ``infer`` and ``any_rules`` as ``ppo:PATH`` takes them) or the
    :class:`~allfives_env.agents.ppo.agent.PPOAgent` to play (a live network in training); ``name`` as the
    spec named it (default ``ppo:`` and the agent's path)."""

    def __init__(self, venv, policy, infer=None, any_rules=False, name=None):
        from .inference import ExclusionTracker
        from .ppo.agent import PPOAgent
        from .ppo.features import PolicyInput
        # a file: the agent checks it, its features and the options
        agent = PPOAgent(policy, infer=infer, any_rules=any_rules) if isinstance(policy, (str, os.PathLike)) else policy
        if agent.sample:
            raise ValueError(f"{agent.path!r} with sample=true has no batched twin; allowed: the most likely move")
        agent.reset(0, venv.config, None)  # the player count and, unless any_rules, the scoring rules
        self.name = name or f"ppo:{policy if isinstance(policy, (str, os.PathLike)) else agent.path}"
        self._policy = agent.policy
        self._input = PolicyInput(agent.features, venv.num_players, int(venv.config.divisor))
        if self._input.size != self._policy.obs_dim:
            raise ValueError(f"{agent.path!r} expects inputs of size {self._policy.obs_dim}; this env's observations "
                             f"with features={agent.features!r} give {self._input.size}")
        self._tracker = ExclusionTracker(venv) if self._input.infer else None

    def before_step(self, actions):
        if self._tracker is not None:
            self._tracker.before_step(actions)

    def after_step(self, out):
        if self._tracker is not None:
            self._tracker.after_step(out)

    def state_dict(self) -> dict:
        return {} if self._tracker is None else {"exclusions": self._tracker.state_dict()}

    def load_state_dict(self, state):
        if self._tracker is not None:
            self._tracker.load_state_dict(state["exclusions"])

    def _actions(self, out, games, into):
        if len(games) == 0:
            return into
        mask = out.mask[games]
        exclusions = None if self._tracker is None else self._tracker.relative(out.to_move)[games]
        x = self._input(out.obs[games], mask, exclusions=exclusions)
        logits = self._policy.batch_logits(x, mask)
        logits[mask == 0] = -np.inf
        into[:] = np.argmax(logits, axis=1)
        return into


class BatchedSearch(BatchedAgent):
    """``search:engine=compiled[,samples=K]``: the compiled determinized search in every game that asks,
    from that game's state (its worlds redraw every tile the mover cannot see). The worlds come from this
    agent's own random stream, so it plays like the arena's search in distribution, not move for move;
    a Python loop over the games."""

    def __init__(self, venv, seed, samples=None):
        from ..compiled.state import kernel_config
        from ..env.encoders import default_layout
        from .search import DEFAULT_SAMPLES
        from .search_compiled import Searcher

        self.name = "search:engine=compiled" + ("" if samples is None else f",samples={samples}")
        self._venv = venv
        seed_int = int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0] >> np.uint64(2))
        self._searcher = Searcher(venv.num_sides, samples=samples or DEFAULT_SAMPLES[venv.num_players], seed=seed_int)
        # the search's own kernel config, as CompiledSearch builds it (the env's episode and reward options aside)
        self._cfg, self._fcfg, _ = kernel_config(venv.config, default_layout(venv.num_players), "game", "points",
                                                 False)
        self._greedy = BatchedGreedy(venv)

    def state_dict(self) -> dict:
        return {"rng": self._searcher.rng.copy()}

    def load_state_dict(self, state):
        self._searcher.rng[...] = state["rng"]

    def _actions(self, out, games, into):
        from .search import best_action

        greedy = self._greedy._actions(out, games, np.empty(len(games), np.int64))  # games checked by actions()
        state = self._venv.compiled_state()
        for i, b in enumerate(games):
            legal = np.flatnonzero(out.mask[b])
            if len(legal) == 1:  # a draw or a pass is only ever legal alone (R13)
                into[i] = legal[0]
                continue
            placements, values = self._searcher.values(state.st, state.hands, state.scores, int(b), self._cfg,
                                                       self._fcfg)
            into[i] = best_action(placements.tolist(), values.tolist(), int(greedy[i]))
        return into


#: The options each batched twin takes (the search twin is ``search:engine=compiled`` alone).
BATCHED_OPTIONS = {"random": (), "greedy": (), "heuristic": (), "ppo": ("infer", "any_rules"),
                   "search": ("engine", "samples")}


def check_batched_spec(spec) -> tuple:
    """``(name, path, options)`` of a spec that has a batched twin, or ValueError naming the allowed ones."""
    from .registry import parse_spec

    name, path, options = parse_spec(spec) if isinstance(spec, str) else (None, None, {})
    allowed = (f"allowed: {', '.join(BATCHED_SPECS)} (ppo takes infer=greedy|off and any_rules=true|false; other "
               "specs play through the arena or the single-game wrapper)")
    if name not in BATCHED_OPTIONS:
        raise ValueError(f"agent {spec!r} has no batched twin; {allowed}")
    extra = sorted(set(options) - set(BATCHED_OPTIONS[name]))
    if extra:
        takes = ", ".join(BATCHED_OPTIONS[name]) or "no options"
        raise ValueError(f"agent {spec!r} has no batched twin: the batched {name} takes {takes}, not "
                         f"{', '.join(extra)}; {allowed}")
    if name == "search":
        if options.get("engine") != "compiled":
            raise ValueError(f"agent {spec!r} has no batched twin: the batched search is search:engine=compiled; "
                             f"{allowed}")
        if "samples" in options:  # the arena's search checks it when built; this twin is built elsewhere
            check_count("samples", options["samples"], maximum=MAX_SAMPLES)
    return name, path, options


def make_batched_agent(spec, venv, seed=0) -> BatchedAgent:
    """The batched twin of agent ``spec`` for the games of ``venv``; ``seed`` drives ``random``."""
    if isinstance(spec, BatchedAgent):
        return spec
    name, path, options = check_batched_spec(spec)
    if name == "ppo":
        return BatchedPolicy(venv, path, infer=options.get("infer"), any_rules=options.get("any_rules", False))
    if name == "search":
        return BatchedSearch(venv, seed, samples=options.get("samples"))
    return {"random": lambda: BatchedRandom(venv, seed), "greedy": lambda: BatchedGreedy(venv),
            "heuristic": lambda: BatchedHeuristic(venv)}[name]()

