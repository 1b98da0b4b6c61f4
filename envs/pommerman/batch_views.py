"""The batch's views: every agent's planes (or cell codes) of one game, written straight from the game's state.

The same planes as :func:`envs.pommerman.planes.encode_view` (which the single env's interface
uses on an observation dict; the tests hold the two equal), laid out for speed:

* each view is one flat row of ``planes * 121`` bytes and every index is computed, so no
  array is reshaped per game or agent (numba's ``reshape`` costs more than writing a plane:
  docs/performance.md);
* the one-hot planes are compared from a row of cell codes 128 at a time (whole vectors; the
  7 cells a plane spills into the next are overwritten when that plane is written);
* the bomb planes are written from the bomb table and the flame plane from the flame bits,
  with no grids in between;
* without fog or turning, the four views differ only in the agents' cells and the constant
  planes: the first view is encoded and copied into the others.

The ``"codes"`` layout (:mod:`envs.pommerman.codes`) writes, in place of the one-hot planes, the
row of cell codes translated (compares and selects over whole vectors), the value planes packed
two to a byte (a bomb's direction and the flames' life in the cell byte's high nibble, a bomb's
life and strength in the bomb byte), and each constant plane's value once; the layout is told by
the length of the rows (248 or 250 bytes against 2,662 or 2,904), so both layouts run one
compiled step.
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit_inline, njit_unreferenced
from envs.pommerman.codes import BOMBS_AT, SCALARS_AT
from envs.pommerman.core import AGENT_0, FOG, SIZE
from envs.pommerman.observe import VIEW
from envs.pommerman.planes import EGO_ACTIONS, EGO_FLIP_CODE, ENEMY, SELF, TEAMMATE, VIEW_CELL

__all__ = ["CELLS", "PADDED", "alive_bits", "observe_game", "observe_game_called"]

CELLS = SIZE * SIZE
#: Length of the scratch row of cell codes: the one-hot planes are compared in whole vectors.
PADDED = 128
# unsigned cell tables: numba indexes with a signed int as if it could be negative (a wrap per
# read); 16 bits, so that an offset computed from one fits without numba (numpy keeps the type)
#: ``_SOURCE[flips, d]``: the board cell shown at cell ``d`` of a view turned by ``flips``.
_SOURCE = np.argsort(VIEW_CELL, axis=1).astype(np.uint16)
#: ``_TARGET[flips, cell]``: where a board cell lands in a view turned by ``flips``.
_TARGET = VIEW_CELL.astype(np.uint16)
_NO_TEAMMATE = 255  # a code no cell holds
_ONE_HOT = 12  # planes 0-11
_VALUES = 16  # planes 12-15: bomb life, blast strength, moving direction, flame life


@njit_inline
def _one_hot(cells, out, row, me, me_code, mate_code):
    """Planes 0-11 of view ``out[row, me]`` from the view's cell codes (``cells``, PADDED long)."""
    me_code, mate_code = np.uint8(me_code), np.uint8(mate_code)  # see _code_plane
    for i in range(PADDED):
        c = cells[i]
        out[row, me, i] = (c == 0) | (c == AGENT_0 - 1)  # the dummy agent code shows as passage
    for k in range(1, SELF):
        base = k * CELLS
        code = np.uint8(k)
        for i in range(PADDED):
            out[row, me, base + i] = cells[i] == code
    base = SELF * CELLS
    for i in range(PADDED):
        out[row, me, base + i] = cells[i] == me_code
    base = TEAMMATE * CELLS
    for i in range(PADDED):
        out[row, me, base + i] = cells[i] == mate_code
    base = ENEMY * CELLS
    for i in range(PADDED):
        c = cells[i]
        out[row, me, base + i] = (c >= AGENT_0) & (c != me_code) & (c != mate_code)


@njit_inline
def _is_codes(out):
    """Whether the views ``out`` are in the codes layout: rows of 248 or 250 bytes, not 22 or 24 planes."""
    return out.shape[2] < SCALARS_AT + 16


