"""Gymnasium single-agent views: any ``gymnasium.Env`` as a one-agent arena env, and one seat
of an arena env (the other seats played by fixed arena agents) as a ``gymnasium.Env``.

Gymnasium is a core dependency, so this adapter needs no extra. The full training bridge
(seat shuffling, self-play, Stable-Baselines3) lives in :mod:`arena.training`; this module is
the minimal, exact single-seat view (marlenv's ``SingleAgent``).

Example:
    >>> import gymnasium
    >>> env = from_gymnasium(gymnasium.make("CartPole-v1"))
    >>> env.possible_agents
    ['agent_0']
    >>> single = to_gymnasium(env)
    >>> observation, info = single.reset(seed=0)
    >>> observation.shape
    (4,)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from arena.adapters._common import int8_mask
from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv
from arena.errors import AgentError, ArenaError, ResetNeeded, UnknownAgentError
from arena.play import derive_seed

__all__ = ["from_gymnasium", "to_gymnasium", "GymnasiumToArena", "ArenaToGymnasium"]


class GymnasiumToArena(MultiAgentEnv):
    """A single-agent ``gymnasium.Env`` as a one-agent arena env (built by :func:`from_gymnasium`).

    The agent acts at every step; its reward, termination and truncation are the
    Gymnasium env's. An ``info["action_mask"]`` from the env is passed on as an int8
    mask. Seeds go to the Gymnasium env's ``reset``.
    """

    def __init__(self, env: gymnasium.Env, agent: AgentID = "agent_0") -> None:
        if not isinstance(env, gymnasium.Env):
            raise TypeError(f"from_gymnasium: expected a gymnasium.Env, got {type(env).__name__}")
        if not isinstance(agent, str):
            raise TypeError(f"from_gymnasium: the agent id must be a str, got {agent!r}")
        self.env = env
        self.agent = agent
        self.possible_agents = [agent]
        self.agents = []
        self.observation_spaces = {agent: env.observation_space}
        self.action_spaces = {agent: env.action_space}
        self.metadata = dict(env.metadata)
        self.render_mode = env.render_mode
        spec = getattr(env, "spec", None)
        self.env_name = spec.id if spec is not None else type(env.unwrapped).__name__
        self._acting: tuple[AgentID, ...] | None = None
        self._masks: dict[AgentID, np.ndarray] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the Gymnasium env (with ``seed``); the agent acts first."""
        super().reset(seed=seed)
        observation, info = self.env.reset(seed=seed, options=options)
        self.agents = [self.agent]
        self._acting = (self.agent,)
        return {self.agent: observation}, {self.agent: self._info(info)}

    def step(self, actions: Mapping[AgentID, Any]):
        """Step the Gymnasium env with the agent's action."""
        self.check_actions(actions, self._acting, self._masks)
        agent = self.agent
        observation, reward, terminated, truncated, info = self.env.step(actions[agent])
        terminated, truncated = bool(terminated), bool(truncated)
        flags = ({agent: terminated}, {agent: truncated})
        if terminated or truncated:
            self.agents, self._acting, self._masks = [], None, {}
            return {}, {agent: float(reward)}, *flags, {agent: dict(info)}
        return {agent: observation}, {agent: float(reward)}, *flags, {agent: self._info(info)}

    def _info(self, info: Mapping[str, Any]) -> dict[str, Any]:
        out = dict(info)
        if "action_mask" in out and isinstance(self.env.action_space, spaces.Discrete):
            out["action_mask"] = self._masks[self.agent] = int8_mask(out["action_mask"])
        else:
            self._masks = {}
        return out

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    def __str__(self) -> str:
        return f"<GymnasiumToArena<{self.env_name}>>"


