"""Stepping through a stored game at a text terminal.

Everything printed goes through :func:`arena.text.printable`: names, outcomes and actions come
from the results file, and none of their characters reaches the terminal as a control code.

Keys (one per line, then Enter): Enter or ``n`` next, ``p`` previous, a number jumps to that
step, ``f`` first, ``l`` last, ``q`` quits; the end of the input quits too.
"""

from __future__ import annotations

import sys
from typing import TextIO

from arena.replay.engine import Frame, action_names, build_env, render_modes, replay
from arena.replay.pack import describe_action, strip_ansi
from arena.replay.source import StoredGame
from arena.text import printable

__all__ = ["step_through", "format_frame", "KEYS"]

KEYS = "Enter/n next, p previous, NUMBER jump to step, f first, l last, q quit"


def format_frame(frame: Frame, last: int, seats: dict[str, str], names: dict[str, list[str] | None]) -> str:
    """A frame as text: the step, the env's text render, then each agent's action, reward and return
    (colour codes stripped, other control characters escaped: see :func:`arena.text.printable`)."""
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
    return printable("\n".join(lines))


def step_through(game: StoredGame, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Show ``game`` one step at a time, reading keys from ``stdin``; returns the last step shown."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    with game.reading():
        mode = "ansi" if "ansi" in render_modes(game.env) else None
    env = build_env(game, mode)
    try:
        names = {agent: action_names(env, agent) for agent in env.possible_agents}
        frames = list(replay(game, render=mode, env=env))
    finally:
        env.close()
    last = len(frames) - 1
    print(printable(game.title), file=stdout)
    print(printable(f"result: {game.result.outcome}; keys: {KEYS}"), file=stdout)
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
            print(printable(f"unknown key {key!r}; {KEYS}"), file=stdout)
