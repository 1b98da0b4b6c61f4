"""The suite's numba warm-up (tests/conftest.py, tests/_warm_numba.py) compiles this checkout's Pommerman."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, WARM_UP_COMMAND, warm_up_environment


def test_the_warm_up_imports_the_checkouts_envs_not_the_env_tests_package():
    """Run as a script, tests/ heads sys.path and tests/envs hides the checkout's envs: nothing is warmed."""
    pytest.importorskip("numba")
    done = subprocess.run(
        [*WARM_UP_COMMAND, "--where"],
        cwd=ROOT,
        env=warm_up_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert Path(done.stdout.strip()) == ROOT / "envs" / "pommerman" / "__init__.py"
