"""Helpers shared by the adapters: optional imports, placeholder observations, masks."""

from __future__ import annotations

import copy
import importlib
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import MissingDependencyError

__all__ = ["require", "blank_observation", "as_space_dtype", "int8_mask", "PIP_TORCH"]

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
        return space.dtype.type(space.start)
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
        return space.dtype.type(value)
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return np.asarray(value, dtype=space.dtype)
    if isinstance(space, spaces.Tuple) and isinstance(value, tuple):
        return tuple(as_space_dtype(sub, v) for sub, v in zip(space.spaces, value))
    if isinstance(space, spaces.Dict) and isinstance(value, dict):
        return {key: as_space_dtype(space.spaces[key], v) if key in space.spaces else v
                for key, v in value.items()}
    return value


def int8_mask(mask: Any) -> np.ndarray:
    """An action mask as arena carries it: a 1-D int8 array of 0 and 1."""
    return (np.asarray(mask).reshape(-1) != 0).astype(np.int8)
