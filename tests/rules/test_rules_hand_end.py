"""Hand ends and game ends: domino, block, bonuses, rounding, target, next
leader and the V2/V4 variants (R3, R17-R25, C2, C5, C6, V2, V4).

The blocked hands below are built by hand. A block needs an empty boneyard
and open ends whose suits are all in the layout. With all ends showing one
value v, the seven v-tiles must all be played; each [v|x] (x != v) needs a
non-v tile on its x half, and one connector tile can serve two of them, so
the smallest blocked layout has 7 + 3 = 10 tiles: three loops
[v|x][x|y][y|v] plus [v|v]. Draws are forced by giving the player to move no
tile of any open suit; the tile it needs comes next in the boneyard.
"""

import numpy as np
import pytest
from rules_testkit import make_game, play_rows, tiles
from test_rules_golden import (
    DOMINO_2P_HANDS,
    DOMINO_2P_ROWS,
    DOMINO_3P_HANDS,
    DOMINO_3P_ROWS,
    DOMINO_4P_HANDS,
    DOMINO_4P_ROWS,
)

from allfives_env.rules import RulesConfig, hand_end_points, points_for_count, round5


# ------------------------------------------------------------- R20 / R15 units
@pytest.mark.parametrize("x, expected", [
    (0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 10), (9, 10),
    (10, 10), (12, 10), (13, 15), (14, 15), (15, 15), (47, 45), (48, 50), (94, 95), (126, 125),
])
def test_r20_round5_table(x, expected):
    """R20: remainders 1-2 round down, 3-4 round up (7 -> 5, 8 -> 10, 12 -> 10, 13 -> 15, 0 -> 0)."""
    assert round5(x) == expected


@pytest.mark.parametrize("count, divisor, points", [
    (0, 5, 0), (5, 5, 5), (15, 5, 15), (35, 5, 35), (36, 5, 0), (9, 5, 0), (10, 5, 10),
    (0, 3, 0), (9, 3, 9), (10, 3, 0), (36, 3, 36), (3, 3, 3), (4, 3, 0),
])
def test_r15_v5_points_for_count(count, divisor, points):
    """R15: a positive multiple of the divisor scores exactly the count, else 0; V5 divisor 3."""
    assert points_for_count(count, divisor) == points


@pytest.mark.parametrize("lead, divisor, count, points", [
    ("4|5", 3, 9, 9), ("4|6", 3, 10, 0), ("4|6", 5, 10, 10), ("4|5", 5, 9, 0),
    ("0|0", 3, 0, 0), ("3|3", 3, 6, 6), ("0|5", 5, 5, 5),
])
def test_v5_r14_lead_counts_with_divisor(lead, divisor, count, points):
    """V5: a count of 9 scores 9 with divisor 3 and 10 scores nothing; R14 zero ends count."""
    game = make_game([lead, ""], divisor=divisor)
    play_rows(game, [(0, f"[{lead}]@W", count, points, [points, 0])])


# -------------------------------------------------- hand_end_points by hand
def _points(players, seat_pips, domino_seat, **options):
    config = RulesConfig(num_players=players, **options)
    return hand_end_points(config, seat_pips, domino_seat)


def test_r23_r24_split_five_into_halves():
    """R23/R24: exactly two tie lowest (2, 2); the third's 5 -> 5 split 2.5 each, kept exactly."""
    assert _points(3, [2, 2, 5], None) == ([2.5, 2.5, 0.0], None)
    assert _points(3, [7, 3, 3], None) == ([0.0, 2.5, 2.5], None)    # round5(7) = 5
    assert _points(3, [4, 9, 4], None) == ([5.0, 0.0, 5.0], None)    # round5(9) = 10


def test_r23_three_way_tie_no_bonus():
    assert _points(3, [6, 6, 6], None) == ([0.0, 0.0, 0.0], None)


def test_r22_tied_block_two_and_four_players():
    assert _points(2, [13, 13], None) == ([0.0, 0.0], None)
    assert _points(4, [10, 3, 0, 7], None) == ([0.0, 0.0], None)    # 10 + 0 = 3 + 7


def test_r18_r21_block_single_winner():
    assert _points(2, [8, 23], None) == ([25.0, 0.0], 0)            # round5(23) = 25
    assert _points(3, [9, 4, 9], None) == ([0.0, 20.0, 0.0], 1)     # 9 + 9 = 18 -> 20, once
    assert _points(4, [1, 3, 1, 9], None) == ([10.0, 0.0], 0)       # side 0: 2 < 12 -> 10


