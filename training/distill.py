"""Distil the champion into a policy that needs no search at play time.

    python -m training.distill label labels.npz --player checkpoints/ppo_3p.pt --games 12000 --seed 600000
    python -m training.distill fit policy.pt labels.npz [more.npz ...]
    python -m training.value_fit policy.pt final.pt --head-only --games 2500 --seed 615000

``label``: a policy file (``--player``) holds one side; the other sides are
drawn from ``--lineup`` by deal seed (the word ``player`` is the policy file
itself). At each of the player's placement decisions with a choice, the teacher
(``--teacher``, default ``champion``; one per player seat, seeded by deal seed
and seat) values every legal placement. Saved per decision: the player's
inputs, the legal mask, the teacher's values (NaN off the legal placements)
and the deal seed. The labels are the teacher's values *where the player goes*
(DAgger); run ``label`` again with the fitted policy as ``--player`` for more.

``fit``: a network with the player's inputs (``--hidden-sizes``,
``--action-width``; from scratch) learns ``softmax(values / temperature)`` by
cross-entropy, under a cosine learning rate. The games of every tenth deal seed
are held out; the epoch whose held-out regret (the teacher's value of its best
placement minus that of the network's most likely one) is least is kept.

The value head is then fit to the champion's return by ``training.value_fit
--head-only``. How the shipped 3-player policy was made with these commands:
docs/training.md.
"""

import argparse
import copy
import json
import math
import sys
import time
from multiprocessing import get_context

import numpy as np

from allfives_env.agents.ppo.agent import CheckpointError, PPOAgent, read_checkpoint
from allfives_env.agents.registry import make_agent, resolve_policy_path
from allfives_env.arena import check_agents
from allfives_env.arena.deals import deal_hand
from allfives_env.arena.game import agent_rng, choose_action
from allfives_env.arena.schedule import MAX_WORKERS
from allfives_env.cli import OneLineParser
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view

from .checkpoint import atomic_write, check_policy_output, export_policy
from .config import MAX_THREADS, MAX_WIDTH
from .value_fit import HELD_OUT_EVERY, positive_integer  # here: the games of every tenth deal seed

PLAYER = "player"  # in a lineup: the policy being labelled
SEARCH = "search:engine=compiled"
#: The other sides, by ``deal_seed % len(lineups)``: side ``k`` after the player's gets entry ``k - 1``
#: (with 2 or 4 players, one other side: each lineup's first entry, see :func:`default_lineups`).
DEFAULT_LINEUPS = ((PLAYER, PLAYER), (SEARCH, SEARCH), (SEARCH, SEARCH), ("heuristic", "heuristic"),
                   (SEARCH, "heuristic"), ("greedy", SEARCH))
DEFAULT_TEACHER = "champion"
TEACHER_SEED_TAG = 99  # the teacher at a seat draws from default_rng([deal_seed, seat, 99])
LABEL_ARRAYS = ("inputs", "masks", "values", "deal_seed")


def default_lineups(num_sides) -> tuple:
    """:data:`DEFAULT_LINEUPS` for ``num_sides`` sides: one agent per other side."""
    return tuple(lineup[:num_sides - 1] for lineup in DEFAULT_LINEUPS)


def check_lineups(lineups, num_sides) -> None:
    """A ``ValueError`` unless every lineup names one agent per other side, or one for all of them."""
    for lineup in lineups:
        if len(lineup) not in (1, num_sides - 1):
            raise ValueError(f"--lineup {','.join(lineup)!r} names {len(lineup)} agents; with {num_sides} sides "
                             f"give {num_sides - 1} (one per other side, in seat order) or 1 (for every other side)")


