"""The Pommerman rules on small flat arrays: one step of the reference's forward model.

The state of one game is a handful of compact arrays (see :class:`~envs.pommerman.state.State`;
:class:`~envs.pommerman.batch.PommermanBatch` keeps the same arrays with a game axis in front):

* ``board`` (11, 11) uint8 cell codes (:data:`PASSAGE` ... agent codes 10-13);
* ``items`` (11, 11) uint8: the power-up hidden under each wooden cell (0 = none);
* ``flames`` (11, 11) uint8: the flames on each cell as a bit set of their lives (bit k: a
  flame with life k; a cell can hold an old flame and a new one);
* ``agents`` (4, 6) int8 rows ``alive, row, col, ammo, blast_strength, can_kick``;
* ``bombs`` (BOMB_CAP, 6) int8 rows ``row, col, bomber, life, blast_strength, direction``
  (direction 0 = still, 1-4 as the move actions) in laying order;
* ``counts`` int64 ``[bombs, cells with flames]``: the rows of ``bombs`` in use, and
  whether any flame needs ageing.

The compiled step takes the three grids flat, as rows of 121 cells (cell ``r * 11 + c``,
:func:`_at`): numba indexes an (11, 11) array through its row length, read at run time, and a
flat row through a constant (docs/performance-history.md, "Batched Pommerman beside pomcpp2",
has the measurement).

:func:`step` applies the reference's resolution order exactly (FORMAT.md, steps 1-12),
including its order-dependent corners (two flames on one cell, contested cells that
stay contested, a kick undone by a later conflict). Each phase is a compiled function
of its own, inlined into :func:`step_into` (:func:`~envs.pommerman._jit.njit_inline`: a
call would pass the scratch's arrays one by one and count their references), which is
compiled once and called by the batch and the single env; it takes its working arrays
from a :func:`new_scratch` tuple, so a batch steps without allocating.
"""

from __future__ import annotations

import numpy as np

from arena.errors import InvalidValueError
from envs.pommerman._jit import njit, njit_inline

__all__ = [
    "PASSAGE",
    "RIGID",
    "WOOD",
    "BOMB",
    "FLAMES",
    "FOG",
    "EXTRA_BOMB",
    "INCR_RANGE",
    "KICK",
    "AGENT_DUMMY",
    "AGENT_0",
    "SIZE",
    "BOMB_CAP",
    "MAX_AMMO",
    "new_scratch",
    "step",
    "step_into",
    "step_inline",
    "flame_life",
    "fill",
]

PASSAGE, RIGID, WOOD, BOMB, FLAMES, FOG, EXTRA_BOMB, INCR_RANGE, KICK, AGENT_DUMMY, AGENT_0 = range(11)
SIZE = 11
BOMB_LIFE = 10  # a laid bomb shows 9 at the end of its first step
FLAME_LIFE = 2  # a new flame shows life 2 (3 in observations) and burns 3 steps
MAX_AMMO = 10
BOMB_CAP = SIZE * SIZE  # at most one bomb per cell

# agents columns
ALIVE, ROW, COL, AMMO, BLAST, CAN_KICK = range(6)
# bombs columns after the bomb's row and column (0, 1)
BOMBER, LIFE, BLAST_STRENGTH, DIRECTION = 2, 3, 4, 5

# row/col change of actions 0 (stop) 1 (up) 2 (down) 3 (left) 4 (right) 5 (bomb)
DR = np.array([0, -1, 1, 0, 0, 0], dtype=np.int64)
DC = np.array([0, 0, 0, -1, 1, 0], dtype=np.int64)

# scratch tuple slots (see new_scratch)
_WANT, _BWANT, _CROSS, _CROSS_AGENT, _AOCC, _BOCC, _KICKED_BY, _KICKED, _DELAYED, _EXPLODED, _ALIVE = range(11)


