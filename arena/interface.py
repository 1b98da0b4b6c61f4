"""Interfaces: stackable, per-agent transformations between raw and model spaces.

An interface turns one agent's raw observation into the features a model wants and the
model's action back into a raw action. Interfaces stack like Gymnasium wrappers
(``B(A())``): observations go through the innermost interface first, actions through
the outermost first. The same object can sit on an env (:class:`arena.EnvItfWrapper`)
for training or on an agent (:class:`arena.AgtItfWrapper`) for playing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import ArenaError, InvalidActionError, MaskTranslationError, SpaceMismatchError

__all__ = ["Interface", "Combine"]


def _overrides(obj: object, name: str) -> bool:
    """Whether ``type(obj)`` replaces the ``Interface`` hook ``name``."""
    return getattr(type(obj), name) is not getattr(Interface, name)


def _checked_action(level: Interface, inner: Sequence[Callable[[Any], Any]] = ()) -> Callable[[Any], Any]:
    """``level.action`` then the ``inner`` levels' hooks, behind a check that the action lies in
    the level's Discrete or MultiDiscrete action space: a hook that maps by table lookup would
    otherwise turn ``-1`` or ``n`` into some legal raw action (numpy indexing wraps around)."""
    space = level.action_space
    hook = _chain([level.action, *inner])
    if type(space) is spaces.Discrete:
        start, n = int(space.start), int(space.n)
        hooks = (level.action, *inner)
        first = hooks[0]
        second = hooks[1] if len(hooks) > 1 else None
        rest = _chain(hooks[2:])

        def checked(action: Any) -> Any:
            if type(action) is int and 0 <= action - start < n:  # the common case, one frame per level
                if second is None:
                    return first(action)
                return second(first(action)) if rest is None else rest(second(first(action)))
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                value = action.item()
            else:
                value = action
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) \
                    and 0 <= value - start < n:
                return hook(action)
            raise InvalidActionError(f"{level}: action {action!r} is not in {space}")

        return checked
    if type(space) is spaces.MultiDiscrete:

        def checked_multi(action: Any) -> Any:
            values = np.asarray(action)
            if values.shape == space.shape and values.dtype.kind in "iu" and space.contains(values.astype(space.dtype)):
                return hook(action)
            raise InvalidActionError(f"{level}: action {action!r} is not in {space}")

        return checked_multi
    return hook


def _chain(functions: Sequence[Callable[[Any], Any]]) -> Callable[[Any], Any] | None:
    """Compose ``functions`` (applied in order) into one call; ``None`` for identity."""
    if not functions:
        return None
    if len(functions) == 1:
        return functions[0]
    if len(functions) == 2:
        f, g = functions
        return lambda x: g(f(x))
    if len(functions) == 3:
        f, g, h = functions
        return lambda x: h(g(f(x)))

    def apply_all(x: Any) -> Any:
        for function in functions:
            x = function(x)
        return x

    return apply_all


class Interface:
    """One agent's view of an environment: a stackable pair of transformations.

    Subclasses override only the hooks they need (one job per subclass, like
    Gymnasium wrappers):

    * :meth:`setup` — call ``super().setup(...)`` first, then validate
      ``self.inner_observation_space`` / ``self.inner_action_space`` and assign
      ``self.observation_space`` / ``self.action_space`` if the interface changes them
      (or override those properties). Spaces are computed once here.
    * :meth:`reset` — the first observation of an episode, at this level.
    * :meth:`observation` — inner observation → this level's observation.
    * :meth:`action` — this level's action → inner action.
    * :meth:`reward` and :meth:`action_mask` — optional.
    * :meth:`done` — the agent's episode ended (final reward, terminated or truncated);
      every driver calls it: :class:`arena.EnvItfWrapper`, :class:`arena.AgtItfWrapper`
      (through :func:`arena.play`) and :class:`arena.training.SingleAgentEnv`.

    An interface that overrides :meth:`action` or changes the action space must also
    override :meth:`action_mask`, or masks that come through raise
    :class:`~arena.errors.MaskTranslationError` instead of passing on with the wrong
    meaning.

    Drivers (wrappers, agents) call the ``transform_*`` methods, which run the whole
    stack; hooks that a level does not override are skipped.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> class Double(Interface):
        ...     def setup(self, observation_space, action_space):
        ...         super().setup(observation_space, action_space)
        ...         box = self.inner_observation_space
        ...         self.observation_space = spaces.Box(2 * box.low, 2 * box.high)
        ...     def observation(self, observation):
        ...         return 2 * observation
        >>> itf = Double(Double())
        >>> itf.setup(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(3))
        >>> itf.transform_observation(np.ones(2, dtype=np.float32)).tolist()
        [4.0, 4.0]
        >>> str(itf)
        'Double(Double())'
    """

    def __init__(self, inner: Interface | None = None) -> None:
        """Build this interface on ``inner`` (``None``: directly on the raw spaces)."""
        if inner is not None and not isinstance(inner, Interface):
            raise TypeError(
                f"{type(self).__name__}: inner must be an arena.Interface or None, "
                f"got {type(inner).__name__}"
            )
        self.inner = inner
        self._observation_space: spaces.Space | None = None
        self._action_space: spaces.Space | None = None
        self._raw_observation_space: spaces.Space | None = None
        self._raw_action_space: spaces.Space | None = None
        self._compiled: tuple[Any, ...] | None = None

    # ------------------------------------------------------------------ setup
    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        """Receive the raw spaces of the agent this interface serves.

        The base implementation sets up the inner stack first. Calling ``setup`` again
        (for another agent or env) recomputes everything.

        Raises:
            SpaceMismatchError: in subclasses, for spaces they cannot handle.
            TypeError: when the arguments are not gymnasium spaces.
        """
        for label, space in (("observation_space", observation_space), ("action_space", action_space)):
            if not isinstance(space, spaces.Space):
                raise TypeError(
                    f"{self}: setup() expects gymnasium spaces, got {type(space).__name__} "
                    f"for {label}"
                )
        self._observation_space = None
        self._action_space = None
        self._compiled = None
        if self.inner is not None:
            self.inner.setup(observation_space, action_space)
        else:
            self._raw_observation_space = observation_space
            self._raw_action_space = action_space

    def _require_space(self, space: type[spaces.Space] | tuple[type[spaces.Space], ...], which: str) -> spaces.Space:
        """Return the inner ``which`` space ("observation" or "action"), checking its type.

        Raises:
            SpaceMismatchError: naming this interface, the space it got and what it needs.
        """
        got = self.inner_observation_space if which == "observation" else self.inner_action_space
        if not isinstance(got, space):
            names = space.__name__ if isinstance(space, type) else " or ".join(s.__name__ for s in space)
            raise SpaceMismatchError(f"{self}: needs a {names} {which} space, got {got}")
        return got

    # ------------------------------------------------------------------ spaces
    @property
    def observation_space(self) -> spaces.Space:
        """This level's observation space (the inner one unless this level changes it)."""
        if self._observation_space is not None:
            return self._observation_space
        return self.inner_observation_space

    @observation_space.setter
    def observation_space(self, space: spaces.Space) -> None:
        self._observation_space = space

    @property
    def action_space(self) -> spaces.Space:
        """This level's action space (the inner one unless this level changes it)."""
        if self._action_space is not None:
            return self._action_space
        return self.inner_action_space

    @action_space.setter
    def action_space(self, space: spaces.Space) -> None:
        self._action_space = space

    @property
    def inner_observation_space(self) -> spaces.Space:
        """The observation space coming into this level (raw at the root)."""
        if self.inner is not None:
            return self.inner.observation_space
        if self._raw_observation_space is None:
            raise ArenaError(f"{self}: setup(observation_space, action_space) has not been called")
        return self._raw_observation_space

    @property
    def inner_action_space(self) -> spaces.Space:
        """The action space this level's actions are translated into (raw at the root)."""
        if self.inner is not None:
            return self.inner.action_space
        if self._raw_action_space is None:
            raise ArenaError(f"{self}: setup(observation_space, action_space) has not been called")
        return self._raw_action_space

    @property
    def raw_observation_space(self) -> spaces.Space:
        """The raw observation space given to :meth:`setup`."""
        return self.unwrapped.inner_observation_space

    @property
    def raw_action_space(self) -> spaces.Space:
        """The raw action space given to :meth:`setup`."""
        return self.unwrapped.inner_action_space

    @property
    def unwrapped(self) -> Interface:
        """The root of the stack (the interface built on the raw spaces)."""
        level = self
        while level.inner is not None:
            level = level.inner
        return level

    # ------------------------------------------------------------------- hooks
    def reset(self, observation: Any) -> None:
        """Start an episode; ``observation`` is the first one, as it arrives at this level."""

    def observation(self, observation: Any) -> Any:
        """Map an observation from the inner space into :attr:`observation_space`."""
        return observation

    def action(self, action: Any) -> Any:
        """Map an action from :attr:`action_space` into the inner action space."""
        return action

    def reward(self, reward: float) -> float:
        """Transform the reward the agent receives."""
        return reward

    def action_mask(self, mask: Any) -> Any:
        """Map a mask over inner actions to a mask over :attr:`action_space`."""
        return mask

    def observation_batch(self, observations: Any) -> Any:
        """:meth:`observation` over many observations stacked on axis 0 (batched trainers).

        The default maps them one by one and stacks the results; an interface without
        per-episode state may override it with a vectorised version.
        """
        return np.stack([self.observation(observation) for observation in observations])

    def done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        """The agent's episode ends; return its final reward as this level passes it on.

        Called once per episode, after the last observation, with the final reward as it
        arrives at this level (the levels underneath have already transformed it).
        ``terminated`` means the episode reached a terminal state; ``truncated`` that it
        was cut (a time limit). An episode abandoned by an early ``reset`` ends without
        this call. The default transforms the reward like any other (:meth:`reward`);
        override it to settle per-episode state, e.g. a potential to subtract.
        """
        return self.reward(reward)

    # -------------------------------------------------------- stack drivers
    def levels(self) -> list[Interface]:
        """The stack from the root (raw side) to this interface."""
        stack: list[Interface] = []
        level: Interface | None = self
        while level is not None:
            stack.append(level)
            level = level.inner
        stack.reverse()
        return stack

    def _compile(self) -> tuple[Any, ...]:
        levels = self.levels()
        if levels[0]._raw_observation_space is None:
            raise ArenaError(f"{self}: setup(observation_space, action_space) has not been called")
        observation = _chain([lv.observation for lv in levels if _overrides(lv, "observation")])
        # The model's action is checked once, by the outermost level that maps actions: what it
        # passes inwards lies in the inner space by the interface contract (check_interface tests it).
        action_levels = [lv for lv in reversed(levels) if _overrides(lv, "action")]
        action = _checked_action(action_levels[0], [lv.action for lv in action_levels[1:]]) if action_levels else None
        reward = _chain([lv.reward for lv in levels if _overrides(lv, "reward")])
        masks: list[Callable[[Any], Any]] = []
        for lv in levels:
            if _overrides(lv, "action_mask"):
                masks.append(lv.action_mask)
            elif _overrides(lv, "action") or lv.action_space != lv.inner_action_space:
                masks.append(lv._untranslatable_mask)
        # Each level ends the episode with done() if it overrides it, else transforms the final reward.
        ends = [(lv.done, True) if _overrides(lv, "done") else (lv.reward, False)
                for lv in levels if _overrides(lv, "done") or _overrides(lv, "reward")]

        def end(reward: float, terminated: bool, truncated: bool) -> float:
            for finish, wants_flags in ends:
                reward = finish(reward, terminated=terminated, truncated=truncated) if wants_flags else finish(reward)
            return reward

        resets = [lv for lv in levels if _overrides(lv, "reset")]
        if resets:
            starts = [(lv.reset if _overrides(lv, "reset") else None,
                       lv.observation if _overrides(lv, "observation") else None) for lv in levels]

            def start(observation: Any) -> Any:
                for reset, observe in starts:
                    if reset is not None:
                        reset(observation)
                    if observe is not None:
                        observation = observe(observation)
                return observation
        else:
            start = observation
        # Without a done() override the final reward is an ordinary reward: drivers use the reward chain.
        finishes = any(wants_flags for _, wants_flags in ends)
        self._compiled = (observation, action, reward, _chain(masks), start, end if finishes else None)
        return self._compiled

    def _untranslatable_mask(self, mask: Any) -> Any:
        raise MaskTranslationError(
            f"{self}: changes the action space ({self.inner_action_space} -> "
            f"{self.action_space}) or overrides action() but does not translate action "
            "masks; override action_mask() or use it on an env without masks"
        )

    def transform_reset(self, raw_observation: Any) -> Any:
        """Reset every level (root first) and return the first model observation."""
        start = (self._compiled or self._compile())[4]
        return raw_observation if start is None else start(raw_observation)

    def transform_observation(self, raw_observation: Any) -> Any:
        """Run a raw observation through the stack (root first)."""
        function = (self._compiled or self._compile())[0]
        return raw_observation if function is None else function(raw_observation)

    def transform_action(self, action: Any) -> Any:
        """Run a model action back through the stack (outermost first) to a raw action."""
        function = (self._compiled or self._compile())[1]
        return action if function is None else function(action)

    def transform_reward(self, reward: float) -> float:
        """Run a reward through every level's :meth:`reward` hook (root first)."""
        function = (self._compiled or self._compile())[2]
        return reward if function is None else function(reward)

    def transform_action_mask(self, raw_mask: Any) -> Any:
        """Translate a raw action mask into a mask over :attr:`action_space`.

        Raises:
            MaskTranslationError: a level changes actions without translating masks.
        """
        function = (self._compiled or self._compile())[3]
        return raw_mask if function is None else function(raw_mask)

    def transform_observation_batch(self, raw_observations: Any) -> Any:
        """Run raw observations stacked on axis 0 through the stack (every level's
        :meth:`observation_batch`), for interfaces without per-episode state.

        Example:
            >>> import numpy as np
            >>> from gymnasium import spaces
            >>> class Double(Interface):
            ...     def observation(self, observation):
            ...         return 2 * observation
            >>> itf = Double()
            >>> itf.setup(spaces.Box(0, 1, (2,)), spaces.Discrete(2))
            >>> itf.transform_observation_batch(np.ones((3, 2))).tolist()
            [[2.0, 2.0], [2.0, 2.0], [2.0, 2.0]]
        """
        if self.levels()[0]._raw_observation_space is None:
            raise ArenaError(f"{self}: setup(observation_space, action_space) has not been called")
        observations = raw_observations
        for level in self.levels():
            if _overrides(level, "observation"):
                observations = level.observation_batch(observations)
        return observations

    @property
    def stateful(self) -> bool:
        """Whether some level keeps per-episode state (overrides :meth:`reset` or :meth:`done`)."""
        return any(_overrides(level, "reset") or _overrides(level, "done") for level in self.levels())

    def transform_done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        """End the episode at every level (root first) and return the final model reward.

        Levels that override :meth:`done` receive the flags; the others transform the
        final reward with :meth:`reward`, like any reward.
        """
        compiled = self._compiled or self._compile()
        if compiled[5] is not None:
            return compiled[5](reward, terminated, truncated)
        return reward if compiled[2] is None else compiled[2](reward)

    def compiled(self) -> tuple[Any, ...]:
        """``(observation, action, reward, action_mask, reset, done)`` stack functions.

        Each is ``None`` when every level leaves that channel unchanged; wrappers use
        this to skip work on the per-step path. ``done`` is ``None`` when no level overrides
        :meth:`done`: the final reward then goes through the ``reward`` function like any other.
        """
        return self._compiled or self._compile()

    # ------------------------------------------------------------------ display
    def _arguments(self) -> str:
        """Text between the parentheses in ``str()``; subclasses may add their options."""
        return "" if self.inner is None else str(self.inner)

    def __str__(self) -> str:
        return f"{type(self).__name__}({self._arguments()})"

    def __repr__(self) -> str:
        return str(self)

    def __getstate__(self) -> dict[str, Any]:
        # The compiled closures call this object's hooks: a copy (deepcopy, pickle) must
        # compile its own, or its reset/observation calls would run on the original.
        state = self.__dict__.copy()
        state["_compiled"] = None
        state.pop("_wrapped_by", None)  # a copy belongs to no wrapper yet (and a weakref cannot pickle)
        return state


