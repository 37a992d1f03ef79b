"""A short run measurably beats random: its 95% interval against random lies above 50%."""

import os

from allfives_env.arena import run_match
from allfives_env.rules.config import RulesConfig
from training.config import load_config
from training.loop import train


def test_short_run_beats_random(tmp_path):
    cfg = load_config("configs/smoke.yaml", [
        "target=100", "num_envs=128", "num_steps=32", "total_timesteps=65536", "learning_rate=2e-3",
        "minibatch_size=1024", "update_epochs=3", "eval_every=0", "tensorboard=false", "anneal_lr=false",
        "opp_self=0.5", "opp_pool=0.2", "opp_greedy=0.2", "opp_random=0.1"])
    run = str(tmp_path / "run")
    train(cfg, run)
    rules = RulesConfig(num_players=2, target=100)
    me = run_match(rules, [f"ppo:{os.path.join(run, 'policy.pt')}", "random"], 300, seed=99).to_dict()["agents"][0]
    lo, hi = me["win_rate_ci95"]
    assert lo > 0.5, me
