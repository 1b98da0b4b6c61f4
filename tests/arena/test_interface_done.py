"""Interfaces hear the end of an episode (Interface.done) on every driver: EnvItfWrapper,
AgtItfWrapper through arena.play, SingleAgentEnv, and Combine's members."""

from __future__ import annotations

import pytest
from gymnasium import spaces

import envs
from arena import AgtItfWrapper, Combine, EnvItfWrapper, Interface, RandomAgent, play
from arena.training import SingleAgentEnv
from tests.arena.scripted_envs import LeavingEnv


class EndLog(Interface):
    """Records every done() call; its final reward is the reward plus 100."""

    def __init__(self, inner=None):
        super().__init__(inner)
        self.ends = []

    def done(self, reward, *, terminated, truncated):
        self.ends.append((reward, terminated, truncated))
        return reward + 100.0


def test_env_wrapper_calls_done_once_per_agent_with_the_final_reward():
    env = EnvItfWrapper(LeavingEnv(), EndLog())
    observations, _ = env.reset(seed=0)
    collected = {agent: [] for agent in env.possible_agents}
    while observations:
        observations, rewards, terminations, truncations, _ = env.step({a: 0 for a in observations})
        for agent, reward in rewards.items():
            collected[agent].append(reward)
    for agent, itf in env.interfaces.items():
        assert len(itf.ends) == 1, agent
        reward, terminated, truncated = itf.ends[0]
        assert terminated and not truncated
        assert collected[agent][-1] == reward + 100.0  # the final reward went through done(), not reward()
    assert collected["c"] == [101.0] and collected["a"][-1] == 101.0


def test_play_tells_the_agent_side_interface_whether_the_episode_was_cut():
    cut = AgtItfWrapper(RandomAgent(), EndLog())
    other = AgtItfWrapper(RandomAgent(), EndLog())
    episode = play(envs.make("connect_four"), [cut, other], seed=0, max_steps=3)
    assert episode.truncated
    assert [flags for _, *flags in cut.interface.ends] == [[False, True]]
    finished = AgtItfWrapper(RandomAgent(), EndLog())
    play(envs.make("tic_tac_toe"), [finished, RandomAgent()], seed=0)
    assert [flags for _, *flags in finished.interface.ends] == [[True, False]]


def test_combine_members_hear_the_end_of_a_team_episode():
    left, right = EndLog(), EndLog()
    team = Combine(None, [left, right])
    team.setup(spaces.Tuple([spaces.Discrete(2)] * 2), spaces.Tuple([spaces.Discrete(2)] * 2))
    assert team.transform_done((1.0, -1.0), terminated=True, truncated=False) == (101.0, 99.0)
    assert team.transform_done(3.0, terminated=False, truncated=True) == 103.0  # a side's scalar reward
    assert left.ends == [(1.0, True, False), (3.0, False, True)] and right.ends[-1] == (3.0, False, True)


def test_single_agent_env_delivers_the_learners_final_reward_through_done():
    env = SingleAgentEnv(envs.make("tic_tac_toe"), "random", seats="player_0", interface=EndLog())
    env.reset(seed=3)
    terminated = truncated = False
    while not (terminated or truncated):
        _, reward, terminated, truncated, _ = env.step(int(env.action_masks().nonzero()[0][0]))
    assert len(env.interface.ends) == 1
    assert reward == env.interface.ends[0][0] + 100.0


def test_default_done_transforms_the_final_reward_like_any_reward():
    class Double(Interface):
        def reward(self, reward):
            return 2 * reward

    itf = EndLog(Double())
    itf.setup(spaces.Discrete(2), spaces.Discrete(2))
    assert itf.transform_done(1.5, terminated=True, truncated=False) == pytest.approx(103.0)
