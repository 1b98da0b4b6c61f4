"""EnvItfWrapper (multi-agent and Gymnasium) and AgtItfWrapper (single and team)."""

from __future__ import annotations

import copy

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gymnasium_check_env

import envs
from arena import (
    Agent,
    AgtItfWrapper,
    Combine,
    EnvItfWrapper,
    GymEnvItfWrapper,
    Interface,
    InvalidActionError,
    MaskTranslationError,
    MultiAgentEnvItfWrapper,
    RandomAgent,
    UnknownAgentError,
    play,
)
from arena.testing import check_env
from tests.arena.scripted_envs import LeavingEnv
from tests.arena.test_interface import Reverse, ReverseWithoutMasks


class Signed(Interface):
    """Board 0/1/2 -> float 0/+1/-1 (a space-changing observation interface)."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        self.observation_space = spaces.Box(-1.0, 1.0, box.shape, np.float32)

    def observation(self, observation):
        return np.where(observation == 2, -1.0, observation).astype(np.float32)


class Scale(Interface):
    def reward(self, reward):
        return 10 * reward


def test_env_wrapper_transforms_spaces_observations_masks_and_rewards():
    env = EnvItfWrapper(envs.make("tic_tac_toe"), {"player_0": Scale(Reverse(Signed())), "player_1": None})
    assert env.observation_space("player_0").dtype == np.float32
    assert env.observation_space("player_1") is env.unwrapped.observation_space("player_1")
    obs, infos = env.reset(seed=0)
    assert obs["player_0"].dtype == np.float32
    obs, rewards, *_, infos = env.step({"player_0": 0})  # reversed: raw cell 8
    assert obs["player_1"][2, 2] == 1
    obs, _, _, _, infos = env.step({"player_1": 0})
    assert obs["player_0"][0, 0] == -1.0  # player_1's raw move 0 seen through Signed
    assert infos["player_0"]["action_mask"].tolist() == [0, 1, 1, 1, 1, 1, 1, 1, 0]
    for model, other in [(1, 1), (2, 2)]:
        obs, rewards, terms, _, _ = env.step({"player_0": model})
        if terms["player_0"]:
            break
        env.step({"player_1": other})
    assert str(env) == "<MultiAgentEnvItfWrapper<TicTacToe>>"
    assert type(env) is MultiAgentEnvItfWrapper and isinstance(env, EnvItfWrapper)


def test_env_itf_wrapper_is_a_class_for_what_it_builds_and_its_subclasses():
    arena_env = EnvItfWrapper(envs.make("tic_tac_toe"), Signed())
    gym_env = EnvItfWrapper(gymnasium.make("CartPole-v1"), Scale())
    assert isinstance(arena_env, EnvItfWrapper) and isinstance(gym_env, EnvItfWrapper)
    assert issubclass(MultiAgentEnvItfWrapper, EnvItfWrapper) and issubclass(GymEnvItfWrapper, EnvItfWrapper)
    assert (
        str(arena_env) == "<MultiAgentEnvItfWrapper<TicTacToe>>" and type(arena_env.unwrapped).__name__ == "TicTacToe"
    )
    assert type(gym_env.unwrapped).__name__ == "CartPoleEnv"
    assert isinstance(copy.deepcopy(arena_env), MultiAgentEnvItfWrapper)

    class Counting(MultiAgentEnvItfWrapper):  # a concrete kind subclasses like any wrapper
        def step(self, actions):
            self.steps = getattr(self, "steps", 0) + 1
            return super().step(actions)

    counting = Counting(envs.make("tic_tac_toe"), Signed())
    counting.reset(seed=0)
    counting.step({"player_0": 4})
    assert counting.steps == 1 and isinstance(counting, EnvItfWrapper) and str(counting) == "<Counting<TicTacToe>>"
    with pytest.raises(
        TypeError, match="subclass MultiAgentEnvItfWrapper .* or GymEnvItfWrapper .*, not EnvItfWrapper"
    ):

        class Direct(EnvItfWrapper):  # which env would it wrap? refused when the class is made
            pass

    with pytest.raises(TypeError, match="expected an arena.MultiAgentEnv or gymnasium.Env, got str"):
        EnvItfWrapper("tic_tac_toe", Signed())


def test_agt_itf_wrapper_unwrapped_reaches_the_model_space_agent():
    inner = RandomAgent(seed=0)
    player = AgtItfWrapper(AgtItfWrapper(inner, Signed()), Signed())
    assert player.unwrapped is inner and str(player) == "AgtItfWrapper(AgtItfWrapper(RandomAgent, Signed()), Signed())"
    team = AgtItfWrapper([RandomAgent(), RandomAgent()], Combine(None, [Signed(), Signed()]))
    assert team.unwrapped is team  # a team's members are its agents: nothing single to reach


def test_env_wrapper_keeps_the_contract_on_bundled_envs():
    check_env(EnvItfWrapper(envs.make("tic_tac_toe"), [Reverse(Signed()), Signed()]))
    check_env(EnvItfWrapper(envs.make("rock_paper_scissors"), Scale()))


def test_one_interface_is_copied_for_each_agent():
    shared = Signed()
    env = EnvItfWrapper(envs.make("tic_tac_toe"), shared)
    assert env.interfaces["player_0"] is not env.interfaces["player_1"]


def test_env_wrapper_bad_arguments():
    with pytest.raises(UnknownAgentError, match=r"interfaces name unknown agent 'player_7'"):
        EnvItfWrapper(envs.make("tic_tac_toe"), {"player_7": Signed()})
    with pytest.raises(ValueError, match=r"has 2 possible agents .*got 3 interfaces"):
        EnvItfWrapper(envs.make("tic_tac_toe"), [None, None, None])
    with pytest.raises(TypeError, match="interface for 'player_0' must be an arena.Interface, got str"):
        EnvItfWrapper(envs.make("tic_tac_toe"), {"player_0": "flatten"})


def test_model_action_outside_the_model_space_names_the_model_space():
    env = EnvItfWrapper(envs.make("tic_tac_toe"), [Reverse(), None])
    env.reset()
    # the interface level refuses it first, naming itself, its space and what came
    with pytest.raises(InvalidActionError, match=r"Reverse\(\): action 12 is not in Discrete\(9\)"):
        env.step({"player_0": 12})


def test_untranslatable_mask_raises_instead_of_passing_a_wrong_mask():
    with pytest.raises(MaskTranslationError, match="does not translate action masks"):
        EnvItfWrapper(envs.make("tic_tac_toe"), [ReverseWithoutMasks(), None]).reset()


def test_gymnasium_env_gives_a_gymnasium_env_that_stacks_either_way():
    inner = gymnasium.make("CartPole-v1")
    env = EnvItfWrapper(inner, Scale())
    assert isinstance(env, GymEnvItfWrapper) and isinstance(env, gymnasium.Env)
    gymnasium_check_env(env, skip_render_check=True)
    outside = gymnasium.wrappers.TimeLimit(EnvItfWrapper(gymnasium.make("CartPole-v1"), Scale()), 5)
    inside = EnvItfWrapper(gymnasium.wrappers.TimeLimit(gymnasium.make("CartPole-v1"), 5), Scale())
    for env in (outside, inside):
        env.reset(seed=1)
        _, reward, *_ = env.step(0)
        assert reward == 10.0
    with pytest.raises(TypeError, match="a gymnasium.Env takes exactly one arena.Interface"):
        EnvItfWrapper(gymnasium.make("CartPole-v1"), [Scale()])


class FirstLegal(Agent):
    """Plays the first legal action of its own (model) space."""

    def act(self, observation, action_mask=None, reward=0.0):
        assert self.observation_space.contains(observation)
        return int(np.flatnonzero(action_mask)[0])


def test_heterogeneous_agents_on_different_interfaces_meet_on_the_raw_env():
    first = AgtItfWrapper(FirstLegal(), Signed())  # plays cells 0, 1, 2, ...
    last = AgtItfWrapper(FirstLegal(), Reverse(Signed()))  # plays cells 8, 7, 6, ...
    episode = play(envs.make("tic_tac_toe"), {"player_0": first, "player_1": last}, seed=0)
    assert episode.outcome == "player_0 wins" and episode.length == 5
    assert first.agent.observation_space.dtype == np.float32
    assert str(last) == "AgtItfWrapper(FirstLegal, Reverse(Signed()))"


class Recorder(Agent):
    def __init__(self):
        self.seen, self.rewards, self.final = [], [], []

    def act(self, observation, action_mask=None, reward=0.0):
        self.seen.append(observation)
        self.rewards.append(reward)
        return 1

    def done(self, reward, info):
        self.final.append(reward)


def test_team_agent_controls_several_env_agents_through_combine():
    members = [Recorder(), Recorder()]
    team = AgtItfWrapper(members, Combine(None, [Scale(), None]))
    solo = Recorder()
    episode = play(LeavingEnv(), {("a", "c"): team, "b": solo}, seed=0)
    assert episode.returns == {"a": 3.0, "b": 3.0, "c": 1.0}
    assert members[0].seen == [0, 1, 2] and members[1].seen == [0]  # c left after step 1
    assert team.members[0].observation_space == spaces.Discrete(10)
    # The team's reward is the members' sum: 0, 1, 1 while acting, then 2 at the end (c's 1 and a's last 1);
    # it goes through each member's interface (Scale: x10, None: as is) and the team hears the mean.
    assert members[0].rewards == [0.0, 5.5, 5.5] and members[0].final == members[1].final == [11.0]
    assert solo.final == [1.0] and sum(solo.rewards) + 1.0 == 3.0


def test_team_of_wrong_size_is_rejected_naming_the_spaces():
    from arena import SpaceMismatchError

    team = AgtItfWrapper([Recorder(), Recorder(), Recorder()], Combine(None, [None, None]))
    with pytest.raises(SpaceMismatchError, match="a team of 3 agents needs Tuple spaces of 3 elements"):
        play(LeavingEnv(), {("a", "c"): team, "b": Recorder()})
