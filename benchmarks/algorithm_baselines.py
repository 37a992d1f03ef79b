"""Algorithm baselines from the libraries researchers use, at one budget, scored the same way.

    python benchmarks/algorithm_baselines.py --minutes 10 --out runs/baselines [--only ours sb3 rllib dqn]

Runs, one after another (each gets the machine to itself), for ``--minutes`` of
training each, 2 players:

* ``ours``: this package's PPO (``allfives train --config configs/ppo_2p.yaml``);
* ``sb3``: sb3-contrib's MaskablePPO against greedy on the vector env (``examples/sb3_maskable_ppo.py``);
* ``rllib``: RLlib PPO self-play with action masking, one env runner (``examples/rllib_selfplay.py``);
* ``dqn``: OpenSpiel's DQN against greedy on ``python_allfives`` (``examples/openspiel_dqn.py``).

Each is scored against greedy on the 2000 duplicate games of seed 2026 (none used
in training), and its learning curve (win rate against greedy on 200 games of
seed 12345, over training time and over learner decisions) is kept. Writes
``OUT/baselines.json``, a markdown table on stdout, and ``OUT/baselines_curves.png``.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
ALLFIVES = os.path.join(os.path.dirname(PY), "allfives")
SEED = 2026


def run(cmd, log):
    with open(log, "w") as f:
        subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, check=True)


def ours(minutes, out, games):
    run_dir = os.path.join(out, "ours_run")
    run([ALLFIVES, "train", "--config", "configs/ppo_2p.yaml", "--run-dir", run_dir, f"max_minutes={minutes}",
         "progress=false", "tensorboard=false", "eval_opponents=[greedy]", "best_metric=greedy"],
        os.path.join(out, "ours.log"))
    curve = []
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        for row in csv.DictReader(f):
            if row.get("eval_greedy_win"):
                curve.append({"seconds": float(row["wall_s"]), "decisions": int(float(row["global_step"])),
                              "win_rate": float(row["eval_greedy_win"])})
    result = os.path.join(out, "ours_eval.json")
    run([ALLFIVES, "eval", "--players", "2", "--agents", f"ppo:{run_dir}/policy.pt", "greedy", "--games", str(games),
         "--seed", str(SEED), "--json", result, "--no-progress"], os.path.join(out, "ours_eval.log"))
    final = json.load(open(result))["agents"][0]
    return {"decisions": curve[-1]["decisions"] if curve else None, "curve": curve, "final": final}


def sb3(minutes, out, games):
    path = os.path.join(out, "sb3.json")
    run([PY, "examples/sb3_maskable_ppo.py", "--minutes", str(minutes), "--curve-every", "1", "--eval-games",
         str(games), "--eval-seed", str(SEED), "--eval-against", "greedy", "--json", path], os.path.join(out, "sb3.log"))
    data = json.load(open(path))
    return {"decisions": data["timesteps"], "curve": data["curve"], "final": data["eval"][0]["agents"][0]}


def rllib(minutes, out, games):
    path = os.path.join(out, "rllib.json")
    run([PY, "examples/rllib_selfplay.py", "--minutes", str(minutes), "--iterations", "100000", "--curve-every", "1",
         "--num-env-runners", "1", "--num-cpus", "2", "--eval-games", str(games), "--eval-seed", str(SEED),
         "--eval-against", "greedy", "--json", path], os.path.join(out, "rllib.log"))
    data = json.load(open(path))
    curve = [{"seconds": r["train_seconds"], "decisions": r["env_steps"], "win_rate": r["win_rate"]}
             for r in data["train"] if "win_rate" in r]
    return {"decisions": data["train"][-1]["env_steps"], "curve": curve, "final": data["eval"][0]["agents"][0]}


def dqn(minutes, out, games):
    path = os.path.join(out, "dqn.json")
    run([PY, "examples/openspiel_dqn.py", "--minutes", str(minutes), "--eval-every", "1", "--eval-games", str(games),
         "--eval-seed", str(SEED), "--json", path], os.path.join(out, "dqn.log"))
    data = json.load(open(path))
    return {"decisions": data["decisions"], "curve": data["curve"], "final": data["final"]}


RECIPES = {
    "ours": ("PPO self-play with a snapshot pool", "allfives-env", ours),
    "sb3": ("MaskablePPO against greedy, vector env", "sb3-contrib", sb3),
    "rllib": ("PPO self-play with action masking", "RLlib", rllib),
    "dqn": ("DQN against greedy on python_allfives", "OpenSpiel", dqn),
}


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name, r in results.items():
        xs = [p["seconds"] / 60 for p in r["curve"]]
        ys = [p["win_rate"] for p in r["curve"]]
        axes[0].plot(xs, ys, marker=".", label=f"{r['library']}: {r['method']}")
        later = [p for p in r["curve"] if p["decisions"]]  # the log axis starts after the first decision
        axes[1].plot([p["decisions"] / 1e6 for p in later], [p["win_rate"] for p in later], marker=".")
    for ax, label in zip(axes, ("training minutes", "learner decisions (millions)")):
        ax.axhline(0.6, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(label)
        ax.set_ylabel("win rate vs greedy (200 games)")
        ax.set_ylim(0, 1)
    axes[1].set_xscale("log")
    fig.legend(loc="lower center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    fig.savefig(path, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--out", default="runs/baselines")
    p.add_argument("--only", nargs="+", choices=list(RECIPES), default=list(RECIPES))
    p.add_argument("--games", type=int, default=2000, help="games of each final evaluation")
    p.add_argument("--plot-only", action="store_true", help="redraw OUT/baselines_curves.png from OUT/baselines.json")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.plot_only:
        plot(json.load(open(os.path.join(args.out, "baselines.json"))), os.path.join(args.out, "baselines_curves.png"))
        return
    results = {}
    for name in args.only:
        method, library, recipe = RECIPES[name]
        t0 = time.perf_counter()
        r = recipe(args.minutes, args.out, args.games)
        results[name] = {"method": method, "library": library, "minutes": args.minutes,
                         "wall_seconds": time.perf_counter() - t0, **r}
        with open(os.path.join(args.out, "baselines.json"), "w") as f:
            json.dump(results, f, indent=1)
        print(f"{name}: {r['final']['win_rate']:.3f}", file=sys.stderr, flush=True)
    print(f"| method | library | budget | decisions trained on | vs greedy, {args.games} games [95% CI] | >= 0.60 |")
    print("| --- | --- | --- | ---: | --- | :---: |")
    for r in results.values():
        f = r["final"]
        lo, hi = f["win_rate_ci95"]
        decisions = f"{r['decisions'] / 1e6:.1f} M" if r["decisions"] else "-"
        print(f"| {r['method']} | {r['library']} | {r['minutes']:g} min | {decisions} | {f['win_rate']:.3f} "
              f"[{lo:.3f}, {hi:.3f}] | {'yes' if f['win_rate'] >= 0.6 else 'no'} |")
    plot(results, os.path.join(args.out, "baselines_curves.png"))


if __name__ == "__main__":
    main()
