"""The entry point: :func:`run_tournament`, and the :class:`TournamentResult` it returns.

A tournament is three parts with names: the rules (:class:`~arena.tournament.rules.TournamentRules`:
what is played) and the execution (:class:`~arena.tournament.rules.Execution`: where), a session
(:class:`~arena.tournament.session.TournamentSession`: the results file and the rounds played)
and a stopping rule (:mod:`arena.tournament.stopping`: a fixed schedule, an SPRT match, or play
until separated). :func:`run_tournament` takes the common options by name and the rest as
those parts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.errors import InvalidTypeError, InvalidValueError
from arena.tournament.result import TournamentResult
from arena.tournament.rules import Execution, TournamentRules, check_fits
from arena.tournament.session import TournamentSession, survey
from arena.tournament.stopping import Stopping, StoppingRule

__all__ = ["run_tournament", "TournamentResult"]

Progress = Callable[[int, int], None]


def run_tournament(
    env: Any = None,
    agents: Sequence[Any] | Mapping[str, Any] | str | None = None,
    *,
    games: int | None = None,
    seed: int | None = None,
    mode: str | None = None,
    db: str | Path | None = None,
    workers: int | None = None,
    rules: TournamentRules | None = None,
    execution: Execution | None = None,
    stopping: Stopping | None = None,
    progress: Progress | None = None,
    monitor: Callable[[TournamentResult], None] | None = None,
) -> TournamentResult:
    """Play a tournament between entrants built by name, store every game, and summarise.

    Each lineup plays ``games`` games (rounded up so every entrant sits in every seat equally
    often); game ``i`` of a lineup has a seed derived from ``seed``, the lineup and ``i``, so the
    results do not depend on ``workers`` or the backend. With ``db`` each game is committed to an
    SQLite file as it ends, and the same call again plays only the missing games. An entrant that
    raises, returns an invalid or illegal action, or runs past the move time limit forfeits that
    game (the reason is stored); one that cannot be built stops the tournament before any game is played.

    The common case names its options here; the rest are the three parts a tournament is made of:
    ``rules=TournamentRules.make(env, agents, games=..., move_time_limit=..., env_kwargs=...)``
    (instead of ``env``, ``agents``, ``games``, ``seed`` and ``mode``), ``execution=Execution.make(
    backend, workers, ...)`` (instead of ``workers``) and ``stopping=Stopping(sprt=...)``.

    Args:
        env: an env name, ``"package.module:callable"``, an env factory or an
            :class:`~arena.specs.envs.EnvSpec` (a name with its keyword arguments).
        agents: a list of specs (``"random"``, ``'name=package.module:factory{"k": 1}'``, a trained
            folder, :class:`AgentSpec`, importable factories), a dict ``{name: spec}`` or an
            ``--agents`` string. Seats are filled as docs/architecture.md ("Filling seats") says:
            in a team game an entrant plays a side (a plain spec in every seat of it, each seat its
            own agent; a team ``"duo=a+b"`` member by member); with fewer entrants than seats, the
            entrants take turns around the table, each seat its own agent.
        games: games per lineup (default 20).
        seed: the tournament seed (default 0).
        mode: ``"round-robin"`` (default), ``"head-to-head"`` (one seat each) or ``"gauntlet"``
            (the first against the rest).
        db: the SQLite results file (``None``: a temporary one, nothing is kept).
        workers: local worker processes (default 1: one watched worker; more: that many in parallel).
            Workers start from a fork server that imports the main module again: in a script, call
            this under ``if __name__ == "__main__":``.
        rules: the :class:`~arena.tournament.rules.TournamentRules` (env, entrants, games, seed, mode,
            seatings, duplicate sets, move time limit, max steps, anchor, excluding unbuildable
            entrants), instead of ``env``, ``agents``, ``games``, ``seed`` and ``mode``.
        execution: where games run (:class:`~arena.tournament.rules.Execution`: backend, workers, Ray
            address, chunk size, start method), instead of ``workers``.
        stopping: when to stop (:class:`~arena.tournament.stopping.Stopping`: an SPRT match, or until
            the pairs are separated, within a budget); default: the fixed schedule.
        progress: called as ``progress(done, scheduled)`` when the backend starts and after each commit
            (an adaptive run counts its budget as scheduled).
        monitor: called with the result so far after each adaptive round, at most once a second while
            games are committed, and at the end.

    Returns:
        TournamentResult: games, pairings (W/D/L, score rate with 95% interval, mean return), ratings.

    Raises:
        EntrantBuildError: an entrant could not be built: an unknown name, an option it does not take.
        TournamentError: too few entrants could be built, or a worker died.
        TournamentMismatchError: ``db`` holds a tournament with other rules.
        TypeError: ``rules`` with ``env``, ``agents``, ``games``, ``seed`` or ``mode``, or
            ``execution`` with ``workers``; a part of the wrong type.
        ValueError: an option out of range (the message names it); an SPRT with other than two
            entrants in a two-seat env; an adaptive stop on an env whose result is the return
            (``result_kind == "return"``: poker).

    Example:
        >>> result = run_tournament("tic_tac_toe", ["random", 'other=random{"seed": 1}'], games=4)
        >>> result.scheduled, sorted(result.pairings)
        (4, [('other', 'random'), ('random', 'other')])
        >>> rules = TournamentRules.make("tic_tac_toe", ["random", 'other=random{"seed": 1}'], games=4)
        >>> run_tournament(rules=rules, execution=Execution("inline")).scheduled
        4
    """
    rules = _rules(rules, env, agents, games=games, seed=seed, mode=mode)
    execution = _execution(execution, workers)
    stopping = _part(stopping, Stopping, "stopping") or Stopping()
    check_fits(rules, execution)
    rule = stopping.rule(rules, execution)
    field = survey(rules)
    if field.result_kind == "return" and stopping.adaptive:
        _refuse_adaptive_on_returns(rules, stopping.option)
    rule.check(field.playing, field.seats)
    with TournamentSession(rules, execution, field, rule, db, progress=progress, monitor=monitor) as session:
        return _play_until_stopped(session, rule, monitor)


def _part(value: Any, kind: type, name: str) -> Any:
    """``value`` when it is a ``kind`` or ``None``; a clear error otherwise."""
    if value is not None and not isinstance(value, kind):
        raise InvalidTypeError(
            f"tournament: {name} must be a {kind.__name__} (from arena.tournament), got {type(value).__name__}"
        )
    return value


def _rules(rules: TournamentRules | None, env: Any, agents: Any, **options: Any) -> TournamentRules:
    """The rules given, or made from the common options (defaults: 20 games, seed 0, round-robin)."""
    given = {name: value for name, value in options.items() if value is not None}
    if rules is None:
        if env is None or agents is None:
            raise InvalidTypeError("tournament: give env and agents (or rules=TournamentRules.make(env, agents, ...))")
        return TournamentRules.make(env, agents, **given)
    _part(rules, TournamentRules, "rules")
    clashes = [name for name, value in {"env": env, "agents": agents, **given}.items() if value is not None]
    if clashes:
        raise InvalidTypeError(
            f"tournament: rules= already holds {', '.join(clashes)}; give them inside "
            "TournamentRules.make(env, agents, ...) or without rules=, not both"
        )
    return rules


def _execution(execution: Execution | None, workers: int | None) -> Execution:
    """The execution given, or the default one for ``workers``."""
    if execution is None:
        return Execution.make(None, workers)
    _part(execution, Execution, "execution")
    if workers is not None:
        raise InvalidTypeError("tournament: execution= already says the workers; give Execution.make(backend, workers)")
    return execution


def _refuse_adaptive_on_returns(rules: TournamentRules, option: str) -> None:
    raise InvalidValueError(
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
