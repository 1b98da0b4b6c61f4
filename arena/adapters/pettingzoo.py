"""PettingZoo in both directions: arena envs as AEC/Parallel envs, and PettingZoo envs as arena envs.

Needs the ``pettingzoo`` extra (``pip install 'arena-marl[pettingzoo]'``); importing this
module without it raises :class:`~arena.errors.MissingDependencyError`.

* :func:`to_aec` — any arena env as a PettingZoo ``AECEnv``. Agents that must act at
  the same time are asked one after another; the arena env is stepped once the last of
  them has chosen. PettingZoo's rules hold: ``last()`` returns the reward accumulated
  since the agent last acted, and an agent whose episode ended stays in ``agents`` until
  it is stepped with ``None``.
* :func:`to_parallel` — an arena env where every live agent acts at every step as a
  PettingZoo ``ParallelEnv``; other envs get :class:`~arena.errors.NotParallelizableError`,
  which says to use :func:`to_aec`.
* :func:`from_pettingzoo` — an ``AECEnv`` or ``ParallelEnv`` as an arena env (see
  :mod:`arena.adapters._pettingzoo_import`).

Example:
    >>> import envs
    >>> from arena.adapters.pettingzoo import to_aec
    >>> aec = to_aec(envs.make("tic_tac_toe"))
    >>> aec.reset(seed=0)
    >>> aec.agent_selection
    'player_0'
    >>> aec.step(4)
    >>> aec.agent_selection
    'player_1'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.adapters._common import as_space_dtype, blank_observation, require
from arena.env import AgentID, HoldsEnv, MultiAgentEnv
from arena.errors import InvalidActionError, NotParallelizableError, ResetNeeded, UnknownAgentError

require("pettingzoo", "pettingzoo", __name__)

from pettingzoo.utils.env import AECEnv, ParallelEnv  # noqa: E402  (after the friendly check)

from arena.adapters._pettingzoo_import import AECToArena, ParallelToArena, from_pettingzoo  # noqa: E402
from arena.errors import InvalidTypeError

__all__ = ["to_aec", "to_parallel", "from_pettingzoo", "ArenaToAEC", "ArenaToParallel", "AECToArena", "ParallelToArena"]


def _check_env(env: Any, caller: str) -> MultiAgentEnv:
    if not isinstance(env, MultiAgentEnv):
        raise InvalidTypeError(f"{caller}: expected an arena.MultiAgentEnv, got {type(env).__name__}")
    return env


def _mask_in_observation(env: MultiAgentEnv, asked: bool | None) -> bool:
    """``asked``, or by default whether the env's masks matter (:attr:`arena.MultiAgentEnv.masked_actions`)."""
    if asked is None:
        return bool(env.masked_actions)
    if not isinstance(asked, bool):
        raise InvalidTypeError(f"mask_in_observation must be True, False or None (the env decides), got {asked!r}")
    return asked


class _ArenaSpaces:
    """Spaces of an arena env as PettingZoo sees them, optionally with the mask in the observation."""

    def __init__(self, env: MultiAgentEnv, mask_in_observation: bool | None) -> None:
        mask_in_observation = _mask_in_observation(env, mask_in_observation)
        self.mask_in_observation = mask_in_observation
        self.raw_observation_spaces = {a: env.observation_space(a) for a in env.possible_agents}
        self.action_spaces = {a: env.action_space(a) for a in env.possible_agents}
        self.observation_spaces: dict[AgentID, spaces.Space] = {}
        self.mask_sizes: dict[AgentID, int] = {}  # the agents whose observation carries a mask
        for agent, space in self.raw_observation_spaces.items():
            action_space = self.action_spaces[agent]
            if mask_in_observation and isinstance(action_space, spaces.Discrete):
                self.mask_sizes[agent] = int(action_space.n)
                mask_space = spaces.Box(0, 1, (int(action_space.n),), np.int8)
                space = spaces.Dict({"observation": space, "action_mask": mask_space})
            self.observation_spaces[agent] = space

    def observation(self, agent: AgentID, raw: Any, mask: np.ndarray | None) -> Any:
        """``raw`` in PettingZoo form: numpy data of the space's dtype, the mask added if asked."""
        value = as_space_dtype(self.raw_observation_spaces[agent], raw)
        space = self.observation_spaces[agent]
        if space is self.raw_observation_spaces[agent]:
            return value
        n = self.mask_sizes[agent]
        return {"observation": value, "action_mask": np.ones(n, np.int8) if mask is None else mask}


