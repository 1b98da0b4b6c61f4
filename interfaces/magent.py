"""Interfaces for MAgent2's armies (``envs.magent``): a whole side at once.

A side of ``magent_battle`` is 81 soldiers; a team agent sees it as a ``Tuple`` of 81 views
(``None`` for the dead, see :func:`arena.play`). These interfaces turn that into what one model
wants:

* :class:`SideStack` — the side's views stacked into one array, a per-soldier stack applied to
  all of them in one call (the batched observation path), one ``MultiDiscrete`` action back:
  81 soldiers cost one transform and one network forward;
* :class:`GridControl` — grid-wise control (Han et al., ICML 2019; Arena's reference [14]):
  the side's views become one map of the battlefield (own and enemy positions and HP as
  planes) and one grid of actions goes back, each soldier taking the action of its cell, so a
  single convolutional policy commands the army;
* :func:`combine_by_unit` — :class:`arena.Combine` with each unit type of combined arms (melee,
  ranged) behind its own interface stack.

Example:
    >>> import envs
    >>> from arena import AgtItfWrapper, play, RandomAgent
    >>> from envs.magent.agents import MAgentAttackNearestAgent
    >>> env = envs.make("magent_battle", map_size=12, max_steps=100, minimap_mode=True)
    >>> army = AgtItfWrapper(RandomAgent(seed=0), GridControl(map_size=12))
    >>> episode = play(env, {"red": army, "blue": AgtItfWrapper(MAgentAttackNearestAgent(), SideStack())}, seed=1)
    >>> episode.team_scores, episode.outcome
    ({'red': 0, 'blue': 2}, 'blue wins')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, InvalidValueError, SpaceMismatchError
from arena.interface import Combine, Interface
from envs.magent.layout import UnitLayout, decode_positions, unit_layout
from interfaces._spaces import box_space

__all__ = ["SideStack", "GridControl", "combine_by_unit", "unit_of"]


def _side_spaces(itf: Interface) -> tuple[spaces.Tuple, spaces.Tuple]:
    """The raw side spaces: Tuples of one soldier type (same spaces for every member), or an error naming them."""
    obs, act = itf.inner_observation_space, itf.inner_action_space
    if not (
        isinstance(obs, spaces.Tuple)
        and isinstance(act, spaces.Tuple)
        and len(obs) == len(act)
        and len(obs)
        and all(o == obs[0] for o in obs)
        and all(a == act[0] for a in act)
    ):
        raise SpaceMismatchError(
            f"{itf}: needs a side's spaces: Tuples of one soldier's observation and action space (all members "
            f"alike; split combined arms with combine_by_unit), got {obs} and {act}"
        )
    return obs, act


class SideStack(Interface):
    """A side as one array: the soldiers' views stacked on axis 0, one ``MultiDiscrete`` action.

    * **Observation**: ``(members, *soldier_shape)``: member ``i``'s view after ``soldier``
      (all members at once, through :meth:`~arena.Interface.transform_observation_batch`); a dead
      member's row is zeros (its own-presence cell is 0: nobody there).
    * **Action**: ``MultiDiscrete`` of the soldier's action count per member; each member's
      action goes back through ``soldier``; a dead member's is ``None`` (it does not act).

    Args:
        inner: the interface underneath (``None``: the raw side).
        soldier: a per-soldier interface stack without per-episode state (``None``: the raw view),
            e.g. ``Flatten()``; its action space must be ``Discrete``.

    Raises:
        SpaceMismatchError: at setup, for spaces that are not a side of alike soldiers, or a
            soldier stack whose spaces are not a Box and a Discrete.

    Example:
        >>> import numpy as np
        >>> view = spaces.Box(0.0, 2.0, (13, 13, 5), np.float32)
        >>> itf = SideStack()
        >>> itf.setup(spaces.Tuple([view] * 3), spaces.Tuple([spaces.Discrete(21)] * 3))
        >>> itf.observation_space.shape, itf.action_space
        ((3, 13, 13, 5), MultiDiscrete([21 21 21]))
        >>> itf.transform_observation((view.low, None, view.high))[:, 0, 0, 0].tolist()
        [0.0, 0.0, 2.0]
        >>> itf.transform_action(np.array([6, 20, 3]))
        (6, None, 3)
    """

    translates_masks = False  # MAgent2's soldiers have no action masks (every action is legal)

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        view = spaces.Box(0.0, 2.0, (13, 13, 5), np.float32)
        return [(cls(), spaces.Tuple([view] * 3), spaces.Tuple([spaces.Discrete(21)] * 3))]

    def __init__(self, inner: Interface | None = None, *, soldier: Interface | None = None) -> None:
        super().__init__(inner)
        if soldier is not None and not isinstance(soldier, Interface):
            raise InvalidTypeError(f"SideStack: soldier must be an arena.Interface, got {type(soldier).__name__}")
        self.soldier = soldier if soldier is not None else Interface()
        self._present: list[bool] = []

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        obs, act = _side_spaces(self)
        soldier = self.soldier
        soldier.setup(obs[0], act[0])
        view, move = soldier.observation_space, soldier.action_space
        if not isinstance(view, spaces.Box) or not isinstance(move, spaces.Discrete) or soldier.stateful:
            raise SpaceMismatchError(
                f"{self}: the soldier stack must give a Box view and Discrete actions and keep no "
                f"per-episode state, got {view} and {move} from {obs[0]} and {act[0]}"
            )
        n = len(obs)
        self._blank = np.zeros(view.shape, view.dtype)
        self._shape: tuple[int, ...] = (n, *view.shape)
        self._dtype = view.dtype
        self.observation_space = box_space(
            np.broadcast_to(view.low, self._shape), np.broadcast_to(view.high, self._shape), self._shape, view.dtype
        )
        self.action_space = spaces.MultiDiscrete(np.full(n, int(move.n)), start=np.full(n, int(move.start)))
        self._present = [True] * n

    def observation(self, observation: Any) -> np.ndarray:
        present = [view is not None for view in observation]
        self._present = present
        rows = [view for view in observation if view is not None]
        out = np.empty(self._shape, self._dtype)
        out[:] = self._blank
        if rows:
            out[np.flatnonzero(present)] = self.soldier.transform_observation_batch(np.stack(rows))
        return out

    def action(self, action: Any) -> tuple[Any, ...]:
        to_raw = self.soldier.transform_action
        return tuple(to_raw(int(a)) if alive else None for a, alive in zip(np.asarray(action), self._present))

    def _arguments(self) -> str:
        inner = "" if self.inner is None else str(self.inner)
        return inner if type(self.soldier) is Interface else f"{inner}{', ' if inner else ''}soldier={self.soldier}"


class GridControl(Interface):
    """Grid-wise control of a battle side: one battlefield map in, one grid of actions out.

    Needs the env's ``minimap_mode=True`` (the soldiers' position planes place their views).

    * **Observation**: ``Box(0, 2, (5, map_size, map_size), float32)``, planes indexed
      ``[plane, y, x]``: walls, own presence, own HP, enemy presence, enemy HP. Own soldiers are
      placed by their positions; walls and enemies by every soldier's view (what the side sees).
    * **Action**: ``MultiDiscrete`` of shape ``(map_size, map_size)``, the soldier's action count
      per cell: each live soldier takes the action of the cell it stands on (``[y, x]``); the
      other cells are ignored. A dead soldier's action is ``None``.

    Args:
        inner: the interface underneath (``None``: the raw side).
        map_size: the env's ``map_size``.

    Raises:
        SpaceMismatchError: at setup, for a side that is not battle's soldiers with position planes.

    Example:
        >>> import envs
        >>> env = envs.make("magent_battle", map_size=12, minimap_mode=True)
        >>> obs, _ = env.reset(seed=0)
        >>> grid = GridControl(map_size=12)
        >>> red = env.teams["red"]
        >>> grid.setup(spaces.Tuple([env.observation_space(a) for a in red]),
        ...            spaces.Tuple([env.action_space(a) for a in red]))
        >>> planes = grid.transform_observation(tuple(obs[a] for a in red))
        >>> planes.shape, int(planes[1].sum()), int(planes[3].sum())  # the enemy starts out of view
        ((5, 12, 12), 2, 0)
        >>> x, y = env.positions()["red_0"]
        >>> actions = np.full((12, 12), 6)
        >>> actions[y, x] = 13
        >>> grid.transform_action(actions)
        (13, 6)
    """

    PLANES = ("walls", "own presence", "own HP", "enemy presence", "enemy HP")
    translates_masks = False  # MAgent2's soldiers have no action masks (every action is legal)

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        view = spaces.Box(0.0, 2.0, (13, 13, 9), np.float32)
        return [(cls(map_size=12), spaces.Tuple([view] * 3), spaces.Tuple([spaces.Discrete(21)] * 3))]

    def __init__(self, inner: Interface | None = None, *, map_size: int = 45) -> None:
        super().__init__(inner)
        if isinstance(map_size, bool) or not isinstance(map_size, (int, np.integer)) or map_size < 1:
            raise InvalidValueError(f"GridControl: map_size must be a positive integer, got {map_size!r}")
        self.map_size = int(map_size)
        self._shape: tuple[int, ...] = (len(self.PLANES), self.map_size, self.map_size)
        self._positions = np.zeros((0, 2), np.int64)  # each member's last (x, y), from its position planes
        self._present = np.zeros(0, bool)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        obs, act = _side_spaces(self)
        try:
            layout = unit_layout(obs[0], act[0])
        except SpaceMismatchError as err:
            raise SpaceMismatchError(f"{self}: {err}") from None
        if layout.position is None or layout.ally_presence:
            raise SpaceMismatchError(
                f"{self}: needs battle soldiers' views with position planes (make the env with "
                f"minimap_mode=True), got {obs[0]} and {act[0]}"
            )
        self.layout: UnitLayout = layout
        size, n = self.map_size, len(obs)
        self._shape = (len(self.PLANES), size, size)
        self.observation_space = spaces.Box(0.0, 2.0, self._shape, np.float32)
        self.action_space = spaces.MultiDiscrete(np.full((size, size), len(layout.moves) + len(layout.attacks)))
        r = layout.radius
        rows, cols = np.mgrid[-r : r + 1, -r : r + 1]
        self._offsets = (cols.ravel(), rows.ravel())  # view cell -> (dx, dy)
        self._positions, self._present = np.zeros((n, 2), np.int64), np.ones(n, bool)

    def observation(self, observation: Any) -> np.ndarray:
        layout, size = self.layout, self.map_size
        present = np.array([view is not None for view in observation])
        planes = np.zeros(self._shape, np.float32)
        self._present = present
        if not present.any():
            return planes
        views = np.stack([view for view in observation if view is not None])
        where = decode_positions(views, layout, size)
        self._positions[present] = where
        n, side = views.shape[0], views.shape[1]
        flat = views.reshape(n, side * side, -1)
        xs = where[:, 0:1] + self._offsets[0][None, :]
        ys = where[:, 1:2] + self._offsets[1][None, :]
        inside = (xs >= 0) & (xs < size) & (ys >= 0) & (ys < size)
        for plane, channels in ((0, (0,)), (3, layout.enemy_presence)):
            seen = inside & (flat[:, :, list(channels)].max(axis=2) > 0.5)
            planes[plane, ys[seen], xs[seen]] = 1.0
            if plane == 3:
                hp = flat[:, :, list(layout.enemy_hp)].max(axis=2)
                planes[4, ys[seen], xs[seen]] = hp[seen]
        centre = side * side // 2
        planes[1, where[:, 1], where[:, 0]] = 1.0
        planes[2, where[:, 1], where[:, 0]] = flat[:, centre, layout.own_hp]
        return planes

    def action(self, action: Any) -> tuple[Any, ...]:
        grid = np.asarray(action)
        chosen = grid[self._positions[:, 1], self._positions[:, 0]].tolist()
        return tuple(a if alive else None for a, alive in zip(chosen, self._present.tolist()))

    def _arguments(self) -> str:
        inner = "" if self.inner is None else f"{self.inner}, "
        return f"{inner}map_size={self.map_size}"


def unit_of(agent_id: str) -> str:
    """The unit type in a MAgent2 agent id: ``"redmelee_3"`` -> ``"melee"``, ``"blue_0"`` -> ``"small"``.

    Example:
        >>> unit_of("blueranged_12"), unit_of("red_0")
        ('ranged', 'small')
    """
    group = agent_id.rsplit("_", 1)[0]
    for side in ("red", "blue"):
        if group.startswith(side):
            return group[len(side) :] or "small"
    return group


def combine_by_unit(members: Sequence[str], **stacks: Callable[[], Interface | None]) -> Combine:
    """:class:`arena.Combine` over a side with each unit type behind its own interface stack.

    Args:
        members: the side's agent ids in seat order (``env.teams["red"]``).
        stacks: unit type (``melee``, ``ranged``, ``small``) -> a function making that type's
            stack (called once per member: members keep their own interface state).

    Raises:
        ValueError: a member's unit type has no stack.

    Example:
        >>> from interfaces.observation import Flatten
        >>> team = combine_by_unit(["redmelee_0", "redranged_0"], melee=Flatten, ranged=lambda: None)
        >>> str(team)
        'Combine(None, [Flatten(), Interface()])'
    """
    units = [unit_of(member) for member in members]
    missing = sorted({unit for unit in units if unit not in stacks})
    if missing:
        raise InvalidValueError(
            f"combine_by_unit: no stack for unit types {missing} (members {list(members)[:4]}...); "
            f"stacks given for {sorted(stacks)}"
        )
    return Combine(None, [stacks[unit]() for unit in units])
