"""Evaluation records of a training run as a CSV file and a learning-curve picture."""

from __future__ import annotations

import csv
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["write_csv", "read_csv", "plot_learning_curve"]


def write_csv(records: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """Write evaluation records (one dict per evaluation point) as CSV; returns the path.

    Columns are the union of the records' keys in first-seen order.
    """
    path = Path(path)
    columns: list[str] = []
    for record in records:
        columns.extend(key for key in record if key not in columns)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(records)
    return path


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


def plot_learning_curve(
    records: Sequence[Mapping[str, Any]],
    path: str | Path,
    *,
    references: Sequence[str] | None = None,
    title: str = "Learning curve",
    targets: Mapping[str, float] | None = None,
) -> Path:
    """Plot win rate against fixed reference agents over timesteps, promotions marked.

    Args:
        records: evaluation records with ``timesteps``, ``<name>_win_rate`` columns and
            optionally ``promoted`` (1 where the learner was promoted into the pool).
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
    steps = [record["timesteps"] for record in records]
    figure, axes = plt.subplots(figsize=(7, 4), dpi=100)
    for name in references:
        (line,) = axes.plot(
            steps,
            [record[f"{name}_win_rate"] for record in records],
            marker="o",
            markersize=3,
            label=f"win rate vs {name}",
        )
        if targets and name in targets:
            axes.axhline(
                targets[name],
                color=line.get_color(),
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
    figure.tight_layout()
    path = Path(path)
    figure.savefig(path)
    plt.close(figure)
    return path