class ArenaToGymnasium(gymnasium.Env):
    """One seat of an arena env as a ``gymnasium.Env`` (built by :func:`to_gymnasium`).

    The other seats are played by the given arena agents, in the env's own order, as
    :func:`arena.play` would: each opponent receives its reward since its last turn and
    its final reward once in ``done``. Opponent seeds derive from the reset seed like in
    ``arena.play`` (``derive_seed(seed, index in possible_agents)``), so a seeded reset
    fixes the episode for given actions.

    * ``reset`` plays the opponents until the seat must act.
    * ``step(action)`` returns the seat's reward summed over its own step and every
      opponent step until it must act again (or its episode ends), so rewards that reach
      it during others' turns, the final one included, are never lost.
    * When the seat's episode ends its observation is the last one it acted on (arena
      envs give none to finished agents); ``info`` is the env's final info for the seat.
    * Legal actions are in ``info["action_mask"]`` and :meth:`action_masks`.
    """

    def __init__(self, env: MultiAgentEnv, agent: AgentID, opponents: Mapping[AgentID, Agent]) -> None:
        if not isinstance(env, MultiAgentEnv):
            raise TypeError(f"to_gymnasium: expected an arena.MultiAgentEnv, got {type(env).__name__}")
        possible = list(env.possible_agents)
        if agent not in possible:
            raise UnknownAgentError(f"to_gymnasium: {env} has no agent {agent!r}; expected one of {possible}")
        if not isinstance(opponents, Mapping):
            raise TypeError(f"to_gymnasium: opponents must be a dict of arena agents keyed by agent id, "
                            f"got {type(opponents).__name__}")
        others = [a for a in possible if a != agent]
        unknown = [a for a in opponents if a not in others]
        if unknown:
            raise UnknownAgentError(f"to_gymnasium: opponents name {unknown[0]!r}, which is not one of "
                                    f"the other agents {others} of {env}")
        missing = [a for a in others if a not in opponents]
        if missing:
            raise ValueError(f"to_gymnasium: {env} needs an opponent agent for {missing} "
                             f"(the seat is {agent!r})")
        for other, opponent in opponents.items():
            if not isinstance(opponent, Agent):
                raise TypeError(f"to_gymnasium: the opponent for {other!r} must be an arena.Agent, "
                                f"got {type(opponent).__name__}")
            opponent.setup(env.observation_space(other), env.action_space(other))
        self.env = env
        self.agent = agent
        self.opponents = {a: opponents[a] for a in others}
        self.observation_space = env.observation_space(agent)
        self.action_space = env.action_space(agent)
        self.metadata = env.metadata
        self.render_mode = env.render_mode
        self._index = {a: i for i, a in enumerate(possible)}
        self._observation: Any = None
        self._mask: np.ndarray | None = None
        self._opponent_actions: dict[AgentID, Any] = {}
        self._pending: dict[AgentID, float] = {}
        self._running = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env and the opponents; play the opponents until the seat acts."""
        super().reset(seed=seed)
        for other, opponent in self.opponents.items():
            opponent.reset(seed=None if seed is None else derive_seed(seed, self._index[other]))
        observations, infos = self.env.reset(seed=seed, options=options)
        self._pending = dict.fromkeys(self.opponents, 0.0)
        self._running = True
        reward, terminated, truncated, info = self._advance(observations, infos, 0.0)
        if terminated or truncated:
            raise ArenaError(f"to_gymnasium: the episode of {self.env} ended before {self.agent!r} was asked to act")
        return self._observation, info

    def step(self, action: Any):
        """Act for the seat, then let the opponents play until the seat acts again or is done."""
        if not self._running:
            raise ResetNeeded(f"{self}: step() called with no episode running; call reset() first")
        actions = {**self._opponent_actions, self.agent: action}
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self._opponent_actions = {}
        reward, terminated, truncated, info = self._absorb(rewards, terminations, truncations, infos, 0.0)
        if not (terminated or truncated):
            reward, terminated, truncated, info = self._advance(observations, infos, reward)
        return self._observation, reward, terminated, truncated, info

    def _absorb(self, rewards: Mapping[AgentID, float], terminations: Mapping[AgentID, bool],
                truncations: Mapping[AgentID, bool], infos: Mapping[AgentID, Any],
                reward: float) -> tuple[float, bool, bool, dict[str, Any]]:
        """Book one env step's rewards and flags; tell finished opponents their final reward."""
        for other, value in rewards.items():
            if other == self.agent:
                reward += float(value)
            elif other in self._pending:
                self._pending[other] += float(value)
        for other in list(self._pending):
            if terminations.get(other) or truncations.get(other):
                self._finish(other, infos.get(other) or {})
        truncated = bool(truncations.get(self.agent, False))
        terminated = bool(terminations.get(self.agent, False)) or (self.agent not in self.env.agents and not truncated)
        if terminated or truncated:
            self._end_episode()
            return reward, terminated, truncated, dict(infos.get(self.agent) or {})
        return reward, False, False, {}

    def _advance(self, observations: dict[AgentID, Any], infos: dict[AgentID, Any],
                 reward: float) -> tuple[float, bool, bool, dict[str, Any]]:
        """Let the opponents act until the seat is asked to act; sum the seat's rewards."""
        while True:
            actions = {other: self._opponent_act(other, obs, infos) for other, obs in observations.items()
                       if other != self.agent}
            if self.agent in observations:
                self._opponent_actions = actions
                info = dict(infos.get(self.agent) or {})
                self._observation = observations[self.agent]
                self._mask = info.get("action_mask")
                return reward, False, False, info
            if not observations:
                self._end_episode()
                return reward, True, False, {}
            observations, rewards, terminations, truncations, infos = self.env.step(actions)
            reward, terminated, truncated, info = self._absorb(rewards, terminations, truncations, infos, reward)
            if terminated or truncated:
                return reward, terminated, truncated, info

    def _opponent_act(self, other: AgentID, observation: Any, infos: Mapping[AgentID, Any]) -> Any:
        info = infos.get(other) or {}
        reward, self._pending[other] = self._pending[other], 0.0
        try:
            return self.opponents[other].act(observation, info.get("action_mask"), reward)
        except Exception as err:
            raise AgentError(other, err) from err

    def _finish(self, other: AgentID, info: Mapping[str, Any]) -> None:
        reward = self._pending.pop(other)
        try:
            self.opponents[other].done(reward, dict(info))
        except Exception as err:
            raise AgentError(other, err) from err

    def _end_episode(self) -> None:
        """The seat's episode is over: opponents still in the game hear their last reward."""
        for other in list(self._pending):
            self._finish(other, {})
        self._running = False
        self._opponent_actions = {}
        self._mask = None

    def action_masks(self) -> np.ndarray:
        """The seat's current legal actions (all ones without a mask), for sb3-contrib's MaskablePPO."""
        if self._mask is not None:
            return self._mask.copy()
        if isinstance(self.action_space, spaces.Discrete):
            return np.ones(int(self.action_space.n), dtype=np.int8)
        raise ArenaError(f"{self}: action_masks() needs a Discrete action space, got {self.action_space}")

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    def __str__(self) -> str:
        return f"<ArenaToGymnasium<{self.env}, {self.agent!r}>>"


