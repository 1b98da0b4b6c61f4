"""Reports after the fact: pool stored tournaments and analyse them without playing a game.

:func:`load_results` reads one or more results files of tournaments on the same env into one
:class:`~arena.tournament.TournamentResult`; :func:`analyse` turns it into plain data
(standings, pairwise table, batch Elo with intervals, openskill, Nash averaging, alpha-rank)
that ``arena report`` prints, writes as JSON, renders as HTML
(:mod:`arena.tournament.html_report`) and draws (:func:`arena.tournament.report.save_evaluation_png`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.errors import ReportError
from arena.specs.agents import AgentSpec, EnvSpec
from arena.tournament.store import ResultStore
from arena.tournament.tournament import TournamentResult

__all__ = ["load_results", "analyse"]


def load_results(paths: Sequence[str | Path], anchor: tuple[str, float] | None = None) -> TournamentResult:
    """Every stored game of ``paths`` (tournaments on one env) as one result.

    Entrants of the same name must be the same program in every file. Games keep their
    lineup and seed, so duplicate sets stay together.

    Raises:
        ReportError: no paths, a missing file, files of different envs, or one name for two programs.
    """
    if not paths:
        raise ReportError("arena report: give at least one results file (a tournament's --db)")
    env: EnvSpec | None = None
    specs: dict[str, AgentSpec] = {}
    excluded: dict[str, str] = {}
    games = []
    duplicate = True
    first_path = None
    for path in paths:
        if not Path(path).is_file():
            raise ReportError(f"arena report: no results file at {str(path)!r}")
        with ResultStore(path) as store:
            rules = store.rules()
            if not rules:
                raise ReportError(f"arena report: {str(path)!r} holds no tournament (no rules stored)")
            this_env = EnvSpec(rules["env"], rules.get("env_kwargs") or {})
            if env is None:
                env, first_path = this_env, path
            elif this_env != env:
                raise ReportError(
                    f"arena report: {str(path)!r} holds games of {this_env.factory} {this_env.kwargs}, "
                    f"{str(first_path)!r} of {env.factory} {env.kwargs}; pool only tournaments on the same env")
            duplicate = duplicate and rules.get("duplicate", True) is not False
            for entry in store.entrants():
                spec = AgentSpec(entry["name"], entry["factory"], entry["kwargs"])
                known = specs.get(spec.name)
                if known is not None and known != spec:
                    raise ReportError(f"arena report: entrant {spec.name!r} is {known.describe()} in one file and "
                                      f"{spec.describe()} in {str(path)!r}; one name must be one program")
                specs[spec.name] = spec
                if entry["excluded"]:
                    excluded[spec.name] = entry["excluded"]
            games += store.results()
    played = {name for game in games for name in (game.ranks or {})} | {name for game in games for name in game.seats.values()}
    entrants = [name for name in specs if name in played]
    if anchor is not None and anchor[0] not in entrants:
        raise ReportError(f"arena report: the anchor {anchor[0]!r} played no stored game; entrants: {entrants}")
    games.sort(key=lambda game: (game.index, game.lineup))
    db = ", ".join(str(path) for path in paths)
    leftover = {name: why for name, why in excluded.items() if name not in entrants}
    return TournamentResult(env, entrants, leftover, [], games,  # type: ignore[arg-type]  (paths is not empty)
                            len(games), 0, 0.0, 0.0, db, {}, specs, duplicate, anchor=anchor)


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
    nash = nash_average(matrix) if names else None
    ranks = alpha_rank(matrix, alpha=alpha).pi if len(names) >= 2 else [1.0] * len(names)
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
        standings.append({
            "name": name, "elo": fit.ratings[name], "elo_low": _clean(low), "elo_high": _clean(high),
            "games": count, "wins": wins, "draws": draws, "losses": losses,
            "score": (wins + draws / 2) / count if count else None,
            "mu": skill.mu if skill else None, "sigma": skill.sigma if skill else None,
            "nash_weight": float(nash.weights[i]), "nash_score": float(nash.scores[i]), "alpha_rank": float(ranks[i]),
            "factory": result.specs[name].describe() if name in result.specs else None,
        })
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
