"""From stored games to the inputs of :mod:`arena.evaluation`: sets, SPRT units, rankings, matrices.

A *set* is the games of one lineup that share a seed: with duplicate games (the default) the
``k`` seatings of one chance seed; without, every game is its own set. Sets are the unit of
the pentanomial SPRT and of the bootstrap, so paired games are never split.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from arena.evaluation.elo import EloFit, fit_elo
from arena.evaluation.sprt import SPRT, SPRTState
from arena.tournament.game import GameResult

__all__ = ["set_key", "sprt_units", "sprt_state", "elo_of", "score_table", "separated_pairs", "make_sprt", "games_until"]


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
        >>> from arena.tournament.game import GameResult
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


def sprt_state(games: Iterable[GameResult], a: str, b: str, test: SPRT,
               before: tuple[int, SPRTState] | None = None) -> tuple[SPRTState, int | None]:
    """The test's state over ``games``, and after how many units it first stopped (``None``: not yet).

    The verdict is the one at the first crossing, so later games cannot change it.

    Args:
        before: ``(units, state)`` of an earlier call on a prefix of the same games, to go on
            from there rather than from the start.
    """
    units = sprt_units(games, a, b, pentanomial=test.pentanomial)
    checked, counts = (0, None) if before is None else (before[0], before[1].counts)
    stop, state = test.first_crossing(units[checked:], counts)
    return state, None if stop is None else checked + stop


def elo_of(games: Sequence[GameResult], names: Sequence[str], *, anchor: tuple[str, float] | None = None,
           bootstrap: int = 0, seed: int = 0, prior: float = 1.0) -> EloFit:
    """Elo ratings fitted to every ranked game (see :func:`arena.evaluation.fit_elo`), bootstrapped over sets."""
    ranked = [g for g in games if g.ranks]
    rankings = [{n: r for n, r in g.ranks.items() if n in names} for g in ranked]
    groups = [set_key(g) for g in ranked]
    return fit_elo(rankings, names, anchor=anchor, prior=prior, groups=groups, bootstrap=bootstrap, seed=seed)


def score_table(pairings: dict[tuple[str, str], Any], names: Sequence[str]) -> list[list[float]]:
    """``table[i][j]``: ``names[i]``'s score rate against ``names[j]`` (NaN where they never met)."""
    table = [[math.nan] * len(names) for _ in names]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            stats = pairings.get((a, b))
            if i != j and stats is not None and stats.games:
                table[i][j] = stats.score
    return table


def separated_pairs(order: Sequence[str], pairings: dict[tuple[str, str], Any]) -> list[tuple[str, str, bool]]:
    """Each adjacent pair of the standings ``order`` and whether it is separated: the 95% Wilson
    interval of the first's score against the second leaves out 1/2."""
    result = []
    for a, b in zip(order, order[1:]):
        stats = pairings.get((a, b))
        apart = stats is not None and stats.games > 0 and not stats.interval[0] <= 0.5 <= stats.interval[1]
        result.append((a, b, apart))
    return result


def make_sprt(sprt: Any, alpha: float, beta: float, duplicate: bool, until_separated: bool) -> SPRT | None:
    """The test a tournament asked for (``None`` when ``sprt`` is ``None``); pentanomial with duplicates.

    Raises:
        ValueError: ``sprt`` is not ``(elo0, elo1)``, or is combined with ``until_separated``.
    """
    if sprt is None:
        return None
    if until_separated:
        raise ValueError("tournament: choose one of sprt (a two-entrant match) and until_separated (a field)")
    if not isinstance(sprt, (tuple, list)) or len(sprt) != 2:
        raise ValueError(f"tournament: sprt must be (elo0, elo1), got {sprt!r}")
    return SPRT(sprt[0], sprt[1], alpha, beta, pentanomial=duplicate)


def games_until(games: Sequence[GameResult], stop: int, test: SPRT) -> list[GameResult]:
    """The games up to the unit (set or game) where ``test`` stopped: later ones do not count."""
    ranked = sorted((g for g in games if g.ranks), key=lambda g: (g.index, g.lineup))
    if test.pentanomial:
        sizes: dict[tuple[str, int], int] = {}
        for game in ranked:
            sizes[set_key(game)] = sizes.get(set_key(game), 0) + 1
        complete = [key for key in dict.fromkeys(set_key(g) for g in ranked) if sizes[key] == 2]
        counted = set(complete[:stop])
        last = max(g.index for g in ranked if set_key(g) in counted)
    else:
        last = ranked[stop - 1].index
    return [game for game in games if game.index <= last]
