"""Pong-2p's sizes, state and rule options: what the single env (:mod:`envs.pong`) and its batch
(:mod:`envs.pong_batch`) share, so that neither imports the other's module to get them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from arena.errors import InvalidValueError

__all__ = [
    "PongState",
    "check_rules",
    "ACTION_NAMES",
    "FIELD",
    "SCORE_BORDER",
    "BALL",
    "PADDLE",
    "PADDLE_MARGIN",
    "BALL_SPEED",
    "BALL_SPIN",
]

FIELD = 160  #: the field is FIELD x FIELD pixels
SCORE_BORDER = 34  #: pixels above the field where the score is drawn
BALL = (2, 4)  #: ball width, height
PADDLE = (4, 16)  #: paddle width, height
PADDLE_MARGIN = 16  #: pixels between a paddle and its edge of the field
BALL_SPEED = 3.0  #: the default horizontal speed of the ball, px/step
#: The default vertical speed of the steepest return, px/step: 1.5x a paddle (Arena's ratio; 3 until 27 Nov 2026).
BALL_SPIN = 6.0

#: ALE Pong's action set: FIRE does nothing here (the ball is served automatically).
ACTION_NAMES = ("noop", "fire", "up", "down", "up_fire", "down_fire")
_PUSH = (0, 0, -1, 1, -1, 1)  # each action's push on the paddle (up is -y)

_LEFT_FACE = PADDLE_MARGIN + PADDLE[0]  # the x the ball must not cross on the left: 20
_RIGHT_FACE = FIELD - PADDLE_MARGIN - PADDLE[0]  # ...and on the right: 140
_PADDLE_TOP_MAX = FIELD - PADDLE[1]
_BALL_TOP_MAX = FIELD - BALL[1]


@dataclass
class PongState:
    """Where everything is, in pixels (``y`` grows downwards, positions are top-left corners).

    Attributes:
        ball_x, ball_y, ball_vx, ball_vy: the ball's corner and velocity (pixels per step).
        paddle_y, paddle_vy: ``[left, right]`` paddle tops and vertical velocities.
        score: ``[left, right]`` rounds won; ``ties``: rounds that hit the step limit.
        round: rounds finished; ``round_steps``: steps into the current round.
    """

    ball_x: float = 0.0
    ball_y: float = 0.0
    ball_vx: float = 0.0
    ball_vy: float = 0.0
    paddle_y: list[float] = field(default_factory=lambda: [0.0, 0.0])
    paddle_vy: list[float] = field(default_factory=lambda: [0.0, 0.0])
    score: list[int] = field(default_factory=lambda: [0, 0])
    ties: int = 0
    round: int = 0
    round_steps: int = 0


def check_rules(
    where: str,
    rounds: int,
    max_round_steps: int,
    frame_scale: int,
    ball_speed: float,
    ball_spin: float,
    paddle_speed: float,
    paddle_accel: float,
) -> None:
    """Refuse options outside the game (``where`` names the caller in the error).

    Raises:
        ValueError: a count that is not a positive integer, a ``frame_scale`` that does not divide
            160, or a speed that is not positive, finite and below 64 pixels a step.

    Example:
        >>> check_rules("Pong2p", 20, 1000, 2, 3.0, 6.0, 4.0, 1.0)
    """
    for name, value in (("rounds", rounds), ("max_round_steps", max_round_steps), ("frame_scale", frame_scale)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidValueError(f"{where}: {name} must be a positive integer, got {value!r}")
    if FIELD % frame_scale:
        raise InvalidValueError(f"{where}: frame_scale must divide {FIELD}, got {frame_scale!r}")
    for name, number in (
        ("ball_speed", ball_speed),
        ("ball_spin", ball_spin),
        ("paddle_speed", paddle_speed),
        ("paddle_accel", paddle_accel),
    ):
        if (
            isinstance(number, bool)
            or not isinstance(number, (int, float, np.integer, np.floating))
            or not 0 < number < np.inf
        ):
            raise InvalidValueError(f"{where}: {name} must be a positive finite number, got {number!r}")
    for name, number, limit in (
        ("ball_speed", ball_speed, 64),
        ("ball_spin", ball_spin, 64),
        ("paddle_speed", paddle_speed, 64),
    ):
        if number >= limit:
            raise InvalidValueError(f"{where}: {name} must be below {limit} pixels a step, got {number!r}")
