"""Put an interface on the agent's side of the loop (to play): :class:`AgtItfWrapper`.

Its counterpart on the env's side (to train) is :class:`arena.EnvItfWrapper` in :mod:`arena.wrappers`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import InterfaceError, InvalidTypeError, SpaceMismatchError
from arena.interface import Interface, claim_interface

__all__ = ["AgtItfWrapper"]


def _was_truncated(info: Mapping[str, Any]) -> bool:
    """Whether the final info given to ``Agent.done`` (one agent's, or a team's by member) says "truncated"."""
    flag = info.get("truncated")
    if flag is not None:
        return bool(flag)
    return any(isinstance(member, Mapping) and bool(member.get("truncated")) for member in info.values())


def _shown(value: Any) -> str:
    """A short description of an observation for an error text (arrays by shape, dtype and range)."""
    if isinstance(value, np.ndarray):
        if value.size and np.issubdtype(value.dtype, np.number):
            return f"array(shape={value.shape}, dtype={value.dtype}, min={value.min()!r}, max={value.max()!r})"
        return f"array(shape={value.shape}, dtype={value.dtype})"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


class AgtItfWrapper(Agent):
    """An agent that works in model spaces, presented to the env as a raw-space agent.

    With a list of agents it is a team agent: the interface's spaces must be Tuples
    (typically built with :class:`arena.Combine`), and member ``i`` receives element
    ``i`` of the observation and mask, and the team reward.

    Args:
        agent: the model-space agent, or a list of member agents for a team.
        interface: the interface between the raw spaces and the agent's spaces.

    Example:
        >>> from arena import AgtItfWrapper, Interface, RandomAgent
        >>> player = AgtItfWrapper(RandomAgent(seed=1), Interface())
        >>> str(player)
        'AgtItfWrapper(RandomAgent, Interface())'
    """

    def __init__(self, agent: Agent | Sequence[Agent], interface: Interface) -> None:
        if not isinstance(interface, Interface):
            raise InvalidTypeError(
                f"AgtItfWrapper: interface must be an arena.Interface, got {type(interface).__name__}"
            )
        members = list(agent) if isinstance(agent, Sequence) else [agent]
        for member in members:
            if not isinstance(member, Agent):
                raise InvalidTypeError(f"AgtItfWrapper: expected arena.Agent instances, got {type(member).__name__}")
        self.members: list[Agent] | None = members if isinstance(agent, Sequence) else None
        self._team = agent if isinstance(agent, Sequence) else None
        self._single = agent if not isinstance(agent, Sequence) else None  # the hooks read it without a check
        self.interface = claim_interface(interface, self)
        self._starting = True

    @property
    def agent(self) -> Agent | Sequence[Agent]:
        """The model-space agent, or the list of member agents of a team."""
        return self._single if self._single is not None else (self._team or [])

    @agent.setter
    def agent(self, agent: Agent) -> None:
        # The replay's agent's-eye view puts a watcher in front of a single agent.
        if self.members is not None:
            raise InvalidTypeError(f"{self}: a team's members are given when it is made")
        self._single = agent

    @property
    def unwrapped(self) -> Agent:
        """The model-space agent under every ``AgtItfWrapper`` (like ``gymnasium.Wrapper.unwrapped``);
        a team wrapper is its own (its members are several agents, see :attr:`members`)."""
        single = self._single
        if single is None:
            return self
        return single.unwrapped if isinstance(single, AgtItfWrapper) else single

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        itf = self.interface
        itf.setup(observation_space, action_space)
        if self._single is not None:
            self._single.setup(itf.observation_space, itf.action_space)
            return
        obs_space, act_space = itf.observation_space, itf.action_space
        members = self.members or []
        n = len(members)
        if not (
            isinstance(obs_space, spaces.Tuple)
            and isinstance(act_space, spaces.Tuple)
            and len(obs_space) == n
            and len(act_space) == n
        ):
            raise SpaceMismatchError(
                f"{self}: a team of {n} agents needs Tuple spaces of {n} elements from its "
                f"interface, got {obs_space} and {act_space}"
            )
        for member, o, a in zip(members, obs_space, act_space):
            member.setup(o, a)

    def reset(self, *, seed: int | None = None) -> None:
        self._starting = True
        if self._single is not None:
            self._single.reset(seed=seed)
            return
        for i, member in enumerate(self.members or []):
            member.reset(seed=None if seed is None else seed + i)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        itf = self.interface
        if action_mask is not None:  # the mask before the observation (see EnvItfWrapper)
            action_mask = itf.transform_action_mask(action_mask)
        if self._starting:
            self._starting = False
            observation = itf.transform_reset(observation)
            self._check_observation(observation)
        else:
            observation = itf.transform_observation(observation)
        reward = itf.transform_reward(reward)
        if self._single is not None:
            action = self._single.act(observation, action_mask, reward)
        else:
            members = self.members or []
            masks = action_mask if action_mask is not None else (None,) * len(members)
            action = tuple(
                None if obs is None else member.act(obs, mask, reward)
                for member, obs, mask in zip(members, observation, masks)
            )
        return itf.transform_action(action)

    def _check_observation(self, observation: Any) -> None:
        """Check an episode's first model observation against the interface's declared space.

        Once per episode, so that a stack that leaves its space is named at play time (in a
        tournament: a forfeit whose reason names the interface) for the cost of one
        ``contains``; :func:`arena.testing.check_interface` checks every observation.

        Raises:
            InterfaceError: the observation is not in ``interface.observation_space``.
        """
        space = self.interface.observation_space
        if self.members is None:
            inside = space.contains(observation)
        else:  # a team's members that do not act yet have no observation (None)
            inside = isinstance(space, spaces.Tuple) and all(
                part is None or part_space.contains(part) for part, part_space in zip(observation, space)
            )
        if not inside:
            raise InterfaceError(
                f"{self}: the interface {self.interface} gave the observation {_shown(observation)}, "
                f"which is outside its observation space {space}",
                interface=self.interface,
            )

    def done(self, reward: float, info: dict[str, Any]) -> None:
        """End the episode: the interface stack hears it first (:meth:`Interface.done`).

        ``info["truncated"]`` (set by :func:`arena.play` for every member of a team) tells a
        cut episode from a terminated one.
        """
        truncated = _was_truncated(info)
        reward = self.interface.transform_done(reward, terminated=not truncated, truncated=truncated)
        for member in [self._single] if self._single is not None else self.members or []:
            member.done(reward, info)

    @property
    def batchable(self) -> bool:
        """True for one batchable agent behind an interface that keeps no per-episode state."""
        return self._single is not None and self._single.batchable and not self.interface.stateful

    @property
    def copy_per_game(self) -> bool:  # type: ignore[override]
        """True for one agent behind the stack whose copies play a game each (:attr:`arena.Agent.copy_per_game`):
        a copy of the wrapper copies the stack, whose state is per game too."""
        return self._single is not None and self._single.copy_per_game

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """The inner agent's :meth:`~arena.Agent.act_batch` behind the interface, for many games.

        Raises:
            NotImplementedError: a team, an inner agent that cannot act in batches, or an
                interface with per-episode state (see :attr:`batchable`).
        """
        single = self._single
        if single is None or not self.batchable:
            raise NotImplementedError(
                f"{self}: act_batch needs one batchable agent behind an interface "
                "without per-episode state (no reset hook)"
            )
        itf = self.interface
        if action_masks is not None and itf.compiled().action_mask is not None:
            action_masks = np.stack([itf.transform_action_mask(mask) for mask in action_masks])
        actions = single.act_batch(itf.transform_observation_batch(observations), action_masks)
        if itf.compiled().action is None:
            return np.asarray(actions)
        return np.array([itf.transform_action(action) for action in actions])

    def __str__(self) -> str:
        inner = f"[{', '.join(map(str, self.members))}]" if self.members is not None else str(self.agent)
        return f"{type(self).__name__}({inner}, {self.interface})"
