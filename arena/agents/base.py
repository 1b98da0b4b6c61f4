"""The agent contract and the random reference agent."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.seeding import SplitMix64

__all__ = ["Agent", "RandomAgent"]


class Agent:
    """Something that acts in an environment: a policy, a script, a person.

    The play loop calls :meth:`setup` once with the spaces the agent will see (raw env
    spaces, or ``Tuple`` spaces for a team agent), :meth:`reset` at the start of each
    episode, :meth:`act` whenever the env asks the agent to act, and :meth:`done`
    exactly once when the episode ends for it.

    Example:
        >>> class AlwaysFirstLegal(Agent):
        ...     def act(self, observation, action_mask=None, reward=0.0):
        ...         return 0 if action_mask is None else int(action_mask.argmax())
    """

    observation_space: spaces.Space | None = None
    action_space: spaces.Space | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        """Receive the spaces this agent will observe and act in."""
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self, *, seed: int | None = None) -> None:
        """Start an episode; a given ``seed`` re-seeds any randomness the agent has."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        """Choose an action.

        Args:
            observation: this agent's observation (never another agent's private one).
            action_mask: int8 array, 1 for legal actions, or ``None`` when the env has no mask.
            reward: the reward earned since this agent last acted (0.0 on its first turn).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement act()")

    def done(self, reward: float, info: dict[str, Any]) -> None:
        """The episode ended for this agent; ``reward`` is what it earned since it last acted."""

    def __str__(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return str(self)


class RandomAgent(Agent):
    """Uniformly random legal actions; seeded, and fast on Discrete spaces.

    It draws from a :class:`~arena.seeding.SplitMix64` generator, which re-seeds in a
    fraction of a microsecond: the play loop re-seeds every agent every game.

    Args:
        seed: seeds the agent's own generator (``reset(seed=...)`` re-seeds it).

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = RandomAgent(seed=0)
        >>> agent.setup(spaces.Discrete(3), spaces.Discrete(3))
        >>> agent.act(0, np.array([0, 0, 1], dtype=np.int8))
        2
    """

    def __init__(self, seed: int | None = None) -> None:
        self._rng = SplitMix64(seed)
        self._space: spaces.Space | None = None
        self._n: int | None = None
        self._start = 0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._n = action_space.n if type(action_space) is spaces.Discrete else None
        self._start = int(action_space.start) if self._n is not None else 0
        if self._n is None:
            # A private copy, so that sampling does not disturb anyone else's space RNG.
            self._space = copy.deepcopy(action_space)
            self._space.seed(self._rng.getrandbits32())

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            if self._space is not None:
                self._space.seed(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self._n is None:
            if self._space is None:
                raise RuntimeError("RandomAgent.act() called before setup()")
            return self._space.sample(mask=action_mask)
        if action_mask is None:
            return self._start + int(self._rng.random() * self._n)
        if type(action_mask) is np.ndarray and action_mask.ndim == 1:
            legal = action_mask.nonzero()[0]  # several times faster than np.flatnonzero
        else:
            legal = np.flatnonzero(action_mask)
        count = len(legal)
        if not count:
            raise ValueError("RandomAgent: the action mask allows no action")
        return self._start + int(legal[int(self._rng.random() * count)])
