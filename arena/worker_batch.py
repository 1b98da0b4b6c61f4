"""A batch of single envs stepped in worker processes: the batch contract for envs without a compiled batch.

:func:`batch_of` builds one. It keeps :class:`arena.batch.GameBatch`'s contract as the compiled
batches do (seeds per game, same-step auto-reset with final observations, masks in ``infos``)
over ``num_games`` copies of a single env, spread over ``num_workers`` processes the way
Gymnasium's ``AsyncVectorEnv`` and Stable-Baselines3's ``SubprocVecEnv`` spread theirs: one pipe
per worker, the env built in the worker from a (cloud)pickled factory. A worker plays several
games, so two cores can hold eight games; ``num_workers=0`` plays them all in this process
(tests, debugging). The games play the same whatever ``num_workers`` is. The processes live in
:mod:`arena.worker_pool`; each worker's games in :class:`arena.worker_games.GameSlots`.
"""

from __future__ import annotations

import copy
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batch import TurnModel
from arena.batched_stack import stack_rows, take_rows
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError, ResetNeeded
from arena.registry import make_env
from arena.seeding import game_seeds
from arena.worker_games import GameRow
from arena.worker_pool import InProcess, WorkerPool

__all__ = ["AlternatingWorkerBatch", "WorkerBatch", "batch_of"]


