"""Who meets whom, in which seats, with which seed.

A *lineup* is the set of entrants in one game (a pairing in a two-player game). Each lineup
plays ``games`` games; game ``i`` sits the entrants in ``seatings[i % len(seatings)]``. Games
come in *duplicate sets* of ``len(seatings)`` games that share one seed,
``derive_seed(lineup_seed, i // len(seatings))`` (``derive_seed(lineup_seed, i)`` with
duplicates off), where ``lineup_seed`` derives from the tournament seed and the lineup's names. Results therefore depend only on (tournament seed, lineup, i),
never on the number of workers or the order games finish in, and adding an entrant later
leaves the existing lineups' games untouched.
"""

from __future__ import annotations

import itertools
import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

from arena.seeding import derive_seed

__all__ = ["GameTask", "Lineup", "MODES", "lineups_for", "seatings_for", "make_schedule", "lineup_key", "set_seed",
           "lineup_tasks", "games_per_lineup"]

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


def set_seed(seed: int, lineup: Lineup, index: int, duplicate: bool = True) -> int:
    """The seed of game ``index`` of ``lineup``: shared by its duplicate set, or its own.

    With ``duplicate``, games ``k * s .. k * s + k - 1`` (``k`` seatings) form set ``s``: they
    share the seed ``derive_seed(lineup_seed, s)`` (so deals, dice, boards and spawns are the
    same) and rotate the seats. Without it, game ``i`` gets ``derive_seed(lineup_seed, i)``.

    Example:
        >>> lineup = Lineup(("a", "b"), (("a", "b"), ("b", "a")))
        >>> set_seed(3, lineup, 0) == set_seed(3, lineup, 1) != set_seed(3, lineup, 2)
        True
    """
    lineup_seed = derive_seed(seed, zlib.crc32(lineup.key.encode()))
    return derive_seed(lineup_seed, index // len(lineup.seatings) if duplicate else index)


def lineup_tasks(lineup: Lineup, seed: int, start: int, stop: int, duplicate: bool = True) -> list[GameTask]:
    """Games ``start .. stop - 1`` of ``lineup`` (adaptive schedules add games this way).

    Example:
        >>> lineup = Lineup(("a", "b"), (("a", "b"), ("b", "a")))
        >>> [(t.index, t.seats) for t in lineup_tasks(lineup, 0, 2, 4)]
        [(2, ('a', 'b')), (3, ('b', 'a'))]
    """
    return [GameTask(lineup.key, index, set_seed(seed, lineup, index, duplicate),
                     lineup.seatings[index % len(lineup.seatings)]) for index in range(start, stop)]


def make_schedule(names: Sequence[str], seats: int, *, mode: str = "round-robin", games: int = 10,
                  seed: int = 0, seatings: str = "auto", duplicate: bool = True) -> tuple[list[Lineup], list[GameTask]]:
    """Every game of a tournament, interleaved by game index so that a partial run stays balanced.

    Args:
        names: the entrants (for a gauntlet, the challenger first).
        seats: the number of seats (``len(env.possible_agents)``).
        mode: see :func:`lineups_for`.
        games: games per lineup, rounded up to a multiple of the number of seatings.
        seed: the tournament seed.
        seatings: see :func:`seatings_for`.
        duplicate: the games of a lineup come in sets that share one seed and rotate the
            seats (see :func:`set_seed`); ``False``: every game has its own seed.

    Example:
        >>> lineups, tasks = make_schedule(["a", "b"], 2, games=2, seed=7)
        >>> [(t.index, t.seats) for t in tasks], tasks[0].seed == tasks[1].seed
        ([(0, ('a', 'b')), (1, ('b', 'a'))], True)
    """
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"tournament: seed must be a non-negative integer, got {seed!r}")
    lineups = []
    for names_in_game in lineups_for(names, seats, mode):
        lineups.append(Lineup(tuple(names_in_game), seatings_for(names_in_game, seatings)))
    per_lineup = [games_per_lineup(games, len(lineup.seatings)) for lineup in lineups]
    by_lineup = [lineup_tasks(lineup, seed, 0, count, duplicate) for lineup, count in zip(lineups, per_lineup)]
    tasks = []
    for index in range(max(per_lineup, default=0)):
        for own, count in zip(by_lineup, per_lineup):
            if index < count:
                tasks.append(own[index])
    return lineups, tasks
