"""The tournament picture: a pairwise score-rate heatmap beside rating bars with their uncertainty."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from arena.errors import MissingDependencyError
from arena.tournament.tournament import TournamentResult

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


def save_report(result: TournamentResult, path: str | Path, title: str | None = None) -> Path:
    """Draw the pairwise score rates and the ratings of ``result`` into a PNG (or any format
    matplotlib infers from the suffix).

    Left: row entrant's score rate against the column entrant, with the 95% Wilson interval
    in each cell. Right: each entrant's rating ``mu`` with a bar of ``+-1.96 sigma``, best on top.
    In a team game the entrants' bars name their members, and a third panel shows the
    members' ratings inside their teams (their contributions).

    Raises:
        MissingDependencyError: matplotlib is not installed.
    """
    figure_class = _figure_class()
    names = result.entrants
    n = len(names)
    heat_width = 2.0 + 1.15 * max(n, 2)
    members = result.member_ratings
    widths = [heat_width, 4.5] + ([4.5] if members else [])
    figure = figure_class(figsize=(sum(widths), 1.8 + 0.8 * max(n, 3, len(members))), layout="constrained")
    heat, bars, *member_axes = figure.subplots(1, len(widths), gridspec_kw={"width_ratios": widths})
    matrix = score_matrix(result)
    from matplotlib import colormaps

    image = heat.imshow(matrix, cmap=colormaps["RdBu"].with_extremes(bad="#eeeeee"), vmin=0.0, vmax=1.0)
    heat.set_xticks(range(n), names, rotation=30, ha="right")
    heat.set_yticks(range(n), names)
    heat.set_xlabel("opponent")
    heat.set_title("score rate of row vs column (95% CI)")
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            stats = result.pairings.get((a, b))
            if i == j or stats is None or not stats.games:
                continue
            low, high = stats.interval
            dark = abs(stats.score - 0.5) > 0.3
            heat.text(
                j,
                i,
                f"{stats.score:.0%}\n[{low:.0%}, {high:.0%}]",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if dark else "black",
            )
    figure.colorbar(image, ax=heat, shrink=0.8, label="score rate")
    board = result.leaderboard()[::-1]  # best at the top of a horizontal bar chart
    positions = range(len(board))
    bars.barh(
        positions,
        [r.mu for r in board],
        xerr=[1.959963984540054 * r.sigma for r in board],
        color="tab:blue",
        alpha=0.75,
        capsize=4,
    )
    labels = [
        r.name if not result.specs[r.name].members else f"{r.name}\n({result.specs[r.name].label()})" for r in board
    ]
    bars.set_yticks(list(positions), labels)
    bars.axvline(25.0, color="grey", linewidth=0.8, linestyle="--")
    bars.set_xlabel("rating mu (openskill), bars: 95% interval")
    bars.set_title("team ratings" if result.teams else "ratings")
    if member_axes:
        axis, ranked = member_axes[0], sorted(members.values(), key=lambda r: (r.ordinal, r.name))
        axis.barh(
            range(len(ranked)),
            [r.mu for r in ranked],
            xerr=[1.959963984540054 * r.sigma for r in ranked],
            color="tab:green",
            alpha=0.75,
            capsize=4,
        )
        axis.set_yticks(list(range(len(ranked))), [result.member_labels.get(r.name, r.name) for r in ranked])
        axis.axvline(25.0, color="grey", linewidth=0.8, linestyle="--")
        axis.set_xlabel("member mu in teams (openskill)")
        axis.set_title("member contributions")
    games = len(result.games)
    figure.suptitle(title or f"{result.env.factory}: {games} games, {n} entrants")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    return path


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
    matrix = [[math.nan if value is None else value for value in row] for row in report["score_table"]]
    image = heat.imshow(matrix, cmap=colormaps["RdBu"].with_extremes(bad="#eeeeee"), vmin=0.0, vmax=1.0)
    heat.set_xticks(range(n), names, rotation=30, ha="right")
    heat.set_yticks(range(n), names)
    heat.set_title("score rate of row vs column")
    for i in range(n):
        for j in range(n):
            if i != j and not math.isnan(matrix[i][j]):
                heat.text(
                    j,
                    i,
                    f"{matrix[i][j]:.0%}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if abs(matrix[i][j] - 0.5) > 0.3 else "black",
                )
    figure.colorbar(image, ax=heat, shrink=0.8)
    board = report["standings"][::-1]
    positions = list(range(len(board)))
    values = [row["elo"] for row in board]
    lows = [row["elo"] - row["elo_low"] if row["elo_low"] is not None else 0.0 for row in board]
    highs = [row["elo_high"] - row["elo"] if row["elo_high"] is not None else 0.0 for row in board]
    elo.barh(positions, values, xerr=[lows, highs], color="tab:blue", alpha=0.75, capsize=4)
    elo.set_yticks(positions, [row["name"] for row in board])
    elo.axvline(0.0, color="grey", linewidth=0.8, linestyle="--")
    elo.set_xlabel("batch Elo, bars: 95% bootstrap interval")
    elo.set_title("ratings (all games at once)")
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
