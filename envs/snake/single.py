"""One snake alone, as a ``gymnasium.Env``."""

from __future__ import annotations

from typing import Any

import gymnasium

from arena.errors import InvalidValueError
from envs.snake import core
from envs.snake.env import Snake

__all__ = ["SingleSnake"]


class SingleSnake(gymnasium.Env):
    """One snake alone, as a ``gymnasium.Env`` (like marlenv's ``SingleAgent`` wrapper).

    The spaces, rules and options are :class:`Snake`'s with ``num_snakes=1``. When the
    snake dies the episode terminates with its final view; at ``max_steps`` it is
    truncated.

    Example:
        >>> from gymnasium.utils.env_checker import check_env
        >>> env = SingleSnake(height=8, width=8)
        >>> check_env(env, skip_render_check=True)
        >>> obs, info = env.reset(seed=0)
        >>> obs.shape
        (8, 8, 8)
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 10}

    def __init__(self, render_mode: str | None = None, **options: Any) -> None:
        if options.get("num_snakes", 1) != 1:
            raise InvalidValueError(f"SingleSnake: num_snakes must be 1, got {options['num_snakes']!r}")
        options["num_snakes"] = 1
        self.game = Snake(render_mode=render_mode, **options)
        self.render_mode = render_mode
        self.observation_space = self.game.observation_space("snake_0")
        self.action_space = self.game.action_space("snake_0")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        observations, _ = self.game.reset(seed=seed)
        return observations["snake_0"], {}

    def step(self, action: Any):
        observations, rewards, terminations, truncations, _ = self.game.step({"snake_0": action})
        observation = observations.get("snake_0")
        if observation is None:
            observation = self.game.observe("snake_0")
        return observation, rewards["snake_0"], terminations["snake_0"], truncations["snake_0"], {}

    def render(self) -> Any:  # Gymnasium types it with a free type variable: here text (ansi) or an RGB array
        return self.game.render()

    def action_names(self) -> list[str]:
        """``["left", "straight", "right"]``."""
        return list(core.ACTION_NAMES)
