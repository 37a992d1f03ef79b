"""Distil several policy files into one: the student learns their mean log-probabilities.

    python -m training.distill checkpoints/ppo_3p_lookahead.pt checkpoints/champion_value_3p.pt \\
        --out checkpoints/ppo_3p.pt --games 15000 --seed 400000 --epochs 12 --lr 5e-4

The teachers' ensemble plays the most likely move of the mean of their
log-probabilities over the legal moves, one network call per teacher. The
student, one file with the inputs and network of ``--init`` (the first
teacher unless given), learns that mean's distribution, so it plays like the
ensemble at the cost of one call.

Games: one seat is the ensemble; the other seats are, by deal seed, the
ensemble too, two greedy, two heuristic, two compiled searches, a greedy and a
heuristic, or a compiled search and a heuristic (:data:`LINEUPS`), the
ensemble's seat rotating. Every placement decision with a choice, of every
seat, is a label: the student's inputs, the legal mask and the ensemble's
probabilities there. Recording needs about 0.36 MB of memory per 3-player game
(15,000 games: 5.5 GB).

Fit: the student's cross-entropy to the ensemble's probabilities, plus the
squared change of its value from the value it started with (the value head
keeps its meaning). A tenth of the games is held out; how often the student's
most likely move is the ensemble's is reported there before and after.
"""

import argparse
import os
import sys
import time
from multiprocessing import get_context

import numpy as np

from allfives_env.agents.ppo.agent import CheckpointError, PPOAgent, build_policy, policy_features, read_checkpoint
from allfives_env.agents.ppo.network import masked_logits
from allfives_env.agents.registry import make_agent
from allfives_env.arena.deals import deal_hand
from allfives_env.arena.game import agent_rng
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view

from .checkpoint import export_policy
from .value_fit import HELD_OUT_EVERY, check_target, positive_int

ENSEMBLE = "ensemble"
#: The players of the seats after the ensemble's, by ``deal_seed % len(LINEUPS)`` (cycled with 4 players).
LINEUPS = (
    (ENSEMBLE, ENSEMBLE),
    ("greedy", "greedy"),
    ("heuristic", "heuristic"),
    ("search:engine=compiled", "search:engine=compiled"),
    ("greedy", "heuristic"),
    ("search:engine=compiled", "heuristic"),
)


