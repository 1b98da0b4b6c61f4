"""Helpers shared by the adapters: optional imports, placeholder observations, masks."""

from __future__ import annotations

import copy
import importlib
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import MissingDependencyError

__all__ = [
    "require",
    "blank_observation",
    "as_space_dtype",
    "int8_mask",
    "PIP_TORCH",
    "zero_start_space",
    "shift_to_zero_start",
    "shift_from_zero_start",
]

PIP_TORCH = "pip install torch==2.13.0"


def require(module: str, extra: str, user: str) -> ModuleType:
    """Import ``module`` or raise an error that names the extra installing it.

    Args:
        module: the module to import (``"pettingzoo"``, ``"pyspiel"``, ...).
        extra: the ``setup.cfg`` extra that installs it.
        user: who needs it, for the message (``"arena.adapters.pettingzoo"``).

    Raises:
        MissingDependencyError: an ``ImportError`` (and ``ArenaError``) whose text names
            the module, the extra and the pip command.

    Example:
        >>> require("numpy", "test", "doctest").__name__
        'numpy'
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        torch_first = f"{PIP_TORCH} && " if extra == "rllib" else ""
        raise MissingDependencyError(
            f"{user} needs the {module!r} package, which is not installed ({err}); install the "
            f"{extra!r} extra: {torch_first}pip install 'arena-marl[{extra}]'"
        ) from err


def blank_observation(space: spaces.Space) -> Any:
    """A fixed element of ``space`` for an agent that has not been observed yet.

    Zeros clipped into the bounds for Box, the first value for Discrete and
    MultiDiscrete, recursively for Tuple and Dict; other spaces give a sample from a copy
    of the space seeded with 0, so the result is always the same.

    Example:
        >>> blank_observation(spaces.Discrete(3, start=1))
        np.int64(1)
    """
    if isinstance(space, spaces.Discrete):
        return _discrete_value(space, int(space.start))
    if isinstance(space, spaces.Box):
        return np.clip(np.zeros(space.shape), space.low, space.high).astype(space.dtype)
    if isinstance(space, spaces.MultiDiscrete):
        return np.asarray(space.start, dtype=space.dtype).copy()
    if isinstance(space, spaces.MultiBinary):
        return np.zeros(space.shape, dtype=space.dtype)
    if isinstance(space, spaces.Tuple):
        return tuple(blank_observation(sub) for sub in space.spaces)
    if isinstance(space, spaces.Dict):
        return {key: blank_observation(sub) for key, sub in space.spaces.items()}
    sampler = copy.deepcopy(space)
    sampler.seed(0)
    return sampler.sample()


def as_space_dtype(space: spaces.Space, value: Any) -> Any:
    """``value`` as numpy data of ``space``'s dtype (PettingZoo's checker compares dtypes).

    Discrete values become numpy scalars, Box/MultiDiscrete/MultiBinary values arrays;
    Tuple and Dict are converted element-wise; other spaces pass unchanged.
    """
    if isinstance(space, spaces.Discrete):
        return _discrete_value(space, value)
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return np.asarray(value, dtype=space.dtype)
    if isinstance(space, spaces.Tuple) and isinstance(value, tuple):
        return tuple(as_space_dtype(sub, v) for sub, v in zip(space.spaces, value))
    if isinstance(space, spaces.Dict) and isinstance(value, dict):
        return {key: as_space_dtype(space.spaces[key], v) if key in space.spaces else v for key, v in value.items()}
    return value


def int8_mask(mask: Any) -> np.ndarray:
    """An action mask as arena carries it: a 1-D int8 array of 0 and 1."""
    return (np.asarray(mask).reshape(-1) != 0).astype(np.int8)


def zero_start_space(space: spaces.Space) -> spaces.Space:
    """``space`` with every ``Discrete``/``MultiDiscrete`` inside it starting at 0 (``space`` itself
    when none starts elsewhere), for libraries that one-hot encode values ignoring ``start`` (RLlib).

    Example:
        >>> zero_start_space(spaces.Dict({"mate": spaces.Discrete(5, start=9), "x": spaces.Discrete(2)}))
        Dict('mate': Discrete(5), 'x': Discrete(2))
    """
    if isinstance(space, spaces.Discrete):
        return spaces.Discrete(int(space.n)) if int(space.start) else space
    if isinstance(space, spaces.MultiDiscrete):
        return spaces.MultiDiscrete(space.nvec, dtype=str(space.dtype)) if np.any(space.start) else space
    if isinstance(space, spaces.Dict):
        inner = {key: zero_start_space(sub) for key, sub in space.spaces.items()}
        return space if all(inner[key] is sub for key, sub in space.spaces.items()) else spaces.Dict(inner)
    if isinstance(space, spaces.Tuple):
        members = [zero_start_space(sub) for sub in space.spaces]
        return space if all(new is sub for new, sub in zip(members, space.spaces)) else spaces.Tuple(members)
    return space


def _discrete_value(space: spaces.Discrete, value: Any) -> Any:
    """``value`` as the numpy integer of ``space`` (Gymnasium gives every Discrete a dtype; its annotation allows None)."""
    return np.int64(value) if space.dtype is None else space.dtype.type(value)


def _shift(space: spaces.Space, value: Any, sign: int) -> Any:
    if isinstance(space, spaces.Discrete):
        return value if not int(space.start) else _discrete_value(space, int(value) + sign * int(space.start))
    if isinstance(space, spaces.MultiDiscrete):
        return value if not np.any(space.start) else (np.asarray(value) + sign * space.start).astype(space.dtype)
    if isinstance(space, spaces.Dict) and isinstance(value, dict):
        return {key: _shift(space.spaces[key], v, sign) if key in space.spaces else v for key, v in value.items()}
    if isinstance(space, spaces.Tuple) and isinstance(value, tuple):
        return tuple(_shift(sub, v, sign) for sub, v in zip(space.spaces, value))
    return value


def shift_to_zero_start(space: spaces.Space, value: Any) -> Any:
    """A value of ``space`` as the matching value of :func:`zero_start_space` (``value`` when nothing starts off 0).

    Example:
        >>> shift_to_zero_start(spaces.Discrete(5, start=9), 10)
        np.int64(1)
    """
    return value if zero_start_space(space) is space else _shift(space, value, -1)


def shift_from_zero_start(space: spaces.Space | None, value: Any) -> Any:
    """The inverse of :func:`shift_to_zero_start` (for actions coming back; ``space=None`` passes ``value``).

    Example:
        >>> shift_from_zero_start(spaces.Discrete(3, start=-1), 0)
        np.int64(-1)
    """
    if space is None or zero_start_space(space) is space:
        return value
    return _shift(space, value, +1)
