"""The guard accepts exactly the actions the env would accept, and charges the rest to the agent."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given
from hypothesis import strategies as st

from arena import Agent
from arena.env import MultiAgentEnv
from arena.errors import Forfeit, InvalidActionError
from arena.runtime.guard import GuardedAgent


class Fixed(Agent):
    def __init__(self, action):
        self.action = action

    def act(self, observation, action_mask=None, reward=0.0):
        return self.action


class OneSeat(MultiAgentEnv):
    def __init__(self, space):
        self.possible_agents = ["p"]
        self.action_spaces = {"p": space}
        self.observation_spaces = {"p": spaces.Discrete(1)}


actions = st.one_of(
    st.integers(-3, 12), st.integers(-3, 12).map(np.int64), st.booleans(), st.floats(0, 9), st.just("2"), st.none()
)


@given(start=st.integers(-2, 2), n=st.integers(1, 8), action=actions, data=st.data())
def test_the_guard_agrees_with_the_env_on_discrete_actions(start, n, action, data):
    space = spaces.Discrete(n, start=start)
    mask = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int8)
    guard = GuardedAgent(Fixed(action), "bot")
    guard.setup(spaces.Discrete(1), space)
    try:
        OneSeat(space).check_actions({"p": action}, ["p"], {"p": mask})
        env_accepts = True
    except InvalidActionError:
        env_accepts = False
    try:
        assert guard.act(0, mask) is action
        guard_accepts = True
    except Forfeit as forfeit:
        assert forfeit.entrant == "bot"
        guard_accepts = False
    assert guard_accepts == env_accepts


def test_non_discrete_spaces_are_checked_by_contains():
    box = spaces.Box(0.0, 1.0, (2,))
    guard = GuardedAgent(Fixed(np.array([2.0, 0.0], dtype=np.float32)), "bot")
    guard.setup(spaces.Discrete(1), box)
    with pytest.raises(
        Forfeit, match=r"bot forfeits: invalid action: array\(\[2., 0.\], dtype=float32\) does not lie in Box"
    ):
        guard.act(0)
