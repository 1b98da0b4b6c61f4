"""Many ``pong_2p`` games stepped together in numpy: the same rules, pictures and scripted player, batched.

:class:`PongBatch` holds ``num_games`` games of :class:`~envs.pong.Pong2p` as arrays and steps them
all in one call (games that end start again in the same call). Its physics are the single env's,
operation for operation, so a game loaded into a slot (:meth:`PongBatch.load_state`) and stepped
with the same moves stays the single env's game until its round ends (the serves draw from the
batch's own random stream). :func:`pictures` draws what :class:`interfaces.pong.PongFrames` draws
from the same vectors, and :func:`pong_ai_moves` decides as :class:`envs.pong_agents.PongAIAgent`;
the training env of :mod:`envs.pong_training` is built from the three.

Example:
    >>> import numpy as np
    >>> batch = PongBatch(3, rounds=2)
    >>> vectors = batch.reset(seed=0)
    >>> vectors.shape, pictures(vectors[:, 0], scale=4).shape
    ((3, 2, 8), (3, 40, 40))
    >>> vectors, rewards, over = batch.step(pong_ai_moves(vectors.reshape(6, 8)).reshape(3, 2))
    >>> rewards.shape, over.tolist()
    ((3, 2), [False, False, False])
"""

from __future__ import annotations

import numpy as np

from arena.errors import InvalidValueError
from envs.pong import (
    _BALL_TOP_MAX,
    _LEFT_FACE,
    _PADDLE_TOP_MAX,
    _PUSH,
    _RIGHT_FACE,
    BALL,
    BALL_SPEED,
    BALL_SPIN,
    FIELD,
    PADDLE,
    PADDLE_MARGIN,
    PongState,
)

__all__ = ["PongBatch", "pictures", "pong_ai_moves"]

_PUSHES = np.array(_PUSH, dtype=np.float64)  # Pong2p's push of each raw action
_VECTOR_LOW = np.array([0, 0, -1, -1, 0, -1, 0, -1], dtype=np.float32)
_BALL_GREY, _PADDLE_GREY = 255.0, 160.0
_NOOP, _UP, _DOWN = 0, 2, 3


