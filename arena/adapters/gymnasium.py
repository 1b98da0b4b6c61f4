"""Gymnasium single-agent views: any ``gymnasium.Env`` as a one-agent arena env, and one seat
of an arena env (the other seats played by fixed arena agents) as a ``gymnasium.Env``.

Gymnasium is a core dependency, so this adapter needs no extra. :func:`to_gymnasium` is a
preset of the one single-seat bridge, :class:`arena.training.SingleAgentEnv` (which adds seat
shuffling, opponent pools and interfaces for training).

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
from arena.env import AgentID, HoldsEnv, MultiAgentEnv
from arena.errors import InvalidTypeError, InvalidValueError, UnknownAgentError
from arena.training.single_agent import SingleAgentEnv

__all__ = ["from_gymnasium", "to_gymnasium", "GymnasiumToArena"]


class GymnasiumToArena(HoldsEnv, MultiAgentEnv):
    """A single-agent ``gymnasium.Env`` as a one-agent arena env (built by :func:`from_gymnasium`).

    The agent acts at every step; its reward, termination and truncation are the
    Gymnasium env's. An ``info["action_mask"]`` from the env is passed on as an int8
    mask. Seeds go to the Gymnasium env's ``reset``.
    """

    def __init__(self, env: gymnasium.Env, agent: AgentID = "agent_0") -> None:
        if not isinstance(env, gymnasium.Env):
            raise InvalidTypeError(f"from_gymnasium: expected a gymnasium.Env, got {type(env).__name__}")
        if not isinstance(agent, str):
            raise InvalidTypeError(f"from_gymnasium: the agent id must be a str, got {agent!r}")
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

    def __str__(self) -> str:
        return f"<GymnasiumToArena<{self.env_name}>>"


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


def to_gymnasium(
    env: MultiAgentEnv,
    agent: AgentID | None = None,
    opponents: Mapping[AgentID, Agent] | None = None,
    *,
    illegal_action: str = "raise",
    illegal_penalty: float = -1.0,
) -> SingleAgentEnv:
    """One seat of an arena env as a ``gymnasium.Env``, with fixed opponents in the other seats.

    A preset of :class:`arena.training.SingleAgentEnv` (the one single-seat bridge): the
    learner always takes ``agent``, each opponent keeps its seat. Its semantics are the
    bridge's: ``reset(seed=s)`` plays the episode ``arena.play(env, agents, seed=s)`` plays
    (opponents re-seeded with ``derive_seed(s, index)``), and plain resets after it replay
    the same sequence; rewards earned during others' turns are summed into the seat's next
    return value; opponents hear their final reward once, also when an episode is abandoned
    by ``reset``; ``action_masks()`` are booleans.

    Args:
        env: the arena env.
        agent: the seat (an id in ``possible_agents``); may be left out for a one-agent env.
        opponents: an arena agent for every other agent id (none for a one-agent env).
        illegal_action, illegal_penalty: as :class:`~arena.training.SingleAgentEnv` takes them
            (``"forfeit"`` lets unmasked samplers such as Gymnasium's ``check_env`` step the env).

    Raises:
        ValueError: ``agent`` left out for a multi-agent env, or an opponent missing.
        UnknownAgentError: ``agent`` or an opponent key is not an agent of ``env``.
        TypeError: ``env`` is not an arena env, or an opponent is not an arena agent.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> env = to_gymnasium(envs.make("rock_paper_scissors"), "player_0", {"player_1": RandomAgent()})
        >>> observation, info = env.reset(seed=1)
        >>> observation
        3
    """
    if not isinstance(env, MultiAgentEnv):
        raise InvalidTypeError(f"to_gymnasium: expected an arena.MultiAgentEnv, got {type(env).__name__}")
    possible = list(env.possible_agents)
    if agent is None:
        if len(possible) != 1:
            raise InvalidValueError(
                f"to_gymnasium: {env} has agents {possible}; name the seat "
                "to play (agent=...) and give arena agents for the others (opponents=...)"
            )
        agent = possible[0]
    if agent not in possible:
        raise UnknownAgentError(f"to_gymnasium: {env} has no agent {agent!r}; expected one of {possible}")
    opponents = {} if opponents is None else opponents
    if not isinstance(opponents, Mapping):
        raise InvalidTypeError(
            f"to_gymnasium: opponents must be a dict of arena agents keyed by agent id, got {type(opponents).__name__}"
        )
    others = [a for a in possible if a != agent]
    unknown = [a for a in opponents if a not in others]
    if unknown:
        raise UnknownAgentError(
            f"to_gymnasium: opponents name {unknown[0]!r}, which is not one of the other agents {others} of {env}"
        )
    missing = [a for a in others if a not in opponents]
    if missing:
        raise InvalidValueError(f"to_gymnasium: {env} needs an opponent agent for {missing} (the seat is {agent!r})")
    for other in others:
        if not isinstance(opponents[other], Agent):
            raise InvalidTypeError(
                f"to_gymnasium: the opponent for {other!r} must be an arena.Agent, "
                f"got {type(opponents[other]).__name__}"
            )
    return SingleAgentEnv(
        env,
        [opponents[other] for other in others],
        seats=agent,
        illegal_action=illegal_action,
        illegal_penalty=illegal_penalty,
    )
