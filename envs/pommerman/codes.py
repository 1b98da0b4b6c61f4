"""One agent's view as cell codes: the compact layout of :class:`~envs.pommerman.batch.PommermanBatch`.

``PommermanBatch(..., layout="codes")`` writes each view as one flat uint8 row of
:func:`code_length` bytes (248; radio 250) instead of the 22 (24) planes of 121 cells (2,662
bytes) of :mod:`envs.pommerman.planes`: the same information in a tenth of the memory a step
writes and a model reads. Two bytes a cell, each holding two small values in its nibbles:

* ``[0, 121)``, the cell byte, one per cell in the view's frame (ego turn and fog as the
  planes): the low nibble is the cell's code, 1 + the index of the one-hot plane that is set
  there, 1-12 (:data:`CODE_NAMES`: passage, rigid, wood, bomb, flames, fog, the three
  power-ups, self, teammate, enemy); the high nibble is the flames' life on a cell of flames
  (code 5, the flame-life plane, 1-3), else the moving direction of the bomb there (0-4);
* ``[121, 242)``, the bomb byte: the bomb life plane in the low nibble (0-10), the bomb blast
  strength plane in the high one (0-10);
* ``[242, 248)``: the constant planes' values once each (ammo, blast strength, can kick,
  teammate alive, enemies alive, time); radio mode adds the teammate's two words.

The view of an agent not in play is all zeros (code 0), as its planes are. Flames and a bomb
never share a cell in a state the rules reach (a bomb on flames goes off in the same step; the
tests check it over long random games), which is what lets one nibble carry either value;
:func:`envs.pommerman.state.decode_state` refuses a loaded state where they would.

:func:`codes_to_planes` turns codes back into exactly the planes the ``"planes"`` layout writes
(numpy, any leading shape); the interface level ``interfaces.pommerman.PommermanBatchCodes`` does
it for a stack of levels that read planes, and ``envs.pommerman.policy.CodesCNN`` in a network.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs.pommerman.planes import PLANE_NAMES

__all__ = [
    "CODE_NAMES",
    "FLAMES_CODE",
    "LAYOUTS",
    "BOMBS_AT",
    "SCALARS_AT",
    "code_length",
    "code_space",
    "codes_to_planes",
]

_CELLS = 121
#: The categories of a cell byte's low nibble, codes 1-12: the one-hot planes 0-11 of the planes layout.
CODE_NAMES = PLANE_NAMES[:12]
#: The code of a cell of flames, whose cell byte carries the flames' life (elsewhere a bomb's direction).
FLAMES_CODE = 1 + CODE_NAMES.index("flames")
#: The view layouts of ``PommermanBatch``: 22 (24) planes of 121 cells, or two bytes a cell.
LAYOUTS = ("planes", "codes")
#: Where a codes view's bomb bytes start (bomb life | blast strength << 4, one a cell).
BOMBS_AT = _CELLS
#: Where a codes view's constant values start (one byte each).
SCALARS_AT = 2 * _CELLS
# the largest byte of each part: code 12 with direction 4 (flames: life 3), life 10 with strength 10
_CELL_HIGH = 12 | 4 << 4
_BOMB_HIGH = 10 | 10 << 4
_SCALAR_HIGH = (10, 10, 1, 1, 3, 255)
_WORD_HIGH = (7, 7)


def code_length(mode: str) -> int:
    """The bytes of one codes view in ``mode``: 248 (radio 250).

    Example:
        >>> code_length("ffa"), code_length("radio")
        (248, 250)
    """
    return SCALARS_AT + len(_SCALAR_HIGH) + (len(_WORD_HIGH) if mode == "radio" else 0)


def code_space(mode: str) -> spaces.Box:
    """The ``Box`` of one codes view in ``mode``: shape ``(code_length(mode),)`` uint8, each byte's bounds.

    A byte's bound is the largest byte its part holds (a cell byte 76: code 12 with direction 4;
    a bomb byte 170: life 10 with strength 10); a ``Box`` bounds bytes, not their nibbles.

    Example:
        >>> space = code_space("team")
        >>> space.shape, int(space.high[0]), int(space.high[121]), int(space.high[-1])
        ((248,), 76, 170, 255)
    """
    high = [_CELL_HIGH] * _CELLS + [_BOMB_HIGH] * _CELLS
    high += list(_SCALAR_HIGH) + (list(_WORD_HIGH) if mode == "radio" else [])
    return spaces.Box(0, np.array(high, dtype=np.uint8), dtype=np.uint8)


def codes_to_planes(codes: Any) -> np.ndarray:
    """The planes of codes views: exactly what ``PommermanBatch(layout="planes")`` writes for the same games.

    Args:
        codes: uint8 codes views, shape ``(..., 248)`` (radio ``(..., 250)``), any leading shape.

    Returns:
        uint8 planes of shape ``(..., 22, 11, 11)`` (radio ``(..., 24, 11, 11)``), a new array.

    Raises:
        ValueError: ``codes`` not uint8 with a last axis of 248 or 250.

    Example:
        >>> from envs.pommerman.batch import PommermanBatch
        >>> codes, _ = PommermanBatch(2, "team", layout="codes").reset(seed=0)
        >>> planes, _ = PommermanBatch(2, "team").reset(seed=0)
        >>> codes.shape, bool((codes_to_planes(codes) == planes).all())
        ((2, 4, 248), True)
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
    cell, bomb = codes[..., :BOMBS_AT], codes[..., BOMBS_AT:SCALARS_AT]
    code, small = cell & np.uint8(15), cell >> np.uint8(4)
    # each plane computed straight into the output (the one-hot planes through a bool view of its bytes)
    categories = np.arange(1, one_hot + 1, dtype=np.uint8)[:, None]
    np.equal(code[..., None, :], categories, out=out[..., :one_hot, :].view(np.bool_))
    np.bitwise_and(bomb, np.uint8(15), out=out[..., one_hot, :])  # bomb life
    np.right_shift(bomb, np.uint8(4), out=out[..., one_hot + 1, :])  # bomb blast strength
    on_flames = out[..., FLAMES_CODE - 1, :]  # the flames' one-hot plane, 0 or 1
    np.multiply(small, code != FLAMES_CODE, out=out[..., one_hot + 2, :])  # moving direction
    np.multiply(small, on_flames, out=out[..., one_hot + 3, :])  # flame life
    out[..., one_hot + 4 :, :] = codes[..., SCALARS_AT:, None]
    return out.reshape(*lead, one_hot + 4 + scalars, 11, 11)