def new_scratch() -> tuple:
    """The working arrays of one :func:`step_into` call (reusable: every call overwrites them)."""
    n = SIZE
    return (
        np.zeros((4, 2), np.int64),  # agents' targets
        np.zeros((BOMB_CAP, 2), np.int64),  # bombs' targets
        np.zeros(2 * n * n, np.int16),  # edge -> first mover across it (-1: none)
        np.zeros(2 * n * n, np.bool_),  # whether that mover is an agent
        np.zeros(n * n, np.int16),  # agents wanting each cell (flat: r * SIZE + c)
        np.zeros(n * n, np.int16),  # bombs wanting each cell
        np.zeros(BOMB_CAP, np.int16),  # bomb -> agent that kicked it (-1: none)
        np.zeros(4, np.int16),  # agent -> bomb it kicked (-1: none)
        np.zeros((BOMB_CAP + 4, 4), np.int64),  # go-backs: kind, index, row, col (bombs first, agents from BOMB_CAP)
        np.zeros(n * n, np.bool_),  # cells in a blast this step
        np.zeros(4, np.bool_),  # alive at the start of the step
    )


@njit_inline
def _is_wall(code):
    return code == RIGID or code == WOOD


@njit_inline
def _is_powerup(code):
    return code == EXTRA_BOMB or code == INCR_RANGE or code == KICK


@njit_inline
def fill(array, length, value):
    """``array[:length] = value``, ``length`` a literal or a module constant (known when numba compiles the caller).

    A constant length compiles to a few inline vector stores; ``array[:] = value`` calls libc's
    ``memset`` (one call a row for a 2-d array), a measurable part of a batch step in calls alone.
    """
    for i in range(length):
        array[i] = value


@njit_inline
def _at(r, c):
    """The flat index of cell (r, c) (``int``: plain Python would keep numpy's int8)."""
    return int(r) * SIZE + int(c)


@njit_inline
def _crossing(r0, c0, r1, c1):
    """An id in ``range(2 * SIZE * SIZE)`` for the edge between two neighbouring cells (``int``: in plain
    Python numpy's int8 would wrap past 127 and index ``cross`` from its end, as :func:`_at` says)."""
    if r0 != r1:
        return int(min(r0, r1)) * SIZE + int(c0)
    return SIZE * SIZE + int(r0) * SIZE + int(min(c0, c1))


@njit_inline
def flame_life(bits):
    """The life the reference shows for a cell's flames (the newest flame's, + 1; 0 without flames)."""
    life = 0
    while bits:
        life += 1
        bits >>= 1
    return life


@njit_inline
def age_flames(board, items, flames, counts):
    """Phase 1: flames with life 0 die (revealing what was hidden), the others tick and are redrawn."""
    if counts[1] == 0:
        return
    left = 0
    for i in range(SIZE * SIZE):
        bits = flames[i]
        if bits == 0:
            continue
        if bits & 1:
            board[i] = items[i]  # 0 (passage) when nothing is hidden there
            items[i] = 0
        bits >>= 1
        flames[i] = bits
        if bits:
            board[i] = FLAMES
            left += 1
    counts[1] = left


@njit_inline
def choose_agent_targets(board, agents, bombs, nb, actions, s):
    """Phase 2: living agents lay bombs or choose a target (only walls and the edge stop them). Returns nb."""
    want = s[_WANT]
    alive_start = s[_ALIVE]
    for a in range(4):
        r = agents[a, ROW]
        c = agents[a, COL]
        want[a, 0] = r
        want[a, 1] = c
        alive_start[a] = agents[a, ALIVE] != 0
        if not alive_start[a]:
            continue
        board[_at(r, c)] = PASSAGE
        act = actions[a]
        # the target without branches on the (random) move: stop and bomb stay (DR, DC are 0),
        # and a move off the board or into a wall stays too
        tr = r + DR[act]
        tc = c + DC[act]
        inside = (tr >= 0) & (tr < SIZE) & (tc >= 0) & (tc < SIZE)
        code = board[_at(tr, tc) if inside else _at(r, c)]
        free = inside & (code != RIGID) & (code != WOOD)
        want[a, 0] = tr if free else r
        want[a, 1] = tc if free else c
        if act == 5:
            occupied = False
            for b in range(nb):
                if bombs[b, 0] == r and bombs[b, 1] == c:
                    occupied = True
                    break
            if not occupied and agents[a, AMMO] > 0:
                agents[a, AMMO] -= 1
                bombs[nb, 0] = r
                bombs[nb, 1] = c
                bombs[nb, BOMBER] = a
                bombs[nb, LIFE] = BOMB_LIFE
                bombs[nb, BLAST_STRENGTH] = agents[a, BLAST]
                bombs[nb, DIRECTION] = 0
                nb += 1
    return nb


