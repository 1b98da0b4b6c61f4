"""Sides of several agents: :class:`Team`, :class:`GroupTeams` and policy mappings (N env agents -> M policies).

Two ways to play a side of a team game, both through :func:`arena.play`:

* one agent controls every seat of the side: its spaces are Tuples (``Combine`` and
  ``ConcatenateTeam`` turn them into one model's spaces);
* a :class:`Team` of members, one per seat, each any :class:`arena.Agent` — a model behind
  its own :class:`arena.AgtItfWrapper` stack beside a scripted bot that reads the raw
  observation. Each member gets its own seat's spaces, observations, rewards and ``done``.

:class:`GroupTeams` turns an env with sides into one with an agent per side (Tuple spaces),
so that a single-agent trainer can learn a whole side as one model.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv, MultiAgentWrapper
from arena.errors import InvalidTypeError, InvalidValueError, UnknownAgentError

__all__ = ["Team", "GroupTeams", "PolicyMapping", "map_policies", "team_of"]

PolicyMapping = Mapping[AgentID, str] | Callable[[AgentID], str]


class Team:
    """A side played by several agents, one per seat of the side.

    Args:
        members: the member agents in the seat order of the side (``env.teams[name]``), or a
            dict keyed by env agent id. The same agent object may fill several seats: it is
            then one policy shared by those seats (set up and reset once, asked for each
            seat in turn), so it must keep no per-seat state.
        name: an optional display name.

    Raises:
        TypeError: a member is not an :class:`arena.Agent`, or ``members`` is empty.

    Example:
        >>> from arena import RandomAgent, Team
        >>> team = Team([RandomAgent(seed=1), RandomAgent(seed=2)], name="duo")
        >>> str(team), [agent_id for agent_id, _ in team.seats(("agent_0", "agent_2"))]
        ('duo[RandomAgent, RandomAgent]', ['agent_0', 'agent_2'])
    """

    def __init__(self, members: Mapping[AgentID, Agent] | Sequence[Agent], name: str | None = None) -> None:
        if isinstance(members, Mapping):
            self.ids: tuple[AgentID, ...] | None = tuple(members)
            agents = list(members.values())
        elif isinstance(members, Sequence) and not isinstance(members, str):
            self.ids = None
            agents = list(members)
        else:
            raise InvalidTypeError(
                f"Team: members must be a list of arena.Agent in seat order or a dict keyed by "
                f"agent id, got {type(members).__name__}"
            )
        if not agents:
            raise InvalidTypeError("Team: a team needs at least one member, got none")
        for agent in agents:
            if not isinstance(agent, Agent) or isinstance(agent, Team):
                raise InvalidTypeError(
                    f"Team{'' if name is None else ' ' + repr(name)}: every member must be an "
                    f"arena.Agent, got {type(agent).__name__}"
                )
        self.members: list[Agent] = agents
        self.name = name

    def seats(self, ids: Sequence[AgentID]) -> list[tuple[AgentID, Agent]]:
        """Pair the members with the env agent ids of the side they play, in seat order.

        Raises:
            ValueError: the side has another number of seats, or other ids than the
                members' keys.
        """
        ids = tuple(ids)
        if self.ids is not None:
            if set(self.ids) != set(ids):
                raise InvalidValueError(
                    f"{self}: the team's members are keyed {list(self.ids)}, but the side it plays "
                    f"has agents {list(ids)}"
                )
            by_id = dict(zip(self.ids, self.members))
            return [(agent_id, by_id[agent_id]) for agent_id in ids]
        if len(ids) != len(self.members):
            raise InvalidValueError(
                f"{self}: the team has {len(self.members)} members, but the side it plays has "
                f"{len(ids)} seats {list(ids)}"
            )
        return list(zip(ids, self.members))

    def __len__(self) -> int:
        return len(self.members)

    def __str__(self) -> str:
        return f"{self.name or 'Team'}[{', '.join(map(str, self.members))}]"

    def __repr__(self) -> str:
        return str(self)


def team_of(env: MultiAgentEnv, agent_id: AgentID) -> str | None:
    """The team of ``agent_id`` in ``env`` (``None`` for an env without sides).

    Example:
        >>> from arena import MultiAgentEnv
        >>> class Duo(MultiAgentEnv):
        ...     possible_agents = ["a", "b"]
        ...     teams = {"left": ("a",), "right": ("b",)}
        >>> team_of(Duo(), "b")
        'right'
    """
    for team, members in (env.teams or {}).items():
        if agent_id in members:
            return team
    return None


def map_policies(env: MultiAgentEnv, policies: Any, mapping: PolicyMapping) -> dict[AgentID, Agent]:
    """Resolve a policy mapping (RLlib's ``policy_mapping_fn`` idea) to an agent per env agent.

    Args:
        env: the env played.
        policies: policy name -> agent (anything else is refused: it comes from ``play``'s
            ``agents``); one agent may serve several env agents (parameter sharing), so it must
            keep no per-seat state.
        mapping: env agent id -> policy name, as a dict or a function of the agent id.

    Raises:
        UnknownAgentError: the dict names an agent the env does not have.
        ValueError: an env agent is mapped to no policy, or to one not in ``policies``; two
            agents sharing a policy have different spaces.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> shared = RandomAgent()
        >>> seats = map_policies(envs.make("tic_tac_toe"), {"p": shared}, lambda agent_id: "p")
        >>> seats["player_0"] is seats["player_1"] is shared
        True
    """
    if not isinstance(policies, Mapping) or not policies:
        raise InvalidTypeError(
            f"play: with a policy mapping, agents must be a non-empty dict of policy name -> "
            f"arena.Agent, got {type(policies).__name__}"
        )
    if isinstance(mapping, Mapping):
        unknown = [agent_id for agent_id in mapping if agent_id not in env.possible_agents]
        if unknown:
            raise UnknownAgentError(
                f"play: the policy mapping names agent {unknown[0]!r}, which {env} does not "
                f"have; expected ids from {env.possible_agents}"
            )
        lookup: Callable[[AgentID], Any] = mapping.get
    elif callable(mapping):
        lookup = mapping
    else:
        raise InvalidTypeError(
            f"play: policy_mapping must be a dict agent id -> policy name or a function of the agent "
            f"id, got {type(mapping).__name__}"
        )
    seats: dict[AgentID, Agent] = {}
    first_of: dict[str, AgentID] = {}
    for agent_id in env.possible_agents:
        name = lookup(agent_id)
        if name is None:
            raise InvalidValueError(f"play: the policy mapping gives no policy for agent {agent_id!r} of {env}")
        if name not in policies:
            raise InvalidValueError(
                f"play: agent {agent_id!r} of {env} is mapped to policy {name!r}, which is not among "
                f"the policies {sorted(policies)}"
            )
        if name in first_of:
            other = first_of[name]
            if env.observation_space(agent_id) != env.observation_space(other) or env.action_space(
                agent_id
            ) != env.action_space(other):
                raise InvalidValueError(
                    f"play: policy {name!r} serves {other!r} and {agent_id!r}, whose spaces differ "
                    f"({env.observation_space(other)}, {env.action_space(other)} vs "
                    f"{env.observation_space(agent_id)}, {env.action_space(agent_id)}); a shared "
                    "policy needs equal spaces"
                )
        first_of.setdefault(name, agent_id)
        seats[agent_id] = policies[name]
    return seats


def _filler(space: spaces.Space) -> Any:
    """A fixed element of ``space`` (values nearest 0), for a member with nothing to observe yet."""
    if isinstance(space, spaces.Box):
        return np.clip(np.zeros(space.shape, dtype=space.dtype), space.low, space.high).astype(space.dtype)
    if isinstance(space, spaces.Discrete):
        return space.start.item() if isinstance(space.start, np.generic) else int(space.start)
    if isinstance(space, spaces.MultiDiscrete):
        return np.asarray(space.start, dtype=space.dtype).copy()
    if isinstance(space, spaces.MultiBinary):
        return np.zeros(space.shape, dtype=space.dtype)
    if isinstance(space, spaces.Tuple):
        return tuple(_filler(s) for s in space)
    if isinstance(space, spaces.Dict):
        return {key: _filler(s) for key, s in space.items()}
    sampler = copy.deepcopy(space)
    sampler.seed(0)
    return sampler.sample()


class GroupTeams(MultiAgentWrapper):
    """An env with sides seen as one agent per side, so one policy can control a whole team.

    Agent ids become the team names; a side's spaces are the ``Tuple`` of its members'
    spaces (seat order), which :class:`arena.Combine` and ``ConcatenateTeam`` turn into
    one model's spaces. A side acts when any member must act; its observation holds each
    member's latest observation (a member with none yet gets a fixed in-space filler, and
    ``infos[team]["acting"]`` says which members act now); its action is a tuple of member
    actions, of which those for members not acting now are dropped; its mask is the tuple
    of members' masks (``None`` for a member without one or not acting). A side's reward
    is the sum of its members' rewards (as :func:`arena.play` gives a team agent), and it
    ends when all its members have ended. Each side is its own team in :attr:`teams`.

    Args:
        env: an env with ``teams``.

    Raises:
        ValueError: ``env`` has no sides.

    Example:
        >>> import envs
        >>> env = GroupTeams(envs.make("team_rock_paper_scissors"))
        >>> env.possible_agents, env.action_space("team_0")
        (['team_0', 'team_1'], Tuple(Discrete(3), Discrete(3)))
        >>> obs, infos = env.reset(seed=0)
        >>> _, rewards, *_ = env.step({"team_0": (1, 1), "team_1": (0, 0)})
        >>> rewards
        {'team_0': 0.0, 'team_1': 0.0}
    """

    def __init__(self, env: MultiAgentEnv) -> None:
        if not isinstance(env, MultiAgentEnv) or not env.teams:
            raise InvalidValueError(
                f"GroupTeams: needs an arena env with sides (teams), got {env!r} with teams = "
                f"{getattr(env, 'teams', None)!r}"
            )
        super().__init__(env)
        self.members = {team: tuple(ids) for team, ids in env.teams.items()}
        self.possible_agents = list(self.members)
        self.teams = {team: (team,) for team in self.members}
        self.observation_spaces = {
            team: spaces.Tuple([env.observation_space(a) for a in ids]) for team, ids in self.members.items()
        }
        self.action_spaces = {
            team: spaces.Tuple([env.action_space(a) for a in ids]) for team, ids in self.members.items()
        }
        self._last: dict[AgentID, Any] = {}
        self._acting: tuple[str, ...] | None = None
        self._raw_acting: set[AgentID] = set()
        self._done: set[str] = set()

    @property
    def agents(self) -> list[str]:  # type: ignore[override]  # read-only here: the sides still in play
        live = set(self.env.agents)
        return [team for team, ids in self.members.items() if team not in self._done and live.intersection(ids)]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the wrapped env; the sides with an acting member observe."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self._last = {a: _filler(self.env.observation_space(a)) for a in self.env.possible_agents}
        self._done = set()
        return self._group(observations, infos)

    def step(self, actions: Mapping[str, Any]):
        """Forward the acting members' actions; see :meth:`MultiAgentEnv.step` for the edge cases."""
        self.check_actions(actions, self._acting)
        raw = {}
        for team, action in actions.items():
            for agent_id, member_action in zip(self.members[team], action):
                if agent_id in self._raw_acting:
                    raw[agent_id] = member_action
        observations, rewards, terminations, truncations, infos = self.env.step(raw)
        team_rewards = {team: 0.0 for team in self.members if team not in self._done}
        for agent_id, reward in rewards.items():
            side = team_of(self.env, agent_id)
            if side in team_rewards:
                team_rewards[side] += reward
        live = set(self.env.agents)
        ended = [team for team in team_rewards if not live.intersection(self.members[team])]
        self._done.update(ended)
        team_terms = {
            team: team in ended and not any(truncations.get(a) for a in self.members[team]) for team in team_rewards
        }
        team_truncs = {team: team in ended and not team_terms[team] for team in team_rewards}
        grouped, team_infos = self._group(observations, infos)
        for team in ended:
            team_infos[team] = {"members": {a: infos.get(a) or {} for a in self.members[team]}}
        return grouped, team_rewards, team_terms, team_truncs, team_infos

    def _group(self, observations: dict, infos: dict) -> tuple[dict, dict]:
        self._last.update(observations)
        self._raw_acting = set(observations)
        grouped, team_infos = {}, {}
        for team, ids in self.members.items():
            if not self._raw_acting.intersection(ids):
                continue
            grouped[team] = tuple(self._last[a] for a in ids)
            masks = tuple((infos.get(a) or {}).get("action_mask") if a in observations else None for a in ids)
            info: dict[str, Any] = {
                "acting": tuple(a in observations for a in ids),
                "members": {a: infos.get(a) or {} for a in ids if a in observations},
            }
            if any(mask is not None for mask in masks):
                info["action_mask"] = masks
            team_infos[team] = info
        self._acting = tuple(grouped) if grouped else None
        return grouped, team_infos
