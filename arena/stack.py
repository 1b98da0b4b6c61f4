"""Running an interface stack: its levels compiled into one function per channel.

An :class:`arena.Interface` describes one level; the drivers here run the whole stack. A
stack is compiled once per :meth:`~arena.Interface.setup` into a :class:`CompiledStack`:
one function per channel (observations, actions, rewards, masks, the first observation,
the end of the episode), each calling only the hooks its levels really override. A hook
that returns its argument unchanged (``return observation``) counts as not overridden, so
pass-through levels cost nothing on the per-step path.

The drivers are the ``transform_*`` methods of :class:`StackDrivers`, which
:class:`arena.Interface` inherits; wrappers read :meth:`StackDrivers.compiled` to skip the
channels no level changes.

Each compiled function records, on an exception raised inside a hook, which level raised
it (:func:`failing_level`), so a wrapper names the culprit without reading the traceback.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces

from arena.errors import ArenaError, InvalidActionError

__all__ = [
    "HOOKS",
    "PASS_THROUGH_HOOKS",
    "CompiledStack",
    "StackDrivers",
    "compile_stack",
    "failing_level",
    "is_pass_through",
]

Hook = Callable[[Any], Any]
#: The hooks of an interface level (see :class:`arena.Interface`).
HOOKS = ("reset", "observation", "action", "reward", "action_mask", "done", "observation_batch")
#: Hooks whose identity (``return argument``) is recognised and skipped.
PASS_THROUGH_HOOKS = ("observation", "action", "reward", "action_mask")
_BLAME = "_arena_interface_level"


def _returns_its_argument(self: Any, value: Any) -> Any:
    return value


_IDENTITY_CODE = _returns_its_argument.__code__
# Flags that change what a call does. The others (``from __future__`` features, a function
# nested in another) differ between modules and do not, so a user's hook is compared without them.
_CALL_FLAGS = (
    inspect.CO_VARARGS
    | inspect.CO_VARKEYWORDS
    | inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ITERABLE_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
)


def is_pass_through(function: Any) -> bool:
    """Whether ``function`` is a ``def hook(self, value): return value`` (docstring or not).

    Example:
        >>> class Keep:
        ...     def observation(self, observation):
        ...         '''Nothing to change.'''
        ...         return observation
        >>> is_pass_through(Keep.observation), is_pass_through(lambda self, x: x + 0)
        (True, False)
    """
    code = getattr(function, "__code__", None)
    return (
        code is not None
        and code.co_code == _IDENTITY_CODE.co_code
        and code.co_argcount == 2
        and code.co_kwonlyargcount == 0
        and not code.co_flags & _CALL_FLAGS
    )


def failing_level(err: BaseException) -> Any:
    """The innermost interface level whose hook raised ``err`` in a compiled stack, or ``None``."""
    return err.__dict__.get(_BLAME)


def _blame(err: BaseException, level: Any) -> None:
    # The innermost level records itself first (a Combine member before the Combine).
    if _BLAME not in err.__dict__:
        err.__dict__[_BLAME] = level


class CompiledStack(NamedTuple):
    """The stack's functions, one per channel; ``None`` where every level leaves it unchanged.

    Attributes:
        observation: raw observation -> model observation (root level first).
        action: model action -> raw action (outermost level first), checked against the
            outermost action-mapping level's Discrete or MultiDiscrete space.
        reward: reward -> model reward (root level first).
        action_mask: raw mask -> mask over the model action space.
        reset: the first observation of an episode: each level's ``reset`` then its
            ``observation``; ``None`` when no level overrides ``reset`` (use ``observation``).
        done: ``(reward, terminated, truncated) -> final model reward``; ``None`` when no level
            overrides ``done`` (the final reward then goes through ``reward`` like any other).
    """

    observation: Hook | None
    action: Hook | None
    reward: Hook | None
    action_mask: Hook | None
    reset: Hook | None
    done: Callable[[Any, bool, bool], Any] | None


def _unchecked(action: Any) -> Any:
    return action


class _Guard(NamedTuple):
    """The check on the model action at the head of an action chain: integers in ``[low, high)``
    pass inline (the common case); anything else goes to ``slow``, which returns the action or
    raises :class:`~arena.errors.InvalidActionError`."""

    low: int
    high: int
    slow: Hook


def _chain(steps: Sequence[tuple[Any, Hook]], guard: _Guard | None = None) -> Hook | None:
    """Compose the ``(level, hook)`` steps (applied in order) into one call; ``None`` for none.

    Short stacks get one closure each (no loop, the guard inline); the level running is kept in
    a local, so an exception is blamed on it at no cost on the normal path.
    """
    if not steps:
        return None
    checks = guard is not None
    low, high, slow = guard if guard is not None else (0, 0, _unchecked)
    if len(steps) == 1:
        ((l0, f0),) = steps

        def one(x: Any) -> Any:
            if checks and not (type(x) is int and low <= x < high):
                x = slow(x)
            try:
                return f0(x)
            except Exception as err:
                _blame(err, l0)
                raise

        return one
    if len(steps) == 2:
        (l0, f0), (l1, f1) = steps

        def two(x: Any) -> Any:
            if checks and not (type(x) is int and low <= x < high):
                x = slow(x)
            level = l0
            try:
                x = f0(x)
                level = l1
                return f1(x)
            except Exception as err:
                _blame(err, level)
                raise

        return two
    if len(steps) == 3:
        (l0, f0), (l1, f1), (l2, f2) = steps

        def three(x: Any) -> Any:
            if checks and not (type(x) is int and low <= x < high):
                x = slow(x)
            level = l0
            try:
                x = f0(x)
                level = l1
                x = f1(x)
                level = l2
                return f2(x)
            except Exception as err:
                _blame(err, level)
                raise

        return three
    chain = tuple(steps)

    def many(x: Any) -> Any:
        if checks and not (type(x) is int and low <= x < high):
            x = slow(x)
        level = None
        try:
            for level, function in chain:  # noqa: B007 - the except clause reads the level
                x = function(x)
            return x
        except Exception as err:
            _blame(err, level)
            raise

    return many


def _action_guard(level: Any) -> _Guard | None:
    """The check that a model action lies in ``level``'s Discrete or MultiDiscrete action space: a
    hook that maps by table lookup would otherwise turn ``-1`` or ``n`` into some legal raw action
    (numpy indexing wraps around). ``None`` for other spaces."""
    space = level.action_space
    if type(space) is spaces.Discrete:
        start, n = int(space.start), int(space.n)

        def check_discrete(action: Any) -> Any:
            value = (
                action.item()
                if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
                else action
            )
            if (
                isinstance(value, (int, np.integer))
                and not isinstance(value, (bool, np.bool_))
                and 0 <= value - start < n
            ):
                return action
            raise InvalidActionError(f"{level}: action {action!r} is not in {space}")

        return _Guard(start, start + n, check_discrete)
    if type(space) is spaces.MultiDiscrete:

        def check_multi(action: Any) -> Any:
            values = np.asarray(action)
            if values.shape == space.shape and values.dtype.kind in "iu" and space.contains(values.astype(space.dtype)):
                return action
            raise InvalidActionError(f"{level}: action {action!r} is not in {space}")

        return _Guard(0, 0, check_multi)  # an empty range: every action takes the full check
    return None


def _overrides(level: Any, hook: str) -> bool:
    """Whether ``level`` overrides ``hook`` with more than a pass-through."""
    return hook in level.overridden_hooks and hook not in level.pass_through_hooks


def _maps_actions(level: Any, hook: str) -> bool:
    """Whether ``level`` runs ``hook`` ("action" or "action_mask"): it overrides it with more than a
    pass-through, or overrides it at all and changes the action space (a pass-through action
    then still checks the model action against the level's space, and a pass-through mask is
    the level's own claim that masks keep their meaning)."""
    if hook not in level.overridden_hooks:
        return False
    return hook not in level.pass_through_hooks or level.action_space != level.inner_action_space


def _start_function(levels: Sequence[Any]) -> Hook | None:
    """Each level's ``reset`` then its ``observation`` (root first); ``None`` when none resets."""
    if not any(_overrides(lv, "reset") for lv in levels):
        return None
    starts = [
        (lv, lv.reset if _overrides(lv, "reset") else None, lv.observation if _overrides(lv, "observation") else None)
        for lv in levels
    ]

    def start(observation: Any) -> Any:
        level = None
        try:
            for level, reset, observe in starts:  # noqa: B007 - the except clause reads the level
                if reset is not None:
                    reset(observation)
                if observe is not None:
                    observation = observe(observation)
            return observation
        except Exception as err:
            _blame(err, level)
            raise

    return start


def _done_function(levels: Sequence[Any]) -> Callable[[Any, bool, bool], Any] | None:
    """Each level ends the episode with ``done()`` if it overrides it, else transforms the final
    reward with ``reward()``; ``None`` when no level overrides ``done``."""
    if not any(_overrides(lv, "done") for lv in levels):
        return None
    ends = [
        (lv, lv.done, True) if _overrides(lv, "done") else (lv, lv.reward, False)
        for lv in levels
        if _overrides(lv, "done") or _overrides(lv, "reward")
    ]

    def end(reward: Any, terminated: bool, truncated: bool) -> Any:
        level = None
        try:
            for level, finish, wants_flags in ends:  # noqa: B007 - the except clause reads the level
                reward = finish(reward, terminated=terminated, truncated=truncated) if wants_flags else finish(reward)
            return reward
        except Exception as err:
            _blame(err, level)
            raise

    return end


def compile_stack(levels: Sequence[Any]) -> CompiledStack:
    """The :class:`CompiledStack` of ``levels`` (root first, :class:`arena.Interface` objects, set up).

    Masks go through each level's ``action_mask``; a level that changes the action space
    but keeps the base ``action_mask`` refuses masks (:class:`~arena.errors.MaskTranslationError`
    when one comes), and so does a class whose ``action`` comes without its own
    ``action_mask`` (see :class:`arena.Interface`).
    """
    masks = []
    for lv in levels:
        if _maps_actions(lv, "action_mask"):
            masks.append((lv, lv.action_mask))
        elif "action_mask" not in lv.overridden_hooks and lv.action_space != lv.inner_action_space:
            masks.append((lv, lv._untranslatable_mask))
    actions = [(lv, lv.action) for lv in reversed(levels) if _maps_actions(lv, "action")]
    return CompiledStack(
        observation=_chain([(lv, lv.observation) for lv in levels if _overrides(lv, "observation")]),
        # Checked once, by the outermost level that maps actions: what it passes inwards lies in the
        # inner space by the interface contract (check_interface tests it).
        action=_chain(actions, _action_guard(actions[0][0])) if actions else None,
        reward=_chain([(lv, lv.reward) for lv in levels if _overrides(lv, "reward")]),
        action_mask=_chain(masks),
        reset=_start_function(levels),
        done=_done_function(levels),
    )


class StackDrivers:
    """The drivers of an interface stack, inherited by :class:`arena.Interface`.

    Drivers (wrappers, agents) call the ``transform_*`` methods, which run the whole stack
    from the outermost level they are called on; hooks a level does not override are skipped.
    """

    inner: Any
    overridden_hooks: ClassVar[frozenset[str]] = frozenset()
    pass_through_hooks: ClassVar[frozenset[str]] = frozenset()
    _compiled: CompiledStack | None = None

    def levels(self) -> list[Any]:
        """The stack from the root (raw side) to this interface."""
        stack: list[Any] = []
        level: Any = self
        while level is not None:
            stack.append(level)
            level = level.inner
        stack.reverse()
        return stack

    def _set_up_levels(self) -> list[Any]:
        levels = self.levels()
        if levels[0]._raw_observation_space is None:
            raise ArenaError(f"{self}: setup(observation_space, action_space) has not been called")
        return levels

    def compiled(self) -> CompiledStack:
        """The stack's :class:`CompiledStack`, compiled on first use after each ``setup``.

        Raises:
            ArenaError: ``setup`` has not been called.
        """
        if self._compiled is None:
            self._compiled = compile_stack(self._set_up_levels())
        return self._compiled

    def transform_reset(self, raw_observation: Any) -> Any:
        """Reset every level (root first) and return the first model observation."""
        stack = self._compiled or self.compiled()
        function = stack.reset or stack.observation
        return raw_observation if function is None else function(raw_observation)

    def transform_observation(self, raw_observation: Any) -> Any:
        """Run a raw observation through the stack (root first)."""
        function = (self._compiled or self.compiled()).observation
        return raw_observation if function is None else function(raw_observation)

    def transform_action(self, action: Any) -> Any:
        """Run a model action back through the stack (outermost first) to a raw action.

        Raises:
            InvalidActionError: the action is outside the outermost action-mapping level's
                Discrete or MultiDiscrete space.
        """
        function = (self._compiled or self.compiled()).action
        return action if function is None else function(action)

    def transform_reward(self, reward: float) -> float:
        """Run a reward through every level's ``reward`` hook (root first)."""
        function = (self._compiled or self.compiled()).reward
        return reward if function is None else function(reward)

    def transform_action_mask(self, raw_mask: Any) -> Any:
        """Translate a raw action mask into a mask over the model action space.

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        function = (self._compiled or self.compiled()).action_mask
        return raw_mask if function is None else function(raw_mask)

    def transform_done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        """End the episode at every level (root first) and return the final model reward.

        Levels that override ``done`` receive the flags; the others transform the final
        reward with ``reward``, like any reward.
        """
        stack = self._compiled or self.compiled()
        if stack.done is not None:
            return stack.done(reward, terminated, truncated)
        return reward if stack.reward is None else stack.reward(reward)

    def transform_observation_batch(self, raw_observations: Any) -> Any:
        """Run raw observations stacked on axis 0 through the stack (every level's
        ``observation_batch``), for interfaces without per-episode state.

        Example:
            >>> import numpy as np
            >>> from gymnasium import spaces
            >>> from arena import Interface
            >>> class Double(Interface):
            ...     def observation(self, observation):
            ...         return 2 * observation
            >>> itf = Double()
            >>> itf.setup(spaces.Box(0, 1, (2,)), spaces.Discrete(2))
            >>> itf.transform_observation_batch(np.ones((3, 2))).tolist()
            [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]
        """
        observations = raw_observations
        for level in self._set_up_levels():
            if _overrides(level, "observation"):
                observations = level.observation_batch(observations)
        return observations

    @property
    def stateful(self) -> bool:
        """Whether some level keeps per-episode state (overrides ``reset`` or ``done``)."""
        return any(_overrides(level, "reset") or _overrides(level, "done") for level in self.levels())
