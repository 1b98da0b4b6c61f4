"""The entry point: :func:`run_tournament` and the :class:`TournamentResult` it returns."""

from __future__ import annotations

import math
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.specs.agents import AgentSpec, EnvSpec, agent_version, entrant_specs
from arena.tournament.game import GameConfig, GameResult
from arena.tournament.ratings import Rating, member_keys, rate_games, rate_members
from arena.tournament.evaluate import elo_of, games_until, make_sprt, score_table, separated_pairs, sprt_state
from arena.tournament.runner import BACKENDS, Pending, TournamentError, run_backend, start_context
from arena.tournament.schedule import GameTask, Lineup, lineup_tasks, make_schedule
from arena.tournament.stats import PairingStats, pairing_stats
from arena.tournament.store import ResultStore, StoredGames, write_csv, write_json

__all__ = ["run_tournament", "TournamentResult"]

Progress = Callable[[int, int], None]

#: The game budget of an adaptive run (``sprt`` or ``until_separated``) when none is given.
DEFAULT_BUDGET = 1000


@dataclass
class TournamentResult:
    """What a tournament found, from every stored game of its schedule (earlier runs included).

    Attributes:
        env: the env spec.
        entrants: the entrants that played, in the order given.
        excluded: entrant -> why it could not be built (it played no game).
        lineups: the lineups of the schedule.
        games: every scheduled game stored so far, in rating order (read from the results file
            on each pass, not held in memory).
        scheduled: how many games the schedule has.
        played: how many of them this run played (the rest were resumed from the file).
        seconds: the wall-clock time this run spent playing, backend start included.
        startup: the part of ``seconds`` spent starting the backend (worker processes, Ray).
        db: the results file (``":memory:"`` when none was given).
        rules: what the results file checks on resume (env, seed, seatings, limits).
        specs: entrant name -> :class:`AgentSpec`, excluded ones included.
        duplicate: the games came in duplicate sets (shared chance seed, rotated seats).
        sprt: the sequential test asked for (``None``: none).
        sprt_state: where the test stood when the run stopped (its verdict is the one at the
            first crossing of a bound).
        separation: with ``until_separated``: each adjacent pair of the final standings and
            whether its interval leaves out 1/2.
        anchor: ``(entrant, rating)`` the batch Elo fit is anchored to (``None``: mean 0).
        teams: the env's sides (``env.teams``) when it is a team game: each entrant played a
            side, and :attr:`member_ratings` rates the members; ``None`` otherwise.
    """

    env: EnvSpec
    entrants: list[str]
    excluded: dict[str, str]
    lineups: list[Lineup] = field(repr=False)
    games: Sequence[GameResult] = field(repr=False)
    scheduled: int
    played: int
    seconds: float
    startup: float
    db: str
    rules: dict[str, Any] = field(default_factory=dict)
    specs: dict[str, AgentSpec] = field(default_factory=dict, repr=False)
    duplicate: bool = True
    sprt: Any = None
    sprt_state: Any = None
    separation: list[tuple[str, str, bool]] | None = None
    anchor: tuple[str, float] | None = None
    teams: dict[str, tuple[str, ...]] | None = None

    def elo(self, bootstrap: int = 0, seed: int = 0) -> Any:
        """Elo ratings fitted to all games at once (:func:`arena.evaluation.fit_elo`), anchored as
        asked, with ``bootstrap`` resamples of game sets for 95% intervals."""
        return elo_of(self.games, self.entrants, anchor=self.anchor, bootstrap=bootstrap, seed=seed)

    def score_table(self) -> list[list[float]]:
        """``table[i][j]``: entrant ``i``'s score rate against ``j`` (NaN where they never met)."""
        return score_table(self.pairings, self.entrants)

    @cached_property
    def pairings(self) -> dict[tuple[str, str], PairingStats]:
        """``(a, b)`` -> how ``a`` fared against ``b`` (both orders present)."""
        return pairing_stats(self.games, self.entrants)

    @cached_property
    def ratings(self) -> dict[str, Rating]:
        """Entrant -> openskill rating (needs the ``tournament`` extra)."""
        return rate_games(self.games, self.entrants)

    @cached_property
    def member_ratings(self) -> dict[str, Rating]:
        """In a team game, member -> its openskill rating inside the teams it played in: each
        member's contribution, one rating across every entrant it is part of. Empty otherwise."""
        if not self.teams:
            return {}
        return rate_members(self.games, {name: self.specs[name] for name in self.entrants})

    def members_of(self, name: str) -> list[str]:
        """The members of entrant ``name`` (its own description for a plain entrant)."""
        return member_keys(self.specs[name])

    def leaderboard(self) -> list[Rating]:
        """Ratings from best to worst by the conservative ``mu - 3 sigma``."""
        return sorted(self.ratings.values(), key=lambda rating: (-rating.ordinal, rating.name))

    @property
    def forfeits(self) -> list[GameResult]:
        return [game for game in self.games if game.forfeit is not None]

    @property
    def errors(self) -> list[GameResult]:
        """Games the env itself failed (they count nowhere)."""
        return [game for game in self.games if game.outcome == "error"]

    @property
    def complete(self) -> bool:
        return len(self.games) == self.scheduled

    @property
    def games_per_second(self) -> float:
        """Games played by this run per second of play (backend start excluded)."""
        playing = self.seconds - self.startup
        return self.played / playing if playing > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """Pairings, ratings and exclusions as plain data (the JSON export's summary)."""
        return {
            "env": {"factory": self.env.factory, "kwargs": self.env.kwargs},
            "excluded": self.excluded,
            "pairings": [stats.as_dict() for (a, b), stats in self.pairings.items()
                         if self.entrants.index(a) < self.entrants.index(b)],
            "ratings": [rating.as_dict() for rating in self.leaderboard()],
            **({"teams": {team: list(ids) for team, ids in self.teams.items()},
                "member_ratings": [rating.as_dict() for rating in sorted(
                    self.member_ratings.values(), key=lambda r: (-r.ordinal, r.name))]} if self.teams else {}),
        }

    def export(self, path: str | Path) -> None:
        """Write the games to ``path``: ``.csv`` one row per game, ``.json`` games plus summary.

        Raises:
            ValueError: another suffix.
        """
        suffix = Path(path).suffix.lower()
        if suffix not in (".csv", ".json"):
            raise ValueError(f"tournament export: the file must end in .csv or .json, got {str(path)!r}")
        if suffix == ".csv":
            write_csv(path, self.games)
        else:
            write_json(path, {"rules": self.rules, "entrants": [
                {"name": name, "factory": spec.factory, "kwargs": spec.kwargs, "excluded": self.excluded.get(name),
                 **({"members": [m.describe() for m in spec.members]} if spec.members else {})}
                for name, spec in self.specs.items()], **self.summary(), "games": self.games})


