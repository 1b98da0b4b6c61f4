"""Hypothesis strategies for gymnasium spaces and their elements.

Used by :func:`arena.testing.check_interface` and by property tests. Requires the
``hypothesis`` package (the ``test`` extra).

Example:
    >>> from gymnasium import spaces
    >>> from hypothesis import given
    >>> @given(values(spaces.Discrete(3)))
    ... def test_in_space(x):
    ...     assert spaces.Discrete(3).contains(x)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces

try:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError as err:  # pragma: no cover - exercised only without the test extra
    raise ImportError("arena.testing.strategies needs hypothesis: pip install 'arena-marl[test]'") from err

__all__ = ["values", "spaces", "box_spaces", "discrete_spaces", "masks"]

_FINITE = 1e3  # stand-in magnitude for unbounded Box dimensions


def _box_values(space: gym_spaces.Box) -> st.SearchStrategy[np.ndarray]:
    low = np.where(np.isfinite(space.low), space.low, -_FINITE).astype(np.float64)
    high = np.where(np.isfinite(space.high), space.high, _FINITE).astype(np.float64)
    unit = hnp.arrays(np.float64, space.shape, elements=st.floats(0.0, 1.0))
    dtype = space.dtype

    def scale(u: np.ndarray) -> np.ndarray:
        value = low + u * (high - low)
        if np.issubdtype(dtype, np.integer):
            value = np.floor(value)
        return np.clip(value, low, high).astype(dtype)

    return unit.map(scale)


def values(space: gym_spaces.Space) -> st.SearchStrategy[Any]:
    """A strategy for elements of ``space`` (Box, Discrete, MultiDiscrete, MultiBinary, Tuple, Dict).

    Other spaces fall back to seeded ``space.sample()``.
    """
    if isinstance(space, gym_spaces.Discrete):
        start = int(space.start)
        return st.integers(start, start + int(space.n) - 1).map(lambda x: np.int64(x))
    if isinstance(space, gym_spaces.Box):
        return _box_values(space)
    if isinstance(space, gym_spaces.MultiBinary):
        return hnp.arrays(np.int8, space.shape, elements=st.integers(0, 1))
    if isinstance(space, gym_spaces.MultiDiscrete):
        nvec, starts = space.nvec, space.start
        return hnp.arrays(np.float64, nvec.shape, elements=st.floats(0.0, 1.0, exclude_max=True)).map(
            lambda u: (starts + np.floor(u * nvec)).astype(space.dtype)
        )
    if isinstance(space, gym_spaces.Tuple):
        return st.tuples(*(values(s) for s in space.spaces))
    if isinstance(space, gym_spaces.Dict):
        return st.fixed_dictionaries({k: values(s) for k, s in space.spaces.items()})

    def sample(seed: int) -> Any:
        space.seed(seed)
        return space.sample()

    return st.integers(0, 2**31 - 1).map(sample)


def masks(n: int) -> st.SearchStrategy[np.ndarray]:
    """int8 action masks of length ``n`` with at least one legal action."""
    return hnp.arrays(np.int8, (int(n),), elements=st.integers(0, 1)).filter(lambda m: bool(m.any()))


def discrete_spaces(max_n: int = 12) -> st.SearchStrategy[gym_spaces.Discrete]:
    """Discrete spaces with ``n`` in [1, max_n] and a small start."""
    return st.builds(gym_spaces.Discrete, st.integers(1, max_n), start=st.integers(-2, 2))


def box_spaces(
    max_dims: int = 3, max_side: int = 4, dtypes: tuple[Any, ...] = (np.float32, np.float64, np.int64)
) -> st.SearchStrategy[gym_spaces.Box]:
    """Bounded Box spaces of small shapes and mixed dtypes."""

    @st.composite
    def build(draw: Any) -> gym_spaces.Box:
        shape = tuple(draw(st.lists(st.integers(1, max_side), min_size=1, max_size=max_dims)))
        dtype = draw(st.sampled_from(dtypes))
        low = draw(st.integers(-5, 0))
        high = draw(st.integers(low + 1, 6))
        return gym_spaces.Box(low, high, shape=shape, dtype=dtype)

    return build()


def spaces(max_depth: int = 2) -> st.SearchStrategy[gym_spaces.Space]:
    """Gymnasium spaces: leaves (Box, Discrete, MultiDiscrete, MultiBinary) nested in Tuple/Dict."""
    leaves = st.one_of(
        discrete_spaces(),
        box_spaces(),
        st.builds(gym_spaces.MultiDiscrete, st.lists(st.integers(2, 5), min_size=1, max_size=4)),
        st.builds(gym_spaces.MultiBinary, st.integers(1, 6)),
    )
    if max_depth <= 0:
        return leaves
    children = st.lists(st.deferred(lambda: spaces(max_depth - 1)), min_size=1, max_size=3)
    return st.one_of(
        leaves,
        children.map(gym_spaces.Tuple),
        children.map(lambda cs: gym_spaces.Dict({f"k{i}": c for i, c in enumerate(cs)})),
    )
