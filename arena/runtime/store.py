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
  same rules plays only the missing games, and a rerun with other rules is refused. The rules are
  registered in one exclusive transaction, so of two different tournaments started at once on a
  new file exactly one is accepted;
* the file says it is arena's (``PRAGMA application_id``) and which schema it has
  (``PRAGMA user_version``); a file that is not an arena results file, is read-only, or has a
  newer schema is refused with a one-line error before anything is written to it.

Every file is checked before it is written (:mod:`arena.runtime.schema`): nothing that is not
a regular file is opened, and a file whose schema is not exactly the one arena writes (a trigger,
a view, a generated column, an object of another program) is refused. A write the disk refuses
(full) rolls its transaction back and is one :class:`~arena.errors.ResultsFileError`; what was
committed before stays.

Growing the schema (docs/architecture.md, "Results file schema"): a new table or a new column
is one statement appended to ``MIGRATIONS`` in :mod:`arena.runtime.schema` (``CREATE TABLE IF
NOT EXISTS ...``, ``ALTER TABLE ... ADD COLUMN ...``), which raises the schema version by one;
files of an older version are upgraded in one transaction when opened.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from arena.errors import InvalidValueError, ResultsFileError, TournamentMismatchError
from arena.runtime.game import GameResult
from arena.runtime.schema import (
    APPLICATION_ID,
    COLUMNS,
    MIGRATIONS,
    SCHEMA,
    SCHEMA_VERSION,
    SQLITE_HEADER,
    bounded,
    check_regular,
    check_schema,
    harden,
    read_header,
    statements,
)
from arena.specs.agents import AgentSpec

__all__ = [
    "ResultStore",
    "StoredGames",
    "result_row",
    "write_csv",
    "write_json",
    "game_dict",
    "check_output",
    "SCHEMA_VERSION",
    "APPLICATION_ID",
]

_BUSY_SECONDS = 30.0

_JSON_COLUMNS = ("seats", "ranks", "returns", "versions")


