"""Reading a results file someone else may have written: read-only, checked, bounded.

Every reader (``arena report``, ``arena replay``, :mod:`arena.replay.source`) opens a results
file through :func:`open_results`, so they all refuse the same files with the same one-line
error and never change a byte of what they read:

* nothing that is not a regular file is opened (a named pipe would block for ever);
* the file is opened read-only through SQLite's URI (``immutable=1`` when no write-ahead log is
  beside it, so no ``-shm`` file is needed; ``mode=ro`` through the log when there is one, or a
  scratch copy of the file and its log where the folder is read-only and has no ``-shm``, so
  committed games in a log are never skipped): no journal-mode switch, no table created, no
  schema upgraded, and a read-only file works;
* it must say it is arena's (``PRAGMA application_id``, or the first release's tables), have a
  schema version this arena reads (``PRAGMA user_version``, the rules' ``schema``), and hold
  exactly the tables arena writes (:func:`arena.runtime.schema.check_schema`: no trigger,
  view, generated column or object of its own), checked before any row is read;
* each row is checked column by column (types, JSON shapes, nesting, size) before use, so a
  damaged or hostile row is a :class:`~arena.runtime.store.ResultsFileError` naming the row and
  column, never a crash deep in a report.

Names found in the file (env and agent factories) are data: the readers build nothing from them
outside :func:`arena.registry.reading_data`.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.runtime.game import GameResult

# Many of the names store.py imports too: the reader checks a file by the one schema the writer writes.
from arena.runtime.schema import (
    APPLICATION_ID,
    COLUMNS,
    CORE_TABLES,
    SCHEMA_VERSION,
    SQLITE_HEADER,
    bounded,
    check_regular,
    check_schema,
    harden,
    read_header,
)
from arena.runtime.store import ResultsFileError
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec

__all__ = [
    "open_results",
    "read_rules",
    "read_env",
    "read_entrants",
    "read_games",
    "parse_game",
    "MAX_CELL_CHARS",
    "MAX_GAME_NUMBER",
]

MAX_CELL_CHARS = 1_000_000  # one JSON cell (seats, ranks, versions...): a few hundred bytes in a real file
MAX_GAME_NUMBER = 2**63 - 1  # SQLite's largest row id
MAX_VALUE_BYTES = 64 * 2**20  # any one text or blob SQLite hands a reader (SQLITE_LIMIT_LENGTH)
_RULES_SCHEMA = "1"  # the rules' format that ResultStore.bind writes


def open_results(path: str | Path, who: str = "arena") -> sqlite3.Connection:
    """A read-only connection to the results file at ``path``, checked to be arena's.

    Args:
        path: the file.
        who: the command, for the message (``"arena report"``).

    Raises:
        ResultsFileError: no such file, not SQLite, not arena's, or a schema this arena does not read.
    """
    file = Path(path)
    label = f"{who}: {str(path)!r}"
    # Before any open: a named pipe would block the first read for ever.
    if not check_regular(str(path), label):
        raise ResultsFileError(f"{who}: no results file at {str(path)!r}")
    if read_header(str(path), label) != SQLITE_HEADER:
        raise ResultsFileError(f"{label} is not an arena results file (not an SQLite database)")
    db = _connect_read_only(file, who)
    try:
        with bounded(db):
            _check_file(db, label)
    except sqlite3.DatabaseError as err:
        db.close()
        raise ResultsFileError(f"{label} cannot be read as an SQLite database ({err})") from None
    except ResultsFileError:
        db.close()
        raise
    db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    return db


def _check_file(db: sqlite3.Connection, label: str) -> None:
    """Refuse a file that is not arena's, or of a version or schema this arena does not read."""
    application = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if application not in (0, APPLICATION_ID):
        raise ResultsFileError(
            f"{label} is not an arena results file (an SQLite database of another program: "
            f"application id {application:#x})"
        )
    if not CORE_TABLES <= tables:
        raise ResultsFileError(
            f"{label} is not an arena results file (it has no games table); "
            "give a file written by `arena tournament --db` or `arena play --record`"
        )
    if application and not 1 <= version <= SCHEMA_VERSION:
        raise ResultsFileError(
            f"{label} has schema version {version}; this arena reads versions 1 "
            f"to {SCHEMA_VERSION} (a newer file needs a newer arena-marl)"
        )
    check_schema(db, label, version)  # before any row is read: no trigger, view or generated column runs
    row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    if row is not None and row[0] != _RULES_SCHEMA:
        raise ResultsFileError(
            f"{label} stores its rules in schema {_shown(row[0])}; this arena reads schema {_RULES_SCHEMA} "
            "(upgrade arena-marl)"
        )


