"""Hand-worked cases for the equipment, seating, deal, leader and play rules
(R1-R13, V1, V3, C1, C3, C4)."""

import numpy as np
import pytest
from rules_testkit import make_game, names, placements, play_rows, tiles

from allfives_env.rules import (
    DRAW,
    NUM_ACTIONS,
    PASS,
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    Game,
    RulesConfig,
    action_name,
    draw_leader,
    parse_action,
    tile_index,
    tile_name,
)
from allfives_env.rules.actions import decode, encode, placement_id, slot_of, tile_of
from allfives_env.rules.config import sides_for
from allfives_env.rules.tiles import heaviness, parse_tile

# ------------------------------------------------------------------------ R1
# The canonical order written out by hand, and the pips of each tile.
R1_ORDER = ("00 01 02 03 04 05 06 11 12 13 14 15 16 22 23 24 25 26 "
            "33 34 35 36 44 45 46 55 56 66").split()
R1_PIPS = [0, 1, 2, 3, 4, 5, 6, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 6, 7, 8, 9, 8, 9, 10, 10, 11, 12]


def test_r1_tile_index_table():
    """R1: index(a, b) follows the written order; both half orders give the same id."""
    for index, text in enumerate(R1_ORDER):
        a, b = int(text[0]), int(text[1])
        assert tile_index(a, b) == index
        assert tile_index(b, a) == index
        assert (TILE_LOW[index], TILE_HIGH[index]) == (a, b)
        assert TILE_PIPS[index] == R1_PIPS[index] == a + b
        assert tile_name(index) == f"[{a}|{b}]"
        assert parse_tile(f"[{b}|{a}]") == index
    assert (tile_index(0, 0), tile_index(0, 6), tile_index(1, 1), tile_index(6, 6)) == (0, 6, 7, 27)
    assert sum(TILE_PIPS) == 168  # every suit appears 8 times: 8 * (0 + ... + 6)


@pytest.mark.parametrize("a, b", [(0, 7), (-1, 3), (7, 7)])
def test_r1_tile_index_rejects_halves_outside_0_6(a, b):
    with pytest.raises(ValueError, match="0..6"):
        tile_index(a, b)


def test_r1_action_ids():
    """The action codec: 4 * tile + slot, draw 112, pass 113."""
    assert (DRAW, PASS, NUM_ACTIONS) == (112, 113, 114)
    assert parse_action("[3|5]@E") == 4 * 20 + 1 == 81
    assert action_name(81) == "[3|5]@E"
    assert parse_action("6|6@S") == 4 * 27 + 3
    assert (parse_action("draw"), parse_action("pass")) == (112, 113)
    assert decode(112) == ("draw", -1, -1) and decode(113) == ("pass", -1, -1)
    for action in range(112):
        assert parse_action(action_name(action)) == action
        assert encode(*decode(action)[1:]) == action


def test_r1_unchecked_id_helpers_and_their_compiled_twins():
    """tile_of / slot_of / placement_id (the codec's unchecked helpers) agree with decode and encode on every
    placement id, element-wise on arrays, and so do the kernels' compiled twins."""
    from allfives_env.compiled import rules as kernel

    ids = np.arange(DRAW)
    tiles, slots = tile_of(ids), slot_of(ids)
    for action in range(DRAW):
        _, tile, slot = decode(action)
        assert (tile_of(action), slot_of(action), placement_id(tile, slot)) == (tile, slot, action)
        assert (tiles[action], slots[action]) == (tile, slot)
        assert (kernel.tile_of(action), kernel.slot_of(action), kernel.placement_id(tile, slot)) == (tile, slot, action)
    assert (placement_id(tiles, slots) == ids).all()


# ------------------------------------------------------------------------ R2
def test_r2_turn_order_three_players():
    """R2: play passes clockwise, seat i is followed by (i + 1) % n; leader 1
    gives 1, 2, 0, 1. Each player is its own side and scores alone."""
    game = make_game(["1|5", "1|4 4|6", "4|4"], leader=1, num_players=3)
    play_rows(game, [
        (1, "[1|4]@W", 5, 5, [0, 5, 0]),
        (2, "[4|4]@E", 9, 0, [0, 5, 0]),    # 1 + 8
        (0, "[1|5]@W", 13, 0, [0, 5, 0]),   # 5 + 8
        (1, "[4|6]@E", 11, 0, [0, 5, 0]),   # 5 + 6 (the spinner [4|4] is inside now)
    ])


