"""The one place that imports ``magent2`` (an optional dependency: the ``magent`` extra)."""

from __future__ import annotations

import os
from typing import Any

from arena.errors import MissingDependencyError

__all__ = ["magent_game"]


def magent_game(name: str) -> Any:
    """MAgent2's PettingZoo game module ``name`` (``"battle_v4"``, ``"combined_arms_v6"``).

    Raises:
        MissingDependencyError: magent2 is not installed; the message names the extra.
    """
    # MAgent2's renderer draws with pygame; headless machines have no display to open.
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        from magent2 import environments
    except ImportError as err:
        raise MissingDependencyError(
            f"the MAgent2 envs need the magent2 package ({err}); install the extra: pip install 'arena-marl[magent]'"
        ) from err
    return getattr(environments, name)
