"""Entrants that try to get past the referee: writing on the mask they were handed, or playing
through an interface that leaves its declared space. Used by ``tests/faults/test_referee.py``."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena import AgtItfWrapper, Interface, RandomAgent
from arena.agents.base import Agent


class MaskWriter(Agent):
    """Plays a legal cell while there is no occupied one; then marks every cell legal in the mask
    it was handed and plays the first occupied cell (an illegal move)."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        occupied = np.flatnonzero(np.asarray(action_mask) == 0)
        if occupied.size == 0:
            return int(np.flatnonzero(action_mask)[0])
        action_mask[:] = 1  # the cheat: the referee must not believe this
        return int(occupied[0])


class ObservationWriter(RandomAgent):
    """A random player that scribbles on every observation it is handed."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        observation[...] = 7
        return super().act(observation, action_mask, reward)


class Escaping(Interface):
    """Declares observations in [0, 1] but hands on the raw board plus 5 (values 5 to 7)."""

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self.observation_space = spaces.Box(0.0, 1.0, self.inner_observation_space.shape, np.float32)

    def observation(self, observation: Any) -> Any:
        return observation.astype(np.float32) + 5.0


def escaping_player(**kwargs: Any) -> AgtItfWrapper:
    """A random player behind :class:`Escaping`."""
    return AgtItfWrapper(RandomAgent(**kwargs), Escaping())
