"""The decision of the scripted "simple" Pommerman agent, compiled (see :mod:`envs.pommerman.agents`).

Behaviour (the reference SimpleAgent's, in its order of priorities):

1. A breadth-first search from the agent over the cells within Manhattan distance 10
   (fog, rigid walls and flames left out) gives distances and first steps; it only walks
   on passages, power-ups and friendly agents, and breaks ties between equally short
   paths at random.
2. If a bomb it can reach within its blast strength lies on its row or column, it
   flees: away from the bomb's lines, or, when all four directions are threatened,
   in the first direction from which it would not be trapped on the bomb's lines.
3. Next to an enemy, it lays a bomb if it could still escape.
4. It walks towards an enemy within 3 steps (half the time not repeating its last
   direction), a power-up within 2, or lays a bomb next to wood (or waits when it
   could not escape), or walks towards wood within 2 steps when that is safe.
5. Otherwise it wanders: a random safe, passable direction that does not go back to the
   last 6 places it wandered from, moving rather than stopping when it can.

The tie-breaking coin flips come from a SplitMix64 stream in ``rng`` (one uint64;
:func:`envs.pommerman.board.uniform`), so
each agent is reproducible from its seed.
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit
from envs.pommerman.board import uniform

__all__ = ["decide", "decide_batch"]

_INF = 1 << 30
DEPTH = 10
RECENT = 6
# action codes: 0 stop, 1 up, 2 down, 3 left, 4 right, 5 bomb
_DR = (0, -1, 1, 0, 0)
_DC = (0, 0, 0, -1, 1)


@njit
def _passable(code, enemies):
    if not (code == 0 or 6 <= code <= 8 or 10 <= code <= 13):
        return False
    for e in enemies:
        if code == e:
            return False
    return True


@njit
def _direction(r, c, nr, nc):
    if r == nr:
        return 4 if c < nc else 3
    return 2 if r < nr else 1


@njit
def _first_step(r, c, tr, tc, prev_r, prev_c):
    """The direction of the first step on the recorded path from (r, c) to (tr, tc)."""
    while not (prev_r[tr, tc] == r and prev_c[tr, tc] == c):
        pr = prev_r[tr, tc]
        tc = prev_c[tr, tc]
        tr = pr
    return _direction(r, c, tr, tc)


@njit
def _nearest(codes, dist, board, radius):
    """The last-found nearest cell holding one of ``codes`` within ``radius`` (codes in order, cells row-major)."""
    n = board.shape[0]
    best_r = -1
    best_c = -1
    best = _INF
    for code in codes:
        for r in range(n):
            for c in range(n):
                d = dist[r, c]
                if d >= 0 and board[r, c] == code and d <= radius and d <= best:
                    best_r = r
                    best_c = c
                    best = d
    return best_r, best_c


@njit
def _can_escape(dist, board, r, c, blast):
    """Whether a passage is reachable off the agent's lines or beyond its blast."""
    n = board.shape[0]
    for pr in range(n):
        for pc in range(n):
            d = dist[pr, pc]
            if d < 0 or board[pr, pc] != 0 or d == _INF:
                continue
            if d > blast or (pr != r and pc != c):
                return True
    return False


@njit
def _stuck(sr, sc, reach, board, enemies):
    """Whether every cell reachable from (sr, sc) stays on its lines within ``reach`` steps."""
    n = board.shape[0]
    seen = np.zeros((n, n), dtype=np.bool_)
    stack = np.empty(n * n * 4, dtype=np.int64)
    stack[0] = sr * n + sc
    top = 1
    while top > 0:
        top -= 1
        r = stack[top] // n
        c = stack[top] % n
        if seen[r, c]:
            continue
        seen[r, c] = True
        if (r != sr and c != sc) or abs(r - sr) + abs(c - sc) > reach:
            return False
        for k in range(1, 5):
            nr = r + _DR[k]
            nc = c + _DC[k]
            if 0 <= nr < n and 0 <= nc < n and not seen[nr, nc] and _passable(board[nr, nc], enemies):
                stack[top] = nr * n + nc
                top += 1
    return True


@njit
def _safe_step(r, c, blasts, n):
    """Whether cell (r, c) is off the lines of every bomb within its blast strength."""
    for br in range(n):
        for bc in range(n):
            s = blasts[br, bc]
            if s > 0 and ((r == br and abs(bc - c) <= s) or (c == bc and abs(br - r) <= s)):
                return False
    return True


