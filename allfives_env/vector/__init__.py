"""A batched All Fives environment: B games of the same rules stepped at once.

Runs on numba (a core dependency). The rules are those of the pure-Python engine
(:mod:`allfives_env.rules`, the reference) re-written as numba kernels over
arrays (:mod:`allfives_env.compiled`); a differential test plays
thousands of games through both, comparing every step.

Usage::

    from . import VectorAllFives, make_rng_state, random_legal_actions

    venv = VectorAllFives(num_envs=1024, num_players=2, episode="game", reward="points",
                          auto_forced=False, **rule_options)   # hand_size, target, ...
    out = venv.reset(seed=0)
    pick = make_rng_state(1, venv.num_envs)
    for _ in range(1000):
        out = venv.step(random_legal_actions(out.mask, pick))

Options are those of the AEC env (:mod:`allfives_env.env`): ``num_players``,
the rule variants V1-V5 (``hand_size``, ``target``, ``first_leader``,
``hand_scoring``, ``divisor``), ``episode`` (``"game"``/``"hand"``),
``reward`` (``"points"``/``"zero_sum"``/``"win"``) and ``auto_forced``;
``encoder`` must be ``"default"``. ``parallel=True`` spreads the games over
numba threads (off by default: it pays only on idle cores, and a busy machine
makes its per-step barrier costly). An unknown option raises ``ValueError``
naming the allowed ones.

Every game is always at a decision: ``step(actions)`` takes ``actions`` of
shape (B,), an integer action id (:mod:`allfives_env.rules.actions`) for the
seat to move in each game (or ``SKIP`` = -1 to leave a game as it is: its
rewards are 0 and it neither terminates nor deals; ``step(actions,
final_viewers=seats)`` chooses who sees each ended episode's ``final_obs``),
and returns a :class:`VectorStep`:

* ``to_move`` (B,): the seat to move now; ``obs`` (B, D) float32 its default
  observation (exactly :class:`~allfives_env.env.encoders.DefaultEncoder`,
  seat-relative, named parts via ``venv.views(out.obs)``); ``mask`` (B, 114)
  int8 its legal actions.
* ``rewards`` (B, n_players) float32: what the last step gave **every** seat,
  as the AEC env's ``env.rewards`` after that step (``points``: each seat its
  side's gain, partners alike; ``zero_sum``; ``win``: +1/-1/0 at the episode's
  end only). A seat's reward often arrives on another seat's turn: trainers
  accumulate rewards per seat between that seat's decisions.
* ``terminated`` (B,): the episode ended in this step. Such a game is reset at
  once (a new game: scores 0, random deal and leader, R5/V3), so ``to_move``,
  ``obs``, ``mask`` and ``scores`` already describe the new episode's first
  decision, while ``rewards[b]`` holds the final step's rewards,
  ``final_scores[b]`` the ended episode's scores, ``final_obs[b]`` the ended
  position seen by ``final_seat[b]`` (the AEC env's ``agent_selection`` at
  termination, observed after the end: no mover's parts). ``final_*`` rows of
  games that did not terminate are stale.
* ``scores`` (B, n_sides) float64: each side's exact score (half points, R24).
* ``new_hand`` (B,): ``obs`` is the first decision of a newly dealt hand (the
  next hand of a game, R19, or an auto-reset).

Outputs are views of preallocated buffers that the next ``reset``/``step``
overwrites (no allocation per step); ``out.copy()`` keeps them.

Bad input: a wrong shape or an illegal action raises ``ValueError`` (naming the
first bad game index, its seat, the action and the legal ones), a non-integer
dtype ``TypeError``; the check runs before any game moves, so nothing changes.

Determinism: ``reset(seed)`` seeds one SplitMix64 stream per game from
``(seed, game index)``. The same seed and the same actions give the same
trajectories, whatever ``parallel`` or the thread count; the streams differ
from the AEC env's ``numpy`` generator, so the same seed does not give the
same deals as the AEC env. To replay exact positions (as the differential test
does) use ``set_position(indices, hands, boneyards, leaders, scores)``, the
counterpart of the AEC env's reset options.

Duplicate deals: ``reset(seed, deal_ids=ids)`` (ids (B,), non-negative ints)
seeds game ``b`` from stream ``ids[b]`` instead of ``b``. Every deal takes the
same amount of randomness (a leader is always drawn, used only where the rules
call for a draw), so games with equal ids see the same sequence of deals
whatever their moves: evaluating a policy against a baseline on the same deals
with seat rotation is two (or n) games per id, e.g.
``ids = np.repeat(np.arange(k), n)``, with the policy in a different seat in
each copy. The k-th deal is counted since the reset, over hands and over the
games an auto-reset starts, so copies whose first games last a different
number of hands no longer line up game by game: count only each game's first
episode (``terminated``), then reset again.

Compiled agents read positions through ``venv.compiled_state()`` (the live
kernel arrays, read-only by contract), e.g.
:func:`allfives_env.agents.heuristic_compiled.heuristic_actions`, the heuristic agent's
actions for a list of games without the Python engine.

Memory: 2.6 kB (2 players) to 3.2 kB (4 players) per game, mostly the two
observation buffers: B = 65,536 takes 161-200 MiB. ``venv.memory_bytes()``
reports it.

Speed: the games are stepped by one numba kernel (``compiled.step.step_all_serial``)
with no allocation and no reference counting per step; about 0.45-0.6 us of
CPU per decision including the observation, the mask and a random action
(``benchmarks/vector_speed.py`` measures it next to the AEC env).
"""

from ..compiled.state import SKIP
from .batched import VectorAllFives, VectorStep, make_rng_state, random_legal_actions

__all__ = ["VectorAllFives", "VectorStep", "SKIP", "make_rng_state", "random_legal_actions"]
