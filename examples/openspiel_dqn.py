"""Train OpenSpiel's DQN (PyTorch) on the ``python_allfives`` game against greedy, then score it in the arena.

    .venv/bin/python examples/openspiel_dqn.py --minutes 10 --eval-games 2000 --json dqn.json

The learner is one ``open_spiel.python.pytorch.dqn.DQN`` playing a different
seat each hand (episodes are single hands, ``reward="zero_sum"`` scaled by
``--reward-scale``) against the project's greedy agent in the other seat, on
``rl_environment.Environment``. OpenSpiel's turn-based loop hands an agent only
the reward of the step it sees, so the loop here adds up what the learner's side
gained over the opponent's moves and gives it the sum at its next decision (as
the AEC env's ``last()`` does).

Every ``--eval-every`` minutes, and at the end, the greedy-over-Q policy plays
whole games against greedy in the arena (duplicate deals, seats rotated): 200
games on the training evaluations' deals (seed 12345) for the learning curve,
then ``--eval-games`` on deals never used (seed ``--eval-seed``). Needs the
``openspiel`` and ``train`` extras.
"""

import argparse
import json
import time

import numpy as np

from allfives_env.arena import run_match
from allfives_env.arena.schedule import MAX_GAMES
from allfives_env.integrations import PolicyAgent
from allfives_env.integrations.run_args import ScriptHelp, check_run_args
from allfives_env.rules import RulesConfig

#: The fewest decisions between DQN updates that OpenSpiel's DQN runs with (with 2 it fails at its first update).
MIN_LEARN_EVERY = 3
#: The transitions OpenSpiel's DQN holds before it learns (``min_buffer_size_to_learn``; at least a batch).
MIN_BUFFER_TO_LEARN = 1000


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    p.add_argument("--minutes", type=float, default=10.0, help="training budget (wall clock)")
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--buffer", type=int, default=200_000, help="replay buffer capacity")
    p.add_argument("--learn-every", type=int, default=8,
                   help=f"decisions between updates (at least {MIN_LEARN_EVERY}: OpenSpiel's DQN fails below)")
    p.add_argument("--epsilon-decay", type=int, default=300_000, help="decisions over which epsilon falls to 0.05")
    p.add_argument("--reward-scale", type=float, default=0.02)
    p.add_argument("--eval-every", type=float, default=1.0,
                   help="minutes between learning-curve points (200 games against greedy, seed 12345; 0: none)")
    p.add_argument("--eval-games", type=int, default=2000)
    p.add_argument("--eval-seed", type=int, default=2026)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", default=None, help="write the curve and the final evaluation here")
    args = p.parse_args(argv)
    try:
        check_run_args(args, positive=["minutes", "batch_size", "buffer", "learn_every", "epsilon_decay", "eval_games",
                                       "learning_rate", "hidden", "reward_scale"],
                       at_least_zero=["eval_every"], seeds=["seed", "eval_seed"], outputs=["json"],
                       at_most={"eval_games": MAX_GAMES})
        if args.buffer < max(MIN_BUFFER_TO_LEARN, args.batch_size):  # else the DQN never takes a step
            raise ValueError(f"--buffer {args.buffer} is not allowed; allowed: at least {MIN_BUFFER_TO_LEARN:,} and "
                             f"at least --batch-size ({args.batch_size}): the DQN learns once it holds that many")
        if args.learn_every < MIN_LEARN_EVERY:
            raise ValueError(f"--learn-every must be at least {MIN_LEARN_EVERY} (OpenSpiel's DQN fails below), "
                             f"got {args.learn_every}")
    except ValueError as exc:
        p.error(str(exc))
    return args