def ensemble_log_probs(teachers, view, legal: np.ndarray) -> np.ndarray:
    """The normalised mean of the ``teachers``' (PPO agents') log-probabilities over ``legal``."""
    total = np.zeros(len(legal))
    for teacher in teachers:
        logits = teacher.policy.logits(teacher.input_vector(view, legal), legal)[legal].astype(np.float64)
        total += _log_softmax(logits)
    return _log_softmax(total / len(teachers))


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def seat_specs(config: RulesConfig, deal_seed) -> list:
    """Each seat's player in the game on ``deal_seed``: :data:`ENSEMBLE` or an agent spec."""
    n = config.num_players
    others = LINEUPS[deal_seed % len(LINEUPS)]
    ensemble_seat = (deal_seed // len(LINEUPS)) % n
    specs = [ENSEMBLE] * n
    for k in range(1, n):
        specs[(ensemble_seat + k) % n] = others[(k - 1) % len(others)]
    return specs


def record_game(teachers, student: PPOAgent, config: RulesConfig, deal_seed):
    """``(inputs, masks, targets)`` of every placement decision with a choice in one game (see the
    module docstring): the student's inputs, the legal mask, the ensemble's probabilities."""
    specs = seat_specs(config, deal_seed)
    agents = [None if spec == ENSEMBLE else make_agent(spec) for spec in specs]
    for seat, agent in enumerate(agents):
        if agent is not None:
            agent.reset(seat, config, agent_rng(deal_seed, seat))
    for network in (*teachers, student):
        network.reset(0, config, None)  # these only encode and score views, any seat's
    game = Game(config)
    inputs, masks, targets = [], [], []
    hand = 0
    while True:
        deal_hand(game, deal_seed, hand)
        while not game.hand_over:
            seat, legal = game.to_move, game.legal_actions()
            if len(legal) == 1:
                game.step(legal[0])
                continue
            view = player_view(game, seat)
            legal = np.asarray(view.legal_actions)
            log_probs = None
            if legal[0] < DRAW:  # placements (a draw or a pass is never one of several choices)
                log_probs = ensemble_log_probs(teachers, view, legal)
                mask = np.zeros(NUM_ACTIONS, np.int8)
                mask[legal] = 1
                target = np.zeros(NUM_ACTIONS, np.float32)
                target[legal] = np.exp(log_probs)
                inputs.append(student.input_vector(view, legal).astype(np.float32))
                masks.append(mask)
                targets.append(target)
            if agents[seat] is not None:
                action = agents[seat].act(view, view.legal_actions)
            else:
                action = legal[int(np.argmax(log_probs))] if log_probs is not None else legal[0]
            game.step(int(action))
        if game.game_over:
            break
        hand += 1
    return np.array(inputs, np.float32), np.array(masks, np.int8), np.array(targets, np.float32)


_WORKER = {}  # per process: the teachers and the student, read once


def _record(job):
    teacher_paths, student_path, config, deal_seed = job
    if "teachers" not in _WORKER:
        _WORKER["teachers"] = [PPOAgent(path) for path in teacher_paths]
        _WORKER["student"] = PPOAgent(student_path)
    return record_game(_WORKER["teachers"], _WORKER["student"], config, deal_seed)


def collect(teacher_paths, student_path, config: RulesConfig, games, seed, workers=1) -> dict:
    """Record ``games`` games on deal seeds ``seed .. seed + games - 1``: arrays ``inputs``, ``masks``,
    ``targets`` and ``game`` (each row's game index)."""
    for path in (*teacher_paths, student_path):
        PPOAgent(path)  # read with torch here, once: forked workers reuse the read (no torch after a fork)
    jobs = [(tuple(teacher_paths), student_path, config, seed + g) for g in range(games)]
    _WORKER.clear()
    if workers > 1:
        with get_context("fork").Pool(workers) as pool:
            results = pool.map(_record, jobs, chunksize=16)
    else:
        results = [_record(job) for job in jobs]
    _WORKER.clear()
    return {"inputs": np.concatenate([r[0] for r in results]), "masks": np.concatenate([r[1] for r in results]),
            "targets": np.concatenate([r[2] for r in results]),
            "game": np.concatenate([np.full(len(r[0]), g) for g, r in enumerate(results)])}


def _agreement(net, x, legal, target, held_out):
    """The student's values, and on held-out and training rows: how often its most likely move is the
    ensemble's, and its cross-entropy to the ensemble."""
    import torch

    with torch.no_grad():
        outputs = [net(x[i:i + 8192], legal[i:i + 8192]) for i in range(0, len(x), 8192)]
        logits = masked_logits(torch.cat([o[0] for o in outputs]), legal)
        values = torch.cat([o[1] for o in outputs])
        same = (logits.argmax(-1) == target.argmax(-1)).float()
        cross_entropy = _cross_entropy(logits, legal, target)
    return values, {"agree_held_out": float(same[held_out].mean()), "agree_train": float(same[~held_out].mean()),
                    "cross_entropy_held_out": float(cross_entropy[held_out].mean())}


def _cross_entropy(logits, legal, target):
    import torch

    log_probs = torch.log_softmax(logits, -1)
    return -(target * torch.where(legal, log_probs, torch.zeros_like(log_probs))).sum(-1)


def fit(net, data, epochs=12, lr=5e-4, value_weight=1.0, batch=1024, seed=0, log=print) -> dict:
    """Fit ``net`` in place to ``data`` (from :func:`collect`); returns the held-out agreement and
    cross-entropy before and after."""
    import torch

    x, legal = torch.from_numpy(data["inputs"]), torch.from_numpy(data["masks"]).bool()
    target = torch.from_numpy(data["targets"])
    held_out = torch.from_numpy(data["game"] % HELD_OUT_EVERY == 0)
    train_rows = torch.nonzero(~held_out).squeeze(1)
    net.eval()
    values0, before = _agreement(net, x, legal, target, held_out)
    log(f"before: {_format(before)}")
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    after = before
    for epoch in range(epochs):
        net.train()
        order = train_rows[torch.randperm(len(train_rows), generator=generator)]
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            logits, values = net(x[rows], legal[rows])
            loss = (_cross_entropy(masked_logits(logits, legal[rows]), legal[rows], target[rows]).mean()
                    + value_weight * ((values - values0[rows]) ** 2).mean())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        net.eval()
        _, after = _agreement(net, x, legal, target, held_out)
        log(f"epoch {epoch + 1}: {_format(after)}")
    return {**{f"{k}_before": v for k, v in before.items()}, **after, "rows": len(x),
            "held_out_rows": int(held_out.sum())}


def _format(report) -> str:
    return (f"the ensemble's move {report['agree_held_out']:.1%} held out ({report['agree_train']:.1%} trained on), "
            f"cross-entropy {report['cross_entropy_held_out']:.3f}")


def _read_teachers(paths, init, output):
    """The rules of ``paths`` (all for one player count) and the student's checkpoint, checked."""
    if len(paths) < 2:
        raise ValueError(f"give at least 2 teacher files, got {len(paths)}")
    rules = {}
    for path in paths:
        check_target(path, output)
        rules[path] = RulesConfig.from_options(**read_checkpoint(path)["policy"]["rules"])
    check_target(init, output)
    student = read_checkpoint(init)
    student_rules = RulesConfig.from_options(**student["policy"]["rules"])
    players = {path: r.num_players for path, r in {**rules, init: student_rules}.items()}
    if len(set(players.values())) > 1:
        listed = ", ".join(f"{os.path.basename(p)}: {n}" for p, n in players.items())
        raise ValueError(f"the teachers and the student must be for one player count; got {listed}")
    return student_rules, student


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.distill", description=__doc__.splitlines()[0])
    p.add_argument("teachers", nargs="+", help="the policy files whose mean log-probabilities are learned")
    p.add_argument("--out", required=True, help="where to write the student (not a teacher's file)")
    p.add_argument("--init", default=None, help="the student's starting file (default: the first teacher)")
    p.add_argument("--games", type=positive_int("--games"), default=15000, help="games recorded (default 15000)")
    p.add_argument("--seed", type=int, default=400000, help="first deal seed (default 400000)")
    p.add_argument("--epochs", type=positive_int("--epochs"), default=12, help="passes over the data (default 12)")
    p.add_argument("--lr", type=float, default=5e-4, help="Adam's learning rate (default 5e-4)")
    p.add_argument("--workers", type=positive_int("--workers"), default=2, help="processes playing (default 2)")
    args = p.parse_args(argv)
    init = args.init or args.teachers[0]
    try:
        if not args.lr > 0:
            raise ValueError(f"--lr must be positive, got {args.lr}")
        if args.seed < 0:
            raise ValueError(f"--seed must be at least 0, got {args.seed}")
        rules, student = _read_teachers(args.teachers, init, args.out)
    except (CheckpointError, ValueError) as exc:
        sys.stderr.write(f"training.distill: error: {exc}\n")
        return 2
    import torch

    torch.set_num_threads(args.workers)
    start = time.time()
    data = collect(args.teachers, init, rules, args.games, args.seed, args.workers)
    print(f"recorded {len(data['targets'])} decisions of {args.games} games in {time.time() - start:.0f} s",
          flush=True)
    net = build_policy(student["policy"], init)
    report = fit(net, data, args.epochs, args.lr, log=lambda line: print(line, flush=True))
    extra = {"distilled_from": [os.path.basename(path) for path in args.teachers],
             "init": os.path.basename(init), "games": args.games, "seed": args.seed, "epochs": args.epochs,
             "lr": args.lr, **report}
    export_policy(args.out, net, rules, extra=extra, features=policy_features(student["policy"], init))
    print(f"wrote {args.out} ({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