class PongBatch:
    """``num_games`` two-player Pong games as arrays, stepped together (the rules of :class:`~envs.pong.Pong2p`).

    Args:
        num_games: games in the batch.
        rounds, max_round_steps, ball_speed, ball_spin, paddle_speed, paddle_accel: as
            :class:`~envs.pong.Pong2p` takes them (checked by it).

    Raises:
        ValueError: ``num_games`` below 1, or an option :class:`~envs.pong.Pong2p` refuses.

    Example:
        >>> batch = PongBatch(2)
        >>> batch.reset(seed=1).dtype, batch.score.tolist()
        (dtype('float32'), [[0, 0], [0, 0]])
    """

    def __init__(
        self,
        num_games: int,
        *,
        rounds: int = 20,
        max_round_steps: int = 1000,
        ball_speed: float = BALL_SPEED,
        ball_spin: float = BALL_SPIN,
        paddle_speed: float = 4.0,
        paddle_accel: float = 1.0,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise InvalidValueError(f"PongBatch: num_games must be a positive integer, got {num_games!r}")
        from envs.pong import Pong2p  # its checks are the batch's

        Pong2p(rounds, max_round_steps, "vector", 2, ball_speed, ball_spin, paddle_speed, paddle_accel)
        self.num_games = int(num_games)
        self.rounds, self.max_round_steps = int(rounds), int(max_round_steps)
        self.ball_speed, self.ball_spin = float(ball_speed), float(ball_spin)
        self.paddle_speed, self.paddle_accel = float(paddle_speed), float(paddle_accel)
        n = self.num_games
        self.ball = np.zeros((n, 4), dtype=np.float64)  # x, y, vx, vy of the ball's top-left corner
        self.paddle_y = np.zeros((n, 2), dtype=np.float64)
        self.paddle_vy = np.zeros((n, 2), dtype=np.float64)
        self.score = np.zeros((n, 2), dtype=np.int64)
        self.ties = np.zeros(n, dtype=np.int64)
        self.round = np.zeros(n, dtype=np.int64)
        self.round_steps = np.zeros(n, dtype=np.int64)
        self._rng = np.random.default_rng()

    def __str__(self) -> str:
        return f"<PongBatch {self.num_games} games>"

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start every game (the serves drawn from ``seed``'s stream); returns :meth:`vectors`."""
        self._rng = np.random.default_rng(seed)
        self._restart(np.ones(self.num_games, dtype=bool))
        return self.vectors()

    def _restart(self, games: np.ndarray) -> None:
        self.score[games] = 0
        self.ties[games] = 0
        self.round[games] = 0
        self._serve(games)

    def _serve(self, games: np.ndarray) -> None:
        count = int(games.sum())
        if not count:
            return
        # Pong2p's draws, game by game in order: the side, then the vertical speed.
        draws = self._rng.random((count, 2))
        ball = self.ball[games]
        ball[:, 0] = (FIELD - BALL[0]) / 2
        ball[:, 1] = (FIELD - BALL[1]) / 2
        ball[:, 2] = np.where(draws[:, 0] < 0.5, 1.0, -1.0) * self.ball_speed
        ball[:, 3] = (draws[:, 1] - 0.5) * self.ball_spin
        self.ball[games] = ball
        self.paddle_y[games] = _PADDLE_TOP_MAX / 2
        self.paddle_vy[games] = 0.0
        self.round_steps[games] = 0

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Move every game one step; games whose last round ends start a new game.

        Args:
            actions: ``(num_games, 2)`` raw ``pong_2p`` actions (0-5), player_0's first.

        Returns:
            ``(vectors, rewards, over)``: the next :meth:`vectors` (of the new game where one
            ended), ``(num_games, 2)`` float32 rewards, and ``(num_games,)`` bools, True where
            a game ended this step (read :attr:`final_score` for its score).

        Raises:
            ValueError: actions of another shape or outside 0-5.
        """
        moves = np.asarray(actions)
        if moves.shape != (self.num_games, 2) or not np.issubdtype(moves.dtype, np.integer):
            raise InvalidValueError(
                f"PongBatch: actions must be ({self.num_games}, 2) integers, got {moves.shape} {moves.dtype}"
            )
        if ((moves < 0) | (moves > 5)).any():
            raise InvalidValueError(f"PongBatch: actions must be pong_2p's 0-5, got {np.unique(moves).tolist()}")
        self._move_paddles(moves)
        rewards = self._move_ball()
        over = self.round >= self.rounds
        self.final_score = self.score.copy()
        self.final_ties = self.ties.copy()
        if over.any():
            self._restart(over)
        return self.vectors(), rewards, over

    def _move_paddles(self, moves: np.ndarray) -> None:
        push = _PUSHES[moves]
        speed = self.paddle_vy
        pushed = np.minimum(np.maximum(speed + push * self.paddle_accel, -self.paddle_speed), self.paddle_speed)
        braked = np.where(
            speed > 0, np.maximum(speed - self.paddle_accel, 0.0), np.minimum(speed + self.paddle_accel, 0.0)
        )
        speed = np.where(push != 0, pushed, np.where(speed != 0, braked, speed))
        top = self.paddle_y + speed
        outside = (top < 0.0) | (top > _PADDLE_TOP_MAX)
        self.paddle_y = np.where(outside, np.minimum(np.maximum(top, 0.0), _PADDLE_TOP_MAX), top)
        self.paddle_vy = np.where(outside, 0.0, speed)

    def _move_ball(self) -> np.ndarray:
        old_x, old_vx = self.ball[:, 0], self.ball[:, 2]
        x, y = old_x + old_vx, self.ball[:, 1] + self.ball[:, 3]
        vy = self.ball[:, 3]
        above, below = y < 0.0, y > _BALL_TOP_MAX
        y = np.where(above, -y, np.where(below, 2 * _BALL_TOP_MAX - y, y))
        vy = np.where(above | below, -vy, vy)
        left = (old_vx < 0) & (old_x >= _LEFT_FACE) & (_LEFT_FACE > x) & self._meets(0, y)
        right = (
            ~left & (old_vx > 0) & (old_x + BALL[0] <= _RIGHT_FACE) & (_RIGHT_FACE < x + BALL[0]) & self._meets(1, y)
        )
        x = np.where(left, 2 * _LEFT_FACE - x, np.where(right, 2 * (_RIGHT_FACE - BALL[0]) - x, x))
        reach = (PADDLE[1] + BALL[1]) / 2
        hitter = np.where(right, self.paddle_y[:, 1], self.paddle_y[:, 0])
        offset = ((y + BALL[1] / 2) - (hitter + PADDLE[1] / 2)) / reach
        bounced = left | right
        vx = np.where(bounced, -old_vx, old_vx)
        vy = np.where(bounced, np.minimum(np.maximum(offset, -1.0), 1.0) * self.ball_spin, vy)
        self.ball = np.stack([x, y, vx, vy], axis=1)
        self.round_steps += 1

        right_wins, left_wins = (
            x + BALL[0] <= PADDLE_MARGIN,
            ~(x + BALL[0] <= PADDLE_MARGIN) & (x >= FIELD - PADDLE_MARGIN),
        )
        rewards = np.zeros((self.num_games, 2), dtype=np.float32)
        rewards[left_wins] = (1.0, -1.0)
        rewards[right_wins] = (-1.0, 1.0)
        self.score[:, 0] += left_wins
        self.score[:, 1] += right_wins
        decided = left_wins | right_wins
        tied = ~decided & (self.round_steps >= self.max_round_steps)
        self.ties += tied
        ended = decided | tied
        self.round += ended
        self._serve(ended & (self.round < self.rounds))
        return rewards

    def _meets(self, side: int, ball_y: np.ndarray) -> np.ndarray:
        top = self.paddle_y[:, side]
        return (ball_y < top + PADDLE[1]) & (ball_y + BALL[1] > top)

    def vectors(self) -> np.ndarray:
        """Every player's ``pong_2p`` vector observation, ``(num_games, 2, 8)`` float32, mirrored as the env does."""
        x, y, vx, vy = self.ball.T
        ball_x = (x + BALL[0] / 2) / FIELD
        ball_y = (y + BALL[1] / 2) / FIELD
        vx, vy = vx / self.ball_speed, vy / self.ball_spin
        paddles = (self.paddle_y + PADDLE[1] / 2) / FIELD
        speeds = self.paddle_vy / self.paddle_speed
        out = np.empty((self.num_games, 2, 8), dtype=np.float32)
        out[:, 0] = np.stack([ball_x, ball_y, vx, vy, paddles[:, 0], speeds[:, 0], paddles[:, 1], speeds[:, 1]], 1)
        out[:, 1] = np.stack(
            [1.0 - ball_x, ball_y, -vx, vy, paddles[:, 1], speeds[:, 1], paddles[:, 0], speeds[:, 0]], 1
        )
        return np.clip(out, _VECTOR_LOW, np.float32(1.0))

    def load_state(self, game: int, state: PongState) -> None:
        """Put a single env's :class:`~envs.pong.PongState` into slot ``game``."""
        self.ball[game] = (state.ball_x, state.ball_y, state.ball_vx, state.ball_vy)
        self.paddle_y[game] = state.paddle_y
        self.paddle_vy[game] = state.paddle_vy
        self.score[game] = state.score
        self.ties[game], self.round[game], self.round_steps[game] = state.ties, state.round, state.round_steps

    def state(self, game: int) -> PongState:
        """Slot ``game``'s game as a :class:`~envs.pong.PongState` (what :meth:`load_state` takes)."""
        x, y, vx, vy = (float(v) for v in self.ball[game])
        return PongState(
            x,
            y,
            vx,
            vy,
            [float(v) for v in self.paddle_y[game]],
            [float(v) for v in self.paddle_vy[game]],
            [int(v) for v in self.score[game]],
            int(self.ties[game]),
            int(self.round[game]),
            int(self.round_steps[game]),
        )


def _coverage(start: np.ndarray, length: float, side: int, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """The cells ``[start, start + length)`` touches, as PongFrames computes them: each shape's first
    cell ``(n,)`` and the covered fraction of it and the next ones, ``(n, cells)`` (0 past the shape)."""
    cells = int(length // cell) + 2  # the most cells a shape of this length can touch
    begin = np.maximum(start, 0.0)[:, None]
    end = np.minimum(start + length, float(side * cell))[:, None]
    first = np.floor_divide(begin, cell)
    index = first + np.arange(cells, dtype=np.float64)[None, :]
    inside = (index < np.minimum(np.ceil(end / cell), side)) & (end > begin)
    covered = (np.minimum(end, (index + 1) * cell) - np.maximum(begin, index * cell)) / cell
    return first[:, 0].astype(np.int64), np.where(inside, covered, 0.0)


def pictures(vectors: np.ndarray, scale: int = 4) -> np.ndarray:
    """What :meth:`interfaces.pong.PongFrames.picture` draws from each of ``vectors`` (``(n, 8)`` float32).

    Returns ``(n, 160 // scale, 160 // scale)`` uint8: the own paddle, the other, then the ball
    over them, each cell its shapes' pixel coverage of the env's grey levels (the same floating-point
    operations on the cells each shape touches, so the same bytes).
    """
    values = np.asarray(vectors, dtype=np.float32).astype(np.float64)
    count, side = len(values), FIELD // scale
    margin = max(PADDLE[1], PADDLE[0]) // scale + 2  # room for a shape's block past the last cell
    image = np.zeros((count, side + margin, side + margin), dtype=np.float64)
    games = np.arange(count)[:, None, None]
    shapes = (
        (np.full(count, float(PADDLE_MARGIN)), values[:, 4] * FIELD - PADDLE[1] / 2, PADDLE, _PADDLE_GREY),
        (np.full(count, float(_RIGHT_FACE)), values[:, 6] * FIELD - PADDLE[1] / 2, PADDLE, _PADDLE_GREY),
        (values[:, 0] * FIELD - BALL[0] / 2, values[:, 1] * FIELD - BALL[1] / 2, BALL, _BALL_GREY),
    )
    for left, top, size, grey in shapes:
        row, rows = _coverage(top, size[1], side, scale)
        column, columns = _coverage(left, size[0], side, scale)
        area = rows[:, :, None] * columns[:, None, :]
        at = (games, row[:, None, None] + np.arange(rows.shape[1])[None, :, None],
              column[:, None, None] + np.arange(columns.shape[1])[None, None, :])  # fmt: skip
        cells = image[at]
        cells *= 1.0 - area
        cells += grey * area
        image[at] = cells
    return np.rint(image[:, :side, :side]).astype(np.uint8)


def pong_ai_moves(vectors: np.ndarray, gain: float = 20.0, dead_zone: float = 0.01) -> np.ndarray:
    """:class:`envs.pong_agents.PongAIAgent`'s move for each of ``vectors`` (``(n, 8)``): ``(n,)`` raw actions."""
    values = np.asarray(vectors, dtype=np.float32).astype(np.float64)
    ball_y, ball_vx, own_y, own_vy = values[:, 1], values[:, 2], values[:, 4], values[:, 5]
    distance = np.where(ball_vx < 0, ball_y, 0.5) - own_y
    wanted = np.where(np.abs(distance) < dead_zone, 0.0, np.minimum(np.maximum(distance * gain, -1.0), 1.0))
    return np.where(wanted > own_vy + 1e-6, _DOWN, np.where(wanted < own_vy - 1e-6, _UP, _NOOP)).astype(np.int64)