def test_r2_partnership_seat_2_scores_for_side_0():
    """R2: with 4 players seats 0 and 2 are side 0, seats 1 and 3 side 1, and
    partners share one score; leader 2 leads [1|4] (5) for side 0."""
    game = make_game(["", "", "1|4 2|4", "4|6 2|2"], leader=2, num_players=4)
    assert game.seat_side == (0, 1, 0, 1) and game.num_sides == 2
    play_rows(game, [
        (2, "[1|4]@W", 5, 5, [5, 0]),
        (3, "[4|6]@E", 7, 0, [5, 0]),      # 1 + 6
    ])
    assert game.to_move == 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_r2_sides_and_partners(num_players):
    """R2: two partnerships (0+2, 1+3) with 4 players, else every player a side of its own, no partner."""
    config = RulesConfig(num_players=num_players)
    assert sides_for(num_players) == config.num_sides == (2 if num_players == 4 else num_players)
    partners = [config.partner_of(seat) for seat in range(num_players)]
    assert partners == ([2, 3, 0, 1] if num_players == 4 else [None] * num_players)
    for seat, partner in enumerate(partners):
        if partner is not None:
            assert config.side_of(partner) == config.side_of(seat) and partner != seat


def test_r2_partnership_seat_3_scores_for_side_1():
    game = make_game(["", "", "", "0|5"], leader=3, num_players=4)
    play_rows(game, [(3, "[0|5]@W", 5, 5, [0, 5])])
    assert game.to_move == 0


# ------------------------------------------------------------------------ R3
@pytest.mark.parametrize("players, target", [(2, 250), (3, 200), (4, 200)])
def test_r3_default_targets(players, target):
    assert Game(RulesConfig(num_players=players)).target == target
    assert RulesConfig(num_players=players).target_points == target


def test_r3_target_ends_game_at_once_mid_hand():
    """R3: reaching the target in the middle of a hand ends the game at once:
    no further plays, no hand-end bonus, no hand result."""
    game = make_game(["1|4", "1|1"], scores=[245, 0])
    play_rows(game, [(0, "[1|4]@W", 5, 5, [250, 0])])
    assert game.game_over and game.hand_over
    assert game.winners == (0,)
    assert game.legal_actions() == []
    assert game.hand_result is None
    assert game.hand_size(0) == 8  # the hand did not go on


def test_r3_partnership_target_reached_by_seat_2():
    game = make_game(["", "", "1|4"], leader=2, num_players=4, scores=[195, 199.5])
    play_rows(game, [(2, "[1|4]@W", 5, 5, [200, 199.5])])
    assert game.game_over and game.winners == (0,)


def test_r3_score_below_target_continues():
    game = make_game(["1|4", "1|1"], scores=[244.5, 0])
    play_rows(game, [(0, "[1|4]@W", 5, 5, [249.5, 0])])
    assert not game.game_over and not game.hand_over and game.winners == ()


# ------------------------------------------------------------------ R4 / V1
@pytest.mark.parametrize("players, scheme, size", [
    (2, "standard", 9), (3, "standard", 7), (4, "standard", 5),
    (2, "five_each", 5), (3, "five_each", 5), (4, "five_each", 5),
    (2, "seven_five", 7), (3, "seven_five", 5), (4, "seven_five", 5),
])
def test_r4_v1_deal_sizes(players, scheme, size):
    """R4/V1: hand sizes per scheme and player count; the rest is the boneyard,
    every tile dealt exactly once."""
    config = RulesConfig(num_players=players, hand_size=scheme)
    assert config.tiles_per_hand == size
    game = Game(config)
    for seed in range(5):
        game.start_game(np.random.default_rng(seed))
        assert [game.hand_size(seat) for seat in range(players)] == [size] * players
        assert game.boneyard_left == 28 - players * size
        held = [t for seat in range(players) for t in range(28) if game.hands[seat] >> t & 1]
        assert sorted(held + list(game.boneyard)) == list(range(28))