def seat_specs(config: RulesConfig, deal_seed, lineups=None) -> list:
    """Each seat's agent spec in the game on ``deal_seed``: the player holds side
    ``(deal_seed // len(lineups)) % sides``, the other sides ``lineups[deal_seed % len(lineups)]``
    (one agent per other side, or one for all; default :func:`default_lineups`)."""
    sides = config.num_sides
    lineups = lineups or default_lineups(sides)
    check_lineups(lineups, sides)
    others = lineups[deal_seed % len(lineups)]
    player_side = (deal_seed // len(lineups)) % sides
    side_specs = {(player_side + k) % sides: others[min(k - 1, len(others) - 1)] for k in range(1, sides)}
    side_specs[player_side] = PLAYER
    return [side_specs[config.side_of(seat)] for seat in range(config.num_players)]


def label_game(player_path, config: RulesConfig, deal_seed, teacher=DEFAULT_TEACHER, lineups=None):
    """``(inputs, masks, values)`` at the player's placement decisions with a choice in one game.
    ``teacher``: an agent spec, built once per player seat (an agent object is reset for each player seat
    in turn and shared by them)."""
    specs = seat_specs(config, deal_seed, lineups)
    agents, teachers = [], []
    for seat, spec in enumerate(specs):
        agent = PPOAgent(player_path) if spec == PLAYER else make_agent(spec)
        agent.reset(seat, config, agent_rng(deal_seed, seat))
        agents.append(agent)
        teachers.append(_teacher(teacher, seat, config, deal_seed) if spec == PLAYER else None)
    game = Game(config)
    inputs, masks, values = [], [], []
    hand = 0
    while True:
        deal_hand(game, deal_seed, hand)
        while not game.hand_over:
            seat, legal = game.to_move, game.legal_actions()
            if teachers[seat] is not None and len(legal) > 1 and legal[0] < DRAW:  # a placement to choose
                _append_label(inputs, masks, values, agents[seat], teachers[seat], player_view(game, seat))
            # the arena's step: a forced one asks no agent (nor draws from its generator); the choice is checked
            game.step(choose_action(game, agents[seat])[0])
        if game.game_over:
            break
        hand += 1
    width = agents[specs.index(PLAYER)].obs_dim
    return (np.array(inputs, np.float32).reshape(-1, width), np.array(masks, np.int8).reshape(-1, NUM_ACTIONS),
            np.array(values, np.float32).reshape(-1, NUM_ACTIONS))


def _teacher(spec, seat, config, deal_seed):
    teacher = make_agent(spec)
    teacher.reset(seat, config, np.random.default_rng([deal_seed, seat, TEACHER_SEED_TAG]))
    return teacher


def _append_label(inputs, masks, values, player, teacher, view):
    legal = list(view.legal_actions)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[legal] = 1
    value = np.full(NUM_ACTIONS, np.nan, np.float32)
    value[legal] = teacher.action_values(view, legal)
    inputs.append(player.input_vector(view, np.asarray(legal)).astype(np.float32))
    masks.append(mask)
    values.append(value)


def _label_job(job):
    return label_game(*job)


def collect_labels(player_path, config: RulesConfig, games, seed, teacher=DEFAULT_TEACHER, lineups=None,
                   workers=1, progress=None) -> dict:
    """Label ``games`` games on deal seeds ``seed .. seed + games - 1``: the arrays of
    :data:`LABEL_ARRAYS` (``deal_seed``: each row's game)."""
    PPOAgent(player_path)  # read with torch here, once: forked workers reuse the read (no torch after a fork)
    make_agent(teacher)  # the teacher's value file too
    jobs = [(player_path, config, seed + g, teacher, lineups) for g in range(games)]
    if workers > 1:
        with get_context("fork").Pool(workers) as pool:
            results = _gather(pool.imap(_label_job, jobs, chunksize=8), progress)
    else:
        results = _gather(map(_label_job, jobs), progress)
    return {"inputs": np.concatenate([r[0] for r in results]), "masks": np.concatenate([r[1] for r in results]),
            "values": np.concatenate([r[2] for r in results]),
            "deal_seed": np.concatenate([np.full(len(r[0]), seed + g, np.int64) for g, r in enumerate(results)])}


def _gather(results, progress):
    done = []
    for result in results:
        done.append(result)
        if progress is not None:
            progress(len(done))
    return done


def save_labels(path, labels: dict, meta: dict) -> None:
    """The label arrays and ``meta`` (the player's network, features and rules, how they were made) in one
    compressed ``.npz``, written atomically."""
    arrays = {name: labels[name] for name in LABEL_ARRAYS}
    atomic_write(path, lambda f: np.savez_compressed(f, meta=np.array(json.dumps(meta)), **arrays), suffix=".npz")


def load_labels(paths) -> tuple:
    """``(labels, meta)`` of label files, concatenated in order; every file must come from a player with the
    same inputs (network input width, features, rules), else a ``ValueError`` naming the file."""
    parts, meta = [], None
    for path in paths:
        part, part_meta = _load_label_file(path)
        if meta is not None:
            differ = [k for k in ("features", "rules", "obs_dim") if part_meta[k] != meta[k]]
            if differ:
                raise ValueError(f"{path}: its player's {', '.join(differ)} differ from {paths[0]}'s; "
                                 "the label files fit together must come from players with the same inputs")
        meta = meta or part_meta
        parts.append(part)
    labels = {name: np.concatenate([p[name] for p in parts]) for name in LABEL_ARRAYS}
    return labels, meta


def _load_label_file(path):
    try:
        with np.load(path, allow_pickle=False) as data:
            part = {name: data[name] for name in LABEL_ARRAYS}
            meta = json.loads(str(data["meta"]))
    except FileNotFoundError:
        raise ValueError(f"label file not found: {path}") from None
    except (OSError, KeyError, ValueError, json.JSONDecodeError):
        raise ValueError(f"{path} is not a label file (the .npz that `training.distill label` writes)") from None
    _check_label_file(path, part, meta)
    return part, meta


def _check_label_file(path, part, meta):
    """A ``ValueError`` naming ``path`` unless its meta and arrays fit together."""
    keys = ("obs_dim", "net", "features", "rules", "teacher")
    if not isinstance(meta, dict) or not all(k in meta for k in keys) or not isinstance(meta["net"], dict):
        raise ValueError(f"{path} is damaged: its meta lacks some of {list(keys)}")
    try:
        RulesConfig.from_options(**meta["rules"])
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path} is damaged: its rules are not valid ({exc})") from None
    rows = len(part["inputs"])
    shapes = {"inputs": (rows, meta["obs_dim"]), "masks": (rows, NUM_ACTIONS), "values": (rows, NUM_ACTIONS),
              "deal_seed": (rows,)}
    wrong = [f"{k} {part[k].shape}" for k, shape in shapes.items() if part[k].shape != shape]
    if wrong:
        raise ValueError(f"{path} is damaged: {', '.join(wrong)} do not fit {rows} labels of "
                         f"{meta['obs_dim']} inputs and {NUM_ACTIONS} actions")


