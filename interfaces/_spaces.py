"""Helpers shared by the interface modules: fast flattening, option checks.

Action-mask layouts are :mod:`arena.masks` (the interface checker uses the same rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, InvalidValueError, SpaceMismatchError

__all__ = ["box_space", "compile_flattener", "require_finite"]

Writer = Callable[[Any, np.ndarray], None]


def require_finite(where: str, **numbers: Any) -> None:
    """Raise ``ValueError`` naming the first of ``numbers`` that is not a finite number (bools refused)."""
    for name, value in numbers.items():
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value)
        ):
            raise InvalidValueError(f"{where}: {name} must be a finite number, got {value!r}")


def box_space(low: Any, high: Any, shape: Any, dtype: Any) -> spaces.Box:
    """``spaces.Box(low, high, shape, dtype)`` for a ``dtype`` that is a numpy dtype (an inner space's).

    Gymnasium's Box takes any numpy dtype (it calls ``np.dtype(dtype)``) but annotates the
    argument as a scalar type only; ``dtype`` is typed ``Any`` here so that callers pass their space's dtype.
    """
    return spaces.Box(low, high, shape, dtype)


def _leaf_bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    """Flat lower and upper bounds of a leaf space, in gymnasium's ``flatten`` layout."""
    if isinstance(space, spaces.Box):
        return space.low.reshape(-1).astype(np.float64), space.high.reshape(-1).astype(np.float64)
    if isinstance(space, spaces.Discrete):
        return np.zeros(int(space.n)), np.ones(int(space.n))
    if isinstance(space, spaces.MultiDiscrete):
        size = int(space.nvec.sum())
        return np.zeros(size), np.ones(size)
    if isinstance(space, spaces.MultiBinary):
        size = int(np.prod(space.shape))
        return np.zeros(size), np.ones(size)
    raise InvalidTypeError(type(space).__name__)


def _writer(space: spaces.Space, offset: int) -> tuple[Writer, int]:
    """A function writing one value of ``space`` into ``out[offset:]``, and its flat size."""
    if isinstance(space, spaces.Box):
        size = int(np.prod(space.shape))
        end = offset + size

        def write_box(value: Any, out: np.ndarray) -> None:
            out[offset:end] = np.asarray(value).reshape(-1)

        return write_box, size
    if isinstance(space, spaces.Discrete):
        start = int(space.start)

        def write_discrete(value: Any, out: np.ndarray) -> None:
            out[offset + int(value) - start] = 1

        return write_discrete, int(space.n)
    if isinstance(space, spaces.MultiDiscrete):
        nvec = space.nvec.reshape(-1)
        starts = offset + np.concatenate(([0], np.cumsum(nvec)[:-1])) - space.start.reshape(-1)

        def write_multi_discrete(value: Any, out: np.ndarray) -> None:
            out[starts + np.asarray(value).reshape(-1)] = 1

        return write_multi_discrete, int(nvec.sum())
    if isinstance(space, spaces.MultiBinary):
        size = int(np.prod(space.shape))
        end = offset + size

        def write_binary(value: Any, out: np.ndarray) -> None:
            out[offset:end] = np.asarray(value).reshape(-1)

        return write_binary, size
    if isinstance(space, (spaces.Tuple, spaces.Dict)):
        members: list[tuple[Any, spaces.Space]] = (
            list(space.spaces.items()) if isinstance(space, spaces.Dict) else list(enumerate(space.spaces))
        )
        parts: list[tuple[Any, Writer]] = []
        total = 0
        for key, member in members:
            write, size = _writer(member, offset + total)
            parts.append((key, write))
            total += size

        def write_nested(value: Any, out: np.ndarray) -> None:
            for key, write in parts:
                write(value[key], out)

        return write_nested, total
    raise InvalidTypeError(type(space).__name__)


def _bounds(space: spaces.Space) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(space, (spaces.Tuple, spaces.Dict)):
        children = list(space.spaces.values()) if isinstance(space, spaces.Dict) else list(space.spaces)
        pairs = [_bounds(child) for child in children]
        return np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs])
    return _leaf_bounds(space)


def compile_flattener(space: spaces.Space, dtype: Any, owner: object) -> tuple[spaces.Box, Callable[[Any], np.ndarray]]:
    """The flat Box of ``space`` and a fast function flattening its values into it.

    The layout is gymnasium's ``spaces.flatten`` (Discrete and MultiDiscrete become
    one-hot blocks, Dict keys in the space's order), but the work is planned once, so a
    call writes each leaf straight into one output array.

    Raises:
        SpaceMismatchError: naming ``owner`` for spaces without a fixed-size flat form
            (Text, Sequence, Graph, OneOf and others).
    """
    try:
        write, size = _writer(space, 0)
        low, high = _bounds(space)
    except TypeError as err:
        raise SpaceMismatchError(
            f"{owner}: cannot flatten {space}: {err} spaces have no fixed-size vector form; "
            "expected Box, Discrete, MultiDiscrete, MultiBinary, or Tuple/Dict of them"
        ) from None
    if size == 0:
        raise SpaceMismatchError(f"{owner}: cannot flatten {space}: it has no elements")
    dtype = np.dtype(dtype)
    box = spaces.Box(low.astype(dtype), high.astype(dtype), (size,), dtype)

    def flatten(value: Any) -> np.ndarray:
        out = np.zeros(size, dtype=dtype)
        write(value, out)
        return out

    return box, flatten