class _ReadConnection(sqlite3.Connection):
    """A connection that keeps alive the scratch folder holding the copy it reads (if any)."""

    scratch: tempfile.TemporaryDirectory[str] | None = None

    def close(self) -> None:
        super().close()
        if self.scratch is not None:
            self.scratch.cleanup()


def _connect_read_only(file: Path, who: str) -> sqlite3.Connection:
    """Open ``file`` read-only, with the games its write-ahead log holds.

    With no log beside it, no tournament is writing the file: it is read as immutable, so that
    not even the ``-shm`` file a WAL reader makes appears beside it (the folder may be read-only,
    or someone else's). With a log (a tournament writing, or one that was killed), it is read
    through the log (``mode=ro``). Where that cannot be done in place (a read-only folder without
    the ``-shm`` file), the file and its log are copied to a scratch folder and the copy is read,
    so committed games in the log are never skipped.
    """
    wal = Path(f"{file}-wal")
    try:
        if not wal.exists():
            return _connect(file, "immutable=1")
        db = _connect(file, "mode=ro")
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()  # opens the log and its index
            return db
        except sqlite3.OperationalError:
            db.close()
            if os.access(file.parent, os.W_OK):
                raise
        if wal.stat().st_size == 0:
            return _connect(file, "immutable=1")
        scratch = tempfile.TemporaryDirectory(prefix="arena-read-")
        copy = Path(scratch.name) / "results.db"
        shutil.copyfile(file, copy)
        shutil.copyfile(wal, f"{copy}-wal")
        db = _connect(copy, "mode=ro")
        db.scratch = scratch
        return db
    except (sqlite3.Error, OSError) as err:
        raise ResultsFileError(f"{who}: {str(file)!r} cannot be opened read-only ({err})") from None


def _connect(file: Path, mode: str) -> _ReadConnection:
    db = sqlite3.connect(f"{file.resolve().as_uri()}?{mode}", uri=True, timeout=30.0, factory=_ReadConnection)
    return harden(db)


