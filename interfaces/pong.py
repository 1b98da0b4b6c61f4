"""Pong-2p from pixels: the field as a small grey picture stack, and the three moves that matter.

:class:`PongFrames` turns ``pong_2p``'s raw observation into a stack of small greyscale frames
(channels first, ``uint8``), the input of a CNN policy. It reads either of the env's
observations: the rendered ``"frame"`` (block-averaged further down), or the default
``"vector"``, from which it draws the same field the env renders (ball 255, paddles 160,
field 0, each shape's pixel coverage of a cell averaged in). So a policy trained on pixels
plays the vector env beside ``pong_ai`` (which reads the vector) and the frame env alike; the
policy sees only the picture, never the vector's velocities. :class:`PongMoves` keeps the
moves that differ (``noop``, ``up``, ``down``: ``fire`` does nothing in ``pong_2p``).
:class:`PongHitBonus` is a training aid: a small reward each time the agent returns the ball.

Example:
    >>> from envs.pong import Pong2p
    >>> env = Pong2p(rounds=1)
    >>> itf = PongMoves(PongFrames(scale=4, frames=2))
    >>> itf.setup(env.observation_space("player_0"), env.action_space("player_0"))
    >>> obs, _ = env.reset(seed=0)
    >>> itf.transform_reset(obs["player_0"]).shape, itf.action_space, int(itf.transform_action(2))
    ((2, 40, 40), Discrete(3), 3)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidActionError, InvalidValueError, SpaceMismatchError
from arena.interface import Interface
from envs.pong import BALL, FIELD, PADDLE, PADDLE_MARGIN
from interfaces._spaces import require_finite

__all__ = ["PongFrames", "PongHitBonus", "PongMoves"]

#: Grey levels of the env's ``"frame"`` observation.
_BALL_GREY, _PADDLE_GREY = 255.0, 160.0
_VECTOR_SIZE = 8
#: Where a return counts as off the paddle's edge (|vy| / ball_spin): at ball_spin=3 pong_ai misses from about 0.9 on.
EDGE_FROM = 0.88


def vector_space() -> spaces.Box:
    """``pong_2p``'s vector observation space (the contract examples' raw space)."""
    return spaces.Box(np.array([0, 0, -1, -1, 0, -1, 0, -1], np.float32), np.ones(8, np.float32), dtype=np.float32)


def _coverage(start: float, length: float, cells: int, cell: int) -> tuple[int, list[float]]:
    """The cells ``[start, start + length)`` touches (``cell`` pixels each, ``cells`` of them): the
    first one's index and the fraction of each covered, in plain floats (a shape spans a few cells)."""
    start, end = max(start, 0.0), min(start + length, float(cells * cell))
    if end <= start:
        return 0, []
    first, last = int(start // cell), min(int(np.ceil(end / cell)), cells)
    return first, [(min(end, (i + 1) * cell) - max(start, i * cell)) / cell for i in range(first, last)]


class PongFrames(Interface):
    """``pong_2p``'s field as the last ``frames`` small grey pictures, ``(frames, side, side)`` uint8.

    ``side = 160 // scale``: each cell averages ``scale x scale`` pixels of the 160x160 field.
    The raw observation may be the env's ``"vector"`` (8 numbers: the interface draws the
    field from the positions, with the env's grey levels and the shapes' exact pixel
    coverage) or its ``"frame"`` (``(160 // f, 160 // f, 1)`` uint8, block-averaged down to
    ``side``; ``f`` must divide ``scale``). Both are mirrored by the env, so the learner's
    paddle is always on the left. Frames are stacked oldest first; at the start of an episode
    the stack is filled with the first picture.

    Args:
        inner: the interface underneath (``None``: the raw observation).
        scale: field pixels per cell side; divides 160 (4 gives 40x40 pictures).
        frames: pictures stacked (2 show every speed).

    Raises:
        ValueError: ``scale`` does not divide 160, or ``frames`` is not a positive integer.
        SpaceMismatchError: at setup, for an observation that is neither ``pong_2p``'s
            vector nor a frame whose side ``scale`` can reach.

    Example:
        >>> import numpy as np
        >>> itf = PongFrames(scale=4, frames=2)
        >>> itf.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
        >>> ball_centre_paddles_centred = np.array([0.5, 0.5, 1, 0, 0.5, 0, 0.5, 0], np.float32)
        >>> picture = itf.transform_reset(ball_centre_paddles_centred)[-1]
        >>> picture[19:21, 19:21].tolist()  # the 2x4 ball straddles four 4x4 cells
        [[32, 32], [32, 32]]
        >>> int(picture[20, 4]), int(picture[0, 0])  # own paddle (x 16-20), the empty field
        (160, 0)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        vector = vector_space()
        return [
            (cls(scale=4, frames=2), vector, spaces.Discrete(6)),
            (cls(scale=8, frames=3), spaces.Box(0, 255, (80, 80, 1), np.uint8), spaces.Discrete(6)),
        ]

    def __init__(self, inner: Interface | None = None, *, scale: int = 4, frames: int = 2) -> None:
        super().__init__(inner)
        for name, value in (("scale", scale), ("frames", frames)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
                raise InvalidValueError(f"PongFrames: {name} must be a positive integer, got {value!r}")
        if FIELD % scale:
            raise InvalidValueError(f"PongFrames: scale must divide {FIELD}, got {scale!r}")
        self.scale, self.frames = int(scale), int(frames)
        self.side = FIELD // self.scale
        self._block = 0  # raw frame pixels per cell side; 0: the raw observation is the vector
        self._stack: np.ndarray | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        if box.shape == (_VECTOR_SIZE,):
            self._block = 0
        elif (
            len(box.shape) == 3
            and box.shape[0] == box.shape[1]
            and box.shape[2] == 1
            and box.shape[0] % self.side == 0
            and box.dtype == np.uint8
        ):
            self._block = box.shape[0] // self.side
        else:
            raise SpaceMismatchError(
                f"{self}: needs pong_2p's vector observation Box(8,) or its grey frame (N, N, 1) uint8 with N a "
                f"multiple of {self.side}, got {box}"
            )
        self.observation_space = spaces.Box(0, 255, (self.frames, self.side, self.side), np.uint8)
        self._stack = None

    def picture(self, observation: Any) -> np.ndarray:
        """One ``(side, side)`` uint8 picture of the raw (inner) observation."""
        if self._block:
            frame = np.asarray(observation, dtype=np.float32)[:, :, 0]
            block = self._block
            small = frame.reshape(self.side, block, self.side, block).mean(axis=(1, 3))
            return np.rint(small).astype(np.uint8)
        ball_x, ball_y, _, _, own_y, _, other_y, _ = (float(v) for v in np.asarray(observation).reshape(-1))
        image = np.zeros((self.side, self.side), dtype=np.float64)
        for left, top, size, grey in (
            (PADDLE_MARGIN, own_y * FIELD - PADDLE[1] / 2, PADDLE, _PADDLE_GREY),
            (FIELD - PADDLE_MARGIN - PADDLE[0], other_y * FIELD - PADDLE[1] / 2, PADDLE, _PADDLE_GREY),
            (ball_x * FIELD - BALL[0] / 2, ball_y * FIELD - BALL[1] / 2, BALL, _BALL_GREY),
        ):
            row, rows = _coverage(top, size[1], self.side, self.scale)
            column, columns = _coverage(left, size[0], self.side, self.scale)
            if not rows or not columns:
                continue
            area = np.outer(rows, columns)
            cells = image[row : row + len(rows), column : column + len(columns)]
            # The ball is drawn last, over whatever it covers, as the env draws it.
            cells *= 1.0 - area
            cells += grey * area
        return np.rint(image).astype(np.uint8)

    def reset(self, observation: Any) -> None:
        self._start(observation)

    def _start(self, observation: Any) -> np.ndarray:
        stack = self._stack = np.empty((self.frames, self.side, self.side), dtype=np.uint8)
        stack[:] = self.picture(observation)
        return stack

    def observation(self, observation: Any) -> np.ndarray:
        if self._stack is None:  # used without reset(): start the stack here
            return self._start(observation).copy()
        stack = self._stack
        stack[:-1] = stack[1:]
        stack[-1] = self.picture(observation)
        return stack.copy()  # a fresh array: the caller may keep it while the stack moves on

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"scale={self.scale}", f"frames={self.frames}"]))


class PongMoves(Interface):
    """``Discrete(3)``: 0 ``noop``, 1 ``up``, 2 ``down``, sent as ``pong_2p``'s actions 0, 2 and 3.

    ``fire`` does nothing in ``pong_2p`` (the ball is served by itself), and ``up_fire`` /
    ``down_fire`` repeat ``up`` / ``down``; a model choosing among three moves learns faster.
    A move is allowed when the mask allows one of its raw actions (``noop``/``fire``,
    ``up``/``up_fire``, ``down``/``down_fire``), and is sent as the first of them the last
    mask allowed.

    Raises:
        SpaceMismatchError: at setup, for anything but ``Discrete(6)`` actions.
        InvalidActionError: for an action outside ``Discrete(3)``.

    Example:
        >>> itf = PongMoves()
        >>> itf.setup(spaces.Box(0, 1, (8,)), spaces.Discrete(6))
        >>> [int(itf.transform_action(a)) for a in range(3)]
        [0, 2, 3]
        >>> itf.transform_action_mask([0, 1, 0, 1, 0, 0]).tolist(), int(itf.transform_action(0))
        ([1, 0, 1], 1)
    """

    #: The raw actions of each move, the plain one first.
    MOVES: ClassVar[tuple[tuple[int, int], ...]] = ((0, 1), (2, 4), (3, 5))

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(), spaces.Box(0.0, 1.0, (8,), np.float32), spaces.Discrete(6))]

    def __init__(self, inner: Interface | None = None) -> None:
        super().__init__(inner)
        self._allowed = np.ones(6, dtype=bool)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        actions = self._require_space(spaces.Discrete, "action")
        if actions.n != 6 or actions.start != 0:
            raise SpaceMismatchError(f"{self}: needs pong_2p's Discrete(6) actions, got {actions}")
        self.action_space = spaces.Discrete(len(self.MOVES))
        self._allowed = np.ones(6, dtype=bool)

    def action(self, action: Any) -> int:
        move = int(action)
        if not 0 <= move < len(self.MOVES) or move != action:
            raise InvalidActionError(f"{self}: action {action!r} is not in {self.action_space}")
        plain, other = self.MOVES[move]
        return other if not self._allowed[plain] and self._allowed[other] else plain

    def action_mask(self, mask: Any) -> np.ndarray:
        self._allowed = np.asarray(mask) != 0
        return np.array([self._allowed[list(raw)].any() for raw in self.MOVES], dtype=np.int8)


class VectorShaping(Interface):
    """A shaping level over ``pong_2p``'s raw vector, which it passes on: what it owes is paid with the next reward.

    Subclasses add to ``_owed`` as they observe, and drop what they remember of a game in :meth:`forget`.

    Raises:
        SpaceMismatchError: at setup, for anything but ``pong_2p``'s vector observation.
    """

    def __init__(self, inner: Interface | None = None) -> None:
        super().__init__(inner)
        self._owed = 0.0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        if box.shape != (_VECTOR_SIZE,):
            raise SpaceMismatchError(f"{self}: needs pong_2p's vector observation Box(8,), got {box}")
        self._owed = 0.0
        self.forget()

    def forget(self) -> None:
        """Drop what the level remembers of the last game (called at setup)."""

    def reward(self, reward: float) -> float:
        owed, self._owed = self._owed, 0.0
        return reward + owed


class PongHitBonus(VectorShaping):
    """Reward shaping for ``pong_2p``: ``bonus`` each time the agent's paddle returns the ball,
    and ``steep`` times how steep the return leaves.

    It reads the raw vector observation (mirrored: the agent's paddle on the left), passes it on
    unchanged, and sees a return where the ball's horizontal speed turns from leftwards to
    rightwards in the left part of the field (``x < 0.3``; a serve starts at the centre). The
    bonus is paid with the next reward the agent receives (the end of the episode included), so
    a learner that hits the ball gets a signal long before it wins rounds. Keep ``bonus`` small
    next to a round's 1: a tied round of many returns must stay worth less than a won one (a
    1,000-step tie holds about 12 returns of each side).

    ``steep`` pays for the return's vertical speed, ``steep * |vy| / ball_spin`` (the vector's
    fourth number, 0 for a flat return, 1 off the paddle's very end): ``pong_ai`` returns every
    flat ball and misses steep ones, so the returns that win rounds against it leave off the
    paddle's outer half (``ball_spin=6``, the default) or only its last tenth (``ball_spin=3``;
    ``bench/pong_headroom.py``); the edge is also where a return
    turns into a miss, which the round's -1 prices. ``edge`` pays only for those: a return at
    least ``edge_from`` of the steepest (the linear ``steep`` tells a 0.6 return from a winning
    0.93 one by a third of its weight).

    Args:
        inner: the interface underneath (it must leave the raw vector observation as it is).
        bonus: the reward of one return.
        steep: the reward of a return off the paddle's end, scaled down to 0 for a flat one.
        edge: the reward of a return off the paddle's edge (``|vy| / ball_spin >= edge_from``).
        edge_from: where the edge starts, in ``(0, 1]``.

    Raises:
        ValueError: ``bonus``, ``steep`` or ``edge`` is not a finite number, or ``edge_from``
            is not in ``(0, 1]``.
        SpaceMismatchError: at setup, for anything but ``pong_2p``'s vector observation.

    Example:
        >>> import numpy as np
        >>> itf = PongHitBonus(bonus=0.05)
        >>> itf.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
        >>> coming = np.array([0.14, 0.5, -1, 0, 0.5, 0, 0.5, 0], np.float32)
        >>> returned = np.array([0.15, 0.5, 1, 0.2, 0.5, 0, 0.5, 0], np.float32)
        >>> _ = itf.transform_reset(coming)
        >>> _ = itf.transform_observation(returned)
        >>> itf.transform_reward(0.0), itf.transform_reward(0.0)
        (0.05, 0.0)
        >>> steep = PongHitBonus(bonus=0.05, steep=0.1)
        >>> steep.setup(spaces.Box(-1, 1, (8,), np.float32), spaces.Discrete(6))
        >>> _ = steep.transform_reset(coming)
        >>> _ = steep.transform_observation(returned)  # vy 0.2 of the steepest
        >>> round(steep.transform_reward(0.0), 6)
        0.07
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        vector = vector_space()
        return [(cls(bonus=0.1), vector, spaces.Discrete(6))]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        bonus: float = 0.05,
        steep: float = 0.0,
        edge: float = 0.0,
        edge_from: float = EDGE_FROM,
    ) -> None:
        super().__init__(inner)
        require_finite("PongHitBonus", bonus=bonus, steep=steep, edge=edge, edge_from=edge_from)
        if not 0.0 < edge_from <= 1.0:
            raise InvalidValueError(f"PongHitBonus: edge_from must be in (0, 1], got {edge_from!r}")
        self.bonus, self.steep, self.edge, self.edge_from = float(bonus), float(steep), float(edge), float(edge_from)
        self._last_vx = 0.0

    def forget(self) -> None:
        self._last_vx = 0.0

    def reset(self, observation: Any) -> None:
        self._last_vx, self._owed = float(np.asarray(observation).reshape(-1)[2]), 0.0

    def observation(self, observation: Any) -> Any:
        values = np.asarray(observation).reshape(-1)
        ball_x, ball_vx = float(values[0]), float(values[2])
        if self._last_vx < 0.0 < ball_vx and ball_x < 0.3:
            self._owed += float(self.pay(float(values[3])))
        self._last_vx = ball_vx
        return observation

    def pay(self, steepness: Any) -> Any:
        """What a return earns, from the vector's ``vy / ball_spin`` (a number or an array of them).

        Example:
            >>> PongHitBonus(bonus=0.02, steep=0.05, edge=0.1).pay(np.array([0.0, -0.5, 0.9]))
            array([0.02 , 0.045, 0.165])
        """
        steepness = np.abs(steepness)
        return self.bonus + self.steep * steepness + self.edge * (steepness >= self.edge_from)

    def _arguments(self) -> str:
        inner = super()._arguments()
        steep = f"steep={self.steep}" if self.steep else ""
        edge = f"edge={self.edge}" if self.edge else ""
        edge_from = f"edge_from={self.edge_from}" if self.edge and self.edge_from != EDGE_FROM else ""
        return ", ".join(filter(None, [inner, f"bonus={self.bonus}", steep, edge, edge_from]))
