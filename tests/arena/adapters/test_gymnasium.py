"""Gymnasium single-agent views: a gymnasium.Env in arena, and one arena seat as a gymnasium.Env."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import Agent, IllegalActionError, RandomAgent, play
from arena.adapters.gymnasium import from_gymnasium, to_gymnasium
from arena.errors import ArenaError, ResetNeeded, UnknownAgentError
from arena.seeding import derive_seed
from arena.testing import check_env
from tests.arena.scripted_envs import DoubleMoveEnv
from tests.quick import probe, quick_make


class _Recorder(Agent):
    """Plays a fixed action (or the first legal one) and records what the env told it."""

    def __init__(self, action: int = 0) -> None:
        self.action = action
        self.rewards: list[float] = []
        self.finals: list[float] = []

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.rewards.append(reward)
        if action_mask is not None and not action_mask[self.action]:
            return int(np.flatnonzero(action_mask)[0])
        return self.action

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.finals.append(reward)


class _MaskedBandit(gymnasium.Env):
    """A one-step gymnasium env that reports an action mask (bool) in its info."""

    observation_space = spaces.Discrete(1)
    action_space = spaces.Discrete(3)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return 0, {"action_mask": np.array([True, False, True])}

    def step(self, action):
        return 0, float(action), True, False, {}


# -------------------------------------------------------------------- gymnasium -> arena
def test_cartpole_as_one_agent_arena_env_passes_check_env_and_plays() -> None:
    env = from_gymnasium(gymnasium.make("CartPole-v1"))
    check_env(env)
    episode = play(env, [RandomAgent()], seed=0)
    assert episode.returns["agent_0"] == episode.length  # CartPole pays 1 per step
    assert play(env, [RandomAgent()], seed=0).returns == episode.returns


def test_gymnasium_masks_become_int8_and_are_enforced() -> None:
    env = from_gymnasium(_MaskedBandit(), agent="bandit")
    observations, infos = env.reset(seed=0)
    mask = infos["bandit"]["action_mask"]
    assert mask.dtype == np.int8 and mask.tolist() == [1, 0, 1]
    with pytest.raises(IllegalActionError, match=r"action 1 for 'bandit' is illegal now; legal actions: \[0, 2\]"):
        env.step({"bandit": 1})
    check_env(env)


def test_from_gymnasium_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError, match="from_gymnasium: expected a gymnasium.Env, got TicTacToe"):
        from_gymnasium(envs.make("tic_tac_toe"))
    with pytest.raises(TypeError, match="from_gymnasium: the agent id must be a str, got 0"):
        from_gymnasium(gymnasium.make("CartPole-v1"), agent=0)


# -------------------------------------------------------------------- arena -> gymnasium
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("view", ["cartpole", "tic_tac_toe_second_seat", "rock_paper_scissors", "double_move_b"])
def test_single_agent_views_pass_gymnasium_check_env(view: str) -> None:
    if view == "cartpole":
        env = to_gymnasium(from_gymnasium(gymnasium.make("CartPole-v1")))
    elif view == "tic_tac_toe_second_seat":
        env = to_gymnasium(envs.make("tic_tac_toe", illegal_action="penalty"), "player_1", {"player_0": RandomAgent()})
    elif view == "rock_paper_scissors":
        env = to_gymnasium(envs.make("rock_paper_scissors"), "player_0", {"player_1": RandomAgent()})
    else:
        env = to_gymnasium(DoubleMoveEnv(), "b", {"a": RandomAgent()})
    gymnasium_check_env(env, skip_render_check=True)


def test_rewards_during_opponent_turns_reach_the_seat_and_match_play() -> None:
    # DoubleMoveEnv: b earns 5 while a moves (turn 3), then the winner's 1 at the very end.
    seat = to_gymnasium(DoubleMoveEnv(), "b", {"a": _Recorder(2)})
    observation, info = seat.reset(seed=0)
    assert observation == 4  # a moved twice (2 + 2) before b's first turn
    total, steps, terminated = 0.0, 0, False
    while not terminated:
        observation, reward, terminated, truncated, info = seat.step(1)
        total += reward
        steps += 1
    expected = play(DoubleMoveEnv(), {"a": _Recorder(2), "b": _Recorder(1)}, seed=0).returns["b"]
    assert (steps, total, expected) == (3, 5.0, 5.0)
    with pytest.raises(ResetNeeded, match=r"step\(\) called with no episode running"):
        seat.step(1)


def test_opponents_hear_rewards_and_their_final_reward_once() -> None:
    opponent = _Recorder(0)
    seat = to_gymnasium(envs.make("tic_tac_toe"), "player_1", {"player_0": opponent})
    seat.reset(seed=0)
    for action in (3, 5):  # player_0 plays 0, 1, 2: a row
        observation, reward, terminated, truncated, info = seat.step(action)
    assert terminated and not truncated and reward == -1.0
    assert opponent.finals == [1.0] and opponent.rewards == [0.0, 0.0, 0.0]
    assert observation.tolist() == [[1, 1, 0], [2, 0, 0], [0, 0, 0]]  # the last board the seat acted on


def test_seat_view_is_reproducible_from_the_seed() -> None:
    def run(seed: int) -> list[Any]:
        seat = to_gymnasium(envs.make("tic_tac_toe"), "player_1", {"player_0": RandomAgent()})
        observation, info = seat.reset(seed=seed)
        trace = [observation.tolist()]
        terminated = truncated = False
        while not (terminated or truncated):
            action = int(np.flatnonzero(seat.action_masks())[0])
            observation, reward, terminated, truncated, info = seat.step(action)
            trace.append((observation.tolist(), reward))
        return trace

    assert run(7) == run(7)
    assert any(run(7) != run(seed) for seed in range(8, 12))


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    name=st.sampled_from(
        [name for name in envs.names() if probe(name).metadata.get("reproducible", True) is not False]
    ),
)
def test_seat_returns_equal_play_returns(seed: int, name: str) -> None:
    """The seat's summed rewards equal what arena.play gives that seat with the same agents."""
    env = quick_make(name)
    seat_id = env.possible_agents[-1]
    agents = {agent: RandomAgent() for agent in env.possible_agents}
    episode = play(quick_make(name), agents, seed=seed)

    seat_agent = RandomAgent()
    view = to_gymnasium(quick_make(name), seat_id, {a: RandomAgent() for a in env.possible_agents if a != seat_id})
    seat_agent.setup(view.observation_space, view.action_space)
    seat_agent.reset(seed=derive_seed(seed, env.possible_agents.index(seat_id)))
    observation, info = view.reset(seed=seed)
    total, reward, done = 0.0, 0.0, False
    while not done:
        action = seat_agent.act(observation, info.get("action_mask"), reward)
        observation, reward, terminated, truncated, info = view.step(action)
        total += reward
        done = terminated or truncated
    assert total == pytest.approx(episode.returns[seat_id])