def make_learner(args, size):
    import torch
    from open_spiel.python.pytorch import dqn

    torch.manual_seed(args.seed)
    return dqn.DQN(0, size, 114, hidden_layers_sizes=list(args.hidden), batch_size=args.batch_size,
                   replay_buffer_capacity=args.buffer, learning_rate=args.learning_rate, learn_every=args.learn_every,
                   min_buffer_size_to_learn=max(MIN_BUFFER_TO_LEARN, args.batch_size), epsilon_end=0.05,
                   epsilon_decay_duration=args.epsilon_decay, optimizer_str="adam", loss_str="huber",
                   update_target_network_every=2000, seed=args.seed)


def greedy_move(state, seat):
    from allfives_env.agents.greedy import greedy_action
    from allfives_env.rules.view import player_view

    view = player_view(state.engine, seat)
    return greedy_action(view, view.legal_actions)


def policy_agent(learner):
    """The greedy-over-Q policy as an arena agent (the Q-network reads the default observation)."""
    import torch

    def predict(obs, mask):
        with torch.no_grad():
            q = learner._q_network(torch.from_numpy(obs[None, :])).numpy()[0]
        return int(np.flatnonzero(mask)[np.argmax(q[mask])])

    return PolicyAgent(predict, obs="flat", name="openspiel_dqn")


def play_hand(env, learner, seat):
    """One training hand with the learner at ``seat``; its rewards summed over the opponent's moves."""
    time_step = env.reset()
    pending = 0.0
    while not time_step.last():
        player = time_step.observations["current_player"]
        if player == seat:
            learner.player_id = seat
            rewards = list(time_step.rewards or [0.0, 0.0])
            rewards[seat] = pending + (rewards[seat] if time_step.rewards else 0.0)
            action = learner.step(time_step._replace(rewards=rewards)).action
            pending = 0.0
        else:
            action = greedy_move(env.get_state, player)
        time_step = env.step([action])
        if time_step.observations["current_player"] != seat and not time_step.last():
            pending += time_step.rewards[seat]
    rewards = list(time_step.rewards)
    rewards[seat] += pending
    learner.step(time_step._replace(rewards=rewards))


def evaluate(learner, games, seed):
    me = run_match(RulesConfig(num_players=2), [policy_agent(learner), "greedy"], games, seed=seed).to_dict()
    return me["agents"][0]


def main(argv=None):
    import pyspiel
    from open_spiel.python import rl_environment

    import allfives_env.integrations.openspiel  # noqa: F401  (registers python_allfives)

    args = parse_args(argv)
    game = pyspiel.load_game("python_allfives", {"players": 2, "episode": "hand", "reward": "zero_sum",
                                                 "reward_scale": args.reward_scale})
    env = rl_environment.Environment(game, seed=args.seed)
    learner = make_learner(args, env.observation_spec()["info_state"][0])
    curve, hands, start = [], 0, time.perf_counter()
    next_eval = 0.0
    while True:
        elapsed = time.perf_counter() - start
        time_is_up = elapsed >= 60 * args.minutes
        if args.eval_every and (elapsed >= next_eval or time_is_up):  # a curve point, the last one at the end
            result = evaluate(learner, 200, seed=12345)
            curve.append({"seconds": elapsed, "decisions": learner.step_counter, "hands": hands,
                          "win_rate": result["win_rate"], "ci95": result["win_rate_ci95"]})
            print(f"{elapsed:7.0f} s  {learner.step_counter:>9,} decisions  vs greedy {result['win_rate']:.3f}",
                  flush=True)
            next_eval += 60 * args.eval_every
            start += time.perf_counter() - start - elapsed  # evaluation time is not training time
        if time_is_up:
            break
        play_hand(env, learner, seat=hands % 2)
        hands += 1
    final = evaluate(learner, args.eval_games, seed=args.eval_seed)
    lo, hi = final["win_rate_ci95"]
    print(f"DQN after {args.minutes:g} min ({learner.step_counter:,} decisions, {hands:,} hands): "
          f"{final['win_rate']:.3f} [{lo:.3f}, {hi:.3f}] against greedy in {final['games']} games")
    summary = {"args": vars(args), "decisions": learner.step_counter, "hands": hands, "curve": curve, "final": final}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
