"""One run of a tournament: the field that could be built, its results file, and the rounds it plays.

:func:`survey` builds the env and every entrant once (:class:`Field`: who can play, how many
seats, the env's sides). A :class:`TournamentSession` owns the results file, the game counts of
each lineup (adaptive rules add games), plays a round of games on the chosen backend, and reads
the standings so far (:meth:`TournamentSession.result`). :func:`play_games` sends games to a
backend; it is the one place that knows every backend, so no backend imports another.

Example:
    >>> from arena.tournament.rules import Execution, TournamentRules
    >>> from arena.tournament.stopping import FixedGames
    >>> rules = TournamentRules.make("tic_tac_toe", ["random", "b=random"], games=2)
    >>> with TournamentSession(rules, Execution("inline"), survey(rules), FixedGames()) as session:
    ...     session.play(session.schedule)
    ...     len(session.result().games)
    2
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, EntrantBuildError, InvalidValueError, ResultsFileError, TournamentError
from arena.evaluation.results import check_result_kind
from arena.runtime.game import GameConfig, GameTask
from arena.runtime.processes import ending_what_starts
from arena.runtime.runner import (
    OnResults,
    Pending,
    run_inline,
    run_processes,
    run_serial,
)
from arena.runtime.store import ResultStore, StoredGames
from arena.specs.agents import agent_version
from arena.tournament.result import TournamentResult
from arena.tournament.rules import Execution, TournamentRules
from arena.tournament.schedule import Lineup, lineup_tasks, make_schedule
from arena.tournament.stopping import StoppingRule

__all__ = ["Field", "survey", "TournamentSession", "play_games"]

Progress = Callable[[int, int], None]
Monitor = Callable[[TournamentResult], None]


@dataclass(frozen=True)
class Field:
    """Who can play, found by building the env and every entrant once.

    Attributes:
        seats: the env's seats (its sides, in a team game): the places a lineup fills.
        excluded: entrant -> why it could not be built.
        teams: the env's sides, or ``None`` for an env without them.
        playing: the entrants that were built, in the rules' order.
        result_kind: what a game's result is for ranking (the env's :attr:`~arena.MultiAgentEnv.result_kind`).
    """

    seats: int
    excluded: dict[str, str]
    teams: dict[str, tuple[str, ...]] | None
    playing: tuple[str, ...]
    result_kind: str = "ranks"


def survey(rules: TournamentRules) -> Field:
    """Build the env and every entrant once (also caching the package lookups forked workers inherit).

    Args:
        rules: the tournament; with ``rules.exclude_unbuildable`` the entrants that cannot be built
            are left out (each listed in ``Field.excluded`` with its reason) instead of refusing it.

    Raises:
        EntrantBuildError: an entrant could not be built (and ``rules.exclude_unbuildable`` is false).
        TournamentError: the env's factory failed, or the gauntlet's challenger could not be built.
        ValueError: a team entrant for an env without sides, or one whose member count fits
            no side (sides swap between games, so it must fit every side).
    """
    try:
        probe = rules.env.build()
    except (ArenaError, ValueError, TypeError):
        raise
    except Exception as err:  # a factory's own failure: one line naming the env, not a traceback
        raise TournamentError(
            f"tournament: the env {rules.env.factory!r} could not be built: {type(err).__name__}: {err}"
        ) from err
    excluded = {}
    try:
        sides = probe.teams
        sizes = sorted({len(ids) for ids in sides.values()}) if sides else []
        for spec in rules.entrants:
            if spec.members and not sides:
                raise InvalidValueError(
                    f"tournament: entrant {spec.name!r} is a team ({spec.describe()}), but {probe} has no "
                    "sides (its teams is None); give single agents"
                )
            for size in sizes:
                spec.side_members(size)  # a team of the wrong size is a mistake to report, not to exclude
        with ending_what_starts():  # what an entrant starts when built is its games' business, not ours
            for spec in rules.entrants:
                try:
                    agents = (
                        [agent for size in sizes for agent in spec.build_side(size, probe)]
                        if sides
                        else [spec.build(probe)]
                    )
                    for agent in agents:
                        agent_version(agent)
                except Exception as err:  # any failure to build excludes the entrant, once, with its reason
                    excluded[spec.name] = f"{type(err).__name__}: {err}"
        teams = {team: tuple(ids) for team, ids in sides.items()} if sides else None
        seats = len(sides) if sides else len(probe.possible_agents)
        result_kind = check_result_kind(probe.result_kind, f"tournament: {probe}.result_kind")
    finally:
        probe.close()
    if excluded and not rules.exclude_unbuildable:
        raise _build_error(excluded)
    if rules.mode == "gauntlet" and rules.entrants and rules.names[0] in excluded:
        raise TournamentError(
            f"tournament: the gauntlet's challenger {rules.names[0]!r} could not be built: {excluded[rules.names[0]]}"
        )
    return Field(seats, excluded, teams, tuple(name for name in rules.names if name not in excluded), result_kind)


def _build_error(excluded: dict[str, str]) -> EntrantBuildError:
    """One line naming every entrant that could not be built, with its reason."""
    if len(excluded) == 1:
        [(name, why)] = excluded.items()
        return EntrantBuildError(f"tournament: entrant {name!r} cannot be built: {why}", dict(excluded))
    reasons = "; ".join(f"{name!r}: {why}" for name, why in excluded.items())
    return EntrantBuildError(f"tournament: {len(excluded)} entrants cannot be built: {reasons}", dict(excluded))


def play_games(
    execution: Execution,
    config: GameConfig,
    pending: Sequence[GameTask] | Pending,
    commit: OnResults,
    started: Callable[[], None],
) -> None:
    """Play ``pending`` on the execution's backend, committing finished games as they arrive."""
    backend, workers = execution.backend, execution.workers
    if backend == "serial":
        run_serial(config, pending, commit, on_start=started, start_method=execution.start_method)
    elif backend == "inline":
        run_inline(config, pending, commit, on_start=started)
    elif backend == "processes":
        run_processes(
            config,
            pending,
            commit,
            workers=workers or 2,
            chunk_size=execution.chunk_size,
            on_start=started,
            start_method=execution.start_method,
        )
    else:
        from arena.runtime.ray_backend import run_ray

        run_ray(
            config,
            pending,
            commit,
            workers=workers,
            address=execution.address,
            chunk_size=execution.chunk_size,
            on_start=started,
            start_method=execution.start_method,
        )