@njit_inline
def choose_bomb_targets(board, bombs, nb, s):
    """Phase 3: moving bombs choose a target (walls, power-ups and the edge stop them)."""
    bwant = s[_BWANT]
    for b in range(nb):
        r = bombs[b, 0]
        c = bombs[b, 1]
        bwant[b, 0] = r
        bwant[b, 1] = c
        board[_at(r, c)] = PASSAGE
        d = bombs[b, DIRECTION]
        if d != 0:
            tr = r + DR[d]
            tc = c + DC[d]
            if (
                0 <= tr < SIZE
                and 0 <= tc < SIZE
                and not _is_powerup(board[_at(tr, tc)])
                and not _is_wall(board[_at(tr, tc)])
            ):
                bwant[b, 0] = tr
                bwant[b, 1] = tc


@njit_inline
def resolve_swaps(agents, bombs, nb, s):
    """Phase 4: two movers swapping across one edge both stay (a bomb never undoes an agent)."""
    want, bwant, cross, cross_agent, alive_start = s[_WANT], s[_BWANT], s[_CROSS], s[_CROSS_AGENT], s[_ALIVE]
    fill(cross, 2 * SIZE * SIZE, -1)
    for a in range(4):
        if not alive_start[a]:
            continue
        r = agents[a, ROW]
        c = agents[a, COL]
        if want[a, 0] != r or want[a, 1] != c:
            key = _crossing(r, c, want[a, 0], want[a, 1])
            if cross[key] >= 0:
                want[a, 0] = r
                want[a, 1] = c
                other = cross[key]
                want[other, 0] = agents[other, ROW]
                want[other, 1] = agents[other, COL]
            else:
                cross[key] = a
                cross_agent[key] = True
    for b in range(nb):
        r = bombs[b, 0]
        c = bombs[b, 1]
        if bwant[b, 0] != r or bwant[b, 1] != c:
            key = _crossing(r, c, bwant[b, 0], bwant[b, 1])
            if cross[key] >= 0:
                bwant[b, 0] = r
                bwant[b, 1] = c
                if not cross_agent[key]:
                    other = cross[key]
                    bwant[other, 0] = bombs[other, 0]
                    bwant[other, 1] = bombs[other, 1]
            else:
                cross[key] = b
                cross_agent[key] = False


@njit_inline
def count_targets(nb, s):
    """How many agents and bombs want each cell (the counts of phases 5-7 only ever grow)."""
    want, bwant, aocc, bocc, alive_start = s[_WANT], s[_BWANT], s[_AOCC], s[_BOCC], s[_ALIVE]
    fill(aocc, SIZE * SIZE, 0)
    fill(bocc, SIZE * SIZE, 0)
    for a in range(4):
        if alive_start[a]:
            aocc[_at(want[a, 0], want[a, 1])] += 1
    for b in range(nb):
        bocc[_at(bwant[b, 0], bwant[b, 1])] += 1


