"""Property tests over thousands of seeded random games (R2-R25, C1-C6, V1-V5).

Every step of every game is checked against invariants and against a small,
independent reference model of the layout (:class:`RefLayout`) that keeps the
arms as tile lists and counts the ends from them (R8-R11, R14), instead of the
engine's per-slot weights.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env.rules import DRAW, PASS, Game, RulesConfig
from allfives_env.rules.tiles import TILE_HIGH, TILE_LOW, TILE_PIPS


class RefLayout:
    """Reference layout: lead, the four arms as lists of (tile, open value), the spinner."""

    def __init__(self):
        self.lead = None
        self.lead_ends = None
        self.arms = ([], [], [], [])
        self.spinner = None      # tile id
        self.spinner_arm = None  # "lead" or the slot of the arm it was attached to
        self.spinner_pos = None  # its index in that arm

    def copy(self):
        other = RefLayout()
        other.lead, other.lead_ends = self.lead, self.lead_ends
        other.arms = tuple(list(arm) for arm in self.arms)
        other.spinner, other.spinner_arm, other.spinner_pos = self.spinner, self.spinner_arm, self.spinner_pos
        return other

    def branches_open(self):
        """R10/R11: after both straight sides of the spinner are occupied."""
        if self.spinner is None:
            return False
        if self.spinner_arm == "lead":
            return bool(self.arms[0]) and bool(self.arms[1])
        return len(self.arms[self.spinner_arm]) > self.spinner_pos + 1

    def open_values(self):
        """Open value of every available slot (R8, R11)."""
        values = {}
        for slot in (0, 1):
            values[slot] = self.arms[slot][-1][1] if self.arms[slot] else self.lead_ends[slot]
        if self.branches_open():
            for slot in (2, 3):
                values[slot] = self.arms[slot][-1][1] if self.arms[slot] else TILE_LOW[self.spinner]
        return values

    def play(self, tile, slot):
        low, high = TILE_LOW[tile], TILE_HIGH[tile]
        if self.lead is None:
            assert slot == 0, "R6: a lead is always at W"
            self.lead, self.lead_ends = tile, (low, high)
            if low == high:
                self.spinner, self.spinner_arm = tile, "lead"
            return
        value = self.open_values()[slot]  # KeyError: the slot is not available
        assert value in (low, high), "R7: a half must match the open end"
        self.arms[slot].append((tile, high if low == value else low))
        if low == high and self.spinner is None:  # R10
            self.spinner, self.spinner_arm, self.spinner_pos = tile, slot, len(self.arms[slot]) - 1

    def count(self):
        """R14, written from the rule text."""
        if self.lead is None:
            return 0
        total = 0
        if self.spinner_arm == "lead":
            d = TILE_LOW[self.lead]
            occupied = bool(self.arms[0]) + bool(self.arms[1])
            if occupied <= 1:
                total += 2 * d  # the spinner is itself at an end (a lone lead counts once)
        for slot in range(4):
            arm = self.arms[slot]
            if arm:
                tile, value = arm[-1]
                total += 2 * value if TILE_LOW[tile] == TILE_HIGH[tile] else value
            elif slot < 2 and self.spinner_arm != "lead":
                total += self.lead_ends[slot]  # a non-double lead's own half is the end
        return total


def fits(tile, values):
    return TILE_LOW[tile] in values or TILE_HIGH[tile] in values


def hand_tiles(game, seat):
    return [t for t in range(28) if game.hands[seat] >> t & 1]


def seat_can_play(game, ref, seat):
    values = set(ref.open_values().values())
    return any(fits(t, values) for t in hand_tiles(game, seat))


def snapshot(game):
    """Everything in the state, lists turned into tuples (for independence checks)."""
    out = []
    for name in Game.__slots__:
        if name == "_legal":  # a cache of legal_actions(), not state
            continue
        value = getattr(game, name, None)
        if name == "arms":
            value = tuple(tuple(arm) for arm in value)
        elif isinstance(value, list):
            value = tuple(value)
        elif name == "hand_result" and value is not None:
            value = (value.kind, value.winner, value.points, value.seat_pips)
        out.append((name, value))
    return tuple(out)


def check_step_invariants(game, ref, config, legal):
    """Checks that hold at every decision point of a running hand."""
    n = config.num_players
    seat = game.to_move
    # R4/R1: the 28 tiles are conserved and disjoint.
    parts = [hand_tiles(game, s) for s in range(n)]
    parts.append(list(game.boneyard[game.bone_pos:]))
    played = [t for t in range(28) if game.played_by[t] >= 0]
    parts.append(played)
    everything = [t for part in parts for t in part]
    assert sorted(everything) == list(range(28))
    layout = ([] if ref.lead is None else [ref.lead]) + [t for arm in ref.arms for t, _ in arm]
    assert sorted(layout) == played
    assert game.count == ref.count()
    # legal actions are never empty while the game runs
    assert legal
    hand = parts[seat]
    if ref.lead is None:  # R6
        assert legal == sorted(4 * t for t in hand)
        return
    values = ref.open_values()
    expected = sorted(4 * t + s for t in hand for s, v in values.items() if v in (TILE_LOW[t], TILE_HIGH[t]))
    if game.must_play >= 0:  # R13: only the drawn tile, at every slot where it fits
        last = game.events[-1]
        assert last[:3] == (seat, DRAW, game.must_play)
        assert legal == [a for a in expected if a >> 2 == game.must_play] and legal
    elif expected:  # R12: a play exists, so it is required
        assert legal == expected
    elif game.boneyard_left:  # R13: draw only when nothing fits
        assert legal == [DRAW]
    else:  # R13: pass only with an empty boneyard and nothing fitting
        assert legal == [PASS]
        # and somebody else can play, or the hand would have been blocked (C2)
        assert any(seat_can_play(game, ref, s) for s in range(n) if s != seat)


def check_hand_end(game, ref, config, last_seat, last_action):
    """A hand ends only by the target (R3), a domino (R17) or a block (R18/C2)."""
    n = config.num_players
    if game.hand_result is None:  # R3/C5: the target was reached by a play
        assert game.game_over and last_action < DRAW
        assert any(s >= game.target for s in game.scores)
        assert game.events[-1][3] > 0
        return
    result = game.hand_result
    pips = tuple(sum(TILE_PIPS[t] for t in hand_tiles(game, s)) for s in range(n))  # C6
    assert result.seat_pips == pips
    if result.kind == "domino":
        assert last_action < DRAW and game.hand_size(last_seat) == 0
        assert game.next_leader == last_seat  # R19
    else:
        assert result.kind == "block" and game.boneyard_left == 0
        assert not any(seat_can_play(game, ref, s) for s in range(n))
        assert all(game.hand_size(s) > 0 for s in range(n))
        assert game.next_leader is None  # R19
    if game.game_over:  # R25
        assert game.winners and all(game.scores[s] >= game.target for s in game.winners)
        top = max(game.scores[s] for s in game.winners)
        assert all(game.scores[s] == top for s in game.winners)


def play_random_game(config, seed, checks=True, clone_every=0, kinds=None):
    """Play one seeded random game with every check on; returns (game, steps).
    ``kinds`` (a set), if given, collects how each hand ended."""
    rng = np.random.default_rng(seed)
    game = Game(config)
    game.start_game(rng)
    start_scores = list(game.scores)
    gained = [0.0] * config.num_sides
    steps = 0
    while True:
        ref = RefLayout()
        while not game.hand_over:
            legal = game.legal_actions()
            if checks:
                check_step_invariants(game, ref, config, legal)
                plays = [a for a in legal if a < DRAW]
                batch = game.counts_after(plays)
                assert batch == [game.count_after(a >> 2, a & 3) for a in plays]
                if steps % 3 == 0:  # every placement against the reference layout
                    for a, predicted in zip(plays, batch):
                        probe = ref.copy()
                        probe.play(a >> 2, a & 3)
                        assert predicted == probe.count(), (a, predicted)
            action = legal[int(rng.integers(len(legal)))]
            seat = game.to_move
            predicted = None
            if action < DRAW:
                predicted = game.count_after(action >> 2, action & 3)
                probe = ref.copy()
                probe.play(action >> 2, action & 3)
                assert predicted == probe.count()
            if clone_every and steps % clone_every == 0:
                check_clone(game, action, rng)
            events_before = len(game.events)
            game.step(action)
            steps += 1
            gained = [g + s for g, s in zip(gained, game.step_gain)]
            assert len(game.events) == events_before + 1
            event = game.events[-1]
            if action < DRAW:
                ref.play(action >> 2, action & 3)
                assert game.count == predicted == event[4]
                points = event[3]
                # R15/V5: in-play points are the count, a positive multiple of the divisor
                if points:
                    assert points == event[4] and points > 0 and points % config.divisor == 0
                else:
                    assert event[4] == 0 or event[4] % config.divisor != 0
                if not game.hand_over:
                    assert game.to_move == (seat + 1) % config.num_players  # R2
            elif action == DRAW:
                assert event[:2] == (seat, DRAW) and event[3] == 0
                if not game.hand_over:
                    assert game.to_move == seat  # C1
            else:
                assert event == (seat, PASS, -1, 0, game.count)
                assert game.to_move == (seat + 1) % config.num_players
            if not game.hand_over and action >= DRAW:
                assert game.step_gain == [0.0] * config.num_sides  # draws and passes score nothing
        check_hand_end(game, ref, config, seat, action)
        if kinds is not None:
            kinds.add("target" if game.hand_result is None else game.hand_result.kind)
        # the sum of every step's gain is the change of the scores
        assert gained == [s - s0 for s, s0 in zip(game.scores, start_scores)]
        if game.game_over:
            return game, steps
        game.start_next_hand(rng)


def check_clone(game, action, rng):
    """clone() is independent and replays to the same result."""
    before = snapshot(game)
    copy = game.clone()
    assert snapshot(copy) == before
    # Step the clone to the end of the hand: the original must not move.
    actions = []
    while not copy.hand_over:
        legal = copy.legal_actions()
        chosen = action if not actions else legal[int(rng.integers(len(legal)))]
        actions.append(chosen)
        copy.step(chosen)
    assert snapshot(game) == before
    # A second clone replays the same actions to the same state.
    again = game.clone()
    for chosen in actions:
        again.step(chosen)
    assert snapshot(again) == snapshot(copy)
    assert snapshot(game) == before


CONFIGS = [
    # (options, games): targets lowered (V2) so that thousands of games stay fast.
    (dict(num_players=2, target=60), 500),
    (dict(num_players=3, target=50), 400),
    (dict(num_players=4, target=50), 400),
    (dict(num_players=2, hand_size="five_each", target=40, divisor=3), 300),
    (dict(num_players=3, hand_size="seven_five", target=45, hand_scoring="bonus_net"), 300),
    (dict(num_players=4, hand_size="five_each", target=40, hand_scoring="penalty", first_leader="heaviest_tile"), 200),
    (dict(num_players=2, hand_size="seven_five", target=30, hand_scoring="penalty", divisor=3), 200),
    (dict(num_players=3, target=30, divisor=3, hand_scoring="bonus"), 200),
]


@pytest.mark.parametrize("options, games", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_random_games_invariants(options, games):
    """Tiles conserved, gains sum to scores, points = count and a multiple of
    the divisor, legal actions = the rule's own list (R6, R12, R13), draw and
    pass only when allowed, hands end only by target / domino / block, counts
    match the reference layout and count_after predicts them."""
    config = RulesConfig.from_options(**options)
    kinds = set()
    for seed in range(games):
        play_random_game(config, 1000 * len(options) + seed, kinds=kinds)
    assert kinds >= {"domino", "block"}, kinds  # both hand ends were exercised


def test_random_games_with_full_targets_and_block_coverage():
    """Full default targets (R3) for a few games per player count; across
    them dominoes and blocks both occur, and a block on a draw (C2) too."""
    seen = set()
    for players in (2, 3, 4):
        config = RulesConfig(num_players=players)
        for seed in range(12):
            rng = np.random.default_rng(seed)
            game = Game(config)
            game.start_game(rng)
            hands = 0
            while not game.game_over:
                while not game.hand_over:
                    legal = game.legal_actions()
                    action = legal[int(rng.integers(len(legal)))]
                    game.step(action)
                if game.hand_result is not None:
                    seen.add(game.hand_result.kind)
                    if game.hand_result.kind == "block" and action == DRAW:
                        seen.add("block on a draw")
                hands += 1
                if not game.game_over:
                    game.start_next_hand(rng)
            assert max(game.scores) >= game.target and hands >= 2
    assert seen >= {"domino", "block", "block on a draw"}


def test_random_games_clone_independence():
    """clone() shares no mutable list with the original and replays identically."""
    for players in (2, 3, 4):
        config = RulesConfig(num_players=players, target=40)
        for seed in range(40):
            play_random_game(config, seed, checks=False, clone_every=7)


_HYPOTHESIS = settings(max_examples=60, deadline=None, database=None,
                       suppress_health_check=[HealthCheck.too_slow])


@_HYPOTHESIS
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.sampled_from([2, 3, 4]),
    hand_size=st.sampled_from(["standard", "five_each", "seven_five"]),
    scoring=st.sampled_from(["bonus", "bonus_net", "penalty"]),
    divisor=st.sampled_from([5, 3]),
    target=st.integers(5, 80),
)
def test_hypothesis_random_games(seed, players, hand_size, scoring, divisor, target):
    config = RulesConfig(num_players=players, hand_size=hand_size, hand_scoring=scoring,
                         divisor=divisor, target=target)
    play_random_game(config, seed, clone_every=11)


@_HYPOTHESIS
@given(seed=st.integers(0, 2**32 - 1), players=st.sampled_from([2, 3, 4]),
       scores=st.lists(st.integers(0, 399), min_size=2, max_size=3))
def test_hypothesis_start_scores_half_points(seed, players, scores):
    """R24: half-point start scores are kept exactly and the gains add up."""
    config = RulesConfig(num_players=players, target=200)
    sides = config.num_sides
    start = [(s % 399) / 2 for s in (scores * 2)[:sides]]
    rng = np.random.default_rng(seed)
    game = Game(config)
    game.start_game(rng, scores=start)
    total = list(start)
    while not game.hand_over:
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
        total = [t + g for t, g in zip(total, game.step_gain)]
    assert game.scores == total
    assert all(2 * s == int(2 * s) for s in game.scores)
