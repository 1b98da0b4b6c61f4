"""Rock-paper-scissors: two players (or two or more sides) move at once, for a number of rounds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError

__all__ = ["RockPaperScissors", "TeamRockPaperScissors", "BeatMostCommonAgent"]

ROCK, PAPER, SCISSORS, NONE = 0, 1, 2, 3
_NAMES = ("rock", "paper", "scissors")


class RockPaperScissors(MultiAgentEnv):
    """Simultaneous rock-paper-scissors for ``player_0`` and ``player_1``.

    * **Observation** (both players, every round): ``Discrete(4)``, the opponent's
      move in the previous round (0 rock, 1 paper, 2 scissors), 3 before the first round.
    * **Action**: ``Discrete(3)``: 0 rock, 1 paper, 2 scissors. There is no mask
      (every move is always legal).
    * **Rewards**: per round, +1 to the winner and -1 to the loser, 0 to both on a tie.
    * **End**: both players terminate after ``rounds`` rounds.

    Args:
        rounds: the number of rounds in an episode (at least 1).
        render_mode: ``"ansi"`` to render the last round as text.

    Example:
        >>> env = RockPaperScissors(rounds=2)
        >>> obs, _ = env.reset(seed=0)
        >>> obs
        {'player_0': 3, 'player_1': 3}
        >>> obs, rewards, *_ = env.step({"player_0": 0, "player_1": 2})
        >>> rewards
        {'player_0': 1.0, 'player_1': -1.0}
    """

    metadata = {"render_modes": ["ansi"], "name": "rock_paper_scissors"}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "outcome"  # win, draw or loss
    env_name = "rock_paper_scissors"

    def __init__(self, rounds: int = 3, render_mode: str | None = None) -> None:
        if not isinstance(rounds, (int, np.integer)) or isinstance(rounds, bool) or rounds < 1:
            raise InvalidValueError(f"RockPaperScissors: rounds must be a positive integer, got {rounds!r}")
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"RockPaperScissors: render_mode must be None or 'ansi', got {render_mode!r}")
        self.rounds = int(rounds)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        observation: spaces.Discrete = spaces.Discrete(4)
        action: spaces.Discrete = spaces.Discrete(3)
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None
        self._round = 0
        self._last = (NONE, NONE)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start round one; the game has no randomness."""
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._acting = ("player_0", "player_1")
        self._round = 0
        self._last = (NONE, NONE)
        return {"player_0": NONE, "player_1": NONE}, {"player_0": {}, "player_1": {}}

    def step(self, actions: Mapping[str, Any]):
        """Play one round; see :meth:`MultiAgentEnv.step` for the edge cases."""
        self.check_actions(actions, self._acting)
        a, b = int(actions["player_0"]), int(actions["player_1"])
        self._last = (a, b)
        self._round += 1
        score = 0.0 if a == b else (1.0 if (a - b) % 3 == 1 else -1.0)
        rewards = {"player_0": score, "player_1": -score}
        over = self._round >= self.rounds
        flags = {"player_0": over, "player_1": over}
        truncations = {"player_0": False, "player_1": False}
        if over:
            self.agents = []
            self._acting = None
            return {}, rewards, flags, truncations, {"player_0": {}, "player_1": {}}
        return {"player_0": b, "player_1": a}, rewards, flags, truncations, {"player_0": {}, "player_1": {}}

    def render(self) -> str | None:
        """The round number and the last moves, as text."""
        if self.render_mode != "ansi":
            return None
        if self._last[0] == NONE:
            return f"round {self._round}/{self.rounds}: no moves yet\n"
        return (
            f"round {self._round}/{self.rounds}: player_0 {_NAMES[self._last[0]]}, player_1 {_NAMES[self._last[1]]}\n"
        )

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions."""
        return list(_NAMES)


class TeamRockPaperScissors(MultiAgentEnv):
    """Rock-paper-scissors between sides: every player throws against every opponent at once.

    A small team game (shared outcome, sides of any sizes) on the rules above.

    * **Teams**: ``team_sizes[k]`` players in ``team_k``; seats are dealt round-robin across
      the teams (two teams of two: ``team_0 = (player_0, player_2)``,
      ``team_1 = (player_1, player_3)``).
    * **Observation** (every player, every round): ``MultiDiscrete([4] * players)``, every
      player's previous throw in seat order (0 rock, 1 paper, 2 scissors, 3 before round one).
    * **Action**: ``Discrete(3)``, always legal (no mask).
    * **Score**: per round, a player scores +1 for each opponent (a player of another team)
      its throw beats and -1 for each that beats it; a team's score is its members' mean.
    * **Rewards**: 0 until the end; then every member of a team gets
      ``(teams scoring less - teams scoring more) / (teams - 1)``: +1 / -1 for the winners
      and losers of two teams, 0 to both on a tie. Teammates always share their outcome.
    * **End**: everyone terminates after ``rounds`` rounds.

    Args:
        team_sizes: the number of players of each team (at least two teams).
        rounds: the rounds in an episode (at least 1).
        render_mode: ``"ansi"`` to render the last round as text.

    Example:
        >>> env = TeamRockPaperScissors(team_sizes=(2, 2), rounds=1)
        >>> env.teams
        {'team_0': ('player_0', 'player_2'), 'team_1': ('player_1', 'player_3')}
        >>> _ = env.reset(seed=0)
        >>> _, rewards, *_ = env.step({"player_0": 1, "player_1": 0, "player_2": 1, "player_3": 0})
        >>> rewards
        {'player_0': 1.0, 'player_1': -1.0, 'player_2': 1.0, 'player_3': -1.0}
    """

    metadata = {"render_modes": ["ansi"], "name": "team_rock_paper_scissors"}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "outcome"  # win, draw or loss
    env_name = "team_rock_paper_scissors"

    def __init__(
        self, team_sizes: tuple[int, ...] | list[int] = (2, 2), rounds: int = 3, render_mode: str | None = None
    ) -> None:
        sizes = list(team_sizes) if isinstance(team_sizes, (tuple, list)) else None
        if (
            sizes is None
            or len(sizes) < 2
            or not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1 for n in sizes)
        ):
            raise InvalidValueError(
                f"TeamRockPaperScissors: team_sizes must list at least two positive team sizes, got {team_sizes!r}"
            )
        if not isinstance(rounds, (int, np.integer)) or isinstance(rounds, bool) or rounds < 1:
            raise InvalidValueError(f"TeamRockPaperScissors: rounds must be a positive integer, got {rounds!r}")
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"TeamRockPaperScissors: render_mode must be None or 'ansi', got {render_mode!r}")
        self.rounds, self.render_mode = int(rounds), render_mode
        members: list[list[str]] = [[] for _ in sizes]
        seat, left = 0, [int(n) for n in sizes]
        while any(left):
            for k in range(len(sizes)):
                if left[k]:
                    members[k].append(f"player_{seat}")
                    seat, left[k] = seat + 1, left[k] - 1
        self.possible_agents = [f"player_{i}" for i in range(seat)]
        self._sides = {f"team_{k}": tuple(ids) for k, ids in enumerate(members)}
        self.teams = self._sides
        self._side = np.array([k for agent in self.possible_agents for k, ids in enumerate(members) if agent in ids])
        self._size = np.array([len(ids) for ids in members], dtype=float)
        self.agents = []
        observation = spaces.MultiDiscrete([4] * seat)
        action: spaces.Discrete = spaces.Discrete(3)
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None
        self._round = 0
        self._last = np.full(seat, NONE, dtype=np.int64)
        self._scores = np.zeros(len(sizes))

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start round one; the game has no randomness."""
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._acting = tuple(self.agents)
        self._round = 0
        self._last = np.full(len(self.possible_agents), NONE, dtype=np.int64)
        self._scores = np.zeros(len(self._sides))
        return {agent: self._last.copy() for agent in self.agents}, {agent: {} for agent in self.agents}

    def step(self, actions: Mapping[str, Any]):
        """Play one round; see :meth:`MultiAgentEnv.step` for the edge cases."""
        self.check_actions(actions, self._acting)
        throws = np.array([int(actions[agent]) for agent in self.possible_agents])
        beats = ((throws[:, None] - throws[None, :]) % 3 == 1).astype(float)
        opponents = self._side[:, None] != self._side[None, :]
        per_player = ((beats - beats.T) * opponents).sum(axis=1)
        self._scores += np.bincount(self._side, per_player, minlength=len(self._sides)) / self._size
        self._last = throws
        self._round += 1
        over = self._round >= self.rounds
        rewards = dict.fromkeys(self.possible_agents, 0.0)
        if over:
            scores, n = self._scores, len(self._sides)
            team_reward = [(int((scores < s).sum()) - int((scores > s).sum())) / (n - 1) for s in scores]
            rewards = {agent: float(team_reward[k]) for agent, k in zip(self.possible_agents, self._side)}
            self.agents, self._acting = [], None
        flags = dict.fromkeys(self.possible_agents, over)
        truncations = dict.fromkeys(self.possible_agents, False)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.possible_agents}
        if over:
            return {}, rewards, flags, truncations, infos
        return {agent: throws.copy() for agent in self.agents}, rewards, flags, truncations, infos

    def render(self) -> str | None:
        """The round number, the last throws and the team scores, as text."""
        if self.render_mode != "ansi":
            return None
        if self._round == 0:
            return f"round 0/{self.rounds}: no throws yet\n"
        throws = ", ".join(f"{agent} {_NAMES[t]}" for agent, t in zip(self.possible_agents, self._last))
        scores = ", ".join(f"{team} {score:+.1f}" for team, score in zip(self._sides, self._scores))
        return f"round {self._round}/{self.rounds}: {throws}; scores {scores}\n"

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions."""
        return list(_NAMES)


class BeatMostCommonAgent(Agent):
    """Team rock-paper-scissors bot: throws what beats the most common throw of the last round.

    Ties between throws are broken by the agent's seeded generator; round one is random.
    It reads the raw observation (every player's last throw).

    Example:
        >>> import numpy as np
        >>> agent = BeatMostCommonAgent(seed=0)
        >>> agent.act(np.array([0, 0, 2, 1]))  # rock is most common: paper beats it
        1
    """

    def __init__(self, seed: int | None = None) -> None:
        self._rng = np.random.default_rng(seed)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        counts = np.bincount(np.asarray(observation).reshape(-1), minlength=4)[:3]
        if not counts.any():
            return int(self._rng.integers(3))
        common = np.flatnonzero(counts == counts.max())
        return (int(common[self._rng.integers(len(common))]) + 1) % 3
