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
#: PongMoves.MOVES as arrays: each move's plain raw action, and the other one.
_PLAIN, _OTHER = np.array([0, 2, 3]), np.array([1, 4, 5])
#: Where a return counts as off the paddle's edge (|vy| / ball_spin): at ball_spin=3 pong_ai misses from about 0.9 on.
EDGE_FROM = 0.88


def vector_space() -> spaces.Box:
    """``pong_2p``'s vector observation space (the contract examples' raw space)."""
    return spaces.Box(np.array([0, 0, -1, -1, 0, -1, 0, -1], np.float32), np.ones(8, np.float32), dtype=np.float32)


def _coverage(start: np.ndarray, length: float, side: int, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells ``[start, start + length)`` touches, for each of ``start`` (``(n,)`` pixels; ``side`` cells of
    ``cell`` pixels): each shape's first cell ``(n,)`` and the covered fraction of it and the next ones,
    ``(n, cells)`` (0 past the shape or outside the field)."""
    cells = int(length // cell) + 2  # the most cells a shape of this length can touch
    begin = np.maximum(start, 0.0)[:, None]
    end = np.minimum(start + length, float(side * cell))[:, None]
    first = np.floor_divide(begin, cell)
    index = first + np.arange(cells, dtype=np.float64)[None, :]
    inside = (index < np.minimum(np.ceil(end / cell), side)) & (end > begin)
    covered = (np.minimum(end, (index + 1) * cell) - np.maximum(begin, index * cell)) / cell
    return first[:, 0].astype(np.int64), np.where(inside, covered, 0.0)


def _slots(slots: Any, count: int) -> np.ndarray:
    """The slot of each of ``count`` rows: ``slots`` as indices, or ``0..count-1`` for ``None``.

    A batched hook may cover only some game slots (``slots``, see :class:`arena.batched_stack.BatchedStack`);
    the Pong levels keep one row of state per slot, grown by :func:`_grown` to the slots seen.
    """
    return np.arange(count) if slots is None else np.asarray(slots, dtype=np.int64).reshape(-1)


def _grown(rows: np.ndarray, slots: np.ndarray, fill: Any) -> np.ndarray:
    """``rows`` (one per slot, on axis 0) with room for each of ``slots``; a new slot's row is ``fill``."""
    size = int(slots.max()) + 1 if len(slots) else 0
    if size <= len(rows):
        return rows
    grown = np.full((size, *rows.shape[1:]), fill, dtype=rows.dtype)
    grown[: len(rows)] = rows
    return grown


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
        self._forget()

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
        self._forget()

    def _forget(self) -> None:
        """No game yet: one picture stack per slot, and whether the slot's game has started."""
        self._stack = np.zeros((0, self.frames, self.side, self.side), dtype=np.uint8)
        self._started = np.zeros(0, dtype=bool)

    def _hold(self, slots: np.ndarray) -> None:
        self._stack, self._started = _grown(self._stack, slots, 0), _grown(self._started, slots, False)

    def pictures(self, observations: Any) -> np.ndarray:
        """The ``(n, side, side)`` uint8 pictures of ``n`` raw (inner) observations stacked on axis 0.

        From the vector: the own paddle, the other, then the ball over them, each cell its shapes' pixel
        coverage of the env's grey levels. From the frame: its ``block x block`` means.

        Example:
            >>> itf = PongFrames(scale=8)
            >>> itf.setup(vector_space(), spaces.Discrete(6))
            >>> itf.pictures(np.zeros((3, 8), np.float32)).shape
            (3, 20, 20)
        """
        if self._block:
            frames = np.asarray(observations, dtype=np.float32)[..., 0]
            block, side = self._block, self.side
            small = frames.reshape(len(frames), side, block, side, block).mean(axis=(2, 4))
            return np.rint(small).astype(np.uint8)
        values = np.asarray(observations, dtype=np.float32).astype(np.float64).reshape(-1, _VECTOR_SIZE)
        count, side = len(values), self.side
        margin = max(PADDLE[1], PADDLE[0]) // self.scale + 2  # room for a shape's cells past the last one
        image = np.zeros((count, side + margin, side + margin), dtype=np.float64)
        games = np.arange(count)[:, None, None]
        shapes = (
            (np.full(count, float(PADDLE_MARGIN)), values[:, 4] * FIELD - PADDLE[1] / 2, PADDLE, _PADDLE_GREY),
            (np.full(count, float(FIELD - PADDLE_MARGIN - PADDLE[0])), values[:, 6] * FIELD - PADDLE[1] / 2, PADDLE,
             _PADDLE_GREY),
            (values[:, 0] * FIELD - BALL[0] / 2, values[:, 1] * FIELD - BALL[1] / 2, BALL, _BALL_GREY),
        )  # fmt: skip
        for left, top, size, grey in shapes:
            row, rows = _coverage(top, size[1], side, self.scale)
            column, columns = _coverage(left, size[0], side, self.scale)
            area = rows[:, :, None] * columns[:, None, :]
            at = (games, row[:, None, None] + np.arange(rows.shape[1])[None, :, None],
                  column[:, None, None] + np.arange(columns.shape[1])[None, None, :])  # fmt: skip
            # The ball is drawn last, over whatever it covers, as the env draws it.
            cells = image[at]
            cells *= 1.0 - area
            cells += grey * area
            image[at] = cells
        return np.rint(image[:, :side, :side]).astype(np.uint8)

    def picture(self, observation: Any) -> np.ndarray:
        """One ``(side, side)`` uint8 picture of the raw (inner) observation (:meth:`pictures` of one)."""
        return self.pictures(np.asarray(observation)[None])[0]

    # One row per game slot; a call may cover only some slots (``slots``: the slot of each row).
    def reset_batch(self, observations: Any, starting: np.ndarray, slots: Any = None) -> None:
        chosen = _slots(slots, len(starting))
        self._hold(chosen)
        started = chosen[np.asarray(starting, dtype=bool)]
        self._stack[started] = self.pictures(np.asarray(observations)[np.asarray(starting, dtype=bool)])[:, None]
        self._started[started] = True

    def observation_batch(self, observations: Any, slots: Any = None) -> np.ndarray:
        drawn = self.pictures(observations)
        chosen = _slots(slots, len(drawn))
        self._hold(chosen)
        stack = self._stack[chosen]  # a copy: the caller may keep it while the stacks move on
        stack[:, :-1] = stack[:, 1:]
        stack[:, -1] = drawn
        fresh = ~self._started[chosen]  # used without reset(): the stack starts here
        stack[fresh] = drawn[fresh][:, None]
        self._stack[chosen], self._started[chosen] = stack, True
        return stack

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

    #: The raw actions of each move, the plain one first (_PLAIN and _OTHER as arrays).
    MOVES: ClassVar[tuple[tuple[int, int], ...]] = ((0, 1), (2, 4), (3, 5))

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(), spaces.Box(0.0, 1.0, (8,), np.float32), spaces.Discrete(6))]

    def __init__(self, inner: Interface | None = None) -> None:
        super().__init__(inner)
        self._allowed = np.ones((0, 6), dtype=bool)  # the last raw mask of each game slot (all allowed at first)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        actions = self._require_space(spaces.Discrete, "action")
        if actions.n != 6 or actions.start != 0:
            raise SpaceMismatchError(f"{self}: needs pong_2p's Discrete(6) actions, got {actions}")
        self.action_space = spaces.Discrete(len(self.MOVES))
        self._allowed = np.ones((0, 6), dtype=bool)

    # One row per game slot; a call may cover only some slots (``slots``: the slot of each row).
    def action_batch(self, actions: Any, slots: Any = None) -> np.ndarray:
        given = np.asarray(actions)
        try:
            moves = given.astype(np.int64)
        except (TypeError, ValueError):
            moves = None
        bad = None if moves is not None else given.reshape(-1)[0]
        if moves is not None and ((moves != given) | (moves < 0) | (moves >= len(self.MOVES))).any():
            bad = given[(moves != given) | (moves < 0) | (moves >= len(self.MOVES))][0]
        if bad is not None or moves is None:
            raise InvalidActionError(f"{self}: action {bad!r} is not in {self.action_space}")
        plain, other = _PLAIN[moves], _OTHER[moves]
        chosen = _slots(slots, len(moves))
        self._allowed = _grown(self._allowed, chosen, True)
        allowed, rows = self._allowed[chosen], np.arange(len(moves))
        return np.where(~allowed[rows, plain] & allowed[rows, other], other, plain)

    def action_mask_batch(self, masks: Any, slots: Any = None) -> np.ndarray:
        allowed = np.asarray(masks) != 0
        chosen = _slots(slots, len(allowed))
        self._allowed = _grown(self._allowed, chosen, True)
        self._allowed[chosen] = allowed
        return (allowed[:, _PLAIN] | allowed[:, _OTHER]).astype(np.int8)