def _folder_recorded_before(stored: tuple[str, str], spec: AgentSpec) -> bool:
    """Whether a stored entrant is the trained folder ``spec`` as files written before entrants
    recorded their folder's interface stack hold it (the same entrant: resuming goes on)."""
    factory, kwargs = stored
    if spec.folder is None or factory != spec.factory:
        return False
    try:
        old = json.loads(kwargs)
    except ValueError:
        return False
    return (
        isinstance(old, dict)
        and "interface" not in old
        and old == {key: value for key, value in spec.kwargs.items() if key != "interface"}
    )


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
            _check_file(self.path)
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = harden(sqlite3.connect(self.path, isolation_level=None, timeout=_BUSY_SECONDS))
        except sqlite3.Error as err:
            raise ResultsFileError(f"tournament results file {self.path!r} cannot be opened: {err}") from None
        try:
            if self.path != ":memory:":
                _retry_locked(lambda: self._db.execute("PRAGMA journal_mode=WAL"))
                self._db.execute("PRAGMA synchronous=NORMAL")
            _retry_locked(self._create_or_upgrade)
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise ResultsFileError(
                f"tournament results file {self.path!r} cannot be used as an SQLite database: {err}"
            ) from None
        except ResultsFileError:
            self._db.close()
            raise
        self._insert = f"INSERT OR IGNORE INTO games ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})"
        self._insert_actions = "INSERT OR IGNORE INTO replays (lineup, game_index, actions) VALUES (?, ?, ?)"

    def _create_or_upgrade(self) -> None:
        """Create the tables in a new file, or upgrade an older arena file, in one exclusive transaction."""
        with self._transaction():
            application, version = _identity(self._db)
            tables = _tables(self._db)
            _check_identity(self.path, application, version, tables)
            with bounded(self._db):  # again inside the lock: the file may have changed since _check_file
                check_schema(self._db, f"tournament results file {self.path!r}", version)
            self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            for statement in statements(SCHEMA):
                self._db.execute(statement)
            for statement in MIGRATIONS[max(version, 1) - 1 if tables else 0 :]:
                self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # ------------------------------------------------------------------ rules
    def bind(self, rules: Mapping[str, Any], entrants: Iterable[AgentSpec]) -> None:
        """Record the tournament's rules and entrants, or check them against the stored ones.

        Raises:
            TournamentMismatchError: the file holds a tournament with other rules, or an entrant
                of the same name built by another factory.
        """
        wanted = {key: json.dumps(value, sort_keys=True) for key, value in rules.items()}
        wanted["schema"] = "1"  # the rules' format (the tables' version is PRAGMA user_version)
        rows = [(spec.name, spec.factory, json.dumps(spec.kwargs, sort_keys=True), spec) for spec in entrants]
        # Read, compare and register in one exclusive transaction: of two tournaments with other
        # rules started at once on one file, the second sees the first's rules and is refused.
        with self._transaction():
            stored = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            if stored:
                different = [
                    f"{key}: stored {stored.get(key)}, asked {value}"
                    for key, value in wanted.items()
                    if stored.get(key) != value
                ]
                if different:
                    raise TournamentMismatchError(
                        f"{self.path} holds a tournament with other rules ({'; '.join(different)}); "
                        "use another --db file, or the same rules to resume"
                    )
            known = {
                name: (factory, kwargs)
                for name, factory, kwargs in self._db.execute("SELECT name, factory, kwargs FROM entrants")
            }
            for name, factory, kwargs, spec in rows:
                if (
                    name in known
                    and known[name] != (factory, kwargs)
                    and not _folder_recorded_before(known[name], spec)
                ):
                    old_factory, old = known[name]
                    raise TournamentMismatchError(
                        f"{self.path}: entrant {name!r} was {old_factory}{'' if old == '{}' else old} in the stored "
                        f"games, now {spec.describe()}; give the new one another name"
                    )
            self._db.executemany("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", wanted.items())
            self._db.executemany(
                "INSERT OR IGNORE INTO entrants (name, factory, kwargs) VALUES (?, ?, ?)", [row[:3] for row in rows]
            )

    def mark_excluded(self, name: str, reason: str | None) -> None:
        """Store why an entrant could not be built (``None`` clears it)."""
        with self._transaction():
            self._db.execute("UPDATE entrants SET excluded = ? WHERE name = ?", (reason, name))

    def rules(self) -> dict[str, Any]:
        """The stored rules (empty for a new file)."""
        return {
            key: json.loads(value) for key, value in self._db.execute("SELECT key, value FROM meta") if key != "schema"
        }

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
        width = len(COLUMNS)
        actions = [(row[0], row[1], row[width]) for row in rows if len(row) > width and row[width] is not None]
        with self._transaction():
            before = self._db.total_changes
            self._db.executemany(self._insert, [row[:width] for row in rows])
            added = self._db.total_changes - before
            if actions:
                self._db.executemany(self._insert_actions, actions)
            return added

    def done(self) -> set[tuple[str, int]]:
        """The ``(lineup, game_index)`` keys already stored (all in memory: for small files)."""
        return set(self._db.execute("SELECT lineup, game_index FROM games"))

    def is_stored(self, lineup: str, game_index: int) -> bool:
        """Whether game ``game_index`` of ``lineup`` is stored (one indexed lookup)."""
        return (
            self._db.execute("SELECT 1 FROM games WHERE lineup = ? AND game_index = ?", (lineup, game_index)).fetchone()
            is not None
        )

    def count_within(self, counts: Mapping[str, int]) -> int:
        """How many stored games have ``game_index < counts[lineup]`` (the games of a schedule)."""
        return self._db.execute(f"SELECT COUNT(*) FROM games {_WITHIN}", (json.dumps(dict(counts)),)).fetchone()[0]

    def actions(self, lineup: str, game_index: int) -> bytes | None:
        """The packed actions of a stored game (see :mod:`arena.runtime.actions`), or ``None``."""
        row = self._db.execute(
            "SELECT actions FROM replays WHERE lineup = ? AND game_index = ?", (lineup, game_index)
        ).fetchone()
        return None if row is None else bytes(row[0])

    def game_number(self, lineup: str, game_index: int) -> int:
        """The number ``arena replay`` knows a stored game by (its row id)."""
        row = self._db.execute(
            "SELECT rowid FROM games WHERE lineup = ? AND game_index = ?", (lineup, game_index)
        ).fetchone()
        if row is None:
            raise KeyError(f"{self.path} has no game {lineup}#{game_index}")
        return int(row[0])

    def count(self) -> int:
        return self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def results(self, lineups: Iterable[str] | None = None) -> list[GameResult]:
        """Stored games in rating order (game index, then lineup), optionally only of ``lineups``."""
        rows = self._db.execute(f"SELECT {', '.join(COLUMNS)} FROM games ORDER BY game_index, lineup").fetchall()
        wanted = None if lineups is None else set(lineups)
        return [_result(row) for row in rows if wanted is None or row[0] in wanted]

    # ------------------------------------------------------------------ export
    def entrants(self) -> list[dict[str, Any]]:
        """The stored entrants: name, factory, kwargs and why it was excluded (or ``None``)."""
        rows = self._db.execute("SELECT name, factory, kwargs, excluded FROM entrants ORDER BY name")
        return [{"name": n, "factory": f, "kwargs": json.loads(k), "excluded": e} for n, f, k, e in rows]

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
        return _Transaction(self._db, self.path)


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an error); a write the disk refuses
    (full, or an I/O error) becomes one :class:`ResultsFileError` saying that what was committed
    before is kept."""

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self.db, self.path = db, path

    def __enter__(self) -> None:
        _retry_locked(lambda: self.db.execute("BEGIN IMMEDIATE"))

    def __exit__(self, kind: object, error: BaseException | None, *exc: object) -> None:
        try:
            if kind is None:
                self.db.execute("COMMIT")
                return
            error = None if not isinstance(error, sqlite3.OperationalError) else error
        except sqlite3.OperationalError as err:
            error = err
        if self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # SQLite may have rolled back already (a full disk does); the file is as last committed
        if error is not None and _write_refused(error):
            raise ResultsFileError(
                f"results file {self.path!r} could not be written ({error}); the last transaction was rolled "
                "back and every game committed before it is kept"
            ) from None
        if kind is None and error is not None:
            raise error


def _write_refused(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite failed for want of room or at the disk (not a locked file or bad SQL)."""
    code = getattr(error, "sqlite_errorcode", None)  # Python 3.11+
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR)
    return "full" in str(error) or "disk I/O error" in str(error)


