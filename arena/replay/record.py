"""Recording one game (``arena play --record``, ``arena serve --record``) as a tournament stores it.

The file is an ordinary results file: rules (env spec), entrants (one per seat, named after the
seat), and each game with its joint actions; several games can go to one file as long as they
are of the same env. ``arena replay FILE`` then lists, verifies, films and shows them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.errors import InvalidValueError, TournamentMismatchError
from arena.play_loop import Episode, outcome_text
from arena.runtime.actions import encode_actions
from arena.runtime.game import GameResult
from arena.runtime.store import ResultStore
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.tournament.schedule import lineup_key

__all__ = ["record_game", "check_record_file", "entrant_name"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-+#@/ ]")


def _rules(env: EnvSpec) -> dict[str, Any]:
    return {"env": env.factory, "env_kwargs": env.kwargs, "mode": "recorded"}


def entrant_name(seat: str, spec: AgentSpec) -> str:
    """The entrant name of a recorded seat: what played it (a trained folder by its name), at which seat.

    Example:
        >>> entrant_name("player_1", AgentSpec("x", "my.bots:make"))
        'my.bots.make@player_1'
        >>> entrant_name("player_0", AgentSpec.parse('arena.training:load_trained_agent{"path": "/runs/c4"}'))
        'c4@player_0'
    """
    what = Path(spec.folder).name if spec.folder is not None else spec.factory
    return _UNSAFE.sub(".", f"{what}@{seat}")


def check_record_file(path: str | Path, env: EnvSpec) -> None:
    """Refuse, before any game is played, a results file that holds games of another env or a tournament.

    Raises:
        arena.runtime.store.TournamentMismatchError: the file holds other games.
    """
    with ResultStore(path) as store:
        stored = store.rules()
        wanted = json.loads(json.dumps(_rules(env)))
        if stored and stored != wanted:
            raise TournamentMismatchError(
                f"{path} holds other games ({stored}); record {env.factory} games in another file"
            )


def record_game(
    path: str | Path,
    env: EnvSpec,
    seats: Mapping[str, AgentSpec],
    seed: int,
    steps: list[dict[str, Any]],
    episode: Episode | None = None,
    *,
    forfeit: str | None = None,
    reason: str | None = None,
    seconds: float = 0.0,
) -> int:
    """Store one played game in the results file at ``path``; returns its game number.

    Args:
        path: the results file (created when missing).
        env: the env's spec (name and keyword options, without ``render_mode``).
        seats: env agent id -> the spec of the agent that played it (the entrant is named
            ``FACTORY@SEAT``, see :func:`entrant_name`).
        seed: the seed the game was played with.
        steps: the actions recorded by :func:`arena.play` (``record=``).
        episode: the finished episode, or ``None`` when a seat forfeited.
        forfeit: the seat that forfeited (its entrant ranks last), if any.
        reason: why it forfeited.
        seconds: how long the game took.

    Raises:
        arena.runtime.store.TournamentMismatchError: the file holds games of another env.
    """
    if not isinstance(seed, int):
        raise InvalidValueError(f"record_game: a recorded game needs the seed it was played with, got {seed!r}")
    seats = {seat: AgentSpec(entrant_name(seat, spec), spec.factory, spec.kwargs) for seat, spec in seats.items()}
    names = {seat: spec.name for seat, spec in seats.items()}
    with ResultStore(path) as store:
        store.bind(_rules(env), list(seats.values()))
        lineup = lineup_key(list(names.values()))
        index = sum(1 for game in store.results([lineup]))
        blob = encode_actions(list(seats), steps)
        returns: dict[str, float] | None
        forfeiter: str | None
        if episode is None:
            loser = names.get(forfeit or "", forfeit or "?")
            ranks = {name: len(names) if name == loser else 1 for name in names.values()}
            returns, length, outcome, forfeiter = None, len(steps), f"{loser} forfeits", loser
        else:
            returns = {names[seat]: float(value) for seat, value in episode.returns.items()}
            ranks = {names[seat]: int(rank) for seat, rank in episode.ranks.items()}
            length, outcome, forfeiter = episode.length, outcome_text([names[seat] for seat in episode.winners]), None
        result = GameResult(
            lineup,
            index,
            seed,
            names,
            ranks,
            returns,
            length,
            outcome,
            forfeit=forfeiter,
            error=reason if episode is None else None,
            truncated=episode is not None and episode.truncated,
            seconds=seconds,
            actions=blob,
        )
        store.add([result])
        return store.game_number(lineup, index)
