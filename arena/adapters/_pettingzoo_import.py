"""PettingZoo envs as arena envs (``from_pettingzoo``); imported by :mod:`arena.adapters.pettingzoo`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.env import AECEnv, ParallelEnv

from arena.adapters._common import int8_mask
from arena.env import AgentID, MultiAgentEnv
from arena.errors import ArenaError, InvalidTypeError

__all__ = ["from_pettingzoo", "AECToArena", "ParallelToArena"]


def _split_space(space: spaces.Space) -> spaces.Space:
    """The observation space without the ``action_mask`` entry of a classic-game dict."""
    if isinstance(space, spaces.Dict) and "action_mask" in space.spaces:
        rest = {key: sub for key, sub in space.spaces.items() if key != "action_mask"}
        if set(rest) == {"observation"}:
            return rest["observation"]
        return spaces.Dict(rest)
    return space


class _PettingZooBase(MultiAgentEnv):
    """What both directions share: agent ids, spaces, masks taken out of observations."""

    def __init__(self, env: AECEnv | ParallelEnv) -> None:
        self.env = env
        possible = getattr(env, "possible_agents", None)
        if not possible:
            raise ArenaError(f"from_pettingzoo: {env} must define possible_agents (arena's agent set is fixed)")
        odd = [agent for agent in possible if not isinstance(agent, str)]
        if odd:
            raise InvalidTypeError(
                f"from_pettingzoo: arena agent ids are str; {env} has agent {odd[0]!r} of type {type(odd[0]).__name__}"
            )
        self.possible_agents = list(possible)
        self.agents = []
        self._pz_observation_spaces = {a: env.observation_space(a) for a in self.possible_agents}
        self.observation_spaces = {a: _split_space(s) for a, s in self._pz_observation_spaces.items()}
        self.action_spaces = {a: env.action_space(a) for a in self.possible_agents}
        self.metadata = dict(getattr(env, "metadata", None) or {})
        self.render_mode = getattr(env, "render_mode", None)
        self.env_name = str(env)
        self._acting: tuple[AgentID, ...] | None = None
        self._masks: dict[AgentID, np.ndarray] = {}

    def _arena_view(
        self, agent: AgentID, observation: Any, info: Mapping[str, Any] | None
    ) -> tuple[Any, dict[str, Any]]:
        """Split one PettingZoo observation/info into arena's observation and info (mask in info)."""
        out_info = dict(info or {})
        mask = None
        mask_inside = self.observation_spaces[agent] is not self._pz_observation_spaces[agent]
        if mask_inside and isinstance(observation, Mapping):
            mask = observation.get("action_mask")
            rest = {key: value for key, value in observation.items() if key != "action_mask"}
            observation = rest["observation"] if set(rest) == {"observation"} else rest
        if mask is None:
            mask = out_info.get("action_mask")
        if mask is not None:
            mask = int8_mask(mask)
            out_info["action_mask"] = mask
            self._masks[agent] = mask
        else:
            self._masks.pop(agent, None)
        return observation, out_info

    def render(self) -> Any:
        return self.env.render()

    def close(self) -> None:
        self.env.close()

    def __str__(self) -> str:
        return f"<{type(self).__name__}<{self.env_name}>>"