def run_tournament(
    env: Any,
    agents: Sequence[Any] | Mapping[str, Any] | str,
    *,
    mode: str = "round-robin",
    games: int = 20,
    seed: int = 0,
    db: str | Path | None = None,
    workers: int | None = None,
    backend: str | None = None,
    address: str | None = None,
    move_time_limit: float | None = None,
    max_steps: int | None = None,
    seatings: str = "auto",
    env_kwargs: Mapping[str, Any] | None = None,
    chunk_size: int | None = None,
    progress: Progress | None = None,
    duplicate: bool = True,
    sprt: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    until_separated: bool = False,
    budget: int | None = None,
    anchor: tuple[str, float] | None = None,
    monitor: Callable[[TournamentResult], None] | None = None,
    start_method: str | None = None,
) -> TournamentResult:
    """Play a tournament between entrants built by name, store every game, and summarise.

    Each lineup plays ``games`` games (rounded up so every entrant sits in every seat equally
    often); game ``i`` of a lineup has a seed derived from ``seed``, the lineup and ``i``, so the
    results do not depend on ``workers`` or ``backend``. With ``db``, each game is committed to
    an SQLite file as it ends and running the same call again plays only the missing games.
    An entrant that raises, returns an invalid or illegal action, or runs past
    ``move_time_limit`` forfeits that game (the reason is stored); an entrant that cannot be
    built is excluded (see :attr:`TournamentResult.excluded`).

    Args:
        env: an env name, ``"package.module:callable"``, or an importable env factory.
        agents: the entrants: a list of specs (``"random"``, ``'name=package.module:factory{"k": 1}'``,
            :class:`AgentSpec`, importable factories) or a dict ``{name: spec}``. An agent behind
            interfaces enters through a factory that returns an :class:`arena.AgtItfWrapper`.
            In a team game (an env with ``teams``) each entrant plays a side: a plain spec in
            every seat of it, or a team entrant ``"duo=a+b"`` (members in the side's seat
            order); seatings swap the sides between games as they swap seats.
        mode: ``"round-robin"`` (every lineup), ``"head-to-head"`` (exactly one seat per entrant)
            or ``"gauntlet"`` (the first entrant against all lineups of the others).
        games: games per lineup.
        seed: the tournament seed.
        db: the SQLite results file (``None``: in memory, nothing is kept).
        workers: local worker processes (default 1; 2 when only ``backend="processes"`` is
            given), or Ray actors with ``backend="ray"`` (default: one per CPU of the cluster).
            Workers start from a fork server (see ``start_method``), which imports the main
            module again: in a script, call ``run_tournament`` under ``if __name__ == "__main__":``.
        backend: ``"serial"`` (one watched worker process), ``"inline"`` (in this process, for
            debugging), ``"processes"`` or ``"ray"`` (default: serial for one worker,
            processes otherwise).
        address: the Ray cluster to join (``backend="ray"``; default: start a local one).
        move_time_limit: seconds allowed per move (``None``: no limit).
        max_steps: cut games after this many env steps (``None``: no limit).
        seatings: ``"auto"``, ``"all"`` or ``"rotations"`` (see :func:`~arena.tournament.schedule.seatings_for`).
        env_kwargs: keyword arguments for the env factory.
        chunk_size: games per task sent to a worker (default: balanced automatically).
        progress: called as ``progress(games_done, games_scheduled)`` once the backend has
            started (after worker processes fork) and after each commit (an adaptive run
            reports its budget as the games scheduled).
        duplicate: play the games of a lineup in sets that share one chance seed and rotate
            the seats (deals, dice, boards identical across the set); ``False``: a seed per game.
        sprt: ``(elo0, elo1)``: a two-entrant match that stops as soon as the sequential test
            of ``elo0`` against ``elo1`` (the first entrant's Elo advantage) decides, with
            error rates ``alpha`` and ``beta``: pentanomial over duplicate pairs, trinomial
            with ``duplicate=False``. ``games`` is then ignored; ``budget`` caps the match.
        alpha, beta: the SPRT's error rates.
        until_separated: after ``games`` per lineup, keep adding one set to the lineups of
            every adjacent pair of the Elo standings whose score interval still holds 1/2,
            until all are separated or ``budget`` games are played.
        budget: the most games an adaptive run plays (default 1000).
        anchor: ``(entrant, rating)`` for the batch Elo fit (:meth:`TournamentResult.elo`).
        monitor: called with the result so far after each round of an adaptive run (and
            once at the end of any run): live displays read the SPRT state and standings.
        start_method: how local worker processes start: ``"forkserver"`` (default; ``"spawn"``
            where there is none), ``"spawn"`` or ``"fork"`` (fastest, but a forked child of a
            process that runs threads, such as torch's, can hang). Results do not depend on it.
            With ``move_time_limit`` the serial backend, too, plays in one worker process, so that
            a move can be ended from outside.

    Returns:
        TournamentResult: games, pairings (W/D/L, score rate with 95% interval, mean return)
        and ratings.

    Raises:
        TournamentError: too few entrants could be built, or a worker died.
        TournamentMismatchError: ``db`` holds a tournament with other rules.
        ValueError: ``sprt`` with other than two entrants in a two-seat env, or with
            ``until_separated``; an ``anchor`` that is not an entrant.

    Example:
        >>> result = run_tournament("tic_tac_toe", ["random", 'other=random{"seed": 1}'], games=4)
        >>> result.scheduled, sorted(result.pairings)
        (4, [('other', 'random'), ('random', 'other')])
    """
    env_spec = EnvSpec.coerce(env, env_kwargs)
    specs = entrant_specs(agents)
    backend = backend or ("serial" if workers in (None, 1) else "processes")
    if backend not in BACKENDS:
        raise ValueError(f"tournament: backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise ValueError(f"tournament: workers must be a positive integer, got {workers!r}")
    if backend in ("serial", "inline") and workers not in (None, 1):
        raise ValueError(f"tournament: the {backend} backend plays one game at a time; workers={workers} needs "
                         "backend='processes' or 'ray'")
    if backend == "inline" and move_time_limit is not None:
        raise ValueError("tournament: the inline backend plays in this process and cannot hold a move time limit; "
                         "use backend='serial'")
    if move_time_limit is not None and (isinstance(move_time_limit, bool) or not isinstance(move_time_limit, (int, float))
                                        or not 0 < move_time_limit < math.inf):
        raise ValueError(f"tournament: move_time_limit must be a positive finite number of seconds, got {move_time_limit!r}")
    if max_steps is not None and (not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1):
        raise ValueError(f"tournament: max_steps must be a positive integer, got {max_steps!r}")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"tournament: seed must be an integer from 0 to 2**64 - 1, got {seed!r}")
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise ValueError(f"tournament: games must be a positive integer, got {games!r}")
    test = make_sprt(sprt, alpha, beta, duplicate, until_separated)
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
        raise ValueError(f"tournament: budget must be a positive number of games, got {budget!r}")
    budget = budget or DEFAULT_BUDGET
    if anchor is not None:
        if not (isinstance(anchor, tuple) and len(anchor) == 2 and isinstance(anchor[0], str)
                and isinstance(anchor[1], (int, float)) and not isinstance(anchor[1], bool)):
            raise ValueError(f"tournament: anchor must be (entrant, rating), e.g. ('random', 0.0), got {anchor!r}")
        if anchor[0] not in [spec.name for spec in specs]:
            raise ValueError(f"tournament: the anchor {anchor[0]!r} is not an entrant; expected one of "
                             f"{[spec.name for spec in specs]}")
        anchor = (anchor[0], float(anchor[1]))
    if start_method is not None:
        start_context(start_method)  # refuses an unknown method before anything is built
    seats, excluded, teams = _build_once(env_spec, specs)
    entrants = [spec.name for spec in specs if spec.name not in excluded]
    if mode == "gauntlet" and specs and specs[0].name in excluded:
        raise TournamentError(f"tournament: the gauntlet's challenger {specs[0].name!r} could not be built: {excluded[specs[0].name]}")
    if test is not None and (len(entrants) != 2 or seats != 2):
        raise ValueError(f"tournament: --sprt tests a two-entrant match in a two-seat env; got entrants {entrants} "
                         f"in an env with {seats} seats")
    try:
        lineups, tasks = make_schedule(entrants, seats, mode=mode, games=games if test is None else 1, seed=seed,
                                       seatings=seatings, duplicate=duplicate)
    except ValueError as err:
        if not excluded:
            raise
        reasons = "; ".join(f"{name}: {why}" for name, why in excluded.items())
        raise TournamentError(f"{err}, after excluding the entrants that could not be built ({reasons})") from None
    rules = {"env": env_spec.factory, "env_kwargs": env_spec.kwargs, "seed": seed, "seatings": seatings,
             "max_steps": max_steps, "move_time_limit": move_time_limit}
    if not duplicate:  # files written before duplicate sets existed had a seed per game
        rules["duplicate"] = False
    # Without --db the games still go to a file (a temporary one): the result reads them from
    # there, so memory does not grow with the number of games.
    scratch = tempfile.TemporaryDirectory(prefix="arena-tournament-") if db is None else None
    store = ResultStore(str(Path(scratch.name) / "results.sqlite") if scratch is not None else db)
    shown_path = ":memory:" if db is None else store.path
    adaptive = test is not None or until_separated
    counts = {lineup.key: count for lineup, count in zip(tasks.lineups, tasks.counts)}
    scheduled = len(tasks)  # games in the schedule, adaptive additions included
    total = budget if adaptive else len(tasks)
    played = 0
    startup = seconds = 0.0
    try:
        store.bind(rules, specs)
        for spec in specs:
            store.mark_excluded(spec.name, excluded.get(spec.name))
        stored_count = store.count_within(counts)
        config = GameConfig(env_spec, tuple(s for s in specs if s.name in entrants), move_time_limit, max_steps)

        last_shown = [time.perf_counter()]
        sprt_so_far: list[Any] = [None]  # (units, state) checked so far: the test goes on from there

        def play_round(round_tasks: list[GameTask]) -> None:
            nonlocal stored_count, startup, seconds, played
            if round_tasks is tasks:  # the whole schedule: its unstored games, picked out as played
                pending: Any = Pending(tasks, lambda task: store.is_stored(task.lineup, task.index),
                                       len(tasks) - stored_count)
            else:
                pending = [task for task in round_tasks if not store.is_stored(task.lineup, task.index)]
            first = played == 0 and startup == 0.0

            def commit(rows: list[tuple[Any, ...]]) -> None:
                nonlocal stored_count
                stored_count += store.add_rows(rows)
                if progress is not None:
                    progress(stored_count, max(total, stored_count))
                if monitor is not None and time.perf_counter() - last_shown[0] > 1.0:
                    monitor(current())  # the live leaderboard, at most once a second
                    last_shown[0] = time.perf_counter()

            def started() -> None:
                nonlocal startup
                if first:
                    startup = time.perf_counter() - start
                if progress is not None:
                    progress(stored_count, max(total, stored_count))

            start = time.perf_counter()
            run_backend(backend, config, pending, commit, started, workers, address, chunk_size, start_method)
            seconds += time.perf_counter() - start
            played += len(pending)

        def current() -> TournamentResult:
            stored = StoredGames(store.path, counts, keep=scratch)
            result = TournamentResult(env_spec, entrants, excluded, lineups, stored, scheduled, played, seconds,
                                      startup, shown_path, rules, {spec.name: spec for spec in specs}, duplicate,
                                      test, None, None, anchor, teams)
            if test is not None:  # (mid-round, a set may still be incomplete: nothing is saved here)
                result.sprt_state, _ = sprt_state(stored, *entrants, test, sprt_so_far[0])
            return result

        play_round(tasks)
        result = current()
        by_key = {lineup.key: lineup for lineup in lineups}
        if test is not None:
            (lineup,) = lineups
            per_round = len(lineup.seatings) * max(1, workers or 1)
            while True:
                result.sprt_state, stop = sprt_state(result.games, *entrants, test, sprt_so_far[0])
                if stop is not None or scheduled >= budget:
                    break
                sprt_so_far[0] = (result.sprt_state.units, result.sprt_state)
                if monitor is not None:
                    monitor(result)
                extra = lineup_tasks(lineup, seed, counts[lineup.key],
                                     counts[lineup.key] + min(per_round, budget - scheduled), duplicate)
                counts[lineup.key] += len(extra)
                scheduled += len(extra)
                play_round(extra)
                result = current()
            if stop is not None:  # the verdict is the first crossing: later games do not count
                kept = games_until(result.games, stop, test)
                result = TournamentResult(env_spec, entrants, excluded, lineups, kept, len(kept), played, seconds,
                                          startup, shown_path, rules, result.specs, duplicate, test,
                                          result.sprt_state, None, anchor, teams)
        elif until_separated:
            while True:
                result.separation = separated_pairs(result.elo().order(), result.pairings)
                open_pairs = [(x, y) for x, y, apart in result.separation if not apart]
                if not open_pairs or scheduled >= budget:
                    break
                if monitor is not None:
                    monitor(result)
                extra = []
                for lineup in lineups:
                    k = len(lineup.seatings)
                    wanted = any(x in lineup.names and y in lineup.names for x, y in open_pairs)
                    if wanted and scheduled + len(extra) + k <= budget:
                        extra += lineup_tasks(by_key[lineup.key], seed, counts[lineup.key], counts[lineup.key] + k,
                                              duplicate)
                        counts[lineup.key] += k
                if not extra:
                    break
                scheduled += len(extra)
                play_round(extra)
                result = current()
        if monitor is not None:
            monitor(result)
    finally:
        store.close()
    return result


