"""Sides of several agents: :class:`Team`, and policy mappings (N env agents -> M policies).

Two ways to play a side of a team game, both through :func:`arena.play`:

* one agent controls every seat of the side: its spaces are Tuples (``Combine`` and
  ``ConcatenateTeam`` turn them into one model's spaces);
* a :class:`Team` of members, one per seat, each any :class:`arena.Agent` — a model behind
  its own :class:`arena.AgtItfWrapper` stack beside a scripted bot that reads the raw
  observation. Each member gets its own seat's spaces, observations, rewards and ``done``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv
from arena.errors import UnknownAgentError

__all__ = ["Team", "PolicyMapping", "map_policies", "team_of"]

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
            raise TypeError(f"Team: members must be a list of arena.Agent in seat order or a dict keyed by "
                            f"agent id, got {type(members).__name__}")
        if not agents:
            raise TypeError("Team: a team needs at least one member, got none")
        for agent in agents:
            if not isinstance(agent, Agent) or isinstance(agent, Team):
                raise TypeError(f"Team{'' if name is None else ' ' + repr(name)}: every member must be an "
                                f"arena.Agent, got {type(agent).__name__}")
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
                raise ValueError(f"{self}: the team's members are keyed {list(self.ids)}, but the side it plays "
                                 f"has agents {list(ids)}")
            by_id = dict(zip(self.ids, self.members))
            return [(agent_id, by_id[agent_id]) for agent_id in ids]
        if len(ids) != len(self.members):
            raise ValueError(f"{self}: the team has {len(self.members)} members, but the side it plays has "
                             f"{len(ids)} seats {list(ids)}")
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


def map_policies(env: MultiAgentEnv, policies: Mapping[str, Agent], mapping: PolicyMapping) -> dict[AgentID, Agent]:
    """Resolve a policy mapping (RLlib's ``policy_mapping_fn`` idea) to an agent per env agent.

    Args:
        env: the env played.
        policies: policy name -> agent; one agent may serve several env agents (parameter
            sharing), so it must keep no per-seat state.
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
        raise TypeError(f"play: with a policy mapping, agents must be a non-empty dict of policy name -> "
                        f"arena.Agent, got {type(policies).__name__}")
    if isinstance(mapping, Mapping):
        unknown = [agent_id for agent_id in mapping if agent_id not in env.possible_agents]
        if unknown:
            raise UnknownAgentError(f"play: the policy mapping names agent {unknown[0]!r}, which {env} does not "
                                    f"have; expected ids from {env.possible_agents}")
        lookup: Callable[[AgentID], Any] = mapping.get
    elif callable(mapping):
        lookup = mapping
    else:
        raise TypeError(f"play: policy_mapping must be a dict agent id -> policy name or a function of the agent "
                        f"id, got {type(mapping).__name__}")
    seats: dict[AgentID, Agent] = {}
    first_of: dict[str, AgentID] = {}
    for agent_id in env.possible_agents:
        name = lookup(agent_id)
        if name is None:
            raise ValueError(f"play: the policy mapping gives no policy for agent {agent_id!r} of {env}")
        if name not in policies:
            raise ValueError(f"play: agent {agent_id!r} of {env} is mapped to policy {name!r}, which is not among "
                             f"the policies {sorted(policies)}")
        if name in first_of:
            other = first_of[name]
            if (env.observation_space(agent_id) != env.observation_space(other)
                    or env.action_space(agent_id) != env.action_space(other)):
                raise ValueError(f"play: policy {name!r} serves {other!r} and {agent_id!r}, whose spaces differ "
                                 f"({env.observation_space(other)}, {env.action_space(other)} vs "
                                 f"{env.observation_space(agent_id)}, {env.action_space(agent_id)}); a shared "
                                 "policy needs equal spaces")
        first_of.setdefault(name, agent_id)
        seats[agent_id] = policies[name]
    return seats
