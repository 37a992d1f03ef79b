"""The heuristic agent (:mod:`allfives_env.agents.heuristic`) compiled over the batched state.

:func:`heuristic_actions` gives, for a list of games of a
:class:`~allfives_env.vector.VectorAllFives`, the action
:meth:`HeuristicAgent.act` takes for the seat to move in each: the legal
placement of highest heuristic value (:func:`~allfives_env.agents.search_compiled.heuristic_values`,
the compiled twin of ``score_placements``), ties to greedy's tie-break (the
heavier tile, then the lower slot, :data:`~allfives_env.agents.greedy.TIE_RANK`);
a forced draw or pass as it is. No Python engine, no views: a trainer can play
the heuristic as a baseline seat on the batched env (see
``tests/agents/test_heuristic_compiled.py`` for the parity with the Python agent).

It lives apart from ``heuristic.py`` because it builds on the compiled search's
kernels, which read the Python agent's default weights (no import cycle).
"""

import numpy as np
from numba import njit

from ..compiled.state import DRAW, F_TARGET, NUM_FIELDS, OPTS
from .search_compiled import HEURISTIC_WEIGHTS, heuristic_move


@njit(**OPTS)
def heuristic_moves(games, st, hands, scores, cfg, target, weights, legal, values, lst, lhands, lscores, replies,
                    out):
    """``out[i]``: :func:`heuristic_move` in game ``games[i]`` (indices in range: the caller checks them)."""
    for i in range(games.shape[0]):
        out[i] = heuristic_move(st, games[i], hands, scores, cfg, target, weights, legal, values, lst, lhands,
                                lscores, replies)
    return out


class HeuristicScratch:
    """The scratch arrays of :func:`heuristic_moves` (games with ``num_sides`` sides), allocated once."""

    def __init__(self, num_sides):
        self.legal = np.zeros(DRAW, np.int64)
        self.values = np.zeros(DRAW, np.float64)
        self.lst = np.zeros((1, NUM_FIELDS), np.int8)
        self.lhands = np.zeros((1, 8), np.int64)
        self.lscores = np.zeros((1, num_sides), np.float64)
        self.replies = np.zeros(28, np.float64)

    def moves(self, state, games, weights, out):
        """:func:`heuristic_moves` on ``state`` (a :class:`~allfives_env.vector.batched.CompiledState`);
        ``games`` int64 indices in range, ``out`` int64 of the same length; returns ``out``."""
        return heuristic_moves(games, state.st, state.hands, state.scores, state.cfg, state.fcfg[F_TARGET], weights,
                               self.legal, self.values, self.lst, self.lhands, self.lscores, self.replies, out)


def heuristic_actions(venv, games, out=None, agent=None) -> np.ndarray:
    """:meth:`HeuristicAgent.act` for the seat to move in each game ``games[i]`` of ``venv`` (a
    :class:`~allfives_env.vector.VectorAllFives`), compiled; reads ``venv.compiled_state()`` only.

    ``games``: 1-D integer game indices in ``0..B-1`` (any order, repeats allowed);
    ``out``: an int64 array of the same length to write to (None: a new one), returned;
    ``agent``: a :class:`~allfives_env.agents.heuristic.HeuristicAgent` whose weights are
    used (None: the default weights). ``out[i]`` equals ``agent.act(view, view.legal_actions)``
    on the same position; a forced draw or pass is returned as is. Raises ``ValueError``
    for bad ``games`` or ``out`` before reading anything."""
    games = game_indices(games, venv.num_envs)
    out = np.empty(len(games), np.int64) if out is None else checked_out(out, games)
    weights = HEURISTIC_WEIGHTS if agent is None else agent.weight_array()
    return HeuristicScratch(venv.num_sides).moves(venv.compiled_state(), games, weights, out)


def checked_out(out, games) -> np.ndarray:
    """``out``, a writable int64 array with one entry per game index, or ValueError naming what is allowed."""
    if not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != games.shape \
            or not out.flags.writeable:
        raise ValueError(f"out must be a writable int64 array of shape {games.shape} (one action per game index)")
    return out


def game_indices(games, num_envs) -> np.ndarray:
    """``games`` as int64 indices, or ValueError naming what is allowed."""
    games = np.asarray(games)
    if games.ndim != 1 or (games.size and games.dtype.kind not in "iu"):
        raise ValueError(f"games must be a 1-D array of integer game indices; got shape {games.shape}, "
                         f"dtype {games.dtype}")
    if games.size and (games.min() < 0 or games.max() >= num_envs):
        raise ValueError(f"games holds indices outside 0..{num_envs - 1}")
    return games.astype(np.int64)
