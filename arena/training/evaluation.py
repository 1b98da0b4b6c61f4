"""Quick seeded matches of one agent against opponents, for learning curves and promotion."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv
from arena.play_loop import play
from arena.seeding import derive_seed
from arena.training.pool import OpponentPool
from arena.training.seating import team_members

__all__ = ["Score", "match"]


@dataclass
class Score:
    """Wins, draws and losses of one agent over a set of games.

    ``outcomes`` holds one value per game: 1 for a win, 0.5 for a draw, 0 for a loss.
    A win is a first rank that not every player shares; a draw is a first rank that all
    share (so in games of three or more, sharing first place with some is a win).

    Example:
        >>> Score([1.0, 0.5, 0.0, 1.0]).win_rate, Score([1.0, 0.5, 0.0, 1.0]).score
        (0.5, 0.625)
    """

    outcomes: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return sum(1 for o in self.outcomes if o == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for o in self.outcomes if o == 0.5)

    @property
    def losses(self) -> int:
        return sum(1 for o in self.outcomes if o == 0.0)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.outcomes else 0.0

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game."""
        return float(np.mean(self.outcomes)) if self.outcomes else 0.0


def match(env: MultiAgentEnv, agent: Agent, opponent: Agent | OpponentPool, games: int, *, seed: int = 0,
          seats: Sequence[AgentID] | None = None, teammate: Agent | None = None) -> Score:
    """Play ``games`` seeded games of ``agent`` against ``opponent`` with :func:`arena.play`.

    The agent takes ``seats`` in turn (default: every seat of the env), so each seat is
    played equally often; the other seats go to the opponent (copies of it when there
    are several; a fresh draw from a pool for every game). Game ``i`` is seeded with
    ``derive_seed(seed, i)``, so the same call gives the same games. In an env with sides,
    ``teammate`` (copies of it) fills the other seats of the agent's side, and the result
    is its side's.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> score = match(envs.make("tic_tac_toe"), RandomAgent(seed=1), RandomAgent(seed=2), 10)
        >>> score.games
        10
    """
    if games < 1:
        raise ValueError(f"match: games must be at least 1, got {games!r}")
    possible = list(env.possible_agents)
    seats = possible if seats is None else list(seats)
    rng = np.random.default_rng(seed)
    copies: dict[tuple[int, int], Agent] = {}
    outcomes: list[float] = []
    for game in range(games):
        seat = seats[game % len(seats)]
        drawn = opponent.sample(rng) if isinstance(opponent, OpponentPool) else opponent
        lineup: dict[AgentID, Agent] = {}
        mates = [] if teammate is None else [a for a in team_members(env, seat) if a != seat]
        for slot, agent_id in enumerate(a for a in possible if a != seat and a not in mates):
            lineup[agent_id] = drawn if slot == 0 else copies.setdefault((id(drawn), slot), copy.deepcopy(drawn))
        for slot, agent_id in enumerate(mates):
            lineup[agent_id] = teammate if slot == 0 else copies.setdefault((id(teammate), -slot), copy.deepcopy(teammate))
        lineup[seat] = agent
        episode = play(env, lineup, seed=derive_seed(seed, game))
        ranks, side = episode.ranks, seat
        if env.teams:  # a side's result: its team's rank
            ranks, side = episode.team_ranks, next(t for t, ids in env.teams.items() if seat in ids)
        if ranks[side] != 1:
            outcomes.append(0.0)
        elif all(rank == 1 for rank in ranks.values()):
            outcomes.append(0.5)
        else:
            outcomes.append(1.0)
    return Score(outcomes)
