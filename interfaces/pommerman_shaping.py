"""Pommerman reward shaping: small rewards for events on the way to a win, read from observations.

A Pommerman game pays only at its end (+1, -1), up to 800 steps later; these interfaces add a
small reward when something that usually leads there happens, seen in two consecutive
observations of the agent:

* :class:`PommermanPickupBonus`: the agent steps onto a power-up (extra bomb, range, kick);
* :class:`PommermanEnemyDownBonus`: an enemy dies (whoever's bomb it was: a side is judged
  by who is left).

Each reads the raw observation dict, passes it on unchanged and pays its bonus with the next
reward the agent receives (the episode's last included). On a batch of games their batched
hooks find the same events in consecutive :class:`~envs.pommerman.batch.PommermanBatch` planes
(:func:`pickups_planes`, :func:`enemies_down_planes`), every game slot at once. Keep the bonuses
small next to the game's 1: shaping that pays more than winning teaches something else.

Example:
    >>> import envs
    >>> env = envs.make("pommerman", mode="team")
    >>> itf = PommermanEnemyDownBonus(PommermanPickupBonus(bonus=0.1), bonus=0.5)
    >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    >>> obs, _ = env.reset(seed=0)
    >>> _ = itf.transform_reset(obs["agent_0"])
    >>> str(itf), itf.transform_reward(0.0)
    ('PommermanEnemyDownBonus(PommermanPickupBonus(bonus=0.1), bonus=0.5)', 0.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batched_stack import split_rows
from arena.errors import InvalidValueError
from arena.interface import Interface
from interfaces.pommerman import SlotRows, require_pommerman_dict

__all__ = ["PommermanEnemyDownBonus", "PommermanPickupBonus", "enemies_down_planes", "pickups_planes"]

_POWER_UPS = (6, 7, 8)  # board codes: extra bomb, incr range, kick
_KEYS = ("board", "position", "alive", "enemies")
# Plane indices of PommermanBatch's views (envs/pommerman/planes.py: PLANE_NAMES).
_P_POWER_UPS, _P_SELF, _P_ENEMIES_ALIVE = (6, 7, 8), 9, 20


def _bonus(owner: str, bonus: Any) -> float:
    if (
        isinstance(bonus, bool)
        or not isinstance(bonus, (int, float, np.integer, np.floating))
        or not np.isfinite(bonus)
    ):
        raise InvalidValueError(f"{owner}: bonus must be a finite number, got {bonus!r}")
    return float(bonus)


def _enemies_alive(observation: dict[str, Any]) -> int:
    alive = np.asarray(observation["alive"])
    return sum(int(alive[code - 10]) for code in np.asarray(observation["enemies"]).tolist() if code >= 10)


class _EventBonus(Interface):
    """The shared shape: check the raw dict, compare each observation with the one before, pay later."""

    def __init__(self, inner: Interface | None = None, *, bonus: float = 0.1) -> None:
        super().__init__(inner)
        self.bonus = _bonus(type(self).__name__, bonus)
        self._previous: dict[str, Any] | None = None
        self._owed = 0.0
        self._new_slot_rows()

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        from envs.pommerman.observe import observation_space

        return [(cls(bonus=0.1), observation_space(mode, 800), spaces.Discrete(6)) for mode in ("ffa", "team")]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        require_pommerman_dict(self, _KEYS)
        self._previous, self._owed = None, 0.0
        self._new_slot_rows()

    def _new_slot_rows(self) -> None:
        """Empty per-slot state for a batch: each slot's last observation, whether it has one, what it is owed."""
        self._previous_rows = SlotRows(fill=0)
        self._previous_dicts: dict[int, Any] = {}  # stacked observation dicts: each slot's last row
        self._seen_rows, self._owed_rows = SlotRows(fill=False), SlotRows(fill=0.0)

    def reset(self, observation: Any) -> None:
        self._previous, self._owed = observation, 0.0

    def observation(self, observation: Any) -> Any:
        if self._previous is not None:
            self._owed += self.bonus * self._events(self._previous, observation)
        self._previous = observation
        return observation

    def reward(self, reward: float) -> float:
        owed, self._owed = self._owed, 0.0
        return reward + owed

    # On a batch: one row per game slot, the batch's planes (or stacked observation dicts); a call
    # may cover only some slots (``slots``: the slot of each row).
    def reset_batch(self, observations: Any, starting: np.ndarray, slots: Any = None) -> None:
        started = SlotRows.slots(slots, len(starting))[np.asarray(starting, dtype=bool)]
        # The first observation comes next through observation_batch: it only becomes the previous one.
        self._seen_rows.put(np.zeros(len(started), dtype=bool), started)
        self._owed_rows.put(np.zeros(len(started)), started)

    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        if isinstance(observations, dict):
            rows = split_rows(observations)
            chosen = SlotRows.slots(slots, len(rows))
            seen = self._seen_rows.get(chosen).astype(bool)
            events = np.array(
                [self._events(self._previous_dicts[s], row) if had else 0 for s, row, had in zip(chosen, rows, seen)]
            )
            self._previous_dicts.update(zip(chosen.tolist(), rows))
        else:
            current = np.asarray(observations)
            chosen = SlotRows.slots(slots, len(current))
            seen = self._seen_rows.get(chosen).astype(bool)
            events = np.zeros(len(chosen))
            if seen.any():
                previous = self._previous_rows.get(chosen[seen])
                # A view without the agent (a player out of its game sees zeros) is no observation of the game.
                shown = previous[:, _P_SELF].any(axis=(1, 2)) & current[seen][:, _P_SELF].any(axis=(1, 2))
                events[seen] = np.where(shown, self._events_planes(previous, current[seen]), 0)
            self._previous_rows.put(current, chosen)
        self._owed_rows.put(self._owed_rows.get(chosen) + self.bonus * events, chosen)
        self._seen_rows.put(np.ones(len(chosen), dtype=bool), chosen)
        return observations

    def reward_batch(self, rewards: np.ndarray, slots: Any = None) -> np.ndarray:
        chosen = SlotRows.slots(slots, len(rewards))
        out = np.asarray(rewards, dtype=np.float64) + self._owed_rows.get(chosen)
        self._owed_rows.put(np.zeros(len(chosen)), chosen)
        return out

    def _events(self, previous: dict[str, Any], current: dict[str, Any]) -> int:
        raise NotImplementedError

    def _events_planes(self, previous: np.ndarray, current: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"bonus={self.bonus}"]))


