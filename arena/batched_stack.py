"""Running an interface stack over a batch of games, with one copy of each per-game level per slot.

Every hook of :class:`arena.Interface` has a batched form (``observation_batch``,
``action_batch``, ``action_mask_batch``, ``reward_batch``, ``reset_batch``, ``done_batch``) whose
values are stacked along axis 0, one row per game slot. A level writes one form and it serves
both places:

* a level that writes only per-game hooks runs on a batch game by game; :class:`BatchedStack`
  keeps one copy of the stack per game slot, so such a level's per-episode state (a frame stack,
  a shaping potential) is kept per game, exactly as a single game keeps it;
* a level that writes the batched form is used as is on a batch (one object for every slot; its
  ``reset_batch`` says which slots start an episode), and on one game its per-game hooks run the
  batched form on a batch of one (:class:`arena.Interface` derives them).

Rows are numpy arrays stacked on axis 0; a dict or tuple observation is batched as a dict or
tuple of such arrays (:func:`stack_rows`, :func:`split_rows`).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.errors import ArenaError, InvalidTypeError
from arena.stack import _action_check, blame

__all__ = ["BatchedStack", "split_rows", "stack_rows", "writes_batch"]

#: Per-game hook -> its batched form.
BATCH_FORMS = {
    "reset": "reset_batch",
    "observation": "observation_batch",
    "action": "action_batch",
    "action_mask": "action_mask_batch",
    "reward": "reward_batch",
    "done": "done_batch",
}


def stack_rows(rows: Sequence[Any]) -> Any:
    """One batch from per-game values: arrays stacked on axis 0, dicts and tuples element by element.

    Example:
        >>> stack_rows([{"a": 1}, {"a": 2}])["a"].tolist()
        [1, 2]
    """
    first = rows[0]
    if isinstance(first, dict):
        return {key: stack_rows([row[key] for row in rows]) for key in first}
    if isinstance(first, tuple):
        return tuple(stack_rows([row[index] for row in rows]) for index in range(len(first)))
    return np.stack([np.asarray(row) for row in rows])


def split_rows(batch: Any) -> list[Any]:
    """The per-game values of a batch (the inverse of :func:`stack_rows`).

    Example:
        >>> split_rows({"a": np.array([1, 2])})
        [{'a': np.int64(1)}, {'a': np.int64(2)}]
    """
    if isinstance(batch, dict):
        columns = {key: split_rows(value) for key, value in batch.items()}
        size = len(next(iter(columns.values())))
        return [{key: column[index] for key, column in columns.items()} for index in range(size)]
    if isinstance(batch, tuple):
        parts = [split_rows(value) for value in batch]
        return [tuple(part[index] for part in parts) for index in range(len(parts[0]))]
    return list(np.asarray(batch))


def writes_batch(level: Any, hook: str) -> bool:
    """Whether ``level``'s class writes the batched form of the per-game ``hook`` itself."""
    return BATCH_FORMS[hook] in level.overridden_hooks


def _runs(level: Any, hook: str) -> bool:
    """Whether ``level`` runs the per-game ``hook`` (its class writes it, or derives it from the batched form)."""
    return hook in level.overridden_hooks