@njit_inline
def settle_conflicts(agents, bombs, nb, s, late):
    """Phases 5 and 7: movers wanting a contested cell stay, until nothing changes.

    Early (phase 5) a cell is contested by two agents or two bombs, or an agent and a bomb
    that both want it; late (phase 7, after kicks) an agent and a bomb may share a cell
    only if neither moved, and a mover sent back undoes the kick it was part of.
    """
    want, bwant, aocc, bocc = s[_WANT], s[_BWANT], s[_AOCC], s[_BOCC]
    kicked_by, kicked, alive_start = s[_KICKED_BY], s[_KICKED], s[_ALIVE]
    other_limit = 0 if late else 1
    change = True
    while change:
        change = False
        for a in range(4):
            if not alive_start[a]:
                continue
            r = agents[a, ROW]
            c = agents[a, COL]
            tr = want[a, 0]
            tc = want[a, 1]
            if (tr != r or tc != c) and (aocc[_at(tr, tc)] > 1 or bocc[_at(tr, tc)] > other_limit):
                b = kicked[a]
                if b >= 0:
                    bwant[b, 0] = bombs[b, 0]
                    bwant[b, 1] = bombs[b, 1]
                    bocc[_at(bombs[b, 0], bombs[b, 1])] += 1
                    kicked_by[b] = -1
                    kicked[a] = -1
                want[a, 0] = r
                want[a, 1] = c
                aocc[_at(r, c)] += 1
                change = True
        for b in range(nb):
            r = bombs[b, 0]
            c = bombs[b, 1]
            tr = bwant[b, 0]
            tc = bwant[b, 1]
            if tr == r and tc == c and kicked_by[b] < 0:
                continue
            if bocc[_at(tr, tc)] > 1 or aocc[_at(tr, tc)] > other_limit:
                bwant[b, 0] = r
                bwant[b, 1] = c
                bocc[_at(r, c)] += 1
                a = kicked_by[b]
                if a >= 0:
                    want[a, 0] = agents[a, ROW]
                    want[a, 1] = agents[a, COL]
                    aocc[_at(agents[a, ROW], agents[a, COL])] += 1
                    kicked[a] = -1
                    kicked_by[b] = -1
                change = True


@njit_inline
def _delay(delayed, n, kind, index, r, c):
    delayed[n, 0] = kind
    delayed[n, 1] = index
    delayed[n, 2] = r
    delayed[n, 3] = c
    return n + 1


@njit_inline
def resolve_kicks(board, agents, bombs, nb, actions, s):
    """Phase 6: agents meeting bombs kick them (with the power-up) or bounce back.

    The go-backs are applied after the loop (bombs first), as the reference does.
    Returns whether anything went back (then phase 7 runs).
    """
    want, bwant, aocc, bocc = s[_WANT], s[_BWANT], s[_AOCC], s[_BOCC]
    kicked_by, kicked, delayed, alive_start = s[_KICKED_BY], s[_KICKED], s[_DELAYED], s[_ALIVE]
    n_bombs_back = 0
    n_agents_back = 0
    for b in range(nb):
        tr = bwant[b, 0]
        tc = bwant[b, 1]
        if aocc[_at(tr, tc)] == 0:
            continue
        a = -1
        for k in range(4):
            if alive_start[k] and want[k, 0] == tr and want[k, 1] == tc:
                a = k
                break
        if a < 0:
            continue
        ar = agents[a, ROW]
        ac = agents[a, COL]
        if tr == ar and tc == ac:
            if tr != bombs[b, 0] or tc != bombs[b, 1]:
                n_bombs_back = _delay(delayed, n_bombs_back, 0, b, bombs[b, 0], bombs[b, 1])
            continue
        d = actions[a]
        kr = tr + DR[d]
        kc = tc + DC[d]
        if (
            agents[a, CAN_KICK] != 0
            and 0 <= kr < SIZE
            and 0 <= kc < SIZE
            and aocc[_at(kr, kc)] == 0
            and bocc[_at(kr, kc)] == 0
            and not _is_powerup(board[_at(kr, kc)])
            and not _is_wall(board[_at(kr, kc)])
        ):
            bocc[_at(tr, tc)] = 0
            n_bombs_back = _delay(delayed, n_bombs_back, 0, b, kr, kc)
            kicked_by[b] = a
            kicked[a] = b
            bombs[b, DIRECTION] = d
        else:
            n_bombs_back = _delay(delayed, n_bombs_back, 0, b, bombs[b, 0], bombs[b, 1])
            n_agents_back = _delay(delayed[BOMB_CAP:], n_agents_back, 1, a, ar, ac)
    for i in range(n_bombs_back):
        b = delayed[i, 1]
        bwant[b, 0] = delayed[i, 2]
        bwant[b, 1] = delayed[i, 3]
        bocc[_at(delayed[i, 2], delayed[i, 3])] += 1
    for i in range(BOMB_CAP, BOMB_CAP + n_agents_back):
        a = delayed[i, 1]
        want[a, 0] = delayed[i, 2]
        want[a, 1] = delayed[i, 3]
        aocc[_at(delayed[i, 2], delayed[i, 3])] += 1
    return n_bombs_back + n_agents_back > 0


