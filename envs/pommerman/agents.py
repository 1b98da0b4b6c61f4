"""Scripted Pommerman agents (registered as ``pommerman_simple`` through ``arena.agents``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import InvalidValueError, SpaceMismatchError
from arena.seeding import SplitMix64, derive_seed
from envs.pommerman._jit import compile_once
from envs.pommerman._simple import RECENT, decide, decide_batch
from envs.pommerman.core import SIZE
from envs.pommerman.planes import EGO_ACTIONS

__all__ = ["PommermanSimpleAgent", "PommermanSimpleBatch"]

_NEEDED = ("board", "bomb_blast_strength", "position", "enemies", "ammo", "blast_strength")


class PommermanSimpleAgent(Agent):
    """The reference's scripted ``SimpleAgent``, reimplemented on arena's Pommerman rules.

    It dodges bombs on its lines, bombs adjacent enemies and wood when it can still
    escape, walks to nearby enemies and power-ups, and otherwise wanders without going
    back to its last 6 places (the full order of priorities is in
    :mod:`envs.pommerman._simple`). It reads only its own observation, so it plays in
    every mode; in radio mode it sends the words 0, 0. Its coin flips come from its own
    seeded stream: ``reset(seed=...)`` makes its games reproducible.

    Args:
        seed: seeds its coin flips (``reset(seed=...)`` re-seeds).

    Raises:
        SpaceMismatchError: in :meth:`setup`, for anything but the pommerman observation
            ``Dict`` and ``Discrete(6)`` or radio ``MultiDiscrete([6, 8, 8])`` actions.

    Example:
        >>> import envs
        >>> from arena import play
        >>> env = envs.make("pommerman", max_steps=50)
        >>> episode = play(env, {a: PommermanSimpleAgent(i) for i, a in enumerate(env.possible_agents)}, seed=1)
        >>> episode.length <= 50
        True
    """

    def __init__(self, seed: int | None = None) -> None:
        self._seed_source = SplitMix64(seed)
        self._rng = np.zeros(1, dtype=np.uint64)
        self._rng[0] = int(self._seed_source.random() * 2**53)
        self._memory = np.zeros(2 + 2 * RECENT, dtype=np.int64)
        # writable copies of what it reads, in the batch's types: the single agent and PommermanSimpleBatch
        # then share one compiled decide (an observation's read-only arrays would compile a second)
        self._board = np.zeros((SIZE, SIZE), np.uint8)
        self._blasts = np.zeros((SIZE, SIZE), np.uint8)
        self._enemies = np.zeros(3, np.int64)
        self._radio = False
        self._on_batch: PommermanSimpleBatch | None = None  # its seats on the batch it plays

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        is_dict = isinstance(observation_space, spaces.Dict) and all(k in observation_space.spaces for k in _NEEDED)
        radio = isinstance(action_space, spaces.MultiDiscrete) and action_space.nvec.tolist() == [6, 8, 8]
        if not is_dict or not (radio or (type(action_space) is spaces.Discrete and action_space.n == 6)):
            raise SpaceMismatchError(
                "PommermanSimpleAgent: needs the pommerman observation Dict (board, bomb_blast_strength, position, "
                f"enemies, ammo, blast_strength) and Discrete(6) or MultiDiscrete([6, 8, 8]) actions, "
                f"got {observation_space} and {action_space}"
            )
        super().setup(observation_space, action_space)
        self._radio = radio
        compile_once(decide, "the scripted Pommerman agent", _warm_up, expect="about half a minute on two cores")

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:  # a seed restarts both streams: one game's and a batch's (act_on_batch)
            self._rng[0] = SplitMix64(seed).random() * 2**53
            self._seed_source = SplitMix64(derive_seed(seed, 1))
            self._on_batch = None
        self._memory[:] = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        position = observation["position"]
        self._board[:] = observation["board"]
        self._blasts[:] = observation["bomb_blast_strength"]
        self._enemies[:] = observation["enemies"]
        move = decide(
            self._board,
            self._blasts,
            int(position[0]),
            int(position[1]),
            self._enemies,
            int(observation["ammo"]),
            int(observation["blast_strength"]),
            self._memory,
            self._rng,
        )
        if self._radio:
            return np.array([move, 0, 0], dtype=np.int64)
        if action_mask is not None and not action_mask[move]:
            # the env keeps every action legal; under a masking interface, stop or the first legal move
            move = 0 if action_mask[0] else int(np.flatnonzero(action_mask)[0])
        return int(move)

    def act_on_batch(self, batch: Any, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """Its moves in seats ``(games, players)`` of a :class:`~envs.pommerman.batch.PommermanBatch`,
        decided by :class:`PommermanSimpleBatch` (one compiled call, each seat with its own memory).

        Example:
            >>> from envs.pommerman.batch import PommermanBatch
            >>> batch = PommermanBatch(2, "team")
            >>> _ = batch.reset(seed=0)
            >>> PommermanSimpleAgent(seed=1).act_on_batch(batch, np.array([0, 1]), np.array([1, 3])).shape
            (2,)
        """
        player = self._on_batch
        if player is None or player.batch is not batch:  # a new batch: fresh memories, seeded from this agent
            player = self._on_batch = PommermanSimpleBatch(batch, seed=int(self._seed_source.random() * 2**31))
        seats = np.zeros((batch.num_games, 4), dtype=np.bool_)
        seats[games, players] = True
        return player.act(seats)[games, players]


class PommermanSimpleBatch:
    """``pommerman_simple`` in chosen seats of every game of a :class:`~envs.pommerman.batch.PommermanBatch`.

    One compiled call decides for every chosen living agent of every game, each on its own
    view of its game (fogged in the team modes) with its own memory and coin flips: agent
    ``a`` of game ``g`` decides exactly as a :class:`PommermanSimpleAgent` reset with seed
    ``derive_seed(seed, 4 * g + a)`` would on the same observations (memories restart
    when a game is at step 0). The moves come in the batch's frame (ego moves when the batch
    has ``ego``), ready for :meth:`PommermanBatch.step`.

    Args:
        batch: the batch whose games it plays.
        seed: seeds every agent's coin flips (``None``: fresh entropy).

    Example:
        >>> from envs.pommerman.batch import PommermanBatch
        >>> batch = PommermanBatch(4, "team")
        >>> _ = batch.reset(seed=0)
        >>> simple = PommermanSimpleBatch(batch, seed=1)
        >>> moves = simple.act()
        >>> moves.shape, bool(((0 <= moves) & (moves <= 5)).all())
        ((4, 4), True)
    """

    def __init__(self, batch: Any, seed: int | None = None) -> None:
        compile_once(
            decide_batch, "the batched scripted Pommerman agent", _warm_up_batch, expect="under a minute on two cores"
        )
        self.batch = batch
        games = batch.num_games
        base = SplitMix64(seed).getrandbits32() if seed is None else int(seed)
        self._rngs = np.zeros((games, 4, 1), np.uint64)
        for index in range(games * 4):
            self._rngs.reshape(-1)[index] = int(SplitMix64(derive_seed(base, index)).random() * 2**53)
        self._memory = np.zeros((games, 4, 2 + 2 * RECENT), np.int64)
        self._view = np.zeros((SIZE, SIZE), np.uint8)
        self._blasts = np.zeros((SIZE, SIZE), np.uint8)
        self._moves = np.zeros((games, 4), np.int64)
        self._all = np.ones((games, 4), np.bool_)

    def __str__(self) -> str:
        return f"<PommermanSimpleBatch of {self.batch}>"

    def act(self, seats: np.ndarray | None = None) -> np.ndarray:
        """The moves of the agents in ``seats`` (a ``(games, 4)`` bool mask; default all), 0 elsewhere.

        Radio batches get ``(games, 4, 3)`` actions with the words 0, 0.

        Raises:
            ValueError: ``seats`` of the wrong shape.
        """
        batch = self.batch
        if seats is None:
            seats = self._all
        seats = np.asarray(seats, dtype=np.bool_)
        if seats.shape != self._all.shape:
            raise InvalidValueError(
                f"{self}: seats must be a bool mask of shape {self._all.shape}, got shape {seats.shape}"
            )
        decide_batch(
            batch._boards,
            batch._bombs,
            batch._counts,
            batch._agents,
            batch._steps,
            batch.mode != "ffa",
            batch.template.partial,
            seats,
            self._memory,
            self._rngs,
            self._view,
            self._blasts,
            self._moves,
        )
        moves = EGO_ACTIONS[np.arange(4), self._moves] if batch.ego else self._moves.copy()
        if batch.mode != "radio":
            return moves
        actions = np.zeros(moves.shape + (3,), np.int64)
        actions[..., 0] = moves
        return actions

    def reset(self, games: Any) -> None:
        """Forget what the agents of ``games`` remember (a game loaded mid-way, say)."""
        self._memory[np.asarray(games, dtype=np.int64).reshape(-1)] = 0


def _warm_up() -> None:
    """A scratch agent's first moves in a short game: numba compiles its decision here, once."""
    from envs.pommerman.env import Pommerman

    env = Pommerman(max_steps=10)
    agent = PommermanSimpleAgent(seed=0)
    agent.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    observations, _ = env.reset(seed=0)
    for _ in range(3):
        if "agent_0" not in observations:
            break
        observations, *_ = env.step(
            {seat: agent.act(observations["agent_0"]) if seat == "agent_0" else 0 for seat in observations}
        )
    env.close()


def _warm_up_batch() -> None:
    """A scratch batched agent's first moves in two short games: numba compiles its decisions here, once."""
    from envs.pommerman.batch import PommermanBatch

    batch = PommermanBatch(2, max_steps=10)
    batch.reset(seed=0)
    agents = PommermanSimpleBatch(batch, seed=0)
    for _ in range(3):
        batch.step(agents.act())
