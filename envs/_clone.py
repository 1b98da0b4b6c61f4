"""A twin of a board game in progress, for planners (``clone()`` of the turn-based envs)."""

from __future__ import annotations

import copy
from typing import TypeVar

from arena.env import MultiAgentEnv

__all__ = ["clone_game"]

E = TypeVar("E", bound=MultiAgentEnv)


def clone_game(env: E, *copied: str) -> E:
    """An independent copy of ``env``, game in progress included.

    The twin shares what never changes during a game (options, spaces) and gets its own
    ``agents`` list, its own random generator (a deep copy, so both draw the same numbers
    from here on) and a ``.copy()`` of each attribute named in ``copied`` (the lists and
    arrays a step writes into). No ``__init__`` or ``__getstate__`` runs.

    Args:
        env: the env to copy.
        copied: names of the attributes that a step changes in place.

    Example:
        >>> import envs
        >>> env = envs.make("tic_tac_toe")
        >>> _ = env.reset(seed=0)
        >>> twin = clone_game(env, "_board")
        >>> twin._board is env._board, twin.agents == env.agents
        (False, True)
    """
    twin = object.__new__(type(env))
    twin.__dict__.update(env.__dict__)
    for name in copied:
        setattr(twin, name, getattr(env, name).copy())
    twin.agents = list(env.agents)
    twin._np_random = copy.deepcopy(env._np_random)
    return twin
