"""Results files are data, their schema included: what every writer and reader refuses or survives.

Each test starts from a real results file (a tiny tic-tac-toe tournament) and changes it the way
an attacker or a full disk would, then runs the real commands. The promises
(docs/reliability.md): a schema arena did not write (a trigger, a view, a generated column, an
index or table of its own, a column defined otherwise) is refused, naming the file and the object,
before a row is read or written; nothing that is not a regular file is ever opened; a full disk is
one line and the run resumes; an empty file is a clear answer; a write-ahead log beside a
read-only folder is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from arena.cli import main
from tests.faults.helpers import ROOT, TIMEOUT, copy_results, run_cli, store_two_games
from tests.faults.test_hostile_files import READERS, one_line_error

AGENTS = "random,b=random"
RESUME = ("tournament", "tic_tac_toe", "--agents", AGENTS, "--seed", "1", "--workers", "1", "--progress", "none")

# The games table as arena writes it, with a length that SQLite computes on every read.
_GENERATED_GAMES = """
CREATE TABLE games_new (
    lineup TEXT NOT NULL, game_index INTEGER NOT NULL, seed INTEGER NOT NULL, seats TEXT NOT NULL,
    ranks TEXT NOT NULL, returns TEXT,
    length INTEGER NOT NULL GENERATED ALWAYS AS (length(zeroblob(20000000)) - 19999995) VIRTUAL,
    outcome TEXT NOT NULL, forfeit TEXT, error TEXT, versions TEXT NOT NULL, truncated INTEGER NOT NULL,
    seconds REAL NOT NULL, finished_at TEXT NOT NULL, PRIMARY KEY (lineup, game_index)
)"""
_COPY = "lineup, game_index, seed, seats, ranks, returns, outcome, forfeit, error, versions, truncated, seconds, finished_at"

HOSTILE = {
    "a trigger that rewrites the user's games": (
        (
            "CREATE TRIGGER cheat AFTER INSERT ON games BEGIN "
            "UPDATE games SET outcome = 'random wins' WHERE rowid = new.rowid; END",
        ),
        "holds trigger 'cheat' on table 'games', which arena never creates",
    ),
    "a trigger that spins for ever": (
        (
            "CREATE TRIGGER spin BEFORE INSERT ON games BEGIN SELECT count(*) FROM "
            "(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n); END",
        ),
        "holds trigger 'spin' on table 'games'",
    ),
    "a view": (
        ("CREATE VIEW standings AS SELECT outcome, count(*) FROM games GROUP BY outcome",),
        "holds view 'standings'",
    ),
    "a generated column": (
        (
            _GENERATED_GAMES,
            f"INSERT INTO games_new ({_COPY}) SELECT {_COPY} FROM games",
            "DROP TABLE games",
            "ALTER TABLE games_new RENAME TO games",
        ),
        "table 'games' is not the one arena writes (column 'length' is a generated column)",
    ),
    "an extra index": (("CREATE INDEX by_outcome ON games (outcome)",), "holds index 'by_outcome' on table 'games'"),
    "an extra table": (("CREATE TABLE notes (text TEXT)",), "holds table 'notes', which arena never creates"),
    "a column constraint arena never wrote": (
        (
            "CREATE TABLE meta_new (key TEXT PRIMARY KEY, value TEXT NOT NULL CHECK (length(value) < 1000000))",
            "INSERT INTO meta_new SELECT * FROM meta",
            "DROP TABLE meta",
            "ALTER TABLE meta_new RENAME TO meta",
        ),
        "table 'meta' is not the one arena writes (its SQL differs from arena's)",
    ),
    "a column of another type": (
        (
            "CREATE TABLE replays_new (lineup TEXT NOT NULL, game_index INTEGER NOT NULL, actions TEXT NOT NULL, "
            "PRIMARY KEY (lineup, game_index))",
            "INSERT INTO replays_new SELECT * FROM replays",
            "DROP TABLE replays",
            "ALTER TABLE replays_new RENAME TO replays",
        ),
        "table 'replays' is not the one arena writes (a column's type, default or constraint differs)",
    ),
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    return store_two_games(tmp_path_factory.mktemp("stored") / "results.db")


@pytest.fixture
def db(stored, tmp_path) -> Path:
    """A fresh copy of the results file to change."""
    return copy_results(stored, tmp_path / "copy.db")


def tamper(path: Path, *statements: str) -> None:
    """Run ``statements`` on ``path`` and close it (no write-ahead log left beside it)."""
    with closing(sqlite3.connect(path)) as connection:
        for statement in statements:
            connection.execute(statement)
        connection.commit()
    assert not Path(f"{path}-wal").exists()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_schema_arena_did_not_write_is_refused_for_reading_and_resuming(db, hostile, capsys):
    statements, expected = HOSTILE[hostile]
    tamper(db, *statements)
    before = _digest(db)
    for reader, command in READERS.items():
        assert main(command(db)) == 2, reader
        err = one_line_error(capsys, command(db)[0])
        assert str(db) in err and expected in err, (reader, err)
    # Resuming: refused before the first game, the file untouched (a trigger never ran; one that
    # spins would hang here, and the timeout fails the test).
    resumed = run_cli(*RESUME, "--games", "40", "--db", str(db))
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert resumed.stderr.count("\n") == 1 and expected in resumed.stderr and str(db) in resumed.stderr
    assert _digest(db) == before
    # Recording into it (arena play --record) is resuming too (in this process: a trigger that
    # spins has already failed the run above if the check is gone).
    assert main(["play", "tic_tac_toe", "--agents", "random,random", "--seed", "3", "--record", str(db)]) == 2
    assert expected in one_line_error(capsys, "play")
    assert _digest(db) == before


def test_the_file_arena_writes_passes_its_own_schema_check(db, capsys):
    """The check is not a refusal of everything: arena's own file reads and resumes."""
    assert main(["report", str(db), "--bootstrap", "2"]) == 0, capsys.readouterr().err
    resumed = run_cli(*RESUME, "--games", "4", "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert "4 of 4 games stored (2 played now" in resumed.stdout.replace("\n", " "), resumed.stdout


# ------------------------------------------------------------------ not a regular file
FIFO_COMMANDS = {
    "tournament --db": lambda fifo: [*RESUME, "--games", "2", "--db", fifo],
    "play --record": lambda fifo: ["play", "tic_tac_toe", "--agents", "random,random", "--seed", "1", "--record", fifo],
    "serve --record": lambda fifo: ["serve", "tic_tac_toe", "--port", "0", "--games", "1", "--record", fifo],
    "report": lambda fifo: ["report", fifo],
    "replay": lambda fifo: ["replay", fifo],
}


@pytest.mark.parametrize("command", sorted(FIFO_COMMANDS))
def test_a_named_pipe_is_refused_without_blocking(tmp_path, command):
    fifo = tmp_path / "results.db"
    os.mkfifo(fifo)
    # Opening a FIFO for reading waits for a writer for ever: a regression hangs and the timeout fails it.
    done = run_cli(*FIFO_COMMANDS[command](str(fifo)), timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "is a named pipe (FIFO), not a regular file" in done.stderr, done.stderr
    assert str(fifo) in done.stderr


def test_a_named_pipe_beside_a_results_file_is_refused(db):
    os.mkfifo(f"{db}-wal")
    for args in (["report", str(db)], [*RESUME, "--games", "2", "--db", str(db)]):
        done = run_cli(*args, timeout=60)
        assert done.returncode == 2 and "its wal file" in done.stderr and "named pipe" in done.stderr, done.stderr


# ------------------------------------------------------------------ a full disk
def _private_mounts() -> list[str] | None:
    """The command that runs a shell in a mount namespace of its own (for tmpfs and read-only
    mounts that no one else sees), or ``None`` where this machine does not allow one."""
    command = ["unshare", "--mount"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--mount"]
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run([*command, "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"], capture_output=True)
    return command if probe.returncode == 0 else None


def _in_private_mounts(script: str) -> subprocess.CompletedProcess:
    command = _private_mounts()
    if command is None:
        pytest.skip("no private mount namespace here (unshare --mount is not allowed)")
    return subprocess.run(
        [*command, "sh", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )


def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path):
    """A real full disk: a 160 kB tmpfs, mounted where only this test sees it."""
    disk = tmp_path / "disk"
    disk.mkdir()
    tournament = " ".join([sys.executable, "-m", "arena", *RESUME, "--games", "400", "--db", f"{disk}/r.db"])
    done = _in_private_mounts(
        f"mount -t tmpfs -o size=160k tmpfs {disk} && {{ {tournament} ; echo rc=$? ; }} && "
        f"mount -o remount,size=8m tmpfs {disk} && {tournament}"
    )
    full, _, resumed = done.stdout.partition("rc=2\n")
    assert resumed, done.stdout + done.stderr  # the first run stopped with exit code 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "could not be written (database or disk is full)" in lines[0], done.stderr
    assert "every game committed before it is kept" in lines[0] and "run the same command again to resume" in lines[0]
    kept = int(lines[0].split(" games stored)")[0].rsplit("(", 1)[1])
    assert 0 < kept < 400
    assert f"400 of 400 games stored ({400 - kept} played now" in resumed.replace("\n", " "), resumed


def test_a_write_past_max_page_count_is_one_line_and_the_run_resumes(db, capsys, monkeypatch):
    """The same fault everywhere: ``PRAGMA max_page_count`` makes SQLite answer "database or disk
    is full" past 40 pages, as a full disk does (where no tmpfs can be mounted)."""
    import arena.runtime.store as store

    def harden_and_cap(connection: sqlite3.Connection) -> sqlite3.Connection:
        connection.execute("PRAGMA max_page_count = 40")
        return harden(connection)

    harden = store.harden
    monkeypatch.setattr(store, "harden", harden_and_cap)
    args = ["tournament", "tic_tac_toe", "--agents", AGENTS, "--seed", "1", "--games", "400", "--progress", "none"]
    assert main([*args, "--db", str(db)]) == 2
    err = one_line_error(capsys, "tournament")
    assert "(database or disk is full)" in err and "run the same command again to resume" in err, err
    kept = int(err.split(" games stored)")[0].rsplit("(", 1)[1])
    assert 2 < kept < 400
    monkeypatch.undo()
    assert main([*args, "--db", str(db)]) == 0
    assert f"400 of 400 games stored ({400 - kept} played now" in capsys.readouterr().out.replace("\n", " ")


# ------------------------------------------------------------------ empty, forfeit-only, huge numbers
def test_a_file_without_games_is_a_clear_answer(db, capsys):
    tamper(db, "DELETE FROM games", "DELETE FROM replays")
    assert main(["report", str(db), "--bootstrap", "2"]) == 2
    assert f"'{db}' holds no finished games yet; nothing to report" in one_line_error(capsys, "report")


def test_a_file_of_forfeits_only_is_reported(tmp_path, capsys):
    db = tmp_path / "forfeits.db"
    quitter = "tests.faults.entrants:SystemExitAgent"
    assert (
        main(
            ["tournament", "tic_tac_toe", "--agents", f"x={quitter},y={quitter}", "--games", "2"]
            + ["--db", str(db), "--progress", "none"]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["report", str(db), "--bootstrap", "2", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 2 and {row["name"] for row in report["standings"]} == {"x", "y"}


HUGE = {
    "an integer of 5,000 digits": (
        'UPDATE games SET ranks = \'{"random": 1' + "0" * 4999 + ', "b": 2}\'',
        "column 'ranks' holds an integer of more than 4,300 digits, too long to read",
    ),
    "a rank past a float's range": (
        'UPDATE games SET ranks = \'{"random": 1' + "0" * 400 + ', "b": 2}\'',
        "column 'ranks' holds a number too large for a float",
    ),
    "a return past a float's range": (
        'UPDATE games SET returns = \'{"random": 1' + "0" * 400 + ', "b": 2}\'',
        "column 'returns' holds a number too large for a float",
    ),
    "env options of 5,000 digits": (
        'UPDATE meta SET value = \'{"size": 1' + "0" * 4999 + "}' WHERE key = 'env_kwargs'",
        "rule 'env_kwargs' holds an integer of more than 4,300 digits",
    ),
}


@pytest.mark.parametrize("damage", sorted(HUGE))
def test_huge_numbers_are_one_line_naming_the_row_and_column(db, damage, capsys):
    statement, expected = HUGE[damage]
    tamper(db, statement)
    # The rules are read by the readers that build the env (a listing does not).
    readers = ("report", "replay --verify") if "meta" in statement else sorted(READERS)
    for reader in readers:
        command = READERS[reader]
        assert main(command(db)) == 2, reader
        err = one_line_error(capsys, command(db)[0])
        assert expected in err, (reader, err)


# ------------------------------------------------------------------ a log beside a read-only folder
def _crashed_copy(stored: Path, folder: Path, *, with_index: bool) -> None:
    """``folder`` as a tournament killed mid-run leaves it: 2 games in the file, 2 more only in
    its write-ahead log (and the log's index, ``-shm``, unless ``with_index`` is false)."""
    folder.mkdir()
    work = folder.parent / f"{folder.name}-work"
    work.mkdir()
    shutil.copyfile(stored, work / "results.db")
    writer = sqlite3.connect(work / "results.db", isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute(
        "INSERT INTO games SELECT lineup, game_index + 100, seed, seats, ranks, returns, length, outcome, forfeit, "
        "error, versions, truncated, seconds, finished_at FROM games"
    )
    for suffix in ("", "-wal", "-shm") if with_index else ("", "-wal"):
        shutil.copyfile(work / f"results.db{suffix}", folder / f"results.db{suffix}")
    writer.close()


@pytest.mark.parametrize("with_index", [True, False], ids=["with -shm", "without -shm"])
def test_games_in_a_log_beside_a_read_only_folder_are_read(stored, tmp_path, with_index):
    folder = tmp_path / "shared"
    _crashed_copy(stored, folder, with_index=with_index)
    before = {path.name: _digest(path) for path in folder.iterdir()}
    report = " ".join([sys.executable, "-m", "arena", "report", f"{folder}/results.db", "--bootstrap", "2"])
    # A read-only mount: the folder is not writable even by root.
    done = _in_private_mounts(f"mount --bind -o ro {folder} {folder} && {report} --json -")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 4
    assert {path.name: _digest(path) for path in folder.iterdir()} == before
