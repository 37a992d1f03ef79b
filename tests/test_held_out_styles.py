"""benchmarks/held_out_styles.py: each style plays by its stated rule, read from the seat's view alone, and the
script's table is the arena's own result for each lineup."""

import json
import subprocess
import sys

import numpy as np
import pytest
from support import ROOT, load_script, random_states

from allfives_env.agents.greedy import greedy_action
from allfives_env.arena import run_match
from allfives_env.rules import RulesConfig
from allfives_env.rules.actions import DRAW, slot_of, tile_of
from allfives_env.rules.scoring import points_for_count
from allfives_env.rules.tiles import TILE_IS_DOUBLE, TILE_PIPS
from allfives_env.rules.view import player_view

styles = load_script("benchmarks/held_out_styles.py")


def choices(num_players, seed, games=3):
    """(game, view, legal) at every decision with more than one legal placement of seeded random games."""
    for game, _ in random_states(num_players, games, seed):
        legal = list(game.legal_actions())
        if len(legal) > 1 and legal[0] < DRAW:
            yield game, player_view(game, game.to_move), legal


def points(view, action):
    return points_for_count(view.count_after(tile_of(action), slot_of(action)), view.divisor)


def seated(style, num_players, seed=0):
    agent = style()
    agent.reset(0, RulesConfig(num_players=num_players), np.random.default_rng(seed))
    return agent


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_heavy_light_and_doubles_choose_by_their_rules(num_players):
    heavy, light, doubles = (seated(s, num_players) for s in (styles.Heavy, styles.Light, styles.Doubles))
    seen = 0
    for _, view, legal in choices(num_players, seed=num_players):
        heaviest = max(TILE_PIPS[tile_of(a)] for a in legal)
        shed = heavy.act(view, legal)
        assert TILE_PIPS[tile_of(shed)] == heaviest
        assert points(view, shed) == max(points(view, a) for a in legal if TILE_PIPS[tile_of(a)] == heaviest)
        best = max(points(view, a) for a in legal)
        chosen = light.act(view, legal)
        assert points(view, chosen) == best
        assert TILE_PIPS[tile_of(chosen)] == min(TILE_PIPS[tile_of(a)] for a in legal if points(view, a) == best)
        with_double = [a for a in legal if TILE_IS_DOUBLE[tile_of(a)]]
        assert doubles.act(view, legal) == greedy_action(view, with_double or legal)
        seen += 1
    assert seen > 50


def test_eps_greedy_explores_a_quarter_of_its_choices_from_its_own_generator():
    agent, again = seated(styles.EpsGreedy, 2, seed=5), seated(styles.EpsGreedy, 2, seed=5)
    off_greedy = total = 0
    for _, view, legal in choices(2, seed=11, games=20):
        move = agent.act(view, legal)
        assert move in legal and move == again.act(view, legal)  # the same generator state, the same move
        off_greedy += move != greedy_action(view, legal)
        total += 1
    # a uniform pick is greedy's own move about a third of the time: about 0.25 * 0.65 of the choices differ
    assert total > 200 and 0.08 < off_greedy / total < 0.28


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_blocker_weighs_its_points_against_the_best_reply_any_unseen_tile_has(num_players):
    """The threat worked out again through the engine's own legal moves: the next seat given every unseen tile;
    among equal nets, more points now, then the heavier tile."""
    agent = seated(styles.Blocker, num_players)
    differs_from_greedy = 0
    for game, view, legal in choices(num_players, seed=20 + num_players):
        def net(action):
            after = game.clone()
            after.step(action)
            threat = 0
            if not after.hand_over:
                after.hands[after.to_move] = view.unseen
                replies = [a for a in after.legal_actions() if a < DRAW]
                threat = max((points(after, a) for a in replies), default=0)
            return points(view, action) - threat

        chosen = agent.act(view, legal)
        best_net = max(net(a) for a in legal)
        tied = [a for a in legal if net(a) == best_net]
        assert net(chosen) == best_net
        assert (points(view, chosen), TILE_PIPS[tile_of(chosen)]) == max(
            (points(view, a), TILE_PIPS[tile_of(a)]) for a in tied)
        differs_from_greedy += chosen != greedy_action(view, legal)
    assert differs_from_greedy > 5


def test_the_script_reports_the_arenas_result_for_every_lineup(tmp_path):
    out = subprocess.run([sys.executable, "benchmarks/held_out_styles.py", "--players", "2", "3", "--games", "6",
                          "--workers", "1", "--agents", "greedy", "heuristic", "--opponents", "blocker", "random",
                          "--json", str(tmp_path / "h.json"), "--markdown", str(tmp_path / "h.md")],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "h.json").read_text())
    assert [(r["players"], r["opponent"], r["agent"]) for r in rows] == [
        (n, o, a) for n in (2, 3) for o in ("blocker", "random") for a in ("greedy", "heuristic")]
    for row in rows:
        opponent = styles.Blocker() if row["opponent"] == "blocker" else "random"
        specs = [row["agent"]] + [opponent] * (RulesConfig(num_players=row["players"]).num_sides - 1)
        match = run_match(RulesConfig(num_players=row["players"]), specs, 6, seed=row["seed"])
        assert row["win_rate"] == match.agent_stats()[0].win_rate and row["games"] == len(match.games)
    table = (tmp_path / "h.md").read_text()
    assert "| agent | `blocker` | `random` |" in table and table.count("| `heuristic` |") == 2


def test_a_style_is_an_agent_spec_from_the_checkouts_root():
    """As results.md says: ``python -m allfives_env eval ... benchmarks.held_out_styles:Blocker``."""
    out = subprocess.run([sys.executable, "-m", "allfives_env", "eval", "--players", "2", "--agents", "greedy",
                          "benchmarks.held_out_styles:Blocker", "--games", "2", "--seed", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert any(line.startswith("benchmarks.held_out_styles:Blocker ") for line in out.stdout.splitlines())
