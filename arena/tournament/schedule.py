"""Who meets whom, in which seats, with which seed.

A *lineup* is the set of entrants in one game (a pairing in a two-player game). Each lineup
plays ``games`` games; game ``i`` sits the entrants in ``seatings[i % len(seatings)]``. Games
come in *duplicate sets* of ``len(seatings)`` games that share one seed,
``derive_seed(lineup_seed, i // len(seatings))`` (``derive_seed(lineup_seed, i)`` with
duplicates off), where ``lineup_seed`` derives from the tournament seed and the lineup's names. Results therefore depend only on (tournament seed, lineup, i),
never on the number of workers or the order games finish in, and adding an entrant later
leaves the existing lineups' games untouched.

*Filling seats.* A lineup with fewer entrants than the env has seats (``pommerman`` with
``--agents X,random``) is filled: the entrants take turns around the table (``X random X random``),
and the seatings rotate both the table and who takes the odd seats, so every entrant sits in
every seat equally often (:func:`filled_seatings`). With ``fill=False`` (a team game: a seat is a
side, and a side is one entrant's) such a lineup is refused.
"""

from __future__ import annotations

import bisect
import itertools
import math
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from arena.errors import InvalidValueError
from arena.runtime.game import GameTask
from arena.seeding import derive_seed

__all__ = [
    "Lineup",
    "MODES",
    "Schedule",
    "lineups_for",
    "seatings_for",
    "filled_seatings",
    "make_schedule",
    "lineup_key",
    "set_seed",
    "lineup_tasks",
    "games_per_lineup",
]

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
    """The entrants of one kind of game, and the seatings it rotates through (an entrant may
    fill several seats of a seating when the lineup has fewer entrants than seats)."""

    names: tuple[str, ...]
    seatings: tuple[tuple[str, ...], ...]

    @property
    def key(self) -> str:
        return lineup_key(self.names)


