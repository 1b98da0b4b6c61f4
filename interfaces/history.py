"""Observation interfaces with memory: frame stacking, the episode's clock and running normalisation."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.interface import Interface
from interfaces._spaces import box_space

__all__ = ["EpisodeClock", "FrameStack", "NormalizeObservation"]


class FrameStack(Interface):
    """Stack the last ``frames`` Box observations along a new first axis (oldest first).

    At the start of an episode the stack is filled with copies of the first observation,
    so every stacked observation lies in the declared space.

    Args:
        inner: the interface underneath.
        frames: how many observations to stack (at least 1).

    Raises:
        ValueError: ``frames`` is not a positive integer.
        SpaceMismatchError: at setup, for non-Box observation spaces (put :class:`~interfaces.Flatten`
            or :class:`~interfaces.OneHot` underneath).

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = FrameStack(frames=3)
        >>> itf.setup(spaces.Box(0, 9, (1,), np.int64), spaces.Discrete(2))
        >>> itf.transform_reset(np.array([1])).tolist()
        [[1], [1], [1]]
        >>> itf.transform_observation(np.array([2])).tolist()
        [[1], [1], [2]]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(frames=3), spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, frames: int = 4) -> None:
        super().__init__(inner)
        if not isinstance(frames, (int, np.integer)) or isinstance(frames, bool) or frames < 1:
            raise InvalidValueError(f"{type(self).__name__}: frames must be a positive integer, got {frames!r}")
        self.frames = int(frames)
        self._stack: np.ndarray | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        shape = (self.frames, *box.shape)
        self._stacked = box_space(np.broadcast_to(box.low, shape), np.broadcast_to(box.high, shape), shape, box.dtype)
        self.observation_space = self._stacked
        self._stack = None

    def reset(self, observation: Any) -> None:
        self._start(observation)

    def _start(self, observation: Any) -> np.ndarray:
        stack = self._stack = np.empty(self._stacked.shape, dtype=self._stacked.dtype)
        stack[:] = observation
        return stack

    def observation(self, observation: Any) -> np.ndarray:
        # Used without reset(): the stack starts here.
        stack = self._stack if self._stack is not None else self._start(observation)
        stack[:-1] = stack[1:]
        stack[-1] = observation
        return stack.copy()  # a fresh array: the caller may keep it while the stack moves on

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"frames={self.frames}"]))


