"""The reference's per-agent observation: its gymnasium space and the grids behind it."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.pommerman._jit import njit, njit_inline, njit_unreferenced
from envs.pommerman.board import START_POSITIONS, draw_board, seed_stream
from envs.pommerman.core import AGENT_0, BOMB_CAP, FOG, SIZE, flame_life, step_into
from envs.pommerman.state import PACKED_LAYOUT

__all__ = ["GRIDS", "VIEW", "observation_space", "observe_grids", "new_work", "advance", "deal", "observe_state"]

#: The grid keys of an observation, in the order of the planes :func:`observe_grids` fills.
GRIDS = ("board", "bomb_blast_strength", "bomb_life", "bomb_moving_direction", "flame_life")
#: Team and radio modes see the cells within this many rows and columns of the agent.
VIEW = 4
MAX_BLAST = 10
MAX_AMMO = 10


def observation_space(mode: str, max_steps: int) -> spaces.Dict:
    """The ``Dict`` space of one agent's observation in ``mode``.

    Grids are uint8 (the reference uses float64 for all but the board; the values are
    the same small whole numbers). ``alive`` is one flag per agent id (the reference
    lists the codes 10-13 of the living agents). The reference's constant ``game_env``
    string is the env attribute ``game_env``, not part of the observation.
    """
    grid = (SIZE, SIZE)
    keys: dict[str, spaces.Space] = {
        "board": spaces.Box(0, AGENT_0 + 3, grid, np.uint8),
        "bomb_blast_strength": spaces.Box(0, MAX_BLAST, grid, np.uint8),
        "bomb_life": spaces.Box(0, 10, grid, np.uint8),
        "bomb_moving_direction": spaces.Box(0, 4, grid, np.uint8),
        "flame_life": spaces.Box(0, 3, grid, np.uint8),
        "position": spaces.Box(0, SIZE - 1, (2,), np.int64),
        "ammo": spaces.Discrete(MAX_AMMO + 1),
        "blast_strength": spaces.Discrete(MAX_BLAST + 1),
        "can_kick": spaces.Discrete(2),
        "teammate": spaces.Discrete(5, start=AGENT_0 - 1),
        "enemies": spaces.MultiDiscrete([5, 5, 5], start=[AGENT_0 - 1] * 3),
        "alive": spaces.MultiBinary(4),
        "game_type": spaces.Discrete(3, start=1),
        "step_count": spaces.Discrete(max_steps + 1),
    }
    if mode == "radio":
        keys["message"] = spaces.MultiDiscrete([8, 8])
    return spaces.Dict(keys)


@njit_unreferenced
def observe_grids(board, agents, bombs, flames, counts, partial, out):
    """Fill ``out`` (k, 5, 11, 11) uint8 with each viewer's grids (k = 4 if ``partial`` else 1).

    Later bombs in list order overwrite earlier ones on a shared cell, as in the
    reference; the newest flame on a cell, with the longest life, decides. With ``partial``,
    cells more than :data:`VIEW` rows or columns away from agent k's position are fog.
    """
    n = board.shape[0]
    out[:] = 0
    k = out.shape[0]
    for v in range(k):
        if partial:
            pr = agents[v, 1]
            pc = agents[v, 2]
            for r in range(n):
                for c in range(n):
                    if abs(r - pr) <= VIEW and abs(c - pc) <= VIEW:
                        out[v, 0, r, c] = board[r, c]
                    else:
                        out[v, 0, r, c] = FOG
        else:
            pr = 0
            pc = 0
            for r in range(n):
                for c in range(n):
                    out[v, 0, r, c] = board[r, c]
        for b in range(counts[0]):
            r = bombs[b, 0]
            c = bombs[b, 1]
            if partial and (abs(r - pr) > VIEW or abs(c - pc) > VIEW):
                continue
            out[v, 1, r, c] = bombs[b, 4]
            out[v, 2, r, c] = bombs[b, 3]
            out[v, 3, r, c] = bombs[b, 5]
        if counts[1]:
            for r in range(n):
                for c in range(n):
                    if flames[r, c] and not (partial and (abs(r - pr) > VIEW or abs(c - pc) > VIEW)):
                        out[v, 4, r, c] = flame_life(flames[r, c])


# The single env's compiled calls take a packed state (state.packed_state) and one work buffer
# (the rules' scratch and the actions): numba's dispatch of each array argument, and more of a
# tuple of them, costs more than the compiled work of a typical step (docs/performance.md).
# Inside, slices and reshapes of a buffer are cheap, a change of dtype (view) less so: one per dtype.
_AT = {name: offset for name, _, _, offset in PACKED_LAYOUT}
_AGENTS, _BOMBS, _COUNTS, _RADIO = _AT["agents"], _AT["bombs"], _AT["counts"], _AT["radio"]
_CELLS = SIZE * SIZE
# the work buffer: core.new_scratch's int64 arrays and the actions, its int16 arrays, its bools
_WANT, _BWANT, _DELAYED, _ACTIONS = 0, 8, 8 + 2 * BOMB_CAP, 8 + 2 * BOMB_CAP + 4 * (BOMB_CAP + 4)
_INT64S = _ACTIONS + 4  # int64 slots
_CROSS, _AOCC, _BOCC, _KICKED_BY = 0, 2 * _CELLS, 3 * _CELLS, 4 * _CELLS
_KICKED = _KICKED_BY + BOMB_CAP
_INT16S = _KICKED + 4
_INT16_AT = 8 * _INT64S
_BOOL_AT = _INT16_AT + 2 * _INT16S
_CROSS_AGENT, _EXPLODED, _ALIVE = 0, 2 * _CELLS, 3 * _CELLS
WORK_BYTES = _BOOL_AT + 3 * _CELLS + 4


def new_work() -> np.ndarray:
    """The work buffer of :func:`advance` (reusable: every call overwrites it)."""
    return np.zeros(WORK_BYTES, np.uint8)


@njit_inline
def unpack_state(buf):
    """The arrays of a packed state (the layout of :func:`~envs.pommerman.state.packed_state`)."""
    small = buf[_AGENTS:_COUNTS].view(np.int8)
    wide = buf[_COUNTS : _RADIO + 64].view(np.int64)
    return (
        buf[:_CELLS].reshape((SIZE, SIZE)),
        buf[_CELLS : 2 * _CELLS].reshape((SIZE, SIZE)),
        buf[2 * _CELLS : 3 * _CELLS].reshape((SIZE, SIZE)),
        small[:24].reshape((4, 6)),
        small[_BOMBS - _AGENTS : _BOMBS - _AGENTS + 6 * BOMB_CAP].reshape((BOMB_CAP, 6)),
        wide[:2],
        wide[2:].reshape((4, 2)),
    )


@njit_inline
def unpack_work(work):
    """The scratch tuple of :func:`~envs.pommerman.core.step_into` and the actions array, from ``work``."""
    wide = work[:_INT16_AT].view(np.int64)
    short = work[_INT16_AT:_BOOL_AT].view(np.int16)
    flags = work[_BOOL_AT:].view(np.bool_)
    scratch = (
        wide[_WANT:_BWANT].reshape((4, 2)),
        wide[_BWANT:_DELAYED].reshape((BOMB_CAP, 2)),
        short[_CROSS:_AOCC],
        flags[_CROSS_AGENT:_EXPLODED],
        short[_AOCC:_BOCC],
        short[_BOCC:_KICKED_BY],
        short[_KICKED_BY:_KICKED],
        short[_KICKED:_INT16S],
        wide[_DELAYED:_ACTIONS].reshape((BOMB_CAP + 4, 4)),
        flags[_EXPLODED:_ALIVE],
        flags[_ALIVE : _ALIVE + 4],
    )
    return scratch, wide[_ACTIONS:_INT64S]


@njit_inline
def _observe_packed(board, agents, bombs, flames, counts, out):
    """:func:`observe_grids` into ``out`` (5k, 11, 11): k = 4 views with fog, 1 without."""
    k = out.shape[0] // 5
    observe_grids(board, agents, bombs, flames, counts, k > 1, out.reshape((k, 5, SIZE, SIZE)))


@njit_unreferenced
def advance(buf, work, code, out):
    """One :func:`~envs.pommerman.core.step_into` of the packed state ``buf``, then its grids into ``out``.

    ``code`` holds the four actions (3 bits each, agent 0 lowest) and, from bit 12, the blast
    cap; ``out`` is (5, 11, 11) uint8 (one shared view) or (20, 11, 11) (four fogged views).
    Returns the living agents after the step as a bit mask (bit i: agent i).
    """
    board, items, flames, agents, bombs, counts, _ = unpack_state(buf)
    scratch, actions = unpack_work(work)
    for a in range(4):
        actions[a] = code >> (3 * a) & 7
    cells = buf[: 3 * _CELLS]  # the three grids, flat, as the rules take them
    alive = step_into(
        cells[:_CELLS],
        cells[_CELLS : 2 * _CELLS],
        cells[2 * _CELLS :],
        agents,
        bombs,
        counts,
        actions,
        code >> 12,
        scratch,
    )
    _observe_packed(board, agents, bombs, flames, counts, out)
    return alive


@njit
def deal(buf, rng, seed, out):
    """Draw a fresh game into the (zeroed) packed state ``buf`` from the stream ``rng`` and its grids into ``out``.

    ``seed >= 0`` restarts the stream from ``seed`` first (:func:`~envs.pommerman.board.seed_stream`).
    """
    if seed >= 0:
        seed_stream(rng, seed)
    board, items, flames, agents, bombs, counts, _ = unpack_state(buf)
    draw_board(rng, board, items)
    for a in range(4):
        agents[a, 0] = 1
        agents[a, 1] = START_POSITIONS[a][0]
        agents[a, 2] = START_POSITIONS[a][1]
        agents[a, 3] = 1
        agents[a, 4] = 2
        agents[a, 5] = 0
    _observe_packed(board, agents, bombs, flames, counts, out)


@njit_unreferenced
def observe_state(buf, out):
    """The grids of the packed state ``buf`` into ``out`` (as :func:`advance` draws them)."""
    board, _, flames, agents, bombs, counts, _ = unpack_state(buf)
    _observe_packed(board, agents, bombs, flames, counts, out)
