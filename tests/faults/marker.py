"""A module whose import leaves a mark on disk: the hostile-file tests show that reading a file
which names it never imports it (and that ``--trust`` does)."""

from __future__ import annotations

import os
from pathlib import Path

if os.environ.get("ARENA_TEST_MARKER"):
    Path(os.environ["ARENA_TEST_MARKER"]).write_text("imported\n")


def make_env(**kwargs):
    """The tic-tac-toe env, under another name."""
    from envs.tic_tac_toe import TicTacToe

    return TicTacToe(**kwargs)


def make_agent(**kwargs):
    """A random agent, under another name."""
    from arena import RandomAgent

    return RandomAgent(**kwargs)
