"""Team interfaces: ConcatenateTeam and team_interface."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import Agent, AgtItfWrapper, Combine, Interface, RandomAgent, SpaceMismatchError, play
from arena.testing import check_interface
from arena.testing.strategies import box_spaces, discrete_spaces
from arena.testing.strategies import spaces as any_space
from interfaces import ConcatenateTeam, Flatten, OneHot, RotateBoard, team_interface

multi_discrete_spaces = st.builds(spaces.MultiDiscrete, st.lists(st.integers(1, 4), min_size=1, max_size=3))
discrete_actions = st.lists(st.one_of(discrete_spaces(6), multi_discrete_spaces), min_size=1, max_size=3)
box_actions = st.lists(box_spaces(max_dims=2, max_side=3, dtypes=(np.float32, np.float64)), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(st.one_of(discrete_actions, box_actions), st.data())
def test_concatenate_team_keeps_the_contract(actions, data):
    observations = [data.draw(any_space(max_depth=1)) for _ in actions]
    check_interface(ConcatenateTeam(), spaces.Tuple(observations), spaces.Tuple(actions), examples=6)


def test_concatenate_team_splits_actions_and_joins_masks():
    itf = ConcatenateTeam()
    itf.setup(
        spaces.Tuple([spaces.Discrete(2), spaces.MultiBinary(2), spaces.Discrete(2)]),
        spaces.Tuple([spaces.Discrete(3, start=1), spaces.MultiDiscrete([2, 2]), spaces.Discrete(2)]),
    )
    assert itf.action_space == spaces.MultiDiscrete([3, 2, 2, 2], start=[1, 0, 0, 0])
    first, second, third = itf.transform_action(np.array([3, 1, 0, 1]))
    assert first == 3 and second.tolist() == [1, 0] and third == 1
    joined = itf.transform_action_mask((np.array([1, 0, 1], np.int8), None, np.array([0, 1], np.int8)))
    assert joined.tolist() == [1, 0, 1, 1, 1, 1, 1, 0, 1] and joined.dtype == np.int8
    observation = itf.transform_observation((1, None, 0))  # the second member is absent this turn
    assert observation.tolist() == [0.0, 1.0, 0.0, 0.0, 1.0, 0.0]


def test_concatenate_team_rejects_mixed_or_non_tuple_spaces():
    with pytest.raises(
        SpaceMismatchError,
        match=r"ConcatenateTeam\(\): members' actions must be all "
        r"Discrete/MultiDiscrete or all Box, got Tuple\(Discrete\(2\), Box",
    ):
        ConcatenateTeam().setup(
            spaces.Tuple([spaces.Discrete(2)] * 2), spaces.Tuple([spaces.Discrete(2), spaces.Box(0.0, 1.0, (1,))])
        )
    with pytest.raises(SpaceMismatchError, match=r"ConcatenateTeam\(\): needs a Tuple observation space, got Discrete"):
        ConcatenateTeam().setup(spaces.Discrete(2), spaces.Tuple([spaces.Discrete(2)]))
    with pytest.raises(SpaceMismatchError, match=r"cannot flatten Text\(1, 3, charset="):
        ConcatenateTeam().setup(spaces.Tuple([spaces.Text(3)]), spaces.Tuple([spaces.Discrete(2)]))


def test_team_interface_builds_on_combine():
    joined = team_interface([OneHot(), None])
    assert isinstance(joined, ConcatenateTeam) and isinstance(joined.inner, Combine)
    assert str(joined) == "ConcatenateTeam(Combine(None, [OneHot(), Interface()]))"
    separate = team_interface([Flatten(), RotateBoard(quarter_turns=2)], concatenate=False)
    assert isinstance(separate, Combine)
    with pytest.raises(TypeError, match="team_interface: members must be a non-empty sequence of arena.Interface"):
        team_interface(Flatten())
    board = spaces.Box(0, 2, (3, 3), np.int8)
    check_interface(
        team_interface([Flatten(), RotateBoard(quarter_turns=1)]),
        spaces.Tuple([board, board]),
        spaces.Tuple([spaces.Discrete(9), spaces.Discrete(9)]),
        examples=10,
    )


class AlwaysFirstChoice(Agent):
    """Picks the first choice of every MultiDiscrete component, checking each observation."""

    def act(self, observation, action_mask=None, reward=0.0):
        assert self.observation_space.contains(observation)
        return self.action_space.start.copy()


def test_one_policy_controls_both_rock_paper_scissors_players_through_the_team_view():
    env = envs.make("rock_paper_scissors", rounds=4)
    team = AgtItfWrapper(AlwaysFirstChoice(), team_interface([OneHot(), OneHot()]))
    episode = play(env, {("player_0", "player_1"): team}, seed=1)
    assert episode.length == 4 and episode.returns == {"player_0": 0.0, "player_1": 0.0}  # rock against rock
    members = AgtItfWrapper([RandomAgent(), RandomAgent()], team_interface([OneHot(), Interface()], concatenate=False))
    assert play(envs.make("rock_paper_scissors", rounds=4), {("player_0", "player_1"): members}, seed=2).length == 4
