"""The inputs of :mod:`arena.evaluation`, made from stored tournament games: sets, SPRT units, rankings, matrices.

(:mod:`arena.evaluation` holds the mathematics and knows nothing of tournaments; this module
turns a tournament's :class:`GameResult` records into what those functions take.)

A *set* is the games of one lineup that share a seed: with duplicate games (the default) the
``k`` seatings of one chance seed; without, every game is its own set. Sets are the unit of
the pentanomial SPRT and of the bootstrap, so paired games are never split.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from arena.evaluation.elo import EloFit, fit_elo
from arena.evaluation.results import MeanEstimate, kind_ranking, mean_interval
from arena.runtime.game import GameResult

__all__ = [
    "set_key",
    "sprt_units",
    "elo_of",
    "score_table",
    "kind_games",
    "return_estimate",
    "return_table",
]


def kind_games(games: Iterable[GameResult], kind: str) -> Iterator[GameResult]:
    """``games`` with their ranks as the env's result kind counts them
    (:func:`arena.evaluation.results.kind_ranking`: an ``"outcome"`` game of three or more
    entrants has its winners first and everyone else tied second)."""
    for game in games:
        if kind == "outcome" and len(game.ranks) > 2:
            ranks = kind_ranking(game.ranks, kind)
            yield game if ranks == game.ranks else dataclasses.replace(game, ranks=ranks)
        else:
            yield game


def return_units(games: Iterable[GameResult], name: str, against: str | None = None) -> list[float]:
    """``name``'s mean return per game over each set it played (with ``against`` in the game),
    in schedule order: the units of :func:`return_estimate`. Games without returns (forfeits,
    env errors) are left out."""
    sets: dict[tuple[str, int], list[float]] = {}
    for game in sorted(games, key=lambda g: (g.index, g.lineup)):
        if game.returns is None or name not in game.returns or (against is not None and against not in game.returns):
            continue
        sets.setdefault(set_key(game), []).append(float(game.returns[name]))
    return [sum(values) / len(values) for values in sets.values()]


def return_estimate(games: Iterable[GameResult], name: str, against: str | None = None) -> MeanEstimate:
    """``name``'s mean return per game (against ``against``, or the whole field) with its 95%
    interval over duplicate sets (a set is one unit: the seats and deals it rotates are paired).

    Example:
        >>> from arena.runtime.game import GameResult
        >>> g = lambda i, r: GameResult("a|b", i, i // 2, {}, {"a": 1, "b": 2}, {"a": r, "b": -r}, 1, "")
        >>> estimate = return_estimate([g(0, 3.0), g(1, -1.0), g(2, 2.0), g(3, 0.0)], "a")
        >>> estimate.mean, estimate.units
        (1.0, 2)
    """
    return mean_interval(return_units(games, name, against))


def return_table(games: Sequence[GameResult], names: Sequence[str]) -> list[list[float]]:
    """``table[i][j]``: ``names[i]``'s mean return per game in the games it shared with
    ``names[j]`` (NaN where they never met): the meta-game of a ``"return"`` env."""
    sums = np.zeros((len(names), len(names)))
    counts = np.zeros((len(names), len(names)))
    index = {name: i for i, name in enumerate(names)}
    for game in games:
        if game.returns is None:
            continue
        present = [name for name in game.returns if name in index]
        for a in present:
            for b in present:
                if a != b:
                    sums[index[a], index[b]] += game.returns[a]
                    counts[index[a], index[b]] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        table = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return table.tolist()


def set_key(game: GameResult) -> tuple[str, int]:
    """The duplicate set a game belongs to: ``(lineup, seed)``."""
    return game.lineup, game.seed


def _score(game: GameResult, a: str, b: str) -> float:
    ra, rb = game.ranks[a], game.ranks[b]
    return 1.0 if ra < rb else 0.0 if ra > rb else 0.5


def sprt_units(games: Iterable[GameResult], a: str, b: str, *, pentanomial: bool, set_size: int = 2) -> list[int]:
    """The results of ``a`` against ``b`` as SPRT category indices, in schedule order.

    Pentanomial: one unit per complete set of ``set_size`` games (``a``'s total over the set,
    doubled and divided by the set size: 0 .. 4); trinomial: one unit per game (0 loss, 1 draw,
    2 win). Games that ended in an env error (no ranks) are left out; so is a set missing one.

    Example:
        >>> from arena.runtime.game import GameResult
        >>> g = lambda i, ra: GameResult("a|b", i, 7, {}, {"a": ra, "b": 3 - ra}, {}, 1, "")
        >>> sprt_units([g(0, 1), g(1, 1)], "a", "b", pentanomial=True), sprt_units([g(0, 1), g(1, 2)], "a", "b", pentanomial=False)
        ([4], [2, 0])
    """
    ordered = sorted((g for g in games if g.ranks and a in g.ranks and b in g.ranks), key=lambda g: (g.index, g.lineup))
    if not pentanomial:
        return [int(2 * _score(g, a, b)) for g in ordered]
    sets: dict[tuple[str, int], list[GameResult]] = {}
    for game in ordered:
        sets.setdefault(set_key(game), []).append(game)
    units = []
    for members in sorted(sets.values(), key=lambda m: (min(g.index for g in m), m[0].lineup)):
        if len(members) == set_size:
            units.append(round(4 * sum(_score(g, a, b) for g in members) / set_size))
    return units


def elo_of(
    games: Iterable[GameResult],
    names: Sequence[str],
    *,
    anchor: tuple[str, float] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    prior: float = 1.0,
    members: Mapping[str, Sequence[str]] | None = None,
) -> EloFit:
    """Elo ratings fitted to every ranked game (see :func:`arena.evaluation.fit_elo`), bootstrapped over sets.

    With ``members`` (entrant -> the players of its side, by seat) the sides' ranks rate the
    players, and ``names`` are the players.
    """
    known = set(names) if members is None else set(members)
    ranked = [g for g in games if len([n for n in g.ranks if n in known]) >= 2]
    rankings = [{n: r for n, r in g.ranks.items() if n in known} for g in ranked]
    groups = [set_key(g) for g in ranked]
    return fit_elo(
        rankings, names, anchor=anchor, prior=prior, groups=groups, bootstrap=bootstrap, seed=seed, members=members
    )


def score_table(pairings: dict[tuple[str, str], Any], names: Sequence[str]) -> list[list[float]]:
    """``table[i][j]``: ``names[i]``'s score rate against ``names[j]`` (NaN where they never met)."""
    table = [[math.nan] * len(names) for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            stats = pairings.get((a, b))
            if i != j and stats is not None and stats.games:
                table[i][j] = stats.score
    return table
