"""Train sb3-contrib's MaskablePPO against fixed opponents, then score it in the arena.

    .venv/bin/python examples/sb3_maskable_ppo.py --minutes 15 --opponent greedy --eval-games 1000

By default the learner trains on the batched vector env
(:class:`allfives_env.integrations.sb3_vec.AllFivesVecEnv`: ``--num-envs`` games
stepped together, the opponents played in compiled kernels); ``--env single``
trains on the one-game Gymnasium wrapper instead (any arena spec as opponent,
much slower). The learner plays a random seat of each game against
``--opponent``; its reward is the ``zero_sum`` points of its side (its gain minus
the opponents') times ``--reward-scale``, plus ``--win-bonus`` (+/-) at the end of
each game. Training stops after ``--timesteps`` learner decisions or
``--minutes``, whichever comes first.

Evaluation is a duplicate-deal arena match (``allfives_env.arena.run_match``,
seats rotated, deals never used in training: seed ``--eval-seed``) of the
deterministic masked policy against each ``--eval-against`` spec, with 95%
Wilson intervals; ``--json`` writes the numbers.

Needs the ``sb3`` extra (``pip install -e ".[sb3]"``; ``scripts/setup.sh``
installs it).
"""

import argparse
import json
import os
import time

import numpy as np

from allfives_env.arena import format_table, run_match
from allfives_env.arena.schedule import MAX_GAMES
from allfives_env.integrations import PolicyAgent, SingleAgentAllFives
from allfives_env.integrations.run_args import ScriptHelp, check_run_args
from allfives_env.rules import RulesConfig
from allfives_env.vector.batched import MAX_NUM_ENVS


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="4: the learner plays one seat")
    p.add_argument("--opponent", default="greedy",
                   help="every other seat: random, greedy, heuristic or ppo:PATH (--env single: any arena spec)")
    p.add_argument("--env", choices=["vector", "single"], default="vector", help="the batched VecEnv or one game")
    p.add_argument("--num-envs", type=int, default=256, help="games stepped together (--env vector)")
    p.add_argument("--timesteps", type=int, default=20_000_000,
                   help="learner decisions to train for (SB3 rounds up to whole rollouts of --n-steps per game)")
    p.add_argument("--minutes", type=float, default=15.0, help="wall-clock training budget (0: none)")
    p.add_argument("--n-steps", type=int, default=64, help="rollout length per env per PPO update")
    p.add_argument("--batch-size", type=int, default=2048)
    p.add_argument("--n-epochs", type=int, default=3, help="passes over each rollout")
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.8)
    p.add_argument("--ent-coef", type=float, default=0.005)
    p.add_argument("--net", type=int, nargs="+", default=[128, 128], help="hidden layer sizes (policy and value)")
    p.add_argument("--reward-scale", type=float, default=0.02, help="multiplies the zero-sum points")
    p.add_argument("--win-bonus", type=float, default=1.0, help="+bonus for a won game, -bonus for a lost one")
    p.add_argument("--curve-every", type=float, default=0.0,
                   help="minutes between learning-curve points (200 games against greedy, seed 12345; 0: none)")
    p.add_argument("--eval-against", nargs="+", default=["greedy", "random"], help="arena specs to play after training")
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--eval-seed", type=int, default=2026)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", default=None, help="write the trained model here (MaskablePPO.save: PATH.zip)")
    p.add_argument("--json", default=None, help="write the numbers of this run here")
    args = p.parse_args(argv)
    if args.save and not os.path.splitext(args.save)[1]:  # the file MaskablePPO.save writes: checked as such
        args.save += ".zip"
    try:
        check_run_args(args, positive=["num_envs", "timesteps", "n_steps", "batch_size", "n_epochs", "eval_games",
                                       "learning_rate", "net", "reward_scale"],
                       at_least_zero=["minutes", "curve_every", "ent_coef", "win_bonus"], seeds=["seed", "eval_seed"],
                       specs=["opponent", "eval_against"], outputs=["json", "save"], players=args.players,
                       at_most={"eval_games": MAX_GAMES, "num_envs": MAX_NUM_ENVS})
        check_rollout_size(args)
        check_discounts(args)
        check_opponent(args)
    except ValueError as exc:
        p.error(str(exc))
    return args


#: The most transitions a rollout may hold: SB3 keeps about 2 kB of each in memory (observation and mask).
MAX_ROLLOUT = 2_000_000


def check_rollout_size(args):
    """A ``ValueError`` unless a rollout of ``--n-steps`` per game fits in memory (:data:`MAX_ROLLOUT`)."""
    envs = args.num_envs if args.env == "vector" else 1
    if args.n_steps * envs > MAX_ROLLOUT:
        raise ValueError(f"--n-steps {args.n_steps} x {envs} games = {args.n_steps * envs:,} transitions a rollout; "
                         f"allowed: at most {MAX_ROLLOUT:,} (about 2 kB each in memory)")


def check_discounts(args):
    """``--gamma`` in (0, 1] and ``--gae-lambda`` in [0, 1]: outside them SB3 trains on without a word."""
    if not 0.0 < args.gamma <= 1.0:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    if not 0.0 <= args.gae_lambda <= 1.0:
        raise ValueError(f"--gae-lambda must be in [0, 1], got {args.gae_lambda}")


