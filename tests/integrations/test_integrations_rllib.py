"""Ray RLlib: the multi-agent adapter, the action-masking module, and one PPO
self-play iteration on a local Ray cluster through the example script.

ray is installed by scripts/setup.sh (the ``rllib`` extra): a missing import
is a failure here, not a skip."""

import json

import numpy as np
import pytest
import ray  # noqa: F401  (fails, not skips, when the extra is missing)
import torch
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from support import load_script

from allfives_env import IllegalActionError
from allfives_env.arena import run_match
from allfives_env.integrations.rllib import (
    ActionMaskingPPOModule,
    AllFivesMultiAgentEnv,
    RLlibAgent,
    masked_ppo_spec,
    observation_space,
)
from allfives_env.rules import RulesConfig

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")


@pytest.fixture(autouse=True)
def algorithm_logs_in_tmp_path(monkeypatch, tmp_path):
    """An RLlib Algorithm built outside Tune makes an empty log folder in ~/ray_results (the path Ray
    reads at import time); put it in the test's own ``tmp_path`` instead of the user's home."""
    monkeypatch.setattr("ray.tune.trainable.trainable.DEFAULT_STORAGE_PATH", str(tmp_path / "ray_results"),
                        raising=False)


def play(env, seed, rng):
    """Random legal play through one episode; checks the turn protocol and
    returns each agent's summed reward and the final infos."""
    obs, infos = env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    assert len(obs) == 1
    while True:
        (agent, o), = obs.items()
        assert env.observation_spaces[agent].contains(o)
        assert o["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        assert not truncateds["__all__"] and set(rewards) == set(obs)
        for a, r in rewards.items():
            totals[a] += r
        if terminateds["__all__"]:
            assert set(obs) == set(env.possible_agents)
            assert all(not o["action_mask"].any() for o in obs.values())
            return totals, infos
        assert len(obs) == 1


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_agent_receives_its_sides_points(num_players):
    env = AllFivesMultiAgentEnv({"num_players": num_players, "target": 100})
    rng = np.random.default_rng(num_players)
    config = env.aec.config
    for seed in range(4):
        totals, infos = play(env, seed, rng)
        scores = infos["player_0"]["scores"]
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(scores[config.side_of(seat)])


def test_reward_scale_multiplies_every_reward():
    plain, _ = play(AllFivesMultiAgentEnv({"num_players": 3}), 1, np.random.default_rng(1))
    scaled, _ = play(AllFivesMultiAgentEnv({"num_players": 3, "reward_scale": 0.5}), 1, np.random.default_rng(1))
    assert scaled == pytest.approx({a: r / 2 for a, r in plain.items()})


def test_seeded_reset_replays():
    def run(seed):
        env = AllFivesMultiAgentEnv({"num_players": 3, "reward": "zero_sum"})
        return play(env, seed, np.random.default_rng(0))

    assert run(5) == run(5)


def test_illegal_actions_and_bad_config():
    env = AllFivesMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs2, rewards, terminateds, _, infos = env.step({agent: illegal})
    assert rewards == {agent: -1.0} and infos[agent]["illegal_action"] and not terminateds["__all__"]
    assert np.array_equal(obs2[agent]["observations"], o["observations"])
    with pytest.raises(ValueError, match="is to move"):
        env.step({"player_9": 0})
    other = "player_1" if agent == "player_0" else "player_0"

    def position():
        game = env.aec.game
        return tuple(game.scores), tuple(game.hands), tuple(game.played_by), env.aec.agent_selection

    state = position()
    for extra in ({agent: 0, "player_9": 0}, {agent: 0, other: 0}):  # the extra action was dropped unseen
        with pytest.raises(ValueError, match=rf"{agent} is to move, alone; got actions for .*allowed: "):
            env.step(extra)
    assert position() == state
    strict = AllFivesMultiAgentEnv({"illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    (agent, o), = obs.items()
    with pytest.raises(IllegalActionError, match="legal now"):
        strict.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['players'\]"):
        AllFivesMultiAgentEnv({"players": 2})
    with pytest.raises(ValueError, match=r"^unknown option\(s\) \['reward_scal'\]; allowed: \['illegal_action', "
                                         r"'illegal_reward', 'reward_scale', 'num_players', "):
        AllFivesMultiAgentEnv({"reward_scal": 0.02})  # its own options were not listed
    with pytest.raises(ValueError, match="illegal_action='skip' is not allowed"):
        AllFivesMultiAgentEnv({"illegal_action": "skip"})


@pytest.mark.parametrize("config, message", [
    ({"reward_scale": "x"}, r"reward_scale='x' is not allowed; allowed: a positive, finite number"),
    ({"reward_scale": True}, r"reward_scale=True is not allowed"),
    ({"illegal_reward": float("nan")}, r"illegal_reward=nan is not allowed"),
    ({"illegal_action": None}, r"illegal_action=None is not allowed; allowed: \['penalize', 'raise'\]"),
    ({"auto_forced": "no"}, r"auto_forced='no' is not allowed; allowed: True or False"),
    ({"num_players": "4"}, r"num_players='4' is not allowed"),
    ("num_players=2", r"config='num_players=2' is not allowed; allowed: None or a dict"),
])
def test_config_values_of_the_wrong_type(config, message):
    with pytest.raises(ValueError, match=message):
        AllFivesMultiAgentEnv(config)


def test_step_before_reset_and_bad_seed():
    from allfives_env.env.aec import ResetNeededError

    env = AllFivesMultiAgentEnv({"num_players": 2})
    with pytest.raises(ResetNeededError, match=r"before reset\(\)"):
        env.step({"player_0": 0})
    with pytest.raises(ValueError, match="seed='abc' is not allowed; allowed: None or a non-negative integer"):
        env.reset(seed="abc")
    obs, _ = env.reset(seed=1)
    with pytest.raises(ValueError, match="action_dict=3 is not allowed"):
        env.step(3)


def test_masking_module_only_samples_legal_actions():
    spec = masked_ppo_spec(hiddens=[16])
    module = ActionMaskingPPOModule(observation_space=observation_space(277), action_space=spaces.Discrete(114),
                                    inference_only=False, model_config=spec.model_config)
    mask = torch.zeros(8, 114)
    for row in range(8):
        mask[row, [row, 50 + row, 112]] = 1.0
    batch = {Columns.OBS: {"observations": torch.randn(8, 277), "action_mask": mask}}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, -1)
        assert torch.all(probs[mask == 0] < 1e-12)
    with pytest.raises(ValueError, match="'observations' and 'action_mask'"):
        ActionMaskingPPOModule(observation_space=spaces.Box(0, 1, (3,)), action_space=spaces.Discrete(114),
                               model_config=spec.model_config)
    # the module as an arena agent plays only legal moves
    match = run_match(RulesConfig(num_players=2, target=60), [RLlibAgent(module), "greedy"], games=2, seed=0)
    assert len(match.games) == 2


def test_example_runs_one_selfplay_iteration_on_a_local_cluster(tmp_path):
    example = load_script("examples/rllib_selfplay.py")
    out = tmp_path / "run.json"
    summary = example.main(["--iterations", "1", "--batch-size", "256", "--minibatch-size", "128", "--epochs", "1",
                            "--hiddens", "32", "--num-cpus", "1", "--eval-games", "4", "--json", str(out)])
    assert not ray.is_initialized()  # the script shut its cluster down
    (it,) = summary["train"]
    assert it["env_steps"] >= 256 and np.isfinite(it["policy_loss"]) and np.isfinite(it["vf_loss"])
    assert [m["agents"][1]["spec"] for m in summary["eval"]] == ["greedy", "random"]
    for match in summary["eval"]:
        assert match["games"] == 4 and match["agents"][0]["spec"] == "rllib_ppo"
    assert json.loads(out.read_text())["train"][0]["iteration"] == 1


def test_the_example_runs_unchanged_on_a_two_node_cluster():
    """A head and a worker node (ray.cluster_utils.Cluster: two raylets on this machine, one CPU each); the
    example, given the cluster's --address, spreads its two env runners over both nodes."""
    from ray.cluster_utils import Cluster

    example = load_script("examples/rllib_selfplay.py")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address)
        nodes = {node["NodeID"] for node in ray.nodes() if node["Alive"]}
        assert len(nodes) == 2
        summary = example.main(["--address", cluster.address, "--num-env-runners", "2", "--iterations", "2",
                                "--batch-size", "256", "--minibatch-size", "128", "--epochs", "1", "--hiddens", "32",
                                "--eval-games", "2", "--eval-against", "greedy"])
        assert set(summary["env_runner_nodes"]) == nodes  # one env runner on each node
        assert summary["train"][-1]["env_steps"] >= 512
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.mark.parametrize("action", [0.7, "0", np.float64(0.5), True, None, float("inf")])
def test_an_action_that_is_not_an_id_is_refused_not_rounded(action):
    """int(0.7) and int("0") are 0: the adapter must not play action 0 for them."""
    env = AllFivesMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    with pytest.raises(IllegalActionError, match=r"is not an integer; allowed: integers 0\.\.113"):
        env.step({agent: action})
    assert env.aec.agent_selection == agent and np.array_equal(env.aec.observe(agent)["observation"],
                                                               o["observations"])


def test_the_illegal_action_reward_is_scaled_like_every_other():
    env = AllFivesMultiAgentEnv({"num_players": 2, "reward_scale": 0.1, "illegal_reward": -2.0})
    obs, _ = env.reset(seed=0)
    (agent, o), = obs.items()
    _, rewards, _, _, _ = env.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    assert rewards == {agent: pytest.approx(-0.2)}


def test_a_repeated_illegal_action_reports_the_waiting_reward_once():
    """Penalized illegal actions: what the agent gained since it last acted comes with the first answer,
    and is not paid again with the next one (each answer: only the new penalty)."""

    env = AllFivesMultiAgentEnv({"num_players": 2, "reward": "zero_sum"})
    rng = np.random.default_rng(0)
    for seed in range(20):
        obs, _ = env.reset(seed=seed)
        while True:
            (agent, o), = obs.items()
            waiting = env.aec._cumulative_rewards[agent]
            if waiting != 0:
                illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
                _, r1, _, _, _ = env.step({agent: illegal})
                _, r2, _, _, _ = env.step({agent: illegal})
                assert r1 == {agent: pytest.approx(waiting - 1.0)}
                assert r2 == {agent: pytest.approx(-1.0)}
                return
            obs, _, term, _, _ = env.step({agent: int(rng.choice(np.flatnonzero(o["action_mask"])))})
            if term["__all__"]:
                break
    pytest.fail("no decision with a waiting reward")
