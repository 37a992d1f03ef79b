"""The ``collect`` step of :mod:`training.distill` on the batched environment and the compiled search.

Same records as the arena path (:func:`training.distill.collect`), produced
about fifteen times faster: ``num_envs`` games run in one
:class:`~allfives_env.vector.VectorAllFives` (forced draws and passes played
by the environment); the student's side alternates from one game to the next
in each slot; the opponents play greedy (the compiled :func:`greedy_move`,
exactly the greedy agent); every student decision with a choice is labelled
with :func:`allfives_env.agents.search_compiled.search_values` (the search agent's
values, tested equal in definition to the Python agent's).
"""

import time

import numpy as np

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.agents.search import DEFAULT_SAMPLES
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.vector import VectorAllFives
from allfives_env.compiled.state import C_DIVISOR
from allfives_env.agents.search_compiled import Searcher, greedy_move

from .distill_data import write_shard

#: Search options the compiled teacher understands (the Python agent also has depth, time_ms, min_samples).
COMPILED_OPTIONS = {"samples", "win_value", "prior_weight"}


def compiled_teacher_options(spec: str):
    """The options of a ``search[:k=v,...]`` spec if the compiled search can play it, else None."""
    name, _, rest = spec.partition(":")
    if name != "search":
        return None
    options = {}
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key not in COMPILED_OPTIONS:
            return None
        options[key] = int(value) if key == "samples" else float(value)
    return options


def collect_shard(student_path, teacher_options, beta, seed, games, path, num_envs=32) -> tuple:
    """Play ``games`` games (``num_envs`` at a time) and write their labels to ``path``;
    returns ``(decisions, student wins, games, cpu seconds)``."""
    t0 = time.process_time()
    student = make_agent(f"ppo:{student_path}")
    rules = student.rules
    n, sides = rules.num_players, rules.num_sides
    samples = teacher_options.get("samples") or DEFAULT_SAMPLES[n]
    searcher = Searcher(sides, samples=samples, win_value=teacher_options.get("win_value", 100.0),
                        prior_weight=teacher_options.get("prior_weight", 1.0), seed=seed)
    policy_input = PolicyInput(student.features, n, rules.divisor)
    options = {k: v for k, v in rules.to_dict().items() if k != "num_players"}
    venv = VectorAllFives(num_envs=min(num_envs, games), num_players=n, auto_forced=True, **options)
    out = venv.reset(seed=seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    B = venv.num_envs
    student_side = np.arange(B) % sides
    started, finished, wins = B, 0, 0
    active = np.ones(B, bool)
    records = []
    st, hands, cfg = venv._st, venv._hands, venv._cfg
    divisor = int(cfg[C_DIVISOR])
    actions = np.zeros(B, np.int64)
    while finished < games:
        # opponents (and the student's forced moves) first; then every student choice, labelled
        mask = out.mask
        movers_side = out.to_move % 2 if n == 4 else out.to_move
        mine = active & (movers_side == student_side)
        choice = mine & (mask[:, :DRAW].sum(1) >= 2)
        for b in np.flatnonzero(~choice):
            actions[b] = greedy_move(st, b, hands, divisor) if not mine[b] else int(np.flatnonzero(mask[b])[0])
        rows = np.flatnonzero(choice)
        if len(rows):
            x = policy_input(out.obs[rows], mask[rows])
            logits = student.logits(x)
            for i, b in enumerate(rows):
                legal, values = searcher.venv_values(venv, b)
                if len(legal) != int(mask[b, :DRAW].sum()) or not mask[b, legal].all():  # pragma: no cover
                    raise RuntimeError(f"the compiled search's placements {legal} differ from the mask of game {b}")
                s_action = int(legal[int(np.argmax(logits[i, legal]))])
                t_action = Searcher.choose(st, hands, b, cfg, legal, values)
                full = np.full(NUM_ACTIONS, np.nan, np.float32)
                full[legal] = values
                records.append((np.array(x[i], np.float32), mask[b].astype(bool), full, s_action, t_action))
                actions[b] = t_action if rng.random() < beta else s_action
        out = venv.step(actions)
        for b in np.flatnonzero(out.terminated & active):
            final = out.final_scores[b]
            mine_score = final[student_side[b]]
            wins += bool(mine_score >= rules.target_points and mine_score == final.max())
            finished += 1
            student_side[b] = (student_side[b] + 1) % sides
            if started >= games:
                active[b] = False  # let this slot run on unlabelled; enough games are under way
            else:
                started += 1
    write_shard(path, records, [seed, games, wins])
    return len(records), wins, games, time.process_time() - t0
