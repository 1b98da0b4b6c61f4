"""The results file is never damaged: foreign, read-only and newer files are refused untouched,
outputs are checked before the first game, and bad CLI values get a one-line error (exit 2)."""

from __future__ import annotations

import hashlib
import os
import sqlite3

import pytest

from arena.errors import ResultsFileError
from arena.runtime.store import APPLICATION_ID, SCHEMA_VERSION
from arena.tournament import ResultStore, run_tournament
from tests.faults.helpers import main_one_line_error

pytest.importorskip("rich")

AGENTS = ["--agents", "random,b=random", "--games", "2", "--progress", "none"]


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_random_bytes_are_refused_and_left_alone(tmp_path, capsys):
    db = tmp_path / "noise.sqlite"
    db.write_bytes(os.urandom(4096))
    before = digest(db)
    main_one_line_error(
        capsys,
        ["tournament", "tic_tac_toe", *AGENTS, "--db", str(db)],
        f"{str(db)!r} is not an arena results file (not an SQLite database)",
    )
    assert digest(db) == before and sorted(os.listdir(tmp_path)) == ["noise.sqlite"]


def test_another_programs_sqlite_file_is_refused_and_left_alone(tmp_path, capsys):
    db = tmp_path / "photos.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT)")
        connection.execute("INSERT INTO photos (path) VALUES ('a.jpg')")
    connection.close()
    before = digest(db)
    main_one_line_error(
        capsys,
        ["tournament", "tic_tac_toe", *AGENTS, "--db", str(db)],
        "is not an arena results file (an SQLite database of another program: application id 0x0, tables photos)",
    )
    assert digest(db) == before and sorted(os.listdir(tmp_path)) == ["photos.db"]


def test_a_newer_schema_is_refused_and_left_alone(tmp_path, capsys):
    db = tmp_path / "t.sqlite"
    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=db)
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
        assert connection.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    before = digest(db)
    main_one_line_error(
        capsys,
        ["tournament", "tic_tac_toe", *AGENTS, "--db", str(db)],
        f"has schema version {SCHEMA_VERSION + 1}, newer than this arena reads ({SCHEMA_VERSION}); upgrade arena-marl",
    )
    assert digest(db) == before


def deny_writes_to(monkeypatch, path):
    """``os.access`` says ``path`` is not writable (root may write anything, so chmod alone cannot show it)."""
    real = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode, **kw: (
            False if (os.path.abspath(p) == os.path.abspath(path) and mode & os.W_OK) else real(p, mode, **kw)
        ),
    )


def test_a_read_only_results_file_is_refused_and_left_alone(tmp_path, capsys, monkeypatch):
    db = tmp_path / "t.sqlite"
    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=db)
    os.chmod(db, 0o444)
    deny_writes_to(monkeypatch, db)
    before = digest(db)
    try:
        main_one_line_error(
            capsys,
            ["tournament", "tic_tac_toe", *AGENTS, "--games", "4", "--db", str(db)],
            "is read-only (the file is not writable); nothing was written",
        )
    finally:
        os.chmod(db, 0o644)
    assert digest(db) == before


def test_a_first_release_file_without_the_marks_is_adopted(tmp_path):
    db = tmp_path / "old.sqlite"
    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=db)
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA application_id = 0")
        connection.execute("PRAGMA user_version = 0")
    connection.close()
    again = run_tournament("tic_tac_toe", ["random", "b=random"], games=4, db=db)
    assert (again.played, len(again.games)) == (2, 4)
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA application_id").fetchone() == (APPLICATION_ID,)
    connection.close()


def test_an_empty_sqlite_file_becomes_a_results_file(tmp_path):
    db = tmp_path / "empty.sqlite"
    db.touch()
    with ResultStore(db) as store:
        assert store.count() == 0


@pytest.mark.parametrize(
    ("export", "expected"),
    [
        ("same", "is the --db results file itself; give the export another name"),
        ("missing/games.csv", "the folder"),
        ("games.txt", "--export: the file must end in .csv or .json, got"),
    ],
)
def test_a_bad_export_path_is_refused_before_anything_is_written(tmp_path, capsys, export, expected):
    db = tmp_path / "t.json"  # a results file named like an export, so that 'same' passes the suffix check
    target = db if export == "same" else tmp_path / export
    main_one_line_error(
        capsys, ["tournament", "tic_tac_toe", *AGENTS, "--db", str(db), "--export", str(target)], expected
    )
    assert not db.exists()


def test_an_unwritable_export_folder_is_refused_before_the_first_game(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    deny_writes_to(monkeypatch, locked)
    db = tmp_path / "t.sqlite"
    try:
        main_one_line_error(
            capsys,
            ["tournament", "tic_tac_toe", *AGENTS, "--db", str(db), "--export", str(locked / "g.csv")],
            "cannot be written (permission denied)",
        )
    finally:
        locked.chmod(0o755)
    assert not db.exists()


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        (["--max-steps", "0"], "max_steps must be a positive integer, got 0"),
        (
            ["--move-time-limit", "-1"],
            "move_time_limit must be a number of seconds greater than 0 and at most 86400 (one day), got -1.0",
        ),
        (
            ["--move-time-limit", "nan"],
            "move_time_limit must be a number of seconds greater than 0 and at most 86400 (one day), got nan",
        ),
        (
            ["--move-time-limit", "inf"],
            "move_time_limit must be a number of seconds greater than 0 and at most 86400 (one day), got inf",
        ),
        (["--games", "0"], "games must be a positive integer, got 0"),
        (["--seed", "-3"], "seed must be an integer from 0 to 2**64 - 1, got -3"),
        (["--seed", str(2**64)], f"seed must be an integer from 0 to 2**64 - 1, got {2**64}"),
    ],
)
def test_bad_cli_values_get_one_line_and_exit_code_2(capsys, option, expected):
    main_one_line_error(
        capsys, ["tournament", "tic_tac_toe", "--agents", "random,b=random", "--progress", "none", *option], expected
    )


def test_an_env_factory_that_raises_gets_one_line(capsys):
    main_one_line_error(
        capsys,
        ["tournament", "tests.faults.entrants:broken_env", "--agents", "random,b=random", "--progress", "none"],
        "the env 'tests.faults.entrants:broken_env' could not be built: OSError: the game server is down",
    )


def test_reset_seeds_that_gymnasium_rejects_get_arenas_error_naming_the_env():
    from arena import make_env

    env = make_env("tic_tac_toe")
    with pytest.raises(ValueError, match=r"TicTacToe.reset: seed must be a non-negative integer, got -1"):
        env.reset(seed=-1)
    with pytest.raises(TypeError, match=r"TicTacToe.reset: seed must be a non-negative integer or None, got float 1.5"):
        env.reset(seed=1.5)
    with pytest.raises(TypeError, match=r"got bool True"):
        env.reset(seed=True)
    import numpy as np

    assert env.reset(seed=np.int64(3))[0].keys() == env.reset(seed=3)[0].keys()


def test_results_file_errors_are_arena_errors():
    from arena.errors import ArenaError

    assert issubclass(ResultsFileError, ArenaError) and issubclass(ResultsFileError, ValueError)
