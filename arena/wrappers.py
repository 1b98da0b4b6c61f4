"""Put interfaces on the env's side of the loop (to train): :class:`EnvItfWrapper`.

Its counterpart on the agent's side (to play) is :class:`arena.AgtItfWrapper` in :mod:`arena.agent_wrapper`.
"""

from __future__ import annotations

import copy
import functools
import weakref
from collections.abc import Mapping, Sequence
from typing import Any, overload

import gymnasium
from gymnasium import spaces

from arena.env import AgentID, MultiAgentEnv, MultiAgentWrapper
from arena.errors import (
    ArenaError,
    InterfaceError,
    InvalidActionError,
    InvalidTypeError,
    InvalidValueError,
    UnknownAgentError,
)
from arena.interface import Interface, claim_interface
from arena.stack import ActionCheck, Hook, Hooks, blame, failing_level

__all__ = ["EnvItfWrapper", "MultiAgentEnvItfWrapper", "GymEnvItfWrapper"]


def _per_agent_interfaces(
    env: MultiAgentEnv, interfaces: Interface | Mapping[AgentID, Interface | None] | Sequence[Interface | None] | None
) -> dict[AgentID, Interface | None]:
    """Resolve ``interfaces`` to one interface (or None) per possible agent; never share one."""
    agents = list(env.possible_agents)
    if interfaces is None or isinstance(interfaces, Interface):
        chosen = {agent: interfaces for agent in agents}
    elif isinstance(interfaces, Mapping):
        unknown = [key for key in interfaces if key not in agents]
        if unknown:
            raise UnknownAgentError(f"EnvItfWrapper: interfaces name unknown agent {unknown[0]!r}; {env} has {agents}")
        chosen = {agent: interfaces.get(agent) for agent in agents}
    elif isinstance(interfaces, Sequence) and not isinstance(interfaces, str):
        if len(interfaces) != len(agents):
            raise InvalidValueError(
                f"EnvItfWrapper: {env} has {len(agents)} possible agents {agents}, got {len(interfaces)} interfaces"
            )
        chosen = dict(zip(agents, interfaces))
    else:
        raise InvalidTypeError(
            "EnvItfWrapper: interfaces must be an Interface, a dict keyed by agent id, "
            f"a sequence in possible_agents order, or None; got {type(interfaces).__name__}"
        )
    seen: set[int] = set()
    for agent, itf in chosen.items():
        if itf is None:
            continue
        if not isinstance(itf, Interface):
            raise InvalidTypeError(
                f"EnvItfWrapper: interface for {agent!r} must be an arena.Interface, got {type(itf).__name__}"
            )
        if id(itf) in seen:  # interfaces hold per-agent state: give each agent its own copy
            itf = chosen[agent] = copy.deepcopy(itf)
        seen.add(id(itf))
    return chosen


