"""Golden move tables: the four R16 worked examples plus hand-worked whole
hands (R14, R15, R11, R17, R21, R2, V5).

Every row is (seat, action, count after the step, points of the play, every
side's score after the step). The counts were worked out by hand from the
layout; see the comments. Unnamed tiles of a hand are filler (the lowest
unused tile ids); no row depends on them.
"""

import pytest
from rules_testkit import make_game, names, play_rows, tiles


# ----------------------------------------------------------------- R16 examples
def test_r16_example_1_lead_1_4_scores_5():
    """R16/R14/R6: lead [1|4] alone counts 4 + 1 = 5 and scores 5."""
    game = make_game(["1|4", ""])
    play_rows(game, [(0, "[1|4]@W", 5, 5, [5, 0])])


def test_r16_example_2_spinner_on_the_one():
    """R16/R10/R14: [1|1] on the 1 becomes the spinner with one straight side
    occupied; it counts both halves: 2 + 4 = 6, scores 0."""
    game = make_game(["1|4", "1|1"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[1|1]@W", 6, 0, [5, 0]),
    ])
    assert game.spinner_tile == tiles("1|1")[0]


def test_r16_example_3_spinner_then_inside():
    """R16: lead [3|6] (9), [6|6] on the 6: 3 + 12 = 15 scores 15; then [2|6]
    on the spinner's open straight side: spinner inside, branches unstarted:
    3 + 2 = 5 scores 5."""
    game = make_game(["3|6 2|6", "6|6"])
    play_rows(game, [
        (0, "[3|6]@W", 9, 0, [0, 0]),
        (1, "[6|6]@E", 15, 15, [0, 15]),
        (0, "[2|6]@E", 5, 5, [5, 15]),
    ])


@pytest.mark.parametrize("lead, count", [("2|2", 4), ("0|0", 0)])
def test_r16_example_4_lone_double_lead(lead, count):
    """R16/R14: a lone double lead counts once: [2|2] -> 4, [0|0] -> 0; neither scores."""
    game = make_game([lead, ""])
    play_rows(game, [(0, f"[{lead}]@W", count, 0, [0, 0])])


def test_r16_example_5_full_sequence():
    """R16 last example: [1|4]; [1|1] on the 1 (spinner, 2 + 4 = 6); [4|4] on
    the 4 (ordinary double at an end, 2 + 8 = 10); [3|4] on the 4-4 (2 + 3 = 5);
    [1|2] on the spinner's open side (spinner inside, 2 + 3 = 5); [1|5] on a
    side branch (2 + 5 + 3 = 10)."""
    game = make_game(["1|4 4|4 1|2", "1|1 3|4 1|5"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[1|1]@W", 6, 0, [5, 0]),
        (0, "[4|4]@E", 10, 10, [15, 0]),
        (1, "[3|4]@E", 5, 5, [15, 5]),
        (0, "[1|2]@W", 5, 5, [20, 5]),
        (1, "[1|5]@N", 10, 10, [20, 15]),
    ])


# ------------------------------------------------------- own golden tables
def test_r11_r14_double_lead_four_arms_table():
    """R11/R14/C4: lead [3|3] (6); [3|5] on W: spinner at an end, 5 + 6 = 11;
    [1|3] on E: both straight sides occupied, spinner counts nothing, 5 + 1 = 6;
    [3|4] starts N: 5 + 1 + 4 = 10 scores; [3|6] starts S: 5 + 1 + 4 + 6 = 16."""
    game = make_game(["3|3 1|3 3|6", "3|5 3|4"])
    play_rows(game, [
        (0, "[3|3]@W", 6, 0, [0, 0]),
        (1, "[3|5]@W", 11, 0, [0, 0]),
        (0, "[1|3]@E", 6, 0, [0, 0]),
        (1, "[3|4]@N", 10, 10, [0, 10]),
        (0, "[3|6]@S", 16, 0, [0, 10]),
    ])


