"""The tournament picture: a pairwise score-rate heatmap beside rating bars with their uncertainty."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from arena.errors import MissingDependencyError
from arena.evaluation.results import result_description
from arena.tournament.run import TournamentResult

__all__ = ["save_report", "score_matrix", "save_evaluation_png"]


def score_matrix(result: TournamentResult) -> list[list[float]]:
    """``matrix[i][j]``: entrant ``i``'s score rate against entrant ``j`` (NaN where they never met).

    Example:
        >>> from arena.tournament import run_tournament
        >>> result = run_tournament("tic_tac_toe", ["random", "b=random"], games=2)
        >>> math.isnan(score_matrix(result)[0][0])
        True
    """
    names = result.entrants
    matrix = [[math.nan] * len(names) for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            stats = result.pairings.get((a, b))
            if stats is not None and stats.games:
                matrix[i][j] = stats.score
    return matrix


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as err:
        raise MissingDependencyError(
            f"the tournament report needs matplotlib ({err}); install the extra: pip install 'arena-marl[tournament]'"
        ) from None
    return Figure


def save_report(
    result: TournamentResult,
    path: str | Path,
    title: str | None = None,
    report: dict[str, Any] | None = None,
    bootstrap: int = 200,
) -> Path:
    """Draw the pairwise score rates and the standings of ``result`` into a PNG (or any format
    matplotlib infers from the suffix).

    Left: row entrant's score rate against the column entrant, with the 95% Wilson interval
    in each cell. Right: the figure the standings rank by (batch Elo, or a ``"return"`` env's mean
    return per game) with its 95% interval, best on top. In a team game the entrants' bars name
    their members, and a third panel shows the members' batch Elo inside their teams (their
    contributions).

    Args:
        report: :func:`arena.tournament.analysis.analyse` of ``result`` (default: made here, with
            ``bootstrap`` resamples for the Elo intervals).

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    figure_class = _figure_class()
    if report is None:
        from arena.tournament.analysis import analyse

        report = analyse(result, bootstrap=bootstrap)
    names = result.entrants
    n = len(names)
    heat_width = 2.0 + 1.15 * max(n, 2)
    members = report["members"]
    widths = [heat_width, 4.5] + ([4.5] if members else [])
    figure = figure_class(figsize=(sum(widths), 1.8 + 0.8 * max(n, 3, len(members))), layout="constrained")
    heat, bars, *member_axes = figure.subplots(1, len(widths), gridspec_kw={"width_ratios": widths})
    from matplotlib import colormaps

    _heatmap(figure, heat, report, colormaps)
    board = report["standings"][::-1]  # best at the top of a horizontal bar chart
    labels = [
        row["name"]
        if not result.specs[row["name"]].members
        else f"{row['name']}\n({result.specs[row['name']].label()})"
        for row in board
    ]
    _standing_bars(bars, board, report, labels, "tab:blue")
    bars.set_title("team standings" if result.teams else "standings")
    if member_axes:
        axis = member_axes[0]
        _standing_bars(axis, members[::-1], None, [row["label"] for row in members[::-1]], "tab:green")
        axis.set_title("member contributions (inside their teams)")
    games = len(result.games)
    figure.suptitle(title or f"{result.env.factory}: {games} games, {n} entrants")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


