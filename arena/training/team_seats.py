"""A team game seen with one seat per side: how one model learns to drive a whole team."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium import spaces

from arena.env import AgentID, MultiAgentEnv
from arena.errors import ArenaError, InvalidActionError, WrongAgentsError

__all__ = ["TeamSeats"]


class TeamSeats(MultiAgentEnv):
    """Wrap an env with :attr:`~arena.MultiAgentEnv.teams` so that each team is one agent.

    The agent ids are the team names. A team's spaces are ``Tuple`` s of its members'
    spaces in seat order (the spaces :func:`arena.play` gives a team agent), so
    :class:`arena.Combine` + :class:`interfaces.ConcatenateTeam` turn them into one
    vector observation and one action, and :class:`~arena.training.SingleAgentEnv` can
    train a whole side as one seat (``arena train ENV --control team``).

    * A team must act when any member must: its observation holds each member's
      observation, ``None`` for members not asked; its action is a tuple with one action
      per member (those for members not asked are ignored).
    * Its reward is the sum of its members' rewards (as :func:`arena.play` gives a team
      agent); it terminates (or is truncated) when its last member leaves the episode.
    * ``infos[team]`` holds ``"members"`` (each member's info) and, when members have
      masks, ``"action_mask"``: a tuple of them (``None`` for members without one).

    Args:
        env: the team env.

    Raises:
        ValueError: ``env`` declares no teams.

    Example:
        >>> import envs
        >>> env = TeamSeats(envs.make("soccer", team_size=2, time_limit=0.25))
        >>> env.possible_agents
        ['home', 'away']
        >>> len(env.action_space("home"))
        2
    """

    def __init__(self, env: MultiAgentEnv) -> None:
        teams = getattr(env, "teams", None)
        if not isinstance(env, MultiAgentEnv) or not teams:
            raise ValueError(f"TeamSeats: needs an arena env that declares teams (env.teams), got {env}")
        self.env = env
        self.teams = {team: (team,) for team in teams}  # each side is one agent now
        self.members = {team: tuple(ids) for team, ids in teams.items()}
        self.possible_agents = list(teams)
        self.agents = []
        self.observation_spaces = {team: spaces.Tuple([env.observation_space(a) for a in ids])
                                   for team, ids in self.members.items()}
        self.action_spaces = {team: spaces.Tuple([env.action_space(a) for a in ids])
                              for team, ids in self.members.items()}
        self.metadata = dict(env.metadata)
        self.render_mode = env.render_mode
        self._acting: list[str] | None = None
        self._asked: dict[str, Any] = {}

    @property
    def unwrapped(self) -> MultiAgentEnv:
        return self.env.unwrapped

    def __str__(self) -> str:
        return f"<TeamSeats{self.env}>"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the inner env; see the class docstring for what each team sees."""
        observations, infos = self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._join(observations, infos)

    def _join(self, observations: dict[AgentID, Any], infos: dict[AgentID, Any]):
        self._asked = observations
        joined, joined_infos = {}, {}
        for team, ids in self.members.items():
            if any(a in observations for a in ids):
                joined[team] = tuple(observations.get(a) for a in ids)
                member_infos = {a: infos.get(a) or {} for a in ids}
                info: dict[str, Any] = {"members": member_infos}
                masks = tuple(member_infos[a].get("action_mask") if a in observations else None for a in ids)
                if any(m is not None for m in masks):
                    info["action_mask"] = masks
                joined_infos[team] = info
        self._acting = list(joined) if joined else None
        return joined, joined_infos

    def step(self, actions: Mapping[str, Any]):
        """Split each team's tuple of actions among the members that must act, and step.

        Raises:
            ResetNeeded, WrongAgentsError: as for any env; InvalidActionError: a team's
            action is not a tuple of one action per member (members' actions are checked
            by the inner env).
        """
        self.check_actions_shape(actions)
        member_actions = {}
        for team, action in actions.items():
            for agent_id, member_action in zip(self.members[team], action):
                if agent_id in self._asked:
                    member_actions[agent_id] = member_action
        observations, rewards, terminations, truncations, infos = self.env.step(member_actions)
        team_rewards, team_terms, team_truncs = {}, {}, {}
        left = set(self.env.agents)
        for team, ids in self.members.items():
            if any(a in rewards for a in ids):
                team_rewards[team] = float(sum(rewards.get(a, 0.0) for a in ids))
            if team in self.agents and not any(a in left for a in ids):
                truncated = any(truncations.get(a, False) for a in ids)
                team_terms[team], team_truncs[team] = not truncated, truncated
        self.agents = [team for team in self.agents if team not in team_terms]
        joined, joined_infos = self._join(observations, infos)
        if not self.agents and joined:
            raise ArenaError(f"{self}: the inner env asked {sorted(observations)} to act after every team left")
        return joined, team_rewards, team_terms, team_truncs, joined_infos

    def check_actions_shape(self, actions: Mapping[str, Any]) -> None:
        """Check that ``actions`` name exactly the acting teams, each with one action per member."""
        if self._acting is None:
            self.check_actions(actions, None)  # raises ResetNeeded
        if not isinstance(actions, Mapping) or set(actions) != set(self._acting):
            got = sorted(map(str, actions)) if isinstance(actions, Mapping) else type(actions).__name__
            raise WrongAgentsError(f"{self}: step() expected actions for exactly {sorted(self._acting)} "
                                   f"(the teams in the last observations), got {got}")
        for team, action in actions.items():
            if not isinstance(action, (tuple, list)) or len(action) != len(self.members[team]):
                raise InvalidActionError(f"{self}: the action for team {team!r} must be a tuple of "
                                         f"{len(self.members[team])} actions (one per member "
                                         f"{list(self.members[team])}), got {action!r}")

    def render(self) -> Any:
        """Render the inner env."""
        return self.env.render()

    def close(self) -> None:
        """Close the inner env."""
        self.env.close()
