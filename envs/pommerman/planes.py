"""One agent's view as uint8 planes: what :class:`~envs.pommerman.batch.PommermanBatch` emits.

:func:`encode_view` writes them from an observation dict's grids (the single env's interface
``interfaces.pommerman.PommermanBatchPlanes``); the batch writes the same planes straight from
its state (:mod:`envs.pommerman.batch_views`, laid out for speed). The tests hold the two
equal on recorded and random games, so a policy trained on one reads exactly the same arrays
on the other.

Planes (:data:`PLANE_NAMES`), each (11, 11) uint8:

* 0-11: the board one-hot: passage, rigid, wood, bomb, flames, fog, extra_bomb,
  incr_range, kick, then agents as self, teammate (team modes) and enemy;
* 12-15: bomb life (0-10), bomb blast strength, bomb moving direction (0-4, in the
  view's own directions) and flame life (0-3), as the observation grids hold them;
* 16-21: constant planes: ammo, blast strength, can kick, teammate alive (0 in FFA),
  enemies alive (0-3), time (``255 * step_count // max_steps``);
* radio mode adds 22-23: the two words the teammate sent last step.

With ``ego`` every agent sees the board turned so that it starts in the top-left corner
(agent 1: rows flipped, agent 3: columns flipped, agent 2: both), and its actions are read
in that frame (:data:`EGO_ACTIONS`).
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit_inline
from envs.pommerman.core import AGENT_0, FOG, SIZE
from envs.pommerman.observe import VIEW

__all__ = [
    "PLANE_NAMES",
    "RADIO_PLANE_NAMES",
    "EGO_FLIPS",
    "EGO_FLIP_CODE",
    "EGO_ACTIONS",
    "VIEW_CELL",
    "num_planes",
    "encode_view",
]

PLANE_NAMES = (
    "passage",
    "rigid",
    "wood",
    "bomb",
    "flames",
    "fog",
    "extra_bomb",
    "incr_range",
    "kick",
    "self",
    "teammate",
    "enemy",
    "bomb_life",
    "bomb_blast_strength",
    "bomb_moving_direction",
    "flame_life",
    "ammo",
    "blast_strength",
    "can_kick",
    "teammate_alive",
    "enemies_alive",
    "time",
)
RADIO_PLANE_NAMES = PLANE_NAMES + ("word_0", "word_1")
SELF, TEAMMATE, ENEMY = 9, 10, 11
#: (rows flipped, columns flipped) of each agent's ego view.
EGO_FLIPS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.int64)


def _ego_actions() -> np.ndarray:
    table = np.tile(np.arange(6, dtype=np.int64), (4, 1))
    for agent, (rows, cols) in enumerate(EGO_FLIPS.tolist()):
        if rows:
            table[agent, [1, 2]] = [2, 1]
        if cols:
            table[agent, [3, 4]] = [4, 3]
    return table


#: ``EGO_ACTIONS[agent, action]``: the raw action of an ego-frame action (and back: it is its own inverse).
EGO_ACTIONS = _ego_actions()


def num_planes(mode: str) -> int:
    """How many planes a view has in ``mode`` (22; radio 24)."""
    return len(RADIO_PLANE_NAMES if mode == "radio" else PLANE_NAMES)


def _destinations() -> np.ndarray:
    """``DEST[flips, cell]``: where cell ``r * 11 + c`` lands in a view with ``flips`` (bit 0 rows, bit 1 columns)."""
    rows, cols = np.divmod(np.arange(SIZE * SIZE), SIZE)
    out = np.empty((4, SIZE * SIZE), np.int64)
    for flips in range(4):
        r = SIZE - 1 - rows if flips & 1 else rows
        c = SIZE - 1 - cols if flips & 2 else cols
        out[flips] = r * SIZE + c
    return out


#: ``VIEW_CELL[flips, cell]``: where board cell ``r * 11 + c`` lands in a view turned by ``flips``.
VIEW_CELL = _destinations()
#: ``EGO_FLIP_CODE[agent]``: the turn of the agent's ego view (bit 0 rows flipped, bit 1 columns).
EGO_FLIP_CODE = EGO_FLIPS[:, 0] + 2 * EGO_FLIPS[:, 1]


@njit_inline
def encode_view(board, life, blast, direction, flame, me, teammate_code, fog_r, fog_c, ego, scalars, out):
    """Write agent ``me``'s planes into ``out`` (k, 11, 11) uint8 (C-contiguous).

    ``board`` and the four grids are the game's (or the observation's) (11, 11) grids;
    cells more than :data:`~envs.pommerman.observe.VIEW` away from ``(fog_r, fog_c)`` are
    fog (``fog_r < 0``: no fog). ``teammate_code`` is the teammate's board code (9 in
    FFA). ``scalars`` fill the constant planes from 16 on.
    """
    dest = VIEW_CELL[EGO_FLIP_CODE[me] if ego else 0]
    flat = out.reshape(out.shape[0], SIZE * SIZE)
    flat[:16] = 0
    fogged = fog_r >= 0
    for r in range(SIZE):
        row_fogged = fogged and abs(r - fog_r) > VIEW
        for c in range(SIZE):
            d = dest[r * SIZE + c]
            if row_fogged or (fogged and abs(c - fog_c) > VIEW):
                flat[FOG, d] = 1
                continue
            code = board[r, c]
            if code >= AGENT_0 - 1:
                if code == AGENT_0 + me:
                    code = SELF
                elif code == teammate_code:
                    code = TEAMMATE
                elif code >= AGENT_0:
                    code = ENEMY
                else:
                    code = 0  # the dummy agent code is never drawn
            flat[code, d] = 1
            if life[r, c]:
                flat[12, d] = life[r, c]
                flat[13, d] = blast[r, c]
                move = direction[r, c]
                flat[14, d] = EGO_ACTIONS[me, move] if ego and move else move
            if flame[r, c]:
                flat[15, d] = flame[r, c]
    for k in range(len(scalars)):
        flat[16 + k] = scalars[k]
