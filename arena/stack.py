"""Running an interface stack: each channel's hooks resolved once, then run in a loop.

An :class:`arena.Interface` describes one level; the drivers here run the whole stack. A
stack is compiled once per :meth:`~arena.Interface.setup` into a :class:`CompiledStack`:
for each channel (observations, actions, rewards, masks) the tuple of the levels' bound hooks
in the order they run, leaving out the levels that do not override that hook; the first
observation and the end of the episode get one function each. Running a channel is a plain
loop over its hooks (:func:`run_hooks`, and :func:`run_each` for a dict of agents), so a
breakpoint in a hook stops in the hook, called from that loop.

On an exception raised inside a hook, the loop records which level raised it
(:func:`failing_level`), so a wrapper names the culprit without reading the traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

import numpy as np
from gymnasium import spaces

from arena.errors import ArenaError, InvalidActionError

__all__ = [
    "HOOKS",
    "ActionCheck",
    "blame",
    "CompiledStack",
    "Hooks",
    "StackDrivers",
    "compile_stack",
    "failing_level",
    "run_each",
    "run_hooks",
]

Hook = Callable[[Any], Any]
#: One channel of a compiled stack: ``(level, hook)`` pairs to apply in order (the level to blame).
Hooks = tuple[tuple[Any, Hook], ...]
#: The hooks of an interface level (see :class:`arena.Interface`).
HOOKS = (
    "reset",
    "observation",
    "action",
    "reward",
    "action_mask",
    "done",
    "reset_batch",
    "observation_batch",
    "action_batch",
    "action_mask_batch",
    "reward_batch",
    "done_batch",
)
_BLAME = "_arena_interface_level"


def failing_level(err: BaseException) -> Any:
    """The innermost interface level whose hook raised ``err`` in a compiled stack, or ``None``."""
    return err.__dict__.get(_BLAME)


def blame(err: BaseException, level: Any) -> None:
    """Record ``level`` as the one whose hook raised ``err`` (see :func:`failing_level`), unless one is recorded."""
    # The innermost level records itself first (a Combine member before the Combine).
    if level is not None and _BLAME not in err.__dict__:
        err.__dict__[_BLAME] = level


def run_hooks(hooks: Hooks, value: Any) -> Any:
    """``value`` through each ``(level, hook)`` of ``hooks`` in turn; an exception is blamed on
    the level whose hook raised it (:func:`failing_level`).

    Example:
        >>> run_hooks((("abs", abs), ("str", str)), -3)
        '3'
    """
    level = None
    try:
        for level, hook in hooks:  # noqa: B007 - the except clause reads the level
            value = hook(value)
        return value
    except Exception as err:
        blame(err, level)
        raise


def run_each(table: Mapping[Any, Hooks], values: Mapping[Any, Any]) -> dict[Any, Any]:
    """A new dict: each agent's value through that agent's hooks in ``table`` (none: unchanged).

    One loop over the agents with the hooks inline, no call per agent but the hooks' own
    (``MultiAgentEnvItfWrapper.step`` writes the same loop out for its per-step channels).

    Example:
        >>> run_each({"a": (("abs", abs),)}, {"a": -1, "b": -2})
        {'a': 1, 'b': -2}
    """
    out = {}
    level = None
    try:
        for agent, value in values.items():
            for level, hook in table.get(agent, ()):  # noqa: B007 - the except clause reads the level
                value = hook(value)
            out[agent] = value
        return out
    except Exception as err:
        blame(err, level)
        raise


class CompiledStack(NamedTuple):
    """The stack's hooks per channel; ``None`` where no level runs a hook on that channel.

    Attributes:
        observation: the ``observation`` hooks, root level first (raw -> model observation); each
            channel is a tuple of ``(level, bound hook)`` pairs.
        action: the ``action`` hooks, outermost level first (model -> raw action), after a check
            of the model action against the outermost action-mapping level's Discrete or
            MultiDiscrete space.
        reward: the ``reward`` hooks, root level first.
        action_mask: the ``action_mask`` hooks, root level first (raw mask -> model mask).
        reset: the first observation of an episode: each level's ``reset`` then its
            ``observation``; ``None`` when no level overrides ``reset`` (use ``observation``).
        done: ``(reward, terminated, truncated) -> final model reward``; ``None`` when no level
            overrides ``done`` (the final reward then goes through ``reward`` like any other).
    """

    observation: Hooks | None
    action: Hooks | None
    reward: Hooks | None
    action_mask: Hooks | None
    reset: Hook | None
    done: Callable[[Any, bool, bool], Any] | None


class ActionCheck:
    """The check that a model action lies in a level's Discrete or MultiDiscrete action space, run
    before the action hooks: a hook that maps by table lookup would otherwise turn ``-1`` or ``n``
    into some legal raw action (numpy indexing wraps around).

    Calling it returns the action or raises :class:`~arena.errors.InvalidActionError`. A plain
    ``int`` in ``range(low, high)`` is always valid, so a driver may test that inline and call the
    check only for other values (``low == high`` for a MultiDiscrete space: every action is called).
    """

    __slots__ = ("level", "space", "low", "high")

    def __init__(self, level: Any, space: spaces.Discrete | spaces.MultiDiscrete) -> None:
        self.level, self.space = level, space
        if isinstance(space, spaces.Discrete):
            self.low, self.high = int(space.start), int(space.start) + int(space.n)
        else:
            self.low = self.high = 0  # an empty range: every action takes the full check

    def __call__(self, action: Any) -> Any:
        space = self.space
        if isinstance(space, spaces.Discrete):
            if type(action) is int and self.low <= action < self.high:
                return action
            value = (
                action.item()
                if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
                else action
            )
            if (
                isinstance(value, (int, np.integer))
                and not isinstance(value, (bool, np.bool_))
                and self.low <= value < self.high
            ):
                return action
        else:
            values = np.asarray(action)
            if values.shape == space.shape and values.dtype.kind in "iu" and space.contains(values.astype(space.dtype)):
                return action
        raise InvalidActionError(f"{self.level}: action {action!r} is not in {space}")


def _action_check(level: Any) -> ActionCheck | None:
    """The :class:`ActionCheck` of ``level``'s action space; ``None`` for spaces other than
    (exactly) Discrete and MultiDiscrete."""
    space = level.action_space
    return ActionCheck(level, space) if type(space) in (spaces.Discrete, spaces.MultiDiscrete) else None


def _overrides(level: Any, hook: str) -> bool:
    """Whether ``level``'s class overrides ``hook`` (a level runs only the hooks it overrides)."""
    return hook in level.overridden_hooks


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
            blame(err, level)
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
            blame(err, level)
            raise

    return end


