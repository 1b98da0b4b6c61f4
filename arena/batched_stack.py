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

A call may cover only some slots (``slots=``, the slot of each row: in a turn-based game only
the games where the learner is to move reach its stack). Per-game levels then run on those
slots' copies; a level in array form whose batched hook takes a ``slots`` keyword receives the
slot index of each row (``None``: every slot, in order), so it can keep per-slot arrays; one
without that keyword receives the rows alone, which is all a level without per-slot state needs.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.errors import ArenaError, InvalidTypeError, InvalidValueError
from arena.stack import _action_check, blame

__all__ = ["BatchedStack", "split_rows", "stack_batch_options", "stack_rows", "take_rows", "writes_batch"]

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


def take_rows(batch: Any, index: Any) -> Any:
    """``batch[index]`` through the dicts and tuples of a batched ``Dict`` or ``Tuple`` observation.

    Example:
        >>> take_rows({"a": np.array([1, 2, 3])}, [2, 0])["a"].tolist()
        [3, 1]
    """
    if isinstance(batch, dict):
        return {key: take_rows(value, index) for key, value in batch.items()}
    if isinstance(batch, tuple):
        return tuple(take_rows(value, index) for value in batch)
    return batch[index]


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


def stack_batch_options(interface: Any) -> dict[str, Any]:
    """The options of ``env.make_batch`` that the levels of ``interface`` need (``Interface.batch_options``).

    Raises:
        ValueError: two levels need one option with different values.

    Example:
        >>> from arena import Interface
        >>> stack_batch_options(Interface()), stack_batch_options(None)
        ({}, {})
    """
    options: dict[str, Any] = {}
    for level in [] if interface is None else interface.levels():
        for name, value in level.batch_options.items():
            if name in options and options[name] != value:
                raise InvalidValueError(
                    f"{interface}: its levels need the batch made with {name}={options[name]!r} and {name}={value!r}"
                )
            options[name] = value
    return options


def writes_batch(level: Any, hook: str) -> bool:
    """Whether ``level``'s class writes the batched form of the per-game ``hook`` itself."""
    return BATCH_FORMS[hook] in level.overridden_hooks


def _takes_slots(level: Any, hook: str) -> bool:
    """Whether ``level``'s batched form of ``hook`` takes the ``slots`` keyword (the slot of each row)."""
    try:
        parameters = inspect.signature(getattr(level, BATCH_FORMS[hook])).parameters
    except (TypeError, ValueError):  # a builtin or C callable: no keyword to find
        return False
    return "slots" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())


def _runs(level: Any, hook: str) -> bool:
    """Whether ``level`` runs the per-game ``hook`` (its class writes it, or derives it from the batched form)."""
    return hook in level.overridden_hooks