class TournamentSession:
    """The results file, the schedule so far and the clock of one tournament run.

    Use it as a context manager (the results file is closed at the end). Without ``db`` the
    games still go to a temporary file, so memory does not grow with the number of games.

    Args:
        rules: what is played.
        execution: where it is played.
        field: who could be built (:func:`survey`).
        rule: the stopping rule (decides the first round and the game total shown).
        db: the results file (``None``: a temporary one, shown as ``":memory:"``).
        progress: called as ``progress(done, total)`` when the backend has started and after
            each commit.
        monitor: called with the standings at most once a second while a round plays.

    Raises:
        TournamentError: too few entrants could be built for the schedule.
        TournamentMismatchError: ``db`` holds a tournament with other rules.
    """

    def __init__(
        self,
        rules: TournamentRules,
        execution: Execution,
        field: Field,
        rule: StoppingRule,
        db: str | Path | None = None,
        *,
        progress: Progress | None = None,
        monitor: Monitor | None = None,
    ) -> None:
        self.rules, self.execution, self.field, self.rule = rules, execution, field, rule
        self.progress, self.monitor = progress, monitor
        self.lineups, self.schedule = self._schedule()
        self.counts = {lineup.key: count for lineup, count in zip(self.schedule.lineups, self.schedule.counts)}
        self.scheduled = len(self.schedule)  # games in the schedule, adaptive additions included
        self.total = rule.budget if rule.adaptive else self.scheduled
        self.played, self.seconds, self.startup = 0, 0.0, 0.0
        self.config = GameConfig(
            rules.env,
            tuple(s for s in rules.entrants if s.name in field.playing),
            rules.move_time_limit,
            rules.max_steps,
        )
        self._scratch = None
        if db is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="arena-tournament-")
            db_path: str | Path = Path(self._scratch.name) / "results.sqlite"
        else:
            db_path = db
        self.store = ResultStore(db_path)
        self.db = ":memory:" if self._scratch is not None else self.store.path
        self._last_shown = time.perf_counter()
        try:
            self.store.bind(rules.stored(), list(rules.entrants))
            for name in rules.names:
                self.store.mark_excluded(name, field.excluded.get(name))
            self.stored = self.store.count_within(self.counts)
        except BaseException:
            self.store.close()
            raise

    def _schedule(self) -> tuple[list[Lineup], Any]:
        rules, field = self.rules, self.field
        try:
            return make_schedule(
                list(field.playing),
                field.seats,
                mode=rules.mode,
                games=self.rule.first_games(rules.games),
                seed=rules.seed,
                seatings=rules.seatings,
                duplicate=rules.duplicate,
                fill=field.teams is None,
            )
        except ValueError as err:
            if not field.excluded:
                raise
            reasons = "; ".join(f"{name}: {why}" for name, why in field.excluded.items())
            raise TournamentError(f"{err}, after excluding the entrants that could not be built ({reasons})") from None

    def __enter__(self) -> TournamentSession:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.store.close()

    def extend(self, lineup: Lineup, games: int) -> list[GameTask]:
        """The next ``games`` games of ``lineup``, added to the schedule (an adaptive round)."""
        start = self.counts[lineup.key]
        tasks = lineup_tasks(lineup, self.rules.seed, start, start + games, self.rules.duplicate)
        self.counts[lineup.key] += len(tasks)
        self.scheduled += len(tasks)
        return tasks

    def play(self, tasks: Sequence[GameTask]) -> None:
        """Play the games of ``tasks`` that are not stored yet (a resumed run skips the others)."""
        store = self.store
        if tasks is self.schedule:  # the whole schedule: its unstored games, picked out as played
            pending: Any = Pending(
                tasks, lambda task: store.is_stored(task.lineup, task.index), len(tasks) - self.stored
            )
        else:
            pending = [task for task in tasks if not store.is_stored(task.lineup, task.index)]
        first = self.played == 0 and self.startup == 0.0
        start = time.perf_counter()

        def started() -> None:
            if first:
                self.startup = time.perf_counter() - start
            self._report_progress()

        play_games(self.execution, self.config, pending, self._commit, started)
        self.seconds += time.perf_counter() - start
        self.played += len(pending)

    def _commit(self, rows: list[tuple[Any, ...]]) -> None:
        try:
            self.stored += self.store.add_rows(rows)
        except ResultsFileError as err:  # a full disk: what was committed stays, and a rerun resumes from it
            then = (
                "run the same command again to resume"
                if self._scratch is None
                else "give --db a file on a disk with room to keep the games"
            )
            raise ResultsFileError(f"{err} ({self.stored} games stored); {then}") from None
        self._report_progress()
        if self.monitor is not None and time.perf_counter() - self._last_shown > 1.0:
            self.monitor(self.result())  # the live leaderboard, at most once a second
            self._last_shown = time.perf_counter()

    def _report_progress(self) -> None:
        if self.progress is not None:
            self.progress(self.stored, max(self.total, self.stored))

    def result(self) -> TournamentResult:
        """The standings from every stored game of the schedule so far, as the rule sees them."""
        result = TournamentResult(
            env=self.rules.env,
            entrants=list(self.field.playing),
            excluded=self.field.excluded,
            lineups=self.lineups,
            games=StoredGames(self.store.path, dict(self.counts), keep=self._scratch),
            scheduled=self.scheduled,
            played=self.played,
            seconds=self.seconds,
            startup=self.startup,
            db=self.db,
            rules=self.rules.stored(),
            specs={spec.name: spec for spec in self.rules.entrants},
            duplicate=self.rules.duplicate,
            anchor=self.rules.anchor,
            teams=self.field.teams,
            result_kind=self.field.result_kind,
        )
        self.rule.observe(result)
        return result
