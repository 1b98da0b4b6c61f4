"""Ratings with uncertainty from the games' ranks, by openskill's Plackett-Luce model.

Why openskill (see docs/architecture.md): it is maintained, MIT-licensed and pure Python; its
Plackett-Luce model rates games of any number of players from their ranks, ties included; and
its ``(mu, sigma)`` ratings carry their uncertainty. (TrueSkill's Python package has seen no
release since 2013.)

The entrants of a tournament are frozen programs, so the model runs without skill drift
(``tau = 0``): ``sigma`` then only shrinks as evidence comes in. Games are rated one at a
time in a fixed order (game index, then lineup), so the ratings are the same however many
workers played them and in whatever order they finished.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.errors import MissingDependencyError
from arena.runtime.game import GameResult
from arena.specs.agents import AgentSpec
from arena.tournament.stats import Z_95

__all__ = ["Rating", "rate_games", "rate_members", "member_keys", "member_labels"]


def _plackett_luce():
    try:
        from openskill.models import PlackettLuce
    except ImportError as err:
        raise MissingDependencyError(
            f"tournament ratings need openskill ({err}); install the extra: pip install 'arena-marl[tournament]'"
        ) from None
    return PlackettLuce(tau=0.0)


@dataclass(frozen=True)
class Rating:
    """An entrant's rating: skill estimate ``mu`` with standard deviation ``sigma``.

    Attributes:
        name: the entrant.
        mu: the skill estimate (openskill's scale: every entrant starts at 25).
        sigma: its uncertainty (starts at 25/3 and shrinks with games).
        games: the rated games the entrant played.
    """

    name: str
    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: a conservative estimate, used to order leaderboards."""
        return self.mu - 3 * self.sigma

    @property
    def interval(self) -> tuple[float, float]:
        """``mu +- 1.96 sigma``, the 95% credible interval of the skill."""
        return self.mu - Z_95 * self.sigma, self.mu + Z_95 * self.sigma

    def as_dict(self) -> dict[str, object]:
        low, high = self.interval
        return {
            "name": self.name,
            "mu": self.mu,
            "sigma": self.sigma,
            "mu_low": low,
            "mu_high": high,
            "ordinal": self.ordinal,
            "games": self.games,
        }


def rate_games(results: Iterable[GameResult], names: list[str]) -> dict[str, Rating]:
    """Rate ``names`` from the ranks of ``results``, in the order given.

    Games without ranks (env errors) and entrants outside ``names`` are skipped.

    Example:
        >>> from arena.runtime.game import GameResult
        >>> games = [GameResult("a|b|c", i, i, {}, {"a": 1, "b": 2, "c": 3}, None, 0, "a wins") for i in range(5)]
        >>> ratings = rate_games(games, ["a", "b", "c"])
        >>> ratings["a"].mu > ratings["b"].mu > ratings["c"].mu
        True
    """
    known = set(names)
    return _rate(results, names, lambda game: [(name, [name]) for name in game.ranks if name in known])


def member_keys(spec: AgentSpec) -> list[str]:
    """The players entrant ``spec`` is made of, for member ratings: each distinct member's
    description (a plain entrant is one player, in every seat of its side).

    Example:
        >>> member_keys(AgentSpec.parse("duo=random+beat_most_common+random"))
        ['random', 'beat_most_common']
    """
    return list(dict.fromkeys(member.describe() for member in (spec.members or (spec,))))


def member_labels(specs: Iterable[AgentSpec]) -> dict[str, str]:
    """Each member key of ``specs`` (:func:`member_keys`) -> what tables show for it: its
    :meth:`AgentSpec.label` (a trained folder by its name), or the key itself where two members
    would show the same label (two folders of one name), so the rows stay told apart.

    Example:
        >>> folder = 'arena.training:load_trained_agent{"path": "/r/c4"}'
        >>> member_labels([AgentSpec("duo", members=("random", folder))])[folder]
        'c4'
        >>> other = 'arena.training:load_trained_agent{"path": "/s/c4"}'
        >>> member_labels([AgentSpec("pair", members=(folder, other))]) == {folder: folder, other: other}
        True
    """
    labels: dict[str, str] = {}
    for spec in specs:
        for member in spec.members or (spec,):
            labels.setdefault(member.describe(), member.label())
    shown = Counter(labels.values())
    return {key: label if shown[label] == 1 else key for key, label in labels.items()}


def rate_members(results: Iterable[GameResult], specs: Mapping[str, AgentSpec]) -> dict[str, Rating]:
    """Rate the members of team entrants by openskill's team model, in the order given.

    Each game is one rating update of the sides as teams of their seats' players (openskill
    rates players inside teams from the teams' ranks), so a member that plays in several
    entrants gets one rating from all of them: its contribution. A player in several seats
    of one game (a plain entrant fills its whole side) takes the mean of its updates.

    Example:
        >>> from arena.runtime.game import GameResult
        >>> specs = {s.name: s for s in map(AgentSpec.parse, ["a=x+y", "b=y+z", "c=x+z"])}
        >>> games = [GameResult("a|b", 0, 0, {}, {"a": 1, "b": 2}, None, 0, "a wins"),
        ...          GameResult("b|c", 0, 0, {}, {"b": 2, "c": 1}, None, 0, "c wins")]
        >>> ratings = rate_members(games, specs)
        >>> ratings["x"].mu > ratings["y"].mu and ratings["x"].mu > ratings["z"].mu
        True
    """
    players = list(dict.fromkeys(key for spec in specs.values() for key in member_keys(spec)))

    def sides(game: GameResult) -> list[tuple[str, list[str]]]:
        found = []
        for name in (name for name in game.ranks if name in specs):
            spec = specs[name]
            seats = sum(1 for entrant in game.seats.values() if entrant == name) or len(spec.members) or 1
            found.append((name, [member.describe() for member in spec.side_members(seats)]))
        return found

    return _rate(results, players, sides)


def _rate(
    results: Iterable[GameResult], players: list[str], sides: Callable[[GameResult], list[tuple[str, list[str]]]]
) -> dict[str, Rating]:
    """Rate ``players`` game by game: ``sides(game)`` gives each ranked entrant and the players of
    its side (one rating update of the sides as teams; a player in several seats of one game
    takes the mean of its updates)."""
    model = _plackett_luce()
    current = {key: model.rating(name=key) for key in players}
    counts = dict.fromkeys(players, 0)
    for game in results:
        found = sides(game)
        if len(found) < 2:
            continue
        rated = model.rate(
            [[current[key] for key in side] for _, side in found], ranks=[game.ranks[name] for name, _ in found]
        )
        updates: dict[str, list[Any]] = {}
        for (_, side), team in zip(found, rated):
            for key, rating in zip(side, team):
                updates.setdefault(key, []).append(rating)
        for key, new in updates.items():
            current[key] = (
                new[0]
                if len(new) == 1
                else model.rating(
                    mu=sum(r.mu for r in new) / len(new), sigma=sum(r.sigma for r in new) / len(new), name=key
                )
            )
            counts[key] += 1
    return {key: Rating(key, float(current[key].mu), float(current[key].sigma), counts[key]) for key in players}