def test_r17_r21_domino_units():
    assert _points(3, [0, 3, 3], 0) == ([5.0, 0.0, 0.0], 0)         # 6 -> 5 (each alone: 10)
    assert _points(4, [7, 0, 11, 1], 1) == ([0.0, 20.0], 1)         # 7 + 11 = 18 -> 20
    assert _points(4, [0, 7, 11, 1], 0) == ([10.0, 0.0], 0)         # partner's 11 not counted


def test_v4_units():
    """V4: bonus_net = round5(opponents - own), never below zero; penalty: every
    player pays round5 of its own pips, domino or block."""
    assert _points(2, [8, 23], None, hand_scoring="bonus_net") == ([15.0, 0.0], 0)
    assert _points(4, [0, 7, 11, 1], 0, hand_scoring="bonus_net") == ([0.0, 0.0], 0)  # 8 - 11 < 0
    assert _points(3, [0, 7, 6], 0, hand_scoring="penalty") == ([0.0, -5.0, -5.0], 0)
    assert _points(4, [0, 7, 11, 1], 0, hand_scoring="penalty") == ([-10.0, -5.0], 0)  # 5 + 0, not round5(8)
    assert _points(2, [13, 13], None, hand_scoring="penalty") == ([-15.0, -15.0], None)


# ---------------------------------------------------------------- dominoes
DOMINO_2P_LAST = (0, "[0|4]@E", 10, 10)


def _domino_2p(last_tile="6|6", **options):
    return make_game([DOMINO_2P_HANDS[0], DOMINO_2P_HANDS[1] + " " + last_tile],
                     hand_size="five_each", **options)


def test_r19_dominoer_leads_next_hand():
    """R19: the player who dominoed leads the next hand."""
    game = _domino_2p()
    play_rows(game, DOMINO_2P_ROWS + [DOMINO_2P_LAST + ([35, 0],)])
    assert game.next_leader == 0
    assert [game.next_hand_leader(drawn) for drawn in (0, 1)] == [0, 0]  # whoever a new deal would draw
    for seed in range(20):
        clone = game.clone()
        clone.start_next_hand(np.random.default_rng(seed))
        assert clone.leader == 0 and clone.to_move == 0 and clone.hand_number == 1
        assert clone.scores == [35, 0] and clone.is_lead and clone.count == 0


def test_c5_target_reached_by_the_domino_play_no_bonus():
    """C5/R3: the last tile's count reaches the target: the game ends at once,
    before the domino check, so no bonus is paid and there is no hand result."""
    game = _domino_2p(scores=[225, 0])
    play_rows(game, [(s, a, c, p, [225 + sc[0], sc[1]]) for s, a, c, p, sc in DOMINO_2P_ROWS])
    play_rows(game, [DOMINO_2P_LAST + ([250, 0],)])
    assert game.game_over and game.winners == (0,) and game.hand_result is None


def test_r25_target_reached_by_the_bonus():
    """R25: the bonus itself can reach the target; the game then ends."""
    game = _domino_2p(scores=[215, 0])
    play_rows(game, [(s, a, c, p, [215 + sc[0], sc[1]]) for s, a, c, p, sc in DOMINO_2P_ROWS])
    play_rows(game, [DOMINO_2P_LAST + ([250, 0],)])  # 240 after the play, + 10 bonus
    assert game.game_over and game.winners == (0,)
    assert game.hand_result.kind == "domino" and game.hand_result.points == (10, 0)


@pytest.mark.parametrize("target, over_at_row", [(15, 7), (20, 9), (25, 9), (35, None), (36, None)])
def test_v2_custom_target(target, over_at_row):
    """V2: any positive target. Seat 0's running score is 5 (row 3), 15 (row 7),
    25 (row 9, the domino play); the bonus of 10 then makes 35. A target reached
    by a play ends the game at once (no bonus, no hand result)."""
    game = _domino_2p(target=target)
    assert game.target == target
    if over_at_row is not None:
        rows = DOMINO_2P_ROWS + [DOMINO_2P_LAST + ([25, 0],)]
        play_rows(game, rows[:over_at_row])
        assert game.game_over and game.winners == (0,) and game.hand_result is None
        assert game.scores[0] == rows[over_at_row - 1][4][0]
    else:
        play_rows(game, DOMINO_2P_ROWS + [DOMINO_2P_LAST + ([35, 0],)])
        assert game.hand_result.kind == "domino"
        assert game.game_over == (target <= 35) and game.winners == ((0,) if target <= 35 else ())


