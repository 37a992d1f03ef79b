"""allfives-benchmark-v1: the standard protocol for scoring an agent, and its scorecard.

The protocol (documented for citation on the docs' Benchmark page):

* **Deal sets.** For ``n`` players, deal seed ``DEAL_SEEDS[n]``, ``FULL_DEALS``
  deals (``QUICK_DEALS`` with ``quick``). Every hand of every deal is a fixed
  function of ``(seed, deal, hand)`` (:func:`allfives_env.arena.deals.hand_deal`);
  :func:`deal_set_checksum` hashes the first ``CHECKSUM_HANDS`` hands of every
  deal, and the run refuses to score on a deal set whose checksum differs from
  the pinned one (``CHECKSUMS``).
* **Games.** Each deal is played once per rotation of the sides over the seats
  (2, 3 or 2 games with 2, 3 or 4 players), the candidate holding each side once,
  whole games to the target: an arena match (:func:`~allfives_env.arena.run_match`)
  with the deal set's seed, so ``allfives eval`` with the same seed and games
  plays the same games.
* **Ladder.** ``random``, ``greedy``, ``heuristic``, ``search`` and the policy
  shipped for the player count when v1 was fixed (:func:`ladder`; kept byte for
  byte under ``checkpoints/benchmark_v1/``, its sha256 pinned in
  ``RUNG_SHA256`` and checked before every run, so that a newer shipped policy
  does not move the ladder), each in every other seat.
* **Numbers per opponent.** Win rate (a game drawn between k winners counts 1/k)
  and point margin per game (the candidate's side's final score minus the mean
  of the other sides'), each with a 95% interval, in three estimates:

  - ``raw``: the mean over games, the interval as if the games were independent
    (the win rate's is the Wilson interval ``allfives eval`` prints);
  - ``duplicate``: the same mean, the interval from the per-deal means (the
    deals are the independent units; rotation cancels the luck of the cards);
  - ``control_variate``: the per-deal result minus ``c`` times the luck of the
    deal as a fixed reference player (``REFERENCE``, greedy) measures it: the
    reference's per-deal result against the same opponent on the same deals,
    centred on its expectation, which is estimated on ``REFERENCE_DEALS``
    independent deals of the batched env (same deal distribution; a tenth of
    them with ``quick``). ``c`` is fitted
    on one half of the deals and applied to the other (cross-fitting), so the
    estimate is unbiased; its interval adds the error of the expectation.
    ``variance_reduction`` is ``1 - var(estimate) / var(raw estimate)``.

  Opponents without a batched twin (:mod:`allfives_env.agents.batched`) get no
  control variate (their reference sample would cost as much as the benchmark),
  nor does the reference itself as candidate; ``duplicate`` stands.
"""

import hashlib
import math
import os
import subprocess

import numpy as np

from ..agents.batched import check_batched_spec
from ..agents.registry import module_source, parse_spec, resolve_policy_path, shipped_file, unnamed_files
from ..rules.config import RulesConfig
from .batched import batched_match
from .deals import hand_deal
from .match import check_agents, run_match
from .schedule import deal_seed
from .stats import wilson_interval

PROTOCOL = "allfives-benchmark-v1"
DEAL_SEEDS = {2: 20_261_202, 3: 20_261_203, 4: 20_261_204}
FULL_DEALS = 1000
QUICK_DEALS = 20
CHECKSUM_HANDS = 40
REFERENCE = "greedy"
REFERENCE_DEALS = 20_000
REFERENCE_SEED = 7_357
#: sha256 of each deal set (see :func:`deal_set_checksum`), pinned: a test recomputes them.
CHECKSUMS = {
    (2, FULL_DEALS): "47019bd21f64bc4dd5f59b6b8cfe72ece9541917b16434cbb9cc394c758a5404",
    (3, FULL_DEALS): "8e335adeb2c382ebc449947b50a7f88a7c359dc7201968b6319ac06e91c68bf9",
    (4, FULL_DEALS): "9526f534e9b7a3be7cea98cf2248a5b481f3bc8fc2ce6fc08a2da088cd9c5369",
    (2, QUICK_DEALS): "625ace515d09dac18e90b7ab3a49a0592b9d667c891eb588bc8520e215a1dca3",
    (3, QUICK_DEALS): "c761baed02537440051302d44f88935ea9772f76f3f660df8351e0e6c9033439",
    (4, QUICK_DEALS): "09939b8f4a37f4fef1b66f7a587296f717a07c5d8497c9dd108f651dca06a288",
}
Z95 = 1.959963984540054


