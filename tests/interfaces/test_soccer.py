"""Soccer interfaces on the env's real spaces: feature order, relative features, actions, shaping, team view."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import Combine, EnvItfWrapper, SpaceMismatchError
from arena.testing import check_interface
from interfaces.soccer import RELATIVE_FEATURES, RescaleAction, SoccerFeatures, SoccerShaping, shaped_team, soccer_team

pytest.importorskip("dm_control")

import envs  # noqa: E402


@pytest.fixture(scope="module")
def env():
    return envs.make("soccer", team_size=2, time_limit=0.25)


def test_features_follow_the_documented_order(env) -> None:
    raw = env.observation_space("home_0")
    itf = SoccerFeatures(relative=True, append_action=True)
    itf.setup(raw, env.action_space("home_0"))
    names = [name for name, _, _ in itf.layout]
    keys = [k for k in raw.spaces if not k.startswith("stats_")]
    assert names == [*keys, "relative", "previous_action"] and keys == sorted(keys)
    observations, _ = env.reset(seed=0)
    vector = itf.transform_reset(observations["home_0"])
    assert itf.observation_space.contains(vector)
    for name, start, stop in itf.layout[:-2]:
        assert np.allclose(vector[start:stop], observations["home_0"][name].astype(np.float32).reshape(-1))
    ball = observations["home_0"]["ball_ego_position"]
    relative = dict(zip(RELATIVE_FEATURES, vector[itf.layout[-2][1] : itf.layout[-2][2]]))
    assert relative["ball_distance"] == pytest.approx(np.hypot(ball[0], ball[1]), rel=1e-5)
    assert relative["ball_bearing_cos"] ** 2 + relative["ball_bearing_sin"] ** 2 == pytest.approx(1.0, rel=1e-5)
    assert vector[-3:].tolist() == [0.0, 0.0, 0.0]  # no action yet
    raw_action = itf.transform_action(np.array([0.5, -0.25, 1.0]))
    assert itf.transform_observation(observations["home_0"])[-3:].tolist() == [0.5, -0.25, 1.0]
    assert raw_action.tolist() == [0.5, -0.25, 1.0]
    with_stats = SoccerFeatures(stats=True)
    with_stats.setup(raw, env.action_space("home_0"))
    assert [n for n, _, _ in with_stats.layout] == list(raw.spaces)
    picked = SoccerFeatures(keys=["opponent_goal_mid", "ball_ego_position"])
    picked.setup(raw, env.action_space("home_0"))
    assert picked.transform_observation(observations["home_0"]).tolist() == pytest.approx(
        [*observations["home_0"]["opponent_goal_mid"], *ball]
    )


def test_features_reject_what_they_cannot_read_by_name() -> None:
    box = spaces.Box(-1, 1, (2,))
    with pytest.raises(
        SpaceMismatchError, match=r"^SoccerFeatures\(\): needs a Dict of Box observations .*got Discrete\(3\)"
    ):
        SoccerFeatures().setup(spaces.Discrete(3), box)
    with pytest.raises(SpaceMismatchError, match=r"keys \['ball'\] are not in the observation space"):
        SoccerFeatures(keys=["ball"]).setup(spaces.Dict({"a": box}), box)
    with pytest.raises(SpaceMismatchError, match=r"relative features need positions .* missing \['ball_ego_position'"):
        SoccerFeatures(relative=True).setup(spaces.Dict({"a": box}), box)
    with pytest.raises(SpaceMismatchError, match=r"append_action needs Box actions, got Discrete\(2\)"):
        SoccerFeatures(append_action=True).setup(spaces.Dict({"a": box}), spaces.Discrete(2))
    with pytest.raises(TypeError, match="keys must be a sequence of str, got 'abc'"):
        SoccerFeatures(keys="abc")


@settings(max_examples=30, deadline=None)
@given(low=st.floats(-5, 4), width=st.floats(0.01, 10), action=st.lists(st.floats(-3, 3), min_size=3, max_size=3))
def test_rescale_action_maps_the_unit_box_onto_the_raw_bounds(low: float, width: float, action: list[float]) -> None:
    raw = spaces.Box(low, low + width, (3,), np.float64)
    itf = RescaleAction()
    itf.setup(spaces.Discrete(2), raw)
    assert itf.action_space == spaces.Box(-1.0, 1.0, (3,), np.float32)
    mapped = itf.transform_action(np.array(action))
    assert raw.contains(mapped)
    clipped = np.clip(action, -1, 1)
    assert mapped == pytest.approx(low + (clipped + 1) / 2 * width, abs=1e-9)
    check_interface(RescaleAction(), spaces.Discrete(2), raw, examples=3)


def test_rescale_action_refuses_unbounded_or_integer_boxes() -> None:
    with pytest.raises(SpaceMismatchError, match=r"needs a float Box action with finite bounds, got Box\(-inf, inf"):
        RescaleAction().setup(spaces.Discrete(2), spaces.Box(-np.inf, np.inf, (2,)))
    with pytest.raises(SpaceMismatchError, match=r"needs a Box action space, got Discrete\(4\)"):
        RescaleAction().setup(spaces.Discrete(2), spaces.Discrete(4))
    with pytest.raises(ValueError, match="needs finite low < high, got low=1, high=1"):
        RescaleAction(low=1, high=1)


def test_shaping_adds_the_ball_statistics_once_per_decision(env) -> None:
    team_space = spaces.Tuple([env.observation_space(a) for a in env.teams["home"]])
    act_space = spaces.Tuple([env.action_space(a) for a in env.teams["home"]])
    itf = SoccerShaping(ball=0.5, goal=2.0)
    itf.setup(team_space, act_space)
    observations, _ = env.reset(seed=1)
    observations, *_ = env.step({a: np.full(3, 0.5) for a in env.agents})
    members = tuple(observations[a] for a in env.teams["home"])
    itf.transform_observation(members)
    expected = np.mean(
        [0.5 * float(m["stats_vel_to_ball"][0]) + 2.0 * float(m["stats_vel_ball_to_goal"][0]) for m in members]
    )
    assert itf.transform_reward(1.0) == pytest.approx(1.0 + expected)
    with pytest.raises(
        SpaceMismatchError,
        match=r"needs Dict observations \(or a Tuple of them\) with "
        r"\['stats_vel_to_ball', 'stats_vel_ball_to_goal'\]",
    ):
        SoccerShaping().setup(spaces.Box(0, 1, (2,)), spaces.Discrete(2))
    with pytest.raises(ValueError, match="ball must be a finite number, got nan"):
        SoccerShaping(ball=float("nan"))


def test_one_model_drives_both_teammates_through_the_team_view(env) -> None:
    team_obs = spaces.Tuple([env.observation_space(a) for a in env.teams["away"]])
    team_act = spaces.Tuple([env.action_space(a) for a in env.teams["away"]])
    # (shaped_team adds running normalisation, which keeps state across episodes by design)
    check_interface(
        soccer_team(SoccerShaping(), team_size=2, relative=True, append_action=True), team_obs, team_act, examples=2
    )
    itf = shaped_team()
    assert isinstance(itf.inner, Combine)
    itf.setup(team_obs, team_act)
    single = SoccerFeatures(relative=True)
    single.setup(env.observation_space("away_0"), env.action_space("away_0"))
    assert itf.observation_space.shape == (2 * single.observation_space.shape[0],)
    assert itf.action_space == spaces.Box(-1.0, 1.0, (6,), np.float32)
    first, second = itf.transform_action(np.array([1, 0, -1, -1, 0.5, 0], dtype=np.float32))
    assert first.tolist() == [1.0, 0.0, -1.0] and second.tolist() == [-1.0, 0.5, 0.0]
    with pytest.raises(ValueError, match="team_size must be a positive integer, got 0"):
        soccer_team(team_size=0)


def test_features_on_the_env_side_of_the_loop(env) -> None:
    wrapped = EnvItfWrapper(env, RescaleAction(SoccerFeatures()))
    observations, _ = wrapped.reset(seed=2)
    assert all(wrapped.observation_space(a).contains(o) for a, o in observations.items())
    observations, *_ = wrapped.step({a: np.ones(3, dtype=np.float32) for a in observations})
    assert set(observations) == set(env.possible_agents)
