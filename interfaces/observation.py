"""Interfaces that transform observations: flatten, one-hot, clip, cast, mask in observation.

Stateful observation interfaces (frame stacking, running normalisation) live in
:mod:`interfaces.history`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import SpaceMismatchError
from arena.interface import Interface
from arena.masks import flat_mask, mask_length
from interfaces._spaces import box_space, compile_flattener

__all__ = ["Flatten", "OneHot", "ClipObservation", "CastObservation", "ActionMaskInObservation"]


class Flatten(Interface):
    """Flatten any fixed-size observation space into a 1-D Box.

    Box and MultiBinary values are reshaped, Discrete and MultiDiscrete become one-hot
    blocks, and Tuple/Dict observations are concatenated in the space's order — the
    layout of ``gymnasium.spaces.flatten``, planned once at setup so each call writes
    straight into one array.

    Args:
        inner: the interface underneath (``None``: the raw observation).
        dtype: dtype of the vector (float32 by default, what neural networks take).

    Raises:
        SpaceMismatchError: at setup, for spaces without a fixed-size vector form
            (Text, Sequence, Graph, ...).

    Example:
        >>> from gymnasium import spaces
        >>> itf = Flatten()
        >>> itf.setup(spaces.Dict({"cards": spaces.MultiBinary(3), "turn": spaces.Discrete(2)}),
        ...           spaces.Discrete(2))
        >>> itf.observation_space
        Box(0.0, 1.0, (5,), float32)
        >>> itf.transform_observation({"cards": [1, 0, 1], "turn": 1}).tolist()
        [1.0, 0.0, 1.0, 0.0, 1.0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (
                cls(),
                spaces.Dict({"board": spaces.Box(0, 2, (3, 3), np.int8), "turn": spaces.Discrete(2)}),
                spaces.Discrete(9),
            ),
            (cls(), spaces.Tuple([spaces.MultiDiscrete([2, 3]), spaces.MultiBinary(4)]), spaces.MultiDiscrete([3, 3])),
        ]

    def __init__(self, inner: Interface | None = None, *, dtype: Any = np.float32) -> None:
        super().__init__(inner)
        self.dtype = np.dtype(dtype)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self.observation_space, self._flatten = compile_flattener(self.inner_observation_space, self.dtype, self)

    def observation(self, observation: Any) -> np.ndarray:
        return self._flatten(observation)

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_flatten", None)  # a closure: made again from the spaces on the copy
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.__dict__.get("_observation_space") is not None:  # set up: compile again
            _, self._flatten = compile_flattener(self.inner_observation_space, self.dtype, self)