class Combine(Interface):
    """Apply sub-interfaces side by side over a Tuple space (a team's view).

    Element ``i`` of the inner observation goes through ``interfaces[i]``; the action
    tuple goes back the same way; masks (a tuple, one per member) are translated per
    element. A ``None`` element (a member that is not asked to act) passes through.
    Rewards that are tuples are transformed per element; a scalar team reward passes
    unchanged. Every member hears the end of the episode (:meth:`Interface.done`).

    Example:
        >>> from gymnasium import spaces
        >>> team = Combine(None, [Interface(), Interface()])
        >>> team.setup(spaces.Tuple([spaces.Discrete(3)] * 2), spaces.Tuple([spaces.Discrete(2)] * 2))
        >>> team.transform_action((1, 0))
        (1, 0)
    """

    def __init__(self, inner: Interface | None, interfaces: Sequence[Interface | None]) -> None:
        super().__init__(inner)
        self.interfaces = [Interface() if itf is None else itf for itf in interfaces]
        for itf in self.interfaces:
            if not isinstance(itf, Interface):
                raise TypeError(f"Combine: members must be arena.Interface, got {type(itf).__name__}")
        self._starting = False

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        inner_obs = self._require_space(spaces.Tuple, "observation")
        inner_act = self._require_space(spaces.Tuple, "action")
        n = len(self.interfaces)
        if len(inner_obs) != n or len(inner_act) != n:
            raise SpaceMismatchError(
                f"{self}: has {n} member interfaces but the spaces have "
                f"{len(inner_obs)} observation and {len(inner_act)} action elements"
            )
        for itf, obs_space, act_space in zip(self.interfaces, inner_obs, inner_act):
            itf.setup(obs_space, act_space)
        self.observation_space = spaces.Tuple([itf.observation_space for itf in self.interfaces])
        self.action_space = spaces.Tuple([itf.action_space for itf in self.interfaces])

    def reset(self, observation: Any) -> None:
        self._starting = True

    def observation(self, observation: Any) -> Any:
        if self._starting:
            self._starting = False
            return tuple(
                None if o is None else itf.transform_reset(o)
                for itf, o in zip(self.interfaces, observation)
            )
        return tuple(
            None if o is None else itf.transform_observation(o)
            for itf, o in zip(self.interfaces, observation)
        )

    def action(self, action: Any) -> Any:
        return tuple(
            None if a is None else itf.transform_action(a)
            for itf, a in zip(self.interfaces, action)
        )

    def reward(self, reward: Any) -> Any:
        if isinstance(reward, tuple):
            return tuple(itf.transform_reward(r) for itf, r in zip(self.interfaces, reward))
        return reward

    def action_mask(self, mask: Any) -> Any:
        return tuple(
            None if m is None else itf.transform_action_mask(m)
            for itf, m in zip(self.interfaces, mask)
        )

    def done(self, reward: Any, *, terminated: bool, truncated: bool) -> Any:
        # Every member hears the end; a scalar team reward passes unchanged, as in reward().
        if isinstance(reward, tuple):
            return tuple(itf.transform_done(r, terminated=terminated, truncated=truncated)
                         for itf, r in zip(self.interfaces, reward))
        for itf in self.interfaces:
            itf.transform_done(0.0, terminated=terminated, truncated=truncated)
        return reward

    def _arguments(self) -> str:
        members = ", ".join(str(itf) for itf in self.interfaces)
        return f"{self.inner}, [{members}]"
