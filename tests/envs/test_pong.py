"""Two-player Pong (envs/pong.py) and its scripted player (envs/pong_agents.py)."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import arena
import envs
from arena import RandomAgent, play
from arena.errors import SpaceMismatchError
from arena.testing import check_env
from envs.pong import ACTION_NAMES, Pong2p
from envs.pong_agents import PongAIAgent

NOOP, FIRE, UP, DOWN, UP_FIRE, DOWN_FIRE = range(6)
CENTRE_TOP = 72.0  # a centred paddle's top: (160 - 16) / 2


def still(**ball) -> Pong2p:
    """A game with both paddles centred and at rest, and the ball where the test puts it."""
    env = Pong2p(rounds=3)
    env.reset(seed=0)
    for key, value in ball.items():
        setattr(env.state, key, value)
    return env


def both(action: int = NOOP, other: int | None = None) -> dict[str, int]:
    return {"player_0": action, "player_1": action if other is None else other}


@pytest.mark.parametrize("options", [{"rounds": 3}, {"rounds": 2, "observation": "frame", "render_mode": "rgb_array"}])
def test_pong_keeps_the_arena_env_contract(options) -> None:
    check_env(envs.make("pong_2p", **options), episodes=2)


def test_scale_spaces_and_actions() -> None:
    env = Pong2p(render_mode="rgb_array")
    assert env.observation_space("player_1") == spaces.Box(
        np.array([0, 0, -1, -1, 0, -1, 0, -1], np.float32), np.ones(8, np.float32), dtype=np.float32
    )
    assert env.action_space("player_0") == spaces.Discrete(6)
    assert env.action_names("player_0") == list(ACTION_NAMES) == ["noop", "fire", "up", "down", "up_fire", "down_fire"]
    assert Pong2p(observation="frame").observation_space("player_0") == spaces.Box(0, 255, (80, 80, 1), np.uint8)
    assert Pong2p(observation="frame", frame_scale=4).observation_space("player_0").shape == (40, 40, 1)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (194, 160, 3) and frame.dtype == np.uint8
    left = np.all(frame == (213, 130, 74), axis=2)  # the left paddle's colour
    rows, cols = np.nonzero(left[34:])
    assert (cols.min(), cols.max() + 1, rows.max() + 1 - rows.min()) == (16, 20, 16)  # 4x16, 16 px from the edge
    right = np.all(frame[34:] == (92, 186, 92), axis=2)
    assert (np.nonzero(right)[1].min(), np.nonzero(right)[1].max() + 1) == (140, 144)
    ball = np.all(frame[34:] == (236, 236, 236), axis=2)
    assert np.ptp(np.nonzero(ball)[0]) + 1 == 4 and np.ptp(np.nonzero(ball)[1]) + 1 == 2  # 2 wide, 4 high


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": 0}, "rounds must be a positive integer, got 0"),
        ({"frame_scale": 3}, "frame_scale must divide 160, got 3"),
        ({"ball_speed": -1}, "ball_speed must be a positive finite number, got -1"),
        ({"paddle_speed": 80}, "paddle_speed must be below 64 pixels a step, got 80"),
        ({"observation": "pixels"}, "observation must be 'vector' or 'frame', got 'pixels'"),
        ({"render_mode": "human"}, "render_mode must be None or 'rgb_array', got 'human'"),
    ],
)
def test_bad_options_are_refused(options, message) -> None:
    with pytest.raises(ValueError, match="^Pong2p: " + message.replace("(", r"\(").replace(")", r"\)")):
        Pong2p(**options)


def test_paddles_accelerate_brake_and_stop_at_the_walls() -> None:
    env = still(ball_vx=0.0, ball_vy=0.0)
    speeds = []
    for action in (UP, UP_FIRE, UP, UP, UP, NOOP, FIRE):
        env.step(both(action, DOWN))
        speeds.append(env.state.paddle_vy[0])
    assert speeds == [-1.0, -2.0, -3.0, -4.0, -4.0, -3.0, -2.0]  # accelerate to 4 px/step, then brake
    assert env.state.paddle_y[0] == CENTRE_TOP - sum(-s for s in speeds)
    for _ in range(40):
        env.step(both(UP, DOWN_FIRE))
    assert env.state.paddle_y == [0.0, 144.0] and env.state.paddle_vy == [0.0, 0.0]


def test_ball_reflects_off_top_and_bottom_walls() -> None:
    env = still(ball_x=79.0, ball_y=1.0, ball_vx=3.0, ball_vy=-3.0)
    env.step(both())
    assert (env.state.ball_x, env.state.ball_y, env.state.ball_vy) == (82.0, 2.0, 3.0)
    env = still(ball_x=79.0, ball_y=155.0, ball_vx=-3.0, ball_vy=2.5)
    env.step(both())
    assert (env.state.ball_y, env.state.ball_vy) == (2 * 156 - 157.5, -2.5)


def test_ball_reflects_off_both_paddles() -> None:
    env = still(ball_x=21.0, ball_y=78.0, ball_vx=-3.0, ball_vy=0.0)  # centred on the left paddle
    _, rewards, *_ = env.step(both())
    assert (env.state.ball_x, env.state.ball_vx, env.state.ball_vy) == (22.0, 3.0, 0.0)
    assert rewards == {"player_0": 0.0, "player_1": 0.0}
    env = still(ball_x=137.0, ball_y=78.0, ball_vx=3.0, ball_vy=0.0)  # right edge 139 -> 142 crosses x=140
    env.step(both())
    assert (env.state.ball_x, env.state.ball_vx) == (136.0, -3.0)


@pytest.mark.parametrize(
    ("ball_centre", "offset"), [(80.0, 0.0), (75.0, -0.5), (70.5, -0.95), (85.0, 0.5), (89.5, 0.95), (71.0, -0.9)]
)
def test_the_bounce_angle_depends_on_where_the_ball_hits(ball_centre, offset) -> None:
    env = still(ball_x=21.0, ball_y=ball_centre - 2, ball_vx=-3.0, ball_vy=0.0)  # the paddle's centre is at 80
    env.step(both())
    assert env.ball_spin == 6.0  # the default: the steepest return climbs 1.5x as fast as a paddle moves
    assert env.state.ball_vx == 3.0 and env.state.ball_vy == pytest.approx(6.0 * offset)


def test_a_ball_past_a_paddle_scores_and_a_new_round_is_served() -> None:
    env = still(ball_x=21.0, ball_y=20.0, ball_vx=-3.0, ball_vy=0.0)  # far above the left paddle
    _, rewards, terms, _, infos = env.step(both())
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and env.state.ball_x == 18.0  # passed the face
    env.step(both())
    obs, rewards, terms, _, infos = env.step(both())  # 12 + 2 <= 16: wholly behind the paddle
    assert rewards == {"player_0": -1.0, "player_1": 1.0} and not any(terms.values())
    assert infos["player_0"]["score"] == (0, 1) and infos["player_1"]["score"] == (1, 0)
    state = env.state
    assert (state.round, state.round_steps, state.ball_x, state.ball_y) == (1, 0, 79.0, 78.0)
    assert state.paddle_y == [CENTRE_TOP, CENTRE_TOP] and abs(state.ball_vx) == 3.0
    env = still(ball_x=137.0, ball_y=20.0, ball_vx=3.0, ball_vy=0.0)  # the mirror image of x=21
    for _ in range(3):
        _, rewards, *_ = env.step(both())
    assert rewards == {"player_0": 1.0, "player_1": -1.0}


def test_a_round_at_the_step_limit_is_a_tie_and_the_game_ends_after_its_rounds() -> None:
    env = Pong2p(rounds=2, max_round_steps=3)
    env.reset(seed=0)
    env.state.ball_vx = 0.0  # the ball hangs in the middle
    results = [env.step(both()) for _ in range(3)]
    assert [r[1] for r in results] == [{"player_0": 0.0, "player_1": 0.0}] * 3
    assert env.state.ties == 1 and env.state.round == 1 and results[-1][4]["player_0"]["ties"] == 1
    env.state.ball_vx = 0.0
    env.step(both())
    env.step(both())
    obs, rewards, terms, truncs, infos = env.step(both())
    assert obs == {} and env.agents == [] and terms == {"player_0": True, "player_1": True}
    assert truncs == {"player_0": False, "player_1": False} and infos["player_1"] == {"score": (0, 0), "ties": 2}


def mirrored(env: Pong2p) -> Pong2p:
    """The same game seen in a mirror: sides swapped."""
    other = Pong2p(rounds=3, observation=env.observation)
    other.reset(seed=1)
    s, m = env.state, other.state
    m.ball_x, m.ball_y, m.ball_vx, m.ball_vy = 160 - 2 - s.ball_x, s.ball_y, -s.ball_vx, s.ball_vy
    m.paddle_y, m.paddle_vy = s.paddle_y[::-1], s.paddle_vy[::-1]
    return other


@settings(max_examples=30, deadline=None)
@given(
    ball=st.tuples(st.floats(25, 130), st.floats(0, 156), st.sampled_from([-3.0, 3.0]), st.floats(-3, 3)),
    paddles=st.tuples(st.floats(0, 144), st.floats(0, 144), st.floats(-4, 4), st.floats(-4, 4)),
    actions=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=1, max_size=30),
)
def test_each_player_sees_the_game_from_the_left(ball, paddles, actions) -> None:
    env = still(
        ball_x=ball[0],
        ball_y=ball[1],
        ball_vx=ball[2],
        ball_vy=ball[3],
        paddle_y=list(paddles[:2]),
        paddle_vy=list(paddles[2:]),
    )
    mirror = mirrored(env)
    for a, b in actions:
        obs, rewards, *_ = env.step({"player_0": a, "player_1": b})
        mirror_obs, mirror_rewards, *_ = mirror.step({"player_0": b, "player_1": a})
        if env.state.round:  # a new serve is random, the mirror's serve need not match
            assert rewards == {"player_0": mirror_rewards["player_1"], "player_1": mirror_rewards["player_0"]}
            break
        np.testing.assert_allclose(obs["player_1"], mirror_obs["player_0"], atol=1e-5)
        np.testing.assert_allclose(obs["player_0"], mirror_obs["player_1"], atol=1e-5)


def test_frame_observations_are_mirrored_grayscale_fields() -> None:
    env = Pong2p(observation="frame", frame_scale=1)
    obs, _ = env.reset(seed=3)
    left, right = obs["player_0"][..., 0], obs["player_1"][..., 0]
    assert np.array_equal(right, left[:, ::-1])
    assert set(np.unique(left)) == {0, 160, 255}
    assert (left[72:88, 16:20] == 160).all() and (left[72:88, 140:144] == 160).all()
    small = Pong2p(observation="frame").reset(seed=3)[0]["player_0"]
    assert small.shape == (80, 80, 1) and small[36:44, 8:10].min() == 160


def test_same_seed_same_serves() -> None:
    def serves(seed: int) -> list[tuple[float, float]]:
        env = Pong2p(rounds=4, max_round_steps=2)
        env.reset(seed=seed)
        out = []
        for _ in range(8):
            if env.state.round_steps == 0:
                out.append((env.state.ball_vx, env.state.ball_vy))
            env.step(both())
        return out

    assert serves(5) == serves(5) and serves(5) != serves(6)


@pytest.mark.parametrize(
    ("ball_spin", "at_least"),
    [(6.0, 32), (3.0, 38)],  # at 6 (the default) a random player's steep returns outrun pong_ai's paddle now and then
)
def test_built_in_ai_beats_random_in_nearly_all_rounds(ball_spin: float, at_least: int) -> None:
    won = played = 0
    for seed in range(2):
        for ai_seat in (0, 1):
            env = envs.make("pong_2p", rounds=10, ball_spin=ball_spin)
            agents = [RandomAgent(), RandomAgent()]
            agents[ai_seat] = arena.make_agent("pong_ai")
            episode = play(env, agents, seed=seed)
            won += env.state.score[ai_seat]
            played += env.state.round
            assert episode.winners == [f"player_{ai_seat}"]
    assert played == 40 and won >= at_least


def test_built_in_ai_needs_the_vector_observation() -> None:
    agent = PongAIAgent()
    env = Pong2p(observation="frame")
    with pytest.raises(
        SpaceMismatchError,
        match=r"PongAIAgent: needs pong_2p's vector observation Box\(8,\) "
        r"and Discrete\(6\) actions \(make the env with observation='vector'\)",
    ):
        agent.setup(env.observation_space("player_0"), env.action_space("player_0"))
    with pytest.raises(ValueError, match="PongAIAgent: gain must be positive"):
        PongAIAgent(gain=0)


def test_built_in_ai_follows_an_incoming_ball_and_recentres_otherwise() -> None:
    agent = PongAIAgent()
    agent.setup(Pong2p().observation_space("player_0"), spaces.Discrete(6))
    coming_low = np.array([0.5, 0.9, -1, 0, 0.5, 0, 0.5, 0], np.float32)
    leaving_low = np.array([0.5, 0.9, 1, 0, 0.2, 0, 0.5, 0], np.float32)
    at_centre = np.array([0.5, 0.9, 1, 0, 0.5, 0, 0.5, 0], np.float32)
    assert agent.act(coming_low) == DOWN
    assert agent.act(leaving_low) == DOWN  # back down towards the centre from 0.2
    assert agent.act(at_centre) == NOOP
    moving = at_centre.copy()
    moving[5] = 0.5  # already moving down at the centre: brake
    assert agent.act(moving) == UP


@pytest.mark.parametrize("module", ["envs.pong", "envs.pong_agents"])
def test_docstring_examples_run(module) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
