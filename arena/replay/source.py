"""Stored games, read back from a tournament's results file (or an ``arena play --record`` file).

The file is opened read-only: looking at games never changes it, and works while a tournament
is still writing to it (SQLite's write-ahead log lets readers in).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import GameNotFoundError, ReplayError
from arena.runtime.actions import decode_actions
from arena.runtime.game import GameResult
from arena.runtime.reading import (
    MAX_GAME_NUMBER,
    open_results,
    read_entrants,
    read_env,
    read_games,
)
from arena.runtime.store import ResultsFileError
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec

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
        trust: whether building its env and entrants may import the ``module:callable`` names
            the file holds (``True``, or the names allowed); see :meth:`reading`.
        notes: what a replay could not show, and why (an entrant whose code is not trusted).
    """

    id: int
    env: EnvSpec
    result: GameResult
    entrants: dict[str, AgentSpec] = field(default_factory=dict)
    steps: list[dict[str, Any]] | None = field(default=None, repr=False)
    db: str = ""
    trust: bool | frozenset[str] = False
    notes: list[str] = field(default_factory=list, repr=False)

    @property
    def title(self) -> str:
        """``"game 3 of results.db: tic_tac_toe, seed 12: a (player_0) vs b (player_1)"``."""
        seats = " vs ".join(f"{name} ({seat})" for seat, name in self.result.seats.items())
        return f"game {self.id} of {Path(self.db).name}: {self.env.factory}, seed {self.result.seed}: {seats}"

    def reading(self) -> Any:
        """The scope in which this game's names are resolved: only registered names, unless trusted.

        Example::

            with game.reading():
                env = make_env(game.env.factory, **game.env.kwargs)
        """
        from arena.registry import reading_data

        return reading_data(f"results file {self.db!r}", self.trust)


def _entrants(db: Any, path: str) -> dict[str, AgentSpec]:
    return {spec.name: spec for spec, _ in read_entrants(db, path, "replay")}


def list_games(path: str | Path) -> list[tuple[int, GameResult, bool]]:
    """``(id, record, has actions)`` of every stored game, in the order they were stored."""
    with _reading(path) as db:
        return [(number, result, blob is not None) for number, blob, result in read_games(db, str(path), "replay")]


@contextmanager
def _reading(path: str | Path) -> Iterator[Any]:
    """The file, open read-only; a file that cannot be read is a :class:`ReplayError` (one line)."""
    try:
        db = open_results(path, "replay")
    except ResultsFileError as err:
        raise ReplayError(str(err)) from None
    try:
        yield db
    except ResultsFileError as err:
        raise ReplayError(str(err)) from None
    finally:
        db.close()


def _parse_id(game: int | str, path: str) -> tuple[str, Any]:
    text = str(game).strip()
    if isinstance(game, int) and not isinstance(game, bool) or text.isdigit() and text.isascii():
        return "g.rowid = ?", (_game_number(int(text), game, path),)
    lineup, sep, index = text.rpartition("#")
    if sep and index.isdigit() and index.isascii():
        return "g.lineup = ? AND g.game_index = ?", (lineup, _game_number(int(index), game, path))
    raise ReplayError(
        f"replay: a game is given by its number (see `arena replay {path}`) or as LINEUP#INDEX, got {_short(game)}"
    )


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def _game_number(number: int, asked: Any, path: str) -> int:
    if not 0 <= number <= MAX_GAME_NUMBER:
        raise GameNotFoundError(
            f"replay: {path!r} has no game {_short(asked)} (game numbers run from 1 to at most "
            f"{MAX_GAME_NUMBER}); `arena replay {path}` lists the games"
        )
    return number


def load_game(path: str | Path, game: int | str, *, trust: bool | frozenset[str] = False) -> StoredGame:
    """The stored game ``game`` (its number, or ``"LINEUP#INDEX"``) of the file at ``path``.

    Args:
        path: the results file (opened read-only).
        game: the game's number, or ``"LINEUP#INDEX"``.
        trust: let replaying import the ``module:callable`` names the file holds (see
            :meth:`StoredGame.reading`); by default only registered names resolve.

    Raises:
        ResultsFileError: the file is not an arena results file, or a row is damaged.
        GameNotFoundError: no such game.
    """
    where, args = _parse_id(game, str(path))
    return _load(path, where, args, game, trust)[0]


def load_games(path: str | Path, *, trust: bool | frozenset[str] = False) -> list[StoredGame]:
    """Every stored game of the file, in the order they were stored (``trust`` as for :func:`load_game`)."""
    return _load(path, "1", (), None, trust)


def _load(path: str | Path, where: str, args: Any, asked: Any, trust: bool | frozenset[str]) -> list[StoredGame]:
    with _reading(path) as db:
        env = read_env(db, str(path), "replay")
        if env is None:
            raise ReplayError(f"replay: {str(path)!r} names no env (its tournament never started)")
        entrants = _entrants(db, str(path))
        rows = list(read_games(db, str(path), "replay", where, args))
    if asked is not None and not rows:
        raise GameNotFoundError(
            f"replay: {str(path)!r} has no game {_short(asked)}; `arena replay {path}` lists the games"
        )
    games = []
    for number, blob, result in rows:
        result.actions = blob
        seated = {name: entrants[name] for name in result.seats.values() if name in entrants}
        steps = None if blob is None else decode_actions(blob)
        games.append(StoredGame(number, env, result, seated, steps, str(path), trust))
    return games
