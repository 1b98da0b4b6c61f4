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
