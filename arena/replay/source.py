"""Stored games, read back from a tournament's results file (or an ``arena play --record`` file).

The file is opened read-only: looking at games never changes it, and works while a tournament
is still writing to it (SQLite's write-ahead log lets readers in).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import GameNotFoundError, ReplayError
from arena.specs.agents import AgentSpec, EnvSpec
from arena.tournament.actions import decode_actions
from arena.tournament.game import GameResult
from arena.tournament.store import _COLUMNS, _result

__all__ = ["StoredGame", "list_games", "load_game", "load_games"]


@dataclass
class StoredGame:
    """One stored game: everything needed to play it again.

    Attributes:
        id: the game's number in its file (``arena replay DB`` lists them).
        env: the env spec of the tournament.
        result: the stored record (seed, seats, returns, ...).
        entrants: entrant name -> spec, for the entrants seated in this game.
        steps: the actions dict given to ``env.step`` at each step (``None`` when the file stored
            no actions for this game: the env failed, or the file predates action storage).
        db: the file it came from.
    """

    id: int
    env: EnvSpec
    result: GameResult
    entrants: dict[str, AgentSpec] = field(default_factory=dict)
    steps: list[dict[str, Any]] | None = field(default=None, repr=False)
    db: str = ""

    @property
    def title(self) -> str:
        """``"game 3 of results.db: tic_tac_toe, seed 12: a (player_0) vs b (player_1)"``."""
        seats = " vs ".join(f"{name} ({seat})" for seat, name in self.result.seats.items())
        return f"game {self.id} of {Path(self.db).name}: {self.env.factory}, seed {self.result.seed}: {seats}"


def _connect(path: str | Path) -> sqlite3.Connection:
    path = Path(path)
    if not path.is_file():
        raise ReplayError(f"replay: no results file at {str(path)!r}")
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as err:
        raise ReplayError(f"replay: {str(path)!r} is not an arena results file ({err})") from None
    if not {"games", "meta", "entrants"} <= tables:
        db.close()
        raise ReplayError(f"replay: {str(path)!r} is not an arena results file (it has no games table); "
                          "give a file written by `arena tournament --db` or `arena play --record`")
    return db


def _rules(db: sqlite3.Connection, path: str) -> EnvSpec:
    meta = {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
    if "env" not in meta:
        raise ReplayError(f"replay: {path!r} names no env (its tournament never started)")
    return EnvSpec(meta["env"], meta.get("env_kwargs") or {})


def _entrants(db: sqlite3.Connection) -> dict[str, AgentSpec]:
    return {name: AgentSpec(name, factory, json.loads(kwargs))
            for name, factory, kwargs in db.execute("SELECT name, factory, kwargs FROM entrants")}


def _has_replays(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'replays'").fetchone() is not None


def list_games(path: str | Path) -> list[tuple[int, GameResult, bool]]:
    """``(id, record, has actions)`` of every stored game, in the order they were stored."""
    db = _connect(path)
    try:
        join = "LEFT JOIN replays r USING (lineup, game_index)" if _has_replays(db) else ""
        has = "r.actions IS NOT NULL" if join else "0"
        columns = ", ".join(f"g.{c}" for c in _COLUMNS)
        rows = db.execute(f"SELECT g.rowid, {has}, {columns} FROM games g {join} ORDER BY g.rowid").fetchall()
    finally:
        db.close()
    return [(row[0], _result(row[2:]), bool(row[1])) for row in rows]


def _parse_id(game: int | str, path: str) -> tuple[str, Any]:
    if isinstance(game, int) and not isinstance(game, bool):
        return "g.rowid = ?", (game,)
    text = str(game).strip()
    if text.isdigit():
        return "g.rowid = ?", (int(text),)
    lineup, sep, index = text.rpartition("#")
    if sep and index.isdigit():
        return "g.lineup = ? AND g.game_index = ?", (lineup, int(index))
    raise ReplayError(f"replay: a game is given by its number (see `arena replay {path}`) or as LINEUP#INDEX, "
                      f"got {game!r}")


def load_game(path: str | Path, game: int | str) -> StoredGame:
    """The stored game ``game`` (its number, or ``"LINEUP#INDEX"``) of the file at ``path``.

    Raises:
        ReplayError: the file is not an arena results file.
        GameNotFoundError: no such game.
    """
    where, args = _parse_id(game, str(path))
    return _load(path, where, args, game)[0]


def load_games(path: str | Path) -> list[StoredGame]:
    """Every stored game of the file, in the order they were stored."""
    return _load(path, "1", (), None)


def _load(path: str | Path, where: str, args: Any, asked: Any) -> list[StoredGame]:
    db = _connect(path)
    try:
        env = _rules(db, str(path))
        entrants = _entrants(db)
        join, actions = ("LEFT JOIN replays r USING (lineup, game_index)", "r.actions") if _has_replays(db) else ("", "NULL")
        columns = ", ".join(f"g.{c}" for c in _COLUMNS)
        rows = db.execute(f"SELECT g.rowid, {actions}, {columns} FROM games g {join} WHERE {where} ORDER BY g.rowid",
                          args).fetchall()
    finally:
        db.close()
    if asked is not None and not rows:
        raise GameNotFoundError(f"replay: {str(path)!r} has no game {asked!r}; `arena replay {path}` lists the games")
    games = []
    for row in rows:
        result = _result(row[2:])
        blob = None if row[1] is None else bytes(row[1])
        result.actions = blob
        seated = {name: entrants[name] for name in result.seats.values() if name in entrants}
        games.append(StoredGame(row[0], env, result, seated, None if blob is None else decode_actions(blob), str(path)))
    return games
