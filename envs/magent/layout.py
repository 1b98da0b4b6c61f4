"""What a MAgent2 soldier's observation channels and actions mean, read from its spaces.

MAgent2's gridworld gives every unit a square view centred on itself (``view[row, col]`` is the
cell ``(x + col - r, y + row - r)`` for view radius ``r``) and a ``Discrete`` action: first the
moves, one per cell within its speed (row by row, the middle one is staying put), then the
attacks, one per cell within its attack range except its own (row by row). The channels are the
walls, then each group's presence and HP (own group first, then the others in engine order), each
followed by a minimap plane in ``minimap_mode``, which also appends the unit's position
(``x / map_size``, ``y / map_size``) as two constant planes.

The unit types of the bundled games, by action count: ``small`` (battle: speed 2, attack range
1.5, 21 actions), ``melee`` (combined arms: speed 1, range 1, 9 actions) and ``ranged`` (combined
arms: speed 2, range 2, 25 actions). ``tests/envs/test_magent.py`` checks these tables against
the engine.

Example:
    >>> import numpy as np
    >>> from gymnasium import spaces
    >>> layout = unit_layout(spaces.Box(0, 2, (13, 13, 5), np.float32), spaces.Discrete(21))
    >>> layout.unit, layout.moves[6], layout.attack_base, layout.enemy_presence
    ('small', (0, 0), 13, (3,))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from arena.errors import SpaceMismatchError

__all__ = ["UnitLayout", "unit_layout", "disc_cells", "decode_positions"]


def disc_cells(radius: float, *, centre: bool) -> tuple[tuple[int, int], ...]:
    """The ``(dx, dy)`` cells within ``radius`` of the origin, row by row (dy, then dx), as MAgent2 orders them.

    Example:
        >>> disc_cells(1, centre=True)
        ((0, -1), (-1, 0), (0, 0), (1, 0), (0, 1))
    """
    reach = int(radius)
    return tuple(
        (dx, dy)
        for dy in range(-reach, reach + 1)
        for dx in range(-reach, reach + 1)
        if dx * dx + dy * dy <= radius * radius and (centre or (dx, dy) != (0, 0))
    )


# unit name -> (action count, speed, attack range, groups in the view, ally slot or None, enemy slots)
# Slots number the groups in a view after the unit's own (slot 0). Combined arms' engine lists the other
# groups as g+1, g+2, g+3 (mod 4) for group g, so the slots mean the same on both sides.
_UNITS = {
    "small": (21, 2.0, 1.5, 2, None, (1,)),
    "melee": (9, 1.0, 1.0, 4, 1, (2, 3)),
    "ranged": (25, 2.0, 2.0, 4, 3, (1, 2)),
}


@dataclass(frozen=True)
class UnitLayout:
    """The meaning of one unit type's observation channels and actions.

    Attributes:
        unit: ``"small"``, ``"melee"`` or ``"ranged"``.
        radius: the view radius (the view is ``2 * radius + 1`` cells square).
        moves: action index -> ``(dx, dy)`` for the move actions (``(0, 0)``: stay).
        attacks: ``(dx, dy)`` of each attack action, in order; attack ``i`` is action ``attack_base + i``.
        attack_base: the first attack action.
        own_presence, own_hp: the unit's own group's channels.
        ally_presence, ally_hp: the other unit type of its side (combined arms), else empty.
        enemy_presence, enemy_hp: the enemy groups' channels.
        position: the two position planes (``minimap_mode``), else ``None``.
    """

    unit: str
    radius: int
    moves: tuple[tuple[int, int], ...]
    attacks: tuple[tuple[int, int], ...]
    attack_base: int
    own_presence: int
    own_hp: int
    ally_presence: tuple[int, ...]
    ally_hp: tuple[int, ...]
    enemy_presence: tuple[int, ...]
    enemy_hp: tuple[int, ...]
    position: tuple[int, int] | None

    @property
    def stay(self) -> int:
        """The action that stays put and does nothing."""
        return self.moves.index((0, 0))


def unit_layout(observation_space: spaces.Space, action_space: spaces.Space) -> UnitLayout:
    """The :class:`UnitLayout` of a MAgent2 soldier with these (raw) spaces.

    Raises:
        SpaceMismatchError: the spaces are not a bundled MAgent2 unit's (a square ``Box`` view of
            the right depth and one of the action counts 21, 9, 25).
    """
    shape = getattr(observation_space, "shape", None)
    units = {spec[0]: name for name, spec in _UNITS.items()}
    if not (
        isinstance(action_space, spaces.Discrete)
        and int(action_space.n) in units
        and isinstance(observation_space, spaces.Box)
        and shape is not None
        and len(shape) == 3
        and shape[0] == shape[1]
        and shape[0] % 2 == 1
    ):
        raise SpaceMismatchError(
            "unit_layout: expected a MAgent2 soldier's spaces: a Box view (side, side, channels) and Discrete "
            f"with {sorted(units)} actions (battle's small unit, combined arms' melee and ranged), got "
            f"{observation_space} and {action_space}"
        )
    unit = units[int(action_space.n)]
    n_actions, speed, reach, groups, ally, enemies = _UNITS[unit]
    depth = shape[2]
    if depth == 1 + 2 * groups:
        per_group, position = 2, None
    elif depth == 1 + 3 * groups + 2:
        per_group, position = 3, (depth - 2, depth - 1)
    else:
        raise SpaceMismatchError(
            f"unit_layout: a MAgent2 {unit} unit's view has {1 + 2 * groups} channels ({1 + 3 * groups + 2} in "
            f"minimap_mode), got {observation_space}"
        )
    moves = disc_cells(speed, centre=True)
    attacks = disc_cells(reach, centre=False)
    if len(moves) + len(attacks) != n_actions:  # the tables above disagree with themselves
        raise SpaceMismatchError(
            f"unit_layout: {unit} has {len(moves)} moves and {len(attacks)} attacks, not {n_actions} actions"
        )

    def channel(slot: int, which: int) -> int:
        return 1 + per_group * slot + which

    return UnitLayout(
        unit=unit,
        radius=shape[0] // 2,
        moves=moves,
        attacks=attacks,
        attack_base=len(moves),
        own_presence=channel(0, 0),
        own_hp=channel(0, 1),
        ally_presence=() if ally is None else (channel(ally, 0),),
        ally_hp=() if ally is None else (channel(ally, 1),),
        enemy_presence=tuple(channel(s, 0) for s in enemies),
        enemy_hp=tuple(channel(s, 1) for s in enemies),
        position=position,
    )


def decode_positions(views: np.ndarray, layout: UnitLayout, map_size: int) -> np.ndarray:
    """``(x, y)`` map cells of soldiers from their views' position planes (``minimap_mode``), clipped to the map.

    Args:
        views: ``(n, side, side, channels)`` views.
        layout: their layout (with ``position``).
        map_size: the map's side.
    """
    if layout.position is None:
        raise SpaceMismatchError(
            "decode_positions: the views have no position planes; make the env with minimap_mode=True"
        )
    centre = layout.radius
    coords = views[:, centre, centre, list(layout.position)] * map_size
    return np.clip(np.rint(coords), 0, map_size - 1).astype(np.int64)
