"""Small purpose-built envs that exercise corners of the env protocol."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena import MultiAgentEnv


class DoubleMoveEnv(MultiAgentEnv):
    """Turn order a, a, b, a, b, b: ``a`` moves twice in a row at the start.

    Each action is a number 0-2 added to a shared counter observed by everyone.
    At the end ``b`` gets a bonus of 5 on ``a``'s last move (a reward to an agent
    that did not act), and the agent with the larger sum of actions wins 1.
    """

    ORDER = ("a", "a", "b", "a", "b", "b")

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents = []
        self.observation_spaces = {agent: spaces.Discrete(100) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(3) for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.agents = ["a", "b"]
        self._turn, self._counter, self._sums = 0, 0, {"a": 0, "b": 0}
        self._acting = ("a",)
        return {"a": 0}, {"a": {"action_mask": np.ones(3, dtype=np.int8)}}

    def step(self, actions):
        self.check_actions(actions, self._acting)
        ((mover, action),) = actions.items()
        self._sums[mover] += int(action)
        self._counter += int(action)
        rewards = {"a": 0.0, "b": 0.0}
        if self._turn == 3:
            rewards["b"] = 5.0
        self._turn += 1
        if self._turn == len(self.ORDER):
            self.agents, self._acting = [], None
            winner = max(self._sums, key=lambda k: (self._sums[k], k == "a"))
            rewards[winner] += 1.0
            return {}, rewards, {"a": True, "b": True}, {"a": False, "b": False}, {"a": {}, "b": {}}
        nxt = self.ORDER[self._turn]
        self._acting = (nxt,)
        return (
            {nxt: self._counter},
            rewards,
            {"a": False, "b": False},
            {"a": False, "b": False},
            {nxt: {"action_mask": np.ones(3, dtype=np.int8)}},
        )


class LeavingEnv(MultiAgentEnv):
    """Three agents move simultaneously; ``c`` leaves after step 1, the others go on to step 3.

    Every agent observes the step number and gets reward 1 per step it is in.
    """

    def __init__(self) -> None:
        self.possible_agents = ["a", "b", "c"]
        self.agents = []
        self.observation_spaces = {agent: spaces.Discrete(10) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(2) for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._t = 0
        self._acting = tuple(self.agents)
        return {agent: 0 for agent in self.agents}, {agent: {} for agent in self.agents}

    def step(self, actions):
        self.check_actions(actions, self._acting)
        self._t += 1
        rewards = {agent: 1.0 for agent in self.agents}
        terminations = {agent: False for agent in self.agents}
        if self._t == 1:
            terminations["c"] = True
        if self._t == 3:
            terminations = {agent: True for agent in self.agents}
        truncations = {agent: False for agent in self.agents}
        self.agents = [agent for agent in self.agents if not terminations[agent]]
        self._acting = tuple(self.agents) if self.agents else None
        return (
            {agent: self._t for agent in self.agents},
            rewards,
            terminations,
            truncations,
            {agent: {} for agent in self.agents},
        )


class SidesEnv(MultiAgentEnv):
    """Sides of given sizes move at once for three steps; the first player drops out after one.

    Agent ``p{i}`` is dealt to team ``i % len(team_sizes)`` round-robin (while the team has
    room). Everyone observes the step number and picks 0 or 1; a side scores the sum of its
    members' picks. ``p0`` is out of play after step 1: it stops acting but stays in
    ``agents`` until the end (the rule for a dead teammate whose side can still win), when
    every member of the best side gets +1, every other -1 (all 0 on a tie).

    ``bad`` breaks a rule on purpose for the checker's tests: ``"outcome"`` gives ``p0``
    a different final reward from its teammates, ``"layout"`` leaves ``p0`` out of every team.
    """

    def __init__(self, team_sizes: tuple[int, ...] = (2, 2), bad: str | None = None) -> None:
        sizes = list(team_sizes)
        members: list[list[str]] = [[] for _ in sizes]
        seat = 0
        while any(len(m) < n for m, n in zip(members, sizes)):
            for k, n in enumerate(sizes):
                if len(members[k]) < n:
                    members[k].append(f"p{seat}")
                    seat += 1
        self.possible_agents = [f"p{i}" for i in range(seat)]
        self.teams = {f"side_{k}": tuple(m) for k, m in enumerate(members)}
        if bad == "layout":
            self.teams = {team: tuple(a for a in m if a != "p0") for team, m in self.teams.items()}
        self.bad = bad
        self.agents = []
        self.observation_spaces = {agent: spaces.Discrete(4) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(2) for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._t, self._score = 0, dict.fromkeys(self.teams, 0)
        self._acting = tuple(self.agents)
        return {agent: 0 for agent in self._acting}, {agent: {} for agent in self._acting}

    def step(self, actions):
        self.check_actions(actions, self._acting)
        for team, members in self.teams.items():
            self._score[team] += sum(int(actions[a]) for a in members if a in actions)
        self._t += 1
        rewards = dict.fromkeys(self.agents, 0.0)
        over = self._t == 3
        if over:
            best = max(self._score.values())
            leaders = [team for team, score in self._score.items() if score == best]
            for team, members in self.teams.items():
                value = 0.0 if len(leaders) == len(self.teams) else (1.0 if team in leaders else -1.0)
                rewards.update(dict.fromkeys(members, value))
            if self.bad == "outcome":
                rewards["p0"] = rewards["p0"] + 0.5
            rewards.setdefault("p0", 0.0)
        flags = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        if over:
            self.agents, self._acting = [], None
            return {}, rewards, flags, truncations, {agent: {} for agent in self.possible_agents}
        self._acting = tuple(a for a in self.agents if a != "p0")
        return (
            {agent: self._t for agent in self._acting},
            rewards,
            flags,
            truncations,
            {agent: {} for agent in self._acting},
        )
