"""Reports after the fact: pool stored tournaments and analyse them without playing a game.

:func:`load_results` reads one or more results files of tournaments on the same env into one
:class:`~arena.tournament.TournamentResult`; :func:`analyse` turns it into plain data
(standings, pairwise table, batch Elo with intervals, openskill, Nash averaging, alpha-rank)
that ``arena report`` prints, writes as JSON, renders as HTML
(:mod:`arena.tournament.html_report`) and draws (:func:`arena.tournament.report.save_evaluation_png`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import ReportError
from arena.specs.agents import AgentSpec, EnvSpec
from arena.tournament.reading import open_results, read_entrants, read_env, read_games, read_rules
from arena.tournament.result import TournamentResult
from arena.tournament.store import ResultsFileError

__all__ = ["load_results", "analyse"]


def load_results(
    paths: Sequence[str | Path],
    anchor: tuple[str, float] | None = None,
    origins: dict[int, tuple[str, int]] | None = None,
) -> TournamentResult:
    """Every stored game of ``paths`` (tournaments on one env) as one result.

    Entrants of the same name must be the same program in every file. Games keep their
    lineup and seed, so duplicate sets stay together. The files are only read (see
    :mod:`arena.tournament.reading`); a file given twice (``a.db a.db``, ``a.db sub/../a.db``,
    a link to it) counts once.

    Args:
        paths: the results files.
        anchor: an entrant and its fixed Elo.
        origins: a dict to fill with ``id(game) -> (file, game number)`` for each game of the
            result, so a row can link to the game's own replay page.

    Raises:
        ReportError: no paths, files of different envs, or one name for two programs.
        ResultsFileError: a file that is missing, not arena's, of an unknown schema, or damaged.
    """
    if not paths:
        raise ReportError("arena report: give at least one results file (a tournament's --db)")
    env: EnvSpec | None = None
    specs: dict[str, AgentSpec] = {}
    excluded: dict[str, str] = {}
    games = []
    duplicate = True
    first_path = None
    for path in _distinct(paths):
        try:
            db = open_results(path, "arena report")
        except ResultsFileError as err:
            raise ReportError(str(err)) from None
        try:
            rules = read_rules(db, str(path), "arena report")
            this_env = read_env(db, str(path), "arena report")
            if this_env is None:
                raise ReportError(f"arena report: {str(path)!r} holds no tournament (no rules stored)")
            if env is None:
                env, first_path = this_env, path
            elif this_env != env:
                raise ReportError(
                    f"arena report: {str(path)!r} holds games of {this_env.factory} {this_env.kwargs}, "
                    f"{str(first_path)!r} of {env.factory} {env.kwargs}; pool only tournaments on the same env"
                )
            duplicate = duplicate and rules.get("duplicate", True) is not False
            for spec, why in read_entrants(db, str(path), "arena report"):
                known = specs.get(spec.name)
                if known is not None and known != spec:
                    raise ReportError(
                        f"arena report: entrant {spec.name!r} is {known.label()} in one file and "
                        f"{spec.label()} in {str(path)!r}; one name must be one program"
                    )
                specs[spec.name] = spec
                if why:
                    excluded[spec.name] = why
            for number, _, game in read_games(db, str(path), "arena report", with_actions=False):
                games.append(game)
                if origins is not None:
                    origins[id(game)] = (str(path), number)
        except ResultsFileError as err:
            raise ReportError(str(err)) from None
        finally:
            db.close()
    played = {name for game in games for name in (game.ranks or {})} | {
        name for game in games for name in game.seats.values()
    }
    entrants = [name for name in specs if name in played]
    if not entrants:  # nothing to rate: say so, rather than fit ratings to no data
        files = _distinct(paths)
        names = ", ".join(repr(str(path)) for path in files)
        if games:
            raise ReportError(
                f"arena report: the games in {names} name no entrant of the entrants table; nothing to report"
            )
        why = "".join(f"; {name} was excluded: {reason}" for name, reason in excluded.items())
        raise ReportError(
            f"arena report: {names} {'holds' if len(files) == 1 else 'hold'} no finished games yet{why}; "
            "nothing to report"
        )
    if anchor is not None and anchor[0] not in entrants:
        raise ReportError(f"arena report: the anchor {anchor[0]!r} played no stored game; entrants: {entrants}")
    games.sort(key=lambda game: (game.index, game.lineup))
    db_names = ", ".join(str(path) for path in _distinct(paths))
    leftover = {name: why for name, why in excluded.items() if name not in entrants}
    if env is None:  # pragma: no cover - paths is not empty, and each file names its env
        raise ReportError("arena report: no results file named an env")
    return TournamentResult(
        env=env,
        entrants=entrants,
        excluded=leftover,
        lineups=[],
        games=games,
        scheduled=len(games),
        played=0,  # a report plays nothing: every game is read from the files
        seconds=0.0,
        startup=0.0,
        db=db_names,
        rules={},
        specs=specs,
        duplicate=duplicate,
        anchor=anchor,
    )


def _distinct(paths: Sequence[str | Path]) -> list[str | Path]:
    """``paths`` without repeats of one file (by its real path: ``a.db``, ``./a.db``, a link to it)."""
    seen: set[str] = set()
    kept = []
    for path in paths:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            kept.append(path)
    return kept


def _clean(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def analyse(result: TournamentResult, *, bootstrap: int = 200, seed: int = 0, alpha: float = 10.0) -> dict[str, Any]:
    """Everything a report shows, as plain JSON-able data.

    Keys: ``env``, ``entrants``, ``games`` (count), ``standings`` (batch Elo order with
    intervals, score, W/D/L, openskill mu/sigma, Nash weight, alpha-rank mass), ``pairwise``
    (row against column), ``nash`` and ``alpha_rank`` (per entrant), ``unmet`` (pairs that never
    met, counted as even in the meta-game).
    """
    from arena.evaluation.metagame import alpha_rank, nash_average, payoff_matrix

    names = result.entrants
    fit = result.elo(bootstrap=bootstrap, seed=seed)
    try:
        openskill = result.ratings
    except ImportError:
        openskill = {}
    table = result.score_table()
    unmet = [(a, b) for i, a in enumerate(names) for j, b in enumerate(names) if i < j and math.isnan(table[i][j])]
    matrix = payoff_matrix(table) if names else None
    nash = nash_average(matrix) if matrix is not None else None
    weights: Any = nash.weights if nash is not None else []
    scores: Any = nash.scores if nash is not None else []
    ranks = alpha_rank(matrix, alpha=alpha).pi if matrix is not None and len(names) >= 2 else [1.0] * len(names)
    standings = []
    for name in fit.order():
        i = names.index(name)
        wins = draws = losses = 0
        for other in names:
            stats = result.pairings.get((name, other))
            if stats is not None:
                wins, draws, losses = wins + stats.wins, draws + stats.draws, losses + stats.losses
        count = wins + draws + losses
        low, high = fit.intervals.get(name, (math.nan, math.nan))
        skill = openskill.get(name)
        standings.append(
            {
                "name": name,
                "elo": fit.ratings[name],
                "elo_low": _clean(low),
                "elo_high": _clean(high),
                "games": count,
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": (wins + draws / 2) / count if count else None,
                "mu": skill.mu if skill else None,
                "sigma": skill.sigma if skill else None,
                "nash_weight": float(weights[i]),
                "nash_score": float(scores[i]),
                "alpha_rank": float(ranks[i]),
                "factory": result.specs[name].describe() if name in result.specs else None,
                "label": result.specs[name].label() if name in result.specs else name,
            }
        )
    pairwise = [stats.as_dict() for (a, b), stats in result.pairings.items() if a != b]
    return {
        "env": {"factory": result.env.factory, "kwargs": result.env.kwargs},
        "sources": result.db,
        "entrants": list(names),
        "excluded": result.excluded,
        "games": len(result.games),
        "duplicate": result.duplicate,
        "anchor": list(fit.anchor) if fit.anchor else None,
        "bootstrap": bootstrap,
        "standings": standings,
        "pairwise": pairwise,
        "score_table": [[_clean(x) for x in row] for row in table],
        "unmet": [list(pair) for pair in unmet],
    }
