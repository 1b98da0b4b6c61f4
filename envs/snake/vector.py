"""A batch of snake games as a ``gymnasium.vector.VectorEnv`` of snake seats."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from arena.errors import InvalidActionError
from envs.snake.batched import SnakeBatch

__all__ = ["SnakeVectorEnv"]


class SnakeVectorEnv(gymnasium.vector.VectorEnv):
    """A :class:`SnakeBatch` as a ``gymnasium.vector.VectorEnv`` of single snakes.

    Each of the ``num_games * num_snakes`` sub-environments is one snake seat (index
    ``game * num_snakes + snake``), so one shared policy controls every snake of every
    game (parameter sharing), as in CleanRL-style PPO loops and SuperSuit's
    PettingZoo-to-vector conversion. Autoreset is ``SAME_STEP``: when a seat's episode
    ends, ``infos["final_obs"]``/``infos["_final_obs"]`` carry its last observation and
    the returned observation already starts the next one.

    A snake that dies is terminated; until its game ends the seat plays a zero-reward
    pause with an all-zero observation ("black death"), which ends (terminated) when the
    game resets. ``infos["live"]`` marks the seats whose snake is in play, so a trainer
    can drop the pause from its loss.

    **In a trainer.** Any loop written for Gymnasium's vector API with same-step
    autoreset takes it as it is: a CleanRL-style PPO collects ``obs, rewards, terms,
    truncs`` of shape ``(num_envs, ...)`` each step, bootstraps truncated seats from
    ``infos["final_obs"]``, and (optionally) weights each sample by ``infos["live"]``
    from the step before. The observations are images (NHWC); pass ``on_value=255`` for
    libraries that only treat ``uint8`` 0-255 boxes as images. To train against fixed
    opponents instead of self-play, step :class:`SnakeBatch` directly and fill the
    opponents' columns of the ``(num_games, num_snakes)`` action array yourself.

    Args:
        num_games: the number of games (``num_envs = num_games * num_snakes``).
        copy: return fresh observation arrays (default), or the batch's buffer.
        **options: :class:`~envs.snake.env.Snake`'s options.

    Example:
        >>> import numpy as np
        >>> venv = SnakeVectorEnv(4, height=10, width=10, num_snakes=2)
        >>> obs, infos = venv.reset(seed=0)
        >>> obs.shape
        (8, 10, 10, 8)
        >>> obs, rewards, terms, truncs, infos = venv.step(venv.action_space.sample())
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_games: int, *, copy: bool = True, **options: Any) -> None:
        self.batch = SnakeBatch(num_games, copy=copy, **options)
        self.num_envs = self.batch.num_games * self.batch.num_snakes
        self.single_observation_space = self.batch.single_observation_space
        self.single_action_space = self.batch.single_action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._paused = np.zeros(self.num_envs, dtype=bool)

    def reset(self, *, seed: int | Any | None = None, options: dict[str, Any] | None = None):
        """Reset every game (``seed`` as :meth:`SnakeBatch.reset` takes it)."""
        if seed is not None:
            self.action_space.seed(int(seed) if isinstance(seed, (int, np.integer)) else None)
        obs, infos = self.batch.reset(seed=seed, options=options)
        self._paused[:] = False
        return obs.reshape(self.num_envs, *obs.shape[2:]), {"live": infos["live"].reshape(-1)}

    def step(self, actions: Any):
        batch = self.batch
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise InvalidActionError(f"{self}: expected {self.num_envs} actions, got shape {actions.shape}")
        obs, rewards, died, truncated, infos = batch.step(actions.reshape(batch.num_games, batch.num_snakes))
        over = np.repeat(infos["episode_over"], batch.num_snakes)
        died, truncated = died.reshape(-1), truncated.reshape(-1)
        terminations = died | (over & self._paused)  # a pause ends when its game does
        ends = terminations | truncated
        self._paused = (self._paused | died) & ~over
        result = {"live": infos["live"].reshape(-1)}
        if ends.any():
            view = obs.shape[2:]  # one snake's observation
            final = np.zeros((self.num_envs, *view), dtype=np.uint8)
            final_games = np.flatnonzero(infos["episode_over"])
            if len(final_games):
                seats = (final_games[:, None] * batch.num_snakes + np.arange(batch.num_snakes)).reshape(-1)
                final[seats] = infos["final_observation"].reshape(-1, *view)
            final_obs = np.empty(self.num_envs, dtype=object)
            for seat in np.flatnonzero(ends):  # only the seats that ended this step
                final_obs[seat] = final[seat]
            result["final_obs"], result["_final_obs"] = final_obs, ends
            result["final_info"], result["_final_info"] = np.full(self.num_envs, None, dtype=object), ends
            for seat in np.flatnonzero(ends):
                result["final_info"][seat] = {}
        return obs.reshape(self.num_envs, *obs.shape[2:]), rewards.reshape(-1), terminations, truncated, result

    def __str__(self) -> str:
        return f"<SnakeVectorEnv {self.num_envs} seats of {self.batch}>"

    def __repr__(self) -> str:
        return str(self)
