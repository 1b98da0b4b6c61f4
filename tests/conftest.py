"""Suite-wide settings."""

import importlib.util
import logging
import os
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from envs.vizdoom import VizdoomDeathmatch

# The registry-wide tests build every bundled env with its defaults; ViZDoom matches run real
# engines in real time, so the suite plays short ones (2 s of game time, about 18 steps).
VizdoomDeathmatch.default_time_limit = 2.0

# Several tests press Ctrl-C (SIGINT) on a CLI they start. A suite launched in the background by
# a non-interactive shell (`cmd &`, nohup) inherits SIGINT ignored, and so would every CLI it
# starts: they would sit through the signal. A Python handler is not inherited across exec, so
# with this one the CLIs start with the default disposition and Python's KeyboardInterrupt.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# ViZDoom can crash the process when a DoomGame is closed from the garbage collector (on any
# thread, at any later test). Every ViZDoom env a test starts is closed here, on the main
# thread, as soon as the test ends; closing twice is safe.
_started_vizdoom_envs: weakref.WeakSet = weakref.WeakSet()
_start = VizdoomDeathmatch._start


def _recording_start(self, *args, **kwargs):
    _started_vizdoom_envs.add(self)
    return _start(self, *args, **kwargs)


VizdoomDeathmatch._start = _recording_start


@pytest.fixture(autouse=True)
def _close_vizdoom_engines() -> Iterator[None]:
    yield
    for env in list(_started_vizdoom_envs):
        env.close()
    _started_vizdoom_envs.clear()


# Pommerman's numba code compiles once per fresh checkout (over a minute of CPU, docs/performance.md,
# "CI"), in whichever test needs it first. So a process started with the session compiles it while the
# first tests run (tests/_warm_numba.py); numba's disk cache and compile_once's lock hand the result over
# (a test that needs a part being compiled waits for it, in whichever pytest-xdist worker it runs).
_warming: list[subprocess.Popen] = []
ROOT = Path(__file__).resolve().parents[1]
# a module run from the root, not a script: a script's folder (tests/) would head sys.path, and its
# package tests/envs would hide the checkout's envs (tests/_warm_numba.py)
WARM_UP_COMMAND = [sys.executable, "-m", "tests._warm_numba"]


def warm_up_environment() -> dict[str, str]:
    """The warm-up's environment: this one, with the checkout first on ``PYTHONPATH``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def pytest_sessionstart(session: pytest.Session) -> None:
    # with pytest-xdist (``-n``), once: in the controller, not in each of its workers
    if importlib.util.find_spec("numba") is None or os.cpu_count() == 1 or "PYTEST_XDIST_WORKER" in os.environ:
        return
    _warming.append(
        subprocess.Popen(
            WARM_UP_COMMAND,
            cwd=ROOT,
            env=warm_up_environment(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, ended by id at the session's end
        )
    )


# Starting a local Ray cluster takes seconds (5-12 s on the CI box, docs/performance.md, "CI"): the
# suite's in-process Ray tests share one, started by the first that asks for it and ended by the last
# (idle, it still takes about 2 s of CPU a minute). A test that leaves the cluster's CPUs taken (an
# actor left alive by a failure) ends it, so the next Ray test starts a fresh one rather than waiting
# for CPUs that never come back.
RAY_CPUS = 2  # the most workers a Ray test asks for
_last_ray_test: list[str] = []


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    users = [item for item in items if "ray_cluster" in getattr(item, "fixturenames", ())]
    _last_ray_test[:] = [item.nodeid for item in users[-1:]]
    for item in users:  # with pytest-xdist's --dist loadgroup, all on one worker: one cluster, not one each
        item.add_marker(pytest.mark.xdist_group("ray_cluster"))


@pytest.fixture()
def ray_cluster(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The session's local Ray cluster of ``RAY_CPUS`` CPUs, started if none runs; yields ``ray``."""
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=RAY_CPUS, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    yield ray
    last = request.node.nodeid in _last_ray_test
    if ray.is_initialized() and (last or not _all_cpus_free(ray, wait=5.0)):
        ray.shutdown()


def _all_cpus_free(ray: Any, wait: float) -> bool:
    """Whether every CPU of the cluster is free within ``wait`` seconds (a killed actor frees its own
    a moment later)."""
    deadline = time.monotonic() + wait
    while ray.available_resources().get("CPU", 0) < ray.cluster_resources().get("CPU", 0):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for process in _warming:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
    _warming.clear()
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()
