"""The compiled AEC core (numba) against the pure-Python reference, in lockstep.

Both envs get the same seed once and then the same random legal actions over
many episodes (later resets unseeded, so the generator carries on). At every
step every agent's observation, mask, reward, cumulative reward, termination
and info must be equal; every few steps the compiled env's replayed ``game``
mirror and ``state()`` are compared with the reference's too."""

import numpy as np
import pytest

import allfives_env
from allfives_env.compiled import aec, state
from allfives_env.env import IllegalActionError
from allfives_env.env.encoders import HistoryEncoder
from allfives_env.rules.actions import DRAW, PASS

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=2, auto_forced=True, reward="zero_sum"),
    dict(num_players=3, auto_forced=True, reward="win"),
    dict(num_players=4, episode="hand", reward="win"),
    dict(num_players=2, episode="hand", hand_size="five_each", divisor=3, hand_scoring="penalty"),
    dict(num_players=3, hand_size="seven_five", first_leader="heaviest_tile", target=80, hand_scoring="bonus_net"),
    dict(num_players=4, auto_forced=True, target=75, hand_scoring="bonus_net", divisor=3, reward="zero_sum"),
    dict(num_players=2, first_leader="heaviest_tile", target=40, reward="win"),
]


def _game_facts(game):
    return (tuple(game.hands), tuple(game.boneyard[game.bone_pos:]), tuple(game.scores), game.to_move,
            game.leader, game.hand_over, game.game_over, tuple(game.winners), game.hand_number, game.count,
            tuple(game.open_value), tuple(game.weight), tuple(game.lacks), tuple(game.played_masks),
            tuple(game.events), game.must_play, game.drawn_this_turn, tuple(game.hand_start_scores))


def _compare(ref, fast, where, deep):
    assert fast.agent_selection == ref.agent_selection, where
    assert fast.agents == ref.agents, where
    for agent in ref.possible_agents:
        a, b = ref.observe(agent), fast.observe(agent)
        np.testing.assert_array_equal(b["observation"], a["observation"], err_msg=f"{where} {agent}")
        np.testing.assert_array_equal(b["action_mask"], a["action_mask"], err_msg=f"{where} {agent}")
    for agent in ref.agents:  # empty once every agent has stepped out of a finished episode
        np.testing.assert_array_equal(fast.infos[agent]["action_mask"], ref.infos[agent]["action_mask"],
                                      err_msg=where)
        assert fast.infos[agent]["scores"] == ref.infos[agent]["scores"], where
    assert fast.rewards == ref.rewards, where
    assert fast._cumulative_rewards == ref._cumulative_rewards, where
    assert fast.terminations == ref.terminations, where
    if deep:
        assert _game_facts(fast.unwrapped.game) == _game_facts(ref.unwrapped.game), where
        np.testing.assert_array_equal(fast.state(), ref.state(), err_msg=where)


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_compiled_core_matches_the_python_engine(options):
    ref = allfives_env.env(backend="python", **options)
    fast = allfives_env.env(backend="numba", **options)
    assert (ref.unwrapped.backend, fast.unwrapped.backend) == ("python", "numba")
    chooser = np.random.default_rng(len(str(options)))
    seed = 1000 + len(options)
    kinds = set()
    ref.reset(seed=seed)
    fast.reset(seed=seed)
    for episode in range(12):
        if episode:
            ref.reset()
            fast.reset()
        _compare(ref, fast, f"episode {episode} reset {options}", deep=True)
        for step, agent in enumerate(ref.agent_iter()):
            assert agent == fast.agent_selection
            obs, reward, term, trunc, info = ref.last()
            fast_obs, fast_reward, fast_term, fast_trunc, _ = fast.last()
            assert (fast_reward, fast_term, fast_trunc) == (reward, term, trunc)
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[chooser.integers(len(legal))])
                kinds.add("draw" if action == DRAW else "pass" if action == PASS else "play")
            ref.step(action)
            fast.step(action)
            _compare(ref, fast, f"episode {episode} step {step} {options}", deep=step % 9 == 0)
        _compare(ref, fast, f"episode {episode} end {options}", deep=True)
    assert "play" in kinds


