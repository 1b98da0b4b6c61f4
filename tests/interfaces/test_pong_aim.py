"""pong_aim: its prediction is the env's bounce; it pays a potential's change and refuses bad input."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import SpaceMismatchError
from arena.testing import check_interface
from envs.pong import Pong2p
from interfaces.pong_aim import PongAim

VECTOR = Pong2p().observation_space("player_0")


def test_contract() -> None:
    for instance, observation_space, action_space in PongAim.contract_examples():
        check_interface(instance, observation_space, action_space, examples=10, require_masks=False)


def _incoming(seed: int, seat: int) -> Pong2p:
    """A game whose ball flies towards ``seat`` from a random place, at a random angle."""
    env = Pong2p(rounds=1, max_round_steps=10_000)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    state = env.state
    state.ball_x, state.ball_y = float(rng.uniform(30, 128)), float(rng.uniform(0, 156))
    state.ball_vx = -3.0 if seat == 0 else 3.0
    state.ball_vy = float(rng.uniform(-3, 3))
    return env


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seat=st.integers(0, 1), side=st.sampled_from([-1.0, 1.0]))
def test_a_paddle_held_at_the_spot_returns_the_ball_aim_at_off_centre(seed: int, seat: int, side: float) -> None:
    env = _incoming(seed, seat)
    agent = f"player_{seat}"
    aim = PongAim(aim_at=0.9)
    aim.setup(VECTOR, env.action_space(agent))
    spot = aim.spots(env._observe()[agent][None])[0, 0 if side < 0 else 1]
    if not 8.0 < spot < 152.0:
        return  # that spot is clipped to the field's edge: no paddle meets the ball there
    env.state.paddle_y[seat] = spot - 8.0  # held there (noops at rest) until the ball comes
    returned = None
    while env.agents and returned is None:
        before = env.state.ball_vx
        env.step({"player_0": 0, "player_1": 0})
        if env.agents and np.sign(env.state.ball_vx) == -np.sign(before):
            returned = abs(env.state.ball_vy) / env.ball_spin
    assert returned == pytest.approx(0.9, abs=1e-4)  # the bounce off the predicted spot


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), moves=st.lists(st.sampled_from([0, 2, 3]), min_size=5, max_size=80))
def test_payments_add_up_to_the_potentials_change(seed: int, moves: list[int]) -> None:
    env = _incoming(seed, 0)
    aim = PongAim(weight=0.4)
    aim.setup(VECTOR, env.action_space("player_0"))
    first = env._observe()["player_0"]
    aim.transform_reset(first)
    start, paid = aim.potentials(first[None], [0.0])[0], 0.0
    last = start
    for move in moves:
        observations, *_ = env.step({"player_0": move, "player_1": 0})
        if not env.agents:
            break
        aim.transform_observation(observations["player_0"])
        paid += aim.transform_reward(0.0)
        last = aim.potentials(observations["player_0"][None], [last])[0]
    assert paid == pytest.approx(last - start, abs=1e-9)
    assert -0.4 - 1e-9 <= last <= 0.0


def test_no_ball_coming_no_error_and_the_potential_holds() -> None:
    aim = PongAim(weight=0.2)
    going = np.array([[0.5, 0.5, 1, 0, 0.2, 0, 0.5, 0], [0.1, 0.5, -1, 0, 0.5, 0, 0.5, 0]], np.float32)
    assert np.isnan(aim.errors(going)).all()  # moving away; already past the face
    assert aim.potentials(going, [-0.05, -0.1]).tolist() == [-0.05, -0.1]
    far = np.array([[0.5, 0.2, -1, 0, 0.9, 0, 0.5, 0]], np.float32)
    assert aim.potentials(far, [0.0])[0] == pytest.approx(-0.2)  # beyond the cap: the whole depth


def test_the_stack_shows_its_options_and_refuses_other_observations() -> None:
    assert "weight=0.3, aim_at=0.9, cap=32.0" in str(PongAim(weight=0.3, aim_at=0.9))
    with pytest.raises(SpaceMismatchError, match="Box\\(8,\\)"):
        PongAim().setup(spaces.Box(0, 255, (40, 40, 1), np.uint8), spaces.Discrete(6))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"weight": float("nan")}, "weight must be a finite number"),
        ({"aim_at": 1.0}, "aim_at must be in \\(0, 1\\)"),
        ({"cap": 0}, "cap must be positive"),
        ({"ball_speed": True}, "ball_speed must be a finite number"),
        ({"ball_spin": -3}, "ball_spin must be positive"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PongAim(**options)