class BatchedStack:
    """An interface stack run over ``batch_size`` games at once.

    Each step, a driver calls :meth:`observation` (with the slots whose episode starts), then
    :meth:`action_mask`, :meth:`action` and :meth:`reward` (with the slots whose episode ends).
    For every game slot the results equal those of the per-game stack
    (``interface.transform_*``) driven on that game alone.

    Args:
        interface: the stack, set up on one game's raw spaces. Its batch-written levels serve
            the whole batch; each slot gets its own deep copy of the stack for the per-game levels.
        batch_size: the number of game slots.

    Example:
        >>> from gymnasium import spaces
        >>> from arena import Interface
        >>> class Double(Interface):
        ...     def reward(self, reward):
        ...         return 2 * reward
        >>> itf = Double()
        >>> itf.setup(spaces.Discrete(3), spaces.Discrete(2))
        >>> BatchedStack(itf, 2).reward(np.array([1.0, 0.5])).tolist()
        [2.0, 1.0]
    """

    def __init__(self, interface: Any, batch_size: int) -> None:
        if type(batch_size) is not int or batch_size < 1:
            raise InvalidTypeError(f"BatchedStack: batch_size must be a positive int, got {batch_size!r}")
        self.interface = interface
        self.batch_size = batch_size
        self.levels = interface._set_up_levels()
        # Per-game levels keep per-episode state, so every slot runs its own copy of them.
        self.slot_levels = [copy.deepcopy(interface).levels() for _ in range(batch_size)]

    # ------------------------------------------------------------------ channels
    def observation(self, raw_observations: Any, starting: Any = None) -> Any:
        """Raw observations (one row per slot) -> model observations; the rows where ``starting``
        is true are the first of an episode (``transform_reset`` for that game).

        Args:
            raw_observations: the raw observations stacked on axis 0.
            starting: a boolean array, one per slot (``None``: no slot starts an episode).
        """
        starting = self._flags(starting, "starting")
        observations = raw_observations
        for index, level in enumerate(self.levels):
            resets, observes = _runs(level, "reset"), _runs(level, "observation")
            try:
                if resets and starting.any():
                    if writes_batch(level, "reset"):
                        level.reset_batch(observations, starting)
                    else:
                        for slot, row in enumerate(split_rows(observations)):
                            if starting[slot]:
                                self.slot_levels[slot][index].reset(row)
                if observes:
                    observations = self._run(index, "observation", observations)
            except Exception as err:
                blame(err, level)
                raise
        return observations

    def action(self, actions: Any) -> Any:
        """Model actions (one row per slot) -> raw actions, through the levels outermost first.

        Raises:
            InvalidActionError: a slot's action is outside the outermost action-mapping level's
                Discrete or MultiDiscrete space.
        """
        mapping = [index for index in reversed(range(len(self.levels))) if _runs(self.levels[index], "action")]
        # Checked by the outermost level that maps actions, as the per-game stack checks them.
        check = _action_check(self.levels[mapping[0]]) if mapping else None
        if check is not None:
            for row in split_rows(actions):
                check(row)
        for index in mapping:
            actions = self._run(index, "action", actions)
        return actions

    def action_mask(self, raw_masks: Any) -> Any:
        """Raw action masks (one row per slot) -> masks over the model's actions.

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        compiled = self.interface.compiled().action_mask or ()
        masks = raw_masks
        for level, _hook in compiled:
            masks = self._run(self.levels.index(level), "action_mask", masks)
        return masks

    def reward(self, rewards: Any, terminated: Any = None, truncated: Any = None) -> np.ndarray:
        """Raw rewards (one per slot) -> model rewards; a slot whose ``terminated`` or
        ``truncated`` flag is set ends its episode (``transform_done`` for that game).

        Args:
            rewards: one reward per slot.
            terminated: a boolean array, one per slot (``None``: none).
            truncated: a boolean array, one per slot (``None``: none).
        """
        terminated, truncated = self._flags(terminated, "terminated"), self._flags(truncated, "truncated")
        values = np.asarray(rewards, dtype=np.float64)
        for index, level in enumerate(self.levels):
            try:
                if writes_batch(level, "done"):
                    values = np.asarray(level.done_batch(values, terminated=terminated, truncated=truncated))
                elif _runs(level, "done"):
                    values = self._settle_per_game(index, values, terminated, truncated)
                elif _runs(level, "reward"):
                    values = np.asarray(self._run(index, "reward", values), dtype=np.float64)
            except Exception as err:
                blame(err, level)
                raise
        return values

    # ------------------------------------------------------------------ helpers
    def _run(self, index: int, hook: str, batch: Any) -> Any:
        """One level's ``hook`` over the batch: its batched form when the class writes it, else
        the per-game hook of each slot's copy, row by row."""
        level = self.levels[index]
        if writes_batch(level, hook):
            return getattr(level, BATCH_FORMS[hook])(batch)
        rows = split_rows(batch)
        return stack_rows([getattr(self.slot_levels[slot][index], hook)(row) for slot, row in enumerate(rows)])

    def _settle_per_game(
        self, index: int, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray
    ) -> np.ndarray:
        """Each slot's copy of a per-game level: ``done`` for the slots that end, else ``reward``."""
        out = np.empty(len(rewards), dtype=np.float64)
        for slot, value in enumerate(rewards):
            level = self.slot_levels[slot][index]
            if terminated[slot] or truncated[slot]:
                value = level.done(value, terminated=bool(terminated[slot]), truncated=bool(truncated[slot]))
            elif _runs(level, "reward"):
                value = level.reward(value)
            out[slot] = value
        return out

    def _flags(self, flags: Any, label: str) -> np.ndarray:
        if flags is None:
            return np.zeros(self.batch_size, dtype=bool)
        flags = np.asarray(flags, dtype=bool)
        if flags.shape != (self.batch_size,):
            raise ArenaError(
                f"BatchedStack: {label} must have one flag per slot ({self.batch_size}), got {flags.shape}"
            )
        return flags
