"""Expert iteration: teach a PPO policy the choices of a stronger, slower search.

Two steps, each a subcommand::

    # 1. play the student against an opponent; label every student decision with
    #    the teacher's value of each legal action (one .npz shard per block of games)
    python -m training.distill collect --student checkpoints/ppo_4p.pt \\
        --teacher search:samples=144 --opponent greedy --games 2000 --out runs/distill_4p/data

    # 2. fine-tune the student on those labels; writes a ppo:PATH policy file
    python -m training.distill train --student checkpoints/ppo_4p.pt \\
        --data runs/distill_4p/data --out runs/distill_4p/policy.pt

**Collect** plays games in which the student's seats are labelled: at each
decision with a choice the student's network input, the legal-action mask
and the teacher's value of every legal action are recorded, then the
teacher's action is played with probability ``beta`` and the student's
otherwise (DAgger: the states are the student's own, nudged toward the
teacher's). Two engines give the same records:

* ``compiled`` (the default for a ``search`` teacher against ``greedy``): the
  batched environment and the compiled search
  (:mod:`allfives_env.agents.search_compiled`; :mod:`training.distill_vector`), about
  fifteen times faster than the Python search (4-player ``search:samples=144``:
  about 4 ms of CPU per decision against 55 ms);
* ``arena``: any teacher with ``action_values(view, legal)`` and any opponent,
  through :func:`allfives_env.arena.play_game` (deal seeds ``[seed, game]``,
  the student's side alternating between games).

Shards are written atomically and skipped when present, so an interrupted
collection resumes where it stopped.

**Train** minimises the cross-entropy between the student's masked policy and
the teacher's choice (``temperature=0``: the teacher's best action; above 0:
``softmax(values / temperature)`` over the legal actions; with ``margin``, a
decision keeps the student's own action as its target unless the teacher
values its best action more than ``margin`` points higher), plus
``value_coef`` times the squared drift of the value head from the starting
network's (so a later PPO run starts from a value that still fits). 5% of
the games are held out; the log shows how often the student's top action
agrees with the teacher's there.
"""

import argparse
import os
import sys
import time
from multiprocessing import get_context

import numpy as np

from allfives_env.agents import make_agent
from allfives_env.agents.base import BaseAgent
from allfives_env.agents.greedy import greedy_action
from allfives_env.agents.ppo.agent import CheckpointError, PPOAgent
from allfives_env.agents.search import best_action
from allfives_env.arena.match import play_game
from allfives_env.rules.actions import NUM_ACTIONS

from .distill_data import write_shard

#: Games per shard file (arena engine, compiled engine).
SHARD_GAMES = 20
VECTOR_SHARD_GAMES = 200


class LabelingAgent(BaseAgent):
    """Plays a student seat while recording the teacher's values at every decision."""

    name = "labeling"

    def __init__(self, student: PPOAgent, teacher, beta: float, records: list):
        super().__init__()
        self.student, self.teacher, self.beta, self.records = student, teacher, float(beta), records

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self.student.reset(seat, config, rng)
        self.teacher.reset(seat, config, rng)

    def act(self, view, legal_actions):
        legal = np.asarray(legal_actions)
        x = np.array(self.student.input_vector(view, legal), np.float32)
        student_action = int(legal[int(np.argmax(self.student.logits(x)[legal]))])
        values = np.full(NUM_ACTIONS, np.nan, np.float32)
        values[legal] = self.teacher.action_values(view, [int(a) for a in legal])
        actions = [int(a) for a in legal]
        teacher_action = best_action(actions, values[legal], greedy_action(view, actions))
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[legal] = True
        self.records.append((x, mask, values, student_action, teacher_action))
        return teacher_action if self.rng.random() < self.beta else student_action


def _collect_shard(task) -> tuple:
    """Play games ``[first, first + count)`` and write their labels to ``path``."""
    student_path, teacher_spec, opponent_spec, beta, seed, first, count, path = task
    records, wins, t0 = [], 0, time.process_time()
    config = make_agent(f"ppo:{student_path}").rules
    for game_index in range(first, first + count):
        student_side = game_index % config.num_sides
        agents = []
        for seat in range(config.num_players):
            if config.side_of(seat) == student_side:
                agents.append(LabelingAgent(make_agent(f"ppo:{student_path}"), make_agent(teacher_spec), beta, records))
            else:
                agents.append(make_agent(opponent_spec))
        game, _, _, _ = play_game(config, agents, deal_seed=[seed, game_index])
        wins += student_side in game.winners
    write_shard(path, records, [first, count, wins])
    return path, len(records), wins, count, time.process_time() - t0


def _vector_shard(task) -> tuple:
    from .distill_vector import collect_shard

    student_path, options, beta, shard_seed, count, path = task
    n, wins, count, cpu = collect_shard(student_path, options, beta, shard_seed, count, path)
    return path, n, wins, count, cpu