def _shown(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _json(text: Any, what: str) -> Any:
    """A JSON cell, with one-line errors for any damage (wrong type, bad JSON, too deep, too long)."""
    if not isinstance(text, str):
        raise ResultsFileError(f"{what} must be JSON text, got {type(text).__name__} {_shown(text)}")
    if len(text) > MAX_CELL_CHARS:
        raise ResultsFileError(f"{what} holds {len(text):,} characters (at most {MAX_CELL_CHARS:,} are read)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ResultsFileError(f"{what} is not valid JSON ({err})") from None
    except RecursionError:
        raise ResultsFileError(f"{what} is JSON nested too deeply") from None
    except ValueError:  # an integer past Python's digit limit for reading text (4,300 by default)
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        raise ResultsFileError(f"{what} holds an integer of more than {limit:,} digits, too long to read") from None


def read_rules(db: sqlite3.Connection, path: str, who: str = "arena") -> dict[str, Any]:
    """The stored rules (``env``, ``env_kwargs``, ...), checked; ``{}`` when none are stored."""
    rules = {}
    for key, value in _select(db, "SELECT key, value FROM meta", path, who):
        if key != "schema":
            rules[str(key)] = _json(value, f"{who}: {path!r}: rule {_shown(key)}")
    if rules and not isinstance(rules.get("env"), str):
        raise ResultsFileError(f"{who}: {path!r}: the rule 'env' must be an env name, got {_shown(rules.get('env'))}")
    if not isinstance(rules.get("env_kwargs") or {}, dict):
        raise ResultsFileError(f"{who}: {path!r}: the rule 'env_kwargs' must be a JSON object")
    return rules


def read_env(db: sqlite3.Connection, path: str, who: str = "arena") -> EnvSpec | None:
    """The stored env spec, or ``None`` when the file holds no rules."""
    rules = read_rules(db, path, who)
    if not rules:
        return None
    try:
        return EnvSpec(rules["env"], rules.get("env_kwargs") or {})
    except (TypeError, ValueError) as err:
        raise ResultsFileError(f"{who}: {path!r}: the stored env is not an env spec ({err})") from None


def read_entrants(db: sqlite3.Connection, path: str, who: str = "arena") -> list[tuple[AgentSpec, str | None]]:
    """The stored entrants with why each was excluded (``None``: it played), checked."""
    found = []
    for name, factory, kwargs, excluded in _select(
        db, "SELECT name, factory, kwargs, excluded FROM entrants ORDER BY name", path, who
    ):
        what = f"{who}: {path!r}: entrant {_shown(name)}"
        options = _json(kwargs, f"{what}: kwargs")
        if not isinstance(options, dict):
            raise ResultsFileError(f"{what}: kwargs must be a JSON object, got {_shown(kwargs)}")
        if excluded is not None and not isinstance(excluded, str):
            raise ResultsFileError(f"{what}: 'excluded' must be text, got {type(excluded).__name__}")
        try:
            spec = AgentSpec(name, factory, options)
        except (TypeError, ValueError) as err:
            raise ResultsFileError(f"{what} is not an entrant spec ({err})") from None
        found.append((spec, excluded))
    return found


def read_games(
    db: sqlite3.Connection,
    path: str,
    who: str = "arena",
    where: str = "1",
    args: tuple[Any, ...] = (),
    with_actions: bool = True,
) -> Iterator[tuple[int, bytes | None, GameResult]]:
    """``(game number, packed actions or None, record)`` of the stored games matching ``where``, in file order."""
    has_replays = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'replays'").fetchone()
    join, actions = (
        ("LEFT JOIN replays r USING (lineup, game_index)", "r.actions")
        if has_replays and with_actions
        else ("", "NULL")
    )
    columns = ", ".join(f"g.{c}" for c in COLUMNS)
    query = f"SELECT g.rowid, {actions}, {columns} FROM games g {join} WHERE {where} ORDER BY g.rowid"
    for row in _select(db, query, path, who, args):
        blob = row[1]
        if isinstance(blob, str):
            blob = blob.encode("utf-8")
        elif blob is not None and not isinstance(blob, bytes):
            raise ResultsFileError(
                f"{who}: {path!r}: game {row[0]}: the stored actions are {type(blob).__name__}, not packed actions"
            )
        yield row[0], blob, parse_game(row[2:], f"{who}: {path!r}: game {row[0]}")


def _select(db: sqlite3.Connection, query: str, path: str, who: str, args: tuple[Any, ...] = ()) -> Iterator[Any]:
    try:
        yield from db.execute(query, args)
    except sqlite3.DatabaseError as err:  # a missing column or table, a damaged page
        raise ResultsFileError(f"{who}: {path!r} is not a readable arena results file ({err})") from None


def _mapping(value: Any, what: str, kind: tuple[type, ...], kind_name: str) -> dict[str, Any]:
    if isinstance(value, dict) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value.values()):
        if float in kind and not all(_is_float(v) for v in value.values()):
            raise ResultsFileError(f"{what} holds a number too large for a float")
        return value
    raise ResultsFileError(f"{what} must be a JSON object of {kind_name}, got {_shown(json.dumps(value))}")


def _is_float(value: int | float) -> bool:
    """Whether a JSON number fits a float (an integer of 400 digits does not)."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def parse_game(row: tuple[Any, ...], what: str) -> GameResult:
    """A stored game row (the ``games`` columns in order) as a :class:`GameResult`, every column checked.

    Raises:
        ResultsFileError: a column of the wrong type or shape; the message names it.
    """
    (lineup, index, seed, seats, ranks, returns, length, outcome, forfeit, error, versions, truncated, seconds, _) = row

    def need(value: Any, column: str, kinds: tuple[type, ...], expected: str, optional: bool = False) -> Any:
        if (value is None and optional) or (isinstance(value, kinds) and not isinstance(value, bool)):
            return value
        raise ResultsFileError(
            f"{what}: column {column!r} must be {expected}, got {type(value).__name__} {_shown(value)}"
        )

    need(lineup, "lineup", (str,), "text")
    need(index, "game_index", (int,), "an integer")
    need(seed, "seed", (int,), "an integer", optional=True)
    need(length, "length", (int,), "an integer")
    need(outcome, "outcome", (str,), "text")
    need(forfeit, "forfeit", (str,), "text", optional=True)
    need(error, "error", (str,), "text", optional=True)
    need(truncated, "truncated", (int,), "0 or 1")
    need(seconds, "seconds", (int, float), "a number")
    seat_map = _mapping(
        _json(seats, f"{what}: column 'seats'"), f"{what}: column 'seats'", (str,), "seat -> entrant name"
    )
    rank_map = _mapping(
        _json(ranks, f"{what}: column 'ranks'"), f"{what}: column 'ranks'", (int, float), "entrant -> rank"
    )
    if not all(math.isfinite(v) for v in rank_map.values()):
        raise ResultsFileError(f"{what}: column 'ranks' holds a rank that is not a finite number")
    return_map = None
    if returns is not None:
        return_map = _mapping(
            _json(returns, f"{what}: column 'returns'"), f"{what}: column 'returns'", (int, float), "entrant -> return"
        )
    version_map = _mapping(
        _json(versions, f"{what}: column 'versions'"), f"{what}: column 'versions'", (str,), "entrant -> version text"
    )
    return GameResult(
        lineup,
        index,
        seed,
        seat_map,
        rank_map,
        return_map,
        length,
        outcome,
        forfeit,
        error,
        version_map,
        bool(truncated),
        float(seconds),
    )