# 2 players: seat 0 leads [6|6]; seat 1 holds nine tiles without a 6 and the
# ten boneyard tiles have no 6 either (21 tiles lack a 6: 2 of seat 0's, 9 of
# seat 1's and the 10 in the boneyard), so seat 1 must draw the whole boneyard
# one tile at a time, and then, with nothing fitting and seat 0 still able to
# play its six 6-tiles, pass as a step of its own (C3).
C3_HANDS = ["6|6 0|6 1|6 2|6 3|6 4|6 5|6 0|0 1|1", "0|1 0|2 0|3 0|4 0|5 1|2 1|3 1|4 1|5"]
C3_BONEYARD = "2|2 2|3 2|4 2|5 3|3 3|4 3|5 4|4 4|5 5|5"


def test_r4_r13_c1_c3_whole_boneyard_drawn_then_pass():
    """R4: every boneyard tile can be drawn (none held back). R13/C1: each draw
    is one step, the turn stays with the drawer. C3: the boneyard empties on an
    unplayable draw while the other player can play, so the drawer passes as a
    step of its own. R13: pass only then."""
    game = make_game(C3_HANDS, boneyard=C3_BONEYARD, fill=False)
    play_rows(game, [(0, "[6|6]@W", 12, 0, [0, 0])])
    for number, tile in enumerate(tiles(C3_BONEYARD)):
        assert game.legal_actions() == [DRAW], number  # nothing fits: draw, never pass
        assert game.boneyard_left == 10 - number
        game.step(DRAW)
        assert game.events[-1] == (1, DRAW, tile, 0, 12)
        assert game.to_move == 1 and game.must_play == -1 and not game.hand_over
        assert game.hand_size(1) == 10 + number
        assert game.step_gain == [0, 0]
    assert game.boneyard_left == 0
    assert game.legal_actions() == [PASS]  # C3: seat 0 can still play, no block
    assert not game.hand_over
    game.step(PASS)
    assert game.events[-1] == (1, PASS, -1, 0, 12)
    assert game.to_move == 0 and not game.hand_over and game.step_gain == [0, 0]
    # C4: the six 6-tiles each fit both straight sides of the lone spinner.
    expected = {f"[{a}|6]@{slot}" for a in range(6) for slot in "WE"}
    assert set(names(game.legal_actions())) == expected
    play_rows(game, [(0, "[5|6]@W", 17, 0, [0, 0])])  # 5 + spinner at an end 12
    # R12/R13: seat 1 now holds 5-tiles, so it must play one; no pass, no draw.
    legal = names(game.legal_actions())
    assert legal == sorted(f"[{t}]@W" for t in ("0|5", "1|5", "2|5", "3|5", "4|5", "5|5"))


# ------------------------------------------------------------------ R5 / V3
def _chi_square(counts):
    expected = sum(counts) / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_r5_first_leader_uniform(players):
    """R5: the first leader is a uniform draw over the seats (loose chi-square:
    the bound is far above the 99.9% point of the distribution, df <= 3)."""
    config = RulesConfig(num_players=players)
    rng = np.random.default_rng(2024 + players)
    counts = [0] * players
    for _ in range(4000):
        counts[draw_leader(config, rng)] += 1
    assert _chi_square(counts) < 25, counts
    game = Game(config)
    counts = [0] * players
    for seed in range(1200):
        game.start_game(np.random.default_rng(seed))
        counts[game.leader] += 1
        assert game.to_move == game.leader
    assert _chi_square(counts) < 25, counts


def test_r5_high_double_gives_no_right_to_lead():
    """R5: whoever holds [6|6] leads only about half the time with 2 players."""
    game = Game(RulesConfig(num_players=2))
    holder_leads = holders = 0
    six_six = tile_index(6, 6)
    for seed in range(1500):
        game.start_game(np.random.default_rng(seed))
        holder = [s for s in range(2) if game.hands[s] >> six_six & 1]
        if holder:
            holders += 1
            holder_leads += holder[0] == game.leader
    assert abs(holder_leads / holders - 0.5) < 0.06, (holder_leads, holders)


# Lightest to heaviest by hand: pips first; among equal pips the double, then
# the tile with the higher half.
V3_ORDER = ("00 01 02 11 12 03 13 04 22 23 14 05 24 15 06 33 34 25 16 "
            "35 26 44 45 36 46 55 56 66").split()


def test_v3_heaviness_order():
    order = sorted(range(28), key=heaviness)
    assert [tile_name(t) for t in order] == [f"[{x[0]}|{x[1]}]" for x in V3_ORDER]