@njit_inline
def _code_plane(cells, out, row, me, me_code, mate_code):
    """The code plane of view ``out[row, me]`` (codes layout) from its cell codes, PADDED at once.

    Each cell's code is 1 + the index of its one-hot plane (0 is left for an agent not in play),
    computed by compares and selects over whole vectors (a table read a cell does not vectorize);
    the 7 cells past the plane land in the bomb bytes, which are written after it. The codes compared
    are made bytes first: a byte compared with an int64 is widened to 64 bits, eight times fewer lanes
    a vector (the plane took 5x as long).
    """
    me_code, mate_code = np.uint8(me_code), np.uint8(mate_code)
    for i in range(PADDED):
        c = cells[i]
        code = np.uint8(1) if c == AGENT_0 - 1 else c + np.uint8(1)  # the dummy agent code shows as passage
        code = np.uint8(ENEMY + 1) if c >= AGENT_0 else code
        code = np.uint8(SELF + 1) if c == me_code else code
        out[row, me, i] = np.uint8(TEAMMATE + 1) if c == mate_code else code


@njit_inline
def _fog(cells, fog_r, fog_c):
    """Cells more than VIEW rows or columns from (fog_r, fog_c) (view coordinates) become FOG."""
    for r in range(SIZE):
        row_fogged = abs(r - fog_r) > VIEW
        for c in range(SIZE):
            if row_fogged or abs(c - fog_c) > VIEW:
                cells[r * SIZE + c] = FOG


@njit_inline
def _constant_planes(out, row, me, scalars, k):
    for j in range(k):
        value = scalars[j]
        base = (_VALUES + j) * CELLS
        for i in range(CELLS):
            out[row, me, base + i] = value


@njit_inline
def _view_cells(g, boards, flips, fog_r, fog_c, cells):
    """The board codes of a view turned by ``flips`` into ``cells``, fogged; returns whether fogged."""
    if flips == 0:
        for i in range(CELLS):
            cells[i] = boards[g, i]
    else:
        for i in range(CELLS):
            cells[i] = boards[g, _SOURCE[flips, i]]
    fogged = fog_r >= 0
    if fogged:
        _fog(cells, SIZE - 1 - fog_r if flips & 1 else fog_r, SIZE - 1 - fog_c if flips & 2 else fog_c)
    return fogged


@njit_inline
def _shown_life(bits):
    """The flame life a view shows for a cell's flame bits: :func:`envs.pommerman.core.flame_life`
    (the newest flame's life + 1) for the lives the rules give (0-2), without its loop, so the planes
    vectorize."""
    return int(bits > 0) + int(bits > 1) + int(bits > 3)


@njit_inline
def _value_planes(g, row, me, flames, any_flames, bombs, nb, flips, fogged, ego, cells, out):
    """The four value planes of planes view ``out[row, me]``, after its one-hot planes (and their spill)."""
    base = _ONE_HOT * CELLS
    for i in range(base, base + 4 * CELLS):
        out[row, me, i] = 0
    for b in range(nb):  # later bombs overwrite earlier ones on a cell, as in the reference
        d = _TARGET[flips, int(bombs[g, b, 0]) * SIZE + int(bombs[g, b, 1])]
        if fogged and cells[d] == FOG:
            continue
        out[row, me, base + d] = bombs[g, b, 3]
        out[row, me, base + CELLS + d] = bombs[g, b, 4]
        move = bombs[g, b, 5]
        out[row, me, base + 2 * CELLS + d] = EGO_ACTIONS[me, move] if ego and move else move
    if any_flames:
        base += 3 * CELLS
        if flips == 0 and not fogged:
            for i in range(CELLS):
                bits = flames[g, i]
                out[row, me, base + i] = _shown_life(bits)
        else:
            for i in range(CELLS):
                bits = flames[g, _SOURCE[flips, i]] if cells[i] != FOG else 0
                out[row, me, base + i] = _shown_life(bits)


