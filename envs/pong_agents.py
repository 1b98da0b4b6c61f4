"""The built-in Pong player: follow the ball when it comes, go back to the centre when it leaves."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import InvalidValueError, SpaceMismatchError

__all__ = ["PongAIAgent", "pong_ai_easy", "pong_ai_medium"]

_NOOP, _UP, _DOWN = 0, 2, 3


class PongAIAgent(Agent):
    """The scripted ``pong_2p`` player, working from the vector observation alone.

    It reads ``pong_2p``'s mirrored 8-number observation (ball x, y, vx, vy, own paddle
    y, vy, opponent paddle y, vy; it always plays from the left): while the ball comes
    towards it (``vx < 0``) it steers its paddle's centre to the ball's height, and when
    the ball moves away it returns to the centre of the field. It accelerates towards a
    speed proportional to the distance left and brakes on arrival. It does not predict
    bounces. With the default physics (paddle 4 px/step, steepest ball 6 px/step, Arena's
    ratio) a return off the outer half of the other paddle outruns it; with ``ball_spin=3``
    it is a little faster than any ball and only a steep one near a wall beats it.

    Args:
        gain: desired paddle speed (as a fraction of full speed) per field fraction of
            distance; higher reacts harder and overshoots more.
        dead_zone: the distance (field fraction) within which it just brakes.

    Raises:
        SpaceMismatchError: in :meth:`setup`, for anything but the 8-number Box observation
            and a 6-action Discrete action space.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = PongAIAgent()
        >>> agent.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
        >>> ball_above_coming = np.array([0.5, 0.2, -1, 0, 0.5, 0, 0.5, 0], dtype=np.float32)
        >>> agent.act(ball_above_coming)  # 2 = up
        2
    """

    def __init__(self, gain: float = 20.0, dead_zone: float = 0.01) -> None:
        if not gain > 0 or not dead_zone >= 0:
            raise InvalidValueError(
                f"PongAIAgent: gain must be positive and dead_zone non-negative, got {gain!r}, {dead_zone!r}"
            )
        self.gain, self.dead_zone = float(gain), float(dead_zone)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        if (
            not (isinstance(observation_space, spaces.Box) and observation_space.shape == (8,))
            or type(action_space) is not spaces.Discrete
            or action_space.n != 6
        ):
            raise SpaceMismatchError(
                "PongAIAgent: needs pong_2p's vector observation Box(8,) and Discrete(6) actions "
                f"(make the env with observation='vector'), got {observation_space} and {action_space}"
            )
        super().setup(observation_space, action_space)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        return int(self.act_batch(np.asarray(observation)[None])[0])

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """The move for each of ``observations`` (``(n, 8)`` vectors): ``(n,)`` raw actions.

        Example:
            >>> PongAIAgent().act_batch(np.array([[0.5, 0.2, -1, 0, 0.5, 0, 0.5, 0]], np.float32)).tolist()
            [2]
        """
        values = np.asarray(observations, dtype=np.float32).astype(np.float64).reshape(-1, 8)
        ball_y, ball_vx, own_y, own_vy = values[:, 1], values[:, 2], values[:, 4], values[:, 5]
        distance = np.where(ball_vx < 0, ball_y, 0.5) - own_y
        wanted = np.where(
            np.abs(distance) < self.dead_zone, 0.0, np.minimum(np.maximum(distance * self.gain, -1.0), 1.0)
        )
        moves = np.where(wanted > own_vy + 1e-6, _DOWN, np.where(wanted < own_vy - 1e-6, _UP, _NOOP))
        return moves.astype(np.int64)


def pong_ai_easy() -> PongAIAgent:
    """``pong_ai`` at a quarter of its gain (5): slow to turn, it misses returns sent at half the steepest.

    A rung below ``pong_ai`` for ladders and curricula (``bench/pong_headroom.py --gain 5 --ball-spin 3``:
    an interceptor aiming 0.5 of the way to its paddle's end wins 97 rounds of 100; against ``pong_ai``
    only the last tenth wins at that spin).

    Example:
        >>> pong_ai_easy().gain
        5.0
    """
    return PongAIAgent(gain=5.0)


def pong_ai_medium() -> PongAIAgent:
    """``pong_ai`` at half its gain (10): it misses returns off the paddle's last fifth.

    The middle rung (``bench/pong_headroom.py --gain 10 --ball-spin 3``: aiming 0.8 of the way to the
    paddle's end wins half the rounds, 0.9 all of them; ``pong_ai`` misses only from 0.9 on, and rarely).

    Example:
        >>> pong_ai_medium().gain
        10.0
    """
    return PongAIAgent(gain=10.0)
