"""Multi-snake (marlenv's rules, fixed and fast): one game, one snake, or many games at once.

* :class:`Snake` — the arena multi-agent env (``envs.make("snake", ...)``);
* :class:`SingleSnake` — one snake as a ``gymnasium.Env``;
* :class:`SnakeBatch` (:mod:`envs.snake.batched`) — many games stepped together in numpy arrays;
* :class:`SnakeVectorEnv` — a batch as a ``gymnasium.vector.VectorEnv`` of snakes;
* :mod:`envs.snake.recipe` — what ``arena train`` runs (one snake on the batch). Snake has no interfaces
  and no scripted agents of its own.

Example:
    >>> import envs
    >>> env = envs.make("snake", height=12, width=12, num_snakes=3)
    >>> obs, infos = env.reset(seed=0)
    >>> len(obs)
    3
"""

from envs.snake.batched import SnakeBatch
from envs.snake.core import ACTION_NAMES, CHANNELS, DEFAULT_REWARDS
from envs.snake.env import Snake
from envs.snake.single import SingleSnake
from envs.snake.vector import SnakeVectorEnv

__all__ = ["Snake", "SingleSnake", "SnakeBatch", "SnakeVectorEnv", "CHANNELS", "ACTION_NAMES", "DEFAULT_REWARDS"]
