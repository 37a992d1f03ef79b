"""Greedy exclusions (allfives_env/agents/inference.py): the batched tracker used in training equals the
replay of a view's events used at play time, and the features take them as the docs say."""

import numpy as np
import pytest

from allfives_env.agents.inference import ExclusionTracker, view_exclusions
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.compiled.state import DRAW
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import mask_to_tiles
from allfives_env.rules.view import player_view
from allfives_env.vector import VectorAllFives


def _replayed(view):
    """Per relative seat, the exclusions from the view's events, masked by what the seat has not seen."""
    forbid = view_exclusions(view, np.zeros(4, np.int64))
    n = view.num_players
    return [int(forbid[(view.seat + rel) % n]) if rel < n else 0 for rel in range(4)]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_tracker_equals_the_replay_of_the_events(num_players):
    """Mostly greedy play (so exclusions arise) with random moves mixed in, over whole hands; draws in
    2 and 3 players clear a seat's exclusions in both."""
    from allfives_env.agents.greedy import greedy_action

    rng = np.random.default_rng(num_players)
    venv = VectorAllFives(num_envs=1, num_players=num_players)
    venv.reset(seed=1)
    game = Game(venv.config)
    nonempty = 0
    for _ in range(8):
        game.start_game(rng)
        hands = [mask_to_tiles(h) for h in game.hands]
        out = venv.set_position([0], [hands], [list(game.boneyard)], [game.leader], [list(game.scores)])
        tracker = ExclusionTracker(venv)
        while not game.hand_over:
            view = player_view(game, game.to_move)
            got = [int(x) & view.unseen for x in tracker.relative(out.to_move)[0]]
            assert got == _replayed(view)
            nonempty += any(got)
            legal = game.legal_actions()
            action = greedy_action(game, legal) if rng.random() < 0.8 else int(legal[rng.integers(len(legal))])
            tracker.before_step(np.array([action]))
            game.step(action)
            out = venv.step(np.array([action]))
            tracker.after_step(out)
    assert nonempty > 20


@pytest.mark.parametrize("features,num_players", [("lookahead_infer", 4), ("lookahead_infer", 3)])
def test_exclusions_narrow_the_opponents_tiles_like_seen_tiles(features, num_players):
    """Excluding tiles for the opponents gives the derived features of an observation in which the
    observer had seen those tiles; an exclusion leaving fewer tiles than the seat's hand is ignored.
    With 4 players the lookahead's last block models the partner, whose tiles the exclusions leave
    alone (seeing the tiles would narrow them): only the blocks of the next seat compare there."""
    config = RulesConfig(num_players=num_players)
    pin = PolicyInput(features, num_players, config.divisor)
    assert pin.infer and not PolicyInput(features[:-len("_infer")], num_players, config.divisor).infer
    opponents = [1] if num_players == 4 else list(range(1, num_players))
    venv = VectorAllFives(num_envs=32, num_players=num_players)
    out = venv.reset(seed=3)
    layout = venv.layout
    hand_off, played_off = layout.offset("hand"), layout.offset("played_by")
    D = layout.size
    compared = pin.extra - (DRAW if features == "lookahead_infer" and num_players == 4 else 0)
    rng = np.random.default_rng(0)
    checked = changed = 0
    for _ in range(6):
        obs, mask = out.obs.copy(), out.mask.copy()
        for b in range(len(obs)):
            seen = obs[b, hand_off:hand_off + 28] > 0.5
            for rel in range(4):
                seen |= obs[b, played_off + 28 * rel:played_off + 28 * rel + 28] > 0.5
            unseen = np.flatnonzero(~seen)
            if mask[b, :DRAW].sum() < 2 or len(unseen) < 16:
                continue
            hidden = rng.choice(unseen, size=3, replace=False)
            excl = np.zeros((1, 4), np.int64)
            excl[0, opponents] = sum(1 << int(t) for t in hidden)
            marked = obs[b:b + 1].copy()
            marked[0, played_off + hidden] = 1.0  # "seen": played by the observer
            got = pin(obs[b:b + 1], mask[b:b + 1], exclusions=excl)[0, D:D + compared]
            want = pin(marked, mask[b:b + 1])[0, D:D + compared]
            assert np.array_equal(got, want)
            changed += not np.array_equal(got, pin(obs[b:b + 1], mask[b:b + 1])[0, D:D + compared])
            everything = np.zeros((1, 4), np.int64)
            everything[0, opponents] = (1 << 28) - 1
            assert np.array_equal(pin(obs[b:b + 1], mask[b:b + 1], exclusions=everything),
                                  pin(obs[b:b + 1], mask[b:b + 1]))
            checked += 1
        out = venv.step(np.array([np.flatnonzero(m)[0] for m in out.mask]))
    assert checked > 20 and changed > checked // 2


def test_exclusions_leaving_exactly_the_hand_size_are_believed():
    """Exclusions that leave the next seat exactly as many possible tiles as it holds name its hand:
    the features equal those of an observer that had seen every excluded tile."""

    from allfives_env.rules.scoring import SIZE_SCALE

    venv = VectorAllFives(num_envs=16, num_players=4)
    out = venv.reset(seed=5)
    pin = PolicyInput("lookahead_infer", 4, venv.config.divisor)
    layout = venv.layout
    hand_off, played_off, sizes_off = layout.offset("hand"), layout.offset("played_by"), layout.offset("hand_sizes")
    D = layout.size
    compared = pin.extra - DRAW  # the last block models the partner
    rng = np.random.default_rng(1)
    changed = 0
    for b in range(16):
        obs, mask = out.obs[b:b + 1].copy(), out.mask[b:b + 1].copy()
        seen = obs[0, hand_off:hand_off + 28] > 0.5
        for rel in range(4):
            seen |= obs[0, played_off + 28 * rel:played_off + 28 * rel + 28] > 0.5
        unseen = np.flatnonzero(~seen)
        h1 = int(round(obs[0, sizes_off + 1] * SIZE_SCALE))
        keep = rng.choice(unseen, size=h1, replace=False)
        hidden = [int(t) for t in unseen if t not in keep]
        excl = np.zeros((1, 4), np.int64)
        excl[0, 1] = sum(1 << t for t in hidden)
        marked = obs.copy()
        marked[0, played_off + np.array(hidden)] = 1.0
        got = pin(obs, mask, exclusions=excl)[0, D:D + compared]
        assert np.array_equal(got, pin(marked, mask)[0, D:D + compared])
        changed += not np.array_equal(got, pin(obs, mask)[0, D:D + compared])
    assert changed > 8
