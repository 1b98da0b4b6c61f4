"""Scripted Pommerman survivors that never bomb: ``pommerman_evader`` and ``pommerman_shadow``.

Three ``pommerman_simple`` in a free-for-all kill each other (and themselves) off; a bomber that
only survives finishes first whenever they do. Standing still behind the action filter
(``pommerman_safe_moves``) already finishes first about as often as an equal player (a quarter of
the games: docs/performance.md, "How far surviving alone goes"); most of its deaths are in a dead
end, where an enemy's bomb at the way out leaves no move that survives. :class:`PommermanEvaderAgent`
avoids them: among the moves the filter allows, it takes the one whose cell has the most room (cells
reachable within ``depth`` steps, not counting a way back through the cell it stands on, so that a
dead end entered from here counts as the dead end only) while an enemy is within ``radius`` steps, then the one farthest
from the nearest enemy, then stopping; coin flips break what is left. It never lays a bomb. Room is counted by
:func:`envs.pommerman.room.room`, the compiled count that ``pommerman_room_planes`` computes its planes with
(:func:`room` is importable from here too).

With ``approach=k`` it also walks towards the nearest enemy while that enemy is more than ``k``
steps away (after room, before stopping), so it shadows the enemies at a distance instead of
waiting for them. ``pommerman_simple`` lays bombs where an enemy is near, and so blows itself and
its own team up more often when one stays close: the shadow (``approach=4``) finishes first in FFA
and wins in team mode far more often than the evader (docs/performance.md, "Pommerman free-for-all":
"Staying near the enemies does better than waiting for them").

It reads the filter's mask from the observation (``"safe_moves"``), so it plays behind
``pommerman_safe_moves``; the registered names ``pommerman_evader`` (:func:`pommerman_evader`) and
``pommerman_shadow`` (:func:`pommerman_shadow`, ``approach=4``) are the agent behind that filter.

Example:
    >>> import envs
    >>> from arena import play
    >>> env = envs.make("pommerman", max_steps=40)
    >>> from arena import make_agent
    >>> agents = [pommerman_evader(seed=0)] + [make_agent("pommerman_simple") for _ in range(3)]
    >>> play(env, agents, seed=1).length <= 40
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import InvalidValueError, SpaceMismatchError
from arena.plugins import make_interface
from envs.pommerman.room import OPEN_CODES, room

__all__ = ["PommermanEvaderAgent", "pommerman_evader", "pommerman_shadow", "room"]

_SIZE = 11
_DR = (0, -1, 1, 0, 0)  # stop, up, down, left, right
_DC = (0, 0, 0, -1, 1)
_NEEDED = ("board", "bomb_life", "position", "enemies", "safe_moves")


class PommermanEvaderAgent(Agent):
    """Keeps to open ground near enemies, away from them otherwise still; never bombs (module docstring).

    Args:
        seed: seeds its tie-breaking coin flips (``reset(seed=...)`` re-seeds).
        depth: the steps within which a cell's room is counted (default 3).
        radius: an enemy within this many steps (Manhattan) makes room count (default 5).
        cap: room above this counts as this, so that any open enough cell will do (default 8).
        approach: walk towards the nearest enemy while it is farther than this many steps, and
            back off to this distance when nearer (``None``, the default: never approach, wait
            where it stands, and back off to 4 steps).

    Raises:
        InvalidValueError: ``depth``, ``radius`` or ``cap`` is not a positive int.
        SpaceMismatchError: in :meth:`setup`, for observations without ``pommerman_safe_moves``'
            ``"safe_moves"`` mask (or another pommerman key it reads), or actions other than ``Discrete(6)``.

    Example:
        >>> agent = PommermanEvaderAgent(seed=0)
        >>> board = np.zeros((11, 11), np.uint8); board[5, 5] = 10; board[5, 7] = 11
        >>> board[4:7, 4] = 1  # a wall on its left: going up or down keeps room, right walks at the enemy
        >>> obs = {"board": board, "bomb_life": np.zeros_like(board), "position": np.array([5, 5]),
        ...        "enemies": np.array([11, 12, 13]), "safe_moves": np.array([1, 1, 1, 1, 1, 1], np.int8)}
        >>> agent.act(obs) in (1, 2)
        True
    """

    def __init__(
        self, seed: int | None = None, *, depth: int = 3, radius: int = 5, cap: int = 8, approach: int | None = None
    ) -> None:
        super().__init__()
        named = (("depth", depth), ("radius", radius), ("cap", cap))
        for name, value in named + ((("approach", approach),) if approach is not None else ()):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise InvalidValueError(f"PommermanEvaderAgent: {name} must be a positive int, got {value!r}")
        self.depth, self.radius, self.cap = int(depth), int(radius), int(cap)
        self.approach = None if approach is None else int(approach)
        self._rng = np.random.default_rng(seed)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        keys = observation_space.spaces if isinstance(observation_space, spaces.Dict) else {}
        missing = [key for key in _NEEDED if key not in keys]
        if missing or type(action_space) is not spaces.Discrete or action_space.n != 6:
            raise SpaceMismatchError(
                "PommermanEvaderAgent: needs the pommerman observation Dict behind pommerman_safe_moves "
                f"(missing {missing or 'nothing'}) and Discrete(6) actions, got {action_space}; "
                "the registered pommerman_evader plays behind the filter"
            )
        super().setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        board = np.asarray(observation["board"])
        row, col = (int(v) for v in np.asarray(observation["position"]).tolist())
        allowed = np.asarray(observation["safe_moves"])[:5] != 0
        if action_mask is not None:
            allowed &= np.asarray(action_mask)[:5] != 0
        passable = np.isin(board, OPEN_CODES) & (np.asarray(observation["bomb_life"]) == 0)
        passable[row, col] = False  # room is counted without stepping back here: a dead end entered from here is small
        codes = [int(code) for code in np.asarray(observation["enemies"]).tolist() if int(code) >= 10]
        enemies = np.argwhere(np.isin(board, codes)) if codes else np.zeros((0, 2), dtype=np.int64)
        best, best_key = 0, None
        keep = self.approach or 4  # the distance it backs off to; the evader's is 4
        for move in np.flatnonzero(allowed) if allowed.any() else range(5):
            r, c = row + _DR[move], col + _DC[move]
            if move and not (0 <= r < _SIZE and 0 <= c < _SIZE and passable[r, c]):
                r, c = row, col  # a blocked move stays, like stop
            near = int(np.abs(enemies - (r, c)).sum(axis=1).min()) if len(enemies) else 2 * _SIZE
            space = room(passable, r, c, self.depth, self.cap) if near <= self.radius else self.cap
            # farther is better up to `keep` steps; past `approach` steps, nearer is better
            towards = -max(near - self.approach, 0) if self.approach is not None else 0
            key = (space, min(near, keep), towards, move == 0, self._rng.random())
            if best_key is None or key > best_key:
                best, best_key = int(move), key
        return best


def pommerman_evader(seed: int | None = None, **options: Any) -> Agent:
    """``pommerman_evader``: :class:`PommermanEvaderAgent` behind the action filter ``pommerman_safe_moves``.

    The filter is named by its registered name (it lives in ``interfaces``, above ``envs``).
    ``options`` go to the agent (``depth``, ``radius``, ``cap``).
    """
    return AgtItfWrapper(PommermanEvaderAgent(seed, **options), make_interface("pommerman_safe_moves"))


def pommerman_shadow(seed: int | None = None, **options: Any) -> Agent:
    """``pommerman_shadow``: :class:`PommermanEvaderAgent` with ``approach=4`` behind ``pommerman_safe_moves``.

    It follows the nearest enemy to four steps away and evades it from there; it never bombs.
    ``options`` go to the agent (``depth``, ``radius``, ``cap``, ``approach``).
    """
    return AgtItfWrapper(
        PommermanEvaderAgent(seed, **{"approach": 4, **options}), make_interface("pommerman_safe_moves")
    )
