"""The All Fives rules engine (pure Python; imports neither PettingZoo nor torch)."""

from .actions import DRAW, NUM_ACTIONS, PASS, SLOT_NAMES, action_name, decode, encode, parse_action
from .config import RulesConfig
from .game import Game, HandResult, draw_leader
from .record import GameRecorder, read_records, replay, write_records
from .scoring import hand_end_points, points_for_count, round5
from .tiles import TILE_HIGH, TILE_LOW, TILE_PIPS, tile_index, tile_name

__all__ = [
    "DRAW", "NUM_ACTIONS", "PASS", "SLOT_NAMES", "action_name", "decode", "encode", "parse_action",
    "RulesConfig", "Game", "HandResult", "draw_leader", "GameRecorder", "read_records", "replay",
    "write_records", "hand_end_points", "points_for_count",
    "round5", "TILE_HIGH", "TILE_LOW", "TILE_PIPS", "tile_index", "tile_name",
]