def _runs_action_mask(level: Any) -> bool:
    """Whether masks go through ``level``'s ``action_mask``: it overrides it, or it maps actions
    (overrides ``action``) or changes the action space, so the base ``action_mask`` refuses masks."""
    return (
        _overrides(level, "action_mask")
        or _overrides(level, "action")
        or level.action_space != level.inner_action_space
    )


def compile_stack(levels: Sequence[Any]) -> CompiledStack:
    """The :class:`CompiledStack` of ``levels`` (root first, :class:`arena.Interface` objects, set up).

    A level runs the hooks its class overrides. Masks also go through the base ``action_mask``
    of a level that maps actions or changes the action space without overriding it, which
    refuses them (:class:`~arena.errors.MaskTranslationError`; see :class:`arena.Interface`).
    """

    def channel(runs: Sequence[Any], hook: str) -> Hooks | None:
        return tuple((lv, getattr(lv, hook)) for lv in runs) or None

    actions = [lv for lv in reversed(levels) if _overrides(lv, "action")]
    # Checked once, by the outermost level that maps actions: what it passes inwards lies in the
    # inner space by the interface contract (check_interface tests it).
    check = _action_check(actions[0]) if actions else None
    action = channel(actions, "action")
    return CompiledStack(
        observation=channel([lv for lv in levels if _overrides(lv, "observation")], "observation"),
        action=((actions[0], check), *action) if action is not None and check is not None else action,
        reward=channel([lv for lv in levels if _overrides(lv, "reward")], "reward"),
        action_mask=channel([lv for lv in levels if _runs_action_mask(lv)], "action_mask"),
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
        if stack.reset is not None:
            return stack.reset(raw_observation)
        return raw_observation if stack.observation is None else run_hooks(stack.observation, raw_observation)

    def transform_observation(self, raw_observation: Any) -> Any:
        """Run a raw observation through the stack (root first)."""
        hooks = (self._compiled or self.compiled()).observation
        return raw_observation if hooks is None else run_hooks(hooks, raw_observation)

    def transform_action(self, action: Any) -> Any:
        """Run a model action back through the stack (outermost first) to a raw action.

        Raises:
            InvalidActionError: the action is outside the outermost action-mapping level's
                Discrete or MultiDiscrete space.
        """
        hooks = (self._compiled or self.compiled()).action
        return action if hooks is None else run_hooks(hooks, action)

    def transform_reward(self, reward: float) -> float:
        """Run a reward through every level's ``reward`` hook (root first)."""
        hooks = (self._compiled or self.compiled()).reward
        return reward if hooks is None else run_hooks(hooks, reward)

    def transform_action_mask(self, raw_mask: Any) -> Any:
        """Translate a raw action mask into a mask over the model action space.

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        hooks = (self._compiled or self.compiled()).action_mask
        return raw_mask if hooks is None else run_hooks(hooks, raw_mask)

    def transform_done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        """End the episode at every level (root first) and return the final model reward.

        Levels that override ``done`` receive the flags; the others transform the final
        reward with ``reward``, like any reward.
        """
        stack = self._compiled or self.compiled()
        if stack.done is not None:
            return stack.done(reward, terminated, truncated)
        return reward if stack.reward is None else run_hooks(stack.reward, reward)

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
