"""Two tournaments started at once on one new results file (the real CLI, in subprocesses)."""

from __future__ import annotations

import sqlite3

from tests.faults.helpers import finish, start_cli

COMMON = ["tic_tac_toe", "--agents", "random,b=random", "--games", "6", "--no-progress"]


def test_of_two_different_tournaments_on_a_new_file_exactly_one_is_accepted(tmp_path):
    db = tmp_path / "shared.sqlite"
    runs = [start_cli("tournament", *COMMON, "--seed", str(seed), "--db", str(db)) for seed in (1, 2)]
    done = [finish(run) for run in runs]
    codes = sorted(run.returncode for run in done)
    assert codes == [0, 2], [(run.returncode, run.stderr) for run in done]
    loser = next(run for run in done if run.returncode == 2)
    assert loser.stderr.count("\n") == 1 and "Traceback" not in loser.stderr, loser.stderr
    assert f"{db} holds a tournament with other rules (seed: stored" in loser.stderr
    assert "locked" not in loser.stderr
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)


def test_two_identical_tournaments_at_once_share_the_file(tmp_path):
    db = tmp_path / "shared.sqlite"
    runs = [start_cli("tournament", *COMMON, "--seed", "3", "--db", str(db)) for _ in range(2)]
    done = [finish(run) for run in runs]
    assert [run.returncode for run in done] == [0, 0], [run.stderr for run in done]
    assert all("6 of 6 games stored" in run.stdout for run in done)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)