def _heatmap(figure: Any, heat: Any, report: dict[str, Any], colormaps: Any) -> None:
    """The pairwise table as a heatmap: score rates with their 95% Wilson intervals, or (a
    ``"return"`` env) mean returns per game with their 95% intervals; each cell with its games."""
    names = report["entrants"]
    n = len(names)
    by_return = report["ranked_by"] == "mean_return"
    versus = {(row["first"], row["second"]): row for row in report["pairwise"]}
    table = report["return_table"] if by_return else report["score_table"]
    matrix = [[math.nan if value is None else value for value in row] for row in table]
    largest = max((abs(v) for row in matrix for v in row if not math.isnan(v)), default=0.0) or 1.0
    low_end, high_end = (-largest, largest) if by_return else (0.0, 1.0)
    cmap = colormaps["RdBu"].with_extremes(bad="#eeeeee")
    image = heat.imshow(matrix, cmap=cmap, vmin=low_end, vmax=high_end)
    heat.set_xticks(range(n), names, rotation=30, ha="right")
    heat.set_yticks(range(n), names)
    heat.set_xlabel("opponent")
    what = "mean return per game" if by_return else "score rate"
    heat.set_title(f"{what}, row vs column (95%; games)")
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            row = versus.get((a, b))
            if i == j or row is None or not row["games"] or math.isnan(matrix[i][j]):
                continue
            if by_return:
                text = f"{matrix[i][j]:+.2f}\n[{_pair_end(row['return_low'])}, {_pair_end(row['return_high'])}]\n{row['returned']} games"
            else:
                text = f"{row['score']:.0%}\n[{row['score_low']:.0%}, {row['score_high']:.0%}]\n{row['games']} games"
            dark = abs(matrix[i][j] - (0.0 if by_return else 0.5)) > 0.6 * (high_end - low_end) / 2
            heat.text(j, i, text, ha="center", va="center", fontsize=7, color="white" if dark else "black")
    figure.colorbar(image, ax=heat, shrink=0.8, label=what)


def _pair_end(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


def _standing_bars(
    axis: Any, rows: list[dict[str, Any]], report: dict[str, Any] | None, labels: list[str], colour: str
) -> None:
    """Bars of the figure the standings rank by, with their 95% intervals (``report`` ``None``: member Elo)."""
    by_return = report is not None and report["ranked_by"] == "mean_return"
    key, low_key, high_key = (
        ("mean_return", "return_low", "return_high") if by_return else ("elo", "elo_low", "elo_high")
    )
    values = [row[key] if row[key] is not None else 0.0 for row in rows]
    lows = [row[key] - row[low_key] if row[low_key] is not None and row[key] is not None else 0.0 for row in rows]
    highs = [row[high_key] - row[key] if row[high_key] is not None and row[key] is not None else 0.0 for row in rows]
    positions = list(range(len(rows)))
    axis.barh(positions, values, xerr=[lows, highs], color=colour, alpha=0.75, capsize=4)
    axis.set_yticks(positions, labels)
    axis.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    if by_return:
        axis.set_xlabel("mean return per game, bars: 95% interval")
    else:
        kind = "" if report is None else f" by {result_description(report['result_kind'])}"
        axis.set_xlabel(f"batch Elo{kind}, bars: 95% interval")


def save_evaluation_png(report: dict[str, Any], path: str | Path, title: str | None = None) -> Path:
    """Draw an :func:`arena.tournament.analysis.analyse` report: pairwise heatmap, batch Elo with
    its 95% intervals, and the Nash weights and alpha-rank mass of each entrant.

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    figure_class = _figure_class()
    from matplotlib import colormaps

    names = report["entrants"]
    n = len(names)
    heat_width = 2.0 + 1.0 * max(n, 2)
    figure = figure_class(figsize=(heat_width + 9.0, 1.8 + 0.7 * max(n, 3)), layout="constrained")
    heat, elo, meta = figure.subplots(1, 3, gridspec_kw={"width_ratios": [heat_width, 4.5, 4.5]})
    _heatmap(figure, heat, report, colormaps)
    board = report["standings"][::-1]
    positions = list(range(len(board)))
    _standing_bars(elo, board, report, [row["name"] for row in board], "tab:blue")
    elo.set_title("standings (all games at once)")
    width = 0.4
    meta.barh(
        [p + width / 2 for p in positions],
        [row["nash_weight"] for row in board],
        height=width,
        color="tab:green",
        label="Nash weight",
    )
    meta.barh(
        [p - width / 2 for p in positions],
        [row["alpha_rank"] for row in board],
        height=width,
        color="tab:orange",
        label="alpha-rank",
    )
    meta.set_yticks(positions, [row["name"] for row in board])
    meta.set_xlim(0, 1)
    meta.legend(loc="lower right", fontsize=8)
    meta.set_title("meta-game")
    figure.suptitle(title or f"{report['env']['factory']}: {report['games']} games, {n} entrants")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path
