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
    """Shape the reward of each decision by ``shaping(observation, action, reward)``.

    ``observation`` is the observation (at this level) on which the agent chose an
    action, ``action`` that action, and ``reward`` the first reward the agent receives
    after it; that reward is replaced by the function's value. Each decision is shaped
    exactly once, so additive terms (potential-based shaping) are never counted twice:

    * on :class:`arena.AgtItfWrapper`, and in simultaneous-move envs, that first reward
      is the decision's whole reward (an agent hears the sum of its rewards since its
      last action);
    * on :class:`arena.EnvItfWrapper` over a turn-based game, rewards that reach the
      agent during other agents' turns (a loss on the opponent's move) pass unchanged —
      put the interface on the agent when shaping must see them.

    Rewards with no decision to shape (before the agent's first action in an episode,
    or after the first reward of a decision) pass unchanged.

    Args:
        inner: the interface underneath.
        shaping: ``(observation, action, reward) -> float``, e.g. the reward plus a
            potential-based term.

    Raises:
        TypeError: ``shaping`` is not callable, or returns something that is not a real number.

    Example:
        >>> from gymnasium import spaces
        >>> itf = ShapeReward(shaping=lambda obs, act, r: r - 0.01 * act)
        >>> itf.setup(spaces.Discrete(3), spaces.Discrete(4))
        >>> _ = itf.transform_reset(0)
        >>> itf.transform_reward(0.0)  # before the first action: unchanged
        0.0
        >>> _ = itf.transform_action(3)
        >>> itf.transform_reward(1.0), itf.transform_reward(1.0)  # one decision, shaped once
        (0.97, 1.0)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(shaping=lambda observation, action, reward: reward - 0.01), spaces.Discrete(2), spaces.Discrete(3)),
        ]

    def __init__(self, inner: Interface | None = None, *, shaping: Callable[[Any, Any, float], float]) -> None:
        super().__init__(inner)
        if not callable(shaping):
            raise TypeError(f"{type(self).__name__}: shaping must be callable as shaping(observation, action, reward), "
                            f"got {type(shaping).__name__}")
        self.shaping = shaping
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
        shaped = self.shaping(observation, action, reward)
        if isinstance(shaped, bool) or not hasattr(shaped, "__float__"):
            raise TypeError(f"{self}: shaping must return a real number, got {shaped!r}")
        return float(shaped)

    def _arguments(self) -> str:
        name = getattr(self.shaping, "__qualname__", type(self.shaping).__name__)
        return ", ".join(filter(None, [super()._arguments(), f"shaping={name}"]))