@njit_inline
def _packed_values(g, row, me, flames, any_flames, bombs, nb, flips, fogged, ego, cells, out):
    """The four value planes of codes view ``out[row, me]``, two to a byte, after its code plane.

    A bomb's life and strength make its cell's bomb byte, its moving direction the cell byte's high
    nibble; the flames' life is the high nibble of a cell of flames (no bomb lies on flames).
    """
    for i in range(BOMBS_AT, SCALARS_AT):
        out[row, me, i] = 0
    for b in range(nb):  # later bombs overwrite earlier ones on a cell, as in the reference
        d = _TARGET[flips, int(bombs[g, b, 0]) * SIZE + int(bombs[g, b, 1])]
        if fogged and cells[d] == FOG:
            continue
        out[row, me, BOMBS_AT + d] = int(bombs[g, b, 3]) | int(bombs[g, b, 4]) << 4  # int: int8 would wrap
        move = int(bombs[g, b, 5])
        direction = EGO_ACTIONS[me, move] if ego and move else move
        out[row, me, d] = (out[row, me, d] & 15) | direction << 4
    if any_flames:
        if flips == 0 and not fogged:
            for i in range(CELLS):
                bits = flames[g, i]
                out[row, me, i] |= _shown_life(bits) << 4
        else:
            for i in range(CELLS):
                bits = flames[g, _SOURCE[flips, i]] if cells[i] != FOG else 0
                out[row, me, i] |= _shown_life(bits) << 4


@njit_inline
def _encode(g, row, me, boards, flames, any_flames, bombs, nb, mate_code, fog_r, fog_c, ego, scalars, k, cells, out):
    """Agent ``me``'s whole view of game ``g`` into ``out[row, me]`` (either layout); ``fog_r < 0``: no fog."""
    flips = EGO_FLIP_CODE[me] if ego else 0
    fogged = _view_cells(g, boards, flips, fog_r, fog_c, cells)
    if _is_codes(out):  # the codes layout
        _code_plane(cells, out, row, me, AGENT_0 + me, mate_code)
        _packed_values(g, row, me, flames, any_flames, bombs, nb, flips, fogged, ego, cells, out)
        for j in range(k):
            out[row, me, SCALARS_AT + j] = scalars[j]
        return
    _one_hot(cells, out, row, me, AGENT_0 + me, mate_code)
    _value_planes(g, row, me, flames, any_flames, bombs, nb, flips, fogged, ego, cells, out)
    _constant_planes(out, row, me, scalars, k)


@njit_inline
def _copy_view(g, row, first, me, out, agents, boards, alive, team, scalars, k):
    """View ``me`` from view ``first`` (no fog, no turning): its agents' cells and constant planes redone.

    Each layout keeps a copy loop of its own, of constant length: one loop for both, its length chosen
    by the layout, ran the batch 5% slower (a paired A/B of 5 rounds at 64 and 1,024 games).
    """
    if _is_codes(out):  # the codes layout: the cell and bomb bytes copied, the agents' codes redone
        for i in range(SCALARS_AT):
            out[row, me, i] = out[row, first, i]
        for a in range(4):
            cell = int(agents[g, a, 1]) * SIZE + int(agents[g, a, 2])  # int: numpy would keep int8
            if alive >> a & 1 and boards[g, cell] == AGENT_0 + a:
                code = SELF if a == me else TEAMMATE if team and a == (me + 2) % 4 else ENEMY
                out[row, me, cell] = (out[row, me, cell] & 0xF0) | (code + 1)  # the direction of a bomb under it kept
        for j in range(k):
            out[row, me, SCALARS_AT + j] = scalars[j]
        return
    for i in range(_VALUES * CELLS):
        out[row, me, i] = out[row, first, i]
    for a in range(4):
        cell = int(agents[g, a, 1]) * SIZE + int(agents[g, a, 2])  # int: numpy would keep int8
        if alive >> a & 1 and boards[g, cell] == AGENT_0 + a:
            out[row, me, SELF * CELLS + cell] = 0
            out[row, me, TEAMMATE * CELLS + cell] = 0
            out[row, me, ENEMY * CELLS + cell] = 0
            plane = SELF if a == me else TEAMMATE if team and a == (me + 2) % 4 else ENEMY
            out[row, me, plane * CELLS + cell] = 1
    _constant_planes(out, row, me, scalars, k)


@njit_inline
def _drawn(out, row, me):
    """Whether view ``out[row, me]`` is drawn (a planes view has a one-hot plane set on every cell)."""
    if _is_codes(out):  # codes: a drawn view has a code of 1 or more on every cell
        return out[row, me, 0] != 0
    for p in range(_ONE_HOT):
        if out[row, me, p * CELLS]:
            return True
    return False


