"""Refit a policy file's value to what the champion's look-ahead asks of it.

    python -m training.value_fit checkpoints/benchmark_v1/ppo_4p.pt checkpoints/champion_value_4p.pt --games 2500 --seed 60000

The champion (:mod:`allfives_env.agents.champion`) adds, where it next decides,
the policy's value in units of return: 0.02 per point its side gains over the
other sides' mean, +1 or -1 for a won or lost game, discount 0.99 per own
decision. The PPO files learned a value of their own side's points in their
training games; this refit teaches the same network the champion's return in
the games it plays.

Games: one side is played by ``champion:value=none`` (the search alone), the
other sides by ``search:engine=compiled``, the seats rotated game by game, on
duplicate deals from ``--seed``. Every real decision of every seat is recorded:
the policy's inputs, the legal mask and the discounted return from there.

Fit: the whole network, the value's squared error plus ``--kl-weight`` times
the KL divergence of its policy from the original one on the same positions,
so the replies the look-ahead plays stay the file's. With ``--head-only``, the
value head alone, by ridge regression on the trunk's features (the penalty with
the best held-out fit of :data:`RIDGE_PENALTIES`): the policy stays bit for bit
(how the distilled 3-player policy got its value, see ``training.distill``).
A tenth of the games is held out; their explained variance is reported before
and after.
"""

import argparse
import math
import os
import sys
import time
from multiprocessing import get_context

import numpy as np

from allfives_env.agents.champion import GAMMA, POINTS_PER_RETURN
from allfives_env.agents.ppo.agent import CheckpointError, PPOAgent, build_policy, policy_features, read_checkpoint
from allfives_env.agents.ppo.network import masked_logits
from allfives_env.agents.registry import make_agent, resolve_policy_path
from allfives_env.arena.deals import deal_hand
from allfives_env.arena.game import agent_rng, choose_action
from allfives_env.arena.schedule import MAX_WORKERS
from allfives_env.cli import OneLineParser
from allfives_env.env.rewards import side_outcomes, side_rewards
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view

from .checkpoint import check_policy_output, export_policy

#: The recording side's player and everyone else's.
RECORDED_SIDE, OTHER_SIDES = "champion:value=none", "search:engine=compiled"
HELD_OUT_EVERY = 10  # every tenth game is held out
RIDGE_PENALTIES = (1e-2, 1e-1, 1.0, 10.0, 100.0)


def discounted_returns(margins, end_margin, outcome, gamma=GAMMA, points=1.0 / POINTS_PER_RETURN) -> np.ndarray:
    """The return from each of one seat's decisions. ``margins[t]``: its side's points minus the other
    sides' mean when it made decision ``t``; ``end_margin`` the same at the game's end; ``outcome``
    +1, -1 or 0 (won, lost, drawn). ``G[t] = points * (margin[t+1] - margin[t]) + gamma * G[t+1]``,
    the last step's reward including the outcome (as the champion's look-ahead counts them)."""
    returns = np.zeros(len(margins))
    next_margin, next_return, discount = end_margin, float(outcome), 1.0
    for t in range(len(margins) - 1, -1, -1):
        returns[t] = points * (next_margin - margins[t]) + discount * next_return
        next_margin, next_return, discount = margins[t], returns[t], gamma
    return returns


def _margin(game, side) -> float:
    """The side's score minus the other sides' mean (the zero-sum reward of the whole score sheet)."""
    return side_rewards(game.scores, "zero_sum")[side]


def _outcome(game, side) -> float:
    return side_outcomes(set(game.winners), game.num_sides)[side]


def seat_specs(config: RulesConfig, deal_seed) -> list:
    """Each seat's agent spec in the game on ``deal_seed``: side ``deal_seed % sides`` is the recorded
    champion, the other sides the compiled search."""
    champion_side = deal_seed % config.num_sides
    return [RECORDED_SIDE if config.side_of(seat) == champion_side else OTHER_SIDES
            for seat in range(config.num_players)]


