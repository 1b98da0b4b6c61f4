"""Crash-safe tournament results in one SQLite file (stdlib ``sqlite3``).

Design (see docs/architecture.md, "Tournaments"):

* one row per finished game, keyed by ``(lineup, game_index)``; a game is inserted with
  ``INSERT OR IGNORE`` in its own transaction as soon as the runner has it (games that arrive
  together from workers share one transaction: a group commit), so a game is either stored
  whole or not at all, and can never be counted twice;
* write-ahead logging (``journal_mode=WAL``, ``synchronous=NORMAL``): a commit survives the
  process being killed (``kill -9``); only a power cut can lose the last commits, which a rerun
  then plays again;
* the tournament's rules (env, seed, seatings, limits) are stored in ``meta``; a rerun with the
  same rules plays only the missing games, and a rerun with other rules is refused.
"""

from __future__ import annotations

import csv
import json
import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.tournament.game import GameResult
from arena.tournament.spec import AgentSpec

__all__ = ["ResultStore", "TournamentMismatchError", "result_row", "write_csv", "write_json", "game_dict"]

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    name TEXT PRIMARY KEY, factory TEXT NOT NULL, kwargs TEXT NOT NULL, excluded TEXT
);
CREATE TABLE IF NOT EXISTS games (
    lineup TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    ranks TEXT NOT NULL,
    returns TEXT,
    length INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    forfeit TEXT,
    error TEXT,
    versions TEXT NOT NULL,
    truncated INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finished_at TEXT NOT NULL,
    PRIMARY KEY (lineup, game_index)
);
CREATE TABLE IF NOT EXISTS replays (
    lineup TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    actions BLOB NOT NULL,
    PRIMARY KEY (lineup, game_index)
);
"""

_COLUMNS = ("lineup", "game_index", "seed", "seats", "ranks", "returns", "length", "outcome",
            "forfeit", "error", "versions", "truncated", "seconds", "finished_at")
_JSON_COLUMNS = ("seats", "ranks", "returns", "versions")


class TournamentMismatchError(ArenaError, ValueError):
    """The results file holds a tournament with other rules than the one asked to resume."""


class ResultStore:
    """The games of one tournament in an SQLite file (``":memory:"`` for a throw-away run).

    Args:
        path: the file; created with its tables when missing.

    Example:
        >>> store = ResultStore(":memory:")
        >>> store.count()
        0
        >>> store.close()
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=30.0)
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as err:
            raise ArenaError(f"tournament results file {self.path!r} cannot be used as an SQLite database: {err}") from None
        self._insert = f"INSERT OR IGNORE INTO games ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        self._insert_actions = "INSERT OR IGNORE INTO replays (lineup, game_index, actions) VALUES (?, ?, ?)"

    # ------------------------------------------------------------------ rules
    def bind(self, rules: Mapping[str, Any], entrants: Iterable[AgentSpec]) -> None:
        """Record the tournament's rules and entrants, or check them against the stored ones.

        Raises:
            TournamentMismatchError: the file holds a tournament with other rules, or an entrant
                of the same name built by another factory.
        """
        wanted = {key: json.dumps(value, sort_keys=True) for key, value in rules.items()}
        wanted["schema"] = SCHEMA_VERSION
        stored = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        if stored:
            different = [f"{key}: stored {stored.get(key)}, asked {value}" for key, value in wanted.items() if stored.get(key) != value]
            if different:
                raise TournamentMismatchError(
                    f"{self.path} holds a tournament with other rules ({'; '.join(different)}); "
                    "use another --db file, or the same rules to resume"
                )
        known = {name: (factory, kwargs) for name, factory, kwargs in self._db.execute("SELECT name, factory, kwargs FROM entrants")}
        rows = []
        for spec in entrants:
            kwargs = json.dumps(spec.kwargs, sort_keys=True)
            if spec.name in known and known[spec.name] != (spec.factory, kwargs):
                factory, old = known[spec.name]
                raise TournamentMismatchError(
                    f"{self.path}: entrant {spec.name!r} was {factory}{'' if old == '{}' else old} in the stored games, "
                    f"now {spec.describe()}; give the new one another name"
                )
            rows.append((spec.name, spec.factory, kwargs))
        with self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", wanted.items())
            self._db.executemany("INSERT OR IGNORE INTO entrants (name, factory, kwargs) VALUES (?, ?, ?)", rows)

    def mark_excluded(self, name: str, reason: str | None) -> None:
        """Store why an entrant could not be built (``None`` clears it)."""
        with self._transaction():
            self._db.execute("UPDATE entrants SET excluded = ? WHERE name = ?", (reason, name))

    def rules(self) -> dict[str, Any]:
        """The stored rules (empty for a new file)."""
        return {key: json.loads(value) for key, value in self._db.execute("SELECT key, value FROM meta") if key != "schema"}

    # ------------------------------------------------------------------ games
    def add(self, results: Iterable[GameResult]) -> int:
        """Commit ``results`` in one transaction; returns how many were new (duplicates are ignored)."""
        return self.add_rows([result_row(result) for result in results])

    def add_rows(self, rows: list[tuple[Any, ...]]) -> int:
        """Commit rows made by :func:`result_row` (workers make them) in one transaction.

        A row's game and its actions (the last item, if not ``None``) go in together: a stored
        game can always be replayed.
        """
        if not rows:
            return 0
        width = len(_COLUMNS)
        actions = [(row[0], row[1], row[width]) for row in rows if len(row) > width and row[width] is not None]
        with self._transaction():
            before = self._db.total_changes
            self._db.executemany(self._insert, [row[:width] for row in rows])
            added = self._db.total_changes - before
            if actions:
                self._db.executemany(self._insert_actions, actions)
            return added

    def done(self) -> set[tuple[str, int]]:
        """The ``(lineup, game_index)`` keys already stored."""
        return set(self._db.execute("SELECT lineup, game_index FROM games"))

    def actions(self, lineup: str, game_index: int) -> bytes | None:
        """The packed actions of a stored game (see :mod:`arena.tournament.actions`), or ``None``."""
        row = self._db.execute("SELECT actions FROM replays WHERE lineup = ? AND game_index = ?",
                               (lineup, game_index)).fetchone()
        return None if row is None else bytes(row[0])

    def game_number(self, lineup: str, game_index: int) -> int:
        """The number ``arena replay`` knows a stored game by (its row id)."""
        row = self._db.execute("SELECT rowid FROM games WHERE lineup = ? AND game_index = ?",
                               (lineup, game_index)).fetchone()
        if row is None:
            raise KeyError(f"{self.path} has no game {lineup}#{game_index}")
        return int(row[0])

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def results(self, lineups: Iterable[str] | None = None) -> list[GameResult]:
        """Stored games in rating order (game index, then lineup), optionally only of ``lineups``."""
        rows = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM games ORDER BY game_index, lineup").fetchall()
        wanted = None if lineups is None else set(lineups)
        return [_result(row) for row in rows if wanted is None or row[0] in wanted]

    # ------------------------------------------------------------------ export
    def entrants(self) -> list[dict[str, Any]]:
        """The stored entrants: name, factory, kwargs and why it was excluded (or ``None``)."""
        rows = self._db.execute("SELECT name, factory, kwargs, excluded FROM entrants ORDER BY name")
        return [{"name": n, "factory": f, "kwargs": json.loads(k), "excluded": e} for n, f, k, e in rows]

    def export_csv(self, path: str | Path) -> None:
        """Every stored game as CSV (see :func:`write_csv`)."""
        write_csv(path, self.results())

    def export_json(self, path: str | Path) -> None:
        """The rules, entrants and every stored game as one JSON document."""
        write_json(path, {"rules": self.rules(), "entrants": self.entrants(), "games": self.results()})

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, *exc: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def result_row(result: GameResult, finished_at: str | None = None) -> tuple[Any, ...]:
    """A game as a row of the ``games`` table (JSON text for the dicts), stamped now by default,
    followed by its packed actions (stored in the ``replays`` table)."""
    if finished_at is None:
        finished_at = time.strftime("%Y-%m-%dT%H:%M:%S")
    return (result.lineup, result.index, result.seed, json.dumps(result.seats), json.dumps(result.ranks),
            None if result.returns is None else json.dumps(result.returns), result.length, result.outcome,
            result.forfeit, result.error, json.dumps(result.versions), int(result.truncated),
            round(result.seconds, 6), finished_at, result.actions)


