"""Interfaces that transform rewards: scale, clip, and shaping by a user function or a potential."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, InvalidValueError
from arena.interface import Interface

__all__ = ["ClipReward", "PotentialShaping", "ScaleReward", "ShapeReward"]


def _real(owner: object, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise InvalidTypeError(f"{owner}: {name} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise InvalidValueError(f"{owner}: {name} must not be NaN")
    return number


def _function(owner: str, name: str, value: Any, arguments: tuple[str, ...]) -> Any:
    """``value``, a function of ``arguments`` returning a float, or the TypeError that says so."""
    if value is None:
        shown = arguments[0] if len(arguments) == 1 else f"({', '.join(arguments)})"
        raise InvalidTypeError(f"{owner}: give {name}={shown}->float")
    if not callable(value):
        raise InvalidTypeError(
            f"{owner}: {name} must be callable as {name}({', '.join(arguments)}), got {type(value).__name__}"
        )
    return value


class ScaleReward(Interface):
    """Multiply every reward by ``factor``.

    Args:
        inner: the interface underneath.
        factor: the scale (any finite real number).

    Example:
        >>> itf = ScaleReward(factor=0.1)
        >>> from gymnasium import spaces
        >>> itf.setup(spaces.Discrete(2), spaces.Discrete(2))
        >>> itf.transform_reward(5.0)
        0.5
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(factor=0.5), spaces.Discrete(2), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, factor: float = 1.0) -> None:
        super().__init__(inner)
        self.factor = _real(type(self).__name__, "factor", factor)
        if not math.isfinite(self.factor):
            raise InvalidValueError(f"{type(self).__name__}: factor must be finite, got {factor!r}")

    def reward(self, reward: float) -> float:
        return float(reward) * self.factor

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"factor={self.factor:g}"]))


class ClipReward(Interface):
    """Clip every reward into ``[low, high]``.

    Args:
        inner: the interface underneath.
        low: the lower bound.
        high: the upper bound (at least ``low``).

    Raises:
        ValueError: ``low > high``.

    Example:
        >>> itf = ClipReward(low=-1.0, high=1.0)
        >>> from gymnasium import spaces
        >>> itf.setup(spaces.Discrete(2), spaces.Discrete(2))
        >>> itf.transform_reward(7.0), itf.transform_reward(-0.5)
        (1.0, -0.5)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Discrete(2), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, low: float = -1.0, high: float = 1.0) -> None:
        super().__init__(inner)
        self.low = _real(type(self).__name__, "low", low)
        self.high = _real(type(self).__name__, "high", high)
        if self.low > self.high:
            raise InvalidValueError(f"{type(self).__name__}: low must not exceed high, got low={low!r}, high={high!r}")

    def reward(self, reward: float) -> float:
        return min(max(float(reward), self.low), self.high)

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"low={self.low:g}", f"high={self.high:g}"]))


def _returned_real(owner: object, what: str, value: Any) -> float:
    """``value`` returned by the user's ``what`` function, as a float, or a TypeError naming it."""
    if isinstance(value, bool) or not hasattr(value, "__float__"):
        raise InvalidTypeError(f"{owner}: {what} must return a real number, got {value!r}")
    return float(value)


def _example_potential(observation: Any) -> float:
    """0.1 x the sum of the numbers in ``observation`` (dicts and tuples summed through, text 0):
    a potential over any space, for the contract examples."""
    if isinstance(observation, str):
        return 0.0
    if isinstance(observation, dict):
        return sum(_example_potential(value) for value in observation.values())
    if isinstance(observation, tuple):
        return sum(_example_potential(value) for value in observation)
    return 0.1 * float(np.sum(observation))


def _function_name(function: Any) -> str:
    return getattr(function, "__qualname__", type(function).__name__)