def _identity(db: sqlite3.Connection) -> tuple[int, int]:
    return db.execute("PRAGMA application_id").fetchone()[0], db.execute("PRAGMA user_version").fetchone()[0]


def _tables(db: sqlite3.Connection) -> set[str]:
    return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _check_identity(path: str, application: int, version: int, tables: set[str]) -> None:
    """Refuse a file that is not arena's, or is of a newer schema than this arena reads."""
    if application == APPLICATION_ID:
        if version > SCHEMA_VERSION:
            raise ResultsFileError(
                f"tournament results file {path!r} has schema version {version}, newer than this arena reads "
                f"({SCHEMA_VERSION}); upgrade arena-marl, or use another --db file"
            )
        return
    # A file of the first release carries no application id: it has exactly arena's tables.
    if application != 0 or (tables and not {"meta", "entrants", "games"} <= tables):
        found = ", ".join(sorted(tables)) or "none"
        raise ResultsFileError(
            f"{path!r} is not an arena results file (an SQLite database of another program: application id "
            f"{application:#x}, tables {found}); give --db a new file name"
        )


def _check_file(path: str) -> None:
    """Refuse, before opening it for writing, a file that cannot be arena's or cannot be written."""
    file = Path(path)
    if file.is_dir():
        raise ResultsFileError(f"tournament results file {path!r} is a folder; give --db a file name")
    # Before any open: a named pipe would block the first read for ever.
    if not check_regular(path, f"tournament results file {path!r}"):
        parent = file.parent if str(file.parent) else Path(".")
        existing = next((p for p in (parent, *parent.parents) if p.exists()), Path("."))
        if not os.access(existing, os.W_OK):
            raise ResultsFileError(
                f"tournament results file {path!r} cannot be created: {str(existing)!r} is not writable"
            )
        return
    header = read_header(path, f"tournament results file {path!r}")
    if header and header != SQLITE_HEADER:
        raise ResultsFileError(
            f"{path!r} is not an arena results file (not an SQLite database); give --db a new file name"
        )
    if not os.access(file, os.W_OK) or not os.access(file.parent, os.W_OK):
        which = "the file" if not os.access(file, os.W_OK) else "its folder"
        raise ResultsFileError(
            f"tournament results file {path!r} is read-only ({which} is not writable); nothing was written"
        )
    if header:
        # Inspect without writing (no WAL switch, no tables) before the file is opened for writing.
        try:
            with _read_only(path) as db, bounded(db):
                application, version = _identity(db)
                _check_identity(path, application, version, _tables(db))
                check_schema(db, f"tournament results file {path!r}", version)
        except sqlite3.DatabaseError as err:
            raise ResultsFileError(
                f"tournament results file {path!r} cannot be used as an SQLite database: {err}"
            ) from None


