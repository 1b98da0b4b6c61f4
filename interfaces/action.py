"""Interfaces that transform actions: discretisation, MultiDiscrete <-> Discrete, action repeat.

Each one translates action masks where the raw space carries them: int8 arrays with one
entry per Discrete action, or the per-component masks concatenated for MultiDiscrete
actions (sb3-contrib's ``MaskablePPO`` convention).
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidActionError, InvalidValueError, MaskTranslationError, SpaceMismatchError
from arena.interface import Interface
from arena.masks import flat_mask, mask_allows

__all__ = ["DiscretizeBox", "MultiDiscreteToDiscrete", "DiscreteToMultiDiscrete", "RepeatAction"]

_MAX_JOINT_ACTIONS = 10_000_000  # beyond this a joint Discrete space is no use to a policy
_MAX_TABLE = 65_536  # joint actions decoded ahead of time below this size


class DiscretizeBox(Interface):
    """Turn a bounded Box action space into ``Discrete`` by a grid of values per element.

    Element ``i`` of the Box takes ``bins`` evenly spaced values from its low to its high
    bound (rounded for integer Boxes); the model picks one joint grid point, numbered in
    C order over the elements. Box actions carry no masks, so none are translated.

    Args:
        inner: the interface underneath.
        bins: values per element: an int for all, or one per element (each at least 2).

    Raises:
        SpaceMismatchError: at setup, for a non-Box or unbounded action space, ``bins``
            that do not fit its shape, or more than 10 million joint actions.

    Example:
        >>> from gymnasium import spaces
        >>> itf = DiscretizeBox(bins=3)
        >>> itf.setup(spaces.Discrete(2), spaces.Box(-1.0, 1.0, (2,)))
        >>> itf.action_space
        Discrete(9)
        >>> itf.transform_action(5).tolist()
        [0.0, 1.0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(bins=3), spaces.Discrete(2), spaces.Box(-1.0, 1.0, (2,))),
        ]

    def __init__(self, inner: Interface | None = None, *, bins: int | Any = 5) -> None:
        super().__init__(inner)
        self.bins = bins

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "action")
        if not (box.is_bounded("both") and box.shape):
            raise SpaceMismatchError(f"{self}: needs a bounded Box action space with at least one dimension, got {box}")
        try:
            bins = np.broadcast_to(np.asarray(self.bins), box.shape).reshape(-1)
        except ValueError:
            raise SpaceMismatchError(f"{self}: bins {self.bins!r} do not fit the action shape of {box}") from None
        if bins.dtype.kind not in "iu" or (bins < 2).any():
            raise SpaceMismatchError(f"{self}: bins must be integers of at least 2, got {self.bins!r}")
        total = int(np.prod(bins.astype(object)))
        if total > _MAX_JOINT_ACTIONS:
            raise SpaceMismatchError(
                f"{self}: {box} with bins {self.bins!r} gives {total} joint actions, "
                f"more than {_MAX_JOINT_ACTIONS}; use fewer bins"
            )
        low, high = box.low.reshape(-1).astype(np.float64), box.high.reshape(-1).astype(np.float64)
        self._grids = [np.linspace(lo, hi, int(n)) for lo, hi, n in zip(low, high, bins)]
        if np.issubdtype(box.dtype, np.integer):
            self._grids = [np.clip(np.rint(grid), lo, hi) for grid, lo, hi in zip(self._grids, low, high)]
        self._bins, self._shape, self._dtype = tuple(int(n) for n in bins), box.shape, box.dtype
        self._table = self._decode(np.arange(total)) if total <= _MAX_TABLE else None
        self.action_space = spaces.Discrete(total)

    def _decode(self, index: Any) -> np.ndarray:
        digits = np.unravel_index(index, self._bins)
        values = np.stack([grid[d] for grid, d in zip(self._grids, digits)], axis=-1)
        return values.astype(self._dtype).reshape(*np.shape(index), *self._shape)

    def action(self, action: Any) -> np.ndarray:
        if self._table is not None:
            return self._table[int(action)].copy()
        return self._decode(int(action))

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"bins={self.bins!r}"]))


