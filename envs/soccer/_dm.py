"""The one place that imports dm_control (an optional dependency: the ``soccer`` extra)."""

from __future__ import annotations

import os
from typing import Any

from arena.errors import MissingDependencyError

__all__ = ["load_dm_soccer", "WALKERS"]

#: arena's walker names and dm_control's ``WalkerType`` member names.
WALKERS = {"boxhead": "BOXHEAD", "ant": "ANT", "humanoid": "HUMANOID"}


def dm_soccer_module() -> Any:
    """Import ``dm_control.locomotion.soccer``, or raise an error naming the extra to install."""
    # Feature observations need no OpenGL; without this dm_control probes GLFW/EGL on import and
    # warns on machines without a display. A value the user set (for camera rendering) is kept.
    os.environ.setdefault("MUJOCO_GL", "disable")
    try:
        from dm_control.locomotion import soccer
    except ImportError as err:
        raise MissingDependencyError(
            f"the soccer env needs dm_control and mujoco ({err}); install the extra: pip install 'arena-marl[soccer]'"
        ) from err
    return soccer


def load_dm_soccer(
    *,
    team_size: int,
    time_limit: float,
    walker: str,
    terminate_on_goal: bool,
    disable_walker_contacts: bool,
    field_box: bool,
    seed: int | None = None,
) -> Any:
    """Build dm_control's soccer ``composer.Environment`` with these options."""
    soccer = dm_soccer_module()
    return soccer.load(
        team_size=team_size,
        time_limit=time_limit,
        random_state=seed,
        disable_walker_contacts=disable_walker_contacts,
        enable_field_box=field_box,
        terminate_on_goal=terminate_on_goal,
        walker_type=getattr(soccer.WalkerType, WALKERS[walker]),
    )
