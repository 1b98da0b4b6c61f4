"""When a tournament stops: a fixed schedule, or an adaptive rule that asks for more games.

Every rule has one small interface (:class:`StoppingRule`). The session plays the first
round (:meth:`~StoppingRule.first_games` games per lineup), then, until the rule answers with
no games, shows the rule the standings (:meth:`~StoppingRule.observe`) and plays the games it
asks for (:meth:`~StoppingRule.more`); :meth:`~StoppingRule.final` gives the result to report.

A caller says which rule it wants with a :class:`Stopping` (``Stopping()``: the fixed schedule,
``Stopping(sprt=(0, 50))``, ``Stopping(until_separated=True, budget=400)``); the tournament turns it
into one of these rules, which depend on its rules and workers too:

* :class:`FixedGames`: the schedule as given; nothing is added.
* :class:`SPRTMatch`: a two-entrant match that stops when the sequential probability ratio
  test decides (pentanomial over duplicate pairs, trinomial without duplicates); the verdict
  is the one at the first crossing, so the games played after it do not count.
* :class:`UntilSeparated`: after the first round, one more set for the lineups of every pair
  whose score interval still holds 1/2: the adjacent pairs of the batch-Elo standings in a
  round-robin, the challenger against each opponent in a gauntlet.

Adaptive rules stop at their game ``budget`` at the latest. Whatever the number of workers,
the games a rule asks for depend only on the games stored so far, so a rerun is the same run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from arena.errors import InvalidValueError
from arena.evaluation.sprt import SPRT, SPRTState
from arena.runtime.game import GameResult, GameTask
from arena.tournament.evaluation_inputs import set_key, sprt_units
from arena.tournament.schedule import Lineup

if TYPE_CHECKING:
    from arena.tournament.result import TournamentResult
    from arena.tournament.rules import Execution, TournamentRules

__all__ = [
    "DEFAULT_BUDGET",
    "Stopping",
    "StoppingRule",
    "FixedGames",
    "SPRTMatch",
    "UntilSeparated",
    "sprt_state",
    "separation",
    "games_until",
    "Round",
]


#: The game budget of an adaptive run (``sprt`` or ``until_separated``) when none is given.
DEFAULT_BUDGET = 1000


class Round(Protocol):
    """What a rule may ask of the session: how many games it has scheduled, and more of them."""

    scheduled: int
    lineups: list[Lineup]

    def extend(self, lineup: Lineup, games: int) -> list[GameTask]:
        """The next ``games`` games of ``lineup``, added to the schedule."""


class StoppingRule(Protocol):
    """Decides after each round whether a tournament plays more games, and which."""

    adaptive: bool
    budget: int

    def first_games(self, games: int) -> int:
        """Games per lineup in the first round, ``games`` being what the rules ask."""

    def check(self, entrants: Sequence[str], seats: int) -> None:
        """Refuse a field the rule cannot judge (raises ``ValueError``)."""

    def observe(self, result: TournamentResult) -> None:
        """Record on ``result`` where the rule stands (also called mid-round, for live displays)."""

    def more(self, result: TournamentResult, session: Round) -> list[GameTask]:
        """The games of the next round (empty: stop), ``result`` being the standings after this one."""

    def final(self, result: TournamentResult) -> TournamentResult:
        """The result to report once the rule has stopped."""


class FixedGames:
    """The schedule as given: ``games`` per lineup, nothing added.

    Example:
        >>> rule = FixedGames()
        >>> rule.first_games(20), rule.adaptive
        (20, False)
    """

    adaptive = False
    budget = 0

    def first_games(self, games: int) -> int:
        return games

    def check(self, entrants: Sequence[str], seats: int) -> None:
        return None

    def observe(self, result: TournamentResult) -> None:
        return None

    def more(self, result: TournamentResult, session: Round) -> list[GameTask]:
        return []

    def final(self, result: TournamentResult) -> TournamentResult:
        return result


class SPRTMatch:
    """A two-entrant match that stops when ``test`` decides, or at ``budget`` games.

    Args:
        test: the sequential test (its ``pentanomial`` flag matches duplicate games).
        budget: the most games the match plays.
        parallel: sets played per round (one per worker, so that no worker waits).
    """

    adaptive = True

    def __init__(self, test: SPRT, budget: int, parallel: int = 1) -> None:
        self.test, self.budget, self.parallel = test, budget, parallel
        self._before: tuple[int, SPRTState] | None = None  # (units, state) already checked
        self._stop: int | None = None

    def first_games(self, games: int) -> int:
        return 1  # one duplicate set; the test asks for the rest

    def check(self, entrants: Sequence[str], seats: int) -> None:
        if len(entrants) != 2 or seats != 2:
            raise InvalidValueError(
                f"tournament: --sprt tests a two-entrant match in a two-seat env; got entrants "
                f"{list(entrants)} in an env with {seats} seats"
            )

    def observe(self, result: TournamentResult) -> None:
        result.sprt = self.test
        first, second = result.entrants
        result.sprt_state, self._stop = sprt_state(result.games, first, second, self.test, self._before)

    def more(self, result: TournamentResult, session: Round) -> list[GameTask]:
        if self._stop is not None or session.scheduled >= self.budget:
            return []
        self._before = (result.sprt_state.units, result.sprt_state)
        (lineup,) = session.lineups
        return session.extend(lineup, min(len(lineup.seatings) * self.parallel, self.budget - session.scheduled))

    def final(self, result: TournamentResult) -> TournamentResult:
        if self._stop is None:
            return result
        kept = games_until(result.games, self._stop, self.test)  # the verdict is the first crossing
        return replace(result, games=kept, scheduled=len(kept))


class UntilSeparated:
    """Add a set to every lineup of a pair that is not separated yet, until all are or ``budget`` is spent.

    Args:
        budget: the most games the run plays.
        challenger: in a gauntlet, the challenger: the pairs judged are it against each
            opponent; ``None``: the adjacent pairs of the batch-Elo standings.
    """

    adaptive = True

    def __init__(self, budget: int, challenger: str | None = None) -> None:
        self.budget, self.challenger = budget, challenger

    def first_games(self, games: int) -> int:
        return games

    def check(self, entrants: Sequence[str], seats: int) -> None:
        return None

    def pairs(self, result: TournamentResult) -> list[tuple[str, str]]:
        """The pairs whose order the run settles."""
        if self.challenger is not None:
            return [(self.challenger, other) for other in result.entrants if other != self.challenger]
        order = result.elo().order()
        return list(zip(order, order[1:]))

    def observe(self, result: TournamentResult) -> None:
        result.separation = separation(self.pairs(result), result.pairings)

    def more(self, result: TournamentResult, session: Round) -> list[GameTask]:
        open_pairs = [(a, b) for a, b, apart in result.separation or [] if not apart]
        extra: list[GameTask] = []
        for lineup in session.lineups:
            size = len(lineup.seatings)
            wanted = any(a in lineup.names and b in lineup.names for a, b in open_pairs)
            if wanted and session.scheduled + len(extra) + size <= self.budget:
                extra += session.extend(lineup, size)
        return extra

    def final(self, result: TournamentResult) -> TournamentResult:
        return result


@dataclass(frozen=True)
class Stopping:
    """When a tournament stops, as its caller asks: checked when made, turned into a rule by :meth:`rule`.

    Attributes:
        sprt: ``(elo0, elo1)``: a two-entrant match that stops when the sequential test decides
            (error rates ``alpha`` and ``beta``), or ``None``.
        alpha, beta: the SPRT's error rates.
        until_separated: play on until the pairs are separated.
        budget: the most games of an adaptive run (``None``: :data:`DEFAULT_BUDGET`).

    Raises:
        ValueError: ``sprt`` is not ``(elo0, elo1)`` or comes with ``until_separated``; a bad
            ``budget``, ``alpha`` or ``beta``.

    Example:
        >>> Stopping(sprt=(0, 50), budget=200).adaptive, Stopping().adaptive
        (True, False)
    """

    sprt: tuple[float, float] | None = None
    alpha: float = 0.05
    beta: float = 0.05
    until_separated: bool = False
    budget: int | None = None

    def __post_init__(self) -> None:
        budget = self.budget
        if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
            raise InvalidValueError(f"tournament: budget must be a positive number of games, got {budget!r}")
        object.__setattr__(self, "budget", budget or DEFAULT_BUDGET)
        if not isinstance(self.until_separated, bool):
            raise InvalidValueError(f"tournament: until_separated must be True or False, got {self.until_separated!r}")
        if self.sprt is not None:
            if self.until_separated:
                raise InvalidValueError(
                    "tournament: choose one of sprt (a two-entrant match) and until_separated (a field)"
                )
            if not isinstance(self.sprt, (tuple, list)) or len(self.sprt) != 2:
                raise InvalidValueError(f"tournament: sprt must be (elo0, elo1), got {self.sprt!r}")
            object.__setattr__(self, "sprt", tuple(self.sprt))
            SPRT(self.sprt[0], self.sprt[1], self.alpha, self.beta)  # refuses bad Elo bounds or error rates

    @property
    def adaptive(self) -> bool:
        """Whether the tournament plays on past its schedule (an SPRT match or until separated)."""
        return self.sprt is not None or self.until_separated

    @property
    def option(self) -> str:
        """The CLI option that asked for an adaptive run, for messages (``""`` for a fixed schedule)."""
        return "--sprt" if self.sprt is not None else "--until-separated" if self.until_separated else ""

    def rule(self, rules: TournamentRules, execution: Execution) -> StoppingRule:
        """The rule for a tournament with these ``rules`` and ``execution``: an SPRT over duplicate
        pairs is pentanomial, a round plays a set per worker, a gauntlet judges its challenger.

        Example:
            >>> from arena.tournament.rules import Execution, TournamentRules
            >>> rules = TournamentRules.make("tic_tac_toe", ["random", "b=random"])
            >>> type(Stopping(sprt=(0, 50)).rule(rules, Execution())).__name__
            'SPRTMatch'
        """
        budget = self.budget or DEFAULT_BUDGET
        if self.sprt is not None:
            test = SPRT(self.sprt[0], self.sprt[1], self.alpha, self.beta, pentanomial=rules.duplicate)
            return SPRTMatch(test, budget, execution.parallel)
        if self.until_separated:
            gauntlet = rules.mode == "gauntlet" and rules.names
            return UntilSeparated(budget, rules.names[0] if gauntlet else None)
        return FixedGames()


def sprt_state(
    games: Iterable[GameResult], a: str, b: str, test: SPRT, before: tuple[int, SPRTState] | None = None
) -> tuple[SPRTState, int | None]:
    """The test's state over ``games``, and after how many units it first stopped (``None``: not yet).

    The verdict is the one at the first crossing, so later games cannot change it.

    Args:
        before: ``(units, state)`` of an earlier call on a prefix of the same games, to go on
            from there rather than from the start.
    """
    units = sprt_units(games, a, b, pentanomial=test.pentanomial)
    checked, counts = (0, None) if before is None else (before[0], before[1].counts)
    stop, state = test.first_crossing(units[checked:], counts)
    return state, None if stop is None else checked + stop


def separation(pairs: Iterable[tuple[str, str]], pairings: dict[tuple[str, str], Any]) -> list[tuple[str, str, bool]]:
    """Each pair and whether it is separated: the 95% Wilson interval of the first's score
    against the second leaves out 1/2 (a pair that never met is not).

    Example:
        >>> from arena.tournament.stats import PairingStats
        >>> separation([("a", "b")], {("a", "b"): PairingStats("a", "b", wins=9, losses=1)})
        [('a', 'b', True)]
    """
    result = []
    for a, b in pairs:
        stats = pairings.get((a, b))
        apart = stats is not None and stats.games > 0 and not stats.interval[0] <= 0.5 <= stats.interval[1]
        result.append((a, b, apart))
    return result


def games_until(games: Sequence[GameResult], stop: int, test: SPRT) -> list[GameResult]:
    """The games up to the unit (set or game) where ``test`` stopped: later ones do not count."""
    ranked = sorted((g for g in games if g.ranks), key=lambda g: (g.index, g.lineup))
    if test.pentanomial:
        sizes: dict[tuple[str, int], int] = {}
        for game in ranked:
            sizes[set_key(game)] = sizes.get(set_key(game), 0) + 1
        complete = [key for key in dict.fromkeys(set_key(g) for g in ranked) if sizes[key] == 2]
        counted = set(complete[:stop])
        last = max(g.index for g in ranked if set_key(g) in counted)
    else:
        last = ranked[stop - 1].index
    return [game for game in games if game.index <= last]
