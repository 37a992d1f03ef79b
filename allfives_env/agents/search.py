"""Determinized Monte-Carlo search (perfect-information rollouts over sampled worlds).

For each decision with more than one legal action the agent repeats, for
``samples`` sampled hidden states (:func:`~allfives_env.rules.view.sample_world`:
every unseen tile placed in a hand or the boneyard, consistent with hand
sizes and known lacking suits):

1. try every legal action in that same world (common random numbers: all
   actions face the same hidden tiles, which removes most of the noise from
   the comparison);
2. play the rest of the hand out with the greedy policy for every seat (or
   at most ``depth`` further steps when ``depth`` is set); ``rollout=heuristic``
   plays every seat with the heuristic agent instead (slower per world; its
   rollouts deny replies and keep suit control as good players do: its
   strength is in docs/history.md);
3. score the action by the points its side gained minus the mean gained by the
   other sides over that stretch (hand bonus included). Reaching the target
   counts as ``win_value`` extra (lost: minus it), so the search plays for the
   game, not only the hand.

The action with the best mean plus ``prior_weight`` times its
:mod:`~allfives_env.agents.heuristic` value wins (ties: the greedy order).
The prior carries what greedy rollouts miss (denying the next reply, suit
control, shedding; measured in docs/agents.md).
``engine=compiled`` runs the same search on the numba kernels of the batched
environment (:mod:`allfives_env.agents.search_compiled`; its speed:
``benchmarks/search_speed.py``), with its own random stream, so not
the same worlds as ``engine=python``.
``infer=greedy`` (compiled engine) samples only worlds in which every opponent's
placements this hand were greedy's choices: each tile that would have scored
more, or tied and ranked higher, than what it played is kept out of its hand
(:func:`allfives_env.agents.inference.greedy_exclusions`). Exact against greedy
opponents; against others it is a model, dropped for any world it cannot fit.
Budget options:
``samples`` (worlds per move; default :data:`DEFAULT_SAMPLES` by player
count: 24 / 40 / 48 for 2 / 3 / 4 players), ``depth`` (steps per rollout, ``None`` = to the
end of the hand) and ``time_ms`` (stop sampling a move once this many
milliseconds have passed, after at least ``min_samples`` worlds).
"""

import time

from ..env.options import check_count, check_number
from ..env.rewards import side_rewards
from ..rules.view import player_view, sample_world
from .base import BaseAgent
from .greedy import greedy_action
from .heuristic import HeuristicAgent, score_placements

#: Worlds per move when ``samples`` is not given: chosen for about half a second of CPU a game
#: (the measured times are in docs/results.md).
DEFAULT_SAMPLES = {2: 24, 3: 40, 4: 48}
#: The most worlds per move an agent accepts: about a minute a move with the compiled engine.
MAX_SAMPLES = 100_000


def best_action(legal_actions, values, greedy_choice) -> int:
    """The search's pick: the highest value; ties go to ``greedy_choice``, then the first listed."""
    best = max(range(len(legal_actions)), key=lambda k: (values[k], legal_actions[k] == greedy_choice))
    return int(legal_actions[best])


#: The least worlds a ``time_ms`` budget searches.
MIN_SAMPLES = 4