class MultiDiscreteToDiscrete(Interface):
    """Present a MultiDiscrete action space as one Discrete space of all combinations.

    Combination ``k`` is decoded in C order over the components (the last component
    varies fastest). A raw mask (the components' masks concatenated) becomes the mask
    of combinations whose every component is allowed — exact, since a MultiDiscrete
    mask allows exactly those.

    Args:
        inner: the interface underneath.

    Raises:
        SpaceMismatchError: at setup, for other action spaces or more than 10 million
            combinations.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = MultiDiscreteToDiscrete()
        >>> itf.setup(spaces.Discrete(2), spaces.MultiDiscrete([2, 3]))
        >>> itf.action_space, itf.transform_action(4).tolist()
        (Discrete(6), [1, 1])
        >>> itf.transform_action_mask(np.array([1, 0, 1, 1, 0], dtype=np.int8)).tolist()
        [1, 1, 0, 0, 0, 0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Discrete(2), spaces.MultiDiscrete([2, 3, 2])),
        ]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self._require_space(spaces.MultiDiscrete, "action")
        self._nvec = tuple(int(n) for n in space.nvec.reshape(-1))
        total = int(np.prod(np.array(self._nvec, dtype=object))) if self._nvec else 0
        if not 0 < total <= _MAX_JOINT_ACTIONS:
            raise SpaceMismatchError(f"{self}: {space} has {total} combinations; expected 1 to {_MAX_JOINT_ACTIONS}")
        self._shape, self._start, self._dtype = space.nvec.shape, space.start.reshape(-1), space.dtype
        self._splits = np.cumsum(self._nvec)[:-1]
        self._table = self._decode(np.arange(total)) if total <= _MAX_TABLE else None
        self.action_space = spaces.Discrete(total)

    def _decode(self, index: Any) -> np.ndarray:
        digits = np.stack(np.unravel_index(index, self._nvec), axis=-1) + self._start
        return digits.astype(self._dtype).reshape(*np.shape(index), *self._shape)

    def action(self, action: Any) -> np.ndarray:
        if self._table is not None:
            return self._table[int(action)].copy()
        return self._decode(int(action))

    def action_mask(self, mask: Any) -> np.ndarray:
        parts = np.split(flat_mask(mask), self._splits)
        return reduce(np.multiply.outer, parts).reshape(-1).astype(np.int8)


class DiscreteToMultiDiscrete(Interface):
    """Present a Discrete action space as MultiDiscrete components (``nvec``), e.g. cell -> (row, column).

    Model action ``(a_0, ..., a_k)`` is raw action ``start + ravel((a_0, ..., a_k), nvec)``
    (C order). A MultiDiscrete mask allows each component independently, so it can
    express a raw mask only when the legal actions form a product of per-component sets;
    such masks (including all-legal ones) are translated, others raise
    :class:`~arena.errors.MaskTranslationError` naming the mask — never an approximate
    mask that would let the model pick an illegal combination
    (``partial_mask_translation`` tells :func:`arena.testing.check_interface` so).

    Args:
        inner: the interface underneath.
        nvec: the component sizes; their product must equal the raw ``n``.

    Raises:
        SpaceMismatchError: at setup, for non-Discrete action spaces or ``nvec`` whose
            product differs from the number of raw actions.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DiscreteToMultiDiscrete(nvec=[3, 3])
        >>> itf.setup(spaces.Discrete(2), spaces.Discrete(9))
        >>> itf.transform_action(np.array([2, 1]))
        7
        >>> itf.transform_action_mask(np.array([0, 0, 0, 1, 1, 0, 1, 1, 0], dtype=np.int8)).tolist()
        [0, 1, 1, 1, 1, 0]
    """

    partial_mask_translation = True

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(nvec=[3, 3]), spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9)),
        ]

    def __init__(self, inner: Interface | None = None, *, nvec: Any) -> None:
        super().__init__(inner)
        self.nvec = nvec

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self._require_space(spaces.Discrete, "action")
        nvec = np.asarray(self.nvec)
        if (
            nvec.ndim != 1
            or nvec.size == 0
            or nvec.dtype.kind not in "iu"
            or (nvec < 1).any()
            or int(np.prod(nvec.astype(object))) != int(space.n)
        ):
            raise SpaceMismatchError(
                f"{self}: nvec must be a list of positive integers whose product is the number of raw actions "
                f"of {space} ({int(space.n)}), got {self.nvec!r}"
            )
        self._nvec = tuple(int(n) for n in nvec)
        self._start = int(space.start)
        self._splits = np.cumsum(self._nvec)[:-1]
        self.action_space = spaces.MultiDiscrete(list(self._nvec))

    def action(self, action: Any) -> int:
        return self._start + int(np.ravel_multi_index(tuple(int(a) for a in np.asarray(action)), self._nvec))

    def action_mask(self, mask: Any) -> np.ndarray:
        joint = np.asarray(mask, dtype=bool).reshape(self._nvec)
        axes = range(len(self._nvec))
        parts = [joint.any(axis=tuple(a for a in axes if a != axis)) for axis in axes]
        if not np.array_equal(reduce(np.logical_and.outer, parts), joint):
            raise MaskTranslationError(
                f"{self}: the legal raw actions {np.flatnonzero(joint).tolist()} are not a product of per-component "
                f"sets, so no MultiDiscrete{list(self._nvec)} mask expresses them; use this interface on envs whose "
                "masks factor, or MultiDiscreteToDiscrete on top to act on the joint space"
            )
        return np.concatenate(parts).astype(np.int8)

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"nvec={list(np.asarray(self.nvec).tolist())}"]))


class RepeatAction(Interface):
    """Let the model decide every ``repeat``-th turn and repeat its action in between.

    A turn is one observation of this agent. On a repeating turn the model's action is
    ignored and the last decision is sent again — unless the turn's action mask forbids
    it, in which case the model's action is taken and counts as a fresh decision. Masks
    pass through unchanged (the action space is the inner one); the count restarts with
    every episode. The turn's choice is committed when the next observation arrives, so
    a step the env rejects can be retried with another action.

    Args:
        inner: the interface underneath.
        repeat: turns per decision (1 repeats nothing).

    Raises:
        ValueError: ``repeat`` is not a positive integer.
        InvalidActionError: on any turn, for a model action outside the action space.

    Example:
        >>> from gymnasium import spaces
        >>> itf = RepeatAction(repeat=2)
        >>> itf.setup(spaces.Discrete(2), spaces.Discrete(3))
        >>> turns = []
        >>> _ = itf.transform_reset(0)
        >>> for model_action in (2, 0, 1, 1):
        ...     turns.append(int(itf.transform_action(model_action)))
        ...     _ = itf.transform_observation(0)  # the next turn
        >>> turns
        [2, 2, 1, 1]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(repeat=3), spaces.Discrete(2), spaces.Discrete(4)),
        ]

    def __init__(self, inner: Interface | None = None, *, repeat: int = 4) -> None:
        super().__init__(inner)
        if not isinstance(repeat, (int, np.integer)) or isinstance(repeat, bool) or repeat < 1:
            raise InvalidValueError(f"{type(self).__name__}: repeat must be a positive integer, got {repeat!r}")
        self.repeat = int(repeat)
        self._clear()

    def _clear(self) -> None:
        self._turn = 0  # turns since the last decision (0: the next turn decides)
        self._last: Any = None
        self._pending: tuple[Any, int] | None = None  # this turn's choice, committed at the next observation
        self._mask: Any = None
        self._mask_this_turn = False

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._clear()

    def reset(self, observation: Any) -> None:
        mask, fresh = self._mask, self._mask_this_turn
        self._clear()
        self._mask, self._mask_this_turn = mask, fresh  # the first turn's mask arrives before reset

    def action_mask(self, mask: Any) -> Any:
        self._mask, self._mask_this_turn = mask, True
        return mask

    def observation(self, observation: Any) -> Any:
        if self._pending is not None:  # the previous turn went through: commit its choice
            (self._last, self._turn), self._pending = self._pending, None
        if not self._mask_this_turn:
            self._mask = None  # no mask for this turn: do not judge by an old one
        self._mask_this_turn = False
        return observation

    def action(self, action: Any) -> Any:
        if not self.action_space.contains(action):
            raise InvalidActionError(f"{self}: action {action!r} is not in {self.action_space}")
        repeating = self._last is not None and self._turn % self.repeat
        if repeating and mask_allows(self.action_space, self._mask, self._last):
            self._pending = (self._last, self._turn + 1)
            return np.copy(self._last) if isinstance(self._last, np.ndarray) else self._last
        self._pending = (np.copy(action) if isinstance(action, np.ndarray) else action, 1)
        return action

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"repeat={self.repeat}"]))