def record_game(encoder: PPOAgent, config: RulesConfig, deal_seed):
    """``(inputs, masks, returns)`` of every real decision of every seat in one game (see the module
    docstring); ``encoder`` makes the policy's inputs."""
    agents = [make_agent(spec) for spec in seat_specs(config, deal_seed)]
    for seat, agent in enumerate(agents):
        agent.reset(seat, config, agent_rng(deal_seed, seat))
    num_players = config.num_players
    encoder.reset(0, config, None)
    game = Game(config)
    decisions = [[] for _ in range(num_players)]  # per seat: (inputs, mask, margin)
    hand = 0
    while True:
        deal_hand(game, deal_seed, hand)
        while not game.hand_over:
            seat, legal = game.to_move, game.legal_actions()
            if legal[0] < DRAW:  # a placement to choose (draws and passes are forced)
                mask = np.zeros(NUM_ACTIONS, np.int8)
                mask[legal] = 1
                inputs = encoder.input_vector(player_view(game, seat), legal).astype(np.float32)
                decisions[seat].append((inputs, mask, _margin(game, game.seat_side[seat])))
            action, _ = choose_action(game, agents[seat])
            game.step(action)
        if game.game_over:
            break
        hand += 1
    inputs, masks, returns = [], [], []
    for seat, rows in enumerate(decisions):
        side = game.seat_side[seat]
        returns.append(discounted_returns([m for _, _, m in rows], _margin(game, side), _outcome(game, side)))
        inputs += [x for x, _, _ in rows]
        masks += [m for _, m, _ in rows]
    return np.array(inputs, np.float32), np.array(masks, np.int8), np.concatenate(returns).astype(np.float32)


def _record(job):
    policy_path, config, deal_seed = job
    return record_game(PPOAgent(policy_path), config, deal_seed)  # the file as read before the fork


def collect(policy_path, config: RulesConfig, games, seed, workers=1) -> dict:
    """Record ``games`` games on deal seeds ``seed .. seed + games - 1``: arrays ``inputs``, ``masks``,
    ``returns`` and ``game`` (each row's game index)."""
    PPOAgent(policy_path)  # read with torch here, once: forked workers reuse the read (no torch after a fork)
    jobs = [(policy_path, config, seed + g) for g in range(games)]
    if workers > 1:
        with get_context("fork").Pool(workers) as pool:
            results = pool.map(_record, jobs, chunksize=4)
    else:
        results = [_record(job) for job in jobs]
    return {"inputs": np.concatenate([r[0] for r in results]), "masks": np.concatenate([r[1] for r in results]),
            "returns": np.concatenate([r[2] for r in results]),
            "game": np.concatenate([np.full(len(r[2]), g) for g, r in enumerate(results)])}


def explained_variance(values, returns) -> float:
    return float(1.0 - np.mean((returns - values) ** 2) / np.var(returns))


def fit(net, data, epochs=4, lr=1e-4, kl_weight=1.0, batch=1024, seed=0) -> dict:
    """Fit ``net`` in place to ``data`` (from :func:`collect`); returns held-out explained variances
    before and after, and how often the policy's most likely legal action is unchanged."""
    import torch

    x, returns = torch.from_numpy(data["inputs"]), torch.from_numpy(data["returns"])
    legal = torch.from_numpy(data["masks"]).bool()
    held_out = torch.from_numpy(data["game"] % HELD_OUT_EVERY == 0)
    train_rows = torch.nonzero(~held_out).squeeze(1)
    with torch.no_grad():
        logits0, values0 = net(x, legal)
        logp0 = torch.log_softmax(masked_logits(logits0, legal), -1)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    for _ in range(epochs):
        order = train_rows[torch.randperm(len(train_rows), generator=generator)]
        for start in range(0, len(order), batch):
            rows = order[start:start + batch]
            logits, values = net(x[rows], legal[rows])
            logp = torch.log_softmax(masked_logits(logits, legal[rows]), -1)
            kl = (logp0[rows].exp() * (logp0[rows] - logp)).sum(-1).mean()
            loss = ((values - returns[rows]) ** 2).mean() + kl_weight * kl
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    net.eval()
    with torch.no_grad():
        logits, values = net(x, legal)
    same = (masked_logits(logits, legal).argmax(-1) == masked_logits(logits0, legal).argmax(-1)).float().mean()
    r = returns[held_out].numpy()
    return {"held_out_ev_before": explained_variance(values0[held_out].numpy(), r),
            "held_out_ev_after": explained_variance(values[held_out].numpy(), r),
            "same_action": float(same), "rows": len(returns), "held_out_rows": int(held_out.sum())}


