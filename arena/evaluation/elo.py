"""Batch ratings: Bradley-Terry / Plackett-Luce maximum likelihood over all games at once.

Every entrant ``i`` has a rating ``r_i`` on the Elo scale, strength ``w_i = 10 ** (r_i / 400)``.
A game is a ranking (rank 1 best, ties share a rank). Its likelihood is Plackett-Luce's: the
finishers are drawn best first, each with probability proportional to its strength among
those left; when some tie, the game's likelihood is the geometric mean of the likelihoods of
every order the tied players could have finished in. For two players this is
Bradley-Terry (``P(i beats j) = w_i / (w_i + w_j)``, the Elo curve) and a draw has likelihood
``sqrt(w_i w_j) / (w_i + w_j)``: exactly half a win and half a loss. (A tie of more than five
players averages over the rotations of its tied groups instead of every ordering.)

The fit maximises the log-likelihood of all games with scipy (BFGS with the exact
gradient), so it does not depend on the order of the games (unlike online ratings). An
``anchor`` fixes one entrant's rating (``random=0``); without one, the ratings average 0.
``prior`` virtual draws between every pair of entrants that met keep the estimates finite
when an entrant won (or lost) every game; ``prior=0`` gives the plain maximum likelihood.
Confidence intervals come from a bootstrap over game sets (the duplicate sets of a
tournament, or single games): resample sets with replacement, refit, take percentiles. A
bootstrap over few sets cannot vary (one set resampled is always that set: a zero-width
``+246 .. +246`` at two games), so each interval is widened to hold the Laplace interval too:
``rating +- 1.96 se``, with ``se`` from the curvature of the log-likelihood (prior included) at the
fit, relative to the anchor or to the mean. That interval is wide when the games are few (about
+-400 Elo after two games) and shrinks like ``1/sqrt(games)``, so the reported interval is the
wider of the two: honest at two games, the bootstrap's once there are many sets.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.errors import InvalidValueError
from arena.evaluation.sprt import require_scipy

__all__ = ["EloFit", "fit_elo", "laplace_errors", "ranking_log_likelihood"]

_LN10_400 = math.log(10.0) / 400.0


_ALL_ORDERINGS_UP_TO = 120  # beyond this many orderings of a game's ties, the rotations of each tied group


def _orderings(groups: list[list[int]]) -> list[tuple[int, ...]]:
    """The strict rankings a ranking with ties stands for (each tied group in every order)."""
    count = math.prod(math.factorial(len(group)) for group in groups)
    options = []
    for group in groups:
        if count <= _ALL_ORDERINGS_UP_TO:
            options.append(list(itertools.permutations(group)))
        else:
            options.append([tuple(group[i:] + group[:i]) for i in range(len(group))])
    return [tuple(i for part in choice for i in part) for choice in itertools.product(*options)]


def _encode(rankings: Sequence[Mapping[str, int]], names: Sequence[str]) -> list[list[tuple[int, ...]]]:
    """Each ranking as the strict orderings (entrant indices, best first) it averages over."""
    index = {name: i for i, name in enumerate(names)}
    games = []
    for ranking in rankings:
        groups: dict[int, list[int]] = {}
        for name, rank in ranking.items():
            if name not in index:
                raise InvalidValueError(
                    f"fit_elo: the ranking {dict(ranking)} names {name!r}, not one of the entrants {list(names)}"
                )
            groups.setdefault(int(rank), []).append(index[name])
        games.append(_orderings([sorted(groups[rank]) for rank in sorted(groups)]))
    return games


def _sides(
    rankings: Sequence[Mapping[str, int]], names: Sequence[str], members: Mapping[str, Sequence[str]] | None
) -> tuple[list[str], np.ndarray | None]:
    """The names the rankings use, and (with ``members``) the sides x players matrix of member shares."""
    if members is None:
        return list(names), None
    index = {name: i for i, name in enumerate(names)}
    sides = list(members)
    composition = np.zeros((len(sides), len(names)))
    for row, side in enumerate(sides):
        if not members[side]:
            raise InvalidValueError(f"fit_elo: the side {side!r} has no members")
        for member in members[side]:
            if member not in index:
                raise InvalidValueError(
                    f"fit_elo: the side {side!r} has member {member!r}, not one of the players {list(names)}"
                )
            composition[row, index[member]] += 1.0 / len(members[side])
    return sides, composition


def ranking_log_likelihood(
    theta: np.ndarray, orders: Mapping[int, tuple[np.ndarray, np.ndarray]]
) -> tuple[float, np.ndarray]:
    """The weighted Plackett-Luce log-likelihood of natural log-strengths ``theta``, and its gradient.

    Args:
        theta: log-strengths, one per entrant.
        orders: ranking length -> (an int array of strict rankings, best first, one per row; their weights).
    """
    shift = theta.max()
    w = np.exp(theta - shift)
    total = 0.0
    grad = np.zeros_like(theta)
    for rows, weights in orders.values():
        strengths = w[rows]
        left = np.cumsum(strengths[:, ::-1], axis=1)[:, ::-1]  # strength of those not yet drawn, per stage
        total += float((weights[:, None] * (theta[rows] - np.log(left) - shift)).sum())
        np.add.at(grad, rows, weights[:, None] * (1.0 - strengths * np.cumsum(1.0 / left, axis=1)))
    return total, grad


@dataclass
class EloFit:
    """Ratings fitted to all games at once.

    Attributes:
        ratings: entrant -> rating on the Elo scale (400 points: 10 to 1 odds).
        intervals: entrant -> 95% bootstrap interval (empty when no bootstrap was asked).
        games: entrant -> games it played.
        anchor: the anchored entrant and its rating, or ``None`` (ratings average 0).
    """

    ratings: dict[str, float]
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)
    anchor: tuple[str, float] | None = None

    def order(self) -> list[str]:
        """Entrants from best to worst rating."""
        return sorted(self.ratings, key=lambda name: (-self.ratings[name], name))

    def as_dict(self) -> list[dict[str, object]]:
        return [
            {
                "name": name,
                "elo": self.ratings[name],
                "low": self.intervals.get(name, (None, None))[0],
                "high": self.intervals.get(name, (None, None))[1],
                "games": self.games.get(name, 0),
            }
            for name in self.order()
        ]


def _fit(
    terms: Mapping[tuple[int, ...], float],
    n: int,
    fixed: int,
    start: np.ndarray | None = None,
    composition: np.ndarray | None = None,
) -> np.ndarray:
    require_scipy()
    from scipy.optimize import minimize

    orders = _orders_of(terms)
    free = [i for i in range(n) if i != fixed]
    if not free:
        return np.zeros(n)

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        theta = np.zeros(n)
        theta[free] = x
        if composition is None:
            value, grad = ranking_log_likelihood(theta, orders)
        else:  # sides' log-strengths are their members' means; the chain rule takes the gradient back
            value, side_grad = ranking_log_likelihood(composition @ theta, orders)
            grad = composition.T @ side_grad
        return -value, -grad[free]

    # BFGS (numpy only): scipy's L-BFGS-B costs milliseconds per step in its Fortran setup,
    # which dominates fits of a few entrants.
    x0 = np.zeros(len(free)) if start is None else start[free] - start[fixed]
    result = minimize(objective, x0, jac=True, method="BFGS", options={"maxiter": 5000, "gtol": 1e-9})
    theta = np.zeros(n)
    theta[free] = result.x
    return theta


def _orders_of(terms: Mapping[tuple[int, ...], float]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    by_length: dict[int, tuple[list[tuple[int, ...]], list[float]]] = {}
    for order, weight in terms.items():
        rows, weights = by_length.setdefault(len(order), ([], []))
        rows.append(order)
        weights.append(weight)
    return {m: (np.array(rows, dtype=np.int64), np.array(weights)) for m, (rows, weights) in by_length.items()}


def laplace_errors(
    terms: Mapping[tuple[int, ...], float],
    theta: np.ndarray,
    fixed: int | None,
    composition: np.ndarray | None = None,
) -> np.ndarray:
    """Standard errors of the Elo ratings at the fit ``theta`` (natural log-strengths) from the
    curvature of the log-likelihood: relative to entrant ``fixed`` when given, else to the mean.
    With ``composition`` (sides x members) the terms rank sides and ``theta`` rates members; a
    member the games cannot tell apart from its teammates (they always play together) gets an
    infinite error.

    Example:
        >>> terms = {(0, 1): 1.5, (1, 0): 1.5}  # one win each way and a virtual draw
        >>> [round(float(e)) for e in laplace_errors(terms, np.zeros(2), fixed=1)]
        [201, 0]
    """
    orders = _orders_of(terms)
    mix = np.eye(len(theta)) if composition is None else composition
    n, step = len(theta), 1e-4
    sides = mix @ theta
    side_hessian = np.zeros((len(sides), len(sides)))
    for i in range(len(sides)):
        delta = np.zeros(len(sides))
        delta[i] = step
        side_hessian[i] = (
            ranking_log_likelihood(sides - delta, orders)[1] - ranking_log_likelihood(sides + delta, orders)[1]
        ) / (2 * step)
    hessian = mix.T @ side_hessian @ mix
    pinned = 0 if fixed is None else fixed
    free = [i for i in range(n) if i != pinned]
    covariance = np.zeros((n, n))
    centre = np.eye(n) if fixed is not None else np.eye(n) - 1.0 / n  # without an anchor: centred on the mean
    unknown = np.zeros(n, dtype=bool)
    if free:
        block = hessian[np.ix_(free, free)]
        values, vectors = np.linalg.eigh((block + block.T) / 2)
        flat = values <= 1e-9 * max(float(values.max()), 1e-12)
        covariance[np.ix_(free, free)] = np.linalg.pinv(block)
        if flat.any():  # directions no game measures: the ratings that move along them are unknown
            null = np.zeros((n, int(flat.sum())))
            null[free] = vectors[:, flat]
            unknown = np.asarray((np.abs(centre @ null) > 1e-6).any(axis=1))
    covariance = centre @ covariance @ centre.T
    errors = np.sqrt(np.clip(np.diag(covariance), 0.0, None)) / _LN10_400
    errors[unknown] = np.inf
    return errors


def fit_elo(
    rankings: Sequence[Mapping[str, int]],
    names: Sequence[str] | None = None,
    *,
    anchor: tuple[str, float] | None = None,
    prior: float = 1.0,
    groups: Sequence[Hashable] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    weights: Sequence[float] | None = None,
    members: Mapping[str, Sequence[str]] | None = None,
) -> EloFit:
    """Fit Elo ratings to ranked games by maximum likelihood (see the module docstring).

    With ``members`` the rankings rank sides and the fit rates the players they are made of:
    a side's log-strength is the mean of its members' (a member in two seats counts twice), so a
    side of one player in every seat has that player's rating, and a player in several sides
    gets one rating from all their games (its contribution). ``names`` are then the players.

    Args:
        rankings: one ``{entrant: rank}`` per game (1 best; equal ranks tie).
        names: the entrants, or with ``members`` the players (default: every name in
            ``rankings``, or every member, sorted).
        anchor: ``(entrant, rating)`` to fix, e.g. ``("random", 0.0)``.
        prior: virtual draws added between every pair of entrants that met (0: none).
        groups: a set id per game; the bootstrap resamples whole sets (default: each game).
        bootstrap: resamples for the 95% intervals (0: none).
        seed: the bootstrap's seed.
        weights: a weight per game (default 1).
        members: side -> the players of its seats, for every side the rankings name.

    Raises:
        ValueError: an unknown anchor, a ranking naming an unknown entrant, a side without
            members, or a negative prior.

    Example (a scores 75% against b, half-wins count as draws):
        >>> fit = fit_elo([{"a": 1, "b": 2}] * 2 + [{"a": 1, "b": 1}] * 2, prior=0, anchor=("b", 0.0))
        >>> round(fit.ratings["a"], 1)
        190.8

    Example (sides of players: a side of ``x`` in both seats against ``y`` in both is ``x`` against ``y``):
        >>> sides = {"ppo": ["x", "x"], "simple": ["y", "y"]}
        >>> fit = fit_elo([{"ppo": 1, "simple": 2}] * 2 + [{"ppo": 1, "simple": 1}] * 2, prior=0,
        ...               anchor=("y", 0.0), members=sides)
        >>> round(fit.ratings["x"], 1)
        190.8
    """
    if names is None:
        everyone = members.values() if members is not None else rankings
        names = sorted({name for group in everyone for name in group})
    else:
        names = list(names)
    if len(set(names)) != len(names):
        raise InvalidValueError(f"fit_elo: entrant names must be unique, got {names}")
    if not isinstance(prior, (int, float)) or isinstance(prior, bool) or prior < 0:
        raise InvalidValueError(f"fit_elo: prior must be a non-negative number of virtual draws, got {prior!r}")
    fixed = None
    if anchor is not None:
        if anchor[0] not in names:
            raise InvalidValueError(f"fit_elo: the anchor {anchor[0]!r} is not an entrant; expected one of {names}")
        fixed = names.index(anchor[0])
    sides, composition = _sides(rankings, names, members)
    games = _encode(rankings, sides)
    weight = np.ones(len(games)) if weights is None else np.asarray(weights, dtype=float)
    if len(weight) != len(games):
        raise InvalidValueError(f"fit_elo: expected {len(games)} weights (one per game), got {len(weight)}")
    played = {name: 0 for name in names}
    met: set[tuple[int, int]] = set()
    for orderings in games:
        seated = sorted(orderings[0])
        players = set(seated) if composition is None else set(np.flatnonzero(composition[seated].any(axis=0)))
        for i in players:
            played[names[i]] += 1
        met.update((a, b) for k, a in enumerate(seated) for b in seated[k + 1 :])
    prior_terms: dict[tuple[int, ...], float] = {}
    for a, b in met:  # a virtual draw: half a win each way
        prior_terms[a, b] = prior_terms[b, a] = prior / 2

    def terms_of(sample: np.ndarray) -> dict[tuple[int, ...], float]:
        # Identical orderings are one term with their summed weight: the fit costs per kind of result.
        terms = dict(prior_terms)
        for i in sample:
            share = weight[i] / len(games[i])
            for order in games[i]:
                terms[order] = terms.get(order, 0.0) + share
        return {order: w for order, w in terms.items() if w > 0}

    def solve(sample: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
        # Ratings are relative: pin one (the anchor, or the first entrant, then centre) so the optimum is a point.
        theta = _fit(terms_of(sample), len(names), 0 if fixed is None else fixed, start, composition)
        elo = theta / _LN10_400
        return elo - elo.mean() if fixed is None else elo + anchor_elo

    anchor_elo = 0.0 if anchor is None else anchor[1]
    everything = np.arange(len(games))
    elo = solve(everything)
    start = (elo - anchor_elo) * _LN10_400  # bootstrap fits start from the full one
    intervals: dict[str, tuple[float, float]] = {}
    if bootstrap:
        ids = list(range(len(games))) if groups is None else list(groups)
        if len(ids) != len(games):
            raise InvalidValueError(f"fit_elo: expected {len(games)} group ids (one per game), got {len(ids)}")
        in_set: dict[Hashable, list[int]] = {}
        for i, key in enumerate(ids):
            in_set.setdefault(key, []).append(i)
        sets = list(in_set.values())
        rng = np.random.default_rng(seed)
        samples = []
        for _ in range(bootstrap):
            pick = rng.integers(len(sets), size=len(sets))
            samples.append(solve(np.array([i for j in pick for i in sets[j]], dtype=int), start))
        low, high = np.percentile(np.array(samples), [2.5, 97.5], axis=0)
        errors = 1.959963984540054 * laplace_errors(
            terms_of(everything), start, fixed, composition
        )  # see the module docstring
        low, high = np.minimum(low, elo - errors), np.maximum(high, elo + errors)
        intervals = {name: (float(low[i]), float(high[i])) for i, name in enumerate(names)}
    return EloFit({name: float(elo[i]) for i, name in enumerate(names)}, intervals, played, anchor)
