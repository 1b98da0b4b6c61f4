"""The entry point: :func:`run_tournament`, and the :class:`TournamentResult` it returns.

A tournament is three parts with names: the rules (:class:`~arena.tournament.rules.TournamentRules`:
what is played) and the execution (:class:`~arena.tournament.rules.Execution`: where), a session
(:class:`~arena.tournament.session.TournamentSession`: the results file and the rounds played)
and a stopping rule (:mod:`arena.tournament.stopping`: a fixed schedule, an SPRT match, or play
until separated).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.tournament.result import TournamentResult
from arena.tournament.rules import DEFAULT_BUDGET, Execution, TournamentRules
from arena.tournament.session import TournamentSession, survey
from arena.tournament.stopping import StoppingRule, stopping_rule

__all__ = ["run_tournament", "TournamentResult"]

Progress = Callable[[int, int], None]


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
    exclude_unbuildable: bool = False,
) -> TournamentResult:
    """Play a tournament between entrants built by name, store every game, and summarise.

    Each lineup plays ``games`` games (rounded up so every entrant sits in every seat equally often);
    game ``i`` of a lineup has a seed derived from ``seed``, the lineup and ``i``, so the results do not
    depend on ``workers`` or ``backend`` (workers import the main module again: in a script, call this
    under ``if __name__ == "__main__":``). With ``db`` each game is committed to an SQLite file as it ends,
    and the same call again plays only the missing games. An entrant that raises, returns an invalid or
    illegal action, or runs past ``move_time_limit`` forfeits that game (the reason is stored); one that
    cannot be built stops the tournament before any game is played.

    Args:
        env: an env name, ``"package.module:callable"`` or an env factory; ``env_kwargs`` are its keyword arguments.
        agents: a list of specs (``"random"``, ``'name=package.module:factory{"k": 1}'``, a trained folder,
            :class:`AgentSpec`, importable factories), a dict ``{name: spec}`` or an ``--agents`` string.
            Seats are filled as docs/architecture.md ("Filling seats") says: an entrant plays a whole side
            (a team ``"duo=a+b"`` member by member), each seat its own agent; fewer entrants take turns.
        mode: ``"round-robin"``, ``"head-to-head"`` (one seat each) or ``"gauntlet"`` (the first against the rest).
        games: games per lineup; it and the next six are the rules (:class:`~arena.tournament.rules.TournamentRules`).
        seed: the tournament seed.
        seatings: ``"auto"``, ``"all"`` or ``"rotations"``.
        duplicate: games come in sets that share a chance seed and rotate the seats.
        move_time_limit: seconds per move (``None``: no limit).
        max_steps: env steps before a game is cut (``None``: no limit).
        anchor: ``(entrant, rating)`` for the batch Elo fit.
        db: the SQLite results file (``None``: a temporary one, nothing is kept).
        workers: worker processes or Ray actors; it and the next four are :class:`~arena.tournament.rules.Execution`.
        backend: ``"serial"``, ``"inline"``, ``"processes"`` or ``"ray"``.
        address: the Ray cluster to join.
        chunk_size: games per task sent to a worker (``None``: balanced automatically).
        start_method: how local workers start (``"forkserver"``, ``"spawn"`` or ``"fork"``).
        progress: called as ``progress(done, scheduled)`` when the backend starts and after each commit
            (an adaptive run counts its budget as scheduled).
        sprt: ``(elo0, elo1)``: a two-entrant match that stops when the sequential test decides
            (error rates ``alpha``, ``beta``); ``until_separated``: play on until the pairs are
            separated; both stop at ``budget`` games (default 1000). See :mod:`arena.tournament.stopping`.
        monitor: called with the result so far after each adaptive round, at most once a second while
            games are committed, and at the end.
        exclude_unbuildable: play without the entrants that cannot be built (``result.excluded``).

    Returns:
        TournamentResult: games, pairings (W/D/L, score rate with 95% interval, mean return), ratings.

    Raises:
        EntrantBuildError: an entrant could not be built: an unknown name, an option it does not take.
        TournamentError: too few entrants could be built, or a worker died.
        TournamentMismatchError: ``db`` holds a tournament with other rules.
        ValueError: an option out of range (the message names it); ``sprt`` with other than two
            entrants in a two-seat env, or with ``until_separated``; ``sprt`` or ``until_separated``
            on an env whose result is the return (``result_kind == "return"``: poker).

    Example:
        >>> result = run_tournament("tic_tac_toe", ["random", 'other=random{"seed": 1}'], games=4)
        >>> result.scheduled, sorted(result.pairings)
        (4, [('other', 'random'), ('random', 'other')])
    """
    rules = TournamentRules.make(
        env,
        agents,
        env_kwargs=env_kwargs,
        mode=mode,
        games=games,
        seed=seed,
        seatings=seatings,
        duplicate=duplicate,
        move_time_limit=move_time_limit,
        max_steps=max_steps,
        anchor=anchor,
    )
    execution = Execution.make(
        backend,
        workers,
        move_time_limit=move_time_limit,
        address=address,
        chunk_size=chunk_size,
        start_method=start_method,
    )
    rule = stopping_rule(
        sprt=sprt,
        alpha=alpha,
        beta=beta,
        until_separated=until_separated,
        budget=_budget(budget),
        duplicate=duplicate,
        parallel=execution.parallel,
        challenger=rules.names[0] if mode == "gauntlet" and rules.names else None,
    )
    field = survey(rules, exclude_unbuildable=exclude_unbuildable)
    if field.result_kind == "return" and (sprt is not None or until_separated):
        _refuse_adaptive_on_returns(rules, "--sprt" if sprt is not None else "--until-separated")
    rule.check(field.playing, field.seats)
    with TournamentSession(rules, execution, field, rule, db, progress=progress, monitor=monitor) as session:
        return _play_until_stopped(session, rule, monitor)


def _refuse_adaptive_on_returns(rules: TournamentRules, option: str) -> None:
    raise ValueError(
        f"tournament: {option} judges who wins games (Elo, score rates), but the result of "
        f"{rules.env.factory!r} is the return (its result_kind is 'return': players compare by mean return "
        "per game); play a fixed number of --games and read the mean return's interval"
    )


def _play_until_stopped(
    session: TournamentSession, rule: StoppingRule, monitor: Callable[[TournamentResult], None] | None
) -> TournamentResult:
    """The schedule, then what the stopping rule asks for after each round; ``monitor`` sees each round."""
    session.play(session.schedule)
    result = session.result()
    while extra := rule.more(result, session):
        if monitor is not None:
            monitor(result)
        session.play(extra)
        result = session.result()
    result = rule.final(result)
    if monitor is not None:
        monitor(result)
    return result


def _budget(budget: int | None) -> int:
    """The most games an adaptive run may play: ``budget``, checked, or the default."""
    if budget is not None and (not isinstance(budget, int) or isinstance(budget, bool) or budget < 1):
        raise ValueError(f"tournament: budget must be a positive number of games, got {budget!r}")
    return budget or DEFAULT_BUDGET