class VectorShaping(Interface):
    """A shaping level over ``pong_2p``'s raw vector, which it passes on: what it owes is paid with the next reward.

    Written over a batch of games (one row of state per game slot; a single game is a batch of one, slot 0).
    Subclasses add to ``_owed`` as they observe, and name their other per-slot arrays in :meth:`state_names`.

    Raises:
        SpaceMismatchError: at setup, for anything but ``pong_2p``'s vector observation.
    """

    def __init__(self, inner: Interface | None = None) -> None:
        super().__init__(inner)
        self._owed = np.zeros(0)  # what each game slot is owed, paid with its next reward

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        if box.shape != (_VECTOR_SIZE,):
            raise SpaceMismatchError(f"{self}: needs pong_2p's vector observation Box(8,), got {box}")
        for name in ("_owed", *self.state_names()):
            setattr(self, name, np.zeros(0))

    def state_names(self) -> tuple[str, ...]:
        """The attributes holding one number per game, besides ``_owed``."""
        return ()

    def _hold(self, slots: Any, count: int) -> np.ndarray:
        """The slot of each of ``count`` rows (``slots``, or every slot), with a row of state for each (0 at first)."""
        chosen = _slots(slots, count)
        for name in ("_owed", *self.state_names()):
            setattr(self, name, _grown(getattr(self, name), chosen, 0.0))
        return chosen

    # A call may cover only some slots (``slots``: the slot of each row).
    def reward_batch(self, rewards: np.ndarray, slots: Any = None) -> np.ndarray:
        chosen = self._hold(slots, len(rewards))
        paid = rewards + self._owed[chosen]
        self._owed[chosen] = 0.0
        return paid


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
        self._last_vx = np.zeros(0)  # each game's ball vx, as its last observation showed it

    def state_names(self) -> tuple[str, ...]:
        return ("_last_vx",)

    def reset_batch(self, observations: Any, starting: np.ndarray, slots: Any = None) -> None:
        starting = np.asarray(starting, dtype=bool)
        started = self._hold(slots, len(starting))[starting]
        values = np.asarray(observations, dtype=np.float64).reshape(len(starting), -1)
        self._last_vx[started], self._owed[started] = values[starting, 2], 0.0

    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        values = np.asarray(observations, dtype=np.float64).reshape(len(observations), -1)
        chosen = self._hold(slots, len(values))
        ball_x, ball_vx = values[:, 0], values[:, 2]
        returned = (self._last_vx[chosen] < 0.0) & (ball_vx > 0.0) & (ball_x < 0.3)
        self._owed[chosen] += np.where(returned, self.pay(values[:, 3]), 0.0)
        self._last_vx[chosen] = ball_vx
        return observations

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