class _SpaceLookup:
    """``observation_space(agent)``/``action_space(agent)`` from the dicts, unknown ids refused."""

    possible_agents: list[AgentID]
    observation_spaces: dict[AgentID, spaces.Space]
    action_spaces: dict[AgentID, spaces.Space]

    def observation_space(self, agent: AgentID) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call)."""
        return self._lookup(self.observation_spaces, agent)

    def action_space(self, agent: AgentID) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call)."""
        return self._lookup(self.action_spaces, agent)

    def _lookup(self, table: dict[AgentID, spaces.Space], agent: AgentID) -> spaces.Space:
        try:
            return table[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(
                f"{self}: unknown agent {agent!r}; expected one of {self.possible_agents}"
            ) from None

    def _adopt(self, env: MultiAgentEnv, mask_in_observation: bool | None) -> None:
        """Take the agents, spaces, metadata and render mode that both PettingZoo views share."""
        self._spaces = _ArenaSpaces(env, mask_in_observation)
        self.possible_agents = list(env.possible_agents)
        self.observation_spaces = self._spaces.observation_spaces
        self.action_spaces = self._spaces.action_spaces
        self.metadata = {**env.metadata, "name": env.metadata.get("name", env.name)}
        self.render_mode = env.render_mode
        self.agents: list[AgentID] = []
        self._last_observation: dict[AgentID, Any] = {}


class ArenaToAEC(HoldsEnv, _SpaceLookup, AECEnv):
    """An arena env seen as a PettingZoo ``AECEnv`` (built by :func:`to_aec`).

    Observations: ``observe(agent)`` is the observation the arena env last gave
    ``agent`` (a fixed blank element of its space before the first one), so a finished
    agent sees the state it last acted on. Legal actions are in ``infos[agent]
    ["action_mask"]`` and also in the observation dict ``{"observation", "action_mask"}`` of
    the classic PettingZoo games where the env's masks matter (``env.masked_actions``; see
    :func:`to_aec`'s ``mask_in_observation``).

    Raises (from ``step``): :class:`~arena.errors.InvalidActionError` or
    :class:`~arena.errors.IllegalActionError` for a bad action, checked when it is given,
    so that the env state is unchanged and the same agent may try again.
    """

    def __init__(self, env: MultiAgentEnv, mask_in_observation: bool | None = None) -> None:
        super().__init__()
        self.env = _check_env(env, "to_aec")
        self._adopt(env, mask_in_observation)
        self.rewards: dict[AgentID, float] = {}
        self._cumulative_rewards: dict[AgentID, float] = {}
        self.terminations: dict[AgentID, bool] = {}
        self.truncations: dict[AgentID, bool] = {}
        self.infos: dict[AgentID, dict[str, Any]] = {}
        self.agent_selection: AgentID | None = None
        self._masks: dict[AgentID, np.ndarray] = {}
        self._to_act: list[AgentID] = []
        self._chosen: dict[AgentID, Any] = {}
        self._skip_agent_selection = None
        self._check_masks = env.illegal_action != "penalty"

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._last_observation, self._masks, self._chosen = {}, {}, {}
        self._skip_agent_selection = None
        self._start_round(observations, infos)

    def _start_round(self, observations: dict[AgentID, Any], infos: dict[AgentID, dict[str, Any]]) -> None:
        for agent, info in infos.items():
            if agent in self.infos:
                self.infos[agent] = info
        for agent, observation in observations.items():
            self._last_observation[agent] = observation
            mask = (infos.get(agent) or {}).get("action_mask")
            if mask is not None:
                self._masks[agent] = mask
            else:
                self._masks.pop(agent, None)
        self._to_act = list(observations)
        if self._to_act:
            self.agent_selection = self._to_act[0]
        self._deads_step_first()

    def observe(self, agent: AgentID) -> Any:
        raw = self._last_observation.get(agent)
        if raw is None:
            raw = blank_observation(self._spaces.raw_observation_spaces[agent])
        return self._spaces.observation(agent, raw, self._masks.get(agent))

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if agent is not None and (self.terminations.get(agent) or self.truncations.get(agent)):
            self._was_dead_step(action)
            return
        if agent is None or agent not in self._to_act:
            raise ResetNeeded(
                f"{self}: step() called with no agent waiting to act; call reset() first "
                "(before the first step, or after every agent has finished)"
            )
        if action is None:
            raise InvalidActionError(
                f"{self}: {agent!r} is alive, so its action must lie in "
                f"{self.action_spaces[agent]}, got None (None is only for finished agents)"
            )
        mask = self._masks.get(agent) if self._check_masks else None
        self.env.check_actions({agent: action}, (agent,), None if mask is None else {agent: mask})
        self._cumulative_rewards[agent] = 0.0
        self._chosen[agent] = action
        position = self._to_act.index(agent)
        if position + 1 < len(self._to_act):  # others still choose for this arena step
            self.agent_selection = self._to_act[position + 1]
            self._clear_rewards()
            return
        actions, self._chosen = self._chosen, {}
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        still_in = set(self.env.agents)
        for name in self.agents:
            self.rewards[name] = float(rewards.get(name, 0.0))
            if not (self.terminations[name] or self.truncations[name]):
                truncated = bool(truncations.get(name, False))
                self.truncations[name] = truncated
                self.terminations[name] = bool(terminations.get(name, False)) or (
                    name not in still_in and not truncated
                )
        self._accumulate_rewards()
        self._start_round(observations, infos)

    def state(self) -> Any:
        raise NotImplementedError(f"{self}: arena envs have no global state() view")

    def __str__(self) -> str:
        return str(self.metadata["name"])


class ArenaToParallel(HoldsEnv, _SpaceLookup, ParallelEnv):
    """An arena env where every live agent acts at every step, as a PettingZoo ``ParallelEnv``.

    Built by :func:`to_parallel`. After each step the observations, rewards, flags and
    infos hold every agent that was live before it (PettingZoo's rule); an agent that
    left gets the observation it last acted on as its final one.

    An agent that stops acting while it stays in ``agents`` (a dead Pommerman teammate
    waiting for its side's outcome, see ``docs/architecture.md``) still gets an observation
    every step (the one it last acted on), and its action is taken and dropped; its
    rewards and final termination come as the arena env gives them.

    Raises:
        NotParallelizableError: from ``reset`` when the arena env asks only some of its
            agents to act, or from ``step`` when an agent that had stopped acting is asked to
            act again (turns, not a parallel game); the message says to use :func:`to_aec`.
    """

    def __init__(self, env: MultiAgentEnv, mask_in_observation: bool | None = None) -> None:
        self.env = _check_env(env, "to_parallel")
        if env.metadata.get("is_parallelizable") is False:
            raise NotParallelizableError(
                f"to_parallel: {env} declares metadata['is_parallelizable'] = False (not every live "
                "agent acts at every step); use arena.adapters.pettingzoo.to_aec(env) instead"
            )
        self._adopt(env, mask_in_observation)

    def _require_everyone(self, observations: Mapping[AgentID, Any], where: str) -> None:
        """Refuse turns: after reset every agent acts; later, one that stopped never acts again."""
        acting = set(observations)
        if where == "reset()":
            wrong = acting != set(self.env.agents)
        else:
            wrong = bool(acting & self._stopped) or not acting <= set(self.env.agents)
        if wrong:
            raise NotParallelizableError(
                f"to_parallel: after {where}, {self.env} asks {sorted(observations)} to act while "
                f"{sorted(self.env.agents)} are live; a ParallelEnv needs every live agent to act at "
                "every step: use arena.adapters.pettingzoo.to_aec(env) instead"
            )
        self._stopped |= set(self.env.agents) - acting

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        observations, infos = self.env.reset(seed=seed, options=options)
        self._stopped: set[AgentID] = set()
        self._require_everyone(observations, "reset()")
        self.agents = list(self.env.agents)
        self._last_observation = {}
        return self._observations(observations, infos, self.agents), self._infos(infos, self.agents)

    def step(self, actions: dict[AgentID, Any]):
        before = list(self.agents)
        if self._stopped and isinstance(actions, Mapping):  # out of play: its action is taken and dropped
            actions = {agent: action for agent, action in actions.items() if agent not in self._stopped}
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self.agents = list(self.env.agents)
        self._require_everyone(observations, "step()")
        still_in = set(self.agents)
        out_truncations = {a: bool(truncations.get(a, False)) for a in before}
        out_terminations = {
            a: bool(terminations.get(a, False)) or (a not in still_in and not out_truncations[a]) for a in before
        }
        out_rewards = {a: float(rewards.get(a, 0.0)) for a in before}
        return (
            self._observations(observations, infos, before),
            out_rewards,
            out_terminations,
            out_truncations,
            self._infos(infos, before),
        )

    def _observations(
        self, observations: dict[AgentID, Any], infos: dict[AgentID, dict[str, Any]], agents: list[AgentID]
    ) -> dict[AgentID, Any]:
        self._last_observation.update(observations)
        out = {}
        for agent in agents:
            raw = self._last_observation.get(agent)
            if raw is None:
                raw = blank_observation(self._spaces.raw_observation_spaces[agent])
            mask = (infos.get(agent) or {}).get("action_mask") if agent in observations else None
            out[agent] = self._spaces.observation(agent, raw, mask)
        return out

    @staticmethod
    def _infos(infos: dict[AgentID, dict[str, Any]], agents: list[AgentID]) -> dict[AgentID, dict[str, Any]]:
        return {agent: infos.get(agent) or {} for agent in agents}

    def __str__(self) -> str:
        return str(self.metadata["name"])


def to_aec(env: MultiAgentEnv, *, mask_in_observation: bool | None = None) -> ArenaToAEC:
    """An arena env as a PettingZoo ``AECEnv``; works for every arena env.

    Args:
        env: the arena env (it is reset and stepped by the AEC env).
        mask_in_observation: also give each agent with a Discrete action space the
            observation dict ``{"observation": ..., "action_mask": ...}`` of PettingZoo's
            classic games (the mask is all ones when the env has none). ``None`` (the
            default): where the env's masks matter (``env.masked_actions``: the board, card
            and dice games), as PettingZoo's classic games do, so that PettingZoo's tools
            (``performance_benchmark``) sample legal actions. The mask is always in
            ``infos[agent]["action_mask"]`` when the env provides one.

    Example:
        >>> import envs
        >>> from pettingzoo.test import api_test
        >>> api_test(to_aec(envs.make("rock_paper_scissors")), num_cycles=5)  # doctest: +ELLIPSIS
        Starting API test
        Passed API test
    """
    return ArenaToAEC(env, mask_in_observation=mask_in_observation)


def to_parallel(env: MultiAgentEnv, *, mask_in_observation: bool | None = None) -> ArenaToParallel:
    """An arena env where every live agent acts at every step as a PettingZoo ``ParallelEnv``.

    How this is detected: an env may declare ``metadata["is_parallelizable"] = False``
    (PettingZoo's key) to be refused at once; otherwise ``reset`` checks that the
    observations name exactly the live agents, and every ``step`` that a live agent that
    stopped acting (out of play, see :class:`ArenaToParallel`) is not asked to act again;
    they raise :class:`~arena.errors.NotParallelizableError` (saying to use
    :func:`to_aec`) the first time they do not. The check costs a few set operations per step.

    Args:
        env: the arena env.
        mask_in_observation: as in :func:`to_aec`; PettingZoo's ``parallel_api_test``
            samples actions with the mask only when it is in the observation.

    Example:
        >>> import envs
        >>> par = to_parallel(envs.make("rock_paper_scissors", rounds=2))
        >>> observations, infos = par.reset(seed=0)
        >>> sorted(observations)
        ['player_0', 'player_1']
        >>> to_parallel(envs.make("tic_tac_toe")).reset(seed=0)
        Traceback (most recent call last):
        ...
        arena.errors.NotParallelizableError: to_parallel: after reset(), ...
    """
    return ArenaToParallel(env, mask_in_observation=mask_in_observation)