def _result(row: tuple[Any, ...]) -> GameResult:
    (lineup, index, seed, seats, ranks, returns, length, outcome, forfeit, error, versions,
     truncated, seconds, _) = row
    return GameResult(lineup, index, seed, json.loads(seats), json.loads(ranks),
                      None if returns is None else json.loads(returns), length, outcome, forfeit, error,
                      json.loads(versions), bool(truncated), seconds)


def write_csv(path: str | Path, games: Iterable[GameResult]) -> None:
    """One row per game; the dict-valued columns (seats, ranks, returns, versions) hold JSON."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(_COLUMNS[:-1])
        for game in games:
            writer.writerow(result_row(game, "")[:len(_COLUMNS) - 1])


def write_json(path: str | Path, document: Mapping[str, Any]) -> None:
    """``document`` as JSON; a ``"games"`` entry may hold :class:`GameResult` s."""
    document = dict(document)
    if "games" in document:
        document["games"] = [game_dict(game) for game in document["games"]]
    Path(path).write_text(json.dumps(document, indent=1) + "\n")


def game_dict(result: GameResult) -> dict[str, Any]:
    """A game as plain data."""
    return {"lineup": result.lineup, "game_index": result.index, "seed": result.seed, "seats": result.seats,
            "ranks": result.ranks, "returns": result.returns, "length": result.length, "outcome": result.outcome,
            "forfeit": result.forfeit, "error": result.error, "versions": result.versions,
            "truncated": result.truncated, "seconds": result.seconds}