class _FixedDraw:
    """A stand-in RNG whose permutation puts chosen tiles first (the V3 draw)."""

    def __init__(self, first):
        self.first = tiles(first)

    def permutation(self, n):
        return np.array(self.first + [t for t in range(n) if t not in self.first])


@pytest.mark.parametrize("drawn, leader", [
    ("2|4 3|3 0|6", 1),        # equal pips 6: the double wins
    ("1|5 0|6 2|4 0|0", 1),    # equal pips 6, no double: the higher half (6)
    ("4|5 3|6 4|4", 1),        # 9 vs 9 vs 8: [3|6] has the higher half
    ("0|0 6|6", 1),
    ("5|6 4|6 5|5", 0),        # 11 beats 10 and the double 10
    ("1|1 0|2", 0),            # 2 vs 2: the double
])
def test_v3_heaviest_tile_leads(drawn, leader):
    """V3: each seat draws a tile (here fixed), the heaviest leads."""
    config = RulesConfig(num_players=len(drawn.split()), first_leader="heaviest_tile")
    assert draw_leader(config, _FixedDraw(drawn)) == leader
    game = Game(config)
    size = config.tiles_per_hand
    hands = [list(range(seat * size, (seat + 1) * size)) for seat in range(config.num_players)]
    boneyard = list(range(config.num_players * size, 28))
    game.start_game(_FixedDraw(drawn), hands=hands, boneyard=boneyard)
    assert game.leader == leader and game.to_move == leader


def test_v3_heaviest_tile_leader_is_still_fair():
    """V3 over real draws: every seat is equally likely to draw the heaviest tile."""
    config = RulesConfig(num_players=4, first_leader="heaviest_tile")
    rng = np.random.default_rng(7)
    counts = [0] * 4
    for _ in range(4000):
        counts[draw_leader(config, rng)] += 1
    assert _chi_square(counts) < 25, counts


def test_v3_heaviest_tile_draw_goes_back_before_the_deal():
    """V3: the drawn tiles go back before the deal, so the leader holds [6|6] as often as any seat
    (5 of 28 tiles with 4 players: 0.179). Were the drawn tiles kept by who drew them, the leader
    would hold it whenever it was drawn, and more often overall (about 0.29)."""
    config = RulesConfig(num_players=4, first_leader="heaviest_tile")
    game = Game(config)
    six_six = tile_index(6, 6)
    holds = 0
    games = 3000
    for seed in range(games):
        game.start_game(np.random.default_rng(seed))
        dealt = [t for seat in range(4) for t in range(28) if game.hands[seat] >> t & 1]
        assert len(set(dealt)) == 4 * config.tiles_per_hand  # every hand full, no tile twice
        holds += game.hands[game.leader] >> six_six & 1
    assert abs(holds / games - 5 / 28) < 4 * (5 / 28 * 23 / 28 / games) ** 0.5, holds / games


# ------------------------------------------------------------------------ R6
def test_r6_lead_any_tile_at_w_only():
    """R6: the leader may lead any tile in hand, always at slot W."""
    game = make_game(["0|0 1|4 2|5 6|6 3|3 0|6 1|2 4|5 5|6", ""], fill=True)
    hand = tiles("0|0 1|4 2|5 6|6 3|3 0|6 1|2 4|5 5|6")
    assert game.is_lead
    assert game.legal_actions() == sorted(4 * t for t in hand)
    for t in hand:  # the lead's count: its pips (a lone double counts once)
        assert game.count_after(t, 0) == TILE_LOW[t] + TILE_HIGH[t]


# ---------------------------------------------------------------- R7 / R8
def test_r7_r8_lead_opens_w_low_e_high_and_arms_extend():
    """R8: [2|5] opens W = 2 and E = 5; R7: an attached tile's free half is the
    arm's new end; the arm grows outward."""
    game = make_game(["2|5 3|6 1|1 4|4 0|0 0|1 0|2 0|3 0|4",
                      "0|5 2|2 3|5 1|6 4|6 1|3 2|6 1|4 2|3"], fill=False,
                     boneyard="0|6 1|2 1|5 2|4 3|3 3|4 4|5 5|5 5|6 6|6")
    play_rows(game, [(0, "[2|5]@W", 7, 0, [0, 0])])
    assert game.open_value == [2, 5, -1, -1]
    # Seat 1 may attach by either half to the matching end, nowhere else.
    assert names(game.legal_actions()) == sorted([
        "[0|5]@E", "[2|2]@W", "[3|5]@E", "[2|6]@W", "[2|3]@W",
    ])
    play_rows(game, [(1, "[3|5]@E", 5, 5, [0, 5])])       # 2 + 3
    assert game.open_value == [2, 3, -1, -1]
    play_rows(game, [(0, "[0|2]@W", 3, 0, [0, 5])])       # 0 + 3
    play_rows(game, [(1, "[2|3]@E", 2, 0, [0, 5])])       # 0 + 2
    assert game.open_value == [0, 2, -1, -1]
    assert game.arms[0] == tiles("0|2") and game.arms[1] == tiles("3|5 2|3")
    assert game.lead_tile == tiles("2|5")[0]