def from_gymnasium(env: gymnasium.Env, *, agent: AgentID = "agent_0") -> GymnasiumToArena:
    """A single-agent ``gymnasium.Env`` as a one-agent arena env.

    Args:
        env: the Gymnasium env (e.g. ``gymnasium.make("CartPole-v1")``).
        agent: the id of its one agent.

    Example:
        >>> import gymnasium
        >>> env = from_gymnasium(gymnasium.make("CartPole-v1"), agent="pole")
        >>> observations, infos = env.reset(seed=0)
        >>> list(observations)
        ['pole']
    """
    return GymnasiumToArena(env, agent)


def to_gymnasium(env: MultiAgentEnv, agent: AgentID | None = None,
                 opponents: Mapping[AgentID, Agent] | None = None) -> ArenaToGymnasium:
    """One seat of an arena env as a ``gymnasium.Env``, with fixed opponents in the other seats.

    Args:
        env: the arena env.
        agent: the seat (an id in ``possible_agents``); may be left out for a one-agent env.
        opponents: an arena agent for every other agent id (none for a one-agent env).

    Raises:
        ValueError: ``agent`` left out for a multi-agent env, or an opponent missing.
        UnknownAgentError: ``agent`` or an opponent key is not an agent of ``env``.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> env = to_gymnasium(envs.make("rock_paper_scissors"), "player_0", {"player_1": RandomAgent()})
        >>> observation, info = env.reset(seed=1)
        >>> observation
        3
    """
    if agent is None:
        if len(env.possible_agents) != 1:
            raise ValueError(f"to_gymnasium: {env} has agents {list(env.possible_agents)}; name the seat "
                             "to play (agent=...) and give arena agents for the others (opponents=...)")
        agent = env.possible_agents[0]
    return ArenaToGymnasium(env, agent, opponents or {})
