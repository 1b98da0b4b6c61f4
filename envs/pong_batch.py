"""Many ``pong_2p`` games stepped together in numpy: :meth:`envs.pong.Pong2p.make_batch`.

:class:`PongBatch` holds ``num_games`` games of :class:`~envs.pong.Pong2p` as arrays and steps them
all in one call, keeping :class:`arena.batch.SimultaneousBatch`'s contract (games that end start
again in the same call). Its physics are the single env's, operation for operation, and each game
draws its serves from its own generator seeded as the single env seeds its own, so game ``g`` after
``reset(seed=s)`` plays what ``Pong2p`` plays after ``reset(seed=derive_seed(s, g))``
(:func:`arena.testing.check_batch` shows it). Its observations are the env's ``"vector"`` ones;
:class:`interfaces.pong.PongFrames` draws pictures from them, for one game or a batch alike.

Example:
    >>> import numpy as np
    >>> batch = PongBatch(3, rounds=2)
    >>> observations, infos = batch.reset(seed=0)
    >>> observations.shape, infos["live"].all()
    ((3, 2, 8), np.True_)
    >>> observations, rewards, terminations, truncations, infos = batch.step(np.zeros((3, 2), np.int64))
    >>> rewards.shape, infos["episode_over"].tolist()
    ((3, 2), [False, False, False])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batch import TurnModel
from arena.errors import InvalidActionError, InvalidValueError, ResetNeeded
from arena.seeding import game_seeds
from envs.pong_rules import (
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
    check_rules,
)

__all__ = ["PongBatch"]

_PUSHES = np.array(_PUSH, dtype=np.float64)  # Pong2p's push of each raw action
_VECTOR_LOW = np.array([0, 0, -1, -1, 0, -1, 0, -1], dtype=np.float32)
_PLAYERS = ("player_0", "player_1")


class PongBatch:
    """``num_games`` two-player Pong games as arrays, stepped together (the rules of :class:`~envs.pong.Pong2p`).

    * ``reset(seed=s)`` gives game ``g`` the seed ``derive_seed(s, g)`` (or ``s[g]`` for a
      sequence); ``seed=None`` goes on with each game's generator, as the single env's plain
      ``reset()`` does. Returns ``(observations, {"live": ...})``.
    * ``step(actions)`` takes ``(num_games, 2)`` raw actions (0-5, player_0's first) and returns
      ``(observations, rewards, terminations, truncations, infos)``: observations
      ``(num_games, 2, 8)`` float32, each player's mirrored ``"vector"``; rewards float32 and the
      flags bool, ``(num_games, 2)`` (both players terminate when a game's last round ends; no
      truncations). ``infos``: ``"live"`` (always all True: both players act every step),
      ``"episode_over"`` ``(num_games,)``, and for the ``k`` games that ended
      ``"final_observation"`` ``(k, 2, 8)`` (the positions after the last round; the single env
      shows none) and ``"final_score"`` ``(k, 2)`` (rounds won by player_0, player_1).
    * :meth:`restart` abandons games and starts their next ones now.

    Args:
        num_games: games in the batch.
        rounds, max_round_steps, ball_speed, ball_spin, paddle_speed, paddle_accel: as
            :class:`~envs.pong.Pong2p` takes them (and checks them alike).

    Raises:
        ValueError: ``num_games`` below 1, or an option :class:`~envs.pong.Pong2p` refuses.

    Example:
        >>> batch = PongBatch(2)
        >>> batch.reset(seed=1)[0].dtype, batch.score.tolist()
        (dtype('float32'), [[0, 0], [0, 0]])
    """

    turns: TurnModel = "simultaneous"

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
        check_rules("PongBatch", rounds, max_round_steps, 1, ball_speed, ball_spin, paddle_speed, paddle_accel)
        self.single_observation_space: spaces.Space = spaces.Box(_VECTOR_LOW, np.float32(1.0), dtype=np.float32)
        self.single_action_space: spaces.Space = spaces.Discrete(len(_PUSH))
        self.possible_agents = _PLAYERS
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
        # One generator per game, seeded as Pong2p seeds its np_random: the serves are the single env's.
        self._rngs: list[np.random.Generator] = []
        self._all = np.ones(n, dtype=bool)

    def __str__(self) -> str:
        return f"<PongBatch {self.num_games} games>"

    __repr__ = __str__

    @property
    def live(self) -> np.ndarray:
        """``(num_games, 2)`` bool: both players act every step of every game."""
        return np.ones((self.num_games, 2), dtype=bool)

    def reset(
        self, *, seed: int | Any | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game; see the class docstring. ``options`` is accepted and unused, as by the env."""
        if seed is not None:
            self._rngs = [np.random.default_rng(s) for s in game_seeds(seed, self.num_games, self)]
        elif not self._rngs:  # the first reset without a seed: fresh entropy, as the env
            self._rngs = [np.random.default_rng() for _ in range(self.num_games)]
        self._restart(self._all)
        return self.vectors(), {"live": self.live}

    def restart(self, games: Any) -> np.ndarray:
        """Abandon ``games`` and start each one's next game now; returns their ``(len(games), 2, 8)`` observations.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
        """
        if not self._rngs:
            raise ResetNeeded(f"{self}: restart() called before reset()")
        index = np.asarray(games, dtype=np.int64).reshape(-1)
        chosen = np.zeros(self.num_games, dtype=bool)
        chosen[index] = True
        self._restart(chosen)
        return self.vectors()[index]

    def _restart(self, games: np.ndarray) -> None:
        self.score[games] = 0
        self.ties[games] = 0
        self.round[games] = 0
        self._serve(games)

    def _serve(self, games: np.ndarray) -> None:
        serving = np.flatnonzero(games)
        if not len(serving):
            return
        # Pong2p's two draws, each game from its own generator: the side, then the vertical speed.
        draws = np.array([self._rngs[g].random(2) for g in serving.tolist()])
        self.ball[serving, 0] = (FIELD - BALL[0]) / 2
        self.ball[serving, 1] = (FIELD - BALL[1]) / 2
        self.ball[serving, 2] = np.where(draws[:, 0] < 0.5, 1.0, -1.0) * self.ball_speed
        self.ball[serving, 3] = (draws[:, 1] - 0.5) * self.ball_spin
        self.paddle_y[serving] = _PADDLE_TOP_MAX / 2
        self.paddle_vy[serving] = 0.0
        self.round_steps[serving] = 0

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Move every game one step; games whose last round ends start a new game. See the class docstring.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            InvalidActionError: actions of another shape, not integers, or outside 0-5.
        """
        if not self._rngs:
            raise ResetNeeded(f"{self}: step() called before reset()")
        moves = np.asarray(actions)
        if moves.shape != (self.num_games, 2) or not np.issubdtype(moves.dtype, np.integer):
            raise InvalidActionError(
                f"PongBatch: actions must be ({self.num_games}, 2) integers, got {moves.shape} {moves.dtype}"
            )
        if ((moves < 0) | (moves > 5)).any():
            raise InvalidActionError(f"PongBatch: actions must be pong_2p's 0-5, got {np.unique(moves).tolist()}")
        self._move_paddles(moves)
        rewards = self._move_ball()
        over = self.round >= self.rounds
        terminations = np.repeat(over[:, None], 2, axis=1)
        infos: dict[str, Any] = {"episode_over": over}
        if over.any():
            infos["final_observation"] = self.vectors()[over]
            infos["final_score"] = self.score[over].copy()
            self._restart(over)
        infos["live"] = self.live
        return self.vectors(), rewards, terminations, np.zeros_like(terminations), infos

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
        """Put a single env's :class:`~envs.pong.PongState` into slot ``game`` (its serves stay the slot's own)."""
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