# Spinner [0|0] led, four arms each closed by a double: 12 + 10 + 8 + 6 = 36,
# the largest possible count (R15), which does not score. Counts by hand:
# [0|0] alone 0; [0|6]@W: spinner at an end 0 + 6 = 6; [0|5]@E: 6 + 5 = 11;
# [0|4]@N: 15; [0|3]@S: 18; [6|6]@W: 12+5+4+3 = 24; [5|5]@E: 12+10+4+3 = 29;
# [4|4]@N: 12+10+8+3 = 33; [3|3]@S: 36, or [3|5]@S: 12+10+8+5 = 35.
MAX_COUNT_PREFIX = [
    (0, "[0|0]@W", 0, 0, [0, 0]),
    (1, "[0|6]@W", 6, 0, [0, 0]),
    (0, "[0|5]@E", 11, 0, [0, 0]),
    (1, "[0|4]@N", 15, 15, [0, 15]),
    (0, "[0|3]@S", 18, 0, [0, 15]),
    (1, "[6|6]@W", 24, 0, [0, 15]),
    (0, "[5|5]@E", 29, 0, [0, 15]),
    (1, "[4|4]@N", 33, 0, [0, 15]),
]
MAX_COUNT_HANDS = ["0|0 0|5 0|3 5|5 3|3 3|5", "0|6 0|4 6|6 4|4"]


def test_r14_r15_largest_count_36_does_not_score():
    """R15: the largest possible count 36 scores nothing; zero ends count zero (R14)."""
    game = make_game(MAX_COUNT_HANDS)
    play_rows(game, MAX_COUNT_PREFIX + [(0, "[3|3]@S", 36, 0, [0, 15])])


def test_r15_largest_scoring_count_35():
    """R15: 35 is the largest scoring count and scores exactly 35."""
    game = make_game(MAX_COUNT_HANDS)
    play_rows(game, MAX_COUNT_PREFIX + [(0, "[3|5]@S", 35, 35, [35, 15])])


def test_v5_divisor_3_on_the_max_count_table():
    """V5: with divisor 3 every positive multiple of 3 scores the count:
    6, 15, 18, 24, 33 and 36 (36 scores here, unlike All Fives); 11 and 29 do not."""
    game = make_game(MAX_COUNT_HANDS, divisor=3)
    play_rows(game, [
        (0, "[0|0]@W", 0, 0, [0, 0]),
        (1, "[0|6]@W", 6, 6, [0, 6]),
        (0, "[0|5]@E", 11, 0, [0, 6]),
        (1, "[0|4]@N", 15, 15, [0, 21]),
        (0, "[0|3]@S", 18, 18, [18, 21]),
        (1, "[6|6]@W", 24, 24, [18, 45]),
        (0, "[5|5]@E", 29, 0, [18, 45]),
        (1, "[4|4]@N", 33, 33, [18, 78]),
        (0, "[3|3]@S", 36, 36, [54, 78]),
    ])


# 2 players, five_each (V1): seat 0 dominoes after 9 plays. Layout by hand:
# [1|2] W1 E2 (3); [2|3]@E E3 (4); [3|4]@E E4 (5, scores); [1|5]@W W5 (9);
# [4|6]@E E6 (11); [5|5]@W spinner at the W end: 10 + 6 = 16;
# [0|6]@E E0: 10 + 0 = 10 (scores); [5|6]@W beyond the spinner, branches
# unstarted: 6 + 0 = 6; [0|4]@E: 6 + 4 = 10 (scores), seat 0's last tile.
DOMINO_2P_HANDS = ["1|2 3|4 4|6 0|6 0|4", "2|3 1|5 5|5 5|6"]
DOMINO_2P_ROWS = [
    (0, "[1|2]@W", 3, 0, [0, 0]),
    (1, "[2|3]@E", 4, 0, [0, 0]),
    (0, "[3|4]@E", 5, 5, [5, 0]),
    (1, "[1|5]@W", 9, 0, [5, 0]),
    (0, "[4|6]@E", 11, 0, [5, 0]),
    (1, "[5|5]@W", 16, 0, [5, 0]),
    (0, "[0|6]@E", 10, 10, [15, 0]),
    (1, "[5|6]@W", 6, 0, [15, 0]),
]


