"""Playing one scheduled game anywhere: the code every backend's worker runs.

A :class:`GameRunner` holds one env and one guarded agent per entrant (built on first use and
reused; :meth:`arena.Agent.reset` re-seeds them each game), plays :class:`GameTask` s and turns
each into a :class:`GameResult`, whatever happened: a finished game, a forfeit, or an error of
the env itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.errors import AgentError, Forfeit
from arena.play_loop import Episode, outcome_text, play
from arena.runtime.actions import encode_actions
from arena.runtime.guard import GuardedAgent, MoveTimer, SeatWatch
from arena.specs.agents import AgentSpec, agent_version
from arena.specs.envs import EnvSpec
from arena.teams import Team

__all__ = ["GameConfig", "GameResult", "GameRunner", "GameTask", "Layout", "error_result", "forfeit_result", "seat_map"]


@dataclass(frozen=True)
class GameTask:
    """One game to play: ``seats[j]`` is the entrant in the env's ``possible_agents[j]`` (in a team
    game, on its ``j``-th side); an entrant appears several times in a filled lineup."""

    lineup: str
    index: int
    seed: int
    seats: tuple[str, ...]


@dataclass(frozen=True)
class GameConfig:
    """What every worker needs to play any game of a tournament (picklable)."""

    env: EnvSpec
    agents: tuple[AgentSpec, ...]
    move_time_limit: float | None = None
    max_steps: int | None = None


@dataclass
class GameResult:
    """The record of one played game, as stored.

    Attributes:
        lineup, index, seed: the game's key and seed (see :mod:`arena.tournament.schedule`).
        seats: env agent id -> entrant name (in a team game, every seat of the entrant's side).
        ranks: entrant -> rank (1 best, ties share); a forfeiting entrant ranks last and the
            others share first place. Empty when the env itself failed. In a team game, the
            rank of the entrant's side.
        returns: entrant -> episode return (in a team game, its side's team return), or
            ``None`` when the game did not finish.
        length: env steps played.
        outcome: ``"draw"``, ``"NAME wins"``, ``"NAME forfeits"`` or ``"error"``.
        forfeit: the entrant that forfeited, if any.
        error: the fault's text (forfeit reason or env error), if any.
        versions: entrant -> :func:`agent_version` of the agent that played.
        truncated: the episode was cut (env truncation or ``max_steps``).
        seconds: wall-clock time the game took.
        actions: the joint actions of each step, packed by :func:`arena.runtime.actions.encode_actions`
            (stored beside the game so that it can be replayed; ``None`` when the env failed).
    """

    lineup: str
    index: int
    seed: int
    seats: dict[str, str]
    ranks: dict[str, int]
    returns: dict[str, float] | None
    length: int
    outcome: str
    forfeit: str | None = None
    error: str | None = None
    versions: dict[str, str] = field(default_factory=dict)
    truncated: bool = False
    seconds: float = 0.0
    actions: bytes | None = field(default=None, repr=False)

    def same_play(self, other: GameResult) -> bool:
        """Whether two records describe the same game played the same way (timing aside)."""
        keys = ("lineup", "index", "seed", "seats", "ranks", "returns", "length", "outcome", "forfeit", "truncated")
        return all(getattr(self, k) == getattr(other, k) for k in keys)


class GameRunner:
    """Plays games of one tournament in the current process.

    Call :meth:`start` in the process that will play (it installs the move timer there)
    and :meth:`stop` when done.

    Args:
        config: the tournament's game configuration.
        watch_state: a worker's shared ``[game, entrant, phase, deadline]`` array (see
            :class:`~arena.runtime.guard.SeatWatch`), or ``None`` when no other process watches.
    """

    def __init__(self, config: GameConfig, watch_state: Any = None) -> None:
        self.config = config
        self.specs = {spec.name: spec for spec in config.agents}
        self.watch_state = watch_state
        self._index = {spec.name: i for i, spec in enumerate(config.agents)}
        self.timer = MoveTimer()
        self._env: Any = None
        self._guards: dict[tuple[str, int], GuardedAgent] = {}
        self._sides: dict[tuple[str, int], list[GuardedAgent]] = {}
        self._versions: dict[str, str] = {}
        self._layout: Layout | None = None  # the env's places, fixed once it is built

    def start(self) -> GameRunner:
        if self.config.move_time_limit is not None:
            self.timer.install()
        return self

    def stop(self) -> None:
        self.timer.uninstall()
        if self._env is not None:
            self._env.close()

    def _watch(self, name: str) -> SeatWatch | None:
        """The worker's watch over entrant ``name`` (``None`` when nothing watches this process)."""
        return None if self.watch_state is None else SeatWatch(self.watch_state, self._index[name])

    @staticmethod
    def _build(name: str, watch: SeatWatch | None, build: Callable[[], Any]) -> Any:
        """``build()`` under ``watch``; any failure (exit and Ctrl-C included) is ``name``'s forfeit."""
        try:
            if watch is not None:
                watch.begin(5)
            return build()
        except (Exception, SystemExit, KeyboardInterrupt) as err:
            raise Forfeit(name, f"could not be built: {type(err).__name__}: {err}") from err
        finally:
            if watch is not None:
                watch.end()

    def _guard(self, name: str, copy: int = 0) -> GuardedAgent:
        """The guarded agent of entrant ``name`` in its ``copy``-th seat of a game (each seat of a
        filled lineup is its own agent, with its own state)."""
        guard = self._guards.get((name, copy))
        if guard is None:
            watch = self._watch(name)
            agent = self._build(name, watch, lambda: self.specs[name].build(self._env))
            guard = GuardedAgent(agent, name, self.config.move_time_limit, self.timer, watch)
            self._guards[name, copy] = guard
            self._versions[name] = agent_version(agent)
        return guard

    def _side(self, name: str, seats: int) -> Team:
        """The guarded agents of entrant ``name`` for a side of ``seats`` seats (team games); the
        worker's watch charges the entrant when a member ends the process."""
        guards = self._sides.get((name, seats))
        if guards is None:
            watch = self._watch(name)
            agents = self._build(name, watch, lambda: self.specs[name].build_side(seats, self._env))
            by_object: dict[int, GuardedAgent] = {}  # a shared member keeps one guard for its seats
            guards = [
                by_object.setdefault(
                    id(agent), GuardedAgent(agent, name, self.config.move_time_limit, self.timer, watch)
                )
                for agent in agents
            ]
            self._sides[name, seats] = guards
            self._versions[name] = " + ".join(dict.fromkeys(agent_version(g.agent) for g in guards))
        return Team(guards, name=name)

    def play(self, task: GameTask) -> GameResult:
        """Play ``task``; faults become a forfeit or an ``"error"`` record, never an exception."""
        if self._env is None:
            self._env = self.config.env.build()
        env = self._env
        seat_ids = list(env.possible_agents)
        sides = env.teams
        seats = seat_map(self.layout(), task.seats)
        start = time.perf_counter()
        fault: Forfeit | None = None
        steps: list[dict[str, Any]] = []
        try:
            episode = play(
                env, self._agents(task, seats, sides), seed=task.seed, max_steps=self.config.max_steps, record=steps
            )
        except AgentError as err:
            fault = self._forfeit_of(err, seats)
        except Forfeit as err:  # setup() and reset() are not wrapped by play()
            fault = err
        except Exception as err:
            return GameResult(
                task.lineup,
                task.index,
                task.seed,
                seats,
                {},
                None,
                0,
                "error",
                error=f"the env failed: {type(err).__name__}: {err}",
                versions=self._versions_of(task.seats),
                seconds=time.perf_counter() - start,
            )
        seconds = time.perf_counter() - start
        versions = self._versions_of(task.seats)
        if fault is not None:
            self._forget(fault.entrant)  # a faulty agent may be left half-way; rebuild it
            result = forfeit_result(task, self.layout(), fault.entrant, fault.reason, seconds)
            result.versions, result.actions = versions, encode_actions(seat_ids, steps)
            return result
        returns, ranks, winners = _entrant_scores(episode, seats, task.seats, sides)
        outcome = outcome_text(winners)
        return GameResult(
            task.lineup,
            task.index,
            task.seed,
            seats,
            ranks,
            returns,
            episode.length,
            outcome,
            versions=versions,
            truncated=episode.truncated,
            seconds=seconds,
            actions=encode_actions(seat_ids, steps),
        )

    def _agents(self, task: GameTask, seats: dict[str, str], sides: Any) -> dict[str, Any]:
        """Seat (or side) -> the agent that plays it; an entrant in several seats has an agent for each."""
        if sides:
            return {team: self._side(name, len(ids)) for (team, ids), name in zip(sides.items(), task.seats)}
        copies: dict[str, int] = {}
        agents = {}
        for seat, name in seats.items():
            copies[name] = copies.get(name, -1) + 1
            agents[seat] = self._guard(name, copies[name])
        return agents

    def _forget(self, entrant: str) -> None:
        for key in [key for key in self._guards if key[0] == entrant]:
            del self._guards[key]
        for key in [key for key in self._sides if key[0] == entrant]:
            del self._sides[key]

    def layout(self) -> Layout:
        """The env agents of each place a task fills: one seat each, or (a team game) each side's
        seats in the env's team order; builds the env if it is not built yet."""
        if self._layout is None:
            if self._env is None:
                self._env = self.config.env.build()
            sides = self._env.teams
            self._layout = (
                tuple(tuple(ids) for ids in sides.values())
                if sides
                else tuple((agent,) for agent in self._env.possible_agents)
            )
        return self._layout

    def _versions_of(self, names: tuple[str, ...]) -> dict[str, str]:
        return {name: self._versions[name] for name in names if name in self._versions}

    @staticmethod
    def _forfeit_of(err: AgentError, seats: dict[str, str]) -> Forfeit:
        original = err.original
        if isinstance(original, Forfeit):
            return original
        # Not raised through a guard (a team key, or a fault in play's own checks): charge the seat.
        agent_id: Any = err.agent_id  # a seat, or a side's seats
        seat = agent_id if isinstance(agent_id, str) else next(iter(agent_id))
        return Forfeit(seats.get(seat, str(seat)), f"{type(original).__name__}: {original}")


def _entrant_scores(
    episode: Episode, seats: dict[str, str], order: tuple[str, ...], sides: Any
) -> tuple[dict[str, float], dict[str, int], list[str]]:
    """Entrant -> return and rank, and the winning entrants, of a finished episode.

    In a team game each entrant is its side: the episode's team returns and team ranks (which
    follow the env's own team scores where it gives them). An entrant in several seats of a
    filled lineup is scored as a side too: its return is the mean of its seats' returns and
    ranks follow those returns, as :attr:`arena.Episode.team_returns` does (and as a replay's
    verification recomputes them).
    """
    if sides:
        entrant_of = dict(zip(sides, order))
        return (
            {entrant_of[team]: float(value) for team, value in episode.team_returns.items()},
            {entrant_of[team]: int(rank) for team, rank in episode.team_ranks.items()},
            [entrant_of[team] for team in episode.winning_teams],
        )
    if len(set(order)) == len(order):  # one seat each: the episode's own ranks
        return (
            {seats[seat]: float(value) for seat, value in episode.returns.items()},
            {seats[seat]: int(rank) for seat, rank in episode.ranks.items()},
            [seats[seat] for seat in episode.winners],
        )
    groups: dict[str, tuple[str, ...]] = {}
    for seat, name in seats.items():
        groups[name] = (*groups.get(name, ()), seat)
    scored = Episode(episode.returns, episode.length, teams=groups)
    return (
        {name: float(value) for name, value in scored.team_returns.items()},
        {name: int(rank) for name, rank in scored.team_ranks.items()},
        scored.winning_teams,
    )


Layout = tuple[tuple[str, ...], ...]


def seat_map(layout: Layout, places: tuple[str, ...]) -> dict[str, str]:
    """Env agent id -> entrant, from a task's places (seats, or a team game's sides) and the layout.

    Example:
        >>> seat_map((("a0", "a2"), ("a1", "a3")), ("x", "y"))
        {'a0': 'x', 'a2': 'x', 'a1': 'y', 'a3': 'y'}
    """
    return {agent: name for ids, name in zip(layout, places) for agent in ids}


def forfeit_result(task: GameTask, layout: Layout, entrant: str, reason: str, seconds: float = 0.0) -> GameResult:
    """The record of a game that ``entrant`` lost by forfeit (built where the game was not played:
    the tournament's process, after the entrant ended its worker). The forfeiter ranks last, the
    others share first place."""
    ranks = {name: (len(set(task.seats)) if name == entrant else 1) for name in task.seats}
    return GameResult(
        task.lineup,
        task.index,
        task.seed,
        seat_map(layout, task.seats),
        ranks,
        None,
        0,
        f"{entrant} forfeits",
        forfeit=entrant,
        error=reason,
        seconds=seconds,
    )


def error_result(task: GameTask, layout: Layout, reason: str, seconds: float = 0.0) -> GameResult:
    """The record of a game the env itself failed (it counts nowhere)."""
    return GameResult(
        task.lineup,
        task.index,
        task.seed,
        seat_map(layout, task.seats),
        {},
        None,
        0,
        "error",
        error=reason,
        seconds=seconds,
    )