class BatchedStack:
    """An interface stack run over ``batch_size`` games at once.

    Each step, a driver calls :meth:`observation` (with the slots whose episode starts), then
    :meth:`action_mask`, or both at once through :meth:`observe` (which gives each level the two
    in the order its form wants), then :meth:`action` and :meth:`reward` (with the slots whose
    episode ends).
    For every game slot the results equal those of the per-game stack
    (``interface.transform_*``) driven on that game alone. Every method takes ``slots``, the
    slot of each row, where a call covers only some slots (default: every slot, in order).

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
        self._all_slots = np.arange(batch_size)
        self._with_slots = {
            (index, hook): _takes_slots(level, hook)
            for index, level in enumerate(self.levels)
            for hook in BATCH_FORMS
            if writes_batch(level, hook)
        }

    @property
    def stacks(self) -> list[Any]:
        """Each slot's copy of the stack (its outermost level), in slot order."""
        return [levels[-1] for levels in self.slot_levels]

    # ------------------------------------------------------------------ channels
    def observation(self, raw_observations: Any, starting: Any = None, slots: Any = None) -> Any:
        """Raw observations (one row per slot) -> model observations; the rows where ``starting``
        is true are the first of an episode (``transform_reset`` for that game).

        Args:
            raw_observations: the raw observations stacked on axis 0.
            starting: a boolean array, one per row (``None``: no slot starts an episode).
            slots: the slot of each row (``None``: every slot, in order).
        """
        slots = self._slots(slots)
        starting = self._flags(starting, "starting", len(slots))
        observations = raw_observations
        for index in range(len(self.levels)):
            observations = self._observe_level(index, observations, starting, slots)
        return observations

    def _observe_level(self, index: int, observations: Any, starting: np.ndarray, slots: np.ndarray) -> Any:
        """One level's ``reset`` (the starting rows) and ``observation``."""
        level = self.levels[index]
        try:
            if _runs(level, "reset") and starting.any():
                if writes_batch(level, "reset"):
                    self._call(index, "reset", observations, starting, slots=slots)
                else:
                    for row_index, row in enumerate(split_rows(observations)):
                        if starting[row_index]:
                            self.slot_levels[slots[row_index]][index].reset(row)
            if _runs(level, "observation"):
                observations = self._run(index, "observation", observations, slots)
        except Exception as err:
            blame(err, level)
            raise
        return observations

    def observe(
        self, raw_observations: Any, raw_masks: Any, starting: Any = None, slots: Any = None
    ) -> tuple[Any, Any]:
        """:meth:`observation` and :meth:`action_mask` of one step together: ``(observations, masks)``.

        Level by level, a level whose mask hook is written per game hears the mask before the
        observation, as on one game (``interfaces.ActionMaskInObservation`` folds it into the
        observation); a level whose mask hook is written over arrays hears it after the observation
        it belongs to, so it can derive masks from observations (``pommerman_safe_moves``).

        Args:
            raw_observations: the raw observations stacked on axis 0.
            raw_masks: the raw masks stacked on axis 0.
            starting: a boolean array, one per row (``None``: no slot starts an episode).
            slots: the slot of each row (``None``: every slot, in order).

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        slots = self._slots(slots)
        starting = self._flags(starting, "starting", len(slots))
        compiled = self.interface.compiled().action_mask or ()
        translating = {id(level) for level, _hook in compiled}
        observations, masks = raw_observations, raw_masks
        for index, level in enumerate(self.levels):
            masked = id(level) in translating
            if masked and not writes_batch(level, "action_mask"):
                masks = self._run(index, "action_mask", masks, slots)
            observations = self._observe_level(index, observations, starting, slots)
            if masked and writes_batch(level, "action_mask"):
                masks = self._run(index, "action_mask", masks, slots)
        return observations, masks

    def action(self, actions: Any, slots: Any = None) -> Any:
        """Model actions (one row per slot, or per entry of ``slots``) -> raw actions, through the
        levels outermost first.

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
        slots = self._slots(slots)
        for index in mapping:
            actions = self._run(index, "action", actions, slots)
        return actions

    def action_mask(self, raw_masks: Any, slots: Any = None) -> Any:
        """Raw action masks (one row per slot, or per entry of ``slots``) -> masks over the model's actions.

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        compiled = self.interface.compiled().action_mask or ()
        slots = self._slots(slots)
        masks = raw_masks
        for level, _hook in compiled:
            masks = self._run(self.levels.index(level), "action_mask", masks, slots)
        return masks

    def reward(self, rewards: Any, terminated: Any = None, truncated: Any = None, slots: Any = None) -> np.ndarray:
        """Raw rewards (one per slot) -> model rewards; a slot whose ``terminated`` or
        ``truncated`` flag is set ends its episode (``transform_done`` for that game).

        Args:
            rewards: one reward per row.
            terminated: a boolean array, one per row (``None``: none).
            truncated: a boolean array, one per row (``None``: none).
            slots: the slot of each row (``None``: every slot, in order).
        """
        slots = self._slots(slots)
        terminated = self._flags(terminated, "terminated", len(slots))
        truncated = self._flags(truncated, "truncated", len(slots))
        values = np.asarray(rewards, dtype=np.float64)
        for index, level in enumerate(self.levels):
            try:
                if writes_batch(level, "done"):
                    values = np.asarray(
                        self._call(index, "done", values, terminated=terminated, truncated=truncated, slots=slots)
                    )
                elif _runs(level, "done"):
                    values = self._settle_per_game(index, values, terminated, truncated, slots)
                elif _runs(level, "reward"):
                    values = np.asarray(self._run(index, "reward", values, slots), dtype=np.float64)
            except Exception as err:
                blame(err, level)
                raise
        return values

    # ------------------------------------------------------------------ helpers
    def _call(self, index: int, hook: str, *args: Any, slots: np.ndarray, **kwargs: Any) -> Any:
        """A batch-written level's batched form of ``hook``, with ``slots`` where it takes them."""
        level = self.levels[index]
        if self._with_slots[index, hook]:
            kwargs["slots"] = None if slots is self._all_slots else slots
        return getattr(level, BATCH_FORMS[hook])(*args, **kwargs)

    def _run(self, index: int, hook: str, batch: Any, slots: np.ndarray) -> Any:
        """One level's ``hook`` over the rows: its batched form when the class writes it, else
        the per-game hook of each row's slot copy, row by row."""
        if writes_batch(self.levels[index], hook):
            return self._call(index, hook, batch, slots=slots)
        rows = split_rows(batch)
        levels = self.slot_levels
        return stack_rows([getattr(levels[slot][index], hook)(row) for slot, row in zip(slots.tolist(), rows)])

    def _settle_per_game(
        self, index: int, rewards: np.ndarray, terminated: np.ndarray, truncated: np.ndarray, slots: np.ndarray
    ) -> np.ndarray:
        """Each slot's copy of a per-game level: ``done`` for the slots that end, else ``reward``."""
        out = np.empty(len(rewards), dtype=np.float64)
        for row, (slot, value) in enumerate(zip(slots.tolist(), rewards)):
            level = self.slot_levels[slot][index]
            if terminated[row] or truncated[row]:
                value = level.done(value, terminated=bool(terminated[row]), truncated=bool(truncated[row]))
            elif _runs(level, "reward"):
                value = level.reward(value)
            out[row] = value
        return out

    def _slots(self, slots: Any) -> np.ndarray:
        """``slots`` checked: distinct slot indices (``None``: every slot, in order)."""
        if slots is None:
            return self._all_slots
        chosen = np.asarray(slots)
        if (
            chosen.ndim != 1
            or (chosen.size and not np.issubdtype(chosen.dtype, np.integer))
            or (chosen.size and (chosen.min() < 0 or chosen.max() >= self.batch_size))
            or len(np.unique(chosen)) != len(chosen)
        ):
            raise ArenaError(
                f"BatchedStack: slots must be distinct slot indices in [0, {self.batch_size}), got {slots!r}"
            )
        return chosen.astype(np.int64, copy=False)

    def _flags(self, flags: Any, label: str, size: int | None = None) -> np.ndarray:
        size = self.batch_size if size is None else size
        if flags is None:
            return np.zeros(size, dtype=bool)
        flags = np.asarray(flags, dtype=bool)
        if flags.shape != (size,):
            raise ArenaError(
                f"BatchedStack: {label} must have one flag per slot in the call ({size}), got {flags.shape}"
            )
        return flags