def test_v4_penalty_on_domino_2p():
    """V4 penalty: no bonus; the loser pays round5(12) = 10."""
    game = _domino_2p(hand_scoring="penalty")
    play_rows(game, DOMINO_2P_ROWS + [DOMINO_2P_LAST + ([25, -10],)])
    assert game.hand_result.points == (0, -10) and game.hand_result.winner == 0


def test_v4_bonus_net_on_domino_2p():
    game = _domino_2p(hand_scoring="bonus_net")
    play_rows(game, DOMINO_2P_ROWS + [DOMINO_2P_LAST + ([35, 0],)])  # 12 - 0 -> 10


def test_v4_penalty_on_domino_3p_each_player_rounded():
    """V4 penalty, 3 players: seat 1 pays round5(2) = 0, seat 2 round5(6) = 5."""
    game = make_game(DOMINO_3P_HANDS, num_players=3, hand_size="five_each", fill=False,
                     boneyard=_rest(DOMINO_3P_HANDS), hand_scoring="penalty")
    play_rows(game, DOMINO_3P_ROWS + [(0, "[1|2]@W", 18, 0, [30, 25, -5])])


def test_v4_on_domino_4p():
    """V4, 4 players. penalty: side 0 pays seat 2's round5(11) = 10; side 1 pays
    round5(7) + round5(1) = 5 (per player, not round5(8) = 10). bonus_net: the
    opponents' 8 minus the side's own 11 is negative, so 0."""
    game = make_game(DOMINO_4P_HANDS, num_players=4, fill=False, boneyard=_rest(DOMINO_4P_HANDS),
                     hand_scoring="penalty")
    play_rows(game, DOMINO_4P_ROWS + [(0, "[1|5]@S", 11, 0, [15, 55])])
    game = make_game(DOMINO_4P_HANDS, num_players=4, fill=False, boneyard=_rest(DOMINO_4P_HANDS),
                     hand_scoring="bonus_net")
    play_rows(game, DOMINO_4P_ROWS + [(0, "[1|5]@S", 11, 0, [25, 60])])


# ------------------------------------------------------------ 2-player block
# v = 0. Layout (plays alternate seat 0, seat 1):
#   P1 s0 [0|1] lead W0 E1 (1)      P2 s1 [1|2]@E E2 (2)
#   P3 s0 [0|2]@E E0 (0)            P4 s1 [0|3]@W W3 (3)   ends were 0/0: C4
#   P5 s0 [3|4]@W W4 (4)            P6 s1 [0|4]@W W0 (0)
#   P7 s0 [0|5]@E E5 (5, scores)    P8 s1 [5|6]@E E6 (6)
#   P9 s0 [0|6]@E E0 (0)            P10 s1 [0|0]@W W0 double (0)
# After P10 all seven 0-tiles are down and both ends show 0: nobody can play.
# Seat 1 holds no 0-tile, so at P4 (ends 0/0) it draws [0|3]; at P6 (ends
# 4/0) it holds no 4 either, draws one unplayable tile, then [0|4]; at P10 it
# draws one unplayable tile, then [0|0]. Seat 0 holds no 0- or 6-tile at P9
# (ends 0/6) and draws four unplayable tiles, then [0|6]. The boneyard (10)
# is empty after P10, so the hand blocks on that play.
# The 18 tiles left hold 126 pips. In the tie deal each side keeps 63:
#   seat 0: [1|4]5 [2|4]6 [4|4]8 [4|5]9 [1|5]6 + drawn [2|3]5 [3|3]6 [3|5]8 [5|5]10 = 63
#   seat 1: [1|6]7 [2|6]8 [3|6]9 [6|6]12 [1|1]2 [1|3]4 [2|2]4 + drawn [2|5]7 [4|6]10 = 63
BLOCK_2P_S0 = "0|1 0|2 3|4 0|5 1|4 2|4 4|4 4|5 1|5"
BLOCK_2P_S1 = "1|2 5|6 1|6 2|6 3|6 6|6 {a} 1|3 2|2"
BLOCK_2P_BONES = "0|3 {b} 0|4 {c} 3|3 3|5 {d} 0|6 {e} {f}"


