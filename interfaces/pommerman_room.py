"""Pommerman's room planes: how much open ground each cell has, and how far the nearest enemy is.

:class:`PommermanRoomPlanes` sits above ``pommerman_batch_planes`` and appends two planes to its
views: **room**, for every cell a bomber can stand on, the cells reachable from it within ``depth``
steps through open cells (itself included; capped at ``cap``), never through the agent's own cell,
so that a dead end next to the agent counts as the dead end only; and **enemy distance**, for every
cell the steps (Manhattan, capped at ``reach``) to the nearest enemy. Open cells are passages, fog and
power-ups without a bomb; walls, wood, bombs, flames and other bombers block. These are what
``pommerman_evader`` decides by (:mod:`envs.pommerman.evader`), counted by the same compiled code
(:mod:`envs.pommerman.room`); a convolution reads a cell and its neighbours at once, where working a
dead end out of the raw planes takes it many layers.

The planes are computed from the views alone, the same way on one game's planes and on a batch's
(``(n, planes, 11, 11)``: one compiled call for all of them, :func:`envs.pommerman.room.room_planes`),
so the level trains on the batched trainer as it plays on the single env. Actions and masks pass unchanged.

Example:
    >>> import numpy as np
    >>> from gymnasium import spaces
    >>> from envs.pommerman.batch import plane_space
    >>> itf = PommermanRoomPlanes()
    >>> itf.setup(plane_space("ffa"), spaces.Discrete(6))
    >>> itf.observation_space.shape
    (24, 11, 11)
    >>> views = np.zeros((22, 11, 11), np.uint8); views[0] = 1  # all passage
    >>> views[0, 0, 0], views[9, 0, 0] = 0, 1  # the agent in the corner
    >>> planes = itf.observation(views)
    >>> int(planes[22, 0, 1]), int(planes[22, 5, 5]), int(planes[23, 5, 5])  # no enemy: distance capped
    (8, 8, 10)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.interface import Interface

__all__ = ["PommermanRoomPlanes", "room_planes"]


def room_planes(views: Any, *, depth: int = 3, cap: int = 8, reach: int = 10) -> np.ndarray:
    """The room and enemy-distance planes of PommermanBatch views: :func:`envs.pommerman.room.room_planes`.

    Imported on first call, so that ``import interfaces`` stays light (numba and the Pommerman
    package load only when needed).

    Args:
        views: ``(n, planes >= 13, 11, 11)`` uint8 views.
        depth: steps within which room is counted.
        cap: room above this counts as this.
        reach: distances above this count as this.

    Returns:
        ``(n, 2, 11, 11)`` uint8: room, then enemy distance.

    Raises:
        InvalidValueError: ``views`` is not ``(n, planes >= 13, 11, 11)``, or an option is not an int in 0..255.
    """
    from envs.pommerman.room import room_planes as compute

    return compute(views, depth=depth, cap=cap, reach=reach)


class PommermanRoomPlanes(Interface):
    """Appends the room and enemy-distance planes to ``pommerman_batch_planes``' views (module docstring).

    Args:
        inner: the level below (its observations must be PommermanBatch planes).
        depth: steps within which room is counted (default 3).
        cap: room above this counts as this (default 8).
        reach: enemy distances above this count as this (default 10).

    Raises:
        InvalidValueError: ``depth``, ``cap`` or ``reach`` is not an int in 1..255.
        SpaceMismatchError: at setup, observations that are not uint8 planes ``(planes >= 13, 11, 11)``.

    Example:
        >>> from arena.specs.interfaces import build_interface
        >>> str(build_interface("pommerman_room_planes(pommerman_batch_planes(pommerman_safe_moves, ego=true))"))
        'PommermanRoomPlanes(PommermanBatchPlanes(PommermanSafeMoves(), ego=True))'
    """

    def __init__(self, inner: Interface | None = None, *, depth: int = 3, cap: int = 8, reach: int = 10) -> None:
        super().__init__(inner)
        for name, value in (("depth", depth), ("cap", cap), ("reach", reach)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 255:
                raise InvalidValueError(f"{type(self).__name__}: {name} must be an int in 1..255, got {value!r}")
        self.depth, self.cap, self.reach = int(depth), int(cap), int(reach)

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """The level on the FFA planes, for ``arena interfaces --check``."""
        from envs.pommerman.batch import plane_space

        return [(cls(), plane_space("ffa"), spaces.Discrete(6))]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        from envs.pommerman.core import SIZE  # envs may import arena, not the other way round
        from envs.pommerman.room import PLANES_READ

        super().setup(observation_space, action_space)
        space = self.inner_observation_space
        shape = getattr(space, "shape", None)
        if (
            not isinstance(space, spaces.Box)
            or space.dtype != np.uint8
            or shape is None
            or len(shape) != 3
            or shape[0] < PLANES_READ
            or shape[1:] != (SIZE, SIZE)
        ):
            raise SpaceMismatchError(
                f"{self}: needs pommerman_batch_planes' uint8 planes (planes >= {PLANES_READ}, {SIZE}, {SIZE}) "
                f"below it, got {space}"
            )
        added = np.zeros((2, SIZE, SIZE), dtype=np.uint8)
        added[0], added[1] = self.cap, self.reach
        high = np.concatenate([np.broadcast_to(space.high, shape), added])
        self.observation_space = spaces.Box(0, high, dtype=np.uint8)

    def observation(self, observation: Any) -> np.ndarray:
        views = np.asarray(observation, dtype=np.uint8)
        return np.concatenate([views, self._planes(views[None])[0]])

    def observation_batch(self, observations: Any, slots: Any = None) -> np.ndarray:
        """Every slot's views with the two planes appended, in one compiled call."""
        views = np.asarray(observations, dtype=np.uint8)
        return np.concatenate([views, self._planes(views)], axis=1)

    def _planes(self, views: np.ndarray) -> np.ndarray:
        return room_planes(views, depth=self.depth, cap=self.cap, reach=self.reach)

    def _arguments(self) -> str:
        options = [f"{name}={value}" for name, value, default in self._options() if value != default]
        return ", ".join(filter(None, [super()._arguments(), *options]))

    def _options(self) -> tuple[tuple[str, int, int], ...]:
        return (("depth", self.depth, 3), ("cap", self.cap, 8), ("reach", self.reach, 10))
