"""One agent's view as cell codes: the compact layout of :class:`~envs.pommerman.batch.PommermanBatch`.

``PommermanBatch(..., layout="codes")`` writes each view as one flat uint8 row of
:func:`code_length` bytes (611; radio 613) instead of the 22 (24) planes of 121 cells (2,662
bytes) of :mod:`envs.pommerman.planes`; the same information, a quarter of the memory a step
writes and a model reads:

* ``[0, 121)``: one cell code per cell, in the view's frame (ego turn and fog as the planes):
  1 + the index of the one-hot plane that is set there, 1-12 (:data:`CODE_NAMES`: passage,
  rigid, wood, bomb, flames, fog, the three power-ups, self, teammate, enemy); 0 on every cell
  of the view of an agent not in play (whose planes are all zero, as the whole row is);
* ``[121, 605)``: the four value planes as they are (bomb life, bomb blast strength, bomb moving
  direction, flame life), 121 cells each;
* ``[605, 611)``: the constant planes' values once each (ammo, blast strength, can kick,
  teammate alive, enemies alive, time); radio mode adds the teammate's two words.

:func:`codes_to_planes` turns codes back into exactly the planes the ``"planes"`` layout writes
(numpy, any leading shape); the interface level ``interfaces.pommerman.PommermanBatchCodes`` does
it for a stack of levels that read planes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs.pommerman.planes import PLANE_NAMES

__all__ = ["CODE_NAMES", "LAYOUTS", "VALUES_AT", "SCALARS_AT", "code_length", "code_space", "codes_to_planes"]

_CELLS = 121
#: The categories of the code plane, codes 1-12: the one-hot planes 0-11 of the planes layout.
CODE_NAMES = PLANE_NAMES[:12]
#: The view layouts of ``PommermanBatch``: 22 (24) planes of 121 cells, or one row of cell codes.
LAYOUTS = ("planes", "codes")
#: Where a codes view's value planes start (bomb life, blast strength, moving direction, flame life).
VALUES_AT = _CELLS
#: Where a codes view's constant values start (one byte each).
SCALARS_AT = 5 * _CELLS
_VALUE_HIGH = (10, 10, 4, 3)
_SCALAR_HIGH = (10, 10, 1, 1, 3, 255)
_WORD_HIGH = (7, 7)


def code_length(mode: str) -> int:
    """The bytes of one codes view in ``mode``: 611 (radio 613).

    Example:
        >>> code_length("ffa"), code_length("radio")
        (611, 613)
    """
    return SCALARS_AT + len(_SCALAR_HIGH) + (len(_WORD_HIGH) if mode == "radio" else 0)


def code_space(mode: str) -> spaces.Box:
    """The ``Box`` of one codes view in ``mode``: shape ``(code_length(mode),)`` uint8, each byte's bounds.

    Example:
        >>> space = code_space("team")
        >>> space.shape, int(space.high[0]), int(space.high[-1])
        ((611,), 12, 255)
    """
    high = [len(CODE_NAMES)] * _CELLS
    for value in _VALUE_HIGH:
        high += [value] * _CELLS
    high += list(_SCALAR_HIGH) + (list(_WORD_HIGH) if mode == "radio" else [])
    return spaces.Box(0, np.array(high, dtype=np.uint8), dtype=np.uint8)


def codes_to_planes(codes: Any) -> np.ndarray:
    """The planes of codes views: exactly what ``PommermanBatch(layout="planes")`` writes for the same games.

    Args:
        codes: uint8 codes views, shape ``(..., 611)`` (radio ``(..., 613)``), any leading shape.

    Returns:
        uint8 planes of shape ``(..., 22, 11, 11)`` (radio ``(..., 24, 11, 11)``), a new array.

    Raises:
        ValueError: ``codes`` not uint8 with a last axis of 611 or 613.

    Example:
        >>> from envs.pommerman.batch import PommermanBatch
        >>> codes, _ = PommermanBatch(2, "team", layout="codes").reset(seed=0)
        >>> planes, _ = PommermanBatch(2, "team").reset(seed=0)
        >>> codes.shape, bool((codes_to_planes(codes) == planes).all())
        ((2, 4, 611), True)
    """
    codes = np.asarray(codes)
    size = codes.shape[-1] if codes.ndim else -1
    if codes.dtype != np.uint8 or size not in (code_length("ffa"), code_length("radio")):
        raise InvalidValueError(
            f"codes_to_planes: expected uint8 codes views of shape (..., {code_length('ffa')}) or "
            f"(..., {code_length('radio')}), got {codes.dtype} array of shape {codes.shape}"
        )
    lead, scalars = codes.shape[:-1], size - SCALARS_AT
    one_hot = len(CODE_NAMES)
    out = np.empty((*lead, one_hot + 4 + scalars, _CELLS), np.uint8)
    # the one-hot planes compared straight into the output (a bool view of its bytes: no temporary)
    categories = np.arange(1, one_hot + 1, dtype=np.uint8)[:, None]
    np.equal(codes[..., None, :VALUES_AT], categories, out=out[..., :one_hot, :].view(np.bool_))
    out[..., one_hot : one_hot + 4, :] = codes[..., VALUES_AT:SCALARS_AT].reshape(*lead, 4, _CELLS)
    out[..., one_hot + 4 :, :] = codes[..., SCALARS_AT:, None]
    return out.reshape(*lead, one_hot + 4 + scalars, 11, 11)
