"""Pong-2p shaping that guides the paddle to the spot where a return leaves steep: ``pong_aim``.

At ``ball_spin=3`` ``pong_ai`` misses only returns off the last tenth of a paddle (``bench/pong_headroom.py``), so a
learner has to meet the ball within about a pixel of its paddle's end and never miss. A reward per
return tells it so once a return, long after the moves that placed the paddle. :class:`PongAim`
tells it every step: from the raw vector it predicts where the incoming ball will cross the
paddle's face (wall bounces included) and pays the change of a potential, how near the paddle's
centre is to the nearer of the two spots that meet the ball ``aim_at`` off centre. Being a
potential, it rewards the moves and cannot be farmed: a cycle of moves that ends where it began
earns nothing.

Example:
    >>> import numpy as np
    >>> from gymnasium import spaces
    >>> aim = PongAim(weight=0.1)
    >>> aim.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
    >>> flat = np.array([0.5, 0.5, -1, 0, 0.5, 0, 0.5, 0], np.float32)  # coming straight at mid-height
    >>> round(float(aim.errors(flat[None])[0]), 2)  # pixels from the nearer aiming spot
    9.3
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from arena.interface import Interface
from envs.pong import BALL, BALL_SPEED, BALL_SPIN, FIELD, PADDLE, PADDLE_MARGIN
from interfaces._spaces import require_finite
from interfaces.pong import VectorShaping, vector_space

__all__ = ["PongAim"]

_VECTOR_SIZE = 8
_FACE = PADDLE_MARGIN + PADDLE[0]  # the ball's left edge must not cross it: the own paddle's face, x=20
_BALL_TOP_MAX = FIELD - BALL[1]
_REACH = (PADDLE[1] + BALL[1]) / 2  # the env's bounce: offset 1 is this far from the paddle's centre
_CENTRE_MIN, _CENTRE_MAX = PADDLE[1] / 2, FIELD - PADDLE[1] / 2


class PongAim(VectorShaping):
    """Reward shaping for ``pong_2p``: the change of how near the paddle is to a steep-return spot.

    While the ball comes towards the agent (the mirrored vector's ``vx < 0``, its left edge not
    yet past the paddle's face), the interface predicts the ball's height when it reaches the face
    and the two paddle heights that would meet it ``aim_at`` off centre (above and below); the
    *error* is the distance in pixels from the paddle's centre to the nearer one (clipped to the
    field). The potential is ``-weight * sqrt(min(error, cap) / cap)``: steepest near the spot,
    where the last pixels decide between a return ``pong_ai`` misses, one it returns and a miss.
    While the ball moves away the potential keeps its last value, so it pays nothing then; a game
    starts from its first observation's potential (0 if the ball moves away). Each step pays the potential's change (paid with the next reward).

    It reads the raw vector (with the env's default physics unless told: ``ball_speed`` and
    ``ball_spin`` scale its velocities back to pixels) and passes it on unchanged, so it sits
    under ``pong_frames`` and ``pong_hit_bonus``; the policy never sees the prediction.

    Args:
        inner: the interface underneath (it must leave the raw vector observation as it is).
        weight: the potential's depth: what going from ``cap`` pixels off to the spot earns.
        aim_at: where on the paddle to meet the ball, in ``(0, 1)`` (1 is the paddle's end).
        cap: errors beyond this many pixels count as ``cap``.
        ball_speed, ball_spin: the env's physics (its defaults: 3 and 6 pixels a step).

    Raises:
        ValueError: ``weight`` not a finite number, ``aim_at`` not in ``(0, 1)``, ``cap`` or the
            physics not positive and finite.
        SpaceMismatchError: at setup, for anything but ``pong_2p``'s vector observation.

    Example:
        >>> import numpy as np
        >>> aim = PongAim(weight=0.1)
        >>> aim.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
        >>> far = np.array([0.5, 0.5, -1, 0, 0.3, 0, 0.5, 0], np.float32)
        >>> nearer = np.array([0.48, 0.5, -1, 0, 0.35, 0, 0.5, 0], np.float32)
        >>> _ = aim.transform_reset(far)
        >>> _ = aim.transform_observation(far)
        >>> _ = aim.transform_observation(nearer)  # 8 pixels nearer the spot
        >>> round(aim.transform_reward(0.0), 4) > 0
        True
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(weight=0.1), vector_space(), spaces.Discrete(6))]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        weight: float = 0.1,
        aim_at: float = 0.93,
        cap: float = 32.0,
        ball_speed: float = BALL_SPEED,
        ball_spin: float = BALL_SPIN,
    ) -> None:
        super().__init__(inner)
        require_finite("PongAim", weight=weight, aim_at=aim_at, cap=cap, ball_speed=ball_speed, ball_spin=ball_spin)
        if not 0.0 < aim_at < 1.0:
            raise InvalidValueError(f"PongAim: aim_at must be in (0, 1), got {aim_at!r}")
        for name, value in (("cap", cap), ("ball_speed", ball_speed), ("ball_spin", ball_spin)):
            if not 0.0 < value < np.inf:
                raise InvalidValueError(f"PongAim: {name} must be positive and finite, got {value!r}")
        self.weight, self.aim_at, self.cap = float(weight), float(aim_at), float(cap)
        self.ball_speed, self.ball_spin = float(ball_speed), float(ball_spin)
        self._potential = np.zeros(0)  # each game's potential, of its last observation

    def state_names(self) -> tuple[str, ...]:
        return ("_potential",)

    def spots(self, vectors: Any) -> np.ndarray:
        """The paddle centres (pixels, ``(n, 2)``: above, below) that meet each incoming ball ``aim_at`` off centre.

        NaN where no ball comes (it moves away, or is already past the paddle's face).

        Args:
            vectors: ``(n, 8)`` mirrored vector observations (the agent's paddle on the left).

        Example:
            >>> aim = PongAim(aim_at=0.5)
            >>> flat = np.array([[0.5, 0.5, -1, 0, 0.5, 0, 0.5, 0]], np.float32)
            >>> aim.spots(flat).tolist()  # the ball meets the face at 80: 5 pixels off a centre
            [[75.0, 85.0]]
        """
        values = np.asarray(vectors, dtype=np.float64).reshape(-1, _VECTOR_SIZE)
        left = values[:, 0] * FIELD - BALL[0] / 2  # the ball's left edge
        top = values[:, 1] * FIELD - BALL[1] / 2
        vx, vy = values[:, 2] * self.ball_speed, values[:, 3] * self.ball_spin
        coming = (vx < 0.0) & (left >= _FACE)
        steps = np.floor((left - _FACE) / np.where(coming, -vx, 1.0)) + 1.0  # the step that crosses the face
        unfolded = np.mod(top + steps * vy, 2 * _BALL_TOP_MAX)  # the mirror walls, unfolded
        meet = np.where(unfolded <= _BALL_TOP_MAX, unfolded, 2 * _BALL_TOP_MAX - unfolded) + BALL[1] / 2
        spots = np.clip(meet[:, None] + np.array([-1.0, 1.0]) * self.aim_at * _REACH, _CENTRE_MIN, _CENTRE_MAX)
        return np.where(coming[:, None], spots, np.nan)

    def errors(self, vectors: Any) -> np.ndarray:
        """Pixels from each paddle's centre to its nearer spot (:meth:`spots`); NaN where no ball comes.

        Example:
            >>> aim = PongAim()
            >>> going = np.array([[0.5, 0.5, 1, 0, 0.5, 0, 0.5, 0]], np.float32)
            >>> aim.errors(going)
            array([nan])
        """
        centres = np.asarray(vectors, dtype=np.float64).reshape(-1, _VECTOR_SIZE)[:, 4:5] * FIELD
        return np.abs(self.spots(vectors) - centres).min(axis=1)

    def potentials(self, vectors: Any, last: Any) -> np.ndarray:
        """The potential of each of ``vectors``; ``last`` (the previous potentials) where no ball comes.

        Example:
            >>> aim = PongAim(weight=0.1, cap=32)
            >>> at_spot = np.array([[0.5, 0.5, -1, 0, 0.5 + 9.3 / 160, 0, 0.5, 0]], np.float32)
            >>> round(float(aim.potentials(at_spot, np.zeros(1))[0]), 3)
            -0.0
        """
        error = self.errors(vectors)
        depth = -self.weight * np.sqrt(np.minimum(np.nan_to_num(error), self.cap) / self.cap)
        return np.where(np.isnan(error), np.asarray(last, dtype=np.float64), depth)

    # One row per game slot; a call may cover only some slots (``slots``: the slot of each row).
    def reset_batch(self, observations: Any, starting: np.ndarray, slots: Any = None) -> None:
        starting = np.asarray(starting, dtype=bool)
        started = self._hold(slots, len(starting))[starting]
        if self.weight:
            vectors = np.asarray(observations)[starting]
            self._potential[started] = self.potentials(vectors, np.zeros(len(vectors)))
        self._owed[started] = 0.0

    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        chosen = self._hold(slots, len(observations))
        if self.weight:
            last = self._potential[chosen]
            potential = self.potentials(observations, last)
            self._owed[chosen] += potential - last
            self._potential[chosen] = potential
        return observations

    def _arguments(self) -> str:
        inner = super()._arguments()
        options = [f"weight={self.weight}", f"aim_at={self.aim_at}", f"cap={self.cap}"]
        if (self.ball_speed, self.ball_spin) != (BALL_SPEED, BALL_SPIN):
            options += [f"ball_speed={self.ball_speed}", f"ball_spin={self.ball_spin}"]
        return ", ".join(filter(None, [inner, *options]))