def _block_2p_rows(final_scores, b="2|5", c="2|3", d="5|5", e="4|6", f="0|0"):
    rows = [
        (0, "[0|1]@W", 1, 0, [0, 0]),
        (1, "[1|2]@E", 2, 0, [0, 0]),
        (0, "[0|2]@E", 0, 0, [0, 0]),
        (1, "draw [0|3]", 0, 0, [0, 0]),
        (1, "[0|3]@W", 3, 0, [0, 0]),
        (0, "[3|4]@W", 4, 0, [0, 0]),
        (1, f"draw [{b}]", 4, 0, [0, 0]),
        (1, "draw [0|4]", 4, 0, [0, 0]),
        (1, "[0|4]@W", 0, 0, [0, 0]),
        (0, "[0|5]@E", 5, 5, [5, 0]),
        (1, "[5|6]@E", 6, 0, [5, 0]),
        (0, f"draw [{c}]", 6, 0, [5, 0]),
        (0, "draw [3|3]", 6, 0, [5, 0]),
        (0, "draw [3|5]", 6, 0, [5, 0]),
        (0, f"draw [{d}]", 6, 0, [5, 0]),
        (0, "draw [0|6]", 6, 0, [5, 0]),
        (0, "[0|6]@E", 0, 0, [5, 0]),
        (1, f"draw [{e}]", 0, 0, [5, 0]),
        (1, f"draw [{f}]", 0, 0, [5, 0]),
    ]
    return rows, (1, "[0|0]@W", 0, 0, final_scores)


def _block_2p(a="1|1", b="2|5", c="2|3", d="5|5", e="4|6", f="0|0", **options):
    return make_game([BLOCK_2P_S0, BLOCK_2P_S1.format(a=a)], fill=False,
                     boneyard=BLOCK_2P_BONES.format(b=b, c=c, d=d, e=e, f=f), **options)


def test_r18_r22_c6_two_player_tied_block():
    """R18/R22: blocked with 63 pips each (drawn tiles included, C6): no bonus.
    R19: after a block there is no fixed next leader."""
    game = _block_2p()
    rows, last = _block_2p_rows([5, 0])
    play_rows(game, rows + [last])
    result = game.hand_result
    assert game.hand_over and not game.game_over
    assert (result.kind, result.winner, result.points, result.seat_pips) == ("block", None, (0, 0), (63, 63))
    assert game.boneyard_left == 0 and game.next_leader is None
    assert [game.next_hand_leader(drawn) for drawn in (0, 1)] == [0, 1]  # the leader drawn as a new game draws it


def test_r18_r21_two_player_block_seat_0_lowest():
    """R18: [5|5] and [1|1] trade places: seat 0 keeps 55, seat 1 71. Seat 0
    wins the block and R21 pays round5(71) = 70 on seat 1's blocking play."""
    game = _block_2p(a="5|5", d="1|1")
    rows, last = _block_2p_rows([75, 0], d="1|1")
    play_rows(game, rows + [last])
    result = game.hand_result
    assert (result.kind, result.winner, result.points, result.seat_pips) == ("block", 0, (70, 0), (55, 71))


def test_r18_r21_two_player_block_seat_1_lowest():
    """[2|5] and [2|3] trade places: seat 0 keeps 65, seat 1 61; round5(65) = 65 to seat 1."""
    game = _block_2p(b="2|3", c="2|5")
    rows, last = _block_2p_rows([5, 65], b="2|3", c="2|5")
    play_rows(game, rows + [last])
    assert game.hand_result.winner == 1 and game.hand_result.seat_pips == (65, 61)


def test_v4_bonus_net_and_penalty_on_two_player_block():
    """V4 on the 55 / 71 block: bonus_net round5(71 - 55) = 15; penalty:
    seat 0 pays round5(55) = 55, seat 1 round5(71) = 70; tie: both pay 65."""
    game = _block_2p(a="5|5", d="1|1", hand_scoring="bonus_net")
    rows, last = _block_2p_rows([20, 0], d="1|1")
    play_rows(game, rows + [last])
    game = _block_2p(a="5|5", d="1|1", hand_scoring="penalty")
    rows, last = _block_2p_rows([-50, -70], d="1|1")
    play_rows(game, rows + [last])
    game = _block_2p(hand_scoring="penalty")
    rows, last = _block_2p_rows([-60, -65])
    play_rows(game, rows + [last])
    assert game.hand_result.winner is None