class WorkerBatch:
    """``num_games`` single envs as one simultaneous batch (``turns == "simultaneous"``), in worker processes.

    Every agent in play moves at once: ``step`` takes ``(num_games, len(possible_agents),
    *action_shape)`` and the entries of agents out of play are ignored. ``infos`` holds
    ``"live"`` (who acts next: the agents the single env's observations name), ``"acted"``,
    ``"episode_over"``, ``"final_observation"`` (when a game ended: the last observation each agent
    was shown in that episode, zero for an agent never shown one) and, for a discrete action space,
    ``"action_mask"`` ``(num_games, agents, n)`` (the env's masks, all True where it gives none).
    Observations are ``(num_games, agents, *shape)`` arrays, or a dict (tuple) of them for a
    ``Dict`` (``Tuple``) space, zero for an agent out of play. Every agent must share one
    observation space and one action space.

    An error inside a game is raised here as :class:`arena.errors.WorkerError` naming the game,
    with the worker's traceback; the games are then in an unknown state, so the next call must
    be ``reset``. A worker that dies also raises it, and closes the batch. :meth:`close` ends
    the workers (by PID where they do not answer); so does garbage collection and the
    interpreter's exit.

    Args:
        env: a registered env name, a factory (``env_options`` are its keyword arguments) or an
            env, copied for each game. It travels to the workers pickled (by ``cloudpickle``).
        num_games: games in the batch.
        env_options: keyword options for the env.
        num_workers: worker processes (at most ``num_games``; games are dealt to them in
            contiguous blocks); 0 plays every game in this process. Default: one per CPU this
            process may use, at most one per game.
        context: the multiprocessing start method, ``"forkserver"`` (the default where the
            platform has it, as in Stable-Baselines3) or ``"spawn"``; ``"fork"`` is refused
            because engines such as MuJoCo's and ViZDoom's do not survive a fork of a process
            that has started threads.

    Example:
        >>> batch = WorkerBatch("rock_paper_scissors", 4, num_workers=0)
        >>> observations, infos = batch.reset(seed=1)
        >>> observations.shape, infos["live"].shape
        ((4, 2), (4, 2))
        >>> batch.close()
    """

    turns: TurnModel = "simultaneous"

    def __init__(
        self,
        env: str | Callable[..., Any] | Any,
        num_games: int,
        *,
        env_options: Mapping[str, Any] | None = None,
        num_workers: int | None = None,
        context: str | None = None,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise InvalidValueError(f"{type(self).__name__}: num_games must be a positive integer, got {num_games!r}")
        if num_workers is None:
            num_workers = min(num_games, _usable_cpus())
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or not 0 <= num_workers <= num_games:
            raise InvalidValueError(
                f"{type(self).__name__}: num_workers must be 0 (in this process) to num_games ({num_games}), "
                f"got {num_workers!r}"
            )
        factory = _factory(env, env_options)
        self._num_games, self.num_workers = num_games, num_workers
        self._runner = (
            InProcess(factory, num_games) if num_workers == 0 else WorkerPool(factory, num_games, num_workers, context)
        )
        self._name = f"{type(self).__name__}({env if isinstance(env, str) else 'env'}, {num_games} games)"
        self._runner.where = self._name
        description = self._runner.start()
        self._name = f"{type(self).__name__}({description.name}, {num_games} games, {num_workers} workers)"
        self._runner.where = self._name
        self._agents = description.possible_agents
        self._observation_space, self._action_space = description.observation_space, description.action_space
        self._discrete = isinstance(self._action_space, spaces.Discrete)
        self._started = False
        self._live = np.zeros((num_games, len(self._agents)), bool)
        n = self._action_space.n if isinstance(self._action_space, spaces.Discrete) else None
        self._masks = None if n is None else np.ones((num_games, len(self._agents), int(n)), bool)  # set by reset

    def __repr__(self) -> str:
        return self._name

    # ----------------------------------------------------------- declarations
    @property
    def num_games(self) -> int:
        """The number of games, axis 0 of every array."""
        return self._num_games

    @property
    def possible_agents(self) -> tuple[str, ...]:
        """The single env's ``possible_agents``."""
        return self._agents

    @property
    def single_observation_space(self) -> spaces.Space[Any]:
        """One agent's observation space (every agent's)."""
        return self._observation_space

    @property
    def single_action_space(self) -> spaces.Space[Any]:
        """One agent's action space (every agent's)."""
        return self._action_space

    @property
    def live(self) -> np.ndarray:
        """``(num_games, agents)`` bool: the agents that act next (a copy)."""
        return self._live.copy()

    # ------------------------------------------------------------------ games
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Start every game: game ``g`` is reset with ``derive_seed(seed, g)`` (or ``seed[g]``).

        Returns:
            ``(observations, infos)`` as :meth:`step` gives them, without the step's outcome.
        """
        self._check_open()
        seeds = [None] * self._num_games if seed is None else game_seeds(seed, self._num_games, self)
        self._started = False  # until every game has started
        rows = self._runner.call("reset", list(enumerate(seeds)), options)
        self._started = True
        observations, infos = self._gather(range(self._num_games), rows)
        return observations, infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game with ``actions`` ``(num_games, agents, *action_shape)``; ended games restart.

        Raises:
            ResetNeeded: before :meth:`reset`, or after a game raised.
            ValueError: ``actions`` of another shape.
            WorkerError: a game raised (its error and traceback in the message), or a worker died.
        """
        self._check_open()
        actions = self._check_actions(actions, (self._num_games, len(self._agents)))
        agents = self._agents
        if self._discrete:  # Python ints in one conversion per game (envs check action types)
            chosen = actions.tolist()
            joint = [
                (g, {agents[i]: int(chosen[g][i]) for i in np.flatnonzero(self._live[g]).tolist()})
                for g in range(self._num_games)
            ]
        else:
            joint = [
                (g, {agents[i]: self._one(actions[g, i]) for i in np.flatnonzero(self._live[g]).tolist()})
                for g in range(self._num_games)
            ]
        acted = self._live.copy()
        rows = self._call("step", joint)
        observations, infos = self._gather(range(self._num_games), rows)
        infos["acted"] = acted
        return observations, *self._outcome(rows), infos

    def restart(self, games: Any) -> Any:
        """Abandon ``games`` and start each one's next episode now (a plain ``reset()``); their observations.

        Raises:
            ResetNeeded: before :meth:`reset`.
        """
        self._check_open()
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        rows = self._call("restart", games.tolist())
        observations, _ = self._gather(games.tolist(), rows)
        return observations

    def close(self) -> None:
        """End the workers and close every env (safe to call more than once)."""
        self._runner.close()

    def __enter__(self) -> WorkerBatch:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ---------------------------------------------------------------- helpers
    def _check_open(self) -> None:
        if self._runner.closed:
            raise ArenaError(f"{self}: the batch is closed (close() was called, or a worker died); build a new one")

    def _call(self, name: str, items: list[Any]) -> list[GameRow]:
        if not self._started:
            raise ResetNeeded(f"{self}: {name}() called before reset() (or after a game raised)")
        try:
            return self._runner.call(name, items)
        except Exception:
            self._started = False  # some games moved and some did not: only a reset is safe
            raise

    def _check_actions(self, actions: Any, lead: tuple[int, ...]) -> np.ndarray:
        if not self._started:
            raise ResetNeeded(f"{self}: step() called before reset() (or after a game raised)")
        expected = lead + tuple(self._action_space.shape or ())
        array = np.asarray(actions)
        if array.shape != expected:
            raise InvalidValueError(f"{self}: actions must be an array of shape {expected}, got shape {array.shape}")
        return array

    def _one(self, action: np.ndarray) -> Any:
        """One agent's action as the single env takes it (an int for a discrete space, else a copy)."""
        return int(action) if self._discrete else np.array(action)

    def _gather(self, games: Any, rows: list[GameRow]) -> tuple[Any, dict[str, Any]]:
        """The stacked observations and infos of ``rows`` (the games ``games``), keeping the live masks."""
        games = list(games)
        live = np.stack([row.live for row in rows])
        self._live[games] = live
        infos: dict[str, Any] = {"live": live, "episode_over": np.array([row.over for row in rows], bool)}
        if self._masks is not None:
            masks = np.stack([row.mask for row in rows if row.mask is not None])
            self._masks[games] = masks
            infos["action_mask"] = masks
        if infos["episode_over"].any():
            infos["final_observation"] = stack_rows([row.final for row in rows if row.over])
        return stack_rows([row.observation for row in rows]), infos

    @staticmethod
    def _outcome(rows: list[GameRow]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (
            np.stack([row.rewards for row in rows]),
            np.stack([row.terminations for row in rows]),
            np.stack([row.truncations for row in rows]),
        )


class AlternatingWorkerBatch(WorkerBatch):
    """``num_games`` single turn-based envs as one alternating batch (``turns == "alternating"``).

    One agent moves per step in every game (the single env's observations name exactly one);
    ``step(actions, games=idx)`` takes one action per game of ``idx`` (default: every game) for
    the agent ``infos["to_play"]`` names and returns arrays for those games only. Observations
    are the mover's, ``(games, *shape)``; ``infos["action_mask"]`` is its ``(games, n)`` bool mask
    (all True where the env gives none); a final observation is the last one the agent that ended
    the game was shown (the board before its move, where the env shows none at the end). Needs a discrete action space. Otherwise as
    :class:`WorkerBatch`.

    Example:
        >>> batch = AlternatingWorkerBatch("tic_tac_toe", 2, num_workers=0)
        >>> observations, infos = batch.reset(seed=0)
        >>> infos["to_play"].tolist(), infos["action_mask"].shape
        ([0, 0], (2, 9))
        >>> batch.close()
    """

    turns: TurnModel = "alternating"

    def __init__(self, env: str | Callable[..., Any] | Any, num_games: int, **kwargs: Any) -> None:
        super().__init__(env, num_games, **kwargs)
        if not self._discrete:
            self.close()
            raise InvalidTypeError(
                f"{self}: an alternating batch needs a Discrete action space, got {self._action_space}"
            )
        self._to_play = np.zeros(num_games, np.int64)

    @property
    def to_play(self) -> np.ndarray:
        """``(num_games,)``: the index in ``possible_agents`` of the agent to move next (a copy)."""
        return self._to_play.copy()

    @property
    def action_mask(self) -> np.ndarray:
        """``(num_games, n)`` bool: the legal actions of the agent to move next (all True before a reset)."""
        assert self._masks is not None  # an alternating batch's actions are discrete (checked in __init__)
        return self._masks[np.arange(self._num_games), self._to_play]

    def step(self, actions: Any, games: Any = None) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Move the games ``games`` (default: all) with one action each for the agent to play.

        Raises:
            ResetNeeded: before :meth:`reset`, or after a game raised.
            ValueError: ``actions`` of another shape, or ``games`` with repeats or out of range.
            WorkerError: a game raised, or a worker died.
        """
        self._check_open()
        index = np.arange(self._num_games) if games is None else np.asarray(games, dtype=np.int64).reshape(-1)
        if len(set(index.tolist())) != len(index) or ((index < 0) | (index >= self._num_games)).any():
            raise InvalidValueError(f"{self}: games must be distinct indices below {self._num_games}, got {games!r}")
        actions = self._check_actions(actions, (len(index),))
        joint = [(g, {self._agents[self._to_play[g]]: self._one(actions[k])}) for k, g in enumerate(index.tolist())]
        movers = self._to_play[index]
        rows = self._call("step", joint)
        ended = np.array([row.over for row in rows], bool)
        observations, infos = self._gather(index.tolist(), rows)
        if ended.any():  # the last view of the agent that ended each game (the board before its move)
            final = infos["final_observation"]
            infos["final_observation"] = take_rows(final, (np.arange(int(ended.sum())), movers[ended]))
        return observations, *self._outcome(rows), infos

    def _gather(self, games: Any, rows: list[GameRow]) -> tuple[Any, dict[str, Any]]:
        games = list(games)
        for g, row in zip(games, rows):
            if int(row.live.sum()) != 1:
                acting = [agent for agent, on in zip(self._agents, row.live) if on]
                raise InvalidValueError(
                    f"{self}: game {g} has {acting} acting at once; an alternating batch needs exactly one agent "
                    "to move per step (batch_of(..., turns='simultaneous') takes any number)"
                )
        stacked, infos = super()._gather(games, rows)
        to_play = np.array([int(np.argmax(row.live)) for row in rows], np.int64)
        self._to_play[games] = to_play
        rows_index = np.arange(len(rows))
        infos["to_play"], infos["action_mask"] = to_play, infos["action_mask"][rows_index, to_play]
        return take_rows(stacked, (rows_index, to_play)), infos


def _usable_cpus() -> int:
    """The CPUs this process may run on (its affinity where the platform says, which a container may cut)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _factory(env: Any, env_options: Mapping[str, Any] | None) -> Callable[[], Any]:
    """A picklable function that builds one game's env."""
    options = dict(env_options or {})
    if isinstance(env, str) or (callable(env) and not hasattr(env, "possible_agents")):
        return functools.partial(make_env, env, **options)
    if options:
        raise InvalidValueError(f"env_options {options} given with an env that is built already ({env})")
    return functools.partial(copy.deepcopy, env)


def batch_of(
    env: str | Callable[..., Any] | Any,
    num_games: int,
    *,
    turns: TurnModel = "simultaneous",
    env_options: Mapping[str, Any] | None = None,
    num_workers: int | None = None,
    context: str | None = None,
) -> WorkerBatch:
    """A batch of ``num_games`` single envs in worker processes, for an env without a compiled batch.

    ``turns="simultaneous"`` (default) takes any env whose agents share their spaces;
    ``"alternating"`` suits turn-based envs (one agent acts at a time). Other arguments as
    :class:`WorkerBatch` takes them.

    Example:
        >>> with batch_of("snake", 2, num_workers=0, env_options={"num_snakes": 2}) as batch:
        ...     observations, infos = batch.reset(seed=0)
        >>> batch.turns, observations.shape[:2]
        ('simultaneous', (2, 2))
    """
    kinds = {"simultaneous": WorkerBatch, "alternating": AlternatingWorkerBatch}
    if turns not in kinds:
        raise InvalidValueError(f"batch_of: turns must be 'simultaneous' or 'alternating', got {turns!r}")
    return kinds[turns](env, num_games, env_options=env_options, num_workers=num_workers, context=context)
