"""The entry point: :func:`run_tournament` and the :class:`TournamentResult` it returns."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from arena.tournament.game import GameConfig, GameResult
from arena.tournament.ratings import Rating, rate_games
from arena.tournament.runner import BACKENDS, TournamentError, run_processes, run_serial
from arena.tournament.schedule import Lineup, make_schedule
from arena.tournament.spec import AgentSpec, EnvSpec, agent_version, entrant_specs
from arena.tournament.stats import PairingStats, pairing_stats
from arena.tournament.store import ResultStore, write_csv, write_json

__all__ = ["run_tournament", "TournamentResult"]

Progress = Callable[[int, int], None]


@dataclass
class TournamentResult:
    """What a tournament found, from every stored game of its schedule (earlier runs included).

    Attributes:
        env: the env spec.
        entrants: the entrants that played, in the order given.
        excluded: entrant -> why it could not be built (it played no game).
        lineups: the lineups of the schedule.
        games: every scheduled game stored so far, in rating order.
        scheduled: how many games the schedule has.
        played: how many of them this run played (the rest were resumed from the file).
        seconds: the wall-clock time this run spent playing, backend start included.
        startup: the part of ``seconds`` spent starting the backend (worker processes, Ray).
        db: the results file (``":memory:"`` when none was given).
        rules: what the results file checks on resume (env, seed, seatings, limits).
        specs: entrant name -> :class:`AgentSpec`, excluded ones included.
    """

    env: EnvSpec
    entrants: list[str]
    excluded: dict[str, str]
    lineups: list[Lineup] = field(repr=False)
    games: list[GameResult] = field(repr=False)
    scheduled: int
    played: int
    seconds: float
    startup: float
    db: str
    rules: dict[str, Any] = field(default_factory=dict)
    specs: dict[str, AgentSpec] = field(default_factory=dict, repr=False)

    @cached_property
    def pairings(self) -> dict[tuple[str, str], PairingStats]:
        """``(a, b)`` -> how ``a`` fared against ``b`` (both orders present)."""
        return pairing_stats(self.games, self.entrants)

    @cached_property
    def ratings(self) -> dict[str, Rating]:
        """Entrant -> openskill rating (needs the ``tournament`` extra)."""
        return rate_games(self.games, self.entrants)

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
                {"name": name, "factory": spec.factory, "kwargs": spec.kwargs, "excluded": self.excluded.get(name)}
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
        mode: ``"round-robin"`` (every lineup), ``"head-to-head"`` (exactly one seat per entrant)
            or ``"gauntlet"`` (the first entrant against all lineups of the others).
        games: games per lineup.
        seed: the tournament seed.
        db: the SQLite results file (``None``: in memory, nothing is kept).
        workers: local worker processes (default 1; 2 when only ``backend="processes"`` is
            given), or Ray actors with ``backend="ray"`` (default: one per CPU of the cluster).
            Workers are forked; when this process already runs threads they start from a
            fork server instead, which imports the main module again: in a script, call
            ``run_tournament`` under ``if __name__ == "__main__":``.
        backend: ``"serial"``, ``"processes"`` or ``"ray"`` (default: serial for one worker,
            processes otherwise).
        address: the Ray cluster to join (``backend="ray"``; default: start a local one).
        move_time_limit: seconds allowed per move (``None``: no limit).
        max_steps: cut games after this many env steps (``None``: no limit).
        seatings: ``"auto"``, ``"all"`` or ``"rotations"`` (see :func:`~arena.tournament.schedule.seatings_for`).
        env_kwargs: keyword arguments for the env factory.
        chunk_size: games per task sent to a worker (default: balanced automatically).
        progress: called as ``progress(games_done, games_scheduled)`` once the backend has
            started (after worker processes fork) and after each commit.

    Returns:
        TournamentResult: games, pairings (W/D/L, score rate with 95% interval, mean return)
        and ratings.

    Raises:
        TournamentError: too few entrants could be built, or a worker died.
        TournamentMismatchError: ``db`` holds a tournament with other rules.

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
    if backend == "serial" and workers not in (None, 1):
        raise ValueError(f"tournament: the serial backend plays in this process; workers={workers} needs "
                         "backend='processes' or 'ray'")
    if move_time_limit is not None and not move_time_limit > 0:
        raise ValueError(f"tournament: move_time_limit must be a positive number of seconds, got {move_time_limit!r}")
    seats, excluded = _build_once(env_spec, specs)
    entrants = [spec.name for spec in specs if spec.name not in excluded]
    if mode == "gauntlet" and specs and specs[0].name in excluded:
        raise TournamentError(f"tournament: the gauntlet's challenger {specs[0].name!r} could not be built: {excluded[specs[0].name]}")
    try:
        lineups, tasks = make_schedule(entrants, seats, mode=mode, games=games, seed=seed, seatings=seatings)
    except ValueError as err:
        if not excluded:
            raise
        reasons = "; ".join(f"{name}: {why}" for name, why in excluded.items())
        raise TournamentError(f"{err}, after excluding the entrants that could not be built ({reasons})") from None
    rules = {"env": env_spec.factory, "env_kwargs": env_spec.kwargs, "seed": seed, "seatings": seatings,
             "max_steps": max_steps, "move_time_limit": move_time_limit}
    store = ResultStore(":memory:" if db is None else db)
    try:
        store.bind(rules, specs)
        for spec in specs:
            store.mark_excluded(spec.name, excluded.get(spec.name))
        done = store.done()
        pending = [task for task in tasks if (task.lineup, task.index) not in done]
        stored_count, startup = len(tasks) - len(pending), 0.0

        def commit(rows: list[tuple[Any, ...]]) -> None:
            nonlocal stored_count
            stored_count += store.add_rows(rows)
            if progress is not None:
                progress(stored_count, len(tasks))

        def started() -> None:
            nonlocal startup
            startup = time.perf_counter() - start
            if progress is not None:
                progress(stored_count, len(tasks))

        config = GameConfig(env_spec, tuple(s for s in specs if s.name in entrants), move_time_limit, max_steps)
        start = time.perf_counter()
        if backend == "serial":
            run_serial(config, pending, commit, on_start=started)
        elif backend == "processes":
            run_processes(config, pending, commit, workers=workers or 2, chunk_size=chunk_size, on_start=started)
        else:
            from arena.tournament.ray_backend import run_ray

            run_ray(config, pending, commit, workers=workers, address=address, chunk_size=chunk_size,
                    on_start=started)
        seconds = time.perf_counter() - start
        keys = {(task.lineup, task.index) for task in tasks}
        stored = [game for game in store.results() if (game.lineup, game.index) in keys]
    finally:
        store.close()
    return TournamentResult(env_spec, entrants, excluded, lineups, stored, len(tasks), len(pending), seconds,
                            startup, store.path, rules, {spec.name: spec for spec in specs})


def _build_once(env_spec: EnvSpec, specs: list[AgentSpec]) -> tuple[int, dict[str, str]]:
    """Build the env and every entrant once: the number of seats, and entrant -> why it failed to build."""
    probe = env_spec.build()
    excluded = {}
    try:
        for spec in specs:
            try:
                agent_version(spec.build(probe))  # also caches the package lookups forked workers inherit
            except Exception as err:  # any failure to build excludes the entrant, once, with its reason
                excluded[spec.name] = f"{type(err).__name__}: {err}"
        return len(probe.possible_agents), excluded
    finally:
        probe.close()
