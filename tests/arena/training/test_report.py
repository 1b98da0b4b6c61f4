"""The evaluation records' CSV: what is written comes back, numbers as numbers, named columns as text."""

from __future__ import annotations

import pytest

from arena.training.report import read_csv, write_csv


def test_records_come_back_with_numbers_as_numbers_and_text_columns_as_written(tmp_path) -> None:
    records = [
        {"folder": "runs/a", "timesteps": 0, "score": 0.5},
        {"folder": "1e3", "timesteps": 128, "score": 0.75, "promoted": 1},
    ]
    path = write_csv(records, tmp_path / "eval.csv")
    assert (tmp_path / "eval.csv").read_text().splitlines()[0] == "folder,timesteps,score,promoted"

    numbers = read_csv(path)
    assert numbers[1] == {"folder": 1000.0, "timesteps": 128, "score": 0.75, "promoted": 1}  # the default reads "1e3"
    assert numbers[0]["promoted"] == ""  # a column a record lacks is empty, not invented

    kept = read_csv(path, text=("folder",))
    assert [row["folder"] for row in kept] == ["runs/a", "1e3"]
    assert kept[1]["timesteps"] == 128 and isinstance(kept[1]["score"], float)


def _record(timesteps: int, win_rate: float, games: int | None) -> dict:
    record = {"timesteps": timesteps, "random_win_rate": win_rate, "random_draw_rate": 0.0}
    if games is not None:
        record["random_games"] = games
    return record


def test_every_evaluation_figure_says_its_games_and_interval() -> None:
    from arena.training.report import evaluation_text, short_evaluation_text

    assert evaluation_text(_record(0, 0.8, 10), "random") == (
        "win rate 80% [95% interval 49-94%] over 10 games: 8 won, 0 drawn, 2 lost"
    )
    # 2 games: the whole range a reader should see, not "0%"
    assert evaluation_text(_record(0, 0.0, 2), "random") == (
        "win rate 0% [95% interval 0-66%] over 2 games: 0 won, 0 drawn, 2 lost (too few games to tell)"
    )
    assert short_evaluation_text(_record(0, 0.0, 2), "random") == "0% [0-66%] of 2"
    # records written before games were counted (a --load of an older folder): said so
    assert evaluation_text(_record(0, 0.5, None), "random") == "win rate 50%, draws 0% (games not recorded)"
    assert short_evaluation_text(_record(0, 0.5, None), "random") == "50%"


def test_the_curve_draws_an_evaluation_of_few_games_as_its_interval_only(tmp_path, monkeypatch) -> None:
    plt = pytest.importorskip("matplotlib.pyplot")

    from arena.training.report import MIN_RESULT_GAMES, plot_learning_curve

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to read what was drawn
    records = [_record(0, 0.5, 20), _record(100, 0.0, 2), _record(200, 0.9, MIN_RESULT_GAMES), _record(300, 1.0, None)]
    path = plot_learning_curve(records, tmp_path / "curve.png", references=["random"])
    assert path.read_bytes().startswith(b"\x89PNG")
    (axes,) = figures[0].axes
    (line,) = axes.lines
    assert list(line.get_xdata()) == [0, 200, 300]  # the 2-game point is no point of the curve
    assert list(line.get_ydata()) == [0.5, 0.9, 1.0]
    bars = [c for c in axes.collections if c.get_label() == f"under {MIN_RESULT_GAMES} games: interval only"]
    ((low, high),) = [segment[:, 1] for segment in bars[0].get_segments()]
    assert (low, round(high, 2)) == (0.0, 0.66)  # drawn as its 95% interval
    band = [c for c in axes.collections if c.get_label() == "95% interval vs random"]
    assert len(band) == 1
