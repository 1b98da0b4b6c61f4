"""What an arena results file is, and the checks that a file on disk is exactly that.

A results file is data (docs/reliability.md, "Threat model"), and an SQLite file can carry code
in its schema: a trigger runs on the writer's own inserts, a view or a generated column computes
whatever its expression says on every read. So arena accepts only the schema it writes itself,
for reading and for resuming alike (SQLite's advice for untrusted files, "Defense against the dark
arts"):

* :func:`check_regular` refuses, without opening it, anything that is not a regular file (a named
  pipe would block the first ``open`` for ever), the ``-wal``, ``-shm`` and ``-journal`` files
  beside it included; :func:`read_header` reads the first bytes without blocking either;
* :func:`check_schema` compares every object in ``sqlite_master`` (type, table, SQL with its
  white space collapsed) and every table's ``table_xinfo`` (generated columns show there) with
  what arena's own statements make in an empty in-memory database, at the file's schema version:
  a trigger, view, index or table arena never creates, or a column defined otherwise, is refused
  with one line naming the file and the object, before any row is read or written;
* :func:`harden` switches off what a schema could use (``PRAGMA trusted_schema=OFF``, and
  ``SQLITE_DBCONFIG_DEFENSIVE`` where Python exposes it), and :func:`bounded` caps the work of the
  checks themselves with a progress handler. Once the schema is arena's, every statement arena
  runs does work bounded by the rows in the file.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import stat
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import NamedTuple, TypeVar

from arena.errors import ResultsFileError

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "SCHEMA",
    "MIGRATIONS",
    "COLUMNS",
    "SQLITE_HEADER",
    "check_regular",
    "read_header",
    "check_schema",
    "harden",
    "bounded",
]

# "AREN" in ASCII: marks an SQLite file as an arena results file (PRAGMA application_id).
APPLICATION_ID = 0x4152454E

# Upgrades of the tables below, in order: statement i takes a file from version i + 1 to i + 2.
# Append only (never edit or reorder a released step): ALTER TABLE ... ADD COLUMN ... for a new
# column, CREATE TABLE IF NOT EXISTS ... for a new table (readers accept only the objects of a
# file's version, so a new table needs a new version too).
MIGRATIONS: tuple[str, ...] = ()

# Version 1 is the tables of SCHEMA as first released; each migration adds one.
SCHEMA_VERSION = 1 + len(MIGRATIONS)

SQLITE_HEADER = b"SQLite format 3\x00"

SCHEMA = """
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

COLUMNS = (
    "lineup",
    "game_index",
    "seed",
    "seats",
    "ranks",
    "returns",
    "length",
    "outcome",
    "forfeit",
    "error",
    "versions",
    "truncated",
    "seconds",
    "finished_at",
)

# Tables every arena file has had since the first release; the others (replays) came later and
# are created when a tournament next writes the file, so a reader may find them missing.
CORE_TABLES = frozenset({"meta", "entrants", "games"})

# Work the checks may do (progress-handler calls of 1,000 SQLite instructions each): a real
# file's schema takes a few hundred calls at most.
_CHECK_STEPS = 100_000
_SIDE_FILES = ("-wal", "-shm", "-journal")

_Connection = TypeVar("_Connection", bound=sqlite3.Connection)


def statements(script: str) -> list[str]:
    """The statements of ``script`` (``;``-separated, none containing ``;``)."""
    return [part.strip() for part in script.split(";") if part.strip()]


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def check_regular(path: str, label: str) -> bool:
    """Refuse, without opening anything, a results file (or its ``-wal``, ``-shm`` or
    ``-journal``) that exists and is not a regular file; returns whether the file exists.

    ``os.stat`` follows links, so a link to a named pipe is refused too.

    Raises:
        ResultsFileError: ``label`` (``"arena report: 'x.db'"``) followed by what the path is.

    Example:
        >>> check_regular("/no/such/results.db", "arena report: 'results.db'")
        False
    """
    exists = os.path.exists(path)
    for suffix in ("", *_SIDE_FILES):
        try:
            mode = os.stat(path + suffix).st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            raise ResultsFileError(f"{label} cannot be inspected ({err.strerror})") from None
        if not stat.S_ISREG(mode):
            what = f"its {suffix[1:]} file {path + suffix!r}" if suffix else "it"
            raise ResultsFileError(
                f"{label}: {what} is {_kind(mode)}, not a regular file; a results file is an ordinary file"
            )
    return exists


def read_header(path: str, label: str) -> bytes:
    """The first bytes of the file at ``path`` (the SQLite header), read without ever blocking.

    Opened with ``O_NONBLOCK`` and checked with ``fstat`` after opening, so a file swapped for a
    named pipe after :func:`check_regular` is refused rather than waited on.
    """
    try:
        handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        raise ResultsFileError(f"{label} cannot be opened ({err.strerror})") from None
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise ResultsFileError(f"{label} is {_kind(mode)}, not a regular file; a results file is an ordinary file")
        return os.read(handle, len(SQLITE_HEADER))
    finally:
        os.close(handle)


