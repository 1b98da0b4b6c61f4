"""What a tournament found: :class:`TournamentResult`, read from the results file."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from arena.runtime.game import GameResult
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.tournament.evaluation_inputs import elo_of, kind_games, score_table
from arena.tournament.ratings import Rating, member_keys, member_labels, rate_games, rate_members
from arena.tournament.schedule import Lineup
from arena.tournament.stats import PairingStats, pairing_stats

__all__ = ["TournamentResult"]


@dataclass
class TournamentResult:
    """What a tournament found, from every stored game of its schedule (earlier runs included).

    Attributes:
        env: the env spec.
        entrants: the entrants that played, in the order given.
        excluded: entrant -> why it could not be built (it played no game).
        lineups: the lineups of the schedule.
        games: every scheduled game stored so far, in rating order (read from the results file
            on each pass, not held in memory).
        scheduled: how many games the schedule has.
        played: how many of them this run played (the rest were resumed from the file).
        seconds: the wall-clock time this run spent playing, backend start included.
        startup: the part of ``seconds`` spent starting the backend (worker processes, Ray).
        db: the results file (``":memory:"`` when none was given).
        rules: what the results file checks on resume (env, seed, seatings, limits).
        specs: entrant name -> :class:`AgentSpec`, excluded ones included.
        duplicate: the games came in duplicate sets (shared chance seed, rotated seats).
        sprt: the sequential test asked for (``None``: none).
        sprt_state: where the test stood when the run stopped (its verdict is the one at the
            first crossing of a bound).
        separation: with ``until_separated``: each adjacent pair of the final standings and
            whether its interval leaves out 1/2.
        anchor: ``(entrant, rating)`` the batch Elo fit is anchored to (``None``: mean 0).
        teams: the env's sides (``env.teams``) when it is a team game: each entrant played a
            side, and :meth:`member_elo` rates the members; ``None`` otherwise.
        result_kind: what a game's result is for ranking (the env's
            :attr:`~arena.MultiAgentEnv.result_kind`): ``"outcome"`` and ``"ranks"`` games are
            rated by their ranks as that kind counts them, ``"return"`` games by mean return.
    """

    env: EnvSpec
    entrants: list[str]
    excluded: dict[str, str]
    lineups: list[Lineup] = field(repr=False)
    games: Sequence[GameResult] = field(repr=False)
    scheduled: int
    played: int
    seconds: float
    startup: float
    db: str
    rules: dict[str, Any] = field(default_factory=dict)
    specs: dict[str, AgentSpec] = field(default_factory=dict, repr=False)
    duplicate: bool = True
    sprt: Any = None
    sprt_state: Any = None
    separation: list[tuple[str, str, bool]] | None = None
    anchor: tuple[str, float] | None = None
    teams: dict[str, tuple[str, ...]] | None = None
    result_kind: str = "ranks"

    def rated_games(self) -> Iterator[GameResult]:
        """The games with their ranks as :attr:`result_kind` counts them (an ``"outcome"`` game of
        three or more entrants: its winners first, everyone else tied second)."""
        return kind_games(self.games, self.result_kind)

    def elo(self, bootstrap: int = 0, seed: int = 0) -> Any:
        """Elo ratings fitted to all games at once (:func:`arena.evaluation.fit_elo`), anchored as
        asked, with ``bootstrap`` resamples of game sets for 95% intervals."""
        return elo_of(self.rated_games(), self.entrants, anchor=self.anchor, bootstrap=bootstrap, seed=seed)

    def member_elo(self, bootstrap: int = 0, seed: int = 0) -> Any:
        """In a team game, Elo ratings of the members fitted to all games at once: a side's strength
        is the mean of its seats' players' (:func:`arena.evaluation.fit_elo` with ``members``), so a
        member gets one rating from every entrant it is part of (its contribution), and a side of one
        player in every seat rates that player as the entrant. ``None`` without teams."""
        if not self.teams:
            return None
        sizes = {len(ids) for ids in self.teams.values()}
        members = {
            name: [m.describe() for m in self.specs[name].side_members(next(iter(sizes)))]
            if len(sizes) == 1
            else self.members_of(name)
            for name in self.entrants
        }
        players = list(dict.fromkeys(key for keys in members.values() for key in keys))
        return elo_of(self.rated_games(), players, bootstrap=bootstrap, seed=seed, members=members)

    def score_table(self) -> list[list[float]]:
        """``table[i][j]``: entrant ``i``'s score rate against ``j`` (NaN where they never met)."""
        return score_table(self.pairings, self.entrants)

    @cached_property
    def pairings(self) -> dict[tuple[str, str], PairingStats]:
        """``(a, b)`` -> how ``a`` fared against ``b`` (both orders present)."""
        return pairing_stats(self.rated_games(), self.entrants)

    @cached_property
    def ratings(self) -> dict[str, Rating]:
        """Entrant -> openskill rating (needs the ``tournament`` extra)."""
        return rate_games(self.rated_games(), self.entrants)

    @cached_property
    def member_ratings(self) -> dict[str, Rating]:
        """In a team game, member -> its openskill rating inside the teams it played in: each
        member's contribution, one rating across every entrant it is part of. Empty otherwise."""
        if not self.teams:
            return {}
        return rate_members(self.rated_games(), {name: self.specs[name] for name in self.entrants})

    @cached_property
    def member_labels(self) -> dict[str, str]:
        """Member (a key of :attr:`member_ratings`) -> what tables and pictures show for it
        (:func:`~arena.tournament.ratings.member_labels`: a trained folder by its name)."""
        return member_labels(self.specs[name] for name in self.entrants)

    def members_of(self, name: str) -> list[str]:
        """The members of entrant ``name`` (its own description for a plain entrant)."""
        return member_keys(self.specs[name])

    def leaderboard(self) -> list[Rating]:
        """Ratings from best to worst by the conservative ``mu - 3 sigma``."""
        return sorted(self.ratings.values(), key=lambda rating: (-rating.ordinal, rating.name))

    @property
    def forfeits(self) -> list[GameResult]:
        return [game for game in self.games if game.forfeit is not None]

    @property
    def errors(self) -> list[GameResult]:
        """Games the env itself failed (they count nowhere)."""
        return [game for game in self.games if game.outcome == "error"]

    @property
    def complete(self) -> bool:
        return len(self.games) == self.scheduled

    @property
    def games_per_second(self) -> float:
        """Games played by this run per second of play (backend start excluded)."""
        playing = self.seconds - self.startup
        return self.played / playing if playing > 0 else 0.0
