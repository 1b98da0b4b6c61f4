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


_BOX3 = spaces.Box(-100.0, 100.0, (3,), np.float64)
_BOX1 = spaces.Box(-10.0, 10.0, (1,), np.float64)
_BEHIND_SPACE = spaces.Dict(
    {
        "ball_ego_position": _BOX3,
        "opponent_goal_mid": _BOX3,
        "stats_vel_to_ball": _BOX1,
        "stats_vel_ball_to_goal": _BOX1,
    }
)


def _seen(ball: tuple[float, float], goal: tuple[float, float]) -> dict[str, np.ndarray]:
    """An egocentric observation: the walker at the origin, no ball statistics (so only the potential pays)."""
    return {
        "ball_ego_position": np.array([*ball, 0.0]),
        "opponent_goal_mid": np.array([*goal, 0.0]),
        "stats_vel_to_ball": np.zeros(1),
        "stats_vel_ball_to_goal": np.zeros(1),
    }


def _behind_shaping(**options) -> SoccerShaping:
    itf = SoccerShaping(ball=0.0, goal=0.0, **options)
    itf.setup(_BEHIND_SPACE, spaces.Box(-1, 1, (3,)))
    return itf


def test_behind_pays_the_approach_to_the_spot_behind_the_ball_and_nothing_for_pushing_the_ball_the_wrong_way() -> None:
    # The ball 10 m ahead, the goal 30 m beyond it: the spot is 12 m ahead. One metre of approach pays `behind`.
    itf = _behind_shaping(behind=2.0, behind_by=2.0)
    itf.transform_reset(_seen((10.0, 0.0), (40.0, 0.0)))
    itf.transform_observation(_seen((9.0, 0.0), (39.0, 0.0)))
    assert itf.transform_reward(0.0) == pytest.approx(2.0)
    # From the goal's side the spot lies past the ball: pushing the ball ahead (it moves as the walker does) moves the
    # spot too, and pays nothing; only the ball's statistics (off here) would pay or charge for the push.
    pushing = _behind_shaping(behind=1.0, behind_by=2.0)
    pushing.transform_reset(_seen((0.5, 0.0), (-29.5, 0.0)))  # the goal behind the walker, the ball at its feet
    pushing.transform_observation(_seen((0.5, 0.0), (-28.5, 0.0)))  # both went a metre away from the goal
    assert pushing.transform_reward(0.0) == pytest.approx(0.0)
    behind_the_ball = _behind_shaping(behind=1.0, behind_by=2.0)
    behind_the_ball.transform_reset(_seen((2.0, 0.0), (32.0, 0.0)))  # already on the spot
    behind_the_ball.transform_observation(_seen((1.0, 0.0), (31.0, 0.0)))  # walked into the ball: passed the spot
    assert behind_the_ball.transform_reward(0.0) == pytest.approx(-1.0)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-40, 40), st.floats(-40, 40), st.floats(-40, 40), st.floats(-40, 40)),
        min_size=2,
        max_size=12,
    ),
    st.floats(0.1, 5.0),
    st.booleans(),
)
def test_behind_payments_add_up_to_the_potentials_change_so_a_cycle_earns_nothing(
    points, behind_by: float, around: bool
) -> None:
    itf = _behind_shaping(behind=1.5, behind_by=behind_by, around=around)
    walk = [_seen((bx, by), (gx, gy)) for bx, by, gx, gy in points]
    walk.append(walk[0])  # back where it started
    itf.transform_reset(walk[0])
    paid = 0.0
    for seen in walk[1:]:
        itf.transform_observation(seen)
        paid += itf.transform_reward(0.0)
    assert paid == pytest.approx(0.0, abs=1e-6)


def test_behind_is_refused_without_the_positions_it_reads_and_with_a_bad_distance() -> None:
    stats_only = spaces.Dict({"stats_vel_to_ball": _BOX1, "stats_vel_ball_to_goal": _BOX1})
    SoccerShaping(behind=0.0).setup(stats_only, spaces.Box(-1, 1, (3,)))  # off: the positions are not needed
    with pytest.raises(SpaceMismatchError, match="'ball_ego_position', 'opponent_goal_mid'"):
        SoccerShaping(behind=1.0).setup(stats_only, spaces.Box(-1, 1, (3,)))
    with pytest.raises(ValueError, match="behind_by must be positive"):
        SoccerShaping(behind=1.0, behind_by=0.0)
    with pytest.raises(ValueError, match="behind must be a finite number, got inf"):
        SoccerShaping(behind=float("inf"))
    assert (
        str(SoccerShaping(ball=0.1, goal=0.3, behind=3.0))
        == "SoccerShaping(ball=0.1, goal=0.3, behind=3, behind_by=2.5)"
    )


def test_around_makes_the_way_round_the_ball_pay_more_than_running_through_it() -> None:
    # The walker 4 m on the goal's side of the ball (the goal behind the walker): the spot lies 2 m past the ball.
    start = _seen((4.0, 0.0), (-26.0, 0.0))
    step = np.array([4.0, -2.0]) / np.hypot(4.0, 2.0)  # a metre towards the point 2 m beside the ball
    straight_at_ball = _seen((3.0, 0.0), (-27.0, 0.0))
    towards_beside = _seen((4.0 - step[0], -step[1]), (-26.0 - step[0], -step[1]))
    paid = {}
    for around in (False, True):
        for name, seen in (("straight", straight_at_ball), ("beside", towards_beside)):
            itf = _behind_shaping(behind=1.0, behind_by=2.0, around=around)
            itf.transform_reset(start)
            itf.transform_observation(seen)
            paid[around, name] = itf.transform_reward(0.0)
    assert paid[False, "straight"] == pytest.approx(1.0)  # the straight line to the spot runs through the ball
    assert paid[False, "beside"] < 1.0
    assert paid[True, "beside"] == pytest.approx(1.0)  # round the ball: the first leg is the way to go
    assert paid[True, "straight"] < paid[True, "beside"]
    behind = _behind_shaping(behind=1.0, behind_by=2.0, around=True)  # behind the ball: the straight distance
    behind.transform_reset(_seen((10.0, 0.0), (40.0, 0.0)))
    behind.transform_observation(_seen((9.0, 0.0), (39.0, 0.0)))
    assert behind.transform_reward(0.0) == pytest.approx(1.0)
    assert str(SoccerShaping(behind=1.0, around=True)).endswith("behind=1, behind_by=2.5, around=True)")
    with pytest.raises(ValueError, match="around must be True or False, got 1"):
        SoccerShaping(around=1)