def _build_once(env_spec: EnvSpec, specs: list[AgentSpec]) -> tuple[int, dict[str, str], dict[str, tuple[str, ...]] | None]:
    """Build the env and every entrant once: the number of seats (sides, in a team game), and
    entrant -> why it failed to build.

    Raises:
        ValueError: a team entrant for an env without sides, or one whose member count fits
            no side (sides swap between games, so it must fit every side).
    """
    try:
        probe = env_spec.build()
    except (ArenaError, ValueError, TypeError):
        raise
    except Exception as err:  # a factory's own failure: one line naming the env, not a traceback
        raise TournamentError(f"tournament: the env {env_spec.factory!r} could not be built: "
                              f"{type(err).__name__}: {err}") from err
    excluded = {}
    try:
        sides = probe.teams
        sizes = sorted({len(ids) for ids in sides.values()}) if sides else []
        for spec in specs:
            if spec.members and not sides:
                raise ValueError(f"tournament: entrant {spec.name!r} is a team ({spec.describe()}), but {probe} has no "
                                 "sides (its teams is None); give single agents")
            for size in sizes:
                spec.side_members(size)  # a team of the wrong size is a mistake to report, not to exclude
        for spec in specs:
            try:
                if sides:
                    for size in sizes:
                        for agent in spec.build_side(size, probe):
                            agent_version(agent)
                else:
                    agent_version(spec.build(probe))  # also caches the package lookups forked workers inherit
            except Exception as err:  # any failure to build excludes the entrant, once, with its reason
                excluded[spec.name] = f"{type(err).__name__}: {err}"
        teams = {team: tuple(ids) for team, ids in sides.items()} if sides else None
        return (len(sides) if sides else len(probe.possible_agents)), excluded, teams
    finally:
        probe.close()
