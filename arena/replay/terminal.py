"""Stepping through a stored game at a text terminal, and filming one (MP4 or GIF).

Keys (one per line, then Enter): Enter or ``n`` next, ``p`` previous, a number jumps to that
step, ``f`` first, ``l`` last, ``q`` quits; the end of the input quits too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from arena.replay.engine import Frame, action_names, build_env, render_modes, replay
from arena.replay.html import view_mode
from arena.replay.pack import describe_action, strip_ansi
from arena.replay.source import ReplayError, StoredGame

__all__ = ["step_through", "format_frame", "write_video", "KEYS"]

KEYS = "Enter/n next, p previous, NUMBER jump to step, f first, l last, q quit"


def format_frame(frame: Frame, last: int, seats: dict[str, str], names: dict[str, list[str] | None]) -> str:
    """A frame as text: the step, the env's text render, then each agent's action, reward and return."""
    lines = [f"--- step {frame.step} / {last} ---"]
    if isinstance(frame.view, str):
        lines.append(strip_ansi(frame.view).rstrip("\n"))
    for agent in seats:
        parts = [f"{agent} ({seats[agent]})"]
        if agent in frame.actions:
            parts.append(f"plays {describe_action(frame.actions[agent], names.get(agent))}")
        if agent in frame.rewards:
            parts.append(f"reward {frame.rewards[agent]:+g}")
        parts.append(f"return {frame.returns.get(agent, 0.0):+g}")
        if agent in frame.ended:
            parts.append(frame.ended[agent])
        lines.append("  " + ", ".join(parts))
    return "\n".join(lines)


def step_through(game: StoredGame, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Show ``game`` one step at a time, reading keys from ``stdin``; returns the last step shown."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    mode = "ansi" if "ansi" in render_modes(game.env) else None
    env = build_env(game, mode)
    try:
        names = {agent: action_names(env, agent) for agent in env.possible_agents}
        frames = list(replay(game, render=mode, env=env))
    finally:
        env.close()
    last = len(frames) - 1
    print(game.title, file=stdout)
    print(f"result: {game.result.outcome}; keys: {KEYS}", file=stdout)
    if mode is None:
        print("(this env has no text render: actions and rewards only; --html or --video show the game)", file=stdout)
    position = 0
    while True:
        print(format_frame(frames[position], last, game.result.seats, names), file=stdout)
        stdout.write("> ")
        stdout.flush()
        line = stdin.readline()
        if not line:
            print(file=stdout)
            return position
        key = line.strip().lower()
        if key in ("q", "quit"):
            return position
        if key in ("", "n"):
            position = min(position + 1, last)
        elif key == "p":
            position = max(position - 1, 0)
        elif key == "f":
            position = 0
        elif key == "l":
            position = last
        elif key.isdigit():
            position = min(int(key), last)
        else:
            print(f"unknown key {key!r}; {KEYS}", file=stdout)


def write_video(game: StoredGame, path: str | Path, fps: float | None = None) -> Path:
    """Film ``game`` from the env's pictures (``rgb_array``) as MP4 (ffmpeg) or GIF.

    Raises:
        ReplayError: the env draws no pictures, or the file type is not .mp4 or .gif.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise ReplayError(f"replay: a video is written as .mp4 or .gif, got {str(path)!r}")
    modes = render_modes(game.env)
    if view_mode(modes) != "rgb_array":
        raise ReplayError(f"replay: {game.env.factory} draws no pictures (render modes: {', '.join(modes) or 'none'}); "
                          "--html shows its games in a web page")
    try:
        import imageio.v2 as imageio
    except ImportError:
        raise ImportError("replay: videos need imageio (and imageio-ffmpeg for .mp4): "
                          "pip install 'arena-marl[replay]'") from None
    env = build_env(game, "rgb_array")
    fps = fps or float((getattr(env, "metadata", None) or {}).get("render_fps") or 10)
    options: dict[str, Any] = {"fps": fps, "macro_block_size": 1} if suffix == ".mp4" else {"duration": 1000.0 / fps, "loop": 0}
    try:
        with imageio.get_writer(str(path), **options) as writer:
            for frame in replay(game, render="rgb_array", env=env):
                writer.append_data(frame.view)
    finally:
        env.close()
    return path
