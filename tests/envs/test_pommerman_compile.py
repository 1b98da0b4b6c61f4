"""Numba's disk cache for Pommerman: the first process compiles once, saying so with progress; the next loads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("numba")

from envs.pommerman import _jit  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# A module of the test's own, compiled with arena's decorator and announced as Pommerman's parts are.
_MODULE = """
import sys
from envs.pommerman._jit import compile_once, njit, numba_cache_folder

@njit
def add(a, b):
    return a + b

compiled = compile_once(add, "a test function", lambda: add(1, 2), expect="a moment")
add(3, 4)
print("compiled" if compiled else "loaded", sum(add.stats.cache_hits.values()), sum(add.stats.cache_misses.values()))
print(numba_cache_folder())
"""


def _run(tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import compiled_in_test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard, far above a one-line compile
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}", "NUMBA_CACHE_DIR": str(tmp_path / "cache")},
    )


def test_a_second_process_loads_what_the_first_compiled_and_only_the_first_says_so(tmp_path) -> None:
    (tmp_path / "compiled_in_test.py").write_text(_MODULE)
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    compiled, folder = first.stdout.splitlines()
    assert compiled.startswith("compiled 0 ")  # compiled, nothing from the cache
    assert Path(folder).parent == tmp_path / "cache"  # NUMBA_CACHE_DIR is where the package caches
    # numba names a module's cache folder after the module's folder
    (cached_in,) = [path for path in (tmp_path / "cache").iterdir() if path.name.startswith(f"{tmp_path.name}_")]
    assert (
        "arena: compiling a test function with numba, once for this install (a moment the first time; "
        f"cached in {cached_in})"
    ) in first.stderr
    assert "arena: compiled a test function in " in first.stderr and "later runs load it from the cache" in first.stderr

    second = _run(tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[0] == "loaded 1 0"  # from the disk cache, no compile
    assert "compiling" not in second.stderr


def test_a_process_that_finds_another_compiling_says_it_waits(tmp_path) -> None:
    import fcntl

    lock = str(tmp_path / "arena-compiling.lock")
    said: list[str] = []
    entered = threading.Event()
    with open(lock, "a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)  # "another process" is compiling

        def wait_for_turn() -> None:
            with _jit._turn(lock, lambda: said.append("waiting")):
                entered.set()

        waiter = threading.Thread(target=wait_for_turn)
        waiter.start()
        assert not entered.wait(0.5) and said == ["waiting"]
    waiter.join(60)  # the holder closed its file: the lock is free
    assert entered.is_set()
    with _jit._turn(lock, lambda: said.append("again")):  # free: no word
        with _jit._turn(lock, lambda: said.append("nested")):  # re-entrant in one process
            pass
    assert said == ["waiting"]


def test_progress_lines_count_the_functions_and_the_seconds(tmp_path) -> None:
    import io

    stream = io.StringIO()
    with _jit._Progress("the rules", "about a minute", str(tmp_path), stream=stream) as progress:
        progress.functions = 3
        line = progress.line()
    assert line.startswith("arena: compiling the rules: 3 functions, ") and line.endswith(" s")
    printed = stream.getvalue().splitlines()
    assert printed[0] == (
        f"arena: compiling the rules with numba, once for this install (about a minute the first time; cached in {tmp_path})"
    )
    assert printed[-1].startswith("arena: compiled the rules in ") and "(3 functions)" in printed[-1]


def test_the_stale_cache_check_follows_numba_to_its_cache_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(_jit, "HAVE_NUMBA", True)
    (tmp_path / "core.py").write_text("RULES = 1\n")
    elsewhere = tmp_path / "user-cache"  # NUMBA_CACHE_DIR's, or the user's when the package is read-only
    elsewhere.mkdir()
    (elsewhere / "core.advance-10.py311.nbi").write_bytes(b"old")
    assert _jit.forget_stale_cache(tmp_path, [], cache=elsewhere)
    assert not (elsewhere / "core.advance-10.py311.nbi").exists()
    assert (elsewhere / _jit.SOURCES_STAMP).is_file() and not (tmp_path / "__pycache__").exists()
