"""Short episodes for the registry-wide tests.

Tests that run every bundled env (``envs.names()``) build them through :func:`quick_make`,
so that envs whose default episode is long real physics (soccer: 45 game seconds, 1,800
MuJoCo steps) play a short one there; each env's own tests cover its full options.
"""

from __future__ import annotations

import functools
from typing import Any

import envs

#: Options per env name merged under the caller's: keep each under a second a game.
QUICK_OPTIONS: dict[str, dict[str, Any]] = {
    "soccer": {"time_limit": 0.5},  # 20 steps of 2v2
    "magent_battle": {"map_size": 12, "max_steps": 30},  # 2 soldiers a side (81 on the default 45x45)
    "magent_combined_arms": {"map_size": 16, "max_steps": 30},  # 3 melee + 3 ranged a side
}


def quick_make(name: str, **kwargs: Any) -> Any:
    """``envs.make(name, **kwargs)`` with :data:`QUICK_OPTIONS` for ``name`` underneath."""
    return envs.make(name, **{**QUICK_OPTIONS.get(name, {}), **kwargs})


@functools.cache
def probe(name: str) -> Any:
    """One :func:`quick_make` env per name and process, for what a test module reads while pytest collects it.

    Seats, metadata, render modes: the modules that parametrize over every env asked a new env each
    (a soccer build is about half a second, and each of pytest's workers collects every module). Read it;
    never reset or step it (tests build their own).
    """
    return quick_make(name)
