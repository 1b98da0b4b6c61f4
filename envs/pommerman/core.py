"""The Pommerman rules on flat numpy arrays: one step of the reference's forward model.

The state is a handful of small arrays (see :class:`~envs.pommerman.state.State`):

* ``board`` (11, 11) uint8 cell codes (:data:`PASSAGE` ... agent codes 10-13);
* ``items`` (11, 11) uint8: the power-up hidden under each wooden cell (0 = none);
* ``agents`` (4, 6) int64 rows ``alive, row, col, ammo, blast_strength, can_kick``;
* ``bombs`` (BOMB_CAP, 6) int64 rows ``row, col, bomber, life, blast_strength, direction``
  (direction 0 = still, 1-4 as the move actions) in laying order;
* ``flames`` (FLAME_CAP, 3) int64 rows ``row, col, life`` in creation order;
* ``counts`` int64 ``[bombs, flames]``: how many rows of ``bombs``/``flames`` are used.

:func:`step` applies the reference's resolution order exactly (FORMAT.md, steps 1-12),
including its order-dependent corners (two flames dying on one cell, contested cells
that stay contested, a kick undone by a later conflict).
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit

__all__ = [
    "PASSAGE", "RIGID", "WOOD", "BOMB", "FLAMES", "FOG", "EXTRA_BOMB", "INCR_RANGE", "KICK",
    "AGENT_DUMMY", "AGENT_0", "SIZE", "BOMB_CAP", "FLAME_CAP", "step",
]

PASSAGE, RIGID, WOOD, BOMB, FLAMES, FOG, EXTRA_BOMB, INCR_RANGE, KICK, AGENT_DUMMY, AGENT_0 = range(11)
SIZE = 11
BOMB_LIFE = 10  # a laid bomb shows 9 at the end of its first step
MAX_AMMO = 10
BOMB_CAP = SIZE * SIZE  # at most one bomb per cell
FLAME_CAP = 4 * SIZE * SIZE  # flames live 3 steps; at most one new flame per cell and step

# agents columns
ALIVE, ROW, COL, AMMO, BLAST, CAN_KICK = range(6)
# bombs columns (ROW, COL shared)
BOMBER, LIFE, BLAST_STRENGTH, DIRECTION = 2, 3, 4, 5

# row/col change of actions 0 (stop) 1 (up) 2 (down) 3 (left) 4 (right) 5 (bomb)
DR = np.array([0, -1, 1, 0, 0, 0], dtype=np.int64)
DC = np.array([0, 0, 0, -1, 1, 0], dtype=np.int64)


@njit
def _is_wall(code):
    return code == RIGID or code == WOOD


@njit
def _is_powerup(code):
    return code == EXTRA_BOMB or code == INCR_RANGE or code == KICK


@njit
def _crossing(r0, c0, r1, c1):
    """An id for the edge between two neighbouring cells."""
    if r0 != r1:
        return min(r0, r1) * SIZE + c0
    return SIZE * SIZE + r0 * SIZE + min(c0, c1)


@njit
def step(board, items, agents, bombs, flames, counts, actions, max_blast):
    """Advance the state one step in place with ``actions`` (int64, one per agent).

    ``max_blast`` caps blast strength (10 in FFA, 4 in the team modes). Actions of dead
    agents are ignored. Returns the number of bombs that exploded.
    """
    n = SIZE
    nb = counts[0]
    nf = counts[1]
    dr = DR
    dc = DC

    # 1. old flames die (revealing hidden power-ups), the others tick, all are redrawn
    kept = 0
    for f in range(nf):
        r = flames[f, 0]
        c = flames[f, 1]
        if flames[f, 2] == 0:
            board[r, c] = items[r, c]  # 0 (passage) when nothing is hidden there
            items[r, c] = 0
        else:
            flames[kept, 0] = r
            flames[kept, 1] = c
            flames[kept, 2] = flames[f, 2] - 1
            kept += 1
    nf = kept
    for f in range(nf):
        board[flames[f, 0], flames[f, 1]] = FLAMES

    # 2. living agents choose a target (only walls and the edge stop them here)
    alive_start = np.zeros(4, dtype=np.bool_)
    want_r = np.empty(4, dtype=np.int64)
    want_c = np.empty(4, dtype=np.int64)
    for a in range(4):
        want_r[a] = agents[a, ROW]
        want_c[a] = agents[a, COL]
        if agents[a, ALIVE] == 0:
            continue
        alive_start[a] = True
        r = agents[a, ROW]
        c = agents[a, COL]
        board[r, c] = PASSAGE
        act = actions[a]
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
        elif 1 <= act <= 4:
            tr = r + dr[act]
            tc = c + dc[act]
            if 0 <= tr < n and 0 <= tc < n and not _is_wall(board[tr, tc]):
                want_r[a] = tr
                want_c[a] = tc

    # 3. moving bombs choose a target (walls, power-ups and the edge stop them)
    bwant_r = np.empty(nb, dtype=np.int64)
    bwant_c = np.empty(nb, dtype=np.int64)
    for b in range(nb):
        r = bombs[b, 0]
        c = bombs[b, 1]
        bwant_r[b] = r
        bwant_c[b] = c
        board[r, c] = PASSAGE
        d = bombs[b, DIRECTION]
        if d != 0:
            tr = r + dr[d]
            tc = c + dc[d]
            if 0 <= tr < n and 0 <= tc < n and not _is_powerup(board[tr, tc]) and not _is_wall(board[tr, tc]):
                bwant_r[b] = tr
                bwant_c[b] = tc

    # 4. swaps across one edge
    cross_owner = np.full(2 * n * n, -1, dtype=np.int64)
    cross_agent = np.zeros(2 * n * n, dtype=np.bool_)
    for a in range(4):
        if not alive_start[a]:
            continue
        r = agents[a, ROW]
        c = agents[a, COL]
        if want_r[a] != r or want_c[a] != c:
            key = _crossing(r, c, want_r[a], want_c[a])
            if cross_owner[key] >= 0:
                want_r[a] = r
                want_c[a] = c
                other = cross_owner[key]
                want_r[other] = agents[other, ROW]
                want_c[other] = agents[other, COL]
            else:
                cross_owner[key] = a
                cross_agent[key] = True
    for b in range(nb):
        r = bombs[b, 0]
        c = bombs[b, 1]
        if bwant_r[b] != r or bwant_c[b] != c:
            key = _crossing(r, c, bwant_r[b], bwant_c[b])
            if cross_owner[key] >= 0:
                bwant_r[b] = r
                bwant_c[b] = c
                if not cross_agent[key]:
                    other = cross_owner[key]
                    bwant_r[other] = bombs[other, 0]
                    bwant_c[other] = bombs[other, 1]
            else:
                cross_owner[key] = b
                cross_agent[key] = False

    # 5. same-cell conflicts; counts only ever grow
    aocc = np.zeros((n, n), dtype=np.int64)
    bocc = np.zeros((n, n), dtype=np.int64)
    for a in range(4):
        if alive_start[a]:
            aocc[want_r[a], want_c[a]] += 1
    for b in range(nb):
        bocc[bwant_r[b], bwant_c[b]] += 1
    change = True
    while change:
        change = False
        for a in range(4):
            if not alive_start[a]:
                continue
            r = agents[a, ROW]
            c = agents[a, COL]
            tr = want_r[a]
            tc = want_c[a]
            if (tr != r or tc != c) and (aocc[tr, tc] > 1 or bocc[tr, tc] > 1):
                want_r[a] = r
                want_c[a] = c
                aocc[r, c] += 1
                change = True
        for b in range(nb):
            r = bombs[b, 0]
            c = bombs[b, 1]
            tr = bwant_r[b]
            tc = bwant_c[b]
            if (tr != r or tc != c) and (bocc[tr, tc] > 1 or aocc[tr, tc] > 1):
                bwant_r[b] = r
                bwant_c[b] = c
                bocc[r, c] += 1
                change = True

    # 6. agents meeting bombs: kicks and bounces (go-backs applied after the loop)
    kicked_by = np.full(max(nb, 1), -1, dtype=np.int64)  # bomb -> agent that kicked it
    kicked = np.full(4, -1, dtype=np.int64)  # agent -> bomb it kicked
    delayed_b = np.empty((nb, 3), dtype=np.int64)
    delayed_a = np.empty((nb, 3), dtype=np.int64)
    ndb = 0
    nda = 0
    for b in range(nb):
        tr = bwant_r[b]
        tc = bwant_c[b]
        if aocc[tr, tc] == 0:
            continue
        a = -1
        for k in range(4):
            if alive_start[k] and want_r[k] == tr and want_c[k] == tc:
                a = k
                break
        if a < 0:
            continue
        ar = agents[a, ROW]
        ac = agents[a, COL]
        if tr == ar and tc == ac:
            if tr != bombs[b, 0] or tc != bombs[b, 1]:
                delayed_b[ndb, 0] = b
                delayed_b[ndb, 1] = bombs[b, 0]
                delayed_b[ndb, 2] = bombs[b, 1]
                ndb += 1
            continue
        if agents[a, CAN_KICK] == 0:
            delayed_b[ndb, 0] = b
            delayed_b[ndb, 1] = bombs[b, 0]
            delayed_b[ndb, 2] = bombs[b, 1]
            ndb += 1
            delayed_a[nda, 0] = a
            delayed_a[nda, 1] = ar
            delayed_a[nda, 2] = ac
            nda += 1
            continue
        d = actions[a]
        kr = tr + dr[d]
        kc = tc + dc[d]
        if (0 <= kr < n and 0 <= kc < n and aocc[kr, kc] == 0 and bocc[kr, kc] == 0
                and not _is_powerup(board[kr, kc]) and not _is_wall(board[kr, kc])):
            bocc[tr, tc] = 0
            delayed_b[ndb, 0] = b
            delayed_b[ndb, 1] = kr
            delayed_b[ndb, 2] = kc
            ndb += 1
            kicked_by[b] = a
            kicked[a] = b
            bombs[b, DIRECTION] = d
        else:
            delayed_b[ndb, 0] = b
            delayed_b[ndb, 1] = bombs[b, 0]
            delayed_b[ndb, 2] = bombs[b, 1]
            ndb += 1
            delayed_a[nda, 0] = a
            delayed_a[nda, 1] = ar
            delayed_a[nda, 2] = ac
            nda += 1
    for i in range(ndb):
        b = delayed_b[i, 0]
        bwant_r[b] = delayed_b[i, 1]
        bwant_c[b] = delayed_b[i, 2]
        bocc[delayed_b[i, 1], delayed_b[i, 2]] += 1
        change = True
    for i in range(nda):
        a = delayed_a[i, 0]
        want_r[a] = delayed_a[i, 1]
        want_c[a] = delayed_a[i, 2]
        aocc[delayed_a[i, 1], delayed_a[i, 2]] += 1
        change = True

    # 7. late conflicts: agents and bombs may share a cell only if neither moved
    while change:
        change = False
        for a in range(4):
            if not alive_start[a]:
                continue
            r = agents[a, ROW]
            c = agents[a, COL]
            tr = want_r[a]
            tc = want_c[a]
            if (tr != r or tc != c) and (aocc[tr, tc] > 1 or bocc[tr, tc] != 0):
                b = kicked[a]
                if b >= 0:
                    bwant_r[b] = bombs[b, 0]
                    bwant_c[b] = bombs[b, 1]
                    bocc[bombs[b, 0], bombs[b, 1]] += 1
                    kicked_by[b] = -1
                    kicked[a] = -1
                want_r[a] = r
                want_c[a] = c
                aocc[r, c] += 1
                change = True
        for b in range(nb):
            r = bombs[b, 0]
            c = bombs[b, 1]
            tr = bwant_r[b]
            tc = bwant_c[b]
            if tr == r and tc == c and kicked_by[b] < 0:
                continue
            if bocc[tr, tc] > 1 or aocc[tr, tc] != 0:
                bwant_r[b] = r
                bwant_c[b] = c
                bocc[r, c] += 1
                a = kicked_by[b]
                if a >= 0:
                    want_r[a] = agents[a, ROW]
                    want_c[a] = agents[a, COL]
                    aocc[agents[a, ROW], agents[a, COL]] += 1
                    kicked[a] = -1
                    kicked_by[b] = -1
                change = True

    # 8. apply: bombs move or stop; agents move and pick up power-ups
    for b in range(nb):
        if bwant_r[b] == bombs[b, 0] and bwant_c[b] == bombs[b, 1] and kicked_by[b] < 0:
            bombs[b, DIRECTION] = 0
        else:
            bombs[b, 0] = bwant_r[b]
            bombs[b, 1] = bwant_c[b]
    for a in range(4):
        if not alive_start[a]:
            continue
        if want_r[a] != agents[a, ROW] or want_c[a] != agents[a, COL]:
            act = actions[a]
            r = agents[a, ROW] + dr[act]
            c = agents[a, COL] + dc[act]
            agents[a, ROW] = r
            agents[a, COL] = c
            code = board[r, c]
            if code == EXTRA_BOMB:
                agents[a, AMMO] = min(agents[a, AMMO] + 1, MAX_AMMO)
            elif code == INCR_RANGE:
                agents[a, BLAST] = min(agents[a, BLAST] + 1, max_blast)
            elif code == KICK:
                agents[a, CAN_KICK] = 1

    # 9. bombs tick; a bomb on flames goes off
    exploded = np.zeros((n, n), dtype=np.bool_)
    pending = False
    for b in range(nb):
        bombs[b, LIFE] -= 1
        if bombs[b, LIFE] == 0:
            pending = True
        elif board[bombs[b, 0], bombs[b, 1]] == FLAMES:
            bombs[b, LIFE] = 0
            pending = True

    # 10. explosions and chains
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
            r0 = bombs[b, 0]
            c0 = bombs[b, 1]
            strength = bombs[b, BLAST_STRENGTH]
            for d in range(1, 5):  # up, down (from the bomb's own cell), left, right
                start = 0 if d == 2 else 1
                for i in range(start, strength):
                    r = r0 + dr[d] * i
                    c = c0 + dc[d] * i
                    if r < 0 or c < 0 or r >= n or c >= n:
                        break
                    code = board[r, c]
                    if code == RIGID:
                        break
                    exploded[r, c] = True
                    if code == WOOD:
                        break
        nb = kept
        for b in range(nb):
            if exploded[bombs[b, 0], bombs[b, 1]]:
                bombs[b, LIFE] = 0
                pending = True

    # 11. redraw bombs, add new flames in row-major order, redraw all flames
    for b in range(nb):
        board[bombs[b, 0], bombs[b, 1]] = BOMB
    if n_exploded:
        for r in range(n):
            for c in range(n):
                if exploded[r, c]:
                    flames[nf, 0] = r
                    flames[nf, 1] = c
                    flames[nf, 2] = 2
                    nf += 1
    for f in range(nf):
        board[flames[f, 0], flames[f, 1]] = FLAMES

    # 12. agents on flames die; the others are drawn
    for a in range(4):
        if not alive_start[a]:
            continue
        r = agents[a, ROW]
        c = agents[a, COL]
        if board[r, c] == FLAMES:
            agents[a, ALIVE] = 0
        else:
            board[r, c] = AGENT_0 + a

    counts[0] = nb
    counts[1] = nf
    return n_exploded