#: The folder above the package: the repository root in a checkout.
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: sha256 of the ladder's policy file per player count (the files shipped when v1 was fixed).
RUNG_SHA256 = {
    2: "e7785c738907ebc10f8a3ba7dcb9cd3f36f05b48786cef43f8008eac1981f0bb",
    3: "2c2ae5ad93623acd0180eaeb01dd4737f21000e17f2bb4434154eb0559020e73",
    4: "06ce438dbb318783d4d68f6f9186c0828da5c92f2de5abbbb44fc8b8ea2f8fb9",
}


def rung_file(num_players: int) -> str:
    """The ladder's policy file for ``num_players`` as its spec names it: ``checkpoints/benchmark_v1/ppo_Np.pt``,
    relative, so every scorecard names the rung alike wherever it was run."""
    return f"checkpoints/benchmark_v1/ppo_{num_players}p.pt"


def rung_policy_path(num_players: int) -> str:
    """The file the rung's agent reads (:func:`~allfives_env.agents.registry.resolve_policy_path`): a copy in
    the working directory, else the one shipped with the package."""
    return resolve_policy_path(rung_file(num_players))


def check_rung_policy(num_players: int) -> None:
    """Raise ``ValueError`` (one line for the command) unless the file the ladder's policy reads is the
    pinned one (``RUNG_SHA256``)."""
    path = rung_policy_path(num_players)
    if not os.path.isfile(path):
        raise ValueError(f"the v1 ladder's policy {rung_file(num_players)} is missing: it ships with the package "
                         "(allfives_env/checkpoints/benchmark_v1/); restore it from a clean checkout or reinstall")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != RUNG_SHA256[num_players]:
        local = "" if path == shipped_file(rung_file(num_players)) else (
            f" (a {rung_file(num_players)} in the working directory is read before the shipped one)")
        raise ValueError(f"the v1 ladder's policy {path} has sha256 {digest[:16]}..., not the pinned "
                         f"{RUNG_SHA256[num_players][:16]}...: scores against it would not be comparable{local}")


def ladder(num_players: int) -> list:
    """The protocol's opponents, weakest first. The policy rung names ``infer=off``: the 4-player file was
    trained with the greedy exclusions as inputs, and v1 has scored against it without them (the agents'
    default since 2026-12-02); named here, a later change of that default cannot move the ladder."""
    return ["random", "greedy", "heuristic", "search:engine=compiled", f"ppo:{rung_file(num_players)},infer=off"]


def deal_set(num_players: int, quick: bool = False) -> dict:
    """The deal set's description: protocol, players, seed, deals, games and checksum."""
    config = RulesConfig(num_players=num_players)
    deals = QUICK_DEALS if quick else FULL_DEALS
    seed = DEAL_SEEDS[config.num_players]
    return {"protocol": PROTOCOL, "players": config.num_players, "seed": seed, "deals": deals,
            "games": deals * config.num_sides, "checksum": deal_set_checksum(config, seed, deals)}


def deal_set_checksum(config: RulesConfig, seed: int, deals: int) -> str:
    """sha256 over the drawn leader and the 28-tile order of the first ``CHECKSUM_HANDS`` hands of every deal."""
    digest = hashlib.sha256(f"{PROTOCOL}|{config.num_players}|{seed}|{deals}".encode())
    for deal in range(deals):
        for hand in range(CHECKSUM_HANDS):
            order, leader = hand_deal(config, deal_seed(seed, deal), hand)
            digest.update(bytes([leader, *order]))
    return digest.hexdigest()


# ------------------------------------------------------------------ estimates
def per_game_results(match, agent: int = 0) -> dict:
    """Agent ``agent``'s win share and margin per game of an arena match, with each game's deal."""
    share, margin, deal = [], [], []
    for game in match.games:
        side = game.side_agent.index(agent)
        share.append(1.0 / len(game.winners) if side in game.winners else 0.0)
        others = [s for i, s in enumerate(game.scores) if i != side]
        margin.append(game.scores[side] - sum(others) / len(others))
        deal.append(game.deal)
    return {"win_share": np.array(share), "margin": np.array(margin), "deal": np.array(deal)}