def test_to_gymnasium_rejects_bad_seats_and_opponents() -> None:
    ttt = envs.make("tic_tac_toe")
    with pytest.raises(ValueError, match=r"has agents \['player_0', 'player_1'\]; name the seat to play"):
        to_gymnasium(ttt)
    with pytest.raises(UnknownAgentError, match=r"has no agent 'player_9'; expected one of"):
        to_gymnasium(ttt, "player_9", {})
    with pytest.raises(ValueError, match=r"needs an opponent agent for \['player_1'\] \(the seat is 'player_0'\)"):
        to_gymnasium(ttt, "player_0", {})
    with pytest.raises(
        UnknownAgentError, match=r"opponents name 'player_0', which is not one of the other agents \['player_1'\]"
    ):
        to_gymnasium(ttt, "player_0", {"player_0": RandomAgent(), "player_1": RandomAgent()})
    with pytest.raises(TypeError, match=r"the opponent for 'player_1' must be an arena.Agent, got str"):
        to_gymnasium(ttt, "player_0", {"player_1": "random"})
    with pytest.raises(TypeError, match=r"opponents must be a dict of arena agents keyed by agent id, got list"):
        to_gymnasium(ttt, "player_0", [RandomAgent()])
    with pytest.raises(TypeError, match=r"to_gymnasium: expected an arena.MultiAgentEnv, got TimeLimit"):
        to_gymnasium(gymnasium.make("CartPole-v1"), "agent_0", {})


def test_an_episode_that_never_reaches_the_seat_is_reported() -> None:
    """The first move (a's) ends the game, so seat b is never asked to act."""

    class EndsAtOnce(DoubleMoveEnv):
        def step(self, actions):
            self.check_actions(actions, self._acting)
            self.agents, self._acting = [], None
            return {}, {"a": 0.0, "b": 0.0}, {"a": True, "b": True}, {"a": False, "b": False}, {"a": {}, "b": {}}

    seat = to_gymnasium(EndsAtOnce(), "b", {"a": RandomAgent()})
    with pytest.raises(ArenaError, match=r"the episode ended before the learner \('b'\) was asked to act"):
        seat.reset(seed=0)


def test_to_gymnasium_is_the_single_agent_bridge_with_one_seat():
    """One implementation, one set of semantics: the preset is a SingleAgentEnv."""
    from arena.training import SingleAgentEnv

    seat = to_gymnasium(envs.make("tic_tac_toe"), "player_1", {"player_0": RandomAgent()})
    assert isinstance(seat, SingleAgentEnv) and seat.seats == ["player_1"]
    seat.reset(seed=0)
    assert seat.action_masks().dtype == bool
    opponent = _Recorder(0)
    abandoned = to_gymnasium(envs.make("tic_tac_toe"), "player_1", {"player_0": opponent})
    abandoned.reset(seed=0)
    abandoned.reset(seed=1)  # the opponent hears the end of the abandoned episode
    assert opponent.finals == [0.0]