@njit_inline
def alive_bits(agents, g):
    """The living agents of game ``g`` as bits (bit i: agent i)."""
    bits = 0
    for a in range(4):
        if agents[g, a, 0]:
            bits |= 1 << a
    return bits


@njit_inline
def _view_scalars(g, agents, alive, me, team, radio, clock, words, scalars):
    """Fill agent ``me``'s constant planes into ``scalars`` (``clock``: the time plane's value); returns how many."""
    mate = (me + 2) % 4
    enemies = 0
    for e in range(4):
        if e != me and (not team or e != mate) and alive >> e & 1:
            enemies += 1
    scalars[0] = agents[g, me, 3]
    scalars[1] = agents[g, me, 4]
    scalars[2] = agents[g, me, 5]
    scalars[3] = 1 if team and alive >> mate & 1 else 0
    scalars[4] = enemies
    scalars[5] = clock
    if not words:
        return 6
    scalars[6] = radio[g, mate, 0]
    scalars[7] = radio[g, mate, 1]
    return 8


@njit_inline
def observe_game(g, row, viewed, cells, scalars, out):
    """Write the views of game ``g``'s agents into ``out[row]`` (4, view bytes); zeros for agents not in ``live``.

    Only the agents of the bit mask ``seats[g]`` (one per game) are viewed: the others' rows are zeros too.

    ``viewed`` is ``(boards, flames, agents, bombs, counts, radio, steps, live, max_steps, team,
    partial, ego, seats, fresh)``: the batch's cells as rows of 121 (games, 121), its other arrays and
    its options, gathered once a call (one tuple, not fourteen arguments at each caller). ``seats``
    is a bit mask per game; ``fresh`` says ``out`` is new, unwritten memory, so a row not viewed is
    zeroed whatever it holds (otherwise only a row drawn before is). ``out`` holds the views as rows
    (games, 4, planes * 121), or (games, 4, 248 or 250) in the codes layout
    (:mod:`envs.pommerman.codes`); ``cells`` is a scratch of :data:`PADDED` bytes and ``scalars``
    one of 8. Every array is indexed, none sliced: a slice per game or agent is counted in and out
    of numba's reference counts, which cost as much as the rest of a view.
    """
    boards, flames, agents, bombs, counts, radio, steps, live, max_steps, team, partial, ego, seats, fresh = viewed
    size = out.shape[2]
    any_flames = 0
    for i in range(CELLS):
        any_flames |= flames[g, i]
    alive = alive_bits(agents, g)
    clock = min(255, steps[g] * 255 // max_steps)  # once a game: a division costs more than a plane's compare
    first = -1
    wanted = seats[g]
    for me in range(4):
        if not live[g, me] or not wanted >> me & 1:
            if fresh or _drawn(out, row, me):
                for i in range(size):
                    out[row, me, i] = 0
            continue
        words = size > 22 * CELLS or SCALARS_AT + 6 < size < SCALARS_AT + 16  # radio: two more values
        k = _view_scalars(g, agents, alive, me, team, radio, clock, words, scalars)
        if first >= 0 and not partial and not ego:
            _copy_view(g, row, first, me, out, agents, boards, alive, team, scalars, k)
            continue
        first = me
        mate_code = AGENT_0 + (me + 2) % 4 if team else _NO_TEAMMATE
        fog_r = agents[g, me, 1] if partial else -1
        nb = counts[g, 0]
        _encode(
            g,
            row,
            me,
            boards,
            flames,
            any_flames,
            bombs,
            nb,
            mate_code,
            fog_r,
            agents[g, me, 2],
            ego,
            scalars,
            k,
            cells,
            out,
        )


@njit_unreferenced
def observe_game_called(g, row, viewed, cells, scalars, out):
    """:func:`observe_game` as a compiled function of its own, for the places that run once an episode.

    A game's final views and a restart's are called here, not inlined: numba copies an inlined function's
    code (and its inlined helpers') once per place it is inlined, and :func:`observe_game` inlined at those
    places too was about a fifth of the batch's cold compile (115 s, 92 s without). The per-step views stay inlined.
    """
    observe_game(g, row, viewed, cells, scalars, out)