class _read_only:
    def __init__(self, path: str) -> None:
        uri = f"{Path(path).resolve().as_uri()}?mode=ro"
        self.db = harden(sqlite3.connect(uri, uri=True, timeout=_BUSY_SECONDS))

    def __enter__(self) -> sqlite3.Connection:
        return self.db

    def __exit__(self, *exc: object) -> None:
        self.db.close()


def _retry_locked(operation: Any) -> Any:
    """Run ``operation``, waiting while another process holds the file (sqlite's busy timeout
    does not cover every case, e.g. switching a new file to WAL while another run does the same)."""
    deadline = time.monotonic() + _BUSY_SECONDS
    while True:
        try:
            return operation()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) and "busy" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def result_row(result: GameResult, finished_at: str | None = None) -> tuple[Any, ...]:
    """A game as a row of the ``games`` table (JSON text for the dicts), stamped now by default,
    followed by its packed actions (stored in the ``replays`` table)."""
    if finished_at is None:
        finished_at = time.strftime("%Y-%m-%dT%H:%M:%S")
    return (
        result.lineup,
        result.index,
        result.seed,
        json.dumps(result.seats),
        json.dumps(result.ranks),
        None if result.returns is None else json.dumps(result.returns),
        result.length,
        result.outcome,
        result.forfeit,
        result.error,
        json.dumps(result.versions),
        int(result.truncated),
        round(result.seconds, 6),
        finished_at,
        result.actions,
    )


_WITHIN = "JOIN json_each(?) AS wanted ON wanted.key = games.lineup WHERE games.game_index < wanted.value"