def collect(student, teacher, opponent, games, out, seed=0, beta=0.5, workers=1, engine="auto", log=print) -> dict:
    """Label ``games`` games into shard files under ``out``; returns totals.

    ``engine="compiled"`` (what ``"auto"`` picks for a ``search`` teacher against
    ``greedy``) plays on the batched environment with the compiled search
    (:mod:`training.distill_vector`, shards of :data:`VECTOR_SHARD_GAMES`); ``"arena"``
    plays any teacher with ``action_values`` through the arena."""
    from .distill_vector import compiled_teacher_options

    make_agent(f"ppo:{student}")  # load (and check) the weights once, before any fork
    make_agent(teacher)
    make_agent(opponent)
    options = compiled_teacher_options(teacher)
    if engine == "auto":
        engine = "compiled" if options is not None and opponent == "greedy" else "arena"
    if engine == "compiled" and (options is None or opponent != "greedy"):
        raise ValueError(f"engine=compiled plays a search teacher (options samples, win_value, prior_weight) "
                         f"against greedy; got teacher {teacher!r}, opponent {opponent!r}")
    os.makedirs(out, exist_ok=True)
    tasks = []
    step = VECTOR_SHARD_GAMES if engine == "compiled" else SHARD_GAMES
    for first in range(0, games, step):
        path = os.path.join(out, f"shard_{seed}_{first:07d}.npz")
        if os.path.exists(path):
            continue
        count = min(step, games - first)
        if engine == "compiled":
            tasks.append((student, options, beta, seed * 10_000_019 + first, count, path))
        else:
            tasks.append((student, teacher, opponent, beta, seed, first, count, path))
    totals = {"shards": 0, "decisions": 0, "wins": 0, "games": 0}
    if not tasks:
        return totals
    t0 = time.perf_counter()
    ctx = get_context("fork")
    worker = _vector_shard if engine == "compiled" else _collect_shard
    with ctx.Pool(workers) if workers > 1 else _Inline() as pool:
        for path, n, wins, count, cpu in pool.imap_unordered(worker, tasks):
            totals["shards"] += 1
            totals["decisions"] += n
            totals["wins"] += wins
            totals["games"] += count
            log(f"{os.path.basename(path)}: {n} decisions, student side won {wins}/{count}, "
                f"{1000 * cpu / max(n, 1):.2f} ms CPU/decision; total {totals['decisions']} decisions "
                f"in {time.perf_counter() - t0:.0f} s")
    return totals


class _Inline:
    """A stand-in for a process pool that runs tasks in this process."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def imap_unordered(self, fn, tasks):
        return map(fn, tasks)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.distill", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="label the student's decisions with the teacher's action values")
    c.add_argument("--student", required=True, help="a ppo:PATH policy file (its features are recorded)")
    c.add_argument("--teacher", default="search:samples=144", help="an agent spec with action_values()")
    c.add_argument("--opponent", default="greedy", help="the agent spec of the other side(s)")
    c.add_argument("--games", type=int, required=True)
    c.add_argument("--seed", type=int, default=0, help="deal seeds are [seed, game]")
    c.add_argument("--beta", type=float, default=0.5, help="probability of playing the teacher's action")
    c.add_argument("--workers", type=int, default=1)
    c.add_argument("--engine", choices=("auto", "compiled", "arena"), default="auto",
                   help="compiled: batched env + compiled search (search teachers vs greedy); arena: any teacher")
    c.add_argument("--out", required=True, help="folder of the shard files")
    t = sub.add_parser("train", help="fine-tune the student on collected labels")
    t.add_argument("--student", required=True, help="the starting policy (a policy file or a training checkpoint)")
    t.add_argument("--data", required=True, nargs="+", help="folders of shard files")
    t.add_argument("--out", required=True, help="the policy file to write")
    t.add_argument("--epochs", type=int, default=4)
    t.add_argument("--lr", type=float, default=3e-4)
    t.add_argument("--batch-size", type=int, default=512)
    t.add_argument("--temperature", type=float, default=0.0, help="0: the teacher's best action; >0: soft targets")
    t.add_argument("--margin", type=float, default=None,
                   help="keep the student's own action unless the teacher's best is valued this much higher")
    t.add_argument("--hidden-sizes", type=int, nargs="+", default=None,
                   help="train a new network of these widths from scratch (inputs and rules of --student)")
    t.add_argument("--value-coef", type=float, default=1.0, help="weight of the value head's drift penalty")
    t.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        if args.command == "collect":
            if not 0.0 <= args.beta <= 1.0:
                p.error(f"--beta {args.beta}: allowed 0..1")
            totals = collect(args.student, args.teacher, args.opponent, args.games, args.out, seed=args.seed,
                             beta=args.beta, workers=args.workers, engine=args.engine)
            print(f"collected {totals['decisions']} decisions from {totals['games']} games "
                  f"({totals['shards']} new shards) in {args.out}")
        else:
            from .distill_train import train

            train(args.student, args.data, args.out, epochs=args.epochs, lr=args.lr, batch_size=args.batch_size,
                  temperature=args.temperature, value_coef=args.value_coef, seed=args.seed,
                  margin=args.margin, hidden_sizes=args.hidden_sizes)
    except (CheckpointError, ValueError) as exc:
        sys.stderr.write(f"training.distill: error: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
