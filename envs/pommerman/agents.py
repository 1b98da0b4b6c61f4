"""Scripted Pommerman agents (registered as ``pommerman_simple`` through ``arena.agents``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import SpaceMismatchError
from arena.seeding import SplitMix64
from envs.pommerman._simple import RECENT, decide

__all__ = ["PommermanSimpleAgent"]

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
        self._radio = False

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        is_dict = isinstance(observation_space, spaces.Dict) and all(k in observation_space.spaces for k in _NEEDED)
        radio = isinstance(action_space, spaces.MultiDiscrete) and action_space.nvec.tolist() == [6, 8, 8]
        if not is_dict or not (radio or (type(action_space) is spaces.Discrete and action_space.n == 6)):
            raise SpaceMismatchError(
                "PommermanSimpleAgent: needs the pommerman observation Dict (board, bomb_blast_strength, position, "
                f"enemies, ammo, blast_strength) and Discrete(6) or MultiDiscrete([6, 8, 8]) actions, "
                f"got {observation_space} and {action_space}")
        super().setup(observation_space, action_space)
        self._radio = radio

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng[0] = SplitMix64(seed).random() * 2**53
        self._memory[:] = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        position = observation["position"]
        move = decide(observation["board"], observation["bomb_blast_strength"], int(position[0]), int(position[1]),
                      np.asarray(observation["enemies"], dtype=np.int64), int(observation["ammo"]),
                      int(observation["blast_strength"]), self._memory, self._rng)
        if self._radio:
            return np.array([move, 0, 0], dtype=np.int64)
        if action_mask is not None and not action_mask[move]:
            # the env keeps every action legal; under a masking interface, stop or the first legal move
            move = 0 if action_mask[0] else int(np.flatnonzero(action_mask)[0])
        return int(move)
