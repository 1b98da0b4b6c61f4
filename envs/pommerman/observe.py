"""The reference's per-agent observation: its gymnasium space and the grids behind it."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.pommerman._jit import njit
from envs.pommerman.core import AGENT_0, FOG, SIZE, flame_life, step_into

__all__ = ["GRIDS", "VIEW", "observation_space", "observe_grids", "advance"]

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


@njit
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


@njit
def advance(board, items, flames, agents, bombs, counts, actions, max_blast, partial, out, scratch):
    """One :func:`~envs.pommerman.core.step_into`, then :func:`observe_grids` into ``out``, in one call.

    Returns the living agents after the step as a bit mask (bit i: agent i).
    """
    alive = step_into(board, items, flames, agents, bombs, counts, actions, max_blast, scratch)
    observe_grids(board, agents, bombs, flames, counts, partial, out)
    return alive
