"""A pool of frozen opponents for self-play, with the rule that picks one per episode."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from arena.agents.base import Agent
from arena.errors import InvalidTypeError, InvalidValueError

__all__ = ["DrawnPlayers", "OpponentPool", "STRATEGIES"]

STRATEGIES = ("latest", "uniform")


class OpponentPool:
    """Frozen opponents (the starting ones, then snapshots of the learner) to sample from.

    :class:`~arena.training.SingleAgentEnv` accepts a pool wherever it accepts an
    opponent and samples it at every reset; :class:`~arena.training.promotion.PromotionCallback`
    adds snapshots of the learner to it.

    Strategies:

    * ``"latest"``: always the newest member (classic self-play against the current
      champion);
    * ``"uniform"``: uniformly over the whole history, so the learner keeps beating its
      older selves and does not chase its own tail.

    Args:
        agents: the starting members (at least one), oldest first.
        strategy: ``"latest"`` or ``"uniform"``.
        max_size: keep at most this many members; the oldest snapshot goes first, the
            starting members are kept (``None``: keep everything).

    Example:
        >>> import numpy as np
        >>> from arena import RandomAgent
        >>> pool = OpponentPool([RandomAgent(seed=0)], strategy="latest")
        >>> pool.add(RandomAgent(seed=1), name="snapshot-1")
        >>> pool.names
        ['RandomAgent', 'snapshot-1']
        >>> pool.names[pool.index(pool.sample(np.random.default_rng(0)))]
        'snapshot-1'
    """

    def __init__(self, agents: Agent | Sequence[Agent], strategy: str = "latest", max_size: int | None = None) -> None:
        members = [agents] if isinstance(agents, Agent) else list(agents)
        if not members:
            raise InvalidValueError("OpponentPool: needs at least one starting agent, got none")
        for agent in members:
            if not isinstance(agent, Agent):
                raise InvalidTypeError(
                    f"OpponentPool: members must be arena.Agent instances, got {type(agent).__name__}"
                )
        if strategy not in STRATEGIES:
            raise InvalidValueError(f"OpponentPool: strategy must be one of {list(STRATEGIES)}, got {strategy!r}")
        if max_size is not None and (not isinstance(max_size, int) or max_size < len(members) + 1):
            raise InvalidValueError(
                f"OpponentPool: max_size must be an integer of at least {len(members) + 1} (the "
                f"{len(members)} starting members and one snapshot), got {max_size!r}"
            )
        self.strategy = strategy
        self.max_size = max_size
        self.fixed = len(members)
        self.members: list[Agent] = members
        self.names: list[str] = [str(agent) for agent in members]

    def add(self, agent: Agent, name: str | None = None) -> None:
        """Add a frozen agent (a snapshot of the learner) as the newest member."""
        if not isinstance(agent, Agent):
            raise InvalidTypeError(f"OpponentPool: members must be arena.Agent instances, got {type(agent).__name__}")
        self.members.append(agent)
        self.names.append(str(agent) if name is None else name)
        if self.max_size is not None and len(self.members) > self.max_size:
            del self.members[self.fixed]
            del self.names[self.fixed]

    def sample(self, rng: np.random.Generator) -> Agent:
        """One member, chosen by the strategy with ``rng`` (the caller's seeded generator)."""
        if self.strategy == "latest":
            return self.members[-1]
        return self.members[int(rng.integers(len(self.members)))]

    def index(self, agent: Agent) -> int:
        """The position of ``agent`` in the pool (by identity)."""
        for i, member in enumerate(self.members):
            if member is agent:
                return i
        raise InvalidValueError(f"OpponentPool: {agent} is not a member")

    @property
    def latest(self) -> Agent:
        """The newest member."""
        return self.members[-1]

    def __len__(self) -> int:
        return len(self.members)

    def __iter__(self) -> Iterator[Agent]:
        return iter(self.members)

    def __str__(self) -> str:
        return f"OpponentPool({self.strategy}, {len(self.members)} members: {', '.join(self.names)})"

    def __repr__(self) -> str:
        return str(self)


class DrawnPlayers:
    """Which player each game of a batched trainer plays this episode, as codes into a table of players.

    A game keeps the player it drew until its next episode, even when the pool changes meanwhile (a
    self-play promotion); a player that no game plays and the pool no longer holds is dropped from the
    table, so a run does not keep every snapshot's model it ever drew.

    Args:
        num_games: the games.

    Example:
        >>> drawn = DrawnPlayers(3)
        >>> drawn.assign([0, 1, 2], ["a", "b", "a"], current=["a", "b"])
        >>> drawn.codes.tolist(), drawn.table
        ([0, 1, 0], ['a', 'b'])
        >>> drawn.assign([1], ["c"], current=["a", "c"])  # "b" retired: no game plays it
        >>> drawn.codes.tolist(), drawn.table
        ([0, 1, 0], ['a', 'c'])
    """

    def __init__(self, num_games: int) -> None:
        self.table: list[Any] = []
        self.codes = np.zeros(num_games, dtype=np.int64)

    def clear(self) -> None:
        """Forget every player (a new run of episodes: every game draws again)."""
        self.table, self.codes[:] = [], 0

    def assign(self, games: Iterable[int], players: Iterable[Any], current: Sequence[Any]) -> None:
        """Give each of ``games`` its drawn player (compared by identity); ``current``: the pool's players now."""
        for game, player in zip(games, players):
            code = next((i for i, known in enumerate(self.table) if known is player), len(self.table))
            if code == len(self.table):
                self.table.append(player)
            self.codes[game] = code
        used = set(np.unique(self.codes).tolist())
        keep = [c for c, known in enumerate(self.table) if c in used or any(known is p for p in current)]
        if len(keep) < len(self.table):
            renumber = np.zeros(len(self.table), dtype=np.int64)
            renumber[keep] = np.arange(len(keep))
            self.codes = renumber[self.codes]
            self.table = [self.table[code] for code in keep]
