"""The scripted MAgent2 soldier: close in on the nearest enemy in view and attack it."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import ArenaError
from envs.magent.layout import UnitLayout, unit_layout

__all__ = ["MAgentAttackNearestAgent"]


class MAgentAttackNearestAgent(Agent):
    """Attack the nearest enemy in reach; else step towards the nearest enemy in view; else wander.

    It reads the raw MAgent2 view (any bundled unit type, with or without ``minimap_mode``;
    :mod:`envs.magent.layout` says which channels are enemies):

    * an enemy within attack range: attack the nearest one (the weakest among equally near);
    * else an enemy in view: take the move whose free destination cell (no wall, no unit) is
      nearest to the nearest enemy;
    * else: a random move to a free cell (seeded by :meth:`reset`), so rear ranks spread out and
      come forward.

    :meth:`act_batch` does the same for a whole side at once (views stacked on axis 0), in numpy;
    set up on a stacked side's spaces (:class:`interfaces.magent.SideStack`: a ``Box`` of views and a
    ``MultiDiscrete``), :meth:`act` takes the whole side in one call.

    Raises:
        SpaceMismatchError: in :meth:`setup`, for spaces that are not a MAgent2 soldier's.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = MAgentAttackNearestAgent()
        >>> agent.setup(spaces.Box(0, 2, (13, 13, 5), np.float32), spaces.Discrete(21))
        >>> view = np.zeros((13, 13, 5), np.float32)
        >>> view[6, 6, 1:3] = 1              # itself, full HP
        >>> view[6, 10, 3:5] = 1             # an enemy 4 cells to the right: step 2 right
        >>> agent.act(view), agent.layout.moves[agent.act(view)]
        (8, (2, 0))
        >>> view[7, 7, 3:5] = 1              # an enemy diagonally next to it: attack it
        >>> agent.layout.attacks[agent.act(view) - agent.layout.attack_base]
        (1, 1)
    """

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self.layout: UnitLayout | None = None
        self._side = False

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        soldier_obs, soldier_act = observation_space, action_space
        self._side = False
        if (
            isinstance(action_space, spaces.MultiDiscrete)
            and action_space.nvec.ndim == 1
            and isinstance(observation_space, spaces.Box)
            and len(observation_space.shape) == 4
        ):
            # a whole side stacked (interfaces.magent.SideStack): one call acts for all
            self._side = True
            dtype: Any = observation_space.dtype  # Gymnasium's Box takes a numpy dtype; it annotates scalar types
            soldier_obs = spaces.Box(observation_space.low[0], observation_space.high[0], dtype=dtype)
            soldier_act = spaces.Discrete(int(action_space.nvec[0]))
        self.layout = layout = unit_layout(soldier_obs, soldier_act)
        super().setup(observation_space, action_space)
        r = layout.radius
        rows, cols = np.mgrid[-r : r + 1, -r : r + 1]
        self._distance = np.sqrt(rows**2 + cols**2).ravel()  # view cell -> distance from the centre
        self._coords = np.stack([cols.ravel(), rows.ravel()], axis=1)  # view cell -> (dx, dy)
        side = 2 * r + 1
        self._attack_cells = np.array([(r + dy) * side + (r + dx) for dx, dy in layout.attacks])
        self._move_cells = np.array([(r + dy) * side + (r + dx) for dx, dy in layout.moves])
        self._moves = np.array(layout.moves)

    def reset(self, *, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(self._seed if seed is None else seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self._side:
            return self.act_batch(observation, action_mask)
        return int(self.act_batch(np.asarray(observation)[None], None if action_mask is None else [action_mask])[0])

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """Actions for many soldiers at once: ``observations`` is ``(n, side, side, channels)``."""
        layout = self.layout
        if layout is None:
            raise ArenaError(f"{self}: act_batch() needs setup(observation_space, action_space) first")
        views = np.asarray(observations)
        n = views.shape[0]
        flat = views.reshape(n, -1, views.shape[-1])
        enemy = flat[:, :, list(layout.enemy_presence)].max(axis=2) > 0.5
        enemy_hp = flat[:, :, list(layout.enemy_hp)].max(axis=2)
        enemy[:, self._distance.size // 2] = False  # its own cell
        # Attack: the nearest enemy in reach, the weakest among equals (HP in [0, 1] < one cell).
        in_reach = enemy[:, self._attack_cells]
        score = np.where(in_reach, self._distance[self._attack_cells] + 0.5 * enemy_hp[:, self._attack_cells], np.inf)
        attack = layout.attack_base + score.argmin(axis=1)
        can_attack = in_reach.any(axis=1)
        # Move: towards the nearest enemy in view, onto a free cell.
        target = np.where(enemy, self._distance, np.inf).argmin(axis=1)
        seen = enemy.any(axis=1)
        occupied = flat[:, :, 0] > 0.5  # walls
        for channel in (layout.own_presence, *layout.ally_presence, *layout.enemy_presence):
            occupied |= flat[:, :, channel] > 0.5
        free = ~occupied[:, self._move_cells]
        free[:, layout.stay] = True
        gap = self._moves[None, :, :] - self._coords[target][:, None, :]
        move_score = np.where(free, np.hypot(gap[..., 0], gap[..., 1]), np.inf)
        towards = move_score.argmin(axis=1)
        wander_score = np.where(free, self._rng.random((n, len(layout.moves))), np.inf)
        wander_score[:, layout.stay] = np.inf if len(layout.moves) > 1 else 0.0
        wander = np.where(np.isfinite(wander_score).any(axis=1), wander_score.argmin(axis=1), layout.stay)
        actions = np.where(can_attack, attack, np.where(seen, towards, wander)).astype(np.int64)
        if action_masks is not None:  # MAgent2 has no masks; a masked env gets a random legal action instead
            masks = np.asarray(action_masks).reshape(n, -1) != 0
            for i in np.flatnonzero(~masks[np.arange(n), actions]):
                actions[i] = self._rng.choice(np.flatnonzero(masks[i]))
        return actions
