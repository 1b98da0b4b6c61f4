"""The rules of one snake game: its validated options and what follows from them.

Shared by the single game (:class:`~envs.snake.Snake`) and the batch
(:class:`~envs.snake.SnakeBatch`), so the batch plays the single game's rules without
importing the env module (the env builds batches: ``Snake.make_batch``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs.snake import core
from envs.snake.core import BODY, EMPTY, HEAD, TAIL, WALL

__all__ = ["SnakeRules", "MAX_CELLS"]

# The largest board (height x width) a Snake env accepts: 512 x 512.
MAX_CELLS = 512 * 512


def _positive_int(value: Any, name: str, where: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidValueError(f"{where}: {name} must be an integer of at least {minimum}, got {value!r}")
    return int(value)


class SnakeRules:
    """A snake game's options, checked, with its spaces, padded grid and lookup tables.

    The one place of the options' names, defaults and checks: :class:`~envs.snake.Snake` (which
    adds ``render_mode``) and :class:`~envs.snake.SnakeBatch` pass theirs on here. Arguments as
    ``Snake``'s docstring describes them.

    Raises:
        ValueError: an option out of its range (the message names it, as ``Snake`` does).

    Example:
        >>> rules = SnakeRules(height=6, width=8, num_snakes=2)
        >>> rules.observation_spaces["snake_0"].shape, str(rules)
        ((6, 8, 8), '<Snake 6x8, 2 snakes>')
    """

    def __init__(
        self,
        height: int = 20,
        width: int = 20,
        num_snakes: int = 4,
        snake_length: int = 3,
        vision_range: int | None = None,
        frame_stack: int = 1,
        walls: Any = None,
        reward_dict: Mapping[str, float] | None = None,
        num_fruits: int | None = None,
        max_steps: int = 10_000,
        on_value: int = 1,
        cell_pixels: int = 8,
    ) -> None:
        where = "Snake" if type(self) is SnakeRules else type(self).__name__
        self.walls = core.parse_walls(
            walls,
            None if walls is not None else height,
            None if walls is not None else width,
            where,
            max_cells=MAX_CELLS,
        )
        self.height, self.width = self.walls.shape
        self.num_snakes = _positive_int(num_snakes, "num_snakes", where)
        if self.num_snakes > core.MAX_SNAKES:
            raise InvalidValueError(f"{where}: num_snakes must be at most {core.MAX_SNAKES}, got {num_snakes!r}")
        self.snake_length = _positive_int(snake_length, "snake_length", where, minimum=2)
        if vision_range is not None:
            vision_range = _positive_int(vision_range, "vision_range", where)
        self.vision_range = vision_range
        self.frame_stack = _positive_int(frame_stack, "frame_stack", where)
        self.reward_dict = core.check_rewards(reward_dict, where)
        if num_fruits is None:
            num_fruits = max(1, int(round(0.8 * self.num_snakes)))
        self.num_fruits = _positive_int(num_fruits, "num_fruits", where, minimum=0)
        self.max_steps = _positive_int(max_steps, "max_steps", where)
        # Bounded work: a board of at most MAX_CELLS cells (checked above, before the board is
        # made), and room for every snake (its body and the free cell ahead of its head) plus
        # every fruit; otherwise reset would search in vain.
        free = int((~self.walls).sum())
        needed = self.num_snakes * (self.snake_length + 1) + self.num_fruits
        if needed > free:
            raise InvalidValueError(
                f"{where}: {self.num_snakes} snakes of length {self.snake_length} (each with a free "
                f"cell ahead) and {self.num_fruits} fruits need {needed} free cells; the "
                f"{self.height} x {self.width} map has {free}"
            )
        self.on_value = _positive_int(on_value, "on_value", where)
        if self.on_value > 255:
            raise InvalidValueError(f"{where}: on_value must be at most 255, got {on_value!r}")
        self.cell_pixels = _positive_int(cell_pixels, "cell_pixels", where)

        self.possible_agents = [f"snake_{i}" for i in range(self.num_snakes)]
        self.view_shape = view = (self.height, self.width) if vision_range is None else (2 * vision_range + 1,) * 2
        observation: spaces.Space = spaces.Box(0, self.on_value, (*view, 8 * self.frame_stack), np.uint8)
        action: spaces.Space = spaces.Discrete(3)
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)

        # The padded grid: a wall ring of `pad` cells, so that heads never leave the array.
        self._pad = pad = max(1, vision_range or 0)
        self._padded_walls = np.pad(self.walls, pad, constant_values=True)
        hp, wp = self._padded_walls.shape
        self._free_cells = np.flatnonzero(~self._padded_walls.reshape(-1))
        self._walls_flat = np.where(self._padded_walls.reshape(-1), WALL, EMPTY).astype(np.uint8)
        self._offsets = (-wp, 1, wp, -1)
        self._wp = wp
        self._lut = core.observation_luts(self.num_snakes, self.on_value)
        self._flat_lut = self._lut.reshape(-1)
        self._lut_rows = (np.arange(self.num_snakes) * self._lut.shape[1])[:, None, None]  # each observer's row
        self._codes = [
            (core.snake_code(i, HEAD), core.snake_code(i, BODY), core.snake_code(i, TAIL))
            for i in range(self.num_snakes)
        ]

    def __str__(self) -> str:
        return f"<Snake {self.height}x{self.width}, {self.num_snakes} snakes>"