def test_c2_c6_block_on_a_draw_with_bonus_on_that_step():
    """C2: the boneyard's last two tiles swapped: seat 1 gets [0|0] at once and
    plays it, one tile ([4|6]) stays. Seat 0 cannot play, draws it, cannot play
    it, and nobody else can: the hand ends on that draw. C6: the drawn [4|6]
    counts for seat 0 (63 + 10 = 73 vs 53), so seat 1 wins and the bonus
    round5(73) = 75 belongs to seat 0's draw step."""
    game = _block_2p(e="0|0", f="4|6")
    rows, _ = _block_2p_rows([5, 0], e="0|0", f="4|6")
    rows = rows[:-1] + [(1, "[0|0]@W", 0, 0, [5, 0])]
    play_rows(game, rows)
    assert not game.hand_over and game.boneyard_left == 1
    play_rows(game, [(0, "draw [4|6]", 0, 0, [5, 75])])
    result = game.hand_result
    assert game.hand_over and game.legal_actions() == []
    assert (result.kind, result.winner, result.points, result.seat_pips) == ("block", 1, (0, 75), (73, 53))


def test_r19_after_block_next_leader_is_random():
    """R19/R5: after a block the next leader is drawn at random."""
    game = _block_2p()
    rows, last = _block_2p_rows([5, 0])
    play_rows(game, rows + [last])
    counts = [0, 0]
    for seed in range(400):
        clone = game.clone()
        clone.start_next_hand(np.random.default_rng(seed))
        counts[clone.leader] += 1
        assert clone.to_move == clone.leader and clone.hand_number == 1
    assert 150 < counts[0] < 250, counts


# ------------------------------------------------------------ 3-player block
# v = 6 (heavy tiles played, light ones left: the 18 left hold 90 pips).
# Layout, seats 0, 1, 2 in turn:
#   P1 s0 [5|6] lead W5 E6 (11)     P2 s1 [4|5]@W W4 (10, scores)
#   P3 s2 [4|6]@W W6 (12)           P4 s0 [3|6]@E E3 (9)
#   P5 s1 [2|3]@E E2 (8)            P6 s2 [2|6]@E E6 (12)
#   P7 s0 [1|6]@W W1 (7)            P8 s1 [0|1]@W W0 (6)
#   P9 s2 [0|6]@W W6 (12)           P10 s0 [6|6]@E E6 double (6 + 12 = 18)
# Seat 0 holds no 6 after its lead; at P4, P7 and P10 (ends 6/6) it draws one
# unplayable tile and then the 6-tile it plays. After P10 all seven 6-tiles
# are down; one tile is left in the boneyard; seat 1 must draw it, cannot
# play it, nobody can: the hand blocks on that draw (C2).
BLOCK_3P_ROWS_HEAD = [
    (0, "[5|6]@W", 11, 0, [0, 0, 0]),
    (1, "[4|5]@W", 10, 10, [0, 10, 0]),
    (2, "[4|6]@W", 12, 0, [0, 10, 0]),
    (0, "draw [1|4]", 12, 0, [0, 10, 0]),
    (0, "draw [3|6]", 12, 0, [0, 10, 0]),
    (0, "[3|6]@E", 9, 0, [0, 10, 0]),
    (1, "[2|3]@E", 8, 0, [0, 10, 0]),
    (2, "[2|6]@E", 12, 0, [0, 10, 0]),
    (0, "draw [2|2]", 12, 0, [0, 10, 0]),
    (0, "draw [1|6]", 12, 0, [0, 10, 0]),
    (0, "[1|6]@W", 7, 0, [0, 10, 0]),
    (1, "[0|1]@W", 6, 0, [0, 10, 0]),
    (2, "[0|6]@W", 12, 0, [0, 10, 0]),
    (0, "draw [3|3]", 12, 0, [0, 10, 0]),
    (0, "draw [6|6]", 12, 0, [0, 10, 0]),
    (0, "[6|6]@E", 18, 0, [0, 10, 0]),
]


def _block_3p_rows(start, last_tile, final):
    rows = [(s, a, c, p, [x + y for x, y in zip(start, sc)]) for s, a, c, p, sc in BLOCK_3P_ROWS_HEAD]
    return rows + [(1, f"draw [{last_tile}]", 18, 0, final)]


