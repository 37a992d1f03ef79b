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
``OUT/baselines.json`` (a recipe's entry replaces only that recipe's: ``--only dqn`` after a full
run keeps the other three), a markdown table of every entry on stdout, and ``OUT/baselines_curves.png``.
A recipe that fails stops the run with one line naming it and its log in ``OUT``.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from allfives_env.arena.outputs import check_can_make_folder  # noqa: E402
from allfives_env.integrations.run_args import ScriptHelp, check_run_args  # noqa: E402
from training.run_folder import run_files_in  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = sys.executable
ALLFIVES = os.path.join(os.path.dirname(PY), "allfives")
SEED = 2026


class RecipeFailed(Exception):
    """A recipe's command exited with an error; the message names the command's log and its last line."""


def run(cmd, log):
    with open(log, "w") as f:
        done = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        with open(log) as f:
            lines = [line.strip() for line in f if line.strip()]
        last = lines[-1] if lines else "(no output)"
        raise RecipeFailed(f"{os.path.basename(cmd[1]) if cmd[0] == PY else 'allfives ' + cmd[1]} exited with "
                           f"{done.returncode}: {last} (whole output: {log})")


def ours_run_dir(out) -> str:
    return os.path.join(out, "ours_run")


def ours(minutes, out, games):
    run_dir = ours_run_dir(out)
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


def load_results(path) -> dict:
    """The entries of an earlier run's ``baselines.json`` (none when there is no such file)."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    p.add_argument("--minutes", type=float, default=10.0, help="training minutes of each recipe")
    p.add_argument("--out", default="runs/baselines", help="folder for the results and each recipe's log "
                   "(relative to the current directory; made if missing)")
    p.add_argument("--only", nargs="+", choices=list(RECIPES), default=list(RECIPES))
    p.add_argument("--games", type=int, default=2000, help="games of each final evaluation")
    p.add_argument("--plot-only", action="store_true", help="redraw OUT/baselines_curves.png from OUT/baselines.json")
    args = p.parse_args(argv)
    args.out = os.path.abspath(args.out)  # the recipes run from the checkout's root
    results_path = os.path.join(args.out, "baselines.json")
    try:
        check_run_args(args, positive=["minutes", "games"])
        check_can_make_folder(args.out, "--out")
        held = run_files_in(ours_run_dir(args.out)) if "ours" in args.only and not args.plot_only else []
        if held:  # else the recipe's training refuses it, after the recipes before it have run
            raise ValueError(f"{ours_run_dir(args.out)} holds an earlier run of the ours recipe ({', '.join(held)}); "
                             "move it away, or give another --out")
        if args.plot_only and not os.path.exists(results_path):
            raise ValueError(f"--plot-only: {results_path} does not exist; run the recipes first")
    except ValueError as exc:
        p.error(str(exc))
    if args.plot_only:
        plot(load_results(results_path), os.path.join(args.out, "baselines_curves.png"))
        return 0
    os.makedirs(args.out, exist_ok=True)
    results = load_results(results_path)
    for name in args.only:
        method, library, recipe = RECIPES[name]
        t0 = time.perf_counter()
        try:
            r = recipe(args.minutes, args.out, args.games)
        except RecipeFailed as exc:
            sys.stderr.write(f"algorithm_baselines.py: error: recipe {name}: {exc}\n")
            return 1
        results[name] = {"method": method, "library": library, "minutes": args.minutes,
                         "wall_seconds": time.perf_counter() - t0, **r}
        with open(results_path, "w") as f:
            json.dump(results, f, indent=1)
        print(f"{name}: {r['final']['win_rate']:.3f}", file=sys.stderr, flush=True)
    print("| method | library | budget | decisions trained on | vs greedy [95% CI] | games | >= 0.60 |")
    print("| --- | --- | --- | ---: | --- | ---: | :---: |")
    for r in results.values():
        f = r["final"]
        lo, hi = f["win_rate_ci95"]
        decisions = f"{r['decisions'] / 1e6:.1f} M" if r["decisions"] else "-"
        print(f"| {r['method']} | {r['library']} | {r['minutes']:g} min | {decisions} | {f['win_rate']:.3f} "
              f"[{lo:.3f}, {hi:.3f}] | {f['games']:,} | {'yes' if f['win_rate'] >= 0.6 else 'no'} |")
    plot(results, os.path.join(args.out, "baselines_curves.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