def per_deal_means(values, deals) -> np.ndarray:
    """The mean of ``values`` over the games of each deal, in deal order."""
    ids, inverse = np.unique(deals, return_inverse=True)
    return np.bincount(inverse, weights=values) / np.bincount(inverse)


def interval(mean, se) -> list:
    return [float(mean - Z95 * se), float(mean + Z95 * se)]


def raw_estimate(values, wilson=False) -> dict:
    """Mean over games; the interval treats games as independent (Wilson's for a win rate)."""
    n = len(values)
    mean = float(np.mean(values))
    se = float(np.std(values, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    ci = list(wilson_interval(float(np.sum(values)), n)) if wilson else interval(mean, se)
    return {"mean": mean, "ci95": ci, "se": se}


def duplicate_estimate(values, deals) -> dict:
    """Mean over games; the interval from the per-deal means (deals are the independent units)."""
    per_deal = per_deal_means(values, deals)
    se = float(np.std(per_deal, ddof=1) / math.sqrt(len(per_deal)))
    mean = float(np.mean(per_deal))
    return {"mean": mean, "ci95": interval(mean, se), "se": se}


def control_variate_estimate(y, x, mu, mu_se) -> dict:
    """Cross-fitted control-variate mean of per-deal results ``y`` with per-deal luck ``x`` (known mean
    ``mu``, estimated with standard error ``mu_se`` independently of ``y`` and ``x``).

    The deals are split in halves A and B; ``c`` fitted on A (the least-squares slope of y on x) corrects
    B and vice versa, so each half's ``mean(y - c (x - mu))`` has expectation ``E[y]`` whatever ``c``
    is. Returns ``mean``, ``ci95``, ``se`` and the two slopes."""
    y, x = np.asarray(y, float), np.asarray(x, float)
    n = len(y)
    halves = (np.arange(n) % 2 == 0, np.arange(n) % 2 == 1)
    slopes = [_slope(y[h], x[h]) for h in halves]
    corrected = np.empty(n)
    for fit, apply in ((0, 1), (1, 0)):
        h = halves[apply]
        corrected[h] = y[h] - slopes[fit] * (x[h] - mu)
    c = float(np.mean(slopes))
    se = float(math.sqrt(np.var(corrected, ddof=1) / n + (c * mu_se) ** 2))
    mean = float(np.mean(corrected))
    return {"mean": mean, "ci95": interval(mean, se), "se": se, "slopes": [float(s) for s in slopes]}


def _slope(y, x) -> float:
    vx = np.var(x)
    return float(np.cov(y, x, ddof=0)[0, 1] / vx) if vx > 0 else 0.0


#: A standard error below this is a spread of 0: the per-deal means differ by rounding alone.
SAME_RESULT_SE = 1e-12


def estimates(candidate: dict, reference: dict = None, reference_sample: dict = None) -> dict:
    """The three estimates of win rate and margin (see the module docstring)."""
    result = {}
    for metric in ("win_share", "margin"):
        values, deals = candidate[metric], candidate["deal"]
        raw = raw_estimate(values, wilson=metric == "win_share")
        entry = {"raw": raw, "duplicate": duplicate_estimate(values, deals)}
        if reference is not None and reference_sample is not None:
            sample = per_deal_means(reference_sample[metric], reference_sample["deal"])
            mu, mu_se = float(np.mean(sample)), float(np.std(sample, ddof=1) / math.sqrt(len(sample)))
            entry["control_variate"] = control_variate_estimate(
                per_deal_means(values, deals), per_deal_means(reference[metric], reference["deal"]), mu, mu_se)
        for name in ("duplicate", "control_variate"):
            if name in entry and raw["se"] > 0:
                entry[name]["variance_reduction"] = float(1.0 - (entry[name]["se"] / raw["se"]) ** 2)
            if name in entry and metric == "win_share":  # a share lies in [0, 1]; the normal interval may not
                entry[name]["ci95"] = [min(max(bound, 0.0), 1.0) for bound in entry[name]["ci95"]]
                # every deal the same result (to a rounding residue: with 3 players 1/3 is summed in several
                # orders): a point says nothing, Wilson's interval does
                if entry[name]["se"] < SAME_RESULT_SE:
                    entry[name]["ci95"] = list(raw["ci95"])
                    entry[name].pop("variance_reduction", None)  # the interval is the raw one: no reduction
        result["win_rate" if metric == "win_share" else "margin"] = entry
    return result


# ------------------------------------------------------------------ the run
def run_benchmark(spec, num_players: int, quick: bool = False, opponents=None, workers: int = 1,
                  progress: bool = False, log=None) -> dict:
    """Score ``spec`` with the protocol; returns the scorecard as a dict (JSON-ready).

    ``opponents`` (default: :func:`ladder`) replaces the ladder, e.g. for a partial run; the scorecard
    says so. ``log(text)`` is called as each opponent starts."""
    config = RulesConfig(num_players=num_players)
    deals_info = deal_set(num_players, quick)
    pinned = CHECKSUMS.get((config.num_players, deals_info["deals"]))
    if pinned is not None and pinned != deals_info["checksum"]:
        raise RuntimeError(f"deal set checksum {deals_info['checksum']} differs from the pinned {pinned}: "
                           "the deal generator changed, so scores would not be comparable")
    games = deals_info["games"]
    seed = deals_info["seed"]
    chosen = list(ladder(num_players) if opponents is None else opponents)
    if opponents is None:
        check_rung_policy(config.num_players)
    check_agents(config, (spec, *chosen))  # e.g. a policy for another player count: now, not after the matches before it
    reference_deals = REFERENCE_DEALS // 10 if quick else REFERENCE_DEALS
    code = code_version()  # before the matches: a long run's checkout may change while it plays
    rows = []
    for opponent in chosen:
        if log:
            log(f"{spec} vs {opponent}: {games} games")
        specs = [spec] + [opponent] * (config.num_sides - 1)
        match = run_match(config, specs, games, seed=seed, workers=workers, progress=progress)
        candidate = per_game_results(match)
        reference = reference_sample = None
        # the reference cannot be its own control, and against itself its per-deal result is constant
        if _has_batched_twin(opponent) and REFERENCE not in (spec, opponent):
            ref_match = run_match(config, [REFERENCE] + [opponent] * (config.num_sides - 1), games, seed=seed,
                                  workers=workers, progress=progress)
            reference = per_game_results(ref_match)
            reference_sample = batched_match(config, [REFERENCE] + [opponent] * (config.num_sides - 1),
                                             reference_deals, seed=REFERENCE_SEED)
        row = {"opponent": opponent, "games": len(match.games), **estimates(candidate, reference, reference_sample)}
        if reference is None:
            row["no_control_variate"] = ("the candidate is the reference" if spec == REFERENCE else
                                         "the reference against itself is constant" if opponent == REFERENCE else
                                         "no batched twin")
        rows.append(row)
    return {**deals_info, "candidate": str(spec), "candidate_files": candidate_files(spec, num_players),
            "reference": REFERENCE,
            "reference_deals": reference_deals, "full_ladder": opponents is None, "quick": bool(quick),
            "code": code, "opponents": rows}


def code_version(root=None) -> dict:
    """The package version and, where ``root`` (default: the folder above the package) is the top of a
    git checkout, its commit (``-dirty`` when tracked files differ from it), so a scorecard says which
    code played it; ``commit`` is None for an installed package or a tree outside git."""
    from .. import __version__

    root = os.path.realpath(root or _CHECKOUT)
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or os.path.realpath(top) != root:  # not a checkout of its own (git would find a parent's)
        return {"version": __version__, "commit": None}
    commit = _git(root, "rev-parse", "--short=12", "HEAD")
    if commit is not None and _git(root, "diff", "--quiet", "HEAD") is None:  # exit 1: tracked changes
        commit += "-dirty"
    return {"version": __version__, "commit": commit}


def _git(root, *args):
    """git's output in ``root``, stripped; None if git is missing, fails or answers non-zero."""
    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def candidate_files(spec, num_players=None) -> dict:
    """``{path: sha256 of its bytes}`` of the files a spec names (``ppo:PATH``, ``champion:value=PATH``...),
    each as the agent reads it (:func:`~allfives_env.agents.registry.resolve_policy_path`), with
    ``num_players`` those it reads unnamed (``champion``'s default value file, by its shipped name), and
    for a ``module:Class`` the module's own source file under the module's name, so a scorecard says which
    code and files it scored."""
    if not isinstance(spec, str):
        return {}
    name, path, options = parse_spec(spec)
    named = [path] + [value for value in options.values() if isinstance(value, str)]
    found = {name: resolve_policy_path(name) for name in named if name}
    if num_players is not None:
        found.update(unnamed_files(spec, num_players))
    if ":" in name:  # module:Class: that module's source file, named by the module (no machine's path)
        module = name.partition(":")[0]
        source = module_source(module)
        if source:
            found[module] = source
    return {name: _file_sha256(path) for name, path in found.items() if os.path.isfile(path)}


def _file_sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _has_batched_twin(spec) -> bool:
    try:
        check_batched_spec(spec)
    except ValueError:
        return False
    return True


# ------------------------------------------------------------------ the scorecard
def format_scorecard(card: dict) -> str:
    """The scorecard as markdown: one row per opponent, the three estimates of each number."""
    lines = [f"# {card['protocol']}: `{card['candidate']}`, {card['players']} players", "",
             f"Deal set: seed {card['seed']}, {card['deals']} deals, {card['games']} games per opponent "
             f"(every rotation), sha256 `{card['checksum'][:16]}...`"
             f"{' (quick)' if card['quick'] else ''}{'' if card['full_ladder'] else ' (partial ladder)'}. "
             f"Control variate: `{card['reference']}`'s result on the same deals, its mean from "
             f"{card['reference_deals']:,} other deals.{_code_text(card.get('code'))}", "",
             "| opponent | games | win rate [95% CI] | duplicate | control variate (var. reduction) "
             "| margin/game [95% CI] | duplicate | control variate (var. reduction) |",
             "| --- | ---: | --- | --- | --- | --- | --- | --- |"]
    for row in card["opponents"]:
        cells = [f"`{_short(row['opponent'])}`", str(row["games"])]
        for metric, digits in (("win_rate", 3), ("margin", 1)):
            entry = row[metric]
            cells.append(_mean_ci(entry["raw"], digits))
            cells.append(_mean_ci(entry["duplicate"], digits, reduction=True))
            cv = entry.get("control_variate")
            cells.append(_mean_ci(cv, digits, reduction=True) if cv else f"n/a ({row['no_control_variate']})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _code_text(code) -> str:
    if not code:  # a scorecard written before the code was recorded
        return ""
    commit = f", commit `{code['commit']}`" if code.get("commit") else ""
    return f" Code: allfives-env {code['version']}{commit}."


def _mean_ci(entry, digits, reduction=False) -> str:
    lo, hi = entry["ci95"]
    text = f"{entry['mean']:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"
    if reduction and "variance_reduction" in entry:
        text += f" ({round(100 * entry['variance_reduction'])}%)"  # an int: no "-0%" for a rounding residue
    return text


def _short(spec) -> str:
    """A ppo:PATH spec as the scorecard shows it: a shipped file by its path in the package
    (``checkpoints/benchmark_v1/ppo_2p.pt``, which a spec finds from any folder: the pinned rung, not
    the shipped ``ppo_2p.pt``), another relative path as given (a copy in the working folder that
    the spec found first), an absolute one shortened to its folder and file name."""
    if not (isinstance(spec, str) and spec.startswith("ppo:")):
        return str(spec)
    path, _, options = spec[4:].partition(",")
    package = os.path.realpath(shipped_file(""))
    found = os.path.realpath(resolve_policy_path(path))
    if found.startswith(package + os.sep):
        shown = os.path.relpath(found, package)
    elif not os.path.isabs(path):
        shown = path
    else:
        folder, name = os.path.split(os.path.normpath(path))
        shown = os.path.join(os.path.basename(folder), name) if os.path.basename(folder) else name
    return "ppo:" + shown + ("," + options if options else "")