class EnvItfWrapper:
    """An env seen through interfaces: the one entry point for arena and Gymnasium envs.

    Calling it builds the class that fits the env, as ``pathlib.Path`` builds a ``PosixPath``:
    a :class:`MultiAgentEnvItfWrapper` for an arena env (one interface per agent), a
    :class:`GymEnvItfWrapper` for a single-agent ``gymnasium.Env`` (one interface; a real
    ``gymnasium.Wrapper``). Both are subclasses, so ``isinstance(env, EnvItfWrapper)`` holds for
    what it builds; either class can be called (and subclassed) directly. ``str()`` shows the
    stack of envs, ``unwrapped`` the innermost env, as Gymnasium's wrappers do.

    Called as ``EnvItfWrapper(env, interfaces)`` (the class it builds takes the arguments; this one has no
    ``__init__``, so they are described here rather than as Args): ``env`` is the env to wrap (an arena env,
    or a ``gymnasium.Env``); ``interfaces`` is one interface for every agent (each agent gets its own copy),
    a dict keyed by agent id, or a sequence in ``possible_agents`` order, ``None`` entries leaving that
    agent raw. A ``gymnasium.Env`` takes exactly one interface.

    Raises:
        TypeError: ``env`` is neither kind of env, or the interfaces do not fit it; and at
            class creation, a class that subclasses ``EnvItfWrapper`` itself (subclass one of
            the two concrete classes, which say what kind of env they wrap).

    Example:
        >>> import envs, gymnasium
        >>> from arena import EnvItfWrapper, Interface
        >>> env = EnvItfWrapper(envs.make("tic_tac_toe"), {"player_0": Interface()})
        >>> str(env), isinstance(env, EnvItfWrapper)
        ('<MultiAgentEnvItfWrapper<TicTacToe>>', True)
        >>> type(EnvItfWrapper(gymnasium.make("CartPole-v1"), Interface())).__name__
        'GymEnvItfWrapper'
    """

    __slots__ = ()

    @overload
    def __new__(
        cls,
        env: MultiAgentEnv,
        interfaces: Interface | Mapping[AgentID, Interface | None] | Sequence[Interface | None] | None = None,
    ) -> MultiAgentEnvItfWrapper: ...

    @overload
    def __new__(cls, env: gymnasium.Env, interfaces: Interface) -> GymEnvItfWrapper: ...

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is not EnvItfWrapper:  # a concrete class (or a user's subclass of one), built as usual
            return super().__new__(cls)
        env = args[0] if args else kwargs.get("env")
        kind: type[EnvItfWrapper] = GymEnvItfWrapper if isinstance(env, gymnasium.Env) else MultiAgentEnvItfWrapper
        # An instance of a subclass: Python then runs that class's __init__ with the same arguments.
        return super().__new__(kind)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if EnvItfWrapper in cls.__bases__ and (cls.__module__ != __name__ or cls.__qualname__ not in _KINDS):
            raise InvalidTypeError(
                f"{cls.__qualname__}: subclass MultiAgentEnvItfWrapper (arena envs) or GymEnvItfWrapper "
                "(gymnasium envs), not EnvItfWrapper, which only chooses between them"
            )


def _unchecked(action: Any) -> Any:
    return action


# The two kinds of env EnvItfWrapper chooses between (defined below, in this module).
_KINDS = ("MultiAgentEnvItfWrapper", "GymEnvItfWrapper")


