"""Fixtures shared by the env tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from envs.pommerman.replay import read_trajectories

ROOT = Path(__file__).resolve().parents[2]
TRAJECTORIES = Path(
    os.environ.get(
        "ARENA_POMMERMAN_TRAJECTORIES", ROOT.parent / "shared" / "pommerman" / "reference-trajectories.jsonl.gz"
    )
)


@pytest.fixture(scope="session")
def trajectories():
    if not TRAJECTORIES.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(
                f"the reference trajectories are missing: {TRAJECTORIES} (CI runs with ../shared beside the clone)"
            )
        pytest.skip(f"no reference trajectories at {TRAJECTORIES} (set ARENA_POMMERMAN_TRAJECTORIES)")
    meta, episodes = read_trajectories(TRAJECTORIES)
    return meta, list(episodes)