class StoredGames(Sequence[GameResult]):
    """Games of a results file, read from the file each time they are iterated.

    A tournament's result holds this instead of a list, so its memory does not grow with the
    number of games: each pass (ratings, tables, exports) streams the rows in rating order
    (game index, then lineup). It opens its own connection per pass, so it works after the
    tournament closed its store.

    Args:
        path: the results file.
        counts: only games with ``game_index < counts[lineup]`` (a schedule's games);
            ``None``: every game.
        keep: an object to keep alive as long as this one (a temporary folder holding ``path``).

    Example:
        >>> import tempfile, pathlib
        >>> folder = tempfile.TemporaryDirectory()
        >>> path = str(pathlib.Path(folder.name) / "results.sqlite")
        >>> ResultStore(path).close()
        >>> games = StoredGames(path, {"a|b": 4}, keep=folder)
        >>> len(games), list(games)
        (0, [])
    """

    def __init__(self, path: str, counts: Mapping[str, int] | None = None, keep: Any = None) -> None:
        self.path, self._keep = path, keep
        self._within = None if counts is None else json.dumps(dict(counts))

    def _rows(self, tail: str = "", extra: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        columns = ", ".join(f"games.{column}" for column in COLUMNS)
        where, params = ("", ()) if self._within is None else (_WITHIN, (self._within,))
        with closing(harden(sqlite3.connect(self.path, timeout=_BUSY_SECONDS))) as db:
            yield from db.execute(
                f"SELECT {columns} FROM games {where} ORDER BY games.game_index, games.lineup {tail}", params + extra
            )

    def __len__(self) -> int:
        where, params = ("", ()) if self._within is None else (_WITHIN, (self._within,))
        with closing(harden(sqlite3.connect(self.path, timeout=_BUSY_SECONDS))) as db:
            return db.execute(f"SELECT COUNT(*) FROM games {where}", params).fetchone()[0]

    def __iter__(self) -> Iterator[GameResult]:
        return (_result(row) for row in self._rows())

    def __getitem__(self, position: Any) -> Any:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        if position < 0:
            position += len(self)
        rows = list(self._rows("LIMIT 1 OFFSET ?", (position,))) if position >= 0 else []
        if not rows:
            raise IndexError(f"stored game {position} out of range")
        return _result(rows[0])

    def __repr__(self) -> str:
        return f"StoredGames({self.path!r})"


def _result(row: tuple[Any, ...]) -> GameResult:
    (lineup, index, seed, seats, ranks, returns, length, outcome, forfeit, error, versions, truncated, seconds, _) = row
    return GameResult(
        lineup,
        index,
        seed,
        json.loads(seats),
        json.loads(ranks),
        None if returns is None else json.loads(returns),
        length,
        outcome,
        forfeit,
        error,
        json.loads(versions),
        bool(truncated),
        seconds,
    )


def check_output(path: str | Path, *, what: str, suffixes: tuple[str, ...], db: str | Path | None = None) -> None:
    """Refuse, before any game is played, an output file that could not be written at the end.

    Args:
        path: the file to write later.
        what: the option's name for the message (``"--export"``).
        suffixes: the accepted suffixes (lower case, with the dot).
        db: the results file, which ``path`` must not be.

    Raises:
        ValueError: a wrong suffix, the results file itself, a folder, or a folder that is missing
            or not writable.

    Example:
        >>> check_output("games.txt", what="--export", suffixes=(".csv", ".json"))
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: --export: the file must end in .csv or .json, got 'games.txt'
    """
    file = Path(path)
    if file.suffix.lower() not in suffixes:
        raise InvalidValueError(f"{what}: the file must end in {' or '.join(suffixes)}, got {str(path)!r}")
    if db is not None and str(db) != ":memory:" and file.resolve() == Path(db).resolve():
        raise InvalidValueError(f"{what} {str(path)!r} is the --db results file itself; give the export another name")
    if file.is_dir():
        raise InvalidValueError(f"{what} {str(path)!r} is a folder; give a file name")
    folder = file.parent if str(file.parent) else Path(".")
    if not folder.is_dir():
        raise InvalidValueError(f"{what} {str(path)!r}: the folder {str(folder)!r} does not exist")
    if not os.access(folder, os.W_OK) or (file.exists() and not os.access(file, os.W_OK)):
        raise InvalidValueError(f"{what} {str(path)!r} cannot be written (permission denied)")


def write_csv(path: str | Path, games: Iterable[GameResult]) -> None:
    """One row per game; the dict-valued columns (seats, ranks, returns, versions) hold JSON."""
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS[:-1])
        for game in games:
            writer.writerow(result_row(game, "")[: len(COLUMNS) - 1])


def write_json(path: str | Path, document: Mapping[str, Any]) -> None:
    """``document`` as JSON; a ``"games"`` entry may hold :class:`GameResult` s."""
    document = dict(document)
    if "games" in document:
        document["games"] = [game_dict(game) for game in document["games"]]
    Path(path).write_text(json.dumps(document, indent=1) + "\n")


def game_dict(result: GameResult) -> dict[str, Any]:
    """A game as plain data."""
    return {
        "lineup": result.lineup,
        "game_index": result.index,
        "seed": result.seed,
        "seats": result.seats,
        "ranks": result.ranks,
        "returns": result.returns,
        "length": result.length,
        "outcome": result.outcome,
        "forfeit": result.forfeit,
        "error": result.error,
        "versions": result.versions,
        "truncated": result.truncated,
        "seconds": result.seconds,
    }
