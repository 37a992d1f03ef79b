"""The compiled engine states legality once (R6, R12, R13): ``placeable_tiles``, ``slot_tiles`` and
``forced_action`` in compiled/rules.py; ``is_legal``, ``legal_placements``, the encoder's mask and
greedy's move ask them. Each is compared with the reference ``Game.legal_actions`` at every decision
of random games, over every action id."""

from support import paired_positions

from allfives_env.compiled.rules import forced_action, is_legal, placeable_tiles, slot_tiles
from allfives_env.rules.actions import DRAW, NUM_ACTIONS, slot_of, tile_of

CASES = [dict(num_players=2), dict(num_players=3), dict(num_players=4),
         dict(num_players=2, hand_size="five_each", target=40), dict(num_players=3, hand_size="seven_five")]


def test_the_legality_kernels_equal_the_reference_at_every_decision():
    met = set()
    for options in CASES:
        _compare_positions(options, met)
    assert met == {"lead", "free", "must play", "draw", "pass"}, met  # every case of R6, R12 and R13 was met


def _compare_positions(options, met):
    for game, venv in paired_positions(options, seed=7 + len(str(options)), hands_to_play=8):
        st, hands = venv._st, venv._hands
        legal = game.legal_actions()
        where = f"{options}: legal {legal}"
        assert [a for a in range(NUM_ACTIONS) if is_legal(st, 0, hands, a)] == legal, where
        forced = legal[0] if legal[0] >= DRAW else -1
        assert forced_action(st, 0, hands) == forced, where
        tiles = {tile_of(a) for a in legal if a < DRAW}
        assert placeable_tiles(st, 0, hands) == sum(1 << t for t in tiles), where
        for slot in range(4):
            fits = placeable_tiles(st, 0, hands) & slot_tiles(st, 0, slot)
            assert fits == sum(1 << tile_of(a) for a in legal if a < DRAW and slot_of(a) == slot), where
        met.add("lead" if game.is_lead else "must play" if game.must_play >= 0 else
                "draw" if legal == [DRAW] else "pass" if forced >= 0 else "free")