class OneHot(Interface):
    """One-hot encode a Discrete or MultiDiscrete observation.

    A ``Discrete(n)`` value becomes a vector of ``n``; a ``MultiDiscrete`` value becomes
    one row per component, ``max(nvec)`` wide (columns past a component's ``n`` stay 0),
    so the component structure is kept (use :class:`Flatten` for one flat vector).

    Args:
        inner: the interface underneath.
        dtype: dtype of the encoding.

    Raises:
        SpaceMismatchError: at setup, for other observation spaces.

    Example:
        >>> from gymnasium import spaces
        >>> itf = OneHot()
        >>> itf.setup(spaces.MultiDiscrete([2, 3]), spaces.Discrete(2))
        >>> itf.transform_observation([1, 2]).tolist()
        [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Discrete(4), spaces.Discrete(3)),
            (cls(), spaces.MultiDiscrete([2, 5]), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, dtype: Any = np.float32) -> None:
        super().__init__(inner)
        self.dtype = np.dtype(dtype)
        self._start: int | np.ndarray = 0  # Discrete's start, or MultiDiscrete's starts

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self._require_space((spaces.Discrete, spaces.MultiDiscrete), "observation")
        self._discrete = isinstance(space, spaces.Discrete)
        if isinstance(space, spaces.Discrete):
            self._n, self._start = int(space.n), int(space.start)
            self.observation_space = spaces.Box(0, 1, (self._n,), self.dtype)
            return
        if space.nvec.size == 0:
            raise SpaceMismatchError(f"{self}: cannot one-hot encode {space}: it has no components")
        width = int(space.nvec.max())
        self._shape = space.nvec.shape
        self._start = space.start.astype(np.int64)
        self._rows = np.arange(space.nvec.size)
        # Columns at or past a component's own n never light up: bound them to 0.
        high = (np.arange(width) < space.nvec.reshape(-1, 1)).astype(self.dtype).reshape(*self._shape, width)
        self.observation_space = spaces.Box(np.zeros_like(high), high, high.shape, self.dtype)
        self._width = width

    def observation(self, observation: Any) -> np.ndarray:
        if self._discrete:
            out = np.zeros(self._n, dtype=self.dtype)
            out[int(observation) - self._start] = 1
            return out
        out = np.zeros((self._rows.size, self._width), dtype=self.dtype)
        out[self._rows, (np.asarray(observation) - self._start).reshape(-1)] = 1
        return out.reshape(*self._shape, self._width)


class ClipObservation(Interface):
    """Clip a Box observation into ``[low, high]``.

    The declared space is the intersection of the inner Box and ``[low, high]``; for
    integer Boxes the bounds are rounded inwards.

    Args:
        inner: the interface underneath.
        low: lower bound (a scalar or an array broadcastable to the observation shape).
        high: upper bound.

    Raises:
        SpaceMismatchError: at setup, for non-Box spaces, bounds that do not broadcast,
            or a range that does not overlap the inner Box.

    Example:
        >>> from gymnasium import spaces
        >>> import numpy as np
        >>> itf = ClipObservation(low=-1.0, high=1.0)
        >>> itf.setup(spaces.Box(-5.0, 5.0, (3,)), spaces.Discrete(2))
        >>> itf.transform_observation(np.array([-3.0, 0.5, 4.0], dtype=np.float32)).tolist()
        [-1.0, 0.5, 1.0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(low=-1.0, high=1.0), spaces.Box(-5.0, 5.0, (3,)), spaces.Discrete(2)),
        ]

    def __init__(self, inner: Interface | None = None, *, low: Any = -np.inf, high: Any = np.inf) -> None:
        super().__init__(inner)
        self.low, self.high = low, high

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        try:
            low = np.broadcast_to(np.asarray(self.low, dtype=np.float64), box.shape)
            high = np.broadcast_to(np.asarray(self.high, dtype=np.float64), box.shape)
        except ValueError:
            raise SpaceMismatchError(
                f"{self}: bounds of shapes {np.shape(self.low)} and {np.shape(self.high)} do not "
                f"broadcast to the observation shape of {box}"
            ) from None
        if np.issubdtype(box.dtype, np.integer):
            low, high = np.ceil(low), np.floor(high)
        low, high = np.maximum(low, box.low), np.minimum(high, box.high)
        if (low > high).any():
            raise SpaceMismatchError(f"{self}: the range [{self.low}, {self.high}] does not overlap {box}")
        self._low, self._high = low.astype(box.dtype), high.astype(box.dtype)
        self.observation_space = box_space(self._low, self._high, box.shape, box.dtype)

    def observation(self, observation: Any) -> np.ndarray:
        return np.clip(observation, self._low, self._high)

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"low={self.low}", f"high={self.high}"]))


