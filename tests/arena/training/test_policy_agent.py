"""SB3Agent and load_sb3_agent: saved PPO / MaskablePPO policies playing as arena agents."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3 import DQN, PPO  # noqa: E402

import envs  # noqa: E402
from arena import ArenaError, RandomAgent, SpaceMismatchError, UnknownNameError, make_agent, play  # noqa: E402
from arena.agent_wrapper import AgtItfWrapper  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.testing import check_agent  # noqa: E402
from arena.training import SB3Agent, SingleAgentEnv, freeze, load_sb3_agent  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Briefly trained models on tic-tac-toe, saved: raw MaskablePPO, PPO, and MaskablePPO behind EgoBoard."""
    from interfaces.board import EgoBoard

    folder = tmp_path_factory.mktemp("models")
    paths = {}
    for key, cls, kwargs in (
        ("maskable", MaskablePPO, {}),
        ("ppo", PPO, {"illegal_action": "forfeit"}),
        ("ego", MaskablePPO, {"interface": EgoBoard()}),
    ):
        env = SingleAgentEnv("tic_tac_toe", "random", shuffle_seats=True, **kwargs)
        model = cls("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
        model.learn(64)
        paths[key] = str(folder / f"{key}.zip")
        model.save(paths[key])
    return paths


def random_positions(count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Tic-tac-toe positions from random play, with their masks."""
    env, rng = envs.make("tic_tac_toe"), np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        observations, infos = env.reset()
        while observations:
            ((agent, observation),) = observations.items()
            mask = infos[agent]["action_mask"]
            positions.append((observation, mask))
            observations, _, _, _, infos = env.step({agent: int(rng.choice(np.flatnonzero(mask)))})
    return positions[:count]


def test_deterministic_agent_matches_maskable_ppo_predict(saved: dict[str, str]) -> None:
    model = MaskablePPO.load(saved["maskable"], device="cpu")
    agent = load_sb3_agent(saved["maskable"])
    agent.setup(
        envs.make("tic_tac_toe").observation_space("player_0"), envs.make("tic_tac_toe").action_space("player_0")
    )
    for observation, mask in random_positions(60, seed=1):
        expected, _ = model.predict(observation, action_masks=mask.astype(bool), deterministic=True)
        assert agent.act(observation, mask) == int(expected)


@pytest.mark.parametrize("key,algo", [("maskable", "maskable-ppo"), ("ppo", "ppo")])
@pytest.mark.parametrize("deterministic", [True, False])
def test_agents_keep_the_agent_contract(saved: dict[str, str], key: str, algo: str, deterministic: bool) -> None:
    env = envs.make("tic_tac_toe")
    agent = load_sb3_agent(saved[key], algo=algo, deterministic=deterministic)
    # Random masks, reproducible after reset(seed): plain PPO never takes a masked action either.
    check_agent(agent, env.observation_space("player_0"), env.action_space("player_0"), steps=40)


def test_sampling_agent_is_seeded(saved: dict[str, str]) -> None:
    agent = load_sb3_agent(saved["maskable"], deterministic=False)
    env = envs.make("tic_tac_toe")
    agent.setup(env.observation_space("player_0"), env.action_space("player_0"))
    positions = random_positions(30, seed=2)

    def run(seed: int) -> list[int]:
        agent.reset(seed=seed)
        return [agent.act(obs, mask) for obs, mask in positions]

    assert run(3) == run(3)
    assert run(3) != run(4)


def test_plays_legal_games_on_the_raw_env(saved: dict[str, str]) -> None:
    env = envs.make("tic_tac_toe")
    for key, algo in (("maskable", "maskable-ppo"), ("ppo", "ppo")):
        agent = load_sb3_agent(saved[key], algo=algo)
        for seed in range(6):
            episode = play(env, [agent, RandomAgent()] if seed % 2 else [RandomAgent(), agent], seed=seed)
            assert episode.length >= 5


def test_interface_agent_plays_raw_env_and_factory_spec(saved: dict[str, str]) -> None:
    agent = make_agent("arena.training:load_sb3_agent", path=saved["ego"], interface="interfaces.board:EgoBoard")
    assert isinstance(agent, AgtItfWrapper)
    assert str(agent) == "AgtItfWrapper(maskable-ppo:ego.zip, EgoBoard())"
    episode = play(envs.make("tic_tac_toe"), [agent, RandomAgent()], seed=0)
    assert episode.length >= 5
    bare = load_sb3_agent(saved["ego"])
    env = envs.make("tic_tac_toe")
    with pytest.raises(
        SpaceMismatchError,
        match=r"maskable-ppo:ego.zip: the policy was trained on observations "
        r"Box\(-1.0, 1.0, \(3, 3\), float32\).*got Box\(0, 2, \(3, 3\), int8\).*interface",
    ):
        bare.setup(env.observation_space("player_0"), env.action_space("player_0"))


def test_dqn_agent_masks_its_q_values() -> None:
    single = SingleAgentEnv("tic_tac_toe", "random", illegal_action="forfeit")
    model = DQN("MlpPolicy", single, learning_starts=0, seed=0)
    agent = SB3Agent(model)
    check_agent(agent, single.observation_space, single.action_space, steps=30)


def test_frozen_snapshot_does_not_follow_training() -> None:
    single = SingleAgentEnv("tic_tac_toe", "random", shuffle_seats=True)
    model = MaskablePPO("MlpPolicy", single, n_steps=64, batch_size=32, n_epochs=2, seed=0)
    frozen = freeze(model)
    before = [p.clone() for p in frozen.parameters()]
    model.learn(64)
    assert all(torch.equal(a, b) for a, b in zip(before, frozen.parameters()))
    assert not all(torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    assert not frozen.training and not any(p.requires_grad for p in frozen.parameters())


def test_error_texts(saved: dict[str, str], tmp_path) -> None:
    with pytest.raises(UnknownNameError, match="unknown algorithm 'trpo'; expected one of maskable-ppo, ppo, a2c, dqn"):
        load_sb3_agent(saved["maskable"], algo="trpo")
    with pytest.raises(ArenaError, match="load_sb3_agent: no saved model at '.*nothing.zip'"):
        load_sb3_agent(tmp_path / "nothing.zip")
    with pytest.raises(TypeError, match="SB3Agent: expected a Stable-Baselines3 policy or model, got int"):
        SB3Agent(5)
    with pytest.raises(UnknownNameError, match="unknown interface 'ego'; known interfaces: .*ego_board"):
        build_interface("ego")
    with pytest.raises(TypeError, match="interface spec 'arena:RandomAgent' built RandomAgent, not an arena.Interface"):
        build_interface("arena:RandomAgent")
    assert str(build_interface("interfaces.observation:Flatten(interfaces.board:EgoBoard)")) == "Flatten(EgoBoard())"


class TalkEnv(gym.Env):
    """The spaces of a MultiDiscrete policy (a move and a word, as Pommerman's radio): enough for a model."""

    observation_space = spaces.Box(-1.0, 1.0, (4,), np.float32)
    action_space = spaces.MultiDiscrete([3, 4])

    def reset(self, *, seed=None, options=None):
        return np.zeros(4, np.float32), {}

    def step(self, action):
        return np.zeros(4, np.float32), 0.0, True, False, {}


def test_multidiscrete_agents_respect_each_components_mask_and_act_for_many_games() -> None:
    model = MaskablePPO("MlpPolicy", TalkEnv(), n_steps=8, seed=0, device="cpu")
    observations = np.random.default_rng(0).uniform(-1, 1, (5, 4)).astype(np.float32)
    masks = np.ones((5, 7), dtype=bool)
    masks[:, [0, 1]] = False  # the first component: only 2
    masks[2, 3:7] = [False, False, True, False]  # game 2's second component: only 2
    best = SB3Agent(model, deterministic=True)
    expected, _ = model.predict(observations, action_masks=masks, deterministic=True)
    assert best.act_batch(observations, masks).tolist() == expected.tolist()  # MaskablePPO's own choice
    assert best.act(observations[2], masks[2]).tolist() == expected[2].tolist()
    draws = np.concatenate(
        [SB3Agent(model, deterministic=False, seed=s).act_batch(observations, masks) for s in range(40)]
    )
    assert set(draws[:, 0].tolist()) == {2} and len(set(draws[:, 1].tolist())) == 4  # every word drawn somewhere
    assert set(draws[2::5, 1].tolist()) == {2}
    again = SB3Agent(model, deterministic=False, seed=3)
    assert again.act_batch(observations, masks).tolist() == draws[15:20].tolist()  # seeded by the agent
    masks[4, 3:7] = False
    with pytest.raises(ValueError, match="the action mask of game 4 allows no value of component 1"):
        best.act_batch(observations, masks)
    with pytest.raises(ValueError, match=r"expected masks of 7 flags a game \(components \[3, 4\]"):
        best.act_batch(observations, masks[:, :6])