class MultiAgentEnvItfWrapper(EnvItfWrapper, MultiAgentWrapper):
    """A multi-agent env seen through per-agent interfaces (what :class:`EnvItfWrapper` builds for one).

    Observations, rewards and action masks leave through each agent's interface; actions
    come back through it, so the wrapped env receives raw actions. An agent's action mask
    is translated before its observation, so an interface can put the current mask into
    the observation. A deep copy (or pickle) is independent of the original: its
    interfaces are copies, and it compiles their stacks anew.

    Args:
        env: the arena env to wrap.
        interfaces: as :class:`EnvItfWrapper` takes them.

    Example:
        >>> import envs
        >>> from arena import Interface
        >>> env = MultiAgentEnvItfWrapper(envs.make("tic_tac_toe"), {"player_0": Interface()})
        >>> str(env)
        '<MultiAgentEnvItfWrapper<TicTacToe>>'
    """

    def __init__(
        self,
        env: MultiAgentEnv,
        interfaces: Interface | Mapping[AgentID, Interface | None] | Sequence[Interface | None] | None = None,
    ) -> None:
        if not isinstance(env, MultiAgentEnv):
            raise InvalidTypeError(
                f"EnvItfWrapper: expected an arena.MultiAgentEnv or gymnasium.Env, got {type(env).__name__}"
            )
        super().__init__(env)
        self.possible_agents = list(env.possible_agents)
        self.interfaces = {
            agent: None if itf is None else claim_interface(itf, self)
            for agent, itf in _per_agent_interfaces(env, interfaces).items()
        }
        self.observation_spaces: dict[AgentID, spaces.Space] = {}
        self.action_spaces: dict[AgentID, spaces.Space] = {}
        for agent, itf in self.interfaces.items():
            if itf is None:
                self.observation_spaces[agent] = env.observation_space(agent)
                self.action_spaces[agent] = env.action_space(agent)
            else:
                itf.setup(env.observation_space(agent), env.action_space(agent))
                self.observation_spaces[agent] = itf.observation_space
                self.action_spaces[agent] = itf.action_space
        self._pending: set[AgentID] = set()  # agents whose first observation since reset is still to come
        self._bind()
        self.teams = env.teams  # interfaces change what agents see, never who plays with whom
        self.team_outcome = env.team_outcome

    def _bind(self) -> None:
        """Each channel's table: agent -> its stack's hooks (or first-observation and end-of-episode
        functions), for the agents whose stack runs any there; an empty table skips the channel.

        The tables hold bare hooks, not the stack's ``(level, hook)`` pairs: unpacking a pair a hook
        cost about 3% of the wrapper's overhead with three trivial levels (docs/performance.md, "Hook
        dispatch"). The level whose hook raised is found from the hook (``_level_of``)."""
        self._level_of: dict[int, Any] = {}  # id of a bare hook -> its level
        self._observe: dict[AgentID, tuple[Hook, ...]] = {}
        # agent -> (low, high, check, hooks): a plain int in range(low, high) skips the call to check
        self._act: dict[AgentID, tuple[int, int, Any, tuple[Hook, ...]]] = {}
        self._reward: dict[AgentID, tuple[Hook, ...]] = {}
        self._mask: dict[AgentID, tuple[Hook, ...]] = {}
        self._start: dict[AgentID, Any] = {}
        self._done: dict[AgentID, Any] = {}
        for agent, itf in self.interfaces.items():
            if itf is None:
                continue
            stack = itf.compiled()
            for table, hooks in ((self._observe, stack.observation), (self._reward, stack.reward)):
                if hooks is not None:
                    table[agent] = self._bare(hooks)
            if stack.action_mask is not None:
                self._mask[agent] = self._bare(stack.action_mask)
            for functions, entry in ((self._start, stack.reset), (self._done, stack.done)):
                if entry is not None:
                    functions[agent] = entry
            if stack.action is not None:
                level, first = stack.action[0]
                if isinstance(first, ActionCheck):
                    self._act[agent] = (first.low, first.high, first, self._bare(stack.action[1:]))
                else:
                    self._act[agent] = (0, 0, _unchecked, self._bare(stack.action))

    def _bare(self, hooks: Hooks) -> tuple[Hook, ...]:
        """``hooks`` without their levels, each level kept in ``_level_of`` under its hook's id.

        A hook is a level's bound method, a new object for each level; a plain function shared by
        several levels (a ``staticmethod``) gets a ``partial`` of its own, so each id names one level.
        """
        bare = []
        for level, hook in hooks:
            if self._level_of.get(id(hook), level) is not level:
                hook = functools.partial(hook)
            self._level_of[id(hook)] = level
            bare.append(hook)
        return tuple(bare)

    def _through(self, hooks: tuple[Hook, ...], value: Any) -> Any:
        """``value`` through bare ``hooks``; an exception is blamed on the level whose hook raised it."""
        hook = None
        try:
            for hook in hooks:  # the except clause reads the hook that raised
                value = hook(value)
            return value
        except Exception as err:
            blame(err, self._level_of.get(id(hook)))
            raise

    _TABLES = ("_observe", "_start", "_act", "_reward", "_mask", "_done", "_level_of")

    def __getstate__(self) -> dict[str, Any]:
        # The tables hold closures over this wrapper's interfaces: a copy rebuilds its own from
        # its own (copied) interfaces, or stepping the copy would run the original's stacks.
        state = self.__dict__.copy()
        for name in self._TABLES:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for itf in self.interfaces.values():
            if itf is not None:
                itf._wrapped_by = weakref.ref(self)
        self._bind()

    # ----------------------------------------------------------------- protocol
    @property
    def agents(self) -> list[AgentID]:  # type: ignore[override]  # read-only here: the inner env's
        return self.env.agents

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the wrapped env and every interface (each on its agent's first observation)."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self._pending = set(self._start)
        try:
            infos = self._infos(infos)  # masks before observations: an interface may put the mask in the observation
            return self._observations(observations), infos
        except ArenaError:
            raise
        except Exception as err:
            raise self._interface_error("transforming the env's reset", err) from err

    def step(self, actions: Mapping[AgentID, Any]):
        """Translate model actions to raw actions and step the wrapped env.

        Edge cases are the wrapped env's (see :meth:`MultiAgentEnv.step`), and an error the
        env raises is the env's own, passed on unchanged. A model action outside its agent's
        model action space raises :class:`InvalidActionError` naming the agent and the space;
        any other failure inside an interface raises :class:`InterfaceError` naming the
        interface level that failed and what it was doing.
        """
        if type(actions) is not dict and not isinstance(actions, Mapping):
            return self.env.step(actions)  # the wrapped env reports the type error
        raw = actions
        act = self._act
        if act:  # each agent's model action through its stack; this runs every step, so written out here
            raw = {}
            hook = None
            try:
                for agent, action in actions.items():
                    entry = act.get(agent)
                    if entry is not None:  # ids no interface knows pass untranslated: the env names them
                        low, high, check, hooks = entry
                        if not (type(action) is int and low <= action < high):
                            action = check(action)
                        for hook in hooks:  # the except clause reads the hook that raised
                            action = hook(action)
                    raw[agent] = action
            except ArenaError:
                raise
            except Exception as err:
                blame(err, self._level_of.get(id(hook)))
                self._raise_for_model_actions(actions)  # name the model action when it was out of its space
                raise self._interface_error("translating actions", err) from err
        try:
            observations, rewards, terminations, truncations, infos = self.env.step(raw)
        except InvalidActionError:
            self._raise_for_model_actions(actions)  # name the model action when it was out of its space
            raise  # any other error of the env is the env's own, unwrapped
        hook = None
        try:
            if self._mask:  # masks before observations: an interface may put the mask in the observation
                for info in infos.values():
                    if "action_mask" in info:
                        infos = self._infos(infos)
                        break
            if self._done and (True in terminations.values() or True in truncations.values()):
                rewards = self._final_rewards(rewards, terminations, truncations)
            elif reward := self._reward:  # _through, written out as for observations below
                transformed = {}
                for agent, value in rewards.items():
                    chain = reward.get(agent)
                    if chain is not None:
                        for hook in chain:  # the except clause reads the hook that raised
                            value = hook(value)
                    transformed[agent] = value
                rewards = transformed
            if self._pending:
                observations = self._observations(observations)
            elif observe := self._observe:  # _through over the agents, written out: this runs every step
                transformed = {}
                for agent, observation in observations.items():
                    chain = observe.get(agent)
                    if chain is not None:
                        for hook in chain:  # the except clause reads the hook that raised
                            observation = hook(observation)
                    transformed[agent] = observation
                observations = transformed
        except ArenaError:
            raise
        except Exception as err:
            blame(err, self._level_of.get(id(hook)))
            raise self._interface_error("transforming the env's step", err) from err
        return observations, rewards, terminations, truncations, infos

    def _final_rewards(
        self,
        rewards: Mapping[AgentID, float],
        terminations: Mapping[AgentID, bool],
        truncations: Mapping[AgentID, bool],
    ) -> dict[AgentID, float]:
        """Rewards of a step in which some agents finish: theirs go through the interfaces' ``done``."""
        out = {}
        done, reward = self._done, self._reward
        for agent, value in rewards.items():
            end = done.get(agent)
            if end is not None and (terminations.get(agent) or truncations.get(agent)):
                out[agent] = end(value, bool(terminations.get(agent)), bool(truncations.get(agent)))
            else:
                out[agent] = value if (hooks := reward.get(agent)) is None else self._through(hooks, value)
        for agent, end in done.items():  # finished without a reward entry: the interface still hears it
            if agent not in out and (terminations.get(agent) or truncations.get(agent)):
                out[agent] = end(0.0, bool(terminations.get(agent)), bool(truncations.get(agent)))
        return out

    def _interface_error(self, doing: str, err: BaseException) -> InterfaceError:
        """An error naming the interface level that raised ``err`` (the compiled stack records it)."""
        culprit = failing_level(err)
        who = f"interface {culprit}" if culprit is not None else "an interface"
        return InterfaceError(f"{self}: {who} raised {type(err).__name__} while {doing}: {err}", culprit, err)

    def _raise_for_model_actions(self, actions: Mapping[AgentID, Any]) -> None:
        for agent, action in actions.items():
            space = self.action_spaces.get(agent)
            if agent in self._act and space is not None and not space.contains(action):
                raise InvalidActionError(f"{self}: action for {agent!r} must lie in {space}, got {action!r}")

    def _observations(self, observations: dict[AgentID, Any]) -> dict[AgentID, Any]:
        observe, pending = self._observe, self._pending
        if pending:  # some agents have not seen their first observation since reset
            out = {}
            for a, o in observations.items():
                if a in pending:
                    pending.discard(a)
                    out[a] = self._start[a](o)
                else:
                    out[a] = o if (hooks := observe.get(a)) is None else self._through(hooks, o)
            return out
        if not observe:
            return observations
        return {a: o if (hooks := observe.get(a)) is None else self._through(hooks, o) for a, o in observations.items()}

    def _infos(self, infos: dict[AgentID, dict[str, Any]]) -> dict[AgentID, dict[str, Any]]:
        mask = self._mask
        if not mask:
            return infos
        translated = None
        for agent, info in infos.items():
            if "action_mask" in info and (hooks := mask.get(agent)) is not None:
                if translated is None:
                    translated = dict(infos)
                translated[agent] = {**info, "action_mask": self._through(hooks, info["action_mask"])}
        return infos if translated is None else translated

    # ------------------------------------------------------------ capabilities
    def action_names(self, agent: AgentID) -> list[str] | None:
        """The wrapped env's names for ``agent``'s actions, when its interface keeps the raw actions.

        Raises:
            ArenaError: the agent's interface changes its action space, so the raw names do
                not describe its actions (an env without names gives ``None`` first).
        """
        names = self.env.action_names(agent)
        itf = self.interfaces.get(agent)
        if names is not None and itf is not None and itf.action_space != itf.raw_action_space:
            raise ArenaError(
                f"{self}: the interface {itf} of {agent!r} changes the action space "
                f"({itf.raw_action_space} -> {itf.action_space}); the env's action names "
                "name raw actions"
            )
        return names

    def observation_text(self, agent: AgentID, observation: Any) -> str | None:
        """The wrapped env's text for ``agent``'s raw ``observation`` (``None`` when it has none)."""
        return self.env.observation_text(agent, observation)


class GymEnvItfWrapper(EnvItfWrapper, gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """A single-agent ``gymnasium.Env`` seen through one arena interface.

    It is a ``gymnasium.Wrapper``, so Gymnasium wrappers can go inside or outside it.
    An ``info["action_mask"]`` from the env is translated like the observation.

    Example:
        >>> import gymnasium
        >>> from arena import Interface
        >>> env = GymEnvItfWrapper(gymnasium.make("CartPole-v1"), Interface())
        >>> env.observation_space == env.unwrapped.observation_space
        True
    """

    def __init__(self, env: gymnasium.Env, interface: Interface) -> None:
        if not isinstance(interface, Interface):
            raise InvalidTypeError(
                f"EnvItfWrapper: a gymnasium.Env takes exactly one arena.Interface, got {type(interface).__name__}"
            )
        gymnasium.utils.RecordConstructorArgs.__init__(self, interface=interface)
        gymnasium.Wrapper.__init__(self, env)
        self.interface = interface = claim_interface(interface, self)
        interface.setup(env.observation_space, env.action_space)
        self.observation_space = interface.observation_space
        self.action_space = interface.action_space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        observation, info = self.env.reset(seed=seed, options=options)
        info = self._info(info)  # the mask before the observation (see EnvItfWrapper)
        return self.interface.transform_reset(observation), info

    def step(self, action: Any):
        observation, reward, terminated, truncated, info = self.env.step(self.interface.transform_action(action))
        info = self._info(info)
        return (
            self.interface.transform_observation(observation),
            self.interface.transform_reward(float(reward)),
            terminated,
            truncated,
            info,
        )

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        if "action_mask" in info:
            return {**info, "action_mask": self.interface.transform_action_mask(info["action_mask"])}
        return info
