"""Put interfaces on the env's side of the loop (to train): :func:`EnvItfWrapper`.

Its counterpart on the agent's side (to play) is :class:`arena.AgtItfWrapper` in :mod:`arena.agent_wrapper`.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
from gymnasium import spaces

from arena.env import AgentID, MultiAgentEnv, MultiAgentWrapper
from arena.errors import (
    ArenaError,
    InterfaceError,
    InvalidActionError,
    UnknownAgentError,
)
from arena.interface import Interface, claim_interface
from arena.stack import failing_level

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
            raise ValueError(
                f"EnvItfWrapper: {env} has {len(agents)} possible agents {agents}, got {len(interfaces)} interfaces"
            )
        chosen = dict(zip(agents, interfaces))
    else:
        raise TypeError(
            "EnvItfWrapper: interfaces must be an Interface, a dict keyed by agent id, "
            f"a sequence in possible_agents order, or None; got {type(interfaces).__name__}"
        )
    seen: set[int] = set()
    for agent, itf in chosen.items():
        if itf is None:
            continue
        if not isinstance(itf, Interface):
            raise TypeError(
                f"EnvItfWrapper: interface for {agent!r} must be an arena.Interface, got {type(itf).__name__}"
            )
        if id(itf) in seen:  # interfaces hold per-agent state: give each agent its own copy
            itf = chosen[agent] = copy.deepcopy(itf)
        seen.add(id(itf))
    return chosen


def EnvItfWrapper(
    env: MultiAgentEnv | gymnasium.Env,
    interfaces: Interface | Mapping[AgentID, Interface | None] | Sequence[Interface | None] | None = None,
) -> MultiAgentEnvItfWrapper | GymEnvItfWrapper:
    """An env seen through interfaces: the one entry point for arena and Gymnasium envs.

    A factory, so what it builds is plain from its type: :class:`MultiAgentEnvItfWrapper` for an
    arena env (one interface per agent), :class:`GymEnvItfWrapper` for a single-agent
    ``gymnasium.Env`` (one interface; a real ``gymnasium.Wrapper``). Call either class directly
    when you know which you want.

    Args:
        env: the env to wrap (an arena env, or a ``gymnasium.Env``).
        interfaces: one interface for every agent (each agent gets its own copy), a dict
            keyed by agent id, or a sequence in ``possible_agents`` order; ``None``
            entries leave that agent raw. A ``gymnasium.Env`` takes exactly one interface.

    Raises:
        TypeError: ``env`` is neither kind of env, or the interfaces do not fit it.

    Example:
        >>> import envs, gymnasium
        >>> from arena import EnvItfWrapper, Interface
        >>> str(EnvItfWrapper(envs.make("tic_tac_toe"), {"player_0": Interface()}))
        '<MultiAgentEnvItfWrapper<TicTacToe>>'
        >>> type(EnvItfWrapper(gymnasium.make("CartPole-v1"), Interface())).__name__
        'GymEnvItfWrapper'
    """
    if isinstance(env, gymnasium.Env):
        return GymEnvItfWrapper(env, interfaces)  # type: ignore[arg-type]  # it refuses all but one Interface, by name
    return MultiAgentEnvItfWrapper(env, interfaces)


class MultiAgentEnvItfWrapper(MultiAgentWrapper):
    """A multi-agent env seen through per-agent interfaces (built by :func:`EnvItfWrapper`).

    Observations, rewards and action masks leave through each agent's interface; actions
    come back through it, so the wrapped env receives raw actions. An agent's action mask
    is translated before its observation, so an interface can put the current mask into
    the observation. A deep copy (or pickle) is independent of the original: its
    interfaces are copies, and it compiles their stacks anew.

    Args:
        env: the arena env to wrap.
        interfaces: as :func:`EnvItfWrapper` takes them.

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
            raise TypeError(
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
        """Tables of the interfaces' compiled functions, per channel, for the agents whose stack uses it."""
        self._observe: dict[AgentID, Any] = {}
        self._start: dict[AgentID, Any] = {}
        self._act: dict[AgentID, Any] = {}
        self._reward: dict[AgentID, Any] = {}
        self._mask: dict[AgentID, Any] = {}
        self._done: dict[AgentID, Any] = {}
        for agent, itf in self.interfaces.items():
            if itf is None:
                continue
            stack = itf.compiled()
            for table, function in (
                (self._observe, stack.observation),
                (self._act, stack.action),
                (self._reward, stack.reward),
                (self._mask, stack.action_mask),
                (self._start, stack.reset),
                (self._done, stack.done),
            ):
                if function is not None:
                    table[agent] = function
        everyone = set(self.possible_agents)
        self._act_everyone = set(self._act) == everyone
        self._reward_everyone = set(self._reward) == everyone
        self._observe_everyone = set(self._observe) == everyone

    _TABLES = ("_observe", "_start", "_act", "_reward", "_mask", "_done")

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
        act, raw = self._act, actions
        if act:  # the model actions through each agent's stack, inlined: this runs every step
            try:
                if self._act_everyone:
                    raw = {}
                    for a, x in actions.items():  # a loop, not a comprehension: no extra frame per step
                        raw[a] = act[a](x)
                else:
                    raw = {a: (f(x) if (f := act.get(a)) is not None else x) for a, x in actions.items()}
            except ArenaError:
                raise
            except Exception as err:
                raw = self._untranslated_actions(actions, err)
        try:
            observations, rewards, terminations, truncations, infos = self.env.step(raw)
        except InvalidActionError:
            self._raise_for_model_actions(actions)  # name the model action when it was out of its space
            raise  # any other error of the env is the env's own, unwrapped
        try:  # the outputs through the interfaces, inlined: this runs every step
            if self._mask:  # masks before observations: an interface may put the mask in the observation
                for info in infos.values():
                    if "action_mask" in info:
                        infos = self._infos(infos)
                        break
            reward, observe = self._reward, self._observe
            if self._done and (True in terminations.values() or True in truncations.values()):
                rewards = self._final_rewards(rewards, terminations, truncations)
            elif reward:
                if self._reward_everyone:
                    transformed = {}
                    for a, r in rewards.items():
                        transformed[a] = reward[a](r)
                    rewards = transformed
                else:
                    rewards = {a: (f(r) if (f := reward.get(a)) is not None else r) for a, r in rewards.items()}
            if self._pending:
                observations = self._observations(observations)
            elif observe:  # the common case, inlined: it runs every step
                if self._observe_everyone:
                    transformed = {}
                    for a, o in observations.items():
                        transformed[a] = observe[a](o)
                    observations = transformed
                else:
                    observations = {
                        a: (f(o) if (f := observe.get(a)) is not None else o) for a, o in observations.items()
                    }
        except ArenaError:
            raise
        except Exception as err:
            raise self._interface_error("transforming the env's step", err) from err
        return observations, rewards, terminations, truncations, infos

    def _untranslated_actions(self, actions: Mapping[AgentID, Any], err: Exception) -> dict[AgentID, Any]:
        """After ``err`` translating ``actions``: ids no interface knows pass untranslated (the
        env names them) when that was the cause; else the error, naming the model action or the
        interface that failed."""
        act = self._act
        try:
            if isinstance(err, KeyError) and not all(a in act for a in actions):
                return {a: (f(x) if (f := act.get(a)) is not None else x) for a, x in actions.items()}
        except ArenaError:
            raise
        except Exception as inner:
            err = inner
        self._raise_for_model_actions(actions)
        raise self._interface_error("translating actions", err) from err

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
                out[agent] = value if (function := reward.get(agent)) is None else function(value)
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
                    out[a] = o if (f := observe.get(a)) is None else f(o)
            return out
        if observe:
            return {a: (f(o) if (f := observe.get(a)) is not None else o) for a, o in observations.items()}
        return observations

    def _infos(self, infos: dict[AgentID, dict[str, Any]]) -> dict[AgentID, dict[str, Any]]:
        mask = self._mask
        if not mask:
            return infos
        translated = None
        for agent, info in infos.items():
            if "action_mask" in info and (function := mask.get(agent)) is not None:
                if translated is None:
                    translated = dict(infos)
                translated[agent] = {**info, "action_mask": function(info["action_mask"])}
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


class GymEnvItfWrapper(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
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
            raise TypeError(
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