# Exactly two tie: seat 1 = [3|4]7 [2|5]7 [1|5]6 [2|4]6 + drawn [0|2]2 = 28;
# seat 2 = [5|5]10 [4|4]8 [3|5]8 [1|1]2 = 28; seat 0 = [0|0]0 [0|3]3 [0|4]4
# [0|5]5 [1|2]3 [1|3]4 + drawn [1|4]5 [2|2]4 [3|3]6 = 34 -> round5 35, split
# 17.5 each (R23, R24).
SPLIT_3P_HANDS = ["5|6 0|0 0|3 0|4 0|5 1|2 1|3", "4|5 2|3 0|1 3|4 2|5 1|5 2|4",
                  "4|6 2|6 0|6 5|5 4|4 3|5 1|1"]
SPLIT_3P_BONES = "1|4 3|6 2|2 1|6 3|3 6|6 0|2"
# Three-way tie: seat 0 = [0|0]0 [0|2]2 [0|3]3 [0|5]5 [1|1]2 [1|2]3 + drawn
# [1|4]5 [2|2]4 [3|3]6 = 30; seat 1 = 7 + 7 + 6 + 6 + drawn [1|3]4 = 30;
# seat 2 = [5|5]10 [4|4]8 [3|5]8 [0|4]4 = 30.
TIE3_3P_HANDS = ["5|6 0|0 0|2 0|3 0|5 1|1 1|2", "4|5 2|3 0|1 3|4 2|5 1|5 2|4",
                 "4|6 2|6 0|6 5|5 4|4 3|5 0|4"]
TIE3_3P_BONES = "1|4 3|6 2|2 1|6 3|3 6|6 1|3"


def _block_3p(hands, bones, scores=None, **options):
    return make_game(hands, boneyard=bones, num_players=3, fill=False, scores=scores, **options)


def test_r23_r24_c2_three_player_block_two_tie_split_half_points():
    game = _block_3p(SPLIT_3P_HANDS, SPLIT_3P_BONES)
    play_rows(game, _block_3p_rows([0, 0, 0], "0|2", [0, 27.5, 17.5]))
    result = game.hand_result
    assert (result.kind, result.winner, result.points, result.seat_pips) == (
        "block", None, (0, 17.5, 17.5), (34, 28, 28))
    assert game.scores == [0.0, 27.5, 17.5] and not game.game_over  # R24: halves kept exactly
    assert game.next_leader is None


def test_r23_three_player_three_way_tie_no_bonus():
    game = _block_3p(TIE3_3P_HANDS, TIE3_3P_BONES)
    play_rows(game, _block_3p_rows([0, 0, 0], "1|3", [0, 10, 0]))
    assert game.hand_result.seat_pips == (30, 30, 30)
    assert game.hand_result.points == (0, 0, 0) and game.hand_result.winner is None


@pytest.mark.parametrize("start, final, winners", [
    ([0, 175, 185], [0, 202.5, 202.5], (1, 2)),     # equal: drawn between them
    ([0, 176, 185], [0, 203.5, 202.5], (1,)),       # higher wins
    ([0, 170, 185], [0, 197.5, 202.5], (2,)),       # only one reaches
    ([199.5, 170, 175], [199.5, 197.5, 192.5], ()),  # nobody reaches
])
def test_r25_split_bonus_reaching_the_target(start, final, winners):
    """R25: the split (17.5 each) takes tied players to 200; the higher score
    wins; equal scores draw the game between them (winners has both sides)."""
    game = _block_3p(SPLIT_3P_HANDS, SPLIT_3P_BONES, scores=start)
    play_rows(game, _block_3p_rows(start, "0|2", final))
    assert game.winners == winners
    assert game.game_over == bool(winners)


