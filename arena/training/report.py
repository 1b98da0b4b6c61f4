"""Evaluation records of a training run as a CSV file, a learning-curve picture and text.

Every figure comes with the games behind it and the 95% Wilson interval of the win rate
(:func:`arena.tournament.stats.wilson_interval`, as tournaments report): an evaluation of 2 games
says "0% [0-66%] of 2 games", not "0%". The curve draws a point as a result only from
:data:`MIN_RESULT_GAMES` games on; fewer show as their interval alone.
"""

from __future__ import annotations

import csv
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.atomic import write_atomic
from arena.tournament.stats import wilson_interval
from arena.training.recipe import MIN_EVAL_GAMES

__all__ = [
    "MIN_RESULT_GAMES",
    "evaluation_counts",
    "evaluation_text",
    "plot_learning_curve",
    "read_csv",
    "short_evaluation_text",
    "write_csv",
]

#: Games an evaluation needs before the learning curve plots its win rate as a result (its 95%
#: interval is then at most about 60 points wide; at 2 games it spans two thirds of the scale).
MIN_RESULT_GAMES = MIN_EVAL_GAMES


def write_csv(records: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write evaluation records (one dict per evaluation point) as CSV; returns the path.

    Columns are the union of the records' keys in first-seen order (a record without a column leaves
    it empty: an older run's records, continued with ``--load``).
    """
    columns: list[str] = []
    for record in records:
        columns.extend(key for key in record if key not in columns)

    def write(temporary: Path) -> None:
        with temporary.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=columns)
            writer.writeheader()
            writer.writerows(records)

    return write_atomic(path, write)  # whole: a run stopped mid-write keeps the last complete file


def read_csv(path: str | Path, *, text: Collection[str] = ()) -> list[dict[str, Any]]:
    """Read records written by :func:`write_csv`, numbers converted back to numbers.

    Args:
        path: the CSV file.
        text: columns kept as written (a folder named ``1e3`` stays ``"1e3"``).
    """
    rows = []
    with Path(path).open(newline="") as handle:
        for row in csv.DictReader(handle):
            rows.append({key: value if key in text else _number(value) for key, value in row.items()})
    return rows


def _number(text: str) -> Any:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def evaluation_counts(record: Mapping[str, Any], name: str) -> tuple[int, int, int, float, float] | None:
    """``(games, wins, draws, low, high)`` of the evaluation against ``name`` in ``record``: the win
    rate's 95% Wilson interval from ``low`` to ``high``; ``None`` for records that did not count games
    (written before they did)."""
    games = record.get(f"{name}_games")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        return None
    wins = round(float(record[f"{name}_win_rate"]) * games)
    draws = round(float(record.get(f"{name}_draw_rate") or 0.0) * games)
    low, high = wilson_interval(wins, games)
    return games, wins, draws, low, high


def evaluation_text(record: Mapping[str, Any], name: str) -> str:
    """The evaluation against ``name`` in ``record``, with its games and interval, as ``arena train`` prints it.

    Example:
        >>> evaluation_text({"random_win_rate": 0.8, "random_draw_rate": 0.0, "random_games": 10}, "random")
        'win rate 80% [95% interval 49-94%] over 10 games: 8 won, 0 drawn, 2 lost'
        >>> evaluation_text({"random_win_rate": 0.0, "random_draw_rate": 0.0, "random_games": 2}, "random")
        'win rate 0% [95% interval 0-66%] over 2 games: 0 won, 0 drawn, 2 lost (too few games to tell)'
    """
    counts = evaluation_counts(record, name)
    rate = float(record[f"{name}_win_rate"])
    if counts is None:
        return f"win rate {rate:.0%}, draws {float(record.get(f'{name}_draw_rate') or 0.0):.0%} (games not recorded)"
    games, wins, draws, low, high = counts
    text = (
        f"win rate {rate:.0%} [95% interval {low * 100:.0f}-{high:.0%}] over {games} games: "
        f"{wins} won, {draws} drawn, {games - wins - draws} lost"
    )
    return text + (" (too few games to tell)" if games < MIN_RESULT_GAMES else "")


def short_evaluation_text(record: Mapping[str, Any], name: str) -> str:
    """The evaluation against ``name`` for a progress line: ``"80% [49-94%] of 10"``.

    Example:
        >>> short_evaluation_text({"random_win_rate": 0.5, "random_games": 2}, "random")
        '50% [9-91%] of 2'
    """
    counts = evaluation_counts(record, name)
    rate = float(record[f"{name}_win_rate"])
    if counts is None:
        return f"{rate:.0%}"
    games, _, _, low, high = counts
    return f"{rate:.0%} [{low * 100:.0f}-{high:.0%}] of {games}"


def plot_learning_curve(
    records: Sequence[Mapping[str, Any]],
    path: str | Path,
    *,
    references: Sequence[str] | None = None,
    title: str = "Learning curve",
    targets: Mapping[str, float] | None = None,
) -> Path:
    """Plot win rate against fixed reference agents over timesteps, with 95% intervals, promotions marked.

    Each reference's win rate is a line through the evaluations of at least :data:`MIN_RESULT_GAMES`
    games, over a band of their 95% Wilson intervals; an evaluation of fewer games is drawn as its
    interval alone (a bar, no point on the line), since its rate says little (2 games: 0% or 100%
    at a stroke). Records without game counts (written before they were kept) are drawn as points.

    Args:
        records: evaluation records with ``timesteps``, ``<name>_win_rate`` (and ``<name>_games``,
            ``<name>_draw_rate``) columns and optionally ``promoted`` (1 where the learner was
            promoted into the pool).
        path: the PNG file to write.
        references: the reference names to draw (default: every ``*_win_rate`` column).
        title: the figure title.
        targets: optional horizontal target lines, win rate per reference name.

    Raises:
        ImportError: matplotlib is missing (names the extra to install).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only: no display needed
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError(
            f"plot_learning_curve needs matplotlib ({err}); install the 'train' extra: pip install 'arena-marl[train]'"
        ) from err
    if references is None:
        references = [key[: -len("_win_rate")] for key in (records[0] if records else {}) if key.endswith("_win_rate")]
    figure, axes = plt.subplots(figsize=(7, 4), dpi=100)
    few_labelled = False
    for name in references:
        counted = [(record, evaluation_counts(record, name)) for record in records]
        results = [(r["timesteps"], r[f"{name}_win_rate"]) for r, c in counted if c is None or c[0] >= MIN_RESULT_GAMES]
        (line,) = axes.plot(
            [step for step, _ in results],
            [rate for _, rate in results],
            marker="o",
            markersize=3,
            label=f"win rate vs {name}",
        )
        colour = line.get_color()
        banded = [(r["timesteps"], c[3], c[4]) for r, c in counted if c is not None]
        if banded:
            axes.fill_between(
                [step for step, _, _ in banded],
                [low for _, low, _ in banded],
                [high for _, _, high in banded],
                color=colour,
                alpha=0.15,
                linewidth=0,
                label=f"95% interval vs {name}",
            )
        few = [(r["timesteps"], c[3], c[4]) for r, c in counted if c is not None and c[0] < MIN_RESULT_GAMES]
        if few:
            axes.vlines(
                [step for step, _, _ in few],
                [low for _, low, _ in few],
                [high for _, _, high in few],
                color=colour,
                linewidth=2,
                alpha=0.6,
                label="_nolegend_" if few_labelled else f"under {MIN_RESULT_GAMES} games: interval only",
            )
            few_labelled = True
        if targets and name in targets:
            axes.axhline(
                targets[name],
                color=colour,
                linestyle=":",
                linewidth=1,
                label=f"target vs {name} ({targets[name]:.0%})",
            )
    promotions = [record["timesteps"] for record in records if record.get("promoted")]
    for i, step in enumerate(promotions):
        axes.axvline(
            step,
            color="grey",
            linestyle="--",
            linewidth=0.8,
            alpha=0.6,
            label="promotion into the pool" if i == 0 else None,
        )
    axes.set_xlabel("timesteps")
    axes.set_ylabel("win rate")
    axes.set_ylim(-0.02, 1.02)
    axes.set_title(title)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right", fontsize=8)
    # fixed margins that fit these labels at this size: tight_layout measured every text first, 40% of a
    # drawing's time (it is drawn at each checkpoint)
    figure.subplots_adjust(left=0.09, right=0.98, top=0.92, bottom=0.12)
    path = Path(path)
    figure.savefig(path, format="png")  # a temporary file's name need not end in .png
    plt.close(figure)
    return path
