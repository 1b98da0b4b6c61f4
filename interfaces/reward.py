"""Interfaces that transform rewards: scale, clip, and shaping by a user function."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from gymnasium import spaces

from arena.interface import Interface

__all__ = ["ScaleReward", "ClipReward", "ShapeReward"]


def _real(owner: object, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    number = float(value)
    if math.isnan(number):
        raise ValueError(f"{owner}: {name} must not be NaN")
    return number


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
            raise ValueError(f"{type(self).__name__}: factor must be finite, got {factor!r}")

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
            raise ValueError(f"{type(self).__name__}: low must not exceed high, got low={low!r}, high={high!r}")

    def reward(self, reward: float) -> float:
        return min(max(float(reward), self.low), self.high)

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"low={self.low:g}", f"high={self.high:g}"]))


class ShapeReward(Interface):
    """Shape rewards by a per-decision function or by a potential over observations.

    Give exactly one of:

    * ``potential`` — potential-based shaping (Ng et al., 1999): ``potential(observation)``
      at this level; every new observation ``o'`` after ``o`` adds ``gamma * potential(o')
      - potential(o)`` to the next reward the agent receives, and the end of a terminated
      episode subtracts the last potential (the terminal state's potential is 0). With
      ``gamma=1`` a terminated episode's shaped return is its unshaped return minus the
      potential of its first observation, wherever the interface sits and whenever rewards
      arrive; a truncated episode keeps the last potential (it is not terminal).
    * ``shaping`` — ``shaping(observation, action, reward)``: ``observation`` is the one on
      which the agent chose ``action`` and ``reward`` the first reward it receives after it;
      that reward is replaced by the function's value, so each decision is shaped exactly
      once. On :class:`arena.EnvItfWrapper` over a turn-based game, rewards that reach the
      agent during other agents' turns pass unchanged.

    Args:
        inner: the interface underneath.
        potential: ``observation -> float``.
        gamma: the discount of the potential difference (``potential`` only).
        shaping: ``(observation, action, reward) -> float``.

    Raises:
        TypeError: not exactly one of ``potential`` and ``shaping`` is given, it is not
            callable, or it returns something that is not a real number.

    Example:
        >>> from gymnasium import spaces
        >>> itf = ShapeReward(potential=lambda obs: float(obs))
        >>> itf.setup(spaces.Discrete(5), spaces.Discrete(2))
        >>> _ = itf.transform_reset(1)
        >>> _ = itf.transform_observation(3)   # potential 1 -> 3
        >>> itf.transform_reward(0.0)
        2.0
        >>> itf.transform_done(1.0, terminated=True, truncated=False)  # minus the last potential
        -2.0
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
            (cls(shaping=lambda observation, action, reward: reward - 0.01), spaces.Discrete(2), spaces.Discrete(3)),
            (cls(potential=lambda observation: 0.1 * float(observation)), spaces.Discrete(4), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, potential: Callable[[Any], float] | None = None,
                 gamma: float = 1.0, shaping: Callable[[Any, Any, float], float] | None = None) -> None:
        super().__init__(inner)
        name = type(self).__name__
        if (potential is None) == (shaping is None):
            raise TypeError(f"{name}: give exactly one of potential=observation->float and "
                            f"shaping=(observation, action, reward)->float")
        function = potential if potential is not None else shaping
        if not callable(function):
            which = "potential must be callable as potential(observation)" if potential is not None \
                else "shaping must be callable as shaping(observation, action, reward)"
            raise TypeError(f"{name}: {which}, got {type(function).__name__}")
        self.potential, self.shaping = potential, shaping
        self.gamma = _real(name, "gamma", gamma)
        self._seen: Any = None
        self._decision: tuple[Any, Any] | None = None
        self._last: float | None = None  # potential of the last observation (potential mode)
        self._bonus = 0.0  # potential difference not yet paid out

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._seen, self._decision, self._last, self._bonus = None, None, None, 0.0

    def reset(self, observation: Any) -> None:
        self._decision, self._last, self._bonus = None, None, 0.0

    def observation(self, observation: Any) -> Any:
        if self.potential is None:
            self._seen = observation
            return observation
        value = self._real(self.potential(observation), "potential")
        if self._last is not None:
            self._bonus += self.gamma * value - self._last
        self._last = value
        return observation

    def action(self, action: Any) -> Any:
        if self.shaping is not None:
            self._decision = (self._seen, action)
        return action

    def action_mask(self, mask: Any) -> Any:
        return mask  # actions pass unchanged, so masks do too

    def reward(self, reward: float) -> float:
        if self.potential is not None:
            reward, self._bonus = reward + self._bonus, 0.0
            return reward
        if self._decision is None:
            return reward
        (observation, action), self._decision = self._decision, None
        return self._real(self.shaping(observation, action, reward), "shaping")

    def done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        reward = self.reward(reward)
        if self.potential is not None and terminated and self._last is not None:
            reward -= self._last
        self._decision, self._last, self._bonus = None, None, 0.0
        return reward

    def _real(self, value: Any, what: str) -> float:
        if isinstance(value, bool) or not hasattr(value, "__float__"):
            raise TypeError(f"{self}: {what} must return a real number, got {value!r}")
        return float(value)

    def _arguments(self) -> str:
        function = self.potential if self.potential is not None else self.shaping
        name = getattr(function, "__qualname__", type(function).__name__)
        option = f"potential={name}" + (f", gamma={self.gamma:g}" if self.gamma != 1.0 else "") \
            if self.potential is not None else f"shaping={name}"
        return ", ".join(filter(None, [super()._arguments(), option]))
