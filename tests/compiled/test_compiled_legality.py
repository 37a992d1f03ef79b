"""The compiled engine states legality once (R6, R12, R13): ``placeable_tiles``, ``slot_tiles`` and
``forced_action`` in compiled/rules.py; ``is_legal``, ``legal_placements``, the encoder's mask and
greedy's move ask them. Each is compared with the reference ``Game.legal_actions`` at every decision
of random games, over every action id, and ``is_legal`` also once a hand is over (R17, R18)."""

import numpy as np
from support import paired_positions

from allfives_env.compiled.rules import apply_action, forced_action, is_legal, placeable_tiles, slot_tiles, start_hand
from allfives_env.compiled.state import GAME_OVER, HAND_OVER, NUM_FIELDS, ORDER, kernel_config
from allfives_env.env.encoders import default_layout
from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.actions import DRAW, NUM_ACTIONS, slot_of, tile_of
from allfives_env.rules.tiles import mask_to_tiles

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


def _hand_played_out(config, seed):
    """A Python game and the compiled state of one game, dealt alike and played alike (random legal moves)
    until the hand is over; returns ``(game, st, hands)``."""
    rng = np.random.default_rng(seed)
    game = Game(config)
    game.start_game(rng)
    n, sides = config.num_players, config.num_sides
    cfg, fcfg, _ = kernel_config(config, default_layout(n), "hand", "points", False)
    st = np.zeros((1, NUM_FIELDS), np.int8)
    hands = np.zeros((1, 8), np.int64)
    scores = np.zeros((1, sides))
    hstart, gains = np.zeros((1, sides)), np.zeros((1, sides))
    order = [t for seat in range(n) for t in mask_to_tiles(game.hands[seat])] + list(game.boneyard)
    st[0, ORDER:ORDER + 28] = order
    start_hand(st, 0, hands, scores, hstart, game.leader, n, config.tiles_per_hand)
    while not game.hand_over:
        legal = game.legal_actions()
        action = int(legal[int(rng.integers(len(legal)))])
        game.step(action)
        apply_action(st, 0, hands, scores, gains, cfg, fcfg[0], action)
    return game, st, hands


def test_nothing_is_legal_in_a_finished_hand():
    """After the hand's last step (a domino, R17, or a block, R18/C2) the reference has no legal action; the
    compiled ``is_legal`` must refuse every action id too, whichever way the hand ended, with the game itself
    still running (the target is far away)."""
    kinds = set()
    for num_players in (2, 3, 4):
        config = RulesConfig(num_players=num_players, target=10_000)
        for seed in range(30):
            game, st, hands = _hand_played_out(config, seed)
            assert st[0, HAND_OVER] == 1 and st[0, GAME_OVER] == 0 and not game.game_over
            assert game.legal_actions() == []
            assert [a for a in range(NUM_ACTIONS) if is_legal(st, 0, hands, a)] == [], game.hand_result
            kinds.add(game.hand_result.kind)
    assert kinds == {"domino", "block"}