def soft_targets(values, masks, temperature):
    """``softmax(values / temperature)`` over the legal placements (one-hot on the best at temperature 0)."""
    import torch

    if temperature > 0:
        return torch.softmax(values / temperature, -1) * masks
    return torch.nn.functional.one_hot(values.argmax(-1), values.shape[1]).float()


def held_out_report(net, x, masks, values, held_out, batch=8192) -> dict:
    """How often the network's most likely placement is the teacher's best, and its regret (points below
    the best), on the held-out and the training rows."""
    import torch

    from allfives_env.agents.ppo.network import masked_logits

    net.eval()
    with torch.no_grad():
        logits = torch.cat([masked_logits(net(x[i:i + batch], masks[i:i + batch])[0], masks[i:i + batch])
                            for i in range(0, len(x), batch)])
    pick, best = logits.argmax(-1), values.argmax(-1)
    agree = (pick == best).float()
    regret = (values.gather(1, best[:, None]) - values.gather(1, pick[:, None]))[:, 0]
    return {"held_out_agreement": float(agree[held_out].mean()), "held_out_regret": float(regret[held_out].mean()),
            "train_agreement": float(agree[~held_out].mean()), "train_regret": float(regret[~held_out].mean())}


def fit_student(labels: dict, net_spec: dict, temperature=5.0, epochs=8, lr=1e-3, batch=512, seed=0, log=print):
    """A new network (``PolicyNet(**net_spec)``, initialised from ``seed``) fit to ``labels``; returns
    ``(net, report)`` with the kept epoch's numbers and every epoch's held-out regret. torch's global
    generator is left as it was."""
    import torch

    from allfives_env.agents.ppo.network import PolicyNet

    x = torch.from_numpy(labels["inputs"])
    masks = torch.from_numpy(labels["masks"]).bool()
    values = torch.from_numpy(np.where(np.isnan(labels["values"]), -1e9, labels["values"])).float()
    held_out = torch.from_numpy(labels["deal_seed"] % HELD_OUT_EVERY == 0)
    if not 0 < int(held_out.sum()) < len(x):
        raise ValueError(f"the labels need games both held out (deal seeds divisible by {HELD_OUT_EVERY}) and not; "
                         f"these have {int(held_out.sum())} of {len(x)} rows held out: label more games")
    target = soft_targets(values, masks, temperature)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        net = PolicyNet(**net_spec)
        start = held_out_report(net, x, masks, values, held_out)
        log(f"{len(x)} labels ({int(held_out.sum())} held out); {_describe(start)} before fitting")
        train_rows = torch.nonzero(~held_out).squeeze(1)
        optimizer = torch.optim.Adam(net.parameters(), lr=lr)
        schedule = _cosine(lr, epochs * -(-len(train_rows) // batch))
        best, regrets = None, []
        for epoch in range(1, epochs + 1):
            began = time.time()
            order = train_rows[torch.randperm(len(train_rows))]
            _train_epoch(net, optimizer, schedule, (x, masks, target), order, batch)
            report = held_out_report(net, x, masks, values, held_out)
            log(f"epoch {epoch}: {_describe(report)} ({time.time() - began:.0f} s)")
            regrets.append(report["held_out_regret"])
            if best is None or report["held_out_regret"] < best[0]["held_out_regret"]:
                best = ({**report, "epoch": epoch}, copy.deepcopy(net.state_dict()))
    net.load_state_dict(best[1])
    net.eval()
    return net, {**best[0], "held_out_regret_by_epoch": regrets, "held_out_regret_before": start["held_out_regret"],
                 "labels": len(x), "held_out_labels": int(held_out.sum())}


def _cosine(lr, total_steps):
    """The learning rate of each step in turn: ``lr`` at the first, falling on a half cosine toward 0."""
    steps = iter(range(total_steps))
    return lambda: lr * 0.5 * (1 + np.cos(np.pi * next(steps) / total_steps))


def _train_epoch(net, optimizer, schedule, data, order, batch):
    """One pass of cross-entropy steps over the rows in ``order``."""
    import torch

    from allfives_env.agents.ppo.network import masked_logits

    x, masks, target = data
    net.train()
    for first in range(0, len(order), batch):
        rows = order[first:first + batch]
        logp = torch.log_softmax(masked_logits(net(x[rows], masks[rows])[0], masks[rows]), -1)
        loss = -(target[rows] * torch.where(masks[rows], logp, torch.zeros_like(logp))).sum(-1).mean()
        if not torch.isfinite(loss):
            raise ValueError("the fit diverged (its loss is not finite); give a smaller --lr")
        optimizer.zero_grad()
        loss.backward()
        rate = schedule()
        for group in optimizer.param_groups:
            group["lr"] = rate
        optimizer.step()


def _describe(report):
    return (f"held out: agreement {report['held_out_agreement']:.1%}, regret {report['held_out_regret']:.2f} points "
            f"(training rows {report['train_agreement']:.1%}, {report['train_regret']:.2f})")


def student_spec(meta: dict, hidden_sizes, action_width, action_depth=1) -> dict:
    """The network spec of a student of the player in ``meta``: the player's inputs, the student's widths."""
    from allfives_env.agents.ppo.features import action_blocks

    spec = {"obs_dim": meta["obs_dim"], "hidden_sizes": list(hidden_sizes), "activation": meta["net"]["activation"],
            "skip": meta["net"].get("skip", True)}
    if action_depth != 1 and not action_width:
        raise ValueError(f"--action-depth {action_depth} needs an action scorer (--action-width above 0)")
    if action_width:
        spec.update(action_width=int(action_width),
                    action_inputs=action_blocks(meta["features"], meta["rules"]["num_players"]))
        if action_depth != 1:
            spec.update(action_depth=int(action_depth))
    return spec


def _widths(text):
    try:
        widths = [int(w) for w in text.split(",")]
    except ValueError:
        widths = []
    if not widths or min(widths) < 1 or max(widths) > MAX_WIDTH:  # as the trainer's hidden_sizes
        raise argparse.ArgumentTypeError(f"--hidden-sizes must be positive integers up to {MAX_WIDTH:,} separated "
                                         f"by commas (e.g. 256,256), got {text!r}")
    return widths


def _lineup(text):
    specs = tuple(s.strip() for s in text.split(",") if s.strip())
    if not specs:
        raise argparse.ArgumentTypeError(f"--lineup must list agent specs separated by commas, got {text!r}")
    return specs


def build_parser():
    p = OneLineParser(prog="python -m training.distill", description=__doc__.splitlines()[0],
                      formatter_class=argparse.RawDescriptionHelpFormatter, epilog="\n".join(__doc__.splitlines()[2:6]))
    commands = p.add_subparsers(dest="command", required=True, metavar="{label,fit}", parser_class=OneLineParser)
    label = commands.add_parser("label", help="the teacher's values at a policy's decisions")
    label.add_argument("output", help="the label file to write (.npz)")
    label.add_argument("--player", required=True, help="the policy file whose decisions are labelled")
    label.add_argument("--games", type=positive_integer("--games"), default=1000, help="games played (default 1000)")
    label.add_argument("--seed", type=int, default=600000, help="first deal seed (default 600000)")
    label.add_argument("--teacher", default=DEFAULT_TEACHER,
                       help="agent spec valuing each placement (default champion; it needs action_values)")
    label.add_argument("--lineup", type=_lineup, action="append", metavar="SPEC[,SPEC]",
                       help="the other sides' agents (one per other side in seat order, or one for all), one lineup "
                            "per use, drawn by deal seed; 'player' is the player itself (default: "
                            + "; ".join(",".join(x) for x in DEFAULT_LINEUPS) + "; with 2 or 4 players the first "
                            "of each)")
    label.add_argument("--workers", type=positive_integer("--workers", MAX_WORKERS), default=2,
                       help=f"processes playing, 1..{MAX_WORKERS} (default 2)")
    fit = commands.add_parser("fit", help="a new policy fit to label files")
    fit.add_argument("output", help="the policy file to write")
    fit.add_argument("labels", nargs="+", help="label files of `label` (their players must share inputs)")
    fit.add_argument("--temperature", type=float, default=5.0,
                     help="points: the target is softmax(values / temperature); 0 is the best alone (default 5)")
    fit.add_argument("--epochs", type=positive_integer("--epochs"), default=8,
                     help="passes over the labels (default 8)")
    fit.add_argument("--lr", type=float, default=1e-3, help="Adam's first learning rate, cosine to 0 (default 1e-3)")
    fit.add_argument("--batch", type=positive_integer("--batch"), default=512, help="labels per step (default 512)")
    fit.add_argument("--hidden-sizes", type=_widths, default=[256, 256], help="the trunk (default 256,256)")
    fit.add_argument("--action-width", type=int, default=128, help="the action scorer's width, 0 for none "
                                                                     "(default 128)")
    fit.add_argument("--action-depth", type=int, choices=(1, 2), default=1,
                     help="hidden layers of the action scorer (default 1)")
    fit.add_argument("--seed", type=int, default=0, help="the network's initial weights and order (default 0)")
    # a thread count far beyond any machine's cores makes torch crash (a segmentation fault)
    fit.add_argument("--threads", type=positive_integer("--threads", MAX_THREADS), default=2,
                     help=f"torch threads, 1..{MAX_THREADS} (default 2)")
    return p


def run_label(args) -> int:
    if args.seed < 0:
        raise ValueError(f"--seed must be at least 0, got {args.seed}")
    check_policy_output(args.output, [args.player])
    player = PPOAgent(args.player)
    rules = player.rules
    lineups = tuple(args.lineup or default_lineups(rules.num_sides))
    check_lineups(lineups, rules.num_sides)
    _check_agents({s for lineup in lineups for s in lineup if s != PLAYER}, args.teacher, rules)
    if all(seed % HELD_OUT_EVERY for seed in range(args.seed, args.seed + min(args.games, HELD_OUT_EVERY))):
        print(f"note: none of these deal seeds is divisible by {HELD_OUT_EVERY}, so `fit` holds none of these "
              "games out", file=sys.stderr)
    start = time.time()

    def progress(done):
        if done % max(1, args.games // 10) == 0 or done == args.games:
            print(f"{done}/{args.games} games ({time.time() - start:.0f} s)", flush=True)

    labels = collect_labels(args.player, rules, args.games, args.seed, args.teacher, lineups, args.workers, progress)
    policy = read_checkpoint(resolve_policy_path(args.player))["policy"]
    meta = {"player": args.player, "obs_dim": player.obs_dim, "net": policy["net"], "features": player.features,
            "rules": rules.to_dict(), "teacher": args.teacher, "lineups": [list(x) for x in lineups],
            "games": args.games, "seed": args.seed}
    save_labels(args.output, labels, meta)
    print(f"wrote {len(labels['inputs'])} labels of {args.games} games to {args.output} ({time.time() - start:.0f} s)")
    return 0


def _check_agents(specs, teacher, rules):
    """Build and seat every agent once, so that a bad spec, or a file for another number of players, fails
    in one line before any game."""
    check_agents(rules, sorted(specs))
    valuer = make_agent(teacher)
    valuer.reset(0, rules, np.random.default_rng(0))
    if not hasattr(valuer, "action_values"):
        raise ValueError(f"--teacher {teacher!r} cannot value placements (no action_values); "
                         "allowed: champion or search specs")


def run_fit(args) -> int:
    if not (args.temperature == 0 or 0.01 <= args.temperature <= 1000):
        raise ValueError(f"--temperature must be 0 (the best placement alone) or 0.01 to 1000 points, "
                         f"got {args.temperature}")
    if not (math.isfinite(args.lr) and 0 < args.lr <= 1) or not 0 <= args.action_width <= MAX_WIDTH:
        raise ValueError(f"--lr must be above 0 and at most 1, and --action-width from 0 to {MAX_WIDTH:,}; got "
                         f"{args.lr} and {args.action_width}")
    check_policy_output(args.output, args.labels)
    labels, meta = load_labels(args.labels)
    spec = student_spec(meta, args.hidden_sizes, args.action_width, args.action_depth)
    rules = RulesConfig.from_options(**meta["rules"])
    import torch

    torch.set_num_threads(args.threads)
    start = time.time()
    net, report = fit_student(labels, spec, args.temperature, args.epochs, args.lr, args.batch, args.seed)
    extra = {"distilled_from": meta["teacher"], "label_files": [str(p) for p in args.labels],
             "temperature": args.temperature, "epochs": args.epochs, "lr": args.lr, "batch": args.batch,
             "seed": args.seed, **report}
    export_policy(args.output, net, rules, extra=extra, features=meta["features"])
    print(f"kept epoch {report['epoch']}: {_describe(report)}; wrote {args.output} ({time.time() - start:.0f} s)")
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run_label(args) if args.command == "label" else run_fit(args)
    except (CheckpointError, ValueError) as exc:
        sys.stderr.write(f"training.distill {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