@pytest.mark.parametrize("last_tile, pips, bonus", [
    ("0|0", 0, 0), ("0|1", 1, 0), ("1|1", 2, 0), ("0|3", 3, 5), ("2|2", 4, 5),
    ("0|5", 5, 5), ("3|3", 6, 5), ("1|6", 7, 5), ("3|5", 8, 10), ("4|5", 9, 10),
    ("6|6", 12, 10),
])
def test_r17_r20_r21_domino_2p_bonus(last_tile, pips, bonus):
    """R17: the domino play is scored first (10), then R21 adds round5 of the
    opponent's remaining pips (R20: remainders 1-2 down, 3-4 up)."""
    game = make_game([DOMINO_2P_HANDS[0], DOMINO_2P_HANDS[1] + " " + last_tile], hand_size="five_each")
    play_rows(game, DOMINO_2P_ROWS + [(0, "[0|4]@E", 10, 10, [25 + bonus, 0])])
    result = game.hand_result
    assert game.hand_over and not game.game_over
    assert (result.kind, result.winner) == ("domino", 0)
    assert result.points == (bonus, 0) and result.seat_pips == (0, pips)
    assert game.legal_actions() == []


# 3 players, five_each: seat 0 dominoes after 13 plays. Layout by hand:
# [3|3] lead 6; [3|4]@W spinner at an end 4 + 6 = 10 (s1 scores);
# [3|5]@E both sides taken 4 + 5 = 9; [3|6]@N 4+5+6 = 15 (s0); [0|3]@S 15 (s1);
# [4|4]@W 8+5+6+0 = 19; [1|4]@W 1+5+6+0 = 12; [5|5]@E 1+10+6+0 = 17;
# [2|5]@E 1+2+6+0 = 9; [6|6]@N 1+2+12+0 = 15 (s0); [0|1]@S 1+2+12+1 = 16;
# [1|1]@S 1+2+12+2 = 17; [1|2]@W 2+2+12+2 = 18, seat 0's last tile.
# Left: seat 1 holds [0|2] (2), seat 2 holds [0|6] (6). R21: 2 + 6 = 8 rounds
# once to 10 (rounding each would give 0 + 5 = 5).
DOMINO_3P_HANDS = ["3|3 3|6 1|4 6|6 1|2", "3|4 0|3 5|5 0|1 0|2", "3|5 4|4 2|5 1|1 0|6"]
DOMINO_3P_ROWS = [
    (0, "[3|3]@W", 6, 0, [0, 0, 0]),
    (1, "[3|4]@W", 10, 10, [0, 10, 0]),
    (2, "[3|5]@E", 9, 0, [0, 10, 0]),
    (0, "[3|6]@N", 15, 15, [15, 10, 0]),
    (1, "[0|3]@S", 15, 15, [15, 25, 0]),
    (2, "[4|4]@W", 19, 0, [15, 25, 0]),
    (0, "[1|4]@W", 12, 0, [15, 25, 0]),
    (1, "[5|5]@E", 17, 0, [15, 25, 0]),
    (2, "[2|5]@E", 9, 0, [15, 25, 0]),
    (0, "[6|6]@N", 15, 15, [30, 25, 0]),
    (1, "[0|1]@S", 16, 0, [30, 25, 0]),
    (2, "[1|1]@S", 17, 0, [30, 25, 0]),
]


def test_r17_r21_domino_3p_both_opponents_rounded_once():
    """R21 (3 players): both opponents' pips are summed, then rounded once; nobody else is paid."""
    game = make_game(DOMINO_3P_HANDS, num_players=3, hand_size="five_each", fill=False,
                     boneyard=_rest(DOMINO_3P_HANDS))
    play_rows(game, DOMINO_3P_ROWS + [(0, "[1|2]@W", 18, 0, [40, 25, 0])])
    assert game.hand_result.points == (10, 0, 0)
    assert game.hand_result.seat_pips == (0, 2, 6)
    assert game.next_leader == 0


