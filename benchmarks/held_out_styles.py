"""The shipped agents against styles of play that no shipped agent was trained, tuned or chosen against.

    python benchmarks/held_out_styles.py [--players 2 3 4] [--games 400] [--seed 10394] [--workers 2]
                                         [--agents SPEC ...] [--opponents STYLE_OR_SPEC ...]
                                         [--json out.json] [--markdown out.md]

Every shipped file and default was chosen against random, greedy, heuristic, the search and each
other. The five styles below are none of those: each is a plain rule a person might play by,
written on 2026-12-07 after every shipped file and default was fixed, and used for nothing else.
For each player count every ``--agents`` spec (default: the shipped policy, the champion, and the
compiled search, heuristic and greedy for reference) plays a duplicate match with seat rotation
against each opponent (one per other side: the same style twice with 3 players, a partnership with
4). ``--opponents`` takes the style names below and any agent spec (``openspiel:ismcts,...``).
Each style is also an agent spec from the checkout's root:
``python -m allfives_env eval --players 2 --agents champion benchmarks.held_out_styles:Blocker``.

Styles:
  heavy       sheds its heaviest tile; points only break ties
  light       scores the most now, else keeps its heavy tiles (plays the lightest)
  doubles     plays a double whenever it can (the highest-scoring one), else greedy
  eps_greedy  greedy, but a uniformly random legal move a quarter of the time
  blocker     its points now minus the most any unseen tile could score in reply (one ply, paranoid)
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from allfives_env.agents.base import BaseAgent  # noqa: E402
from allfives_env.agents.greedy import greedy_action  # noqa: E402
from allfives_env.agents.registry import check_spec  # noqa: E402
from allfives_env.arena import check_agents, run_match  # noqa: E402
from allfives_env.arena.outputs import write_output  # noqa: E402
from allfives_env.arena.ratings import refuse_repeated_specs  # noqa: E402
from allfives_env.integrations.run_args import ScriptHelp, check_run_args  # noqa: E402
from allfives_env.rules import RulesConfig  # noqa: E402
from allfives_env.rules.actions import DRAW, slot_of, tile_of  # noqa: E402
from allfives_env.rules.scoring import points_for_count  # noqa: E402
from allfives_env.rules.tiles import SUIT_TILES, TILE_IS_DOUBLE, TILE_PIPS, mask_to_tiles  # noqa: E402
from allfives_env.rules.view import stand_in_game  # noqa: E402
from benchmarks.match_args import add_match_arguments  # noqa: E402


def points_now(view, action) -> int:
    """The points ``action`` (a placement) scores at once (R15)."""
    return points_for_count(view.count_after(tile_of(action), slot_of(action)), view.divisor)


def forced(legal_actions) -> bool:
    """Nothing to choose: a single legal action (a draw or a pass is only ever legal alone, R13)."""
    return len(legal_actions) == 1


class Heavy(BaseAgent):
    """heavy: sheds its heaviest tile; points only break ties."""

    name = "heavy"

    def act(self, view, legal_actions):
        if forced(legal_actions):
            return legal_actions[0]
        return max(legal_actions, key=lambda a: (TILE_PIPS[tile_of(a)], points_now(view, a), -a))


class Light(BaseAgent):
    """light: scores the most now, else plays its lightest tile (keeps the heavy ones)."""

    name = "light"

    def act(self, view, legal_actions):
        if forced(legal_actions):
            return legal_actions[0]
        return max(legal_actions, key=lambda a: (points_now(view, a), -TILE_PIPS[tile_of(a)], -a))


class Doubles(BaseAgent):
    """doubles: plays a double whenever it can (greedy among them), else greedy."""

    name = "doubles"

    def act(self, view, legal_actions):
        doubles = [a for a in legal_actions if a < DRAW and TILE_IS_DOUBLE[tile_of(a)]]
        return greedy_action(view, doubles or legal_actions)


class EpsGreedy(BaseAgent):
    """eps_greedy: greedy, but a uniformly random legal move a quarter of the time (the seat's generator)."""

    name = "eps_greedy"
    explore = 0.25

    def act(self, view, legal_actions):
        if self.rng.random() < self.explore:
            return legal_actions[int(self.rng.integers(len(legal_actions)))]
        return greedy_action(view, legal_actions)


class Blocker(BaseAgent):
    """blocker: its points now minus the most any unseen tile could score in reply (it assumes the next
    seat holds whatever it cannot see); ties go to more points now, then the heavier tile."""

    name = "blocker"

    def act(self, view, legal_actions):
        if forced(legal_actions):
            return legal_actions[0]
        # the stand-in's other hands hold exactly the unseen tiles, so a block it finds after a play is real
        layout = stand_in_game(view)
        return max(legal_actions, key=lambda a: (points_now(view, a) - self.threat(layout, view.unseen, a),
                                                 points_now(view, a), TILE_PIPS[tile_of(a)], -a))

    @staticmethod
    def threat(layout, unseen, action) -> int:
        """The most points any ``unseen`` tile could score on the layout after ``action`` (0 if it ends the hand)."""
        after = layout.clone()
        after.step(action)
        if after.hand_over:
            return 0
        return max((points_for_count(after.count_after(tile, slot), after.divisor)
                    for slot, value in enumerate(after.open_value) if value >= 0
                    for tile in mask_to_tiles(unseen & SUIT_TILES[value])), default=0)


STYLES = {style.name: style for style in (Heavy, Light, Doubles, EpsGreedy, Blocker)}


def default_agents(players) -> list:
    """The shipped policy and the champion, then the compiled search, heuristic and greedy for reference."""
    return [f"ppo:checkpoints/ppo_{players}p.pt", "champion", "search:engine=compiled", "heuristic", "greedy"]


def measured_agents(args, players) -> list:
    """The agents measured with ``players``: ``--agents``, else :func:`default_agents`."""
    return args.agents or default_agents(players)


def opponent(name):
    """A style by name (a new agent object), else the spec itself."""
    return STYLES[name]() if name in STYLES else name


def lineup(players, agent, opponent_name) -> list:
    """One spec per side: ``agent``, then the opponent at every other side."""
    return [agent] + [opponent(opponent_name)] * (RulesConfig(num_players=players).num_sides - 1)


def play(players, agents, opponents, games, seed, workers) -> list:
    """One row per (opponent, agent): the agent's win rate, interval, margin and CPU per game."""
    config, rows = RulesConfig(num_players=players), []
    for name in opponents:
        for agent in agents:
            started = time.perf_counter()
            stats = run_match(config, lineup(players, agent, name), games, seed=seed, workers=workers)
            mine = stats.agent_stats()[0].to_dict()
            rows.append({"players": players, "opponent": name, "agent": agent, "seed": seed, "games": mine["games"],
                         "win_rate": mine["win_rate"], "win_rate_ci95": mine["win_rate_ci95"],
                         "margin_per_game": mine["margin_per_game"],
                         "act_cpu_seconds_per_game": mine["act_cpu_seconds_per_game"],
                         "wall_seconds": time.perf_counter() - started})
            print(f"{players} players  {name:<12} {agent:<34} {mine['win_rate']:.3f} "
                  f"[{mine['win_rate_ci95'][0]:.3f}, {mine['win_rate_ci95'][1]:.3f}]", flush=True)
    return rows


def markdown(rows) -> str:
    """One table per player count: a row per agent, a column per opponent, win rate [95% interval]."""
    lines = []
    for players in sorted({r["players"] for r in rows}):
        mine = [r for r in rows if r["players"] == players]
        opponents = list(dict.fromkeys(r["opponent"] for r in mine))
        agents = list(dict.fromkeys(r["agent"] for r in mine))
        cell = {(r["agent"], r["opponent"]): r for r in mine}
        lines += [f"#### {players} players", "", f"{mine[0]['games']} games per match, deal seed {mine[0]['seed']}.", "",
                  "| agent | " + " | ".join(f"`{o}`" for o in opponents) + " |",
                  "| --- |" + " --- |" * len(opponents)]
        for agent in agents:
            cells = [cell[agent, o] for o in opponents]
            lines.append(f"| `{agent}` | " + " | ".join(
                f"{c['win_rate']:.3f} [{c['win_rate_ci95'][0]:.3f}, {c['win_rate_ci95'][1]:.3f}]" for c in cells) + " |")
        lines.append("")
    return "\n".join(lines)


def check_opponents(names) -> None:
    """A ``ValueError`` for a name that is neither a style nor an agent spec (a mistyped style says what styles there are)."""
    for name in names:
        if name in STYLES:
            continue
        try:
            check_spec(name)
        except ValueError as exc:
            raise ValueError(f"--opponents {name!r} is neither a style ({', '.join(STYLES)}) nor an agent spec: "
                             f"{exc}") from None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    add_match_arguments(parser, seed=10394, workers=2)
    parser.add_argument("--agents", nargs="+", metavar="SPEC",
                        help="the agents measured (default: the shipped policy, champion, search, heuristic, greedy)")
    parser.add_argument("--opponents", nargs="+", metavar="STYLE_OR_SPEC", default=list(STYLES),
                        help=f"styles ({', '.join(STYLES)}) or agent specs (default: every style)")
    parser.add_argument("--json", help="write every row here")
    parser.add_argument("--markdown", help="write the tables here")
    args = parser.parse_args(argv)
    specs = [o for o in args.opponents if o not in STYLES]
    try:  # before the first game: a bad value found after an hour of play would lose the hour
        measured = [spec for players in args.players for spec in measured_agents(args, players)]
        check_run_args(args, positive=["workers"], specs=["agents"], outputs=["json", "markdown"],
                       inputs=specs + measured)
        check_opponents(args.opponents)
        refuse_repeated_specs(args.opponents, "--opponents")
        refuse_repeated_specs(args.agents or [], "--agents")
        for players in args.players:
            check_agents(RulesConfig(num_players=players), measured_agents(args, players) + specs)
    except ValueError as exc:
        parser.error(str(exc))
    rows = []
    for players in args.players:
        rows += play(players, measured_agents(args, players), args.opponents, args.games, args.seed, args.workers)
    if args.json:
        write_output(args.json, json.dumps(rows, indent=2), "--json")
    if args.markdown:
        write_output(args.markdown, markdown(rows), "--markdown")


if __name__ == "__main__":
    main()