class EpisodeClock(Interface):
    """Append the step of the episode, modulo ``period``, as a one-hot to a Box observation, flattened (float32).

    A memoryless policy cannot act on a cycle (sweep right 3 steps of 8, strafe left 8 steps then
    right 8) from observations that do not change; with the clock in its input it can, as a
    time-aware policy does (Pardo et al. 2018, "Time Limits in Reinforcement Learning"). The first
    observation of an episode is step 0; the observation after the ``k``-th action is step ``k``.
    A scripted teacher that counts its own steps (``vizdoom_aim``'s sweep, weave and strafes, all on
    cycles of 8, 12 and 16 steps) is then a function of what its pupil sees, for a ``period`` that
    is a multiple of its cycles (48).

    Args:
        inner: the interface underneath.
        period: the clock's length in steps: the one-hot has ``period`` entries.

    Raises:
        ValueError: ``period`` is not an integer of at least 2.
        SpaceMismatchError: at setup, for an observation space that is not a Box.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = EpisodeClock(period=3)
        >>> itf.setup(spaces.Box(-1.0, 1.0, (1,), np.float32), spaces.Discrete(2))
        >>> itf.transform_reset(np.array([0.5], np.float32)).tolist()
        [0.5, 1.0, 0.0, 0.0]
        >>> [itf.transform_observation(np.array([0.5], np.float32)).tolist()[1:] for _ in range(3)]
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(period=4), spaces.Box(-1.0, 1.0, (3,), np.float32), spaces.Discrete(2)),
            (cls(period=2), spaces.Box(0, 9, (2, 2), np.int64), spaces.Discrete(3)),
        ]

    def __init__(self, inner: Interface | None = None, *, period: int = 48) -> None:
        super().__init__(inner)
        if not isinstance(period, (int, np.integer)) or isinstance(period, bool) or period < 2:
            raise InvalidValueError(f"{type(self).__name__}: period must be an integer >= 2, got {period!r}")
        self.period = int(period)
        self._step = -1  # the step of the observation last passed on; before any, -1

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        low = np.concatenate([np.asarray(box.low, np.float32).ravel(), np.zeros(self.period, np.float32)])
        high = np.concatenate([np.asarray(box.high, np.float32).ravel(), np.ones(self.period, np.float32)])
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._step = -1

    def reset(self, observation: Any) -> None:
        self._step = -1  # the first observation, passed on next, is step 0

    def observation(self, observation: Any) -> np.ndarray:
        self._step += 1
        clock = np.zeros(self.period, np.float32)
        clock[self._step % self.period] = 1.0
        return np.concatenate([np.asarray(observation, np.float32).ravel(), clock])

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"period={self.period}"]))


class NormalizeObservation(Interface):
    """Normalise Box observations by a running mean and variance; freeze for evaluation.

    While not frozen, every observation first updates the running statistics
    (Welford/Chan's parallel update, starting from mean 0, variance 1 and a tiny
    weight), then is mapped to ``(x - mean) / sqrt(var + epsilon)`` and clipped to
    ``[-clip, clip]``. :meth:`freeze` stops the updates, so evaluation sees fixed
    statistics; :meth:`statistics` and :meth:`load_statistics` move them between
    instances (e.g. from the training env's interface to an evaluation agent's).

    The statistics persist across episodes (``stateful_across_episodes``), which is the
    point of a running normaliser, so ``check_interface`` does not treat them as a leak.

    Args:
        inner: the interface underneath.
        clip: bound of the normalised values.
        epsilon: added to the variance before the square root.
        frozen: start frozen (with the initial or loaded statistics).

    Raises:
        SpaceMismatchError: at setup, for non-Box observation spaces.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = NormalizeObservation()
        >>> itf.setup(spaces.Box(-10.0, 10.0, (1,)), spaces.Discrete(2))
        >>> for x in (1.0, 3.0):
        ...     _ = itf.transform_observation(np.array([x], dtype=np.float32))
        >>> float(np.round(itf.mean[0], 3))
        2.0
        >>> itf.freeze().transform_observation(np.array([4.0], dtype=np.float32)).round(2).tolist()
        [2.0]
    """

    stateful_across_episodes = True

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Box(-10.0, 10.0, (4,)), spaces.Discrete(2)),
        ]

    def __init__(
        self, inner: Interface | None = None, *, clip: float = 10.0, epsilon: float = 1e-8, frozen: bool = False
    ) -> None:
        super().__init__(inner)
        if not clip > 0:
            raise InvalidValueError(f"{type(self).__name__}: clip must be positive, got {clip!r}")
        self.clip = float(clip)
        self.epsilon = float(epsilon)
        self.frozen = bool(frozen)
        self._loaded: dict[str, Any] | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        self.observation_space = spaces.Box(-self.clip, self.clip, box.shape, np.float32)
        self.mean = np.zeros(box.shape, dtype=np.float64)
        self.var = np.ones(box.shape, dtype=np.float64)
        self.count = 1e-4  # the prior's weight: the first observations dominate quickly
        if self._loaded is not None:
            self.load_statistics(self._loaded)
        self._update_scale()

    def _update_scale(self) -> None:
        self._scale = 1.0 / np.sqrt(self.var + self.epsilon)
        self._delta = np.empty_like(self.mean)  # scratch buffers: the per-step path allocates only its output
        self._step = np.empty_like(self.mean)

    def freeze(self) -> NormalizeObservation:
        """Stop updating the statistics (evaluation mode); returns ``self``."""
        self.frozen = True
        return self

    def unfreeze(self) -> NormalizeObservation:
        """Resume updating the statistics (training mode); returns ``self``."""
        self.frozen = False
        return self

    def statistics(self) -> dict[str, Any]:
        """A copy of the running statistics: ``{"mean", "var", "count"}``."""
        return {"mean": self.mean.copy(), "var": self.var.copy(), "count": float(self.count)}

    def load_statistics(self, statistics: dict[str, Any]) -> None:
        """Replace the statistics with ``statistics`` (from :meth:`statistics`).

        Called before :meth:`setup`, the statistics are kept and applied at setup.

        Raises:
            SpaceMismatchError: the statistics' shape differs from the observations'.
        """
        if self._observation_space is None:  # not set up yet: apply at setup
            self._loaded = {key: np.copy(value) for key, value in statistics.items()}
            return
        mean, var = np.asarray(statistics["mean"], np.float64), np.asarray(statistics["var"], np.float64)
        if mean.shape != self.mean.shape or var.shape != self.var.shape:
            raise SpaceMismatchError(
                f"{self}: statistics of shape {mean.shape} do not fit observations of shape {self.mean.shape}"
            )
        self.mean, self.var, self.count = mean.copy(), var.copy(), float(statistics["count"])
        self._update_scale()

    def observation(self, observation: Any) -> np.ndarray:
        x = np.asarray(observation, dtype=np.float64)
        mean, var, scale, delta, step = self.mean, self.var, self._scale, self._delta, self._step
        if not self.frozen:
            previous, count = self.count, self.count + 1.0
            np.subtract(x, mean, out=delta)
            np.multiply(delta, 1.0 / count, out=step)
            mean += step
            # Chan et al.'s update for a batch of one, in closed form:
            # var' = previous / count * (var + delta**2 / count).
            np.multiply(delta, step, out=delta)
            var += delta
            var *= previous / count
            self.count = count
            np.add(var, self.epsilon, out=scale)
            np.sqrt(scale, out=scale)
            np.reciprocal(scale, out=scale)
        np.subtract(x, mean, out=step)
        step *= scale
        np.maximum(step, -self.clip, out=step)
        np.minimum(step, self.clip, out=step)
        return step.astype(np.float32)

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"clip={self.clip:g}", "frozen" if self.frozen else ""]))
