"""Two-player Pong with Atari's proportions: each player sees itself on the left."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError
from envs.pong_batch import PongBatch
from envs.pong_rules import (
    _BALL_TOP_MAX,
    _LEFT_FACE,
    _PADDLE_TOP_MAX,
    _PUSH,
    _RIGHT_FACE,
    ACTION_NAMES,
    BALL,
    BALL_SPEED,
    BALL_SPIN,
    FIELD,
    PADDLE,
    PADDLE_MARGIN,
    SCORE_BORDER,
    PongState,
    check_rules,
)

__all__ = [
    "Pong2p",
    "PongState",
    "ACTION_NAMES",
    "FIELD",
    "SCORE_BORDER",
    "BALL",
    "PADDLE",
    "PADDLE_MARGIN",
    "BALL_SPEED",
    "BALL_SPIN",
]

_COLORS = {
    "background": (144, 72, 17),
    "border": (236, 236, 236),
    "left": (213, 130, 74),
    "right": (92, 186, 92),
    "ball": (236, 236, 236),
}
_DIGITS = (
    "111101101101111",
    "010110010010111",
    "111001111100111",
    "111001111001111",
    "101101111001001",
    "111100111001111",
    "111100111101111",
    "111001001001001",
    "111101111101111",
    "111101111001111",
)


class Pong2p(MultiAgentEnv):
    """Two-player Pong: ``player_0`` holds the left paddle, ``player_1`` the right one.

    **Scale** (Atari's proportions): a 160x160 field below a 34-pixel
    score border; a 2x4 ball; 4x16 paddles, 16 pixels from the left and right edges
    (left paddle's face at x=20, right paddle's at x=140).

    **Actions** (both players every step, ``Discrete(6)``, ALE Pong's set): 0 ``noop``,
    1 ``fire``, 2 ``up``, 3 ``down``, 4 ``up_fire``, 5 ``down_fire``. ``up``/``down``
    accelerate the paddle by ``paddle_accel`` px/step² up to ``paddle_speed`` px/step;
    ``noop``/``fire`` decelerate it by ``paddle_accel`` towards rest; ``fire`` has no other
    effect. A paddle stops at the top and bottom.

    **Ball**: served from the centre at the start of each round towards a random side
    with horizontal speed ``ball_speed`` and a random vertical speed in ``[-ball_spin/2,
    ball_spin/2]``. It bounces off the top and bottom walls (mirror reflection), and
    off a paddle's face: the horizontal speed flips and the vertical speed becomes
    ``ball_spin * offset``, where ``offset`` in [-1, 1] is where it hit, from the
    paddle's top end (-1, sent upwards) through its centre (0, flat) to its bottom end (+1).

    **Rounds**: a round is won (+1, and -1 to the other) when the ball gets wholly
    behind the opponent's paddle; a round that lasts ``max_round_steps`` steps is a tie
    (0 to both). After each round the ball is served again and the paddles are
    centred. After ``rounds`` rounds both players terminate.

    **Observation**, mirrored for ``player_1`` so that each player sees itself on the
    left and the opponent on the right (one policy can take either seat):

    * ``observation="vector"`` (default): ``Box(8,) float32``: ball centre x, y (field
      fractions, 0-1), ball vx / ``ball_speed``, vy / ``ball_spin`` (-1 to 1), own paddle
      centre y and vy / ``paddle_speed``, opponent paddle centre y and vy.
    * ``observation="frame"``: the field as a grayscale ``Box(0, 255, (160 // frame_scale,
      160 // frame_scale, 1), uint8)`` (block-averaged; ball 255, paddles 160, field 0).

    ``infos[agent]`` holds ``"score"``: ``(own, opponent)`` rounds won, and ``"ties"``.

    Args:
        rounds: rounds per game (default 20).
        max_round_steps: the step limit of a round, counted as a tie.
        observation: ``"vector"`` or ``"frame"``.
        frame_scale: the downsampling factor of ``"frame"`` observations (divides 160).
        ball_speed, ball_spin, paddle_speed, paddle_accel: the physics (pixels, steps).
            By default the steepest return climbs at 6 px/step, 1.5 times as fast as a paddle
            moves (Arena's Pong-2p: 8 against its built-in player's 5), so a return off the
            paddle's outer half outruns a player that only tracks the ball; with
            ``ball_spin`` below ``paddle_speed`` a tracker returns every ball.
        render_mode: ``"rgb_array"`` for a 194x160 RGB picture with the score.

    Example:
        >>> env = Pong2p(rounds=1)
        >>> obs, infos = env.reset(seed=0)
        >>> obs["player_0"].shape, env.action_names("player_0")[2]
        ((8,), 'up')
    """

    training_options = frozenset({"rounds", "max_round_steps"})  # the length of an episode
    metadata = {"render_modes": ["rgb_array"], "name": "pong_2p", "render_fps": 30, "real_time": True}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "outcome"  # win, draw or loss
    env_name = "pong_2p"

    def __init__(
        self,
        rounds: int = 20,
        max_round_steps: int = 1000,
        observation: str = "vector",
        frame_scale: int = 2,
        ball_speed: float = BALL_SPEED,
        ball_spin: float = BALL_SPIN,
        paddle_speed: float = 4.0,
        paddle_accel: float = 1.0,
        render_mode: str | None = None,
    ) -> None:
        check_rules("Pong2p", rounds, max_round_steps, frame_scale, ball_speed, ball_spin, paddle_speed, paddle_accel)
        if observation not in ("vector", "frame"):
            raise InvalidValueError(f"Pong2p: observation must be 'vector' or 'frame', got {observation!r}")
        if render_mode not in (None, "rgb_array"):
            raise InvalidValueError(f"Pong2p: render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.rounds, self.max_round_steps = int(rounds), int(max_round_steps)
        self.observation, self.frame_scale = observation, int(frame_scale)
        self.ball_speed, self.ball_spin = float(ball_speed), float(ball_spin)
        self.paddle_speed, self.paddle_accel = float(paddle_speed), float(paddle_accel)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        self._vector_low = np.array([0, 0, -1, -1, 0, -1, 0, -1], dtype=np.float32)  # the vector's bounds: low..1
        if observation == "vector":
            obs_space: spaces.Space = spaces.Box(self._vector_low, np.ones(8, dtype=np.float32), dtype=np.float32)
        else:
            side = FIELD // self.frame_scale
            obs_space = spaces.Box(0, 255, (side, side, 1), np.uint8)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(6))
        self.state = PongState()
        self._acting: list[str] | None = None

    def __str__(self) -> str:
        return "<Pong2p>"

    def make_batch(self, num_games: int, **options: Any) -> PongBatch:
        """``num_games`` games with this env's rules, stepped together (:class:`~envs.pong_batch.PongBatch`).

        ``options`` override the rules (``rounds``, ``max_round_steps`` and the physics).

        Raises:
            ValueError: this env shows ``"frame"`` observations: the batch gives the ``"vector"``
                ones, from which ``pong_frames`` draws pictures.
        """
        if self.observation != "vector":
            raise InvalidValueError(
                f"{self}: the batch gives the 'vector' observation, got observation={self.observation!r}; make the "
                "env with observation='vector' and draw pictures with pong_frames"
            )
        rules = {
            "rounds": self.rounds,
            "max_round_steps": self.max_round_steps,
            "ball_speed": self.ball_speed,
            "ball_spin": self.ball_spin,
            "paddle_speed": self.paddle_speed,
            "paddle_accel": self.paddle_accel,
        }
        return PongBatch(num_games, **{**rules, **options})

    # ---------------------------------------------------------------- episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game: score 0-0, paddles centred, the first serve."""
        super().reset(seed=seed)
        self.state = PongState()
        self._serve()
        self.agents = list(self.possible_agents)
        self._acting = list(self.agents)
        return self._observe(), self._infos()

    def _serve(self) -> None:
        state = self.state
        state.ball_x = (FIELD - BALL[0]) / 2
        state.ball_y = (FIELD - BALL[1]) / 2
        direction = 1.0 if self.np_random.random() < 0.5 else -1.0
        state.ball_vx = direction * self.ball_speed
        state.ball_vy = float(self.np_random.uniform(-0.5, 0.5)) * self.ball_spin
        state.paddle_y = [_PADDLE_TOP_MAX / 2, _PADDLE_TOP_MAX / 2]
        state.paddle_vy = [0.0, 0.0]
        state.round_steps = 0

    def step(self, actions: Mapping[str, Any]):
        """Move both paddles, then the ball; see the class docstring for the rules."""
        self.check_actions(actions, self._acting)
        state = self.state
        for side, agent in enumerate(self.possible_agents):
            push = _PUSH[int(actions[agent])]
            speed = state.paddle_vy[side]
            if push:
                speed = min(max(speed + push * self.paddle_accel, -self.paddle_speed), self.paddle_speed)
            elif speed:  # decelerate towards rest
                speed = max(speed - self.paddle_accel, 0.0) if speed > 0 else min(speed + self.paddle_accel, 0.0)
            top = state.paddle_y[side] + speed
            if top < 0.0 or top > _PADDLE_TOP_MAX:
                top, speed = min(max(top, 0.0), _PADDLE_TOP_MAX), 0.0
            state.paddle_y[side], state.paddle_vy[side] = top, speed

        x, y = state.ball_x + state.ball_vx, state.ball_y + state.ball_vy
        if y < 0.0:  # the walls mirror the ball
            y, state.ball_vy = -y, -state.ball_vy
        elif y > _BALL_TOP_MAX:
            y, state.ball_vy = 2 * _BALL_TOP_MAX - y, -state.ball_vy
        if state.ball_vx < 0 and state.ball_x >= _LEFT_FACE > x and self._meets(0, y):
            x = 2 * _LEFT_FACE - x
            self._bounce(0, y)
        elif state.ball_vx > 0 and state.ball_x + BALL[0] <= _RIGHT_FACE < x + BALL[0] and self._meets(1, y):
            x = 2 * (_RIGHT_FACE - BALL[0]) - x
            self._bounce(1, y)
        state.ball_x, state.ball_y = x, y
        state.round_steps += 1

        rewards = {"player_0": 0.0, "player_1": 0.0}
        winner = None
        if x + BALL[0] <= PADDLE_MARGIN:  # wholly behind the left paddle
            winner = 1
        elif x >= FIELD - PADDLE_MARGIN:
            winner = 0
        if winner is not None:
            state.score[winner] += 1
            rewards[self.possible_agents[winner]], rewards[self.possible_agents[1 - winner]] = 1.0, -1.0
        elif state.round_steps >= self.max_round_steps:
            state.ties += 1
        if winner is not None or state.round_steps >= self.max_round_steps:
            state.round += 1
            if state.round < self.rounds:
                self._serve()
        over = state.round >= self.rounds
        flags = {"player_0": over, "player_1": over}
        if over:
            self.agents, self._acting = [], None
            return {}, rewards, flags, {"player_0": False, "player_1": False}, self._infos()
        return self._observe(), rewards, flags, {"player_0": False, "player_1": False}, self._infos()

    def _meets(self, side: int, ball_y: float) -> bool:
        top = self.state.paddle_y[side]
        return ball_y < top + PADDLE[1] and ball_y + BALL[1] > top

    def _bounce(self, side: int, ball_y: float) -> None:
        state = self.state
        reach = (PADDLE[1] + BALL[1]) / 2
        offset = ((ball_y + BALL[1] / 2) - (state.paddle_y[side] + PADDLE[1] / 2)) / reach
        state.ball_vx = -state.ball_vx
        state.ball_vy = min(max(offset, -1.0), 1.0) * self.ball_spin

    # -------------------------------------------------------------- observing
    def _observe(self) -> dict[str, np.ndarray]:
        if self.observation == "frame":
            field_image = self._field(gray=True)
            scale = self.frame_scale
            small = field_image.reshape(FIELD // scale, scale, FIELD // scale, scale).mean(axis=(1, 3))
            left = np.rint(small).astype(np.uint8)[..., None]
            return {"player_0": left, "player_1": np.ascontiguousarray(left[:, ::-1])}
        s = self.state
        ball_x = (s.ball_x + BALL[0] / 2) / FIELD
        ball_y = (s.ball_y + BALL[1] / 2) / FIELD
        vx, vy = s.ball_vx / self.ball_speed, s.ball_vy / self.ball_spin
        paddles = [(top + PADDLE[1] / 2) / FIELD for top in s.paddle_y]
        speeds = [v / self.paddle_speed for v in s.paddle_vy]
        left = np.array([ball_x, ball_y, vx, vy, paddles[0], speeds[0], paddles[1], speeds[1]], dtype=np.float32)
        right = np.array(
            [1.0 - ball_x, ball_y, -vx, vy, paddles[1], speeds[1], paddles[0], speeds[0]], dtype=np.float32
        )
        return {"player_0": np.clip(left, self._vector_low, 1.0), "player_1": np.clip(right, self._vector_low, 1.0)}

    def _infos(self) -> dict[str, dict[str, Any]]:
        s = self.state
        return {
            "player_0": {"score": (s.score[0], s.score[1]), "ties": s.ties},
            "player_1": {"score": (s.score[1], s.score[0]), "ties": s.ties},
        }

    def _field(self, gray: bool) -> np.ndarray:
        """The 160x160 field: grayscale (ball 255, paddles 160, else 0) or RGB."""
        s = self.state
        if gray:
            image = np.zeros((FIELD, FIELD), dtype=np.float32)
            colors: dict[str, Any] = {"left": 160.0, "right": 160.0, "ball": 255.0}  # a grey level, or RGB below
        else:
            image = np.empty((FIELD, FIELD, 3), dtype=np.uint8)
            image[:] = _COLORS["background"]
            colors = _COLORS
        for side, name in ((0, "left"), (1, "right")):
            x = PADDLE_MARGIN if side == 0 else _RIGHT_FACE
            top = int(round(s.paddle_y[side]))
            image[top : top + PADDLE[1], x : x + PADDLE[0]] = colors[name]
        bx, by = int(round(s.ball_x)), int(round(s.ball_y))
        image[max(by, 0) : max(by + BALL[1], 0), max(bx, 0) : max(bx + BALL[0], 0)] = colors["ball"]
        return image

    def render(self) -> np.ndarray | None:
        """``"rgb_array"``: a 194x160x3 picture, the score in the top border."""
        if self.render_mode != "rgb_array":
            return None
        frame = np.empty((SCORE_BORDER + FIELD, FIELD, 3), dtype=np.uint8)
        frame[:SCORE_BORDER] = _COLORS["background"]
        frame[SCORE_BORDER - 2 : SCORE_BORDER] = _COLORS["border"]
        frame[SCORE_BORDER:] = self._field(gray=False)
        for side, x in ((0, 36), (1, 112)):
            self._draw_number(frame, self.state.score[side] % 100, x, 7, _COLORS["left" if side == 0 else "right"])
        return frame

    @staticmethod
    def _draw_number(frame: np.ndarray, number: int, x: int, y: int, color: tuple[int, int, int]) -> None:
        for digit in str(number):
            glyph = np.array([c == "1" for c in _DIGITS[int(digit)]]).reshape(5, 3)
            pixels = np.kron(glyph, np.ones((4, 4), dtype=bool))
            frame[y : y + 20, x : x + 12][pixels] = color
            x += 16

    def action_names(self, agent: str) -> list[str]:
        """ALE Pong's names: ``noop, fire, up, down, up_fire, down_fire``."""
        self.action_space(agent)
        return list(ACTION_NAMES)
