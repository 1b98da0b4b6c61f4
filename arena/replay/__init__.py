"""Replays of stored games: read them, step through them, check them, film them, show them.

A tournament's results file (and ``arena play --record``) stores each game's joint actions
beside its result (see :mod:`arena.runtime.actions`); this package reads them back
(:mod:`~arena.replay.source`), plays them again (:mod:`~arena.replay.engine`), and shows
them in a terminal, a video or a self-contained web page.

Example:
    >>> import tempfile, pathlib
    >>> from arena.tournament import run_tournament
    >>> db = pathlib.Path(tempfile.mkdtemp()) / "ttt.db"
    >>> _ = run_tournament("tic_tac_toe", ["random", "mcts"], games=2, db=db, workers=1)
    >>> [verify_game(game) for game in load_games(db)]
    [None, None]
"""

from __future__ import annotations

from arena.replay.engine import EyeView, Frame, replay, verify_game
from arena.replay.source import StoredGame, list_games, load_game, load_games

__all__ = ["EyeView", "Frame", "replay", "verify_game", "StoredGame", "list_games", "load_game", "load_games"]
