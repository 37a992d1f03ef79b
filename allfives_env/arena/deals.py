"""How a match draws the deals of a game from its seed, and deals them.

A "deal seed" fixes a whole game's sequence of deals: hand ``k`` uses its own
generator seeded by ``(deal seed, k)``, which draws a leader first (R5/V3) and
then the tile order (R4). The drawn leader leads only when the rules call for
a draw: the first hand, or a hand after a block; after a domino the seat that
dominoed leads (R19). So every game played on a deal seed sees the same tiles
in the same order, whatever happened in its earlier hands.
"""

import numpy as np

from ..rules.config import RulesConfig
from ..rules.game import Game, draw_deal, split_order


def seed_list(seed) -> list:
    """A seed as a list of integers: a list or tuple as it is, an integer as ``[seed]``."""
    return list(seed) if isinstance(seed, (tuple, list)) else [int(seed)]


def seeded_rng(seed) -> np.random.Generator:
    """A generator seeded by ``seed`` (an integer or a list of them) through a SeedSequence."""
    return np.random.default_rng(np.random.SeedSequence(seed_list(seed)))


def hand_deal(config: RulesConfig, deal_seed, hand_index: int):
    """``(order, leader)`` of hand ``hand_index`` in the deal sequence ``deal_seed``:
    the tiles (the hands seat by seat, then the boneyard in draw order) and the drawn leader."""
    leader, order = draw_deal(config, seeded_rng([*seed_list(deal_seed), hand_index]))  # the leader always drawn
    return order, leader


def deal_hand(game: Game, deal_seed, hand_index: int):
    """Deal hand ``hand_index`` of ``deal_seed`` on ``game``: hand 0 starts the game."""
    order, drawn_leader = hand_deal(game.config, deal_seed, hand_index)
    if hand_index == 0:
        hands, boneyard = split_order(game.config, order)
        game.start_game(None, hands=hands, boneyard=boneyard, leader=drawn_leader)
    else:
        game.start_next_hand(None, deal=(game.next_hand_leader(drawn_leader), order))