def test_r8_double_lead_opens_both_sides_with_its_value():
    game = make_game(["2|2", ""])
    play_rows(game, [(0, "[2|2]@W", 4, 0, [0, 0])])
    assert game.open_value == [2, 2, -1, -1]


# ------------------------------------------------------------------------ R9
def test_r9_ordinary_double_counts_at_end_only_and_goes_straight():
    """R9: an ordinary double at an end counts both halves; once covered it
    counts nothing; it can only be continued straight (never N or S)."""
    game = make_game(["1|4 4|5 0|1", "1|1 4|4 5|6"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[1|1]@W", 6, 0, [5, 0]),
        (0, "[0|1]@W", 4, 0, [5, 0]),     # spinner inside: 0 + 4 (branches unstarted)
        (1, "[4|4]@E", 8, 0, [5, 0]),     # ordinary double at the E end: 0 + 8
    ])
    # N and S show the spinner's 1; the double [4|4] offers one new end only.
    assert game.open_value == [0, 4, 1, 1]
    assert placements(game, "4|5") == ["E"]
    play_rows(game, [(0, "[4|5]@E", 5, 5, [10, 0])])   # the double is inside: 0 + 5


def test_r9_r10_ordinary_double_never_opens_branches():
    """R9/R10: covering an ordinary double opens no side branches; covering the
    spinner does, with the spinner's value."""
    game = make_game(["1|4 4|4", "1|1 3|4"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[1|1]@W", 6, 0, [5, 0]),     # spinner at W
        (0, "[4|4]@E", 10, 10, [15, 0]),  # ordinary double at E: 2 + 8
        (1, "[3|4]@E", 5, 5, [15, 5]),    # covered: 2 + 3
    ])
    assert game.open_value == [1, 3, -1, -1]
    game2 = make_game(["1|4 3|4", "4|4 1|1"])
    play_rows(game2, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[4|4]@E", 9, 0, [5, 0]),     # [4|4] is the spinner here: 1 + 8
        (0, "[3|4]@E", 4, 0, [5, 0]),     # covered: 1 + 3, branches open (value 4)
        (1, "[1|1]@W", 5, 5, [5, 5]),     # ordinary double at W: 2 + 3 (N/S count 0)
    ])
    assert game2.open_value == [1, 3, 4, 4]
    assert game2.spinner_tile == tiles("4|4")[0]


# ----------------------------------------------------------------------- R10
def test_r10_attached_spinner_branches_only_after_covered():
    """R10: an attached spinner's side branches open only once a tile is
    attached beyond it; a play on the other arm does not open them."""
    game = make_game(["1|4 1|2 0|4", "4|4 4|6 2|2"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[4|4]@E", 9, 0, [5, 0]),     # spinner at the E end: 1 + 8
        (0, "[1|2]@W", 10, 10, [15, 0]),  # the other arm: 2 + 8, still no branches
    ])
    assert game.open_value[2:] == [-1, -1]
    assert not any(n.endswith(("@N", "@S")) for n in names(game.legal_actions()))
    play_rows(game, [(1, "[4|6]@E", 8, 0, [15, 0])])      # beyond the spinner: 2 + 6
    assert game.open_value == [2, 6, 4, 4]
    assert "[0|4]@N" in names(game.legal_actions()) and "[0|4]@S" in names(game.legal_actions())


def test_r10_only_the_first_double_is_the_spinner():
    game = make_game(["3|3 1|1", "1|3 2|2"])
    play_rows(game, [
        (0, "[3|3]@W", 6, 0, [0, 0]),
        (1, "[1|3]@W", 7, 0, [0, 0]),      # 1 + spinner at an end 6
        (0, "[1|1]@W", 8, 0, [0, 0]),      # ordinary double at W: 2 + 6
    ])
    assert game.spinner_tile == tiles("3|3")[0]
    assert game.open_value[2:] == [-1, -1]


