"""Action-mask layouts: which entries of a mask belong to which action, and what a mask allows.

Masks follow the arena env contract for ``Discrete`` actions (an int8 array with one
entry per action) and sb3-contrib's ``MaskablePPO`` convention for ``MultiDiscrete``
actions (the per-component masks concatenated, ``sum(nvec)`` entries); as input, the
per-component tuple that gymnasium's ``MultiDiscrete.sample(mask=...)`` takes is
accepted too. A ``Tuple`` action space (a team's) has a tuple of member masks, ``None``
for a member without one. Other spaces (``Box``, ...) carry no mask.

The interfaces (``interfaces``) and the interface checker (:mod:`arena.testing`) read
masks through these functions only.

Example:
    >>> import numpy as np
    >>> from gymnasium import spaces
    >>> space = spaces.MultiDiscrete([2, 3])
    >>> mask_segments(space), mask_length(space)
    ([2, 3], 5)
    >>> mask = np.array([1, 0, 0, 1, 1], dtype=np.int8)
    >>> mask_allows(space, mask, np.array([0, 1])), mask_allows(space, mask, np.array([1, 1]))
    (True, False)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

__all__ = ["mask_segments", "mask_length", "mask_allows", "flat_mask"]


def mask_segments(space: spaces.Space) -> list[int] | None:
    """The sizes of the mask blocks of an action space (``None``: it carries no mask)."""
    if isinstance(space, spaces.Discrete):
        return [int(space.n)]
    if isinstance(space, spaces.MultiDiscrete) and space.nvec.size:
        return [int(n) for n in space.nvec.reshape(-1)]
    return None


def mask_length(space: spaces.Space) -> int | None:
    """How many entries a mask over ``space`` has (``None``: it carries no mask)."""
    segments = mask_segments(space)
    return None if segments is None else sum(segments)


def mask_allows(space: spaces.Space, mask: Any, action: Any) -> bool:
    """Whether ``mask`` over ``space`` allows ``action`` (Tuple spaces: every member's mask; ``None``: no mask)."""
    if mask is None:
        return True
    if isinstance(space, spaces.Tuple):
        return all(a is None or mask_allows(s, m, a) for s, m, a in zip(space.spaces, mask, action))
    segments = mask_segments(space)
    if segments is None:
        return True
    offsets = np.concatenate(([0], np.cumsum(segments)[:-1]))
    starts = space.start if isinstance(space, (spaces.Discrete, spaces.MultiDiscrete)) else 0
    index = offsets + np.asarray(action, dtype=np.int64).reshape(-1) - np.asarray(starts).reshape(-1)
    return bool(flat_mask(mask)[index].all())


def flat_mask(mask: Any) -> np.ndarray:
    """A mask as one int8 array; gymnasium's per-component tuple form is concatenated."""
    if isinstance(mask, (tuple, list)):
        return np.concatenate([np.asarray(part, dtype=np.int8).reshape(-1) for part in mask])
    return np.asarray(mask, dtype=np.int8)
