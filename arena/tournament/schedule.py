"""Who meets whom, in which seats, with which seed.

A *lineup* is the set of entrants in one game (a pairing in a two-player game). Each lineup
plays ``games`` games; game ``i`` sits the entrants in ``seatings[i % len(seatings)]`` and is
seeded with ``derive_seed(lineup_seed, i)``, where ``lineup_seed`` derives from the tournament
seed and the lineup's names. Results therefore depend only on (tournament seed, lineup, i),
never on the number of workers or the order games finish in, and adding an entrant later
leaves the existing lineups' games untouched.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from arena.play import derive_seed

__all__ = ["GameTask", "Lineup", "MODES", "lineups_for", "seatings_for", "make_schedule", "lineup_key"]

MODES = ("round-robin", "head-to-head", "gauntlet")

# All permutations up to this many seats (3! = 6); beyond it, the cyclic rotations.
_ALL_PERMUTATIONS_UP_TO = 3


def lineup_key(names: Sequence[str]) -> str:
    """The stable key of a lineup: its names sorted and joined by ``|``.

    Example:
        >>> lineup_key(["mcts", "random"])
        'mcts|random'
    """
    return "|".join(sorted(names))


@dataclass(frozen=True)
class Lineup:
    """The entrants of one kind of game, and the seatings it rotates through."""

    names: tuple[str, ...]
    seatings: tuple[tuple[str, ...], ...]

    @property
    def key(self) -> str:
        return lineup_key(self.names)


@dataclass(frozen=True)
class GameTask:
    """One game to play: ``seats[j]`` is the entrant in the env's ``possible_agents[j]``."""

    lineup: str
    index: int
    seed: int
    seats: tuple[str, ...]


def seatings_for(names: Sequence[str], mode: str = "auto") -> tuple[tuple[str, ...], ...]:
    """The seatings a lineup rotates through; each entrant sits in each seat equally often.

    Args:
        names: the lineup, one entrant per seat.
        mode: ``"all"`` (every permutation), ``"rotations"`` (the ``k`` cyclic shifts: a Latin
            square, ``k`` games for ``k`` seats) or ``"auto"`` (all permutations up to three
            seats, rotations beyond).

    Example:
        >>> seatings_for(["a", "b"])
        (('a', 'b'), ('b', 'a'))
        >>> seatings_for(["a", "b", "c", "d"])
        (('a', 'b', 'c', 'd'), ('b', 'c', 'd', 'a'), ('c', 'd', 'a', 'b'), ('d', 'a', 'b', 'c'))
    """
    names = tuple(names)
    if mode == "auto":
        mode = "all" if len(names) <= _ALL_PERMUTATIONS_UP_TO else "rotations"
    if mode == "all":
        return tuple(itertools.permutations(names))
    if mode == "rotations":
        return tuple(names[i:] + names[:i] for i in range(len(names)))
    raise ValueError(f"tournament: seatings must be 'auto', 'all' or 'rotations', got {mode!r}")


def lineups_for(names: Sequence[str], seats: int, mode: str) -> list[tuple[str, ...]]:
    """The lineups of a tournament ``mode`` for ``names`` in an env with ``seats`` seats.

    * ``"head-to-head"``: exactly ``seats`` entrants, one lineup;
    * ``"round-robin"``: every combination of ``seats`` entrants;
    * ``"gauntlet"``: the first entrant against every combination of ``seats - 1`` of the others.

    Example:
        >>> lineups_for(["a", "b", "c"], 2, "gauntlet")
        [('a', 'b'), ('a', 'c')]
    """
    names = list(names)
    if mode not in MODES:
        raise ValueError(f"tournament: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if seats < 2:
        raise ValueError(f"tournament: the env must have at least 2 seats, got {seats}")
    if mode == "head-to-head":
        if len(names) != seats:
            raise ValueError(f"tournament: head-to-head in a {seats}-seat env needs exactly {seats} entrants, got {len(names)}: {names}")
        return [tuple(names)]
    if mode == "gauntlet":
        if len(names) < seats:
            raise ValueError(f"tournament: a gauntlet in a {seats}-seat env needs the challenger and at least {seats - 1} opponents, got {names}")
        challenger, field = names[0], names[1:]
        return [(challenger, *others) for others in itertools.combinations(field, seats - 1)]
    if len(names) < seats:
        raise ValueError(f"tournament: a round-robin in a {seats}-seat env needs at least {seats} entrants, got {len(names)}: {names}")
    return list(itertools.combinations(names, seats))


def games_per_lineup(games: int, seatings: int) -> int:
    """``games`` rounded up to a multiple of ``seatings`` so that every seat is played equally often.

    Example:
        >>> games_per_lineup(5, 2)
        6
    """
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"tournament: games must be a positive integer, got {games!r}")
    return math.ceil(games / seatings) * seatings


def make_schedule(names: Sequence[str], seats: int, *, mode: str = "round-robin", games: int = 10,
                  seed: int = 0, seatings: str = "auto") -> tuple[list[Lineup], list[GameTask]]:
    """Every game of a tournament, interleaved by game index so that a partial run stays balanced.

    Args:
        names: the entrants (for a gauntlet, the challenger first).
        seats: the number of seats (``len(env.possible_agents)``).
        mode: see :func:`lineups_for`.
        games: games per lineup, rounded up to a multiple of the number of seatings.
        seed: the tournament seed.
        seatings: see :func:`seatings_for`.

    Example:
        >>> lineups, tasks = make_schedule(["a", "b"], 2, games=2, seed=7)
        >>> [(t.index, t.seats) for t in tasks]
        [(0, ('a', 'b')), (1, ('b', 'a'))]
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"tournament: seed must be a non-negative integer, got {seed!r}")
    lineups = []
    for names_in_game in lineups_for(names, seats, mode):
        lineups.append(Lineup(tuple(names_in_game), seatings_for(names_in_game, seatings)))
    tasks = []
    per_lineup = [games_per_lineup(games, len(lineup.seatings)) for lineup in lineups]
    for index in range(max(per_lineup, default=0)):
        for lineup, count in zip(lineups, per_lineup):
            if index < count:
                lineup_seed = derive_seed(seed, zlib.crc32(lineup.key.encode()))
                seating = lineup.seatings[index % len(lineup.seatings)]
                tasks.append(GameTask(lineup.key, index, derive_seed(lineup_seed, index), seating))
    return lineups, tasks
