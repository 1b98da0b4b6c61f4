"""The play loop: the environment leads, agents answer when asked.

The loop is :func:`arena.play`; this module is named ``play_loop`` so that ``arena.play`` has one
meaning only (the function), and holds :class:`Episode` and :func:`ranks_from_returns` beside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv
from arena.errors import AgentError, ArenaError, InvalidTypeError, InvalidValueError, UnknownAgentError
from arena.seeding import derive_seed
from arena.teams import PolicyMapping, Team, map_policies

__all__ = ["Episode", "play", "ranks_from_returns", "outcome_text"]

Agents = Mapping[Any, Agent] | Sequence[Agent]


@dataclass
class Episode:
    """The record of one episode.

    Attributes:
        returns: the sum of rewards per env agent.
        length: the number of env steps.
        ranks: 1 for the best return, ties share the better rank (1, 2, 2, 4).
        seed: the seed the env was reset with.
        truncated: whether any agent's episode was cut by a time limit.
        teams: the env's sides (``env.teams``), or ``None`` for an env without sides.
        team_scores: the sides' scores when the env decides its outcome by them
            (``env.team_scores()``, e.g. soldiers alive), else ``None`` (returns decide).

    Example:
        >>> episode = Episode({"a": 1.0, "b": -1.0, "c": 1.0, "d": -1.0}, length=9,
        ...                   teams={"red": ("a", "c"), "blue": ("b", "d")})
        >>> episode.team_returns, episode.team_ranks, episode.outcome
        ({'red': 1.0, 'blue': -1.0}, {'red': 1, 'blue': 2}, 'red wins')
    """

    returns: dict[AgentID, float]
    length: int
    ranks: dict[AgentID, int] = field(default_factory=dict)
    seed: int | None = None
    truncated: bool = False
    teams: dict[str, tuple[AgentID, ...]] | None = None
    team_scores: dict[str, float] | None = None

    def __post_init__(self) -> None:
        if not self.ranks and self.returns:
            self.ranks = ranks_from_returns(self.returns)

    @property
    def team_returns(self) -> dict[str, float]:
        """Team -> its members' mean return (teammates that share rewards: each one's return).

        The mean, not the sum, so that sides of different sizes compare on one scale.
        Empty for an env without sides.
        """
        if not self.teams:
            return {}
        return {team: sum(self.returns[a] for a in members) / len(members) for team, members in self.teams.items()}

    @property
    def team_ranks(self) -> dict[str, int]:
        """Team -> rank by team return, or by :attr:`team_scores` when the env gives them (1 best,
        ties share the better rank); empty without sides."""
        if not self.teams:
            return {}
        return ranks_from_returns(self.team_scores if self.team_scores is not None else self.team_returns)

    @property
    def winners(self) -> list[AgentID]:
        """The agents ranked first, unless every agent is (a draw)."""
        best = [agent for agent, rank in self.ranks.items() if rank == 1]
        return [] if len(best) == len(self.ranks) else best

    @property
    def winning_teams(self) -> list[str]:
        """The teams ranked first, unless every team is (a draw); empty without sides."""
        ranks = self.team_ranks
        best = [team for team, rank in ranks.items() if rank == 1]
        return [] if len(best) == len(ranks) else best

    @property
    def outcome(self) -> str:
        """``"draw"``, ``"player_0 wins"``, ``"player_0, player_2 win"``; with sides, by team
        (``"team_0 wins"``)."""
        return outcome_text(self.winning_teams if self.teams else self.winners)


def outcome_text(winners: Sequence[str]) -> str:
    """``"draw"`` without winners, else ``"NAME wins"`` or ``"NAME, NAME win"``: the one wording of an outcome.

    Example:
        >>> outcome_text([]), outcome_text(["player_0"]), outcome_text(["a", "b"])
        ('draw', 'player_0 wins', 'a, b win')
    """
    if not winners:
        return "draw"
    return f"{', '.join(winners)} {'wins' if len(winners) == 1 else 'win'}"


def ranks_from_returns(returns: Mapping[AgentID, float]) -> dict[AgentID, int]:
    """Standard competition ranks of ``returns`` (higher return, better rank).

    Example:
        >>> ranks_from_returns({"a": 1.0, "b": 0.0, "c": 1.0})
        {'a': 1, 'b': 3, 'c': 1}
    """
    values = sorted(returns.values(), reverse=True)
    return {agent: values.index(value) + 1 for agent, value in returns.items()}


def _bind(env: MultiAgentEnv, agents: Agents) -> list[tuple[tuple[AgentID, ...], Agent, bool]]:
    """Resolve ``agents`` to ``(env ids, agent, is_team)`` in a fixed order; a :class:`Team` becomes
    one entry per member."""
    possible = env.possible_agents
    teams = env.teams
    kind = type(agents)  # exact types first: the ABC checks cost more than a short game's step
    if (kind is list or kind is tuple) and not teams and len(agents) == len(possible):
        # The common call, an agent per id in order: the checks below pass for it by construction
        # (possible_agents has no duplicates: arena.testing.check_env), and skipping them is a
        # twentieth of a tic-tac-toe game. A Team or a non-Agent takes the general path below.
        bound: list[tuple[tuple[AgentID, ...], Agent, bool]] = []
        for agent_id, agent in zip(possible, agents):
            if not isinstance(agent, Agent):
                break
            bound.append(((agent_id,), agent, False))
        else:
            return bound
    if kind is dict or (kind is not list and kind is not tuple and isinstance(agents, Mapping)):
        items = list(cast(Mapping[Any, Agent], agents).items())
    elif kind is list or kind is tuple or (isinstance(agents, Sequence) and not isinstance(agents, str)):
        if teams and len(agents) == len(teams) and any(isinstance(a, Team) for a in agents):
            items = list(zip(teams, agents))  # one entry per side, in the env's team order
        elif len(agents) != len(possible):
            sides = f" (or {len(teams)} sides {list(teams)})" if teams else ""
            raise InvalidValueError(
                f"play: {env} has {len(possible)} agents {possible}{sides}, got {len(agents)} agents"
            )
        else:
            items = list(zip(possible, agents))
    else:
        raise InvalidTypeError(
            f"play: agents must be a dict keyed by agent id (or tuple of ids) or a sequence, got {type(agents).__name__}"
        )
    bound = []
    seen: set[AgentID] = set()
    for key, agent in items:
        is_team = isinstance(key, tuple)
        if teams and isinstance(key, str) and key in teams and key not in possible:
            key, is_team = tuple(teams[key]), True  # a team name: the side's seats
        ids = tuple(key) if isinstance(key, tuple) else (key,)
        for agent_id in ids:
            if agent_id not in possible:
                sides = f" or team {list(teams)}" if teams else ""
                raise UnknownAgentError(f"play: {env} has no agent {agent_id!r}; expected one of {possible}{sides}")
            if agent_id in seen:
                raise InvalidValueError(f"play: agent id {agent_id!r} is given two controllers")
            seen.add(agent_id)
        if isinstance(agent, Team):
            bound.extend(((agent_id,), member, False) for agent_id, member in agent.seats(ids))
            continue
        if not isinstance(agent, Agent):
            raise InvalidTypeError(
                f"play: the agent for {key!r} must be an arena.Agent or arena.Team, got {type(agent).__name__}"
            )
        bound.append((ids, agent, is_team))
    if len(seen) != len(possible):
        missing = [a for a in possible if a not in seen]
        raise InvalidValueError(f"play: no agent given for {missing} of {env}")
    return bound


def play(
    env: MultiAgentEnv,
    agents: Agents,
    seed: int | None = None,
    *,
    max_steps: int | None = None,
    policy_mapping: PolicyMapping | None = None,
    record: list[dict[AgentID, Any]] | None = None,
) -> Episode:
    """Play one episode of ``env`` with ``agents`` and return its record.

    The env leads: each step, the agents named in the observations act. Each agent
    receives the reward it earned since its previous turn, and :meth:`Agent.done` is
    called exactly once per agent with what it earned since its last action.

    Args:
        env: an arena multi-agent env.
        agents: an agent per env agent id (dict, or sequence in ``possible_agents``
            order); a tuple key such as ``("p0", "p2")`` maps one team agent to several
            ids (its spaces are Tuples; absent members' slots hold ``None``, and it
            receives the members' summed reward).
        seed: resets the env with this seed and re-seeds every agent with a seed derived
            from it, so the same seed gives the same episode.
        max_steps: optional safety bound; the episode is cut (``truncated``) after it.
        policy_mapping: env agent id -> policy name (a dict, or a function of the id, as
            RLlib's ``policy_mapping_fn``); ``agents`` is then a dict policy name -> agent,
            so N env agents play M policies and parameter-shared seats use one object.
        record: a list that receives the actions dict given to ``env.step`` at each step
            (with the seed, it replays the episode: see :mod:`arena.replay`).

    Raises:
        AgentError: an agent raised; the original exception is chained.
        ArenaError: the env broke the protocol (no observations while agents remain).

    Example:
        >>> import envs
        >>> from arena import RandomAgent, play
        >>> episode = play(envs.make("tic_tac_toe"), [RandomAgent(), RandomAgent()], seed=3)
        >>> sorted(episode.returns)
        ['player_0', 'player_1']
    """
    if policy_mapping is not None:
        agents = map_policies(env, agents, policy_mapping)
    bound = _bind(env, agents)
    single, acts, team_of = _prepare(env, bound, seed)
    observations, infos = env.reset(seed=seed)
    possible = env.possible_agents
    pending = dict.fromkeys(possible, 0.0)
    returns = dict.fromkeys(possible, 0.0)
    finished: set[AgentID] = set()
    team_final = [0.0] * len(bound)
    length, truncated = 0, False
    while observations:
        actions: dict[AgentID, Any] = {}
        teams_asked: list[int] | None = None
        for agent_id, observation in observations.items():
            act = acts.get(agent_id)
            if act is None:
                if agent_id not in team_of:
                    raise UnknownAgentError(f"play: {env} asked unknown agent {agent_id!r} to act")
                teams_asked = teams_asked or []
                if team_of[agent_id] not in teams_asked:
                    teams_asked.append(team_of[agent_id])
                continue
            info = infos.get(agent_id)
            reward = pending[agent_id]
            if reward:
                pending[agent_id] = 0.0
            try:
                actions[agent_id] = act(observation, info.get("action_mask") if info else None, reward)
            except Exception as err:
                raise AgentError(agent_id, err) from err
        if teams_asked:
            for index in teams_asked:
                _team_act(bound[index], observations, infos, pending, actions)
        if record is not None:
            record.append(actions)
        observations, rewards, terminations, truncations, infos = env.step(actions)
        length += 1
        for agent_id, reward in rewards.items():
            if reward:
                pending[agent_id] += reward
                returns[agent_id] += reward
        if True in terminations.values() or True in truncations.values():
            for flags, cut in ((terminations, False), (truncations, True)):
                for agent_id, flag in flags.items():
                    if flag and agent_id not in finished:
                        truncated = truncated or cut
                        finished.add(agent_id)
                        _finish(bound, single, team_of, team_final, agent_id, pending, infos, finished, cut)
        if max_steps is not None and length >= max_steps and observations:
            truncated = True
            break
    if env.agents and not truncated:
        raise ArenaError(f"play: {env} returned no observations while agents {env.agents} are still in the episode")
    for agent_id in possible:  # every agent hears its final reward exactly once
        if agent_id not in finished:
            finished.add(agent_id)
            _finish(bound, single, team_of, team_final, agent_id, pending, infos, finished, truncated)
    teams = env.teams
    scores = env.team_scores() if teams else None
    return Episode(
        returns=returns,
        length=length,
        ranks=ranks_from_returns(returns),
        seed=seed,
        truncated=truncated,
        teams=None if teams is None else {team: tuple(ids) for team, ids in teams.items()},
        team_scores=None if scores is None else dict(scores),
    )


def _prepare(
    env: MultiAgentEnv, bound: list[tuple[tuple[AgentID, ...], Agent, bool]], seed: int | None
) -> tuple[dict[AgentID, Agent], dict[AgentID, Any], dict[AgentID, int]]:
    """Set up and reset every bound agent; ``(single agents, their act methods, team index of each seat)``."""
    single: dict[AgentID, Agent] = {}
    ready: set[int] = set()  # agents set up and reset already (one object serving several ids)
    acts: dict[AgentID, Any] = {}  # bound act methods: the loop calls them every step
    team_of: dict[AgentID, int] = {}
    for index, (ids, agent, is_team) in enumerate(bound):
        if is_team:
            agent.setup(
                spaces.Tuple([env.observation_space(i) for i in ids]), spaces.Tuple([env.action_space(i) for i in ids])
            )
            team_of.update(dict.fromkeys(ids, index))
        else:
            single[ids[0]] = agent
            acts[ids[0]] = agent.act
            if id(agent) in ready:
                continue
            obs_space, act_space = env.observation_space(ids[0]), env.action_space(ids[0])
            if agent.observation_space is not obs_space or agent.action_space is not act_space:
                agent.setup(obs_space, act_space)
        ready.add(id(agent))
        agent.reset(seed=None if seed is None else derive_seed(seed, index))
    return single, acts, team_of


def _team_act(
    entry: tuple[tuple[AgentID, ...], Agent, bool],
    observations: dict,
    infos: dict,
    pending: dict[AgentID, float],
    actions: dict[AgentID, Any],
) -> None:
    ids, agent, _ = entry
    observation = tuple(observations.get(i) for i in ids)
    masks = tuple((infos.get(i) or {}).get("action_mask") if i in observations else None for i in ids)
    reward = 0.0
    for i in ids:
        reward += pending[i]
        pending[i] = 0.0
    try:
        action = agent.act(observation, None if all(m is None for m in masks) else masks, reward)
    except Exception as err:
        raise AgentError(ids, err) from err
    if not isinstance(action, (tuple, list)) or len(action) != len(ids):
        raise AgentError(ids, ValueError(f"a team agent must return a tuple of {len(ids)} actions, got {action!r}"))
    for i, a in zip(ids, action):
        if i in observations:
            actions[i] = a


def _finish(
    bound: list,
    single: dict[AgentID, Agent],
    team_of: dict[AgentID, int],
    team_final: list[float],
    agent_id: AgentID,
    pending: dict[AgentID, float],
    infos: dict,
    finished: set[AgentID],
    truncated: bool,
) -> None:
    """Tell the agent for ``agent_id`` its final reward (a team hears once, when its last member ends).

    The info it hears is the env's final info for the agent, with ``"truncated": True`` added
    when the agent's episode was cut rather than terminated.
    """
    reward = pending.get(agent_id, 0.0)
    pending[agent_id] = 0.0
    info = infos.get(agent_id) or {}
    if truncated:
        info = {**info, "truncated": True}
        infos = {**infos, agent_id: info}
    agent = single.get(agent_id)
    try:
        if agent is not None:
            agent.done(reward, info)
            return
        index = team_of[agent_id]
        ids, team, _ = bound[index]
        team_final[index] += reward
        if all(i in finished for i in ids):
            team.done(team_final[index], {i: infos.get(i) or {} for i in ids})
    except Exception as err:
        raise AgentError(agent_id, err) from err