@njit_inline
def apply_moves(board, agents, bombs, nb, actions, max_blast, s):
    """Phase 8: bombs move or stop; agents move and pick up power-ups (capped at ``max_blast``)."""
    want, bwant, kicked_by, alive_start = s[_WANT], s[_BWANT], s[_KICKED_BY], s[_ALIVE]
    for b in range(nb):
        if bwant[b, 0] == bombs[b, 0] and bwant[b, 1] == bombs[b, 1] and kicked_by[b] < 0:
            bombs[b, DIRECTION] = 0
        else:
            bombs[b, 0] = bwant[b, 0]
            bombs[b, 1] = bwant[b, 1]
    for a in range(4):
        if not alive_start[a]:
            continue
        if want[a, 0] != agents[a, ROW] or want[a, 1] != agents[a, COL]:
            act = actions[a]
            r = agents[a, ROW] + DR[act]
            c = agents[a, COL] + DC[act]
            agents[a, ROW] = r
            agents[a, COL] = c
            code = board[_at(r, c)]
            if code == EXTRA_BOMB:
                agents[a, AMMO] = min(agents[a, AMMO] + 1, MAX_AMMO)
            elif code == INCR_RANGE:
                agents[a, BLAST] = min(agents[a, BLAST] + 1, max_blast)
            elif code == KICK:
                agents[a, CAN_KICK] = 1


@njit_inline
def _blast(board, exploded, r0, c0, strength):
    """Mark the cells a bomb at (r0, c0) burns: up, down (from its own cell), left, right."""
    for d in range(1, 5):
        start = 0 if d == 2 else 1
        for i in range(start, strength):
            r = r0 + DR[d] * i
            c = c0 + DC[d] * i
            if r < 0 or c < 0 or r >= SIZE or c >= SIZE:
                break
            code = board[_at(r, c)]
            if code == RIGID:
                break
            exploded[_at(r, c)] = True
            if code == WOOD:
                break


@njit_inline
def explode_bombs(board, agents, bombs, nb, s):
    """Phases 9-10: bombs tick; a bomb at life 0 or on flames goes off, and chains. Returns (nb, exploded)."""
    exploded = s[_EXPLODED]
    pending = False
    for b in range(nb):
        bombs[b, LIFE] -= 1
        if bombs[b, LIFE] == 0:
            pending = True
        elif board[_at(bombs[b, 0], bombs[b, 1])] == FLAMES:
            bombs[b, LIFE] = 0
            pending = True
    if not pending:
        return nb, 0
    fill(exploded, SIZE * SIZE, False)
    n_exploded = 0
    while pending:
        pending = False
        kept = 0
        for b in range(nb):
            if bombs[b, LIFE] != 0:
                for j in range(6):
                    bombs[kept, j] = bombs[b, j]
                kept += 1
                continue
            n_exploded += 1
            bomber = bombs[b, BOMBER]
            agents[bomber, AMMO] = min(agents[bomber, AMMO] + 1, MAX_AMMO)
            _blast(board, exploded, bombs[b, 0], bombs[b, 1], bombs[b, BLAST_STRENGTH])
        nb = kept
        for b in range(nb):
            if exploded[_at(bombs[b, 0], bombs[b, 1])]:
                bombs[b, LIFE] = 0
                pending = True
    return nb, n_exploded


