"""Scripted soccer players that read dm_control's egocentric features."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import InvalidValueError, SpaceMismatchError

__all__ = ["SoccerChaserAgent"]

_NEEDED = ("ball_ego_position", "opponent_goal_mid")


class SoccerChaserAgent(Agent):
    """Run to the ball, get behind it and push it towards the opposing goal (BoxHead walkers).

    It reads two of the soccer env's egocentric features: ``ball_ego_position`` and
    ``opponent_goal_mid`` (in the walker's frame, where a positive ``roll`` drives along
    -x), and plays in three moves:

    * when it stands level with or ahead of the ball (on the goal side), it goes round
      the ball on its own side, ``behind`` metres to the side of it;
    * behind the ball but not lined up, it heads for the point ``behind`` metres behind
      the ball on the goal-to-ball line;
    * lined up (the walker-to-ball direction points at the goal), it charges the ball's
      back at ``push_speed``, so the push sends the ball goalwards, and kicks within
      ``kick_range``.

    Steering is proportional to the angle to the aim point; it drives at full speed when
    facing it, reverses slowly when the aim point is behind it, and slows to
    ``near_speed`` close to the ball or the aim point so as not to knock the ball away.

    With ``support`` set, teammates share the work instead of all chasing the ball into
    each other (two chasers jam against each other beside the ball and can stay stuck for
    the whole match): the walker best placed among its team (read from
    ``teammate_i_ego_position``: the nearest to the ball, where standing on the goal side
    of it counts ``2 * behind`` metres extra for going round) plays as above, and every
    other one heads for the point ``support`` metres behind the ball on the goal-to-ball
    line, going round the ball when it stands on the goal side of it, waits there, and
    never charges or kicks. Without teammate features (1v1) it always chases.

    Args:
        behind: how far behind (and beside) the ball it lines up, in metres.
        steer_gain: steering per radian of angle to the aim point.
        kick_range: ball distance (metres) within which it kicks when charging.
        push_speed: the fraction of full speed it charges at.
        near_speed: the fraction of full speed near the ball when not charging.
        steer_damping: steering per rad/s of turn rate (from ``sensors_gyro``), against
            overshooting.
        support: how far behind the ball (metres) a walker waits while a teammate is better
            placed to play it; ``None`` (the default): every walker chases.

    Raises:
        InvalidValueError: an option that is not a positive number (``steer_damping``:
            non-negative; ``support``: ``None`` or positive).
        SpaceMismatchError: in :meth:`setup`, for observations without the two features
            or actions other than BoxHead's ``Box(3,)`` (roll, steer, kick).

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = SoccerChaserAgent()
        >>> box = spaces.Box(-np.inf, np.inf, (3,))
        >>> agent.setup(spaces.Dict({"ball_ego_position": box, "opponent_goal_mid": box}),
        ...             spaces.Box(-1, 1, (3,), np.float64))
        >>> ball_ahead = {"ball_ego_position": np.array([-5.0, 0, 0]),
        ...               "opponent_goal_mid": np.array([-30.0, 0, 0])}
        >>> agent.act(ball_ahead).round(2).tolist()  # lined up: charge straight at it
        [0.7, 0.0, -1.0]
    """

    def __init__(
        self,
        behind: float = 2.5,
        steer_gain: float = 2.0,
        kick_range: float = 1.2,
        push_speed: float = 0.7,
        near_speed: float = 0.5,
        steer_damping: float = 0.5,
        support: float | None = None,
    ) -> None:
        for name, value in (
            ("behind", behind),
            ("steer_gain", steer_gain),
            ("kick_range", kick_range),
            ("push_speed", push_speed),
            ("near_speed", near_speed),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise InvalidValueError(f"SoccerChaserAgent: {name} must be a positive number, got {value!r}")
        self.behind, self.steer_gain, self.kick_range = float(behind), float(steer_gain), float(kick_range)
        self.push_speed, self.near_speed = float(push_speed), float(near_speed)
        if isinstance(steer_damping, bool) or not isinstance(steer_damping, (int, float)) or not steer_damping >= 0:
            raise InvalidValueError(
                f"SoccerChaserAgent: steer_damping must be a non-negative number, got {steer_damping!r}"
            )
        self.steer_damping = float(steer_damping)
        if support is not None and (
            isinstance(support, bool) or not isinstance(support, (int, float)) or not 0 < support < math.inf
        ):
            raise InvalidValueError(
                f"SoccerChaserAgent: support must be None or a positive number of metres, got {support!r}"
            )
        self.support = None if support is None else float(support)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        if (
            not isinstance(observation_space, spaces.Dict)
            or any(k not in observation_space.spaces for k in _NEEDED)
            or not isinstance(action_space, spaces.Box)
            or action_space.shape != (3,)
        ):
            raise SpaceMismatchError(
                "SoccerChaserAgent: needs the soccer env's raw observation dict (with ball_ego_position and "
                f"opponent_goal_mid) and BoxHead's Box(3,) actions (walker='boxhead'), got {observation_space} and "
                f"{action_space}"
            )
        super().setup(observation_space, action_space)
        self._low, self._high = action_space.low, action_space.high
        self._dtype = action_space.dtype

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> np.ndarray:
        ball = np.asarray(observation["ball_ego_position"], dtype=float).reshape(-1)[:2]
        goal = np.asarray(observation["opponent_goal_mid"], dtype=float).reshape(-1)[:2]
        to_goal = goal - ball
        to_goal /= max(float(np.hypot(*to_goal)), 1e-6)
        distance = float(np.hypot(*ball))
        # The walker is at the origin; ``along`` > 0 when it stands on the goal side of the ball.
        along = float(np.dot(-ball, to_goal))
        # How straight the walker-to-ball direction points at the goal (1: straight).
        alignment = float(np.dot(ball / distance, to_goal)) if distance > 1e-6 else 1.0
        charging = False
        supporting = self.support is not None and self._teammate_better_placed(observation, ball, to_goal)
        behind = self.support if self.support is not None and supporting else self.behind
        if along > -0.5:
            # Ahead of the ball: go round it on the side the walker is on, not through it.
            side = np.array([-to_goal[1], to_goal[0]])
            sign = 1.0 if float(np.dot(-ball, side)) >= 0 else -1.0
            target = ball + side * sign * behind - to_goal * 1.0
        elif supporting:
            target = ball - to_goal * behind
        elif alignment > 0.95 or (alignment > 0.85 and distance < self.behind + 0.5):
            # Lined up: drive at the ball's back, so the push sends it at the goal.
            target, charging = ball - to_goal * 0.3, True
        else:
            target = ball - to_goal * self.behind
        waiting = supporting and float(np.hypot(*target)) < 1.0
        if waiting:
            target = ball  # at the support point: stop there and face the ball rather than circle round it
        # Forward is -x: the angle from forward to the target, counter-clockwise positive.
        angle = math.atan2(-target[1], -target[0])
        # Steering is a torque: damp the turn rate (gyro z; a positive steer turns clockwise) or it overshoots.
        spin = float(np.asarray(observation["sensors_gyro"]).reshape(-1)[2]) if "sensors_gyro" in observation else 0.0
        steer = 0.0 - self.steer_gain * angle + self.steer_damping * spin  # (0.0 - 0.0 is 0.0, not -0.0)
        roll = max(0.0, math.cos(angle)) if abs(angle) < math.pi / 2 else -0.3
        if waiting:
            roll = 0.0
        elif charging:
            roll *= self.push_speed
        elif float(np.hypot(*target)) < 2.0 or distance < 2.0:
            roll *= self.near_speed  # arriving behind the ball or going round it: do not knock it away
        kick = 1.0 if charging and distance < self.kick_range else -1.0
        return np.clip(np.array([roll, steer, kick], dtype=self._dtype), self._low, self._high)

    def _teammate_better_placed(self, observation: Any, ball: np.ndarray, to_goal: np.ndarray) -> bool:
        """Whether a teammate is better placed to play the ball than this walker (at the origin).

        A walker's cost is its distance to the ball, plus ``2 * behind`` when it stands on the
        goal side of the ball (it has to go round it first).
        """

        def cost(where: np.ndarray) -> float:
            ahead = float(np.dot(where - ball, to_goal)) > -0.5
            return float(np.hypot(*(ball - where))) + (2.0 * self.behind if ahead else 0.0)

        mine = cost(np.zeros(2))
        i = 0
        while f"teammate_{i}_ego_position" in observation:
            mate = np.asarray(observation[f"teammate_{i}_ego_position"], dtype=float).reshape(-1)[:2]
            if cost(mate) < mine:
                return True
            i += 1
        return False