# 4 players (standard, 5 each): seat 0 dominoes after 17 plays. Layout by hand:
# [2|2] lead 4; [2|3]@W 3 + 4 = 7; [2|4]@E both sides 3 + 4 = 7; [2|5]@N 12;
# [2|6]@S 18; [3|3]@W 6+4+5+6 = 21; [4|4]@E 6+8+5+6 = 25 (seat 2, side 0);
# [5|5]@N 6+8+10+6 = 30 (seat 3, side 1); [6|6]@S 6+8+10+12 = 36 (no score);
# [0|3]@W 0+8+10+12 = 30 (seat 1, side 1); [1|4]@E 0+1+10+12 = 23;
# [0|5]@N 0+1+0+12 = 13; [1|6]@S 0+1+0+1 = 2; [0|0]@W 0+1+0+1 = 2;
# [1|1]@E 0+2+0+1 = 3; [0|4]@N 0+2+4+1 = 7; [1|5]@S 0+2+4+5 = 11, last tile.
# Left: seat 1 [3|4] (7), seat 2 (partner) [5|6] (11), seat 3 [0|1] (1).
# R21: opponents only, 7 + 1 = 8 -> 10 (with the partner it would be 19 -> 20).
DOMINO_4P_HANDS = [
    "2|2 2|6 6|6 1|6 1|5", "2|3 3|3 0|3 0|0 3|4", "2|4 4|4 1|4 1|1 5|6", "2|5 5|5 0|5 0|4 0|1",
]
DOMINO_4P_ROWS = [
    (0, "[2|2]@W", 4, 0, [0, 0]),
    (1, "[2|3]@W", 7, 0, [0, 0]),
    (2, "[2|4]@E", 7, 0, [0, 0]),
    (3, "[2|5]@N", 12, 0, [0, 0]),
    (0, "[2|6]@S", 18, 0, [0, 0]),
    (1, "[3|3]@W", 21, 0, [0, 0]),
    (2, "[4|4]@E", 25, 25, [25, 0]),
    (3, "[5|5]@N", 30, 30, [25, 30]),
    (0, "[6|6]@S", 36, 0, [25, 30]),
    (1, "[0|3]@W", 30, 30, [25, 60]),
    (2, "[1|4]@E", 23, 0, [25, 60]),
    (3, "[0|5]@N", 13, 0, [25, 60]),
    (0, "[1|6]@S", 2, 0, [25, 60]),
    (1, "[0|0]@W", 2, 0, [25, 60]),
    (2, "[1|1]@E", 3, 0, [25, 60]),
    (3, "[0|4]@N", 7, 0, [25, 60]),
]


def test_r2_r17_r21_domino_4p_partner_pips_not_counted():
    """R2: seat 2 scores for side 0, seats 1 and 3 for side 1. R21 (4 players):
    the bonus is the two opponents' pips only, the partner's are not counted."""
    game = make_game(DOMINO_4P_HANDS, num_players=4, fill=False, boneyard=_rest(DOMINO_4P_HANDS))
    play_rows(game, DOMINO_4P_ROWS + [(0, "[1|5]@S", 11, 0, [35, 60])])
    assert game.hand_result.points == (10, 0)
    assert game.hand_result.seat_pips == (0, 7, 11, 1)
    assert game.hand_result.winner == 0


def test_r16_legal_branches_in_example_5():
    """R10/R11 inside the R16 sequence: before [1|2] covers the spinner's open
    side no N/S play exists; afterwards [1|5] may start N or S (C4)."""
    game = make_game(["1|4 4|4 1|2", "1|1 3|4 1|5"])
    play_rows(game, [
        (0, "[1|4]@W", 5, 5, [5, 0]),
        (1, "[1|1]@W", 6, 0, [5, 0]),
        (0, "[4|4]@E", 10, 10, [15, 0]),
    ])
    # seat 1 holds [1|5]: with the spinner at the W end it fits only at W.
    assert "[1|5]@W" in names(game.legal_actions())
    assert not any(n.endswith(("@N", "@S")) for n in names(game.legal_actions()))
    play_rows(game, [(1, "[3|4]@E", 5, 5, [15, 5]), (0, "[1|2]@W", 5, 5, [20, 5])])
    legal = names(game.legal_actions())
    assert {"[1|5]@N", "[1|5]@S"} <= set(legal)
    assert "[1|5]@W" not in legal  # W now shows 2


def _rest(hands):
    used = set(tiles(" ".join(hands)))
    return [t for t in range(28) if t not in used]