class CastObservation(Interface):
    """Cast a Box observation to another dtype (float values round to the nearest integer).

    Args:
        inner: the interface underneath.
        dtype: the target dtype.

    Raises:
        SpaceMismatchError: at setup, for non-Box spaces, or an integer target whose range
            cannot hold the inner Box's (infinite) bounds.

    Example:
        >>> from gymnasium import spaces
        >>> import numpy as np
        >>> itf = CastObservation(dtype=np.float32)
        >>> itf.setup(spaces.Box(0, 2, (2,), np.int8), spaces.Discrete(2))
        >>> itf.transform_observation(np.array([2, 0], dtype=np.int8)).dtype
        dtype('float32')
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(dtype=np.int16), spaces.Box(-3.0, 3.0, (2,)), spaces.Discrete(2)),
            (cls(), spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9)),
        ]

    def __init__(self, inner: Interface | None = None, *, dtype: Any = np.float32) -> None:
        super().__init__(inner)
        self.dtype = np.dtype(dtype)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        low, high = box.low.astype(np.float64), box.high.astype(np.float64)
        self._round = np.issubdtype(self.dtype, np.integer) and not np.issubdtype(box.dtype, np.integer)
        if np.issubdtype(self.dtype, np.integer):
            info = np.iinfo(self.dtype)
            low, high = np.rint(low), np.rint(high)
            finite = np.isfinite(low).all() and np.isfinite(high).all()
            if not finite or low.min() < info.min or high.max() > info.max:
                raise SpaceMismatchError(
                    f"{self}: {self.dtype} cannot hold the range of {box} (bounds {low.min()}..{high.max()})"
                )
        # Rounding and casting are monotone, so cast bounds bound the cast values.
        self.observation_space = spaces.Box(low.astype(self.dtype), high.astype(self.dtype), box.shape, self.dtype)

    def observation(self, observation: Any) -> np.ndarray:
        if self._round:
            return np.rint(observation).astype(self.dtype)
        return np.asarray(observation).astype(self.dtype)

    def _arguments(self) -> str:
        inner = super()._arguments()
        return ", ".join(filter(None, [inner, f"dtype={self.dtype}"]))


class ActionMaskInObservation(Interface):
    """Put the current action mask into the observation.

    Observations become ``{"observation": obs, "action_mask": mask}``, a Dict space that
    Stable-Baselines3's ``MultiInputPolicy`` accepts and PettingZoo's classic games use.
    The mask is the one over this level's action space, for the same turn: the drivers
    (:class:`arena.EnvItfWrapper`, :class:`arena.AgtItfWrapper`) translate an agent's mask
    before its observation, and this interface keeps it until that observation passes.
    A turn without a mask (an env without masks) shows every action as legal.

    Masks are int8 with one entry per Discrete action, or the per-component masks
    concatenated for MultiDiscrete actions (sb3-contrib's convention).

    Args:
        inner: the interface underneath.

    Raises:
        SpaceMismatchError: at setup, for action spaces other than Discrete and
            MultiDiscrete.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = ActionMaskInObservation()
        >>> itf.setup(spaces.Discrete(5), spaces.Discrete(3))
        >>> mask = itf.transform_action_mask(np.array([1, 0, 1], dtype=np.int8))
        >>> obs = itf.transform_reset(4)
        >>> obs["observation"], obs["action_mask"].tolist()
        (4, [1, 0, 1])
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9)),
            (cls(), spaces.Discrete(3), spaces.MultiDiscrete([2, 3])),
        ]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self._require_space((spaces.Discrete, spaces.MultiDiscrete), "action")
        self._length = mask_length(space)
        if not self._length:
            raise SpaceMismatchError(
                f"{self}: needs a Discrete or MultiDiscrete action space with actions, got {space}"
            )
        self._all_legal = np.ones(self._length, dtype=np.int8)
        self._mask: np.ndarray | None = None
        self.observation_space = spaces.Dict(
            {
                "observation": self.inner_observation_space,
                "action_mask": spaces.Box(0, 1, (self._length,), np.int8),
            }
        )

    def action_mask(self, mask: Any) -> Any:
        flat = flat_mask(mask)  # copies: the env may reuse its mask array
        if flat.shape != (self._length,):
            raise SpaceMismatchError(
                f"{self}: expected a mask of shape ({self._length},) for {self.action_space}, got shape {flat.shape}"
            )
        self._mask = flat if flat is not mask else flat.copy()
        return mask

    def observation(self, observation: Any) -> dict[str, Any]:
        mask, self._mask = self._mask, None  # one mask per turn: never show a stale one
        return {"observation": observation, "action_mask": self._all_legal.copy() if mask is None else mask}
