"""Filming a stored game from the env's pictures: MP4 (imageio's ffmpeg plugin) or GIF (Pillow)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.errors import ReplayError
from arena.replay.engine import build_env, render_modes, replay
from arena.replay.html import view_mode
from arena.replay.source import StoredGame

__all__ = ["write_video"]


def write_video(game: StoredGame, path: str | Path, fps: float | None = None) -> Path:
    """Film ``game`` from the env's pictures (``rgb_array``) as MP4 (ffmpeg) or GIF.

    Raises:
        ReplayError: the env draws no pictures, or the file type is not .mp4 or .gif.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise ReplayError(f"replay: a video is written as .mp4 or .gif, got {str(path)!r}")
    with game.reading():
        modes = render_modes(game.env)
    if view_mode(modes) != "rgb_array":
        raise ReplayError(
            f"replay: {game.env.factory} draws no pictures (render modes: {', '.join(modes) or 'none'}); "
            "--html shows its games in a web page"
        )
    try:
        import imageio.v2 as imageio
    except ImportError:
        raise ImportError(
            "replay: videos need imageio (and imageio-ffmpeg for .mp4): pip install 'arena-marl[replay]'"
        ) from None
    env = build_env(game, "rgb_array")
    fps = fps or float((getattr(env, "metadata", None) or {}).get("render_fps") or 10)
    options: dict[str, Any] = (
        {"fps": fps, "macro_block_size": 1} if suffix == ".mp4" else {"duration": 1000.0 / fps, "loop": 0}
    )
    try:
        writer = imageio.get_writer(str(path), **options)
        with writer:  # not `as writer`: imageio's stub types __enter__ as the base class, without append_data
            for frame in replay(game, render="rgb_array", env=env):
                writer.append_data(frame.view)
    finally:
        env.close()
    return path