@njit
def _search(board, r, c, enemies, rng):
    """Breadth-first distances and recorded first steps from (r, c), ties broken by coin flips.

    ``dist`` is -1 for cells left out (beyond Manhattan distance 10, fog, rigid walls,
    flames) and ``_INF`` for cells considered but not reached.
    """
    n = board.shape[0]
    dist = np.full((n, n), -1, dtype=np.int64)
    prev_r = np.full((n, n), -1, dtype=np.int64)
    prev_c = np.full((n, n), -1, dtype=np.int64)
    for i in range(max(0, r - DEPTH), min(n, r + DEPTH)):
        for j in range(max(0, c - DEPTH), min(n, c + DEPTH)):
            code = board[i, j]
            if abs(i - r) + abs(j - c) > DEPTH or code == 5 or code == 1 or code == 4:
                continue
            dist[i, j] = _INF
    queue = np.empty(n * n * 4, dtype=np.int64)
    head = 0
    tail = 0
    if dist[r, c] >= 0:
        dist[r, c] = 0
        queue[tail] = r * n + c
        tail += 1
    while head < tail:
        pr = queue[head] // n
        pc = queue[head] % n
        head += 1
        if not _passable(board[pr, pc], enemies):
            continue
        val = dist[pr, pc] + 1
        for k in range(1, 5):
            nr = pr + _DR[k]
            nc = pc + _DC[k]
            if not (0 <= nr < n and 0 <= nc < n) or dist[nr, nc] < 0:
                continue
            if val < dist[nr, nc]:
                dist[nr, nc] = val
                prev_r[nr, nc] = pr
                prev_c[nr, nc] = pc
                queue[tail] = nr * n + nc
                tail += 1
            elif val == dist[nr, nc] and uniform(rng) < 0.5:
                prev_r[nr, nc] = pr
                prev_c[nr, nc] = pc
    return dist, prev_r, prev_c


@njit
def _threats(blasts, dist, r, c, threat, order):
    """Bombs threatening the agent's lines: the largest blast per direction in ``threat``, the
    directions in first-seen order in ``order``; returns how many directions are threatened."""
    n = blasts.shape[0]
    n_threat = 0
    for br in range(n):
        for bc in range(n):
            s = blasts[br, bc]
            if s <= 0:
                continue
            d = dist[br, bc]
            if d < 0 or d > s:
                continue
            if br == r and bc == c:
                dirs = (4, 3, 1, 2)
                m = 4
            elif br == r:
                dirs = (4 if c < bc else 3, 0, 0, 0)
                m = 1
            elif bc == c:
                dirs = (2 if r < br else 1, 0, 0, 0)
                m = 1
            else:
                m = 0
                dirs = (0, 0, 0, 0)
            for i in range(m):
                k = dirs[i]
                if threat[k] == 0:
                    order[n_threat] = k
                    n_threat += 1
                threat[k] = max(threat[k], s)
    return n_threat


@njit
def _flee(board, r, c, enemies, threat, order, n_threat, rng):
    """The move away from the threatening bombs' lines (see the module's rule 2)."""
    n = board.shape[0]
    if n_threat == 4:
        trapped = board.copy()
        trapped[r, c] = 3
        for i in range(4):
            k = order[i]
            nr = r + _DR[k]
            nc = c + _DC[k]
            if not (0 <= nr < n and 0 <= nc < n) or not _passable(trapped[nr, nc], enemies):
                continue
            if not _stuck(nr, nc, threat[k], trapped, enemies):
                return k
        return 0
    safe = np.zeros(5, dtype=np.int64)
    n_safe = 0
    off = np.zeros(5, dtype=np.bool_)
    for k in (1, 2, 3, 4):
        nr = r + _DR[k]
        nc = c + _DC[k]
        if not (0 <= nr < n and 0 <= nc < n):
            off[k] = True
            continue
        if threat[k] > 0:
            continue
        if _passable(board[nr, nc], enemies) or board[nr, nc] == 5:
            safe[n_safe] = k
            n_safe += 1
    if n_safe == 0:
        for i in range(n_threat):
            if not off[order[i]]:
                safe[n_safe] = order[i]
                n_safe += 1
    if n_safe == 0:
        return 0
    return safe[int(uniform(rng) * n_safe)]


@njit
def _seek(board, blasts, dist, prev_r, prev_c, r, c, enemies, ammo, blast, memory, rng):
    """Rules 3-4: bomb an adjacent enemy, walk to an enemy, a power-up or wood; -1 when none applies."""
    n = board.shape[0]
    if ammo >= 1:
        for e in enemies:
            adjacent = False
            for i in range(n):
                for j in range(n):
                    if dist[i, j] == 1 and board[i, j] == e:
                        adjacent = True
            if adjacent:
                if _can_escape(dist, board, r, c, blast):
                    return 5
                break
    tr, tc = _nearest(enemies, dist, board, 3)
    if tr >= 0:
        k = _first_step(r, c, tr, tc, prev_r, prev_c)
        if memory[1] != k or uniform(rng) < 0.5:
            memory[1] = k
            return k
    tr, tc = _nearest(np.array([6, 7, 8]), dist, board, 2)
    if tr >= 0:
        return _first_step(r, c, tr, tc, prev_r, prev_c)
    wood = np.array([2])
    tr, tc = _nearest(wood, dist, board, 1)
    if tr >= 0:
        return 5 if ammo >= 1 and _can_escape(dist, board, r, c, blast) else 0
    tr, tc = _nearest(wood, dist, board, 2)
    if tr >= 0:
        k = _first_step(r, c, tr, tc, prev_r, prev_c)
        if _safe_step(r + _DR[k], c + _DC[k], blasts, n):
            return k
    return -1