class AECToArena(_PettingZooBase):
    """A PettingZoo ``AECEnv`` as an arena env (built by :func:`from_pettingzoo`).

    * One agent acts per step: the AEC env's ``agent_selection``.
    * Rewards: the arena step's rewards are the sum of the AEC env's per-step
      ``rewards`` dicts over every ``step`` it makes, so each reward is counted once;
      ``last()``'s accumulated reward, which repeats them, is never read.
    * An agent whose termination or truncation turns true leaves arena's ``agents`` at
      once and is reported in that step's flags; the ``step(None)`` PettingZoo asks for
      finished agents is made inside, right away.
    * Masks come from the observation dict (classic games' ``{"observation",
      "action_mask"}``) or from ``info["action_mask"]``; arena's observation space is the
      ``"observation"`` entry of such a dict.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._finished: set[AgentID] = set()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the AEC env; the first agent to act is its ``agent_selection``."""
        super().reset(seed=seed)
        self.env.reset(seed=seed, options=options)
        self._finished = set()
        rewards: dict[AgentID, float] = {}
        terminations: dict[AgentID, bool] = {}
        truncations: dict[AgentID, bool] = {}
        self._collect(rewards, terminations, truncations)  # agents dead from the start, if any
        self._retire(rewards, terminations, truncations)
        observations, infos = self._next_observations()
        return observations, infos

    def step(self, actions: Mapping[AgentID, Any]):
        """Step the AEC env with the one acting agent's action, then retire finished agents."""
        self.check_actions(actions, self._acting, self._masks)
        (agent,) = self._acting or ()  # check_actions raised ResetNeeded for None
        self.env.step(actions[agent])
        rewards = dict.fromkeys(self.agents, 0.0)
        terminations = dict.fromkeys(self.agents, False)
        truncations = dict.fromkeys(self.agents, False)
        self._collect(rewards, terminations, truncations)
        self._retire(rewards, terminations, truncations)
        observations, infos = self._next_observations()
        return observations, rewards, terminations, truncations, infos

    def _collect(
        self, rewards: dict[AgentID, float], terminations: dict[AgentID, bool], truncations: dict[AgentID, bool]
    ) -> None:
        """Add the AEC env's latest per-step rewards and note newly finished agents."""
        env = self.env
        for agent, reward in env.rewards.items():
            if reward and agent not in self._finished:  # arena gives agents that left no rewards
                rewards[agent] = rewards.get(agent, 0.0) + float(reward)
        for agent in env.agents:
            if agent in self._finished:
                continue
            terminated, truncated = bool(env.terminations[agent]), bool(env.truncations[agent])
            if terminated or truncated:
                self._finished.add(agent)
                terminations[agent], truncations[agent] = terminated, truncated
                rewards.setdefault(agent, 0.0)

    def _retire(
        self, rewards: dict[AgentID, float], terminations: dict[AgentID, bool], truncations: dict[AgentID, bool]
    ) -> None:
        """Make PettingZoo's ``step(None)`` for every finished agent it selects."""
        env = self.env
        while env.agents and (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(None)
            self._collect(rewards, terminations, truncations)

    def _next_observations(self) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        env = self.env
        self.agents = [a for a in env.agents if a not in self._finished]
        if not self.agents:
            self._acting = None
            self._masks = {}
            return {}, {}
        agent = env.agent_selection
        observation, info = self._arena_view(agent, env.observe(agent), env.infos.get(agent))
        self._acting = (agent,)
        return {agent: observation}, {agent: info}


class ParallelToArena(_PettingZooBase):
    """A PettingZoo ``ParallelEnv`` as an arena env (built by :func:`from_pettingzoo`).

    Every live agent acts at every step; agents that finished leave ``agents`` and get
    no further observations. Masks are taken as in :class:`AECToArena`.
    """

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the parallel env; every live agent acts first."""
        super().reset(seed=seed)
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._views(observations, infos)

    def step(self, actions: Mapping[AgentID, Any]):
        """Step the parallel env with every live agent's action."""
        self.check_actions(actions, self._acting, self._masks)
        observations, rewards, terminations, truncations, infos = self.env.step(dict(actions))
        out_rewards = {agent: float(reward) for agent, reward in rewards.items()}
        out_terminations = {agent: bool(flag) for agent, flag in terminations.items()}
        out_truncations = {agent: bool(flag) for agent, flag in truncations.items()}
        out_observations, out_infos = self._views(observations, infos)
        for agent, info in infos.items():  # finished agents keep their last info
            out_infos.setdefault(agent, dict(info))
        return out_observations, out_rewards, out_terminations, out_truncations, out_infos

    def _views(self, observations: dict[AgentID, Any], infos: dict[AgentID, dict[str, Any]]):
        self.agents = list(self.env.agents)
        out_observations, out_infos = {}, {}
        self._masks = {}
        for agent in self.agents:
            out_observations[agent], out_infos[agent] = self._arena_view(agent, observations[agent], infos.get(agent))
        self._acting = tuple(self.agents) if self.agents else None
        return out_observations, out_infos


def from_pettingzoo(env: AECEnv | ParallelEnv) -> AECToArena | ParallelToArena:
    """A PettingZoo ``AECEnv`` or ``ParallelEnv`` as an arena env.

    Args:
        env: the PettingZoo env (with ``possible_agents``, str agent ids).

    Raises:
        TypeError: ``env`` is neither an ``AECEnv`` nor a ``ParallelEnv``, or has non-str ids.
        ArenaError: ``env`` has no ``possible_agents``.

    Example:
        >>> import pettingzoo
        >>> env = from_pettingzoo(pettingzoo.make("aec", "classic/tictactoe-v3"))
        >>> observations, infos = env.reset(seed=0)
        >>> list(observations), infos["player_1"]["action_mask"].tolist()
        (['player_1'], [1, 1, 1, 1, 1, 1, 1, 1, 1])
    """
    if isinstance(env, AECEnv):
        return AECToArena(env)
    if isinstance(env, ParallelEnv):
        return ParallelToArena(env)
    raise InvalidTypeError(f"from_pettingzoo: expected a pettingzoo AECEnv or ParallelEnv, got {type(env).__name__}")