def harden(db: _Connection) -> _Connection:
    """Switch off what a file's schema could use on ``db``; call before the schema is read.

    ``trusted_schema=OFF`` keeps functions with side effects out of views, triggers and
    generated columns; ``SQLITE_DBCONFIG_DEFENSIVE`` (Python 3.12+) forbids writing the schema
    directly. Neither makes a hostile schema harmless on its own: :func:`check_schema` does.
    """
    for option, value in (("SQLITE_DBCONFIG_DEFENSIVE", True), ("SQLITE_DBCONFIG_TRUSTED_SCHEMA", False)):
        code = getattr(sqlite3, option, None)
        if code is not None:
            db.setconfig(code, value)  # type: ignore[attr-defined]  # Python 3.12+
    db.execute("PRAGMA trusted_schema = OFF")
    return db


@contextmanager
def bounded(db: sqlite3.Connection, steps: int = _CHECK_STEPS) -> Iterator[None]:
    """Interrupt any statement on ``db`` past ``steps`` thousand SQLite instructions in all.

    Raises:
        sqlite3.OperationalError: ("interrupted") from the statement that went past the bound.
    """
    calls = 0

    def tick() -> int:
        nonlocal calls
        calls += 1
        return int(calls > steps)

    db.set_progress_handler(tick, 1000)
    try:
        yield
    finally:
        db.set_progress_handler(None, 0)


class _Object(NamedTuple):
    type: str
    table: str
    sql: str | None
    columns: tuple[tuple[object, ...], ...]


def _normal(sql: str | None) -> str | None:
    # Collapse white space only: arena's own statements hold no quoted text, so any quote in a
    # file's SQL keeps it from matching.
    return None if sql is None else " ".join(sql.split())


def _columns(db: sqlite3.Connection, table: str) -> tuple[tuple[object, ...], ...]:
    query = 'SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?) ORDER BY cid'
    return tuple(db.execute(query, (table,)))


def _objects(db: sqlite3.Connection, tables: frozenset[str] | None = None) -> dict[str, _Object]:
    found = {}
    for kind, name, table, sql in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"):
        columns = _columns(db, name) if kind == "table" and (tables is None or name in tables) else ()
        found[name] = _Object(kind, table, _normal(sql), columns)
    return found


@functools.lru_cache(maxsize=None)
def expected_objects(version: int) -> dict[str, _Object]:
    """What arena's own statements make in an empty database at schema ``version``."""
    with closing(sqlite3.connect(":memory:")) as db:
        for statement in statements(SCHEMA) + list(MIGRATIONS[: version - 1]):
            db.execute(statement)
        return _objects(db)


def _difference(found: _Object, wanted: _Object) -> str:
    """Why a table or index of arena's name is not arena's (one phrase for the message)."""
    if found.type != wanted.type:
        return f"it is a {found.type}, arena's is a {wanted.type}"
    generated = [str(column[0]) for column in found.columns if column[5] in (2, 3)]
    if generated:
        return f"column {generated[0]!r} is a generated column"
    names = [str(column[0]) for column in found.columns]
    wanted_names = [str(column[0]) for column in wanted.columns]
    if found.type == "table" and names != wanted_names:
        missing = [name for name in wanted_names if name not in names]
        extra = [name for name in names if name not in wanted_names]
        return "columns " + "; ".join(
            part
            for part in (
                f"missing: {', '.join(missing)}" if missing else "",
                f"not arena's: {', '.join(extra)}" if extra else "",
                "in another order" if not missing and not extra else "",
            )
            if part
        )
    if found.columns != wanted.columns:
        return "a column's type, default or constraint differs"
    return "its SQL differs from arena's"


def check_schema(db: sqlite3.Connection, label: str, version: int) -> None:
    """Refuse a file whose schema is not exactly the one arena writes at ``version``.

    A missing table other than meta, entrants and games is allowed (older files lack it until a
    tournament writes them); anything else must match. Run inside :func:`bounded` on a
    :func:`harden` ed connection, before any row is read.

    Raises:
        ResultsFileError: ``label`` followed by the object that is not arena's.
    """
    wanted = expected_objects(max(version, 1))
    tables = frozenset(name for name, item in wanted.items() if item.type == "table")
    for name, found in _objects(db, tables).items():
        expected = wanted.get(name)
        if expected is None:
            where = f" on table {found.table!r}" if found.type in ("trigger", "index") else ""
            raise ResultsFileError(
                f"{label} holds {found.type} {name!r}{where}, which arena never creates; arena reads and "
                "resumes only files of its own schema (remove it, or give another file)"
            )
        if found != expected:
            raise ResultsFileError(
                f"{label}: {expected.type} {name!r} is not the one arena writes ({_difference(found, expected)}); "
                "arena reads and resumes only files of its own schema"
            )
