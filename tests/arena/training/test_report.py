"""The evaluation records' CSV: what is written comes back, numbers as numbers, named columns as text."""

from __future__ import annotations

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