@njit_inline
def draw_bombs_and_flames(board, flames, bombs, nb, counts, n_exploded, s):
    """Phase 11: redraw bombs, light new flames (life 2) on the blasted cells, redraw all flames."""
    for b in range(nb):
        board[_at(bombs[b, 0], bombs[b, 1])] = BOMB
    if n_exploded:
        exploded = s[_EXPLODED]
        for i in range(SIZE * SIZE):
            if exploded[i]:
                flames[i] |= 1 << FLAME_LIFE
    if n_exploded or counts[1]:
        lit = 0
        for i in range(SIZE * SIZE):
            if flames[i]:
                board[i] = FLAMES
                lit += 1
        counts[1] = lit


@njit_inline
def kill_and_draw_agents(board, agents, s):
    """Phase 12: agents on flames die; the others are drawn. Returns the living agents as bits."""
    alive_start = s[_ALIVE]
    alive = 0
    for a in range(4):
        if not alive_start[a]:
            continue
        r = agents[a, ROW]
        c = agents[a, COL]
        if board[_at(r, c)] == FLAMES:
            agents[a, ALIVE] = 0
        else:
            board[_at(r, c)] = AGENT_0 + a
            alive |= 1 << a
    return alive


def _step_into(board, items, flames, agents, bombs, counts, actions, max_blast, s):
    """Advance one game one step in place with ``actions`` (one per agent), working in scratch ``s``.

    ``board``, ``items`` and ``flames`` are flat rows of 121 cells (``r * SIZE + c``).
    ``max_blast`` caps blast strength (10 in FFA, 4 in the team modes). Actions of dead
    agents are ignored. Returns the living agents after the step as bits (bit i: agent i).
    """
    age_flames(board, items, flames, counts)
    nb = choose_agent_targets(board, agents, bombs, counts[0], actions, s)
    choose_bomb_targets(board, bombs, nb, s)
    resolve_swaps(agents, bombs, nb, s)
    count_targets(nb, s)
    fill(s[_KICKED_BY], BOMB_CAP, -1)
    fill(s[_KICKED], 4, -1)
    settle_conflicts(agents, bombs, nb, s, False)
    if resolve_kicks(board, agents, bombs, nb, actions, s):
        settle_conflicts(agents, bombs, nb, s, True)
    apply_moves(board, agents, bombs, nb, actions, max_blast, s)
    nb, n_exploded = explode_bombs(board, agents, bombs, nb, s)
    draw_bombs_and_flames(board, flames, bombs, nb, counts, n_exploded, s)
    counts[0] = nb
    return kill_and_draw_agents(board, agents, s)


#: The step as one compiled function (the single env calls it).
step_into = njit(_step_into)
#: The same step inlined into its compiled caller (the batch's loop over games): a call would
#: pass its twenty arrays on the stack, a quarter of a batch step's time.
step_inline = njit_inline(_step_into)


def step(board, items, flames, agents, bombs, counts, actions, max_blast) -> int:
    """:func:`step_into` with fresh scratch arrays, on (11, 11) grids (changed in place).

    Raises:
        ValueError: a grid that is not a C-contiguous (11, 11) array (it could not be changed in place).
    """
    for grid in (board, items, flames):
        if grid.shape != (SIZE, SIZE) or not grid.flags.c_contiguous:
            raise InvalidValueError(f"step: grids must be C-contiguous ({SIZE}, {SIZE}) arrays, got shape {grid.shape}")
    cells = SIZE * SIZE
    return step_into(
        board.reshape(cells),
        items.reshape(cells),
        flames.reshape(cells),
        agents,
        bombs,
        counts,
        np.asarray(actions, dtype=np.int64),
        max_blast,
        new_scratch(),
    )
