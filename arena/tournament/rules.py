"""What a tournament plays (:class:`TournamentRules`) and where it plays it (:class:`Execution`).

Both are frozen and check themselves when made, so a bad option is refused before any env or
agent is built, with a message that names the option, what was expected and what came.

Example:
    >>> rules = TournamentRules.make("tic_tac_toe", ["random", "b=random"], games=4, seed=3)
    >>> rules.names, rules.games, rules.stored()["seed"]
    (('random', 'b'), 4, 3)
    >>> Execution.make(workers=2).backend
    'processes'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.errors import InvalidValueError
from arena.runtime.guard import check_move_time_limit
from arena.runtime.runner import BACKENDS, start_context
from arena.specs.agents import AgentSpec, entrant_specs
from arena.specs.envs import EnvSpec
from arena.tournament.schedule import MODES

__all__ = ["Execution", "TournamentRules", "check_fits"]


def _positive_int(value: Any, what: str, unit: str = "integer") -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidValueError(f"tournament: {what} must be a positive {unit}, got {value!r}")


@dataclass(frozen=True)
class TournamentRules:
    """The rules of a tournament: everything that decides which games are played and how they end.

    Two runs with equal rules play equal games, whatever the backend; the results file stores
    :meth:`stored` and refuses to resume under other rules.

    Attributes:
        env: the env spec.
        entrants: the entrants, in the order given (a gauntlet's challenger first).
        mode: ``"round-robin"``, ``"head-to-head"`` or ``"gauntlet"``.
        games: games per lineup (rounded up to whole seat rotations).
        seed: the tournament seed (0 .. 2**64 - 1).
        seatings: ``"auto"``, ``"all"`` or ``"rotations"``.
        duplicate: games come in sets that share a chance seed and rotate the seats.
        move_time_limit: seconds per move, at most one day (``None``: no limit).
        max_steps: env steps before a game is cut (``None``: no limit).
        anchor: ``(entrant, rating)`` for the batch Elo fit, or ``None``.
        exclude_unbuildable: play without the entrants that cannot be built (``result.excluded``)
            instead of refusing the tournament.

    Raises:
        ValueError: an option out of range (the message names it), or an anchor that is not
            an entrant.
    """

    env: EnvSpec
    entrants: tuple[AgentSpec, ...]
    mode: str = "round-robin"
    games: int = 20
    seed: int = 0
    seatings: str = "auto"
    duplicate: bool = True
    move_time_limit: float | None = None
    max_steps: int | None = None
    anchor: tuple[str, float] | None = None
    exclude_unbuildable: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InvalidValueError(f"tournament: mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        _positive_int(self.games, "games")
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed < 2**64:
            raise InvalidValueError(f"tournament: seed must be an integer from 0 to 2**64 - 1, got {self.seed!r}")
        if self.seatings not in ("auto", "all", "rotations"):
            raise InvalidValueError(f"tournament: seatings must be 'auto', 'all' or 'rotations', got {self.seatings!r}")
        check_move_time_limit(self.move_time_limit, "tournament: move_time_limit")
        if self.max_steps is not None:
            _positive_int(self.max_steps, "max_steps")
        for flag in ("duplicate", "exclude_unbuildable"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidValueError(f"tournament: {flag} must be True or False, got {getattr(self, flag)!r}")
        anchor = self.anchor
        if anchor is not None:
            if not (
                isinstance(anchor, tuple)
                and len(anchor) == 2
                and isinstance(anchor[0], str)
                and isinstance(anchor[1], (int, float))
                and not isinstance(anchor[1], bool)
            ):
                raise InvalidValueError(
                    f"tournament: anchor must be (entrant, rating), e.g. ('random', 0.0), got {anchor!r}"
                )
            if anchor[0] not in self.names:
                raise InvalidValueError(
                    f"tournament: the anchor {anchor[0]!r} is not an entrant; expected one of {list(self.names)}"
                )
            object.__setattr__(self, "anchor", (anchor[0], float(anchor[1])))

    @classmethod
    def make(
        cls,
        env: Any,
        agents: Sequence[Any] | Mapping[str, Any] | str,
        *,
        env_kwargs: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> TournamentRules:
        """Rules from what :func:`~arena.tournament.run_tournament` accepts: an env name or factory,
        entrants as a list, a dict or an ``--agents`` string, and the options by keyword.

        Example:
            >>> TournamentRules.make("connect_four", "random,b=random", env_kwargs={"rows": 5}).env.kwargs
            {'rows': 5}
        """
        return cls(EnvSpec.coerce(env, env_kwargs), tuple(entrant_specs(agents)), **options)

    @property
    def names(self) -> tuple[str, ...]:
        """The entrants' names, in order."""
        return tuple(spec.name for spec in self.entrants)

    def stored(self) -> dict[str, Any]:
        """What the results file checks on resume (env, seed, seatings, limits)."""
        rules: dict[str, Any] = {
            "env": self.env.factory,
            "env_kwargs": self.env.kwargs,
            "seed": self.seed,
            "seatings": self.seatings,
            "max_steps": self.max_steps,
            "move_time_limit": self.move_time_limit,
        }
        if not self.duplicate:  # files written before duplicate sets existed had a seed per game
            rules["duplicate"] = False
        return rules


@dataclass(frozen=True)
class Execution:
    """Where and how the games run; results never depend on it.

    Attributes:
        backend: ``"serial"`` (one watched worker process: an entrant that ends its process
            forfeits, and a move can be ended from outside), ``"inline"`` (in this process, for
            debugging; no move time limit), ``"processes"`` (``workers`` local processes) or
            ``"ray"`` (actors on a Ray cluster). :meth:`make` picks serial for one worker and
            processes otherwise.
        workers: local worker processes (default 1; 2 for ``"processes"``), or Ray actors
            (default: one per CPU of the cluster).
        address: the Ray cluster to join (default: start a local one).
        chunk_size: games per task sent to a worker (``None``: balanced automatically).
        start_method: how local workers start: ``"forkserver"`` (default; ``"spawn"`` where there
            is none), ``"spawn"`` or ``"fork"`` (fastest, but a forked child of a process that
            runs threads, such as torch's, can hang).

    Raises:
        ValueError: an unknown backend or start method, workers that are not a positive
            integer, or several workers on a one-game-at-a-time backend.
    """

    backend: str = "serial"
    workers: int | None = None
    address: str | None = None
    chunk_size: int | None = None
    start_method: str | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise InvalidValueError(f"tournament: backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.workers is not None:
            _positive_int(self.workers, "workers")
        if self.backend in ("serial", "inline") and self.workers not in (None, 1):
            raise InvalidValueError(
                f"tournament: the {self.backend} backend plays one game at a time; workers={self.workers} "
                "needs backend='processes' or 'ray'"
            )
        if self.chunk_size is not None:
            _positive_int(self.chunk_size, "chunk_size")
        if self.start_method is not None:
            start_context(self.start_method)  # refuses a method this platform does not offer

    @classmethod
    def make(cls, backend: str | None = None, workers: int | None = None, **options: Any) -> Execution:
        """The execution asked for; the backend defaults to serial for one worker, processes otherwise.

        Example:
            >>> Execution.make(workers=4, start_method="spawn")
            Execution(backend='processes', workers=4, address=None, chunk_size=None, start_method='spawn')
        """
        return cls(backend or ("serial" if workers in (None, 1) else "processes"), workers, **options)

    @property
    def parallel(self) -> int:
        """How many games may be in flight at once (an adaptive round plays this many sets)."""
        return max(1, self.workers or 1)


def check_fits(rules: TournamentRules, execution: Execution) -> None:
    """Refuse an execution that cannot play by these rules: a move time limit on the inline backend.

    Raises:
        ValueError: ``rules.move_time_limit`` is set and ``execution.backend`` is ``"inline"``.
    """
    if execution.backend == "inline" and rules.move_time_limit is not None:
        raise InvalidValueError(
            "tournament: the inline backend plays in this process and cannot hold a move time "
            "limit; use backend='serial'"
        )