class PommermanPickupBonus(_EventBonus):
    """``bonus`` each time the agent steps onto a power-up (extra bomb, range or kick).

    A pickup is a move onto a cell that showed a power-up in the previous observation.

    Args:
        inner: the interface underneath (it must leave the observation dict as it is).
        bonus: the reward of one pickup.

    Raises:
        ValueError: ``bonus`` is not a finite number.
        SpaceMismatchError: at setup, for anything but the pommerman observation ``Dict``.

    Example:
        >>> import numpy as np
        >>> board = np.zeros((11, 11), np.uint8); board[1, 2] = 7  # a range power-up right of the agent
        >>> before = {"board": board, "position": np.array([1, 1]), "alive": np.ones(4), "enemies": [11, 12, 13]}
        >>> after = {**before, "position": np.array([1, 2])}
        >>> PommermanPickupBonus(bonus=0.1)._events(before, after)
        1
    """

    def _events(self, previous: dict[str, Any], current: dict[str, Any]) -> int:
        r, c = (int(v) for v in np.asarray(current["position"]).tolist())
        moved = (r, c) != tuple(int(v) for v in np.asarray(previous["position"]).tolist())
        return int(moved and int(np.asarray(previous["board"])[r, c]) in _POWER_UPS)

    def _events_planes(self, previous: np.ndarray, current: np.ndarray) -> np.ndarray:
        return pickups_planes(previous, current)


class PommermanEnemyDownBonus(_EventBonus):
    """``bonus`` for each enemy that dies (``alive`` flags of the agent's ``enemies``).

    Args:
        inner: the interface underneath (it must leave the observation dict as it is).
        bonus: the reward of one enemy down.

    Raises:
        ValueError: ``bonus`` is not a finite number.
        SpaceMismatchError: at setup, for anything but the pommerman observation ``Dict``.

    Example:
        >>> import numpy as np
        >>> before = {"board": None, "position": None, "alive": np.array([1, 1, 1, 1]), "enemies": [11, 13, 9]}
        >>> after = {**before, "alive": np.array([1, 0, 1, 1])}
        >>> PommermanEnemyDownBonus(bonus=0.5)._events(before, after)
        1
    """

    def _events(self, previous: dict[str, Any], current: dict[str, Any]) -> int:
        return max(0, _enemies_alive(previous) - _enemies_alive(current))

    def _events_planes(self, previous: np.ndarray, current: np.ndarray) -> np.ndarray:
        return enemies_down_planes(previous, current)


def pickups_planes(previous: Any, current: Any) -> np.ndarray:
    """:class:`PommermanPickupBonus`'s events over PommermanBatch views: ``(n,)`` 0/1.

    Args:
        previous, current: ``(n, planes, 11, 11)`` uint8 views of the same seats one step apart
            (a seat whose game restarted in between compares two games: pass only continuing seats).

    Example:
        >>> import numpy as np
        >>> before = np.zeros((1, 22, 11, 11), np.uint8); before[0, 9, 1, 1] = 1; before[0, 8, 1, 2] = 1
        >>> after = np.zeros_like(before); after[0, 9, 1, 2] = 1
        >>> pickups_planes(before, after).tolist()
        [1]
    """
    previous, current = np.asarray(previous), np.asarray(current)
    here = current[:, _P_SELF].astype(bool) & ~previous[:, _P_SELF].astype(bool)  # the cell moved onto
    power_ups = previous[:, list(_P_POWER_UPS)].any(axis=1)
    return (here & power_ups).any(axis=(1, 2)).astype(np.int64)


def enemies_down_planes(previous: Any, current: Any) -> np.ndarray:
    """:class:`PommermanEnemyDownBonus`'s events over PommermanBatch views: ``(n,)`` enemies that died.

    Args:
        previous, current: as :func:`pickups_planes` takes them.
    """
    before = np.asarray(previous)[:, _P_ENEMIES_ALIVE, 0, 0].astype(np.int64)
    after = np.asarray(current)[:, _P_ENEMIES_ALIVE, 0, 0].astype(np.int64)
    return np.maximum(before - after, 0)
