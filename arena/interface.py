"""Interfaces: stackable, per-agent transformations between raw and model spaces.

An interface turns one agent's raw observation into the features a model wants and the
model's action back into a raw action. Interfaces stack like Gymnasium wrappers
(``B(A())``): observations go through the innermost interface first, actions through
the outermost first. The same object can sit on an env (:class:`arena.EnvItfWrapper`)
for training or on an agent (:class:`arena.AgtItfWrapper`) for playing.
"""

from __future__ import annotations

import copy
import math
import weakref
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar, overload

import numpy as np
from gymnasium import spaces

from arena.batched_stack import BATCH_FORMS, split_rows, stack_rows
from arena.errors import ArenaError, InvalidTypeError, MaskTranslationError, SpaceMismatchError
from arena.stack import HOOKS, CompiledStack, StackDrivers

__all__ = ["Interface", "Combine", "claim_interface"]

# The space classes ``Interface._require_space`` checks for, so a caller gets the narrowed type back.
_SpaceT = TypeVar("_SpaceT", bound=spaces.Space)
_OtherT = TypeVar("_OtherT", bound=spaces.Space)


class Interface(StackDrivers):
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
    * Batched forms (``reset_batch``, ``observation_batch``, ``action_batch``,
      ``action_mask_batch``, ``reward_batch``, ``done_batch``): the same hooks over a batch of
      games (see :mod:`arena.batched_stack`). Write either form: the default batched form runs
      the per-game hook game by game, and a class that writes only the batched form gets
      per-game hooks that run it on a batch of one.

    :meth:`action` and :meth:`action_mask` are a pair: masks name actions, so the base
    :meth:`action_mask` of a level whose class overrides :meth:`action`, or whose
    :meth:`setup` changes the action space, refuses every mask with
    :class:`~arena.errors.MaskTranslationError` instead of passing one on with the wrong
    meaning. Such a level overrides :meth:`action_mask` to translate masks (returning the
    mask unchanged says that actions keep their meaning).

    Drivers (wrappers, agents) call the ``transform_*`` methods (from
    :class:`arena.stack.StackDrivers`), which run the hooks of the whole stack in a loop,
    resolved once per channel. A hook a level does not override is skipped.

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

    #: The hooks this class overrides (set for every subclass when it is created; the others are skipped).
    overridden_hooks: ClassVar[frozenset[str]] = frozenset()
    #: ``False``: the class declares that it translates no action masks (it is meant for envs
    #: without masks), so :func:`arena.testing.check_interface` does not ask it to.
    translates_masks: ClassVar[bool] = True
    #: ``True``: :meth:`action_mask` translates some masks and refuses others with
    #: :class:`~arena.errors.MaskTranslationError`, as the class documents.
    partial_mask_translation: ClassVar[bool] = False
    #: The wrapper an instance is claimed by (see arena.wrappers); set only then, so no default here.
    _wrapped_by: weakref.ref[Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # One written form serves both places: a class that writes only the batched form of a
        # hook gets the per-game hook that runs it on a batch of one.
        # The form the most derived class writes wins: one that writes only the per-game hook
        # over an inherited batched form gets the default batched form (row by row) back.
        for hook, batch_hook in BATCH_FORMS.items():
            if batch_hook in cls.__dict__ and hook not in cls.__dict__:
                setattr(cls, hook, getattr(Interface, f"_{hook}_of_one"))
            elif hook in cls.__dict__ and batch_hook not in cls.__dict__ and cls is not Interface:
                setattr(cls, batch_hook, getattr(Interface, batch_hook))
        cls.overridden_hooks = frozenset(hook for hook in HOOKS if getattr(cls, hook) is not getattr(Interface, hook))

    def __init__(self, inner: Interface | None = None) -> None:
        """Build this interface on ``inner`` (``None``: directly on the raw spaces)."""
        if inner is not None and not isinstance(inner, Interface):
            raise InvalidTypeError(
                f"{type(self).__name__}: inner must be an arena.Interface or None, got {type(inner).__name__}"
            )
        self.inner = inner
        self._observation_space: spaces.Space | None = None
        self._action_space: spaces.Space | None = None
        self._raw_observation_space: spaces.Space | None = None
        self._raw_action_space: spaces.Space | None = None
        self._compiled: CompiledStack | None = None

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
                raise InvalidTypeError(
                    f"{self}: setup() expects gymnasium spaces, got {type(space).__name__} for {label}"
                )
        self._observation_space = None
        self._action_space = None
        self._compiled = None
        if self.inner is not None:
            self.inner.setup(observation_space, action_space)
        else:
            self._raw_observation_space = observation_space
            self._raw_action_space = action_space

    @overload
    def _require_space(self, space: type[_SpaceT], which: str) -> _SpaceT: ...

    @overload
    def _require_space(self, space: tuple[type[_SpaceT], type[_OtherT]], which: str) -> _SpaceT | _OtherT: ...

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
        """Map a mask over inner actions to a mask over :attr:`action_space`.

        The base keeps the mask where this level keeps the actions. Where it maps them (its
        class overrides :meth:`action`) or changes the action space, the mask's meaning would
        change, so the base refuses it.

        Raises:
            MaskTranslationError: this level maps actions or changes the action space and its
                class does not override ``action_mask``.
        """
        if type(self).action is not Interface.action or self.action_space != self.inner_action_space:
            return self._untranslatable_mask(mask)
        return mask

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

    # ------------------------------------------------------------ batched hooks
    # Values stacked on axis 0, one row per game slot (see arena.batched_stack). The defaults
    # run the per-game hook row by row on this object; arena.BatchedStack runs a level that does
    # not write a batched form on one copy per slot instead, so its per-episode state is per game.
    def reset_batch(self, observations: Any, starting: np.ndarray) -> None:
        """:meth:`reset` for the slots where ``starting`` is true (their first observations).

        Args:
            observations: every slot's observation as it arrives at this level, on axis 0.
            starting: one boolean per slot: the slots whose episode starts with this observation.
        """
        for observation, starts in zip(split_rows(observations), starting):
            if starts:
                self.reset(observation)

    def observation_batch(self, observations: Any) -> Any:
        """:meth:`observation` over every slot's observation, stacked on axis 0.

        Example:
            >>> itf = Interface()
            >>> itf.setup(spaces.Discrete(3), spaces.Discrete(2))
            >>> itf.observation_batch(np.array([0, 2])).tolist()
            [0, 2]
        """
        return stack_rows([self.observation(observation) for observation in split_rows(observations)])

    def action_batch(self, actions: Any) -> Any:
        """:meth:`action` over every slot's action, stacked on axis 0."""
        return stack_rows([self.action(action) for action in split_rows(actions)])

    def action_mask_batch(self, masks: Any) -> Any:
        """:meth:`action_mask` over every slot's mask, stacked on axis 0."""
        return stack_rows([self.action_mask(mask) for mask in split_rows(masks)])

    def reward_batch(self, rewards: np.ndarray) -> np.ndarray:
        """:meth:`reward` over every slot's reward (a float array, one per slot)."""
        return np.array([self.reward(float(reward)) for reward in rewards], dtype=np.float64)

    def done_batch(self, rewards: np.ndarray, *, terminated: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        """Every slot's reward this step: :meth:`done` for the slots that end (``terminated`` or
        ``truncated``), :meth:`reward` for the others.

        Args:
            rewards: one reward per slot.
            terminated: one boolean per slot.
            truncated: one boolean per slot.
        """
        return np.array(
            [
                self.done(float(reward), terminated=bool(term), truncated=bool(trunc))
                if term or trunc
                else self.reward(float(reward))
                for reward, term, trunc in zip(rewards, terminated, truncated)
            ],
            dtype=np.float64,
        )

    @property
    def batch_options(self) -> dict[str, Any]:
        """Options of ``env.make_batch`` that this level needs its batch made with (default: none).

        A level whose batched form reads a batch's raw view as that view comes (Pommerman's
        ``pommerman_batch_planes``: the planes in the ego frame or not) names the options that make
        the view what it expects; :func:`arena.batched_stack.stack_batch_options` gathers a stack's.
        """
        return {}

    # Per-game hooks of a class that writes only the batched form: the batch of one.
    def _reset_of_one(self, observation: Any) -> None:
        self.reset_batch(stack_rows([observation]), np.ones(1, dtype=bool))

    def _observation_of_one(self, observation: Any) -> Any:
        return split_rows(self.observation_batch(stack_rows([observation])))[0]

    def _action_of_one(self, action: Any) -> Any:
        return split_rows(self.action_batch(stack_rows([action])))[0]

    def _action_mask_of_one(self, mask: Any) -> Any:
        return split_rows(self.action_mask_batch(stack_rows([mask])))[0]

    def _reward_of_one(self, reward: float) -> float:
        return float(self.reward_batch(np.array([reward], dtype=np.float64))[0])

    def _done_of_one(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        flags = np.array([terminated]), np.array([truncated])
        return float(self.done_batch(np.array([reward], dtype=np.float64), terminated=flags[0], truncated=flags[1])[0])

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]] | None:
        """Instances of the class with raw spaces to set them up on, for ``arena interfaces --check``
        (:func:`arena.testing.check_interface` runs on each); ``None`` (the default): the class gives
        none and is listed unchecked. A plugin overrides it (``docs/writing-plugins.md``)."""
        return None

    # ------------------------------------------------------------ mask refusal
    def _untranslatable_mask(self, mask: Any) -> Any:
        raise MaskTranslationError(
            f"{self}: changes the action space ({self.inner_action_space} -> "
            f"{self.action_space}) or overrides action() but does not translate action "
            "masks; override action_mask() or use it on an env without masks"
        )

    # ------------------------------------------------------------------ display
    def _arguments(self) -> str:
        """Text between the parentheses in ``str()``; subclasses may add their options."""
        return "" if self.inner is None else str(self.inner)

    def __str__(self) -> str:
        return f"{type(self).__name__}({self._arguments()})"

    def __repr__(self) -> str:
        return str(self)

    def __getstate__(self) -> dict[str, Any]:
        # The compiled stack holds this object's bound hooks: a copy (deepcopy, pickle) must
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
    Rewards that are tuples are transformed per element. A scalar reward (the whole side's,
    as :class:`arena.GroupTeams` gives it) goes through every member, and the side gets the
    mean of what they make of it (the reward itself when they agree): a member's reward
    shaping reaches a model that controls the whole side. Every member hears the end of the
    episode (:meth:`Interface.done`), with the side's reward when it is a scalar.

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
                raise InvalidTypeError(f"Combine: members must be arena.Interface, got {type(itf).__name__}")
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
            return tuple(None if o is None else itf.transform_reset(o) for itf, o in zip(self.interfaces, observation))
        return tuple(
            None if o is None else itf.transform_observation(o) for itf, o in zip(self.interfaces, observation)
        )

    def action(self, action: Any) -> Any:
        return tuple(None if a is None else itf.transform_action(a) for itf, a in zip(self.interfaces, action))

    def reward(self, reward: Any) -> Any:
        if isinstance(reward, tuple):
            return tuple(itf.transform_reward(r) for itf, r in zip(self.interfaces, reward))
        return _side_mean([itf.transform_reward(reward) for itf in self.interfaces])

    def action_mask(self, mask: Any) -> Any:
        return tuple(None if m is None else itf.transform_action_mask(m) for itf, m in zip(self.interfaces, mask))

    def done(self, reward: Any, *, terminated: bool, truncated: bool) -> Any:
        # Every member hears the end; a scalar side reward goes through each of them, as in reward().
        if isinstance(reward, tuple):
            return tuple(
                itf.transform_done(r, terminated=terminated, truncated=truncated)
                for itf, r in zip(self.interfaces, reward)
            )
        return _side_mean(
            [itf.transform_done(reward, terminated=terminated, truncated=truncated) for itf in self.interfaces]
        )

    def _arguments(self) -> str:
        members = ", ".join(str(itf) for itf in self.interfaces)
        return f"{self.inner}, [{members}]"


def _side_mean(rewards: list[Any]) -> Any:
    """The members' versions of a side's scalar reward, as one: the first when all agree, else their mean."""
    first = rewards[0]
    if all(reward == first for reward in rewards):
        return first
    return math.fsum(float(reward) for reward in rewards) / len(rewards)


def claim_interface(interface: Interface, owner: object) -> Interface:
    """``interface`` for ``owner``'s use (an env or agent wrapper): the object itself the first time
    it is wrapped, a deep copy when another live wrapper already uses it. Interfaces hold
    per-episode state, so two agents or two envs sharing one object would leak it into each other."""
    holder = interface.__dict__.get("_wrapped_by")
    if holder is not None and holder() is not None and holder() is not owner:
        interface = copy.deepcopy(interface)  # the copy's state leaves out the holder (see __getstate__)
    interface._wrapped_by = weakref.ref(owner)
    return interface
