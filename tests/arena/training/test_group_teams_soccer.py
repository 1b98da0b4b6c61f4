"""GroupTeams on MuJoCo soccer 2v2: one model drives a whole side as one seat."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("dm_control")
pytest.importorskip("stable_baselines3")

from gymnasium import spaces  # noqa: E402

import envs  # noqa: E402
from arena import GroupTeams, InvalidActionError, RandomAgent, WrongAgentsError, play  # noqa: E402
from arena.testing import check_env  # noqa: E402
from arena.training import SingleAgentEnv  # noqa: E402
from interfaces.soccer import soccer_team  # noqa: E402


@pytest.fixture(scope="module")
def sides() -> GroupTeams:
    return GroupTeams(envs.make("soccer", team_size=2, time_limit=0.25))


def test_each_side_is_one_agent_with_its_members_spaces(sides: GroupTeams) -> None:
    inner = sides.env
    assert sides.possible_agents == ["home", "away"] and sides.teams == {"home": ("home",), "away": ("away",)}
    assert sides.action_space("away") == spaces.Tuple([inner.action_space("away_0"), inner.action_space("away_1")])
    assert str(sides) == "<GroupTeams<Soccer 2v2>>" and sides.unwrapped is inner
    check_env(sides, episodes=1)
    observations, infos = sides.reset(seed=0)
    assert set(observations) == {"home", "away"} and len(observations["home"]) == 2
    assert set(infos["home"]["members"]) == {"home_0", "home_1"} and infos["home"]["acting"] == (True, True)
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['away', 'home'\]"):
        sides.step({"home": (np.zeros(3), np.zeros(3))})
    with pytest.raises(InvalidActionError, match=r"action for 'away' must lie in Tuple\(Box"):
        sides.step({"home": (np.zeros(3), np.zeros(3)), "away": np.zeros(6)})
    episode = play(sides, [RandomAgent(), RandomAgent()], seed=1)
    assert episode.length == 10 and episode.returns == {"home": 0.0, "away": 0.0}
    with pytest.raises(ValueError, match=r"GroupTeams: needs an arena env with sides \(teams\), got <TicTacToe>"):
        GroupTeams(envs.make("tic_tac_toe"))


def test_a_single_agent_learner_sees_the_concatenated_team(sides: GroupTeams) -> None:
    learner = SingleAgentEnv(sides, "random", seats="away", interface=soccer_team(team_size=2))
    observation, info = learner.reset(seed=3)
    assert learner.action_space == spaces.Box(-1.0, 1.0, (6,), np.float32)
    assert learner.observation_space.contains(observation) and info["seat"] == "away"
    steps, done = 0, False
    while not done:
        observation, reward, terminated, truncated, info = learner.step(learner.action_space.sample())
        steps, done = steps + 1, terminated or truncated
    assert steps == 10 and truncated and reward == 0.0