def check_opponent(args):
    """Build the env once, one game wide, so that an opponent it cannot play (no batched twin, a policy file
    for another number of players) fails in one line before training."""
    if args.env == "vector":
        from allfives_env.integrations.sb3_vec import AllFivesVecEnv

        AllFivesVecEnv(1, num_players=args.players, opponents=args.opponent).close()
    else:
        env = SingleAgentAllFives(num_players=args.players, opponents=args.opponent)
        env.reset(seed=0)  # the opponents are seated, and checked, at a reset
        env.close()


def make_env(args):
    """The training VecEnv: zero-sum points times the scale, plus the win bonus, with episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, VecEnvWrapper, VecMonitor

    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    if args.env == "vector":
        env = AllFivesVecEnv(args.num_envs, num_players=args.players, opponents=args.opponent,
                             reward="zero_sum", reward_scale=args.reward_scale, auto_forced=True)
    else:
        env = DummyVecEnv([lambda: SingleAgentAllFives(num_players=args.players, opponents=args.opponent,
                                                       obs="flat", reward="zero_sum", auto_forced=True)])

    config = RulesConfig(num_players=args.players)

    class WinBonus(VecEnvWrapper):
        """Scales the single env's points (the vector env scales its own) and adds the game's outcome."""

        def reset(self):
            return self.venv.reset()

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            if args.env == "single":
                rewards = rewards * args.reward_scale
            for b in np.flatnonzero(dones):
                final = infos[b].get("outcome")
                if final is None:  # the single wrapper: the outcome from its final scores
                    scores, side = infos[b]["scores"], config.side_of(infos[b]["learner_seats"][0])
                    final = np.sign(scores[side] - max(s for i, s in enumerate(scores) if i != side))
                rewards[b] += args.win_bonus * final
            return obs, rewards, dones, infos

    return VecMonitor(WinBonus(env))


class Budget:
    """A callback that stops training after ``minutes`` of wall time and, every ``curve_every`` minutes
    and at the end, plays the policy against greedy (200 games on the training evaluations' deals) for a
    learning curve."""

    def __new__(cls, minutes, curve_every=0.0, players=2):
        from stable_baselines3.common.callbacks import BaseCallback

        class _Budget(BaseCallback):
            def _on_training_start(self):
                self.t0, self.spent, self.curve, self.next_point = time.perf_counter(), 0.0, [], 0.0

            def _on_step(self):
                elapsed = time.perf_counter() - self.t0 - self.spent
                if curve_every and elapsed >= self.next_point:
                    self._add_point(elapsed)
                    self.next_point += 60 * curve_every
                return not minutes or elapsed < 60 * minutes

            def _on_training_end(self):
                done = self.curve and self.curve[-1]["decisions"] == self.model.num_timesteps
                if curve_every and not done:  # the trained policy's own point, as the DQN example's
                    self._add_point(time.perf_counter() - self.t0 - self.spent)

            def _add_point(self, elapsed):
                t = time.perf_counter()
                rate = curve_point(self.model, players)
                self.curve.append({"seconds": elapsed, "decisions": self.model.num_timesteps, "win_rate": rate})
                self.spent += time.perf_counter() - t  # evaluation time is not training time

        return _Budget()


def curve_point(model, players) -> float:
    agent = PolicyAgent(lambda obs, mask: model.predict(obs, action_masks=mask, deterministic=True)[0],
                        obs="flat", name="maskable_ppo")
    config = RulesConfig(num_players=players)
    match = run_match(config, [agent] + ["greedy"] * (config.num_sides - 1), 200, seed=12345)
    return match.to_dict()["agents"][0]["win_rate"]


def train(args):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    torch.set_num_threads(1)  # small networks: one thread is faster than two contending ones
    env = make_env(args)
    env.seed(args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                        learning_rate=args.learning_rate, gamma=args.gamma, gae_lambda=args.gae_lambda,
                        ent_coef=args.ent_coef, policy_kwargs={"net_arch": list(args.net)}, seed=args.seed,
                        verbose=0, device="cpu")
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes an empty /tmp/SB3-<time> per run
    t0 = time.perf_counter()
    budget = Budget(args.minutes, args.curve_every, args.players)
    model.learn(total_timesteps=args.timesteps, callback=budget)
    model.curve = budget.curve
    return model, time.perf_counter() - t0


def evaluate(model, args):
    """One duplicate-deal match per opponent spec; returns the result dicts."""
    agent = PolicyAgent(lambda obs, mask: model.predict(obs, action_masks=mask, deterministic=True)[0],
                        obs="flat", name="maskable_ppo")
    config = RulesConfig(num_players=args.players)
    results = []
    for spec in args.eval_against:
        specs = [agent] + [spec] * (config.num_sides - 1)
        match = run_match(config, specs, games=args.eval_games, seed=args.eval_seed)
        print(format_table(match))
        results.append(match.to_dict())
    return results


def main(argv=None):
    args = parse_args(argv)
    model, seconds = train(args)
    print(f"trained MaskablePPO for {model.num_timesteps} learner decisions in {seconds:.1f} s "
          f"({model.num_timesteps / seconds:.0f} decisions/s)")
    if args.save:
        model.save(args.save)
    results = evaluate(model, args)
    summary = {"args": vars(args), "timesteps": model.num_timesteps, "train_seconds": seconds,
               "curve": model.curve, "eval": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