class ShapeReward(Interface):
    """Shape each decision's reward with a function of what the agent saw and did.

    ``shaping(observation, action, reward)``: ``observation`` is the one on which the agent
    chose ``action`` and ``reward`` the first reward it receives after it; that reward is
    replaced by the function's value, so each decision is shaped exactly once. On
    :class:`arena.EnvItfWrapper` over a turn-based game, rewards that reach the agent during
    other agents' turns pass unchanged. For potential-based shaping see :class:`PotentialShaping`.

    Args:
        inner: the interface underneath.
        shaping: ``(observation, action, reward) -> float``.

    Raises:
        TypeError: ``shaping`` is missing or not callable, it returns something that is not a
            real number, or ``potential`` is given (that is :class:`PotentialShaping`).

    Example:
        >>> from gymnasium import spaces
        >>> per_decision = ShapeReward(shaping=lambda obs, act, r: r - 0.01 * act)
        >>> per_decision.setup(spaces.Discrete(3), spaces.Discrete(4))
        >>> _ = per_decision.transform_reset(0)
        >>> _ = per_decision.transform_action(3)
        >>> per_decision.transform_reward(1.0), per_decision.transform_reward(1.0)  # shaped once
        (0.97, 1.0)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(shaping=lambda observation, action, reward: reward - 0.01), spaces.Discrete(2), spaces.Discrete(3))
        ]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        shaping: Callable[[Any, Any, float], float] | None = None,
        potential: Any = None,
    ) -> None:
        super().__init__(inner)
        name = type(self).__name__
        if potential is not None:
            raise InvalidTypeError(
                f"{name}: potential-based shaping is PotentialShaping(potential=observation->float, "
                "gamma=...); ShapeReward takes shaping=(observation, action, reward)->float"
            )
        self.shaping = _function(name, "shaping", shaping, ("observation", "action", "reward"))
        self._seen: Any = None
        self._decision: tuple[Any, Any] | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._seen, self._decision = None, None

    def reset(self, observation: Any) -> None:
        self._decision = None

    def observation(self, observation: Any) -> Any:
        self._seen = observation
        return observation

    def action(self, action: Any) -> Any:
        self._decision = (self._seen, action)
        return action

    def action_mask(self, mask: Any) -> Any:
        return mask  # actions pass unchanged, so masks do too

    def reward(self, reward: float) -> float:
        if self._decision is None:
            return reward
        (observation, action), self._decision = self._decision, None
        return _returned_real(self, "shaping", self.shaping(observation, action, reward))

    def done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        reward = self.reward(reward)
        self._decision = None
        return reward

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"shaping={_function_name(self.shaping)}"]))


class PotentialShaping(Interface):
    """Potential-based reward shaping (Ng et al., 1999) over this level's observations.

    Every new observation ``o'`` after ``o`` adds ``gamma * potential(o') - potential(o)`` to
    the next reward the agent receives, and the end of a terminated episode subtracts the last
    potential (the terminal state's potential is 0). With ``gamma=1`` a terminated episode's
    shaped return is its unshaped return minus the potential of its first observation,
    wherever the interface sits and whenever rewards arrive; a truncated episode keeps the last
    potential (it is not terminal).

    Args:
        inner: the interface underneath.
        potential: ``observation -> float``.
        gamma: the discount of the potential difference.

    Raises:
        TypeError: ``potential`` is missing or not callable, or it returns something that is
            not a real number.

    Example:
        >>> from gymnasium import spaces
        >>> itf = PotentialShaping(potential=lambda obs: float(obs))
        >>> itf.setup(spaces.Discrete(5), spaces.Discrete(2))
        >>> _ = itf.transform_reset(1)
        >>> _ = itf.transform_observation(3)   # potential 1 -> 3
        >>> itf.transform_reward(0.0)
        2.0
        >>> itf.transform_done(1.0, terminated=True, truncated=False)  # minus the last potential
        -2.0
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(potential=_example_potential), spaces.Discrete(4), spaces.Discrete(2))]

    def __init__(
        self, inner: Interface | None = None, *, potential: Callable[[Any], float] | None = None, gamma: float = 1.0
    ) -> None:
        super().__init__(inner)
        name = type(self).__name__
        self.potential = _function(name, "potential", potential, ("observation",))
        self.gamma = _real(name, "gamma", gamma)
        self._last: float | None = None  # potential of the last observation
        self._bonus = 0.0  # potential difference not yet paid out

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._last, self._bonus = None, 0.0

    def reset(self, observation: Any) -> None:
        self._last, self._bonus = None, 0.0

    def observation(self, observation: Any) -> Any:
        value = _returned_real(self, "potential", self.potential(observation))
        if self._last is not None:
            self._bonus += self.gamma * value - self._last
        self._last = value
        return observation

    def reward(self, reward: float) -> float:
        reward, self._bonus = reward + self._bonus, 0.0
        return reward

    def done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        reward = self.reward(reward)
        if terminated and self._last is not None:
            reward -= self._last
        self._last, self._bonus = None, 0.0
        return reward

    def _arguments(self) -> str:
        option = f"potential={_function_name(self.potential)}" + (
            f", gamma={self.gamma:g}" if self.gamma != 1.0 else ""
        )
        return ", ".join(filter(None, [super()._arguments(), option]))