def fit_value_head(net, data, penalties=RIDGE_PENALTIES) -> dict:
    """Refit ``net``'s value head alone in place, by ridge regression of ``data``'s returns on the trunk's
    features (fit on the training games, the penalty chosen on the held-out ones); the report of :func:`fit`
    plus the penalty chosen."""
    import torch

    x, legal = torch.from_numpy(data["inputs"]), torch.from_numpy(data["masks"]).bool()
    with torch.no_grad():
        logits0, values0 = net(x, legal)
        features = net.trunk(x).double().numpy()
    returns = data["returns"].astype(np.float64)
    held_out = data["game"] % HELD_OUT_EVERY == 0
    design = np.hstack([features, np.ones((len(features), 1))])
    train, held = design[~held_out], design[held_out]
    fits = []
    for penalty in penalties:
        weights = np.linalg.solve(train.T @ train + penalty * np.eye(design.shape[1]), train.T @ returns[~held_out])
        fits.append((explained_variance(held @ weights, returns[held_out]), penalty, weights))
    ev, penalty, weights = max(fits, key=lambda f: f[0])
    with torch.no_grad():
        net.value_head.weight.copy_(torch.from_numpy(weights[:-1]).float()[None, :])
        net.value_head.bias.copy_(torch.tensor([weights[-1]], dtype=torch.float32))
        logits = net(x, legal)[0]
    same = (masked_logits(logits, legal).argmax(-1) == masked_logits(logits0, legal).argmax(-1)).float().mean()
    return {"held_out_ev_before": explained_variance(values0[held_out].numpy(), returns[held_out]),
            "held_out_ev_after": ev, "same_action": float(same), "rows": len(returns),
            "held_out_rows": int(held_out.sum()), "ridge_penalty": penalty}


def positive_integer(name, most=None):
    """An argparse type: a whole number of at least 1 (and at most ``most``), else an error naming ``name``."""
    allowed = "a positive integer" if most is None else f"a positive integer up to {most:,}"

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1 or (most is not None and value > most):
            raise argparse.ArgumentTypeError(f"{name} must be {allowed}, got {text!r}")
        return value
    return parse


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m training.value_fit", description=__doc__.splitlines()[0])
    p.add_argument("source", help="the policy file whose value is refit (ppo_2p.pt, ppo_3p.pt, ppo_4p.pt)")
    p.add_argument("target", help="where to write the refit file (not the source)")
    p.add_argument("--games", type=positive_integer("--games"), default=2500, help="games recorded (default 2500)")
    p.add_argument("--seed", type=int, default=60000, help="first deal seed (default 60000)")
    p.add_argument("--epochs", type=positive_integer("--epochs"), default=4, help="passes over the data (default 4)")
    p.add_argument("--lr", type=float, default=1e-4, help="Adam's learning rate (default 1e-4)")
    p.add_argument("--kl-weight", type=float, default=1.0, help="weight of the policy's KL term (default 1)")
    # --workers also sets torch's threads: a count far beyond any machine's cores makes torch crash
    p.add_argument("--workers", type=positive_integer("--workers", MAX_WORKERS), default=2,
                   help=f"processes playing, and torch threads, 1..{MAX_WORKERS} (default 2)")
    p.add_argument("--head-only", action="store_true",
                   help="refit the value head alone by ridge regression (the policy is kept bit for bit; "
                        "--epochs, --lr and --kl-weight do not apply)")
    args = p.parse_args(argv)
    try:
        if not (0 < args.lr <= 1 and 0 <= args.kl_weight < math.inf):
            raise ValueError(f"--lr must be positive and at most 1, and --kl-weight at least 0 and finite; got "
                             f"{args.lr} and {args.kl_weight}")
        if args.seed < 0:
            raise ValueError(f"--seed must be at least 0, got {args.seed}")
        if args.games < 2:
            raise ValueError("--games must be at least 2: the first game of every ten is held out, the fit needs "
                             "the others")
        args.source = resolve_policy_path(args.source)  # a shipped file from any directory, as ppo:PATH
        check_policy_output(args.target, [args.source])
        ckpt = read_checkpoint(args.source)
    except (CheckpointError, ValueError) as exc:
        sys.stderr.write(f"training.value_fit: error: {exc}\n")
        return 2
    import torch

    torch.set_num_threads(args.workers)
    policy = ckpt["policy"]
    rules = RulesConfig.from_options(**policy["rules"])
    start = time.time()
    data = collect(args.source, rules, args.games, args.seed, args.workers)
    print(f"recorded {len(data['returns'])} decisions of {args.games} games in {time.time() - start:.0f} s")
    net = build_policy(policy, args.source)
    if args.head_only:
        report = fit_value_head(net, data)
        method = {"method": "value head alone, ridge regression on the trunk's features"}
    else:
        report = fit(net, data, args.epochs, args.lr, args.kl_weight)
        method = {"epochs": args.epochs, "lr": args.lr, "kl_weight": args.kl_weight}
    extra = {"value_fit_of": os.path.basename(args.source), "games": args.games, "seed": args.seed, **method,
             **report, "source_extra": ckpt.get("extra", {})}  # how the source was made (e.g. training.distill)
    export_policy(args.target, net, rules, extra=extra, features=policy_features(policy, args.source))
    print(f"held-out explained variance {report['held_out_ev_before']:.3f} -> {report['held_out_ev_after']:.3f}; "
          f"most likely action unchanged on {report['same_action']:.1%} of positions; wrote {args.target} "
          f"({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
