"""The batched twins (agents.batched) choose what their arena agents choose on the same positions."""

import numpy as np
import pytest

from allfives_env.agents import make_agent
from allfives_env.agents.batched import make_batched_agent
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import mask_to_tiles
from allfives_env.rules.view import player_view
from allfives_env.vector import SKIP, VectorAllFives

CASES = [("greedy", 2), ("greedy", 4), ("heuristic", 3), ("ppo:checkpoints/ppo_2p.pt", 2),
         ("ppo:checkpoints/ppo_3p.pt", 3), ("ppo:checkpoints/ppo_4p.pt", 4), ("ppo:checkpoints/ppo_4p.pt,infer=greedy", 4)]


def lockstep(num_players, spec, num_games=16, steps=70, seed=0):
    """Yield ``(games, venv, out, batched)`` at each step of random joint play: Python games and a batched env
    in the same positions (a hand that ended is dealt afresh in both), and ``spec``'s batched twin on that env,
    which sees every step (SKIP too)."""
    rng = np.random.default_rng(seed)
    venv = VectorAllFives(num_games, num_players=num_players)
    out = venv.reset(seed=seed)
    batched = make_batched_agent(spec, venv)
    games = [Game(venv.config) for _ in range(num_games)]

    def deal(b):
        games[b].start_game(rng)
        return venv.set_position([b], [[mask_to_tiles(h) for h in games[b].hands]], [list(games[b].boneyard)],
                                 [games[b].leader])

    for b in range(num_games):
        out = deal(b)
    batched.after_step(out)
    for _ in range(steps):
        yield games, venv, out, batched
        actions = np.array([rng.choice(g.legal_actions()) for g in games], np.int64)
        actions[rng.random(num_games) < 0.2] = SKIP  # some games wait a step
        batched.before_step(actions)
        for game, action in zip(games, actions):
            if action != SKIP:
                game.step(int(action))
        out = venv.step(actions)
        for b, game in enumerate(games):
            if game.hand_over:
                out = deal(b)
        batched.after_step(out)


@pytest.mark.parametrize("spec,num_players", CASES)
def test_batched_actions_equal_the_arena_agent(spec, num_players):
    agent = make_agent(spec)
    rng = np.random.default_rng(4)
    compared = 0
    for games, venv, out, batched in lockstep(num_players, spec):
        picks = rng.choice(venv.num_envs, size=8, replace=False).astype(np.int64)
        got = batched.actions(out, picks, np.empty(len(picks), np.int64))
        for i, b in enumerate(picks):
            game = games[b]
            assert venv.legal_actions(b) == game.legal_actions()
            view = player_view(game, game.to_move)
            agent.reset(game.to_move, game.config, np.random.default_rng(0))
            assert got[i] == agent.act(view, list(view.legal_actions)), (spec, b, game.legal_actions())
            compared += len(game.legal_actions()) > 1
    assert compared > 150


def test_random_streams_are_per_game():
    """A game's random choices do not depend on which other games asked in the same step."""
    venv = VectorAllFives(6, num_players=2)
    out = venv.reset(seed=0)
    a = make_batched_agent("random", venv, seed=9)
    b = make_batched_agent("random", venv, seed=9)
    first = a.actions(out, np.arange(6), np.empty(6, np.int64)).copy()
    only_3 = b.actions(out, np.array([3]), np.empty(1, np.int64))
    assert only_3[0] == first[3]
    assert all(out.mask[g, first[g]] for g in range(6))


@pytest.mark.parametrize("spec", ["search", "ppo:checkpoints/ppo_2p.pt,sample=true", "greedy:x=1", "nope"])
def test_specs_without_a_twin_are_refused_naming_the_allowed(spec):
    venv = VectorAllFives(2, num_players=2)
    with pytest.raises(ValueError, match="random, greedy, heuristic, ppo:PATH|unknown agent spec"):
        make_batched_agent(spec, venv)


def test_a_policy_for_another_player_count_is_refused():
    with pytest.raises(ValueError, match="trained for 2 players"):
        make_batched_agent("ppo:checkpoints/ppo_2p.pt", VectorAllFives(2, num_players=3))


def test_a_batched_policy_takes_a_file_or_an_agent_but_not_sampling():
    from allfives_env.agents.batched import BatchedPolicy
    from allfives_env.agents.ppo.agent import PPOAgent

    venv = VectorAllFives(4, num_players=2)
    out = venv.reset(seed=3)
    from_file = BatchedPolicy(venv, "checkpoints/ppo_2p.pt")
    from_agent = BatchedPolicy(venv, PPOAgent("checkpoints/ppo_2p.pt"))
    games = np.arange(4)
    first, second = np.zeros(4, np.int64), np.zeros(4, np.int64)
    assert (from_file.actions(out, games, first) == from_agent.actions(out, games, second)).all()
    assert from_file.name == "ppo:checkpoints/ppo_2p.pt"
    with pytest.raises(ValueError, match="sample=true has no batched twin"):
        BatchedPolicy(venv, PPOAgent("checkpoints/ppo_2p.pt", sample=True))


def test_the_batched_search_plays_legal_moves_and_beats_greedy():
    """search:engine=compiled has its own random stream (not move for move the arena agent's): its moves are
    legal and it plays at the arena search's strength against greedy (about 0.9 with 2 players)."""
    from allfives_env.arena.batched import batched_match
    from allfives_env.rules import RulesConfig

    for games, venv, out, batched in lockstep(2, "search:engine=compiled,samples=8", steps=30):
        picks = np.arange(venv.num_envs, dtype=np.int64)
        got = batched.actions(out, picks, np.empty(len(picks), np.int64))
        assert all(out.mask[b, got[b]] for b in picks)
    result = batched_match(RulesConfig(num_players=2), ["search:engine=compiled,samples=8", "greedy"], 40, seed=2)
    assert result["win_share"].mean() > 0.7


@pytest.mark.parametrize("spec", ["random", "greedy", "heuristic", "search:engine=compiled,samples=2",
                                  "ppo:checkpoints/ppo_2p.pt"])
@pytest.mark.parametrize("games, words", [
    ([5], "games holds indices outside 0..2"),  # heuristic: another game's memory read (a garbage action)
    ([100_000_000], "games holds indices outside 0..2"),  # heuristic: a segmentation fault
    ([-1], "games holds indices outside 0..2"),  # every agent: numpy's wrap-around played the last game
    (np.array([0.0]), "games must be a 1-D array of integer game indices"),
])
def test_a_batched_agent_refuses_game_indices_outside_the_env(spec, games, words):
    venv = VectorAllFives(3)
    out = venv.reset(seed=0)
    agent = make_batched_agent(spec, venv)
    into = np.full(len(games), -7, np.int64)
    with pytest.raises(ValueError, match=words):
        agent.actions(out, games, into)
    assert (into == -7).all()
    read_only = np.zeros(1, np.int64)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="out must be a writable int64 array of shape"):
        agent.actions(out, np.array([0]), read_only)
    assert agent.actions(out, np.array([2, 0]), np.empty(2, np.int64)).shape == (2,)  # in range: played
