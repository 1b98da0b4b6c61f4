"""Running the real ``arena`` CLI in a subprocess, under a timeout, for the fault tests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENTRANTS = "tests.faults.entrants"

# Far above what any of these tiny runs needs on a loaded box: reaching it means a hang.
TIMEOUT = 120


def run_cli(*args: str, timeout: float = TIMEOUT, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``python -m arena ARGS`` in its own process group; on timeout the group is killed and the test fails."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        cwd=cwd,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"arena {' '.join(args)} hung (killed after {timeout} s)\n{out}\n{err}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def start_cli(*args: str) -> subprocess.Popen:
    """``python -m arena ARGS`` started in the background (its own process group)."""
    return subprocess.Popen(
        [sys.executable, "-m", "arena", *args],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )


def finish(process: subprocess.Popen, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(f"{process.args!r} hung (killed after {timeout} s)\n{out}\n{err}") from None
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def main_one_line_error(capsys, argv: list[str], expected: str) -> str:
    """``arena.cli.main(argv)`` exits 2 with one line on stderr, no traceback, holding ``expected``."""
    from arena.cli import main

    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert expected in err, err
    return err


def store_two_games(path: Path) -> Path:
    """A real results file at ``path``: two seeded tic-tac-toe games of ``random`` against ``b=random``."""
    from arena.tournament import run_tournament

    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=path, workers=1, seed=1)
    return path


def copy_results(source: Path, target: Path) -> Path:
    """A copy of results file ``source`` at ``target``, through SQLite's backup (its log included)."""
    import sqlite3

    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    return target