class SearchAgent(BaseAgent):
    """search: determinized sampling of hidden states with greedy rollouts to the hand's end."""

    name = "search"
    #: Options whose ``none`` in a spec would read as the default, not "off": refused there (registry).
    spec_refuses_none = {"engine": "'python' or 'compiled'"}

    @property
    def compiles_on_first_call(self):
        return self.engine == "compiled"

    def __init__(self, samples=None, depth=None, time_ms=None, min_samples=None, win_value=100.0, prior_weight=1.0,
                 engine=None, infer=None, rollout="greedy"):
        super().__init__()
        if rollout not in ("greedy", "heuristic"):
            raise ValueError(f"rollout={rollout!r} is not allowed; allowed: 'greedy' (the default) or 'heuristic'")
        self.rollout = rollout
        if engine not in (None, "python", "compiled"):
            raise ValueError(f"engine={engine!r} is not allowed; allowed: 'python' or 'compiled'")
        if infer not in (None, "off", "greedy"):
            raise ValueError(f"infer={infer!r} is not allowed; allowed: 'greedy' or 'off' (the default)")
        infer = infer or "off"
        if infer == "greedy" and engine == "python":
            raise ValueError("infer=greedy runs on the compiled engine only: drop engine=python")
        self.infer = infer
        engine = engine or ("compiled" if infer == "greedy" else "python")
        if engine == "compiled" and (depth is not None or time_ms is not None):
            raise ValueError("engine=compiled plays whole-hand rollouts with a fixed budget: depth and time_ms "
                             "are options of engine=python only")
        self.engine = engine
        self._compiled = None
        self.prior_weight = check_number("prior_weight", prior_weight, minimum=0.0)
        self._prior = HeuristicAgent()
        self.samples = None if samples is None else check_count("samples", samples, maximum=MAX_SAMPLES)
        self._samples = self.samples or DEFAULT_SAMPLES[2]
        # depth 0 scores the move alone; time_ms 0 stops after min_samples worlds
        self.depth = None if depth is None else check_count("depth", depth, minimum=0)
        self.time_ms = None if time_ms is None else check_number("time_ms", time_ms, minimum=0.0)
        self.min_samples = check_count("min_samples", MIN_SAMPLES if min_samples is None else min_samples,
                                       maximum=MAX_SAMPLES)
        if min_samples is not None and time_ms is None:  # it would change nothing
            raise ValueError(f"min_samples={min_samples} without time_ms changes nothing (the least worlds of a "
                             "time_ms budget); allowed: min_samples with time_ms (engine=python), or no min_samples")
        self._min_samples_given = min_samples is not None
        if self.samples is not None:
            self._check_min_samples(self.samples, f"samples={self.samples}")
        self.win_value = check_number("win_value", win_value, minimum=0.0)

    #: worlds per move by player count when ``samples`` is not given
    default_samples = DEFAULT_SAMPLES

    def _check_min_samples(self, samples, named):
        """A given ``min_samples`` at or above the worlds searched would leave ``time_ms`` nothing to stop."""
        if self._min_samples_given and self.min_samples >= samples:
            allowed = f"min_samples from 1 to {samples - 1}" if samples > 1 else "no min_samples (one world)"
            raise ValueError(f"min_samples={self.min_samples} is not below {named}, so time_ms could never stop "
                             f"the search early; allowed: {allowed}")

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self._samples = self.samples or self.default_samples[config.num_players]
        if self.samples is None:
            self._check_min_samples(self._samples, f"the {self._samples} worlds of {config.num_players} players")
        if self.engine == "compiled":
            from .search_compiled import CompiledSearch

            self._compiled = CompiledSearch(config, self._samples, self.win_value, self.prior_weight, rng,
                                            infer=self.infer == "greedy", rollout=self.rollout)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:  # a draw or a pass is only ever legal alone (R13)
            return legal_actions[0]
        legal = list(legal_actions)
        return best_action(legal, self.action_values(view, legal), greedy_action(view, legal))

    def action_values(self, view, legal_actions) -> list:
        """The search's value of each of ``legal_actions`` (placements; more than one):
        the mean rollout value over the sampled worlds plus ``prior_weight`` times
        the heuristic value. ``act`` takes the highest (ties: greedy's choice)."""
        legal = list(legal_actions)
        if self._compiled is not None:
            return self._compiled.action_values(view, legal)
        totals = [0.0] * len(legal)
        deadline = None if self.time_ms is None else time.perf_counter() + self.time_ms / 1000.0
        side = view.side
        done = 0
        for i in range(self._samples):
            if deadline is not None and i >= self.min_samples and time.perf_counter() > deadline:
                break
            world = sample_world(view, self.rng)
            before = list(world.scores)
            for k, action in enumerate(legal):
                g = world.clone()
                g.step(action)
                totals[k] += self._rollout(g, side, before)
            done += 1
        means = [t / done for t in totals]
        if self.prior_weight:
            prior = score_placements(view, legal, self._prior)
            means = [m + self.prior_weight * min(prior[a], 1e3) for m, a in zip(means, legal)]
        return means

    def _rollout_action(self, g):
        """The rollout's move for the seat to move in the world ``g``: greedy's, or the heuristic's
        from that seat's own view."""
        actions = g.legal_actions()
        if len(actions) == 1:
            return actions[0]
        if self.rollout == "heuristic":
            return self._prior.act(player_view(g, g.to_move), actions)
        return greedy_action(g, actions)

    def _rollout(self, g, side, before) -> float:
        steps = self.depth
        while not g.hand_over:
            if steps is not None:
                if steps <= 0:
                    break
                steps -= 1
            g.step(self._rollout_action(g))
        value = side_rewards([now - then for now, then in zip(g.scores, before)], "zero_sum")[side]
        if g.game_over:
            value += self.win_value if side in g.winners else -self.win_value
        return value
