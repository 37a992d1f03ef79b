"""Scratch: how often does a uniformly sampled world break the exact pass/draw constraints?

The engine keeps, per seat, only the suits lacked since its last draw. Tiles held from before
that draw still lack every suit lacked while they were held. Exact check per seat: each tile
it held this hand (current hand in the world + tiles it placed) was acquired at the deal or at
one of its draws; a lack event at time t forbids the suits for tiles held across t.
"""
import sys

import numpy as np

from allfives_env.agents.heuristic import HeuristicAgent
from allfives_env.arena.deals import deal_hand
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import TILE_SUITS, mask_to_tiles
from allfives_env.rules.view import player_view, sample_world

INF = 10 ** 9


def lack_events(view, open_log):
    """Per seat: list of (time, suits, min_departure_exclusive) from the hand's events.
    open_log[i] = open suits before event i (public: replayable from the layout)."""
    out = {s: [] for s in range(view.num_players)}
    for i, (s, a, t, p, c) in enumerate(view.events):
        if a == PASS:
            out[s].append((i, open_log[i]))
        elif a == DRAW:
            out[s].append((i - 0.5, open_log[i]))  # tiles held before the draw
            out[s].append((i + 0.5, open_log[i]))  # after it, all but a tile placed at once (next event)
    return out


def seat_consistent(view, s, hand_mask, lacks, init_size):
    """Exact feasibility of seat s holding hand_mask now."""
    events = view.events
    draws = [i for i, e in enumerate(events) if e[0] == s and e[1] == DRAW]
    tiles = []  # (tile, departure)
    for i, e in enumerate(events):
        if e[0] == s and e[1] < DRAW:
            tiles.append((e[2], i))
    for t in mask_to_tiles(hand_mask):
        tiles.append((t, INF))
    intervals = []
    for t, dep in tiles:
        last_conflict = -INF
        for time, suits in lacks[s]:
            if time < dep and TILE_SUITS[t] & suits:
                # the post-draw event skips the tile placed right after that draw
                if time == int(time) + 0.5 and dep == int(time) + 1:
                    continue
                last_conflict = max(last_conflict, time)
        intervals.append((last_conflict, dep))
    slots = [-1] * init_size + draws
    if len(slots) != len(intervals):
        raise RuntimeError(f"slots {len(slots)} tiles {len(intervals)}")
    remaining = sorted(intervals)
    open_ = []
    import heapq
    k = 0
    for slot in slots:
        while k < len(remaining) and remaining[k][0] < slot:
            heapq.heappush(open_, remaining[k][1])
            k += 1
        if not open_:
            return False
        dep = heapq.heappop(open_)
        if dep <= slot:
            return False
    return True


def main(n, games, worlds, seed):
    config = RulesConfig(num_players=n)
    rng = np.random.default_rng(seed)
    agents = [HeuristicAgent() for _ in range(n)]
    for s, a in enumerate(agents):
        a.reset(s, config, np.random.default_rng(seed + s))
    decisions = bad = stale = 0
    per_seat_bad = 0
    per_seat_total = 0
    for g in range(games):
        game = Game(config)
        hand = 0
        while hand == 0 or not game.game_over:
            deal_hand(game, seed * 1000 + g, hand)
            init_sizes = [h.bit_count() for h in game.hands]
            open_log = []
            while not game.hand_over:
                legal = game.legal_actions()
                seat = game.to_move
                if len(legal) > 1 and legal[0] < DRAW:
                    view = player_view(game, seat)
                    lacks = lack_events(view, open_log)
                    # truth must pass
                    for o in range(n):
                        if o != seat:
                            assert seat_consistent(view, o, game.hands[o], lacks, init_sizes[o])
                    decisions += 1
                    any_stale = False
                    for _ in range(worlds):
                        w = sample_world(view, rng)
                        ok = True
                        for o in range(n):
                            if o == seat:
                                continue
                            per_seat_total += 1
                            if not seat_consistent(view, o, w.hands[o], lacks, init_sizes[o]):
                                ok = False
                                per_seat_bad += 1
                        if not ok:
                            bad += 1
                            any_stale = True
                    stale += any_stale
                    action = agents[seat].act(view, legal)
                else:
                    action = legal[0] if len(legal) == 1 else agents[seat].act(player_view(game, seat), legal)
                open_log.append(game.open_suits())
                game.step(action)
            hand += 1
    print(f"n={n} decisions={decisions} worlds inconsistent={bad / (decisions * worlds):.3f} "
          f"decisions with any inconsistent={stale / decisions:.3f} seat-hands bad={per_seat_bad / per_seat_total:.3f}")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