def seatings_for(names: Sequence[str], mode: str = "auto", seats: int | None = None) -> tuple[tuple[str, ...], ...]:
    """The seatings a lineup rotates through; each entrant sits in each seat equally often.

    Args:
        names: the lineup, one entrant per seat (fewer: see :func:`filled_seatings`).
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
    if seats is not None and seats > len(names):
        return filled_seatings(names, seats, mode)
    if mode == "auto":
        mode = "all" if len(names) <= _ALL_PERMUTATIONS_UP_TO else "rotations"
    if mode == "all":
        return tuple(itertools.permutations(names))
    if mode == "rotations":
        return tuple(names[i:] + names[:i] for i in range(len(names)))
    raise InvalidValueError(f"tournament: seatings must be 'auto', 'all' or 'rotations', got {mode!r}")


def filled_seatings(names: Sequence[str], seats: int, mode: str = "auto") -> tuple[tuple[str, ...], ...]:
    """The seatings of a lineup with fewer entrants than seats: the entrants take turns around the
    table, and the seatings rotate the table (``"rotations"``) or permute it (``"all"``), starting
    the turns from each entrant in turn so that the odd seats go round too. Every entrant sits in
    every seat equally often, each time as its own agent.

    Example:
        >>> filled_seatings(["x", "r"], 4)
        (('x', 'r', 'x', 'r'), ('r', 'x', 'r', 'x'))
        >>> [''.join(s) for s in filled_seatings(["a", "b", "c"], 4)][:5]
        ['abca', 'bcaa', 'caab', 'aabc', 'bcab']
    """
    names = tuple(names)
    if mode == "auto":
        mode = "all" if seats <= _ALL_PERMUTATIONS_UP_TO else "rotations"
    if mode not in ("all", "rotations"):
        raise InvalidValueError(f"tournament: seatings must be 'auto', 'all' or 'rotations', got {mode!r}")
    seatings: dict[tuple[str, ...], None] = {}
    for first in range(len(names)):
        turns = names[first:] + names[:first]
        table = tuple(turns[seat % len(turns)] for seat in range(seats))
        if mode == "all":
            seatings.update(dict.fromkeys(itertools.permutations(table)))
        else:
            seatings.update(dict.fromkeys(table[i:] + table[:i] for i in range(seats)))
    return tuple(seatings)


def lineups_for(names: Sequence[str], seats: int, mode: str, fill: bool = True) -> list[tuple[str, ...]]:
    """The lineups of a tournament ``mode`` for ``names`` in an env with ``seats`` seats.

    * ``"head-to-head"``: exactly ``seats`` entrants, one lineup;
    * ``"round-robin"``: every combination of ``seats`` entrants;
    * ``"gauntlet"``: the first entrant against every combination of ``seats - 1`` of the others.

    With ``fill``, a round-robin or gauntlet of at least 2 but fewer than ``seats`` entrants is one
    lineup of them all; its seats are filled (see :func:`filled_seatings`).

    Example:
        >>> lineups_for(["a", "b", "c"], 2, "gauntlet")
        [('a', 'b'), ('a', 'c')]
    """
    names = list(names)
    if mode not in MODES:
        raise InvalidValueError(f"tournament: mode must be one of {', '.join(MODES)}, got {mode!r}")
    if seats < 2:
        raise InvalidValueError(f"tournament: the env must have at least 2 seats, got {seats}")
    if fill and mode != "head-to-head" and 2 <= len(names) < seats:
        return [tuple(names)]
    if mode == "head-to-head":
        if len(names) != seats:
            raise InvalidValueError(
                f"tournament: head-to-head in a {seats}-seat env needs exactly {seats} entrants, got {len(names)}: {names}"
            )
        return [tuple(names)]
    if mode == "gauntlet":
        if len(names) < (2 if fill else seats):
            raise InvalidValueError(
                f"tournament: a gauntlet in a {seats}-seat env needs the challenger and at least "
                f"{1 if fill else seats - 1} opponent{'' if fill or seats == 2 else 's'}, got {names}"
            )
        challenger, field = names[0], names[1:]
        return [(challenger, *others) for others in itertools.combinations(field, seats - 1)]
    if len(names) < seats:
        least = 2 if fill else seats
        raise InvalidValueError(
            f"tournament: a round-robin in a {seats}-seat env needs at least {least} entrants, got {len(names)}: {names}"
        )
    return list(itertools.combinations(names, seats))


def games_per_lineup(games: int, seatings: int) -> int:
    """``games`` rounded up to a multiple of ``seatings`` so that every seat is played equally often.

    Example:
        >>> games_per_lineup(5, 2)
        6
    """
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise InvalidValueError(f"tournament: games must be a positive integer, got {games!r}")
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
    return [
        GameTask(
            lineup.key, index, set_seed(seed, lineup, index, duplicate), lineup.seatings[index % len(lineup.seatings)]
        )
        for index in range(start, stop)
    ]


class Schedule(Sequence[GameTask]):
    """Every game of a tournament, interleaved by game index, each made when asked for.

    Game ``index`` of every lineup comes before game ``index + 1`` of any (so a partial run
    stays balanced). Nothing is stored per game: iterating, ``len`` and indexing compute the
    tasks from the lineups and their game counts, so memory does not grow with ``games``.

    Args:
        lineups: the lineups, in schedule order.
        counts: games per lineup.
        seed: the tournament seed.
        duplicate: games come in duplicate sets (see :func:`set_seed`).

    Example:
        >>> lineups = [Lineup(("a", "b"), (("a", "b"), ("b", "a"))), Lineup(("a", "c"), (("a", "c"),))]
        >>> schedule = Schedule(lineups, [2, 3], seed=0)
        >>> len(schedule), [(t.lineup, t.index) for t in schedule]
        (5, [('a|b', 0), ('a|c', 0), ('a|b', 1), ('a|c', 1), ('a|c', 2)])
        >>> schedule[4] == list(schedule)[4]
        True
    """

    def __init__(self, lineups: Sequence[Lineup], counts: Sequence[int], seed: int, duplicate: bool = True) -> None:
        self.lineups, self.counts = list(lineups), [int(count) for count in counts]
        self.seed, self.duplicate = seed, duplicate
        self._length = sum(self.counts)
        self._by_count = sorted(self.counts)

    def task(self, lineup: Lineup, index: int) -> GameTask:
        """Game ``index`` of ``lineup``."""
        return GameTask(
            lineup.key,
            index,
            set_seed(self.seed, lineup, index, self.duplicate),
            lineup.seatings[index % len(lineup.seatings)],
        )

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[GameTask]:
        for index in range(max(self.counts, default=0)):
            for lineup, count in zip(self.lineups, self.counts):
                if index < count:
                    yield self.task(lineup, index)

    def _before(self, index: int) -> int:
        """How many tasks come before game ``index`` of the first lineup."""
        below = bisect.bisect_left(self._by_count, index)  # lineups with fewer than ``index`` games
        return sum(self._by_count[:below]) + index * (len(self._by_count) - below)

    @overload
    def __getitem__(self, position: int) -> GameTask: ...

    @overload
    def __getitem__(self, position: slice) -> list[GameTask]: ...

    def __getitem__(self, position: Any) -> Any:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(self._length))]
        if position < 0:
            position += self._length
        if not 0 <= position < self._length:
            raise IndexError(f"schedule index {position} out of range (the schedule has {self._length} games)")
        low, high = 0, max(self.counts)  # the game index whose block holds ``position``
        while low < high:
            middle = (low + high + 1) // 2
            if self._before(middle) <= position:
                low = middle
            else:
                high = middle - 1
        offset = position - self._before(low)
        for lineup, count in zip(self.lineups, self.counts):
            if low < count:
                if offset == 0:
                    return self.task(lineup, low)
                offset -= 1
        raise AssertionError("unreachable: the block of a valid position holds it")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Schedule):
            return (self.lineups, self.counts, self.seed, self.duplicate) == (
                other.lineups,
                other.counts,
                other.seed,
                other.duplicate,
            )
        if isinstance(other, Sequence):
            return len(other) == self._length and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable like a list; typeshed types __hash__ as a method

    def __repr__(self) -> str:
        return f"Schedule({len(self.lineups)} lineups, {self._length} games, seed={self.seed})"


def make_schedule(
    names: Sequence[str],
    seats: int,
    *,
    mode: str = "round-robin",
    games: int = 10,
    seed: int = 0,
    seatings: str = "auto",
    duplicate: bool = True,
    fill: bool = True,
) -> tuple[list[Lineup], Schedule]:
    """Every game of a tournament (a :class:`Schedule`: made as iterated, not stored).

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
        raise InvalidValueError(f"tournament: seed must be a non-negative integer, got {seed!r}")
    lineups = []
    for names_in_game in lineups_for(names, seats, mode, fill):
        lineups.append(Lineup(tuple(names_in_game), seatings_for(names_in_game, seatings, seats)))
    per_lineup = [games_per_lineup(games, len(lineup.seatings)) for lineup in lineups]
    return lineups, Schedule(lineups, per_lineup, seed, duplicate)
