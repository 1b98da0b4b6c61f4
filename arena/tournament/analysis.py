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

import numpy as np

from arena.errors import ReportError
from arena.runtime.reading import open_results, read_entrants, read_env, read_games, read_rules
from arena.runtime.store import ResultsFileError
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.tournament.result import TournamentResult

__all__ = ["load_results", "analyse", "declared_result_kind", "member_rows", "DEFAULT_BOOTSTRAP"]

#: Bootstrap resamples behind the batch Elo intervals wherever none are asked for: ``arena tournament``,
#: ``arena report``, the JSON export and the pictures use the same number, so one set of games shows one interval.
DEFAULT_BOOTSTRAP = 200


def load_results(
    paths: Sequence[str | Path],
    anchor: tuple[str, float] | None = None,
    origins: dict[int, tuple[str, int]] | None = None,
) -> TournamentResult:
    """Every stored game of ``paths`` (tournaments on one env) as one result.

    Entrants of the same name must be the same program in every file. Games keep their
    lineup and seed, so duplicate sets stay together. The files are only read (see
    :mod:`arena.runtime.reading`); a file given twice (``a.db a.db``, ``a.db sub/../a.db``,
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
        result_kind=declared_result_kind(env),
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


def _clean(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def declared_result_kind(env: EnvSpec) -> str:
    """The result kind ``env``'s factory declares, read from its class without building it
    (:func:`arena.env.factory_result_kind`); the default ``"ranks"`` when the factory cannot be
    looked up (a report reads files whose env may not be installed here)."""
    from arena.env import factory_result_kind
    from arena.registry import resolve

    try:
        factory = resolve("env", env.factory)
    except Exception:  # any failure to look it up: the file's games are still reported, by ranks
        return "ranks"
    return factory_result_kind(factory)


def analyse(
    result: TournamentResult, *, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0, alpha: float = 10.0
) -> dict[str, Any]:
    """Everything a report shows, as plain JSON-able data: one source for ``arena tournament``'s
    tables, ``arena report``'s tables, its HTML page, its picture and both JSON exports.

    Keys: ``env``, ``entrants``, ``games`` (count), ``result_kind`` and ``ranked_by`` (what a
    game's result is, and the figure the standings are ordered by: ``"elo"`` or
    ``"mean_return"``), ``interval`` (every interval is 95%), ``standings`` (one row per entrant:
    games (ranked games played), W/D/L and score (over every opponent met in them: a game of ``k``
    players is ``k - 1`` comparisons); batch Elo with its interval; mean return per game with its interval
    over duplicate sets; openskill ``mu`` with ``sigma`` and its 95% interval ``mu_low`` ..
    ``mu_high``; Nash weight; alpha-rank mass), ``pairwise`` (row against column),
    ``score_table`` (and ``return_table`` for a ``"return"`` env), ``meta_game`` (what the
    meta-game's payoff is), ``members`` (in a team game: each member's batch Elo inside the
    teams it played in) and ``unmet`` (pairs that never met, counted as even in the meta-game).

    Figures that do not apply to the env's result kind are ``None``: a ``"return"`` env (poker's
    chips) is ranked by mean return, and neither Elo nor openskill (which rate who won a game)
    is given for it.
    """
    from arena.evaluation.results import Z_95
    from arena.tournament.evaluation_inputs import return_estimate, return_table

    names = result.entrants
    kind = result.result_kind
    by_return = kind == "return"
    fit = None if by_return else result.elo(bootstrap=bootstrap, seed=seed)
    openskill: dict[str, Any] = {}
    if not by_return:
        try:
            openskill = result.ratings
        except ImportError:
            openskill = {}
    table = result.score_table()
    returns = return_table(result.games, names) if by_return else None
    meta = returns if returns is not None else table
    unmet = [(a, b) for i, a in enumerate(names) for j, b in enumerate(names) if i < j and math.isnan(meta[i][j])]
    weights, scores, ranks = _meta_game(len(names), table, returns, alpha)
    played = dict.fromkeys(names, 0)  # ranked games (a game of k players is one game, not k - 1 pairs)
    for game in result.games:
        for name in game.ranks:
            if name in played and len(game.ranks) >= 2:
                played[name] += 1
    rows = []
    for i, name in enumerate(names):
        wins = draws = losses = 0
        for other in names:
            stats = result.pairings.get((name, other))
            if stats is not None:
                wins, draws, losses = wins + stats.wins, draws + stats.draws, losses + stats.losses
        count = wins + draws + losses
        low, high = fit.intervals.get(name, (math.nan, math.nan)) if fit else (math.nan, math.nan)
        skill = openskill.get(name)
        mean = return_estimate(result.games, name)
        rows.append(
            {
                "name": name,
                "games": played[name],
                "wins": wins,
                "draws": draws,
                "losses": losses,
                "score": (wins + draws / 2) / count if count else None,
                "forfeits": sum(1 for game in result.forfeits if game.forfeit == name),
                "elo": fit.ratings[name] if fit else None,
                "elo_low": _clean(low),
                "elo_high": _clean(high),
                "mean_return": _clean(mean.mean),
                "return_low": _clean(mean.low),
                "return_high": _clean(mean.high),
                "return_sets": mean.units,
                "mu": skill.mu if skill else None,
                "sigma": skill.sigma if skill else None,
                "mu_low": skill.mu - Z_95 * skill.sigma if skill else None,
                "mu_high": skill.mu + Z_95 * skill.sigma if skill else None,
                "nash_weight": float(weights[i]) if weights is not None else None,
                "nash_score": float(scores[i]) if scores is not None else None,
                "alpha_rank": float(ranks[i]),
                "factory": result.specs[name].describe() if name in result.specs else None,
                "label": result.specs[name].label() if name in result.specs else name,
            }
        )
    key = "mean_return" if by_return else "elo"

    def rank(row: dict[str, Any]) -> tuple[float, str]:
        value = row[key]
        return (-float(value) if value is not None else math.inf, str(row["name"]))

    rows.sort(key=rank)
    pairwise = _pairwise_rows(result, by_return)
    return {
        "env": {"factory": result.env.factory, "kwargs": result.env.kwargs},
        "sources": result.db,
        "entrants": list(names),
        "excluded": result.excluded,
        "games": len(result.games),
        "errors": len(result.errors),
        "duplicate": result.duplicate,
        "result_kind": kind,
        "ranked_by": key,
        "interval": "95%",
        "anchor": list(fit.anchor) if fit and fit.anchor else None,
        "bootstrap": bootstrap,
        "standings": rows,
        "pairwise": pairwise,
        "score_table": [[_clean(x) for x in row] for row in table],
        **({"return_table": [[_clean(x) for x in row] for row in returns]} if returns is not None else {}),
        "meta_game": "mean return" if by_return else "score rate",
        "members": member_rows(result, bootstrap=bootstrap, seed=seed) if result.teams and not by_return else [],
        "unmet": [list(pair) for pair in unmet],
    }


def _meta_game(
    count: int, table: list[list[float]], returns: list[list[float]] | None, alpha: float
) -> tuple[Any, Any, Any]:
    """Nash weights, Nash scores and alpha-rank mass of the meta-game over ``count`` entrants:
    on the mean-return table when there is one (zero-sum by its antisymmetric part), else on
    the score table; ``(None, None, [1.0, ...])`` when there are no entrants."""
    from arena.evaluation.metagame import alpha_rank, nash_average, payoff_matrix

    ranks: Any = [1.0] * count
    if not count:
        return None, None, ranks
    if returns is not None:
        payoffs = np.nan_to_num(np.array(returns, dtype=float))
        np.fill_diagonal(payoffs, 0.0)
        nash = nash_average((payoffs - payoffs.T) / 2, zero_sum=True)
    else:
        payoffs = payoff_matrix(table)
        nash = nash_average(payoffs)
    if count >= 2:
        ranks = alpha_rank(payoffs, alpha=alpha).pi
    return nash.weights, nash.scores, ranks


def _pairwise_rows(result: TournamentResult, by_return: bool) -> list[dict[str, Any]]:
    """Each ordered pair that met: its W/D/L (and, for a ``"return"`` env, its mean return with its interval)."""
    from arena.tournament.evaluation_inputs import return_estimate

    pairwise = []
    for (a, b), stats in result.pairings.items():
        if a == b:
            continue
        entry = stats.as_dict()
        if by_return:
            versus = return_estimate(result.games, a, b)
            entry.update(
                {
                    "return": _clean(versus.mean),
                    "return_low": _clean(versus.low),
                    "return_high": _clean(versus.high),
                    "return_sets": versus.units,
                }
            )
        pairwise.append(entry)
    return pairwise


def member_rows(result: TournamentResult, *, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> list[dict[str, Any]]:
    """Each member of a team game's entrants with its batch Elo inside the teams it played in
    (:meth:`TournamentResult.member_elo`), best first: its contribution, on the entrants' scale."""
    fit = result.member_elo(bootstrap=bootstrap, seed=seed)
    rows = []
    for name in fit.order():
        low, high = fit.intervals.get(name, (math.nan, math.nan))
        rows.append(
            {
                "name": name,
                "label": result.member_labels.get(name, name),
                "elo": fit.ratings[name],
                "elo_low": _clean(low),
                "elo_high": _clean(high),
                "games": fit.games.get(name, 0),
                "teams": [entrant for entrant in result.entrants if name in result.members_of(entrant)],
            }
        )
    return rows
