"""Arena envs as RLlib ``MultiAgentEnv``s: ``to_rllib("tic_tac_toe")``.

Needs the ``rllib`` extra (install torch first: ``pip install torch==2.13.0``, then
``pip install 'arena-marl[rllib]'``); importing this module without Ray raises
:class:`~arena.errors.MissingDependencyError`.

arena's protocol already follows RLlib's central rule (the observations hold exactly the
agents that must act next), so the adapter adds only what RLlib asks on top:

* ``"__all__"`` in ``terminateds`` and ``truncateds``: true once the arena episode is over
  (``truncateds["__all__"]`` when an agent was cut by a time limit in the last step).
* RLlib needs a last observation for an agent that acted and is then truncated (for
  value bootstrapping); arena envs give finished agents none, so such an agent gets the
  observation it last acted on. Terminated agents get none (RLlib allows that).
* Per-agent spaces in ``observation_spaces``/``action_spaces`` (RLlib's new API stack
  reads them through ``get_observation_space(agent_id)``).
* ``agents`` holds the live agents plus those whose episode ended in the latest step,
  because RLlib's env checker requires every key of that step's dicts to be in it.
* Action masks: with ``mask_in_observation=True`` each agent with a Discrete action space
  observes ``{"action_mask": Box(0, 1, (n,), float32), "observations": ...}``, the
  layout of RLlib's action-masking RLModule example; otherwise masks stay in the infos.
* Illegal actions: RLlib's env pre-check (run by every env runner) and plain RLlib modules
  sample actions without masks. By default (``on_illegal_action="forfeit"``) an action the
  agent's mask forbids ends the episode as a forfeit: that agent gets ``forfeit_penalty``
  (-1), the others 0, everyone is terminated and the offender's info says
  ``{"forfeit": True}``; so a plain module learns to avoid illegal moves instead of
  crashing. ``"raise"`` lets the env's :class:`~arena.errors.IllegalActionError` through.
* Scripted, stateful arena agents (``pommerman_simple``) as fixed opponents: RLlib's modules
  see batches, not one player's history, so such agents play inside the env instead:
  ``to_rllib(OpponentsInside(env, {"agent_1": "pommerman_simple"}))``
  (:class:`~arena.adapters.opponents_inside.OpponentsInside`); RLlib sees only the other seats.
  Interfaces go on those seats above it (``EnvItfWrapper``), so their masks are the stack's.
* Spaces start at 0: RLlib one-hot encodes ``Discrete`` and ``MultiDiscrete`` values
  (``FlattenObservations``, its action distributions) ignoring ``start``, so such spaces
  (Pommerman's ``teammate``, ``enemies``, ``game_type``) are given to RLlib as their
  0-based twins, with values shifted on the way out and actions shifted back on the way in.

Example:
    >>> env = to_rllib("rock_paper_scissors", rounds=2)
    >>> observations, infos = env.reset(seed=0)
    >>> sorted(observations)
    ['player_0', 'player_1']
    >>> observations, rewards, terminateds, truncateds, infos = env.step({"player_0": 0, "player_1": 2})
    >>> terminateds
    {'player_0': False, 'player_1': False, '__all__': False}
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, cast

import numpy as np
from gymnasium import spaces

from arena.actions import discrete_index
from arena.adapters._common import require, shift_from_zero_start, shift_to_zero_start, zero_start_space
from arena.adapters.opponents_inside import OpponentsInside
from arena.env import AgentID, HoldsEnv, MultiAgentEnv
from arena.registry import make_env

require("ray.rllib", "rllib", __name__)

from ray.rllib.env.multi_agent_env import MultiAgentEnv as RLlibMultiAgentEnv  # noqa: E402

from arena.errors import InvalidTypeError, InvalidValueError

__all__ = ["to_rllib", "ArenaToRLlib", "OpponentsInside", "multi_agent_config"]


class ArenaToRLlib(HoldsEnv, RLlibMultiAgentEnv):
    """An arena env as a ``ray.rllib.env.multi_agent_env.MultiAgentEnv`` (built by :func:`to_rllib`).

    See the module docstring for how arena's protocol maps onto RLlib's.
    """

    def __init__(
        self,
        env: MultiAgentEnv,
        mask_in_observation: bool = False,
        on_illegal_action: str = "forfeit",
        forfeit_penalty: float = -1.0,
    ) -> None:
        if on_illegal_action not in ("forfeit", "raise"):
            raise InvalidValueError(
                f"to_rllib: on_illegal_action must be 'forfeit' or 'raise', got {on_illegal_action!r}"
            )
        if not isinstance(env, MultiAgentEnv):
            raise InvalidTypeError(
                f"to_rllib: expected an arena.MultiAgentEnv (or a name or factory of one), got {type(env).__name__}"
            )
        self.env = env
        self.possible_agents = list(env.possible_agents)
        self._agent_ids = set(self.possible_agents)
        super().__init__()
        self.agents: list[str] = []
        self.mask_in_observation = mask_in_observation
        self._forfeit = on_illegal_action == "forfeit" and env.illegal_action == "raise"
        self.forfeit_penalty = float(forfeit_penalty)
        self._env_observation_spaces = {a: env.observation_space(a) for a in env.possible_agents}
        self._env_action_spaces = {a: env.action_space(a) for a in env.possible_agents}
        self._raw_spaces = {a: zero_start_space(space) for a, space in self._env_observation_spaces.items()}
        self.action_spaces = {a: zero_start_space(space) for a, space in self._env_action_spaces.items()}
        # The spaces RLlib gets anew (0-based): only their values are shifted, on each step.
        self._shifted_observations = {
            a: self._env_observation_spaces[a]
            for a in env.possible_agents
            if self._raw_spaces[a] is not self._env_observation_spaces[a]
        }
        self._shifted_actions = {
            a: self._env_action_spaces[a]
            for a in env.possible_agents
            if self.action_spaces[a] is not self._env_action_spaces[a]
        }
        self.observation_spaces = {}
        self._mask_sizes: dict[AgentID, int] = {}
        for agent, space in self._raw_spaces.items():
            action_space = self.action_spaces[agent]
            if mask_in_observation and isinstance(action_space, spaces.Discrete):
                self._mask_sizes[agent] = int(action_space.n)
                mask_space = spaces.Box(0.0, 1.0, (int(action_space.n),), np.float32)
                space = spaces.Dict({"action_mask": mask_space, "observations": space})
            self.observation_spaces[agent] = space
        self.metadata = env.metadata
        self.render_mode = env.render_mode
        self._last_observation: dict[AgentID, Any] = {}
        self._masks: dict[AgentID, Any] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the arena env; returns observations and infos of the agents that act first."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.env.agents)
        self._last_observation = {}
        self._masks = {a: (infos.get(a) or {}).get("action_mask") for a in observations}
        return self._observations(observations, infos), {a: infos.get(a) or {} for a in observations}

    def step(self, action_dict: Mapping[Hashable, Any]):  # RLlib's signature: any hashable agent id
        """Step the arena env; adds ``"__all__"`` and the final observation of truncated agents."""
        live_before = list(self.env.agents)
        # The ids RLlib hands back are the ones this env gave it; arena's env checks them in step.
        actions = cast(dict[AgentID, Any], dict(action_dict))
        for agent, space in self._shifted_actions.items():
            if agent in actions:
                actions[agent] = shift_from_zero_start(space, actions[agent])
        offender = self._forbidden(actions)
        if offender is not None:
            return self._forfeit_episode(offender, live_before)
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        self._masks = {a: (infos.get(a) or {}).get("action_mask") for a in observations}
        still_in = set(self.env.agents)
        ended = [a for a in live_before if a not in still_in]
        out_observations = self._observations(observations, infos)
        out_rewards = {a: float(r) for a, r in rewards.items() if a in live_before}
        out_terminateds = {
            a: bool(terminations.get(a, False)) or (a in ended and not truncations.get(a)) for a in live_before
        }
        out_truncateds = {a: bool(truncations.get(a, False)) for a in live_before}
        for agent in ended:
            if out_truncateds[agent] and agent not in out_observations and agent in self._last_observation:
                out_observations[agent] = self._last_observation[agent]
        over = not still_in
        cut = over and any(out_truncateds[a] for a in ended)
        out_terminateds["__all__"] = over and not cut
        out_truncateds["__all__"] = cut
        self.agents = [a for a in self.possible_agents if a in still_in or a in ended]
        out_infos = {a: infos.get(a) or {} for a in out_observations}
        return out_observations, out_rewards, out_terminateds, out_truncateds, out_infos

    def _forbidden(self, actions: Mapping[AgentID, Any]) -> AgentID | None:
        """The first acting agent whose action its mask forbids (``None`` when all are legal or forfeits are off)."""
        if not self._forfeit:
            return None
        for agent, action in actions.items():
            mask, space = self._masks.get(agent), self._env_action_spaces.get(agent)
            if mask is None or not isinstance(space, spaces.Discrete):
                continue
            index = discrete_index(space, action)  # an action outside the space is the env's error to raise
            if index is not None and not mask[index]:
                return agent
        return None

    def _forfeit_episode(self, offender: AgentID, live: list[AgentID]):
        """End the episode: the offender gets the penalty, everyone live is terminated (the env is left as it was)."""
        rewards = {agent: self.forfeit_penalty if agent == offender else 0.0 for agent in live}
        terminateds = {**dict.fromkeys(live, True), "__all__": True}
        truncateds = {**dict.fromkeys(live, False), "__all__": False}
        self.agents, self._masks = list(live), {}
        return {}, rewards, terminateds, truncateds, {offender: {"forfeit": True}}

    def _observations(self, observations: Mapping[AgentID, Any], infos: Mapping[AgentID, Any]) -> dict[AgentID, Any]:
        out = {}
        for agent, observation in observations.items():
            if agent in self._shifted_observations:
                observation = shift_to_zero_start(self._shifted_observations[agent], observation)
            size = self._mask_sizes.get(agent)
            if size is not None:
                mask = (infos.get(agent) or {}).get("action_mask")
                mask = np.ones(size, np.float32) if mask is None else np.asarray(mask, dtype=np.float32)
                observation = {"action_mask": mask, "observations": observation}
            out[agent] = observation
        self._last_observation.update(out)
        return out

    def __str__(self) -> str:
        return f"<ArenaToRLlib{self.env}>"


def to_rllib(
    env_or_factory: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
    *,
    mask_in_observation: bool = False,
    on_illegal_action: str = "forfeit",
    forfeit_penalty: float = -1.0,
    **kwargs: Any,
) -> ArenaToRLlib:
    """An arena env as an RLlib ``MultiAgentEnv``.

    Args:
        env_or_factory: an arena env, or what :func:`arena.make_env` accepts: a registered
            name (``"tic_tac_toe"``), a ``"module:callable"`` spec or a factory.
        mask_in_observation: put the action mask into a dict observation (see the module
            docstring).
        on_illegal_action: ``"forfeit"`` (default: an action the mask forbids ends the episode,
            the offender gets ``forfeit_penalty``) or ``"raise"`` (the env's error).
        forfeit_penalty: the offender's reward for a forfeit.
        **kwargs: keyword options for the factory (e.g. RLlib's ``env_config``).

    Example (with ``ray.tune.registry.register_env``; a PPO config then maps agents to
    policies with ``multi_agent(policies=..., policy_mapping_fn=...)``):

        >>> from ray.tune.registry import register_env
        >>> register_env("ttt", lambda config: to_rllib("tic_tac_toe", illegal_action="penalty", **config))
    """
    if isinstance(env_or_factory, MultiAgentEnv):
        if kwargs:
            raise InvalidTypeError(
                f"to_rllib: options {sorted(kwargs)} need a name or factory to build the env "
                f"with; got the built env {env_or_factory}"
            )
        env = env_or_factory
    else:
        env = make_env(env_or_factory, **kwargs)
    return ArenaToRLlib(
        env,
        mask_in_observation=mask_in_observation,
        on_illegal_action=on_illegal_action,
        forfeit_penalty=forfeit_penalty,
    )


def multi_agent_config(
    env: MultiAgentEnv | ArenaToRLlib, policy_mapping: Mapping[AgentID, str] | Callable[[AgentID], str] | str
) -> dict[str, Any]:
    """Keyword arguments for RLlib's ``config.multi_agent(...)`` from an arena policy mapping.

    N env agents map to M policies; agents that share a policy share its parameters, so
    they must have equal spaces (checked here, where the error can name them).

    Args:
        env: the arena env (or its :class:`ArenaToRLlib` view).
        policy_mapping: env agent id -> policy name (a dict or a function of the id), or
            ``"teams"``: one policy per side of ``env.teams``, named after the team.

    Returns:
        ``{"policies": set of names, "policy_mapping_fn": fn(agent_id, episode, **kwargs)}``.

    Raises:
        ValueError: an agent is mapped to nothing, ``"teams"`` for an env without sides,
            or one policy for agents with different spaces.

    Example:
        >>> import envs
        >>> config = multi_agent_config(envs.make("team_rock_paper_scissors"), "teams")
        >>> sorted(config["policies"]), config["policy_mapping_fn"]("player_2", None)
        (['team_0', 'team_1'], 'team_0')
    """
    arena_env = env.env if isinstance(env, ArenaToRLlib) else env
    if policy_mapping == "teams":
        if not arena_env.teams:
            raise InvalidValueError(
                f"multi_agent_config: policy_mapping='teams' needs an env with sides; {arena_env} has teams = None"
            )
        mapping = {agent: team for team, ids in arena_env.teams.items() for agent in ids}
    elif isinstance(policy_mapping, Mapping):
        mapping = dict(policy_mapping)
    elif callable(policy_mapping):
        mapping = {agent: policy_mapping(agent) for agent in arena_env.possible_agents}
    else:
        raise InvalidTypeError(
            f"multi_agent_config: policy_mapping must be a dict, a function of the agent id or "
            f"'teams', got {policy_mapping!r}"
        )
    from arena.teams import map_policies

    names = {name for name in mapping.values() if name is not None}
    map_policies(arena_env, dict.fromkeys(names), mapping)  # for its checks (the policies are names here)
    frozen = dict(mapping)

    def policy_mapping_fn(agent_id: AgentID, episode: Any = None, **kwargs: Any) -> str:
        return frozen[agent_id]

    return {"policies": names, "policy_mapping_fn": policy_mapping_fn}