def test_reset_positions_and_refusals_agree():
    """A given position plays out the same; a refused one changes neither env."""
    hands = [[5, 0, 1, 2, 3, 4, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16, 17]]
    boneyard = list(range(18, 28))
    envs = [allfives_env.env(backend=b, render_mode="ansi") for b in ("python", "numba")]
    for env in envs:
        env.reset(seed=4, options={"hands": hands, "boneyard": boneyard, "leader": 1, "scores": [35, 240.5]})
    assert envs[0].render() == envs[1].render()
    np.testing.assert_array_equal(envs[0].state(), envs[1].state())
    for env in envs:
        before = env.state().copy()
        with pytest.raises(ValueError, match="tile"):
            env.reset(options={"hands": [[0, 0, 1, 2, 3, 4, 6, 7, 8], hands[1]]})
        np.testing.assert_array_equal(env.state(), before)
    for env in envs:
        with pytest.raises(IllegalActionError, match="not legal"):
            env.step(0)  # [0|0] at W: seat 0 does not lead
    assert envs[0].agent_selection == envs[1].agent_selection == "player_1"


def test_backend_choice_and_errors():
    assert allfives_env.env().unwrapped.backend == "numba"  # numba is a dependency
    assert allfives_env.env(encoder="history").unwrapped.backend == "python"  # auto falls back
    with pytest.raises(ValueError, match="backend='numba' builds only the default"):
        allfives_env.env(backend="numba", encoder=HistoryEncoder)
    with pytest.raises(ValueError, match=r"backend='jax' is not allowed; allowed: \['auto', 'numba', 'python'\]"):
        allfives_env.env(backend="jax")


def _permute_hidden(core, observer, rng):
    """Copies of the compiled core's state arrays with every tile the observer
    cannot see (not in its hand, not played) permuted: other hands, the whole deal
    order (boneyard included) and another seat's pending drawn tile."""

    st, hands = core._st.copy(), core._hands.copy()
    n = core.config.num_players
    played = 0
    for seat in range(n):
        played |= int(hands[0, state.PLAYED_MASK + seat])
    hidden = [t for t in range(28) if not (int(hands[0, observer]) >> t & 1) and not (played >> t & 1)]
    mapping = dict(zip(hidden, rng.permutation(hidden).tolist()))
    for seat in range(n):
        if seat != observer:
            old = int(hands[0, seat])
            hands[0, seat] = sum(1 << mapping.get(t, t) for t in range(28) if old >> t & 1)
    for i in range(28):
        st[0, state.ORDER + i] = mapping.get(int(st[0, state.ORDER + i]), int(st[0, state.ORDER + i]))
    must = int(st[0, state.MUST_PLAY])
    if must >= 0 and int(st[0, state.TO_MOVE]) != observer:
        st[0, state.MUST_PLAY] = mapping[must]
    return st, hands, any(mapping[t] != t for t in hidden)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_observations_never_read_hidden_tiles(num_players):
    """No leak in the kernels' encoder: with every hidden tile permuted, each
    seat's observation (and the mover's mask) is unchanged, at every decision."""
    env = allfives_env.env(num_players=num_players, backend="numba")
    core = env.unwrapped.core
    rng, chooser = np.random.default_rng(num_players), np.random.default_rng(7)
    obs = np.zeros_like(core._obs)
    masks = np.zeros_like(core.masks)
    moved = 0
    for episode in range(2):
        env.reset(seed=episode)
        for agent in env.agent_iter():
            observation, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            for observer in range(num_players):
                st, hands, changed = _permute_hidden(core, observer, rng)
                moved += changed
                if observer == core.to_move:
                    assert aec.aec_settle(st, hands, core._scores.copy(), core._gains.copy(), core._cfg, core._fcfg,
                                        core._off, obs, masks) == observer
                    np.testing.assert_array_equal(masks, core.masks)
                else:
                    aec.aec_observe(observer, st, hands, core._scores, core._cfg, core._fcfg, core._off, obs, masks)
                np.testing.assert_array_equal(obs[0], core.observe(observer))
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[chooser.integers(len(legal))]))
    assert moved > 200
