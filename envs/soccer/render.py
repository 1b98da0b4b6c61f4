"""Pictures of a soccer match: a top-down drawing from positions, or MuJoCo's own camera."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from arena.errors import ArenaError, MissingDependencyError

__all__ = ["positions", "render_top_down", "render_camera", "COLORS"]

#: RGB colours of the drawing (home is dm_control's blue side, away its red side).
COLORS = {
    "grass": (58, 125, 60),
    "outside": (40, 88, 42),
    "line": (235, 235, 235),
    "home": (50, 90, 230),
    "away": (220, 50, 50),
    "ball": (250, 250, 250),
    "outline": (20, 20, 20),
}
_MARGIN = 0.04  # of the picture's width, around the pitch
_ASPECT = 4 / 3


def positions(dm_env: Any) -> dict[str, Any]:
    """Where the pitch, goals, ball and players of ``dm_env`` (dm_control soccer) are now.

    Returns:
        ``{"pitch": (half length, half width), "goal": (half depth, half width),
        "ball": (x, y), "players": [(x, y, heading), ...]}`` in metres and radians,
        players in dm_control's order (home first); a heading is the direction a
        positive ``roll`` drives the walker.
    """
    task, physics = dm_env.task, dm_env.physics
    arena = task.arena
    goal = arena.home_goal
    ball = physics.bind(task.ball.root_body).xpos
    players = []
    for player in task.players:
        body = physics.bind(player.walker.root_body)
        xmat = body.xmat
        # BoxHead drives along its body's -x axis when ``roll`` > 0: that is its heading.
        players.append((float(body.xpos[0]), float(body.xpos[1]), math.atan2(-float(xmat[3]), -float(xmat[0]))))
    lower, upper = np.asarray(goal.lower, float), np.asarray(goal.upper, float)
    return {
        "pitch": (float(arena.size[0]), float(arena.size[1])),
        "goal": (float(upper[0] - lower[0]) / 2, float(upper[1] - lower[1]) / 2),
        "ball": (float(ball[0]), float(ball[1])),
        "players": players,
    }


def render_top_down(where: dict[str, Any], team_size: int, *, height: int = 240) -> np.ndarray:
    """Draw ``where`` (from :func:`positions`) from above as an RGB array.

    The picture is ``height`` x ``round(4/3 * height)`` whatever the pitch size: the pitch
    is scaled to fit. Home players are blue, away players red, each with a white tick
    showing where it faces; the ball is white.

    Example:
        >>> picture = render_top_down({"pitch": (40, 30), "goal": (1, 4), "ball": (0, 0),
        ...                            "players": [(-5, 0, 0.0), (5, 0, 3.14)]}, 1, height=60)
        >>> picture.shape, picture.dtype.name
        ((60, 80, 3), 'uint8')
    """
    try:
        from PIL import Image, ImageDraw
    except ImportError as err:
        raise MissingDependencyError(
            f"soccer rendering needs Pillow ({err}); install the extra: pip install 'arena-marl[soccer]'"
        ) from err
    width = round(_ASPECT * height)
    half_x, half_y = where["pitch"]
    margin = _MARGIN * width
    scale = min((width - 2 * margin) / (2 * half_x), (height - 2 * margin) / (2 * half_y))
    cx, cy = width / 2, height / 2

    def at(x: float, y: float) -> tuple[float, float]:
        return cx + x * scale, cy - y * scale  # image y grows downwards

    image = Image.new("RGB", (width, height), COLORS["outside"])
    draw = ImageDraw.Draw(image)
    depth, goal_half = where["goal"]
    field_x, field_y = half_x - 2 * depth, half_y - 2 * depth  # dm_control's field detector inside the goals
    draw.rectangle([at(-half_x, half_y), at(half_x, -half_y)], fill=COLORS["grass"])
    line = max(1, round(height / 160))
    draw.rectangle([at(-field_x, field_y), at(field_x, -field_y)], outline=COLORS["line"], width=line)
    draw.line([at(0, field_y), at(0, -field_y)], fill=COLORS["line"], width=line)
    radius = 0.15 * field_y * scale
    draw.ellipse([cx - radius, cy - radius, cx + radius, cy + radius], outline=COLORS["line"], width=line)
    for sign, team in ((-1, "home"), (1, "away")):  # the home goal is at -x
        mouth = sign * field_x
        draw.rectangle(
            [at(min(mouth, mouth + sign * 2 * depth), goal_half), at(max(mouth, mouth + sign * 2 * depth), -goal_half)],
            fill=COLORS[team],
            outline=COLORS["line"],
            width=line,
        )
    body = max(2.0, 0.9 * scale)
    for index, (x, y, heading) in enumerate(where["players"]):
        px, py = at(x, y)
        colour = COLORS["home" if index < team_size else "away"]
        draw.ellipse([px - body, py - body, px + body, py + body], fill=colour, outline=COLORS["outline"])
        tip = (px + 1.6 * body * math.cos(heading), py - 1.6 * body * math.sin(heading))
        draw.line([(px, py), tip], fill=COLORS["line"], width=max(1, line))
    bx, by = at(*where["ball"])
    ball = max(1.5, 0.6 * scale)
    draw.ellipse([bx - ball, by - ball, bx + ball, by + ball], fill=COLORS["ball"], outline=COLORS["outline"])
    return np.asarray(image)


def render_camera(dm_env: Any, height: int, *, where: str = "soccer") -> np.ndarray:
    """MuJoCo's top-down camera picture, ``height`` x ``4/3 * height``.

    Raises:
        ArenaError: MuJoCo cannot render here (no EGL/OSMesa); the message says what to
            set, and that the ``"rgb_array"`` drawing needs no OpenGL.
    """
    try:
        return dm_env.physics.render(height=height, width=round(_ASPECT * height), camera_id=0)
    except Exception as err:  # noqa: BLE001 - dm_control raises several kinds for a missing backend
        raise ArenaError(
            f"{where}: render_mode='camera' needs MuJoCo's OpenGL rendering, which failed here "
            f"({type(err).__name__}: {err}); it needs EGL (a GPU driver) or OSMesa, chosen with MUJOCO_GL=egl or "
            "MUJOCO_GL=osmesa set before dm_control is first imported; render_mode='rgb_array' draws the pitch "
            "from positions without OpenGL"
        ) from err