# ------------------------------------------------------------ 4-player block
# The same v = 6 layout, seats 0, 1, 2, 3 in turn:
#   P1 s0 [5|6] (11)  P2 s1 [4|5]@W (10, side 1)  P3 s2 [4|6]@W (12)
#   P4 s3 [3|6]@E (9) P5 s0 [2|3]@E (8)            P6 s1 [2|6]@E (12)
#   P7 s2 draws one, then [1|6]@W (7)    P8 s3 draws one, then [0|1]@W (6)
#   P9 s0 draws one, then [0|6]@W (12)   P10 s1 draws one, then [6|6]@E (18)
# Seat 2 holds no 6 at P7; seat 3 no 1 or 6 at P8; seat 0 no 0 or 6 at P9;
# seat 1 no 6 at P10. The 8-tile boneyard is empty after P10: block.
# Tie deal: seat 0 [1|1]2 [1|2]3 [1|3]4 + [1|5]6 = 15; seat 2 [2|2]4 [2|4]6
# [2|5]7 [3|3]6 + [3|4]7 = 30 -> side 0 45; seat 1 [5|5]10 [3|5]8 [4|4]8 +
# [1|4]5 = 31; seat 3 [0|0]0 [0|2]2 [0|3]3 [0|4]4 + [0|5]5 = 14 -> side 1 45.
BLOCK_4P_HANDS = ["5|6 2|3 1|1 1|2 1|3", "4|5 2|6 5|5 3|5 4|4",
                  "4|6 2|2 2|4 2|5 3|3", "3|6 0|0 0|2 0|3 0|4"]
BLOCK_4P_BONES = "{a} 1|6 0|5 0|1 1|5 0|6 {d} 6|6"


def _block_4p_rows(a, d, final):
    return [
        (0, "[5|6]@W", 11, 0, [0, 0]),
        (1, "[4|5]@W", 10, 10, [0, 10]),
        (2, "[4|6]@W", 12, 0, [0, 10]),
        (3, "[3|6]@E", 9, 0, [0, 10]),
        (0, "[2|3]@E", 8, 0, [0, 10]),
        (1, "[2|6]@E", 12, 0, [0, 10]),
        (2, f"draw [{a}]", 12, 0, [0, 10]),
        (2, "draw [1|6]", 12, 0, [0, 10]),
        (2, "[1|6]@W", 7, 0, [0, 10]),
        (3, "draw [0|5]", 7, 0, [0, 10]),
        (3, "draw [0|1]", 7, 0, [0, 10]),
        (3, "[0|1]@W", 6, 0, [0, 10]),
        (0, "draw [1|5]", 6, 0, [0, 10]),
        (0, "draw [0|6]", 6, 0, [0, 10]),
        (0, "[0|6]@W", 12, 0, [0, 10]),
        (1, f"draw [{d}]", 12, 0, [0, 10]),
        (1, "draw [6|6]", 12, 0, [0, 10]),
        (1, "[6|6]@E", 18, 0, final),
    ]


def _block_4p(a, d, **options):
    return make_game(BLOCK_4P_HANDS, boneyard=BLOCK_4P_BONES.format(a=a, d=d), num_players=4,
                     fill=False, **options)


def test_r22_four_player_tied_block_partnership_totals():
    """R18/R22: sides tie at 45 (seat 3 alone is lowest with 14): no bonus."""
    game = _block_4p("3|4", "1|4")
    play_rows(game, _block_4p_rows("3|4", "1|4", [0, 10]))
    result = game.hand_result
    assert (result.kind, result.winner, result.points, result.seat_pips) == ("block", None, (0, 0), (15, 31, 30, 14))


def test_r18_four_player_block_won_by_partnership_total():
    """R18: [3|4] and [1|4] trade places: side 0 keeps 15 + 28 = 43, side 1
    33 + 14 = 47. Side 0 wins although seat 3 (side 1) holds the fewest pips;
    R21 pays round5(47) = 45."""
    game = _block_4p("1|4", "3|4")
    play_rows(game, _block_4p_rows("1|4", "3|4", [45, 10]))
    result = game.hand_result
    assert (result.winner, result.points, result.seat_pips) == (0, (45, 0), (15, 33, 28, 14))


def test_v4_four_player_block_variants():
    """V4: bonus_net round5(47 - 43) = 5; penalty: side 0 pays 15 + 30 = 45,
    side 1 pays round5(33) + round5(14) = 35 + 15 = 50 (per player)."""
    game = _block_4p("1|4", "3|4", hand_scoring="bonus_net")
    play_rows(game, _block_4p_rows("1|4", "3|4", [5, 10]))
    game = _block_4p("1|4", "3|4", hand_scoring="penalty")
    play_rows(game, _block_4p_rows("1|4", "3|4", [-45, -40]))


def _rest(hands):
    used = set(tiles(" ".join(hands)))
    return [t for t in range(28) if t not in used]