# ----------------------------------------------------------------------- R11
def test_r11_c4_branches_after_both_straight_sides_and_both_stay():
    """R11: N/S only after both straight sides are occupied; then both are
    available and the second stays available after the first is started.
    C4: equal open values are different places."""
    game = make_game(["3|3 1|3 3|6", "3|5 3|4"])
    play_rows(game, [(0, "[3|3]@W", 6, 0, [0, 0])])
    assert placements(game, "3|5") == ["E", "W"] and placements(game, "3|4") == ["E", "W"]
    play_rows(game, [(1, "[3|5]@W", 11, 0, [0, 0])])
    assert game.open_value == [5, 3, -1, -1]
    assert placements(game, "3|6") == ["E"]  # no N/S yet: only one straight side taken
    play_rows(game, [(0, "[1|3]@E", 6, 0, [0, 0])])
    assert game.open_value == [5, 1, 3, 3]
    assert placements(game, "3|4") == ["N", "S"]
    play_rows(game, [(1, "[3|4]@S", 10, 10, [0, 10])])
    assert game.open_value == [5, 1, 3, 4]
    assert placements(game, "3|6") == ["N"]  # N is still available
    play_rows(game, [(0, "[3|6]@N", 16, 0, [0, 10])])


# ---------------------------------------------------------------- R12 / R13
# 4 players: seat 0 leads [6|6]; seat 1 holds no 6; the boneyard's first three
# tiles have no 6 and the fourth is [5|6]. Seat 1 must draw three unplayable
# tiles one at a time, then must play the drawn [5|6] at once, at W or E (C4).
R13_HANDS = ["6|6 0|6 1|6 2|6 3|6", "0|0 0|2 0|3 0|4 0|5",
             "4|6 1|1 1|3 1|4 1|5", "2|2 2|4 2|5 3|3 3|4"]
R13_BONEYARD = "0|1 1|2 2|3 5|6 3|5 4|4 4|5 5|5"


def test_r13_forced_draw_until_playable_then_must_play_that_tile():
    game = make_game(R13_HANDS, boneyard=R13_BONEYARD, num_players=4, fill=False)
    play_rows(game, [
        (0, "[6|6]@W", 12, 0, [0, 0]),
        (1, "draw [0|1]", 12, 0, [0, 0]),
        (1, "draw [1|2]", 12, 0, [0, 0]),
        (1, "draw [2|3]", 12, 0, [0, 0]),
        (1, "draw [5|6]", 12, 0, [0, 0]),
    ])
    assert game.must_play == tiles("5|6")[0]
    assert names(game.legal_actions()) == ["[5|6]@E", "[5|6]@W"]  # no further draw
    assert game.boneyard_left == 4 and game.hand_size(1) == 9
    play_rows(game, [(1, "[5|6]@E", 17, 0, [0, 0])])   # 5 + spinner at an end 12
    assert game.must_play == -1
    # R12: seat 2 can play, so it must: no draw although the boneyard is not empty.
    assert names(game.legal_actions()) == ["[1|5]@E", "[4|6]@W"]


def test_r12_no_draw_or_pass_when_a_play_exists():
    game = make_game(["1|4", "4|6"])
    play_rows(game, [(0, "[1|4]@W", 5, 5, [5, 0])])
    legal = game.legal_actions()
    assert DRAW not in legal and PASS not in legal and game.boneyard_left == 10
    assert game.can_play(1)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_r12_can_play_is_whether_the_mover_has_a_placement(num_players):
    """Game.can_play(seat) (any held tile fits an open end; any tile leads, R6) agrees with the legal
    actions at every decision of seeded random games: a draw or a pass exactly when the mover cannot play."""
    rng = np.random.default_rng(num_players)
    game, checked = Game(RulesConfig(num_players=num_players)), 0
    game.start_game(rng)
    while not game.game_over and checked < 400:
        if game.hand_over:
            game.start_next_hand(rng)
            continue
        legal = game.legal_actions()
        if game.must_play < 0:  # after a draw only the drawn tile may be played (R13)
            assert game.can_play(game.to_move) == (legal[0] < DRAW)
            checked += 1
        game.step(legal[int(rng.integers(len(legal)))])
    assert checked >= 100