@njit
def _wander(board, blasts, r, c, enemies, memory, rng):
    """Rule 5: a random safe, passable direction away from the last places it wandered from."""
    n = board.shape[0]
    options = np.zeros(5, dtype=np.int64)
    n_opt = 0
    for k in (0, 3, 4, 1, 2):
        nr = r + _DR[k]
        nc = c + _DC[k]
        if 0 <= nr < n and 0 <= nc < n and _passable(board[nr, nc], enemies) and _safe_step(nr, nc, blasts, n):
            options[n_opt] = k
            n_opt += 1
    fresh = np.zeros(5, dtype=np.int64)
    n_fresh = 0
    count = min(memory[0], RECENT)
    for i in range(n_opt):
        k = options[i]
        nr = r + _DR[k]
        nc = c + _DC[k]
        visited = False
        for j in range(count):
            if memory[2 + 2 * j] == nr and memory[3 + 2 * j] == nc:
                visited = True
        if not visited:
            fresh[n_fresh] = k
            n_fresh += 1
    if n_fresh > 0:
        options = fresh
        n_opt = n_fresh
    if n_opt > 1:
        kept = 0
        for i in range(n_opt):
            if options[i] != 0:
                options[kept] = options[i]
                kept += 1
        n_opt = kept
    slot = memory[0] % RECENT
    memory[2 + 2 * slot] = r
    memory[3 + 2 * slot] = c
    memory[0] += 1
    if n_opt == 0:
        return 0
    return options[int(uniform(rng) * n_opt)]


@njit
def decide(board, blasts, r, c, enemies, ammo, blast, memory, rng):
    """One action (0-5) for the agent at (r, c); ``memory`` int64[2 + 2 * RECENT] holds
    ``[count, previous direction, recent rows and columns...]`` and is updated in place."""
    dist, prev_r, prev_c = _search(board, r, c, enemies, rng)
    threat = np.zeros(5, dtype=np.int64)
    order = np.zeros(4, dtype=np.int64)
    n_threat = _threats(blasts, dist, r, c, threat, order)
    if n_threat > 0:
        return _flee(board, r, c, enemies, threat, order, n_threat, rng)
    move = _seek(board, blasts, dist, prev_r, prev_c, r, c, enemies, ammo, blast, memory, rng)
    if move >= 0:
        return move
    return _wander(board, blasts, r, c, enemies, memory, rng)


@njit
def decide_batch(boards, bombs, counts, agents, steps, team, partial, seats, memory, rngs, view, blasts, out):
    """:func:`decide` for every chosen living agent of every game of a batch, each on its own view.

    ``seats`` (games, 4) bool picks the agents; ``memory`` (games, 4, 2 + 2 * RECENT) and
    ``rngs`` (games, 4, 1) are each agent's own, as a single agent keeps them; a game at
    step 0 starts with empty memories. ``view``/``blasts`` are (11, 11) working grids.
    Writes the raw moves into ``out`` (games, 4); 0 for agents not asked.
    """
    n = boards.shape[1]
    enemies = np.empty(3, np.int64)
    for g in range(boards.shape[0]):
        if steps[g] == 0:
            memory[g] = 0
        for me in range(4):
            out[g, me] = 0
            if not seats[g, me] or agents[g, me, 0] == 0:
                continue
            r = np.int64(agents[g, me, 1])  # the single agent's types: one compiled decide serves both
            c = np.int64(agents[g, me, 2])
            blasts[:] = 0
            for b in range(counts[g, 0]):
                blasts[bombs[g, b, 0], bombs[g, b, 1]] = bombs[g, b, 4]
            for i in range(n):
                for j in range(n):
                    if partial and (abs(i - r) > 4 or abs(j - c) > 4):
                        view[i, j] = 5
                        blasts[i, j] = 0
                    else:
                        view[i, j] = boards[g, i, j]
            k = 0
            for e in range(4):
                if e != me and (not team or e != (me + 2) % 4):
                    enemies[k] = 10 + e
                    k += 1
            if team:
                enemies[2] = 9
            ammo, strength = np.int64(agents[g, me, 3]), np.int64(agents[g, me, 4])
            out[g, me] = decide(view, blasts, r, c, enemies, ammo, strength, memory[g, me], rngs[g, me])
