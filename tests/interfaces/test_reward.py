"""Reward interfaces: ScaleReward, ClipReward, ShapeReward, PotentialShaping."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import AgtItfWrapper, EnvItfWrapper, RandomAgent, play
from arena.testing import check_env, check_interface
from arena.testing.strategies import spaces as any_space
from interfaces import ClipReward, EgoBoard, Flatten, PotentialShaping, ScaleReward, ShapeReward

rewards = st.floats(-1e6, 1e6, allow_nan=False)


@settings(max_examples=30, deadline=None)
@given(any_space(max_depth=1), any_space(max_depth=1), st.floats(-10, 10), rewards)
def test_scale_reward_keeps_the_contract_and_scales(observation_space, action_space, factor, reward):
    itf = ScaleReward(factor=factor)
    check_interface(itf, observation_space, action_space, examples=5)
    assert itf.transform_reward(reward) == pytest.approx(reward * factor)


@settings(max_examples=30, deadline=None)
@given(any_space(max_depth=1), any_space(max_depth=1), st.floats(-5, 0), st.floats(0, 5), rewards)
def test_clip_reward_keeps_the_contract_and_clips(observation_space, action_space, low, high, reward):
    itf = ClipReward(low=low, high=high)
    check_interface(itf, observation_space, action_space, examples=5)
    assert low <= itf.transform_reward(reward) <= high
    assert itf.transform_reward(reward) == (reward if low <= reward <= high else itf.transform_reward(reward))


def test_reward_arguments_are_validated():
    with pytest.raises(ValueError, match="ClipReward: low must not exceed high, got low=1, high=0"):
        ClipReward(low=1, high=0)
    with pytest.raises(TypeError, match="ScaleReward: factor must be a real number, got 'big'"):
        ScaleReward(factor="big")
    with pytest.raises(ValueError, match="ScaleReward: factor must be finite, got inf"):
        ScaleReward(factor=float("inf"))
    with pytest.raises(
        TypeError,
        match=r"ShapeReward: shaping must be callable as "
        r"shaping\(observation, action, reward\), "
        r"got int",
    ):
        ShapeReward(shaping=3)


def test_shape_reward_shapes_each_decision_once_with_the_observation_acted_on():
    seen = []

    def shaping(observation, action, reward):
        seen.append((observation, action, reward))
        return reward + 10 * action

    itf = ShapeReward(shaping=shaping)
    itf.setup(spaces.Discrete(5), spaces.Discrete(3))
    itf.transform_reset(0)
    assert itf.transform_reward(0.5) == 0.5  # no action yet this episode
    itf.transform_action(2)
    itf.transform_observation(4)  # the next observation may arrive before the reward (agent side)
    assert itf.transform_reward(1.0) == 21.0
    assert itf.transform_reward(1.0) == 1.0  # the decision was shaped already
    itf.transform_action(1)
    itf.transform_reset(3)  # a new episode forgets the open decision
    assert itf.transform_reward(-1.0) == -1.0
    assert seen == [(0, 2, 1.0)]
    bad = ShapeReward(shaping=lambda o, a, r: "x")
    bad.setup(spaces.Discrete(2), spaces.Discrete(2))
    bad.transform_reset(0)
    bad.transform_action(1)
    with pytest.raises(TypeError, match=r"ShapeReward\(shaping=.*\): shaping must return a real number, got 'x'"):
        bad.transform_reward(0.0)


def test_reward_stack_on_tic_tac_toe_passes_check_env_and_shapes_each_decision_once():
    def stack():
        return ShapeReward(
            ScaleReward(Flatten(EgoBoard()), factor=2.0),
            shaping=lambda observation, action, reward: reward + 0.1 * action,
        )

    check_env(EnvItfWrapper(envs.make("tic_tac_toe"), stack()), episodes=2)
    env = EnvItfWrapper(envs.make("tic_tac_toe"), stack())
    env.reset(seed=0)
    pieces = {"player_0": [], "player_1": []}
    for agent, cell in [("player_0", 0), ("player_1", 3), ("player_0", 1), ("player_1", 4), ("player_0", 2)]:
        _, rewards, *_ = env.step({agent: cell})
        for who, reward in rewards.items():
            pieces[who].append(round(reward, 6))
    # player_0 wins the top row (raw +1 scaled to 2). The reward of the step an agent acts
    # in is shaped by 0.1 * its action; rewards during the other's turn pass unchanged.
    assert pieces["player_0"] == [0.0, 0.0, 0.1, 0.0, 2.2]
    assert pieces["player_1"] == [0.0, 0.3, 0.0, 0.4, -2.0]
    agents = [AgtItfWrapper(RandomAgent(), stack()) for _ in range(2)]
    episode = play(envs.make("tic_tac_toe"), agents, seed=5)
    assert episode.length >= 5


def test_each_shaping_class_takes_its_own_function_and_points_to_the_other():
    with pytest.raises(TypeError, match=r"ShapeReward: give shaping=\(observation, action, reward\)->float"):
        ShapeReward()
    with pytest.raises(TypeError, match=r"ShapeReward: potential-based shaping is PotentialShaping\(potential="):
        ShapeReward(potential=float, shaping=lambda o, a, r: r)
    with pytest.raises(TypeError, match=r"PotentialShaping: give potential=observation->float"):
        PotentialShaping()
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'shaping'"):
        PotentialShaping(potential=float, shaping=lambda o, a, r: r)
    with pytest.raises(
        TypeError,
        match=r"PotentialShaping: potential must be callable as potential\(observation\), "
        r"got str",
    ):
        PotentialShaping(potential="x")
    assert {"shaping"} <= set(vars(ShapeReward(shaping=lambda o, a, r: r))) and not hasattr(ShapeReward, "gamma")
    assert str(PotentialShaping(potential=float, gamma=0.5)) == "PotentialShaping(potential=float, gamma=0.5)"
    bad = PotentialShaping(potential=lambda observation: None)
    bad.setup(spaces.Discrete(2), spaces.Discrete(2))
    with pytest.raises(TypeError, match=r"potential must return a real number, got None"):
        bad.transform_reset(0)


def _board_potential(observation):
    return 0.1 * float(np.sum(np.abs(observation))) + 0.05


class _Recorder(RandomAgent):
    """A random agent that sums every reward it hears and keeps its first observation."""

    def reset(self, *, seed=None):
        super().reset(seed=seed)
        self.first, self.total = None, 0.0

    def act(self, observation, action_mask=None, reward=0.0):
        if self.first is None:
            self.first = observation
        self.total += reward
        return super().act(observation, action_mask, reward)

    def done(self, reward, info):
        self.total += reward


def _stack():
    return PotentialShaping(Flatten(EgoBoard()), potential=_board_potential)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["tic_tac_toe", "connect_four"]), st.integers(0, 2**31 - 1))
def test_potential_shaping_telescopes_on_the_agent_side(name, seed):
    """Shaped return = unshaped return - potential(first observation): the last potential is subtracted."""
    players = [_Recorder(), _Recorder()]
    episode = play(envs.make(name), [AgtItfWrapper(player, _stack()) for player in players], seed=seed)
    for agent, player in zip(envs.make(name).possible_agents, players):
        assert player.total == pytest.approx(episode.returns[agent] - _board_potential(player.first))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["tic_tac_toe", "connect_four"]), st.integers(0, 2**31 - 1))
def test_potential_shaping_telescopes_on_the_env_side(name, seed):
    """Rewards during the other player's turn and the final one (on its move) are all counted once."""
    shaped, firsts = _random_returns(EnvItfWrapper(envs.make(name), _stack()), seed)
    raw, _ = _random_returns(envs.make(name), seed)
    for agent in raw:
        assert shaped[agent] == pytest.approx(raw[agent] - _board_potential(firsts[agent]))


def test_potential_shaping_keeps_the_last_potential_when_truncated():
    itf = PotentialShaping(potential=float)
    itf.setup(spaces.Discrete(9), spaces.Discrete(2))
    itf.transform_reset(2)
    itf.transform_observation(5)
    assert itf.transform_done(0.0, terminated=False, truncated=True) == 3.0
    itf.transform_reset(2)
    itf.transform_observation(5)
    assert itf.transform_done(0.0, terminated=True, truncated=False) == -2.0


def _random_returns(env, seed):
    """Play random legal moves (from a seeded generator); every reward summed per agent, first observations."""
    rng = np.random.default_rng(seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    firsts = {}
    observations, infos = env.reset(seed=seed)
    while observations:
        actions = {}
        for agent, observation in observations.items():
            firsts.setdefault(agent, observation)
            actions[agent] = int(rng.choice(np.flatnonzero(infos[agent]["action_mask"])))
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
    return returns, firsts
