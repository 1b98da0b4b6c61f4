"""Sequential probability ratio tests on game results (the chess engine testers' SPRT).

Two hypotheses about the Elo difference of entrant A over entrant B, ``H0: elo = elo0`` and
``H1: elo = elo1``, are turned into expected scores per game with the logistic model
``s(elo) = 1 / (1 + 10 ** (-elo / 400))``. Results are counted in categories with scores
``a_i`` (per game): the *trinomial* model counts single games (loss, draw, win: 0, 1/2, 1);
the *pentanomial* model counts game pairs that share a seed with swapped seats (A's total
over the pair 0, 1/2, 1, 3/2 or 2: per game 0, 1/4, 1/2, 3/4, 1), which removes the seat
and the chance from the noise.

The log-likelihood ratio is the generalised one (GSPRT): for each hypothesis the category
probabilities are the maximum-likelihood ones among those with mean score ``s``; with the
observed frequencies ``f_i`` they are ``p_i = f_i / (1 + lambda (a_i - s))``, where
``lambda`` solves ``sum f_i (a_i - s) / (1 + lambda (a_i - s)) = 0``. Then
``LLR = sum n_i log(p1_i / p0_i)``. The test stops when ``LLR`` leaves
``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` (Wald's bounds). See
docs/evaluation.md for the derivation and the normal approximation
``LLR ~ N (s1 - s0) (2 mean - s0 - s1) / (2 var)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.errors import InvalidValueError

__all__ = [
    "elo_to_score",
    "score_to_elo",
    "sprt_bounds",
    "llr",
    "llr_normal",
    "SPRT",
    "SPRTState",
    "TRINOMIAL",
    "PENTANOMIAL",
    "mean_and_variance",
]

#: Per-game scores of the trinomial categories (loss, draw, win).
TRINOMIAL = (0.0, 0.5, 1.0)
#: Per-game scores of the pentanomial categories (A's total over a pair: 0, 1/2, 1, 3/2, 2; halved).
PENTANOMIAL = (0.0, 0.25, 0.5, 0.75, 1.0)


def require_scipy() -> None:
    """Raise :class:`arena.errors.MissingDependencyError` naming the extra when scipy is missing."""
    try:
        import scipy  # noqa: F401
    except ImportError as err:
        from arena.errors import MissingDependencyError

        raise MissingDependencyError(
            f"arena.evaluation needs scipy ({err}); install the extra: pip install 'arena-marl[tournament]'"
        ) from None


# Pseudo-count added to every category so that a hypothesis outside the observed scores
# (say, no loss yet) still has a finite likelihood; small against any real count.
_PSEUDO = 1e-3


def elo_to_score(elo: float) -> float:
    """The expected score per game of an Elo advantage (logistic model).

    Example:
        >>> round(elo_to_score(0), 3), round(elo_to_score(400), 4)
        (0.5, 0.9091)
    """
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def score_to_elo(score: float) -> float:
    """The Elo difference of an expected score in (0, 1) (``inf``/``-inf`` at the ends).

    Example:
        >>> round(score_to_elo(0.75), 1)
        190.8
    """
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    Args:
        alpha: the largest probability of accepting H1 when H0 holds (false positive).
        beta: the largest probability of accepting H0 when H1 holds (false negative).

    Raises:
        ValueError: ``alpha`` or ``beta`` outside (0, 1/2).

    Example:
        >>> [round(b, 4) for b in sprt_bounds(0.05, 0.05)]
        [-2.9444, 2.9444]
    """
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0.0 < value < 0.5:
            raise InvalidValueError(f"sprt: {name} must be a probability in (0, 0.5), got {value!r}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _checked(counts: Sequence[float], scores: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(counts, dtype=float)
    a = np.asarray(scores, dtype=float)
    if n.shape != a.shape:
        raise InvalidValueError(
            f"sprt: expected {len(a)} counts (one per category {tuple(scores)}), got {list(counts)}"
        )
    if (n < 0).any() or not np.isfinite(n).all():
        raise InvalidValueError(f"sprt: counts must be non-negative numbers, got {list(counts)}")
    return n, a


def mean_and_variance(counts: Sequence[float], scores: Sequence[float] = PENTANOMIAL) -> tuple[float, float]:
    """The mean score per game and the variance of one unit (a game, or a pair's per-game score).

    Example (pentanomial counts of pairs: one 0-2, two 1-1, one 2-0):
        >>> mean_and_variance([1, 0, 2, 0, 1])
        (0.5, 0.125)
    """
    n, a = _checked(counts, scores)
    total = n.sum()
    if total == 0:
        raise InvalidValueError("sprt: no results counted")
    mean = float((n * a).sum() / total)
    return mean, float((n * (a - mean) ** 2).sum() / total)


def _constrained_mle(freq: np.ndarray, a: np.ndarray, s: float) -> np.ndarray:
    """The category probabilities of largest likelihood for frequencies ``freq`` with mean ``s``."""
    d = a - s
    if not d.min() < 0.0 < d.max():
        raise InvalidValueError(
            f"sprt: the hypothesis score {s} must lie strictly between the category scores {tuple(a)}"
        )
    # sum freq d / (1 + lam d) decreases in lam on (-1/max d, -1/min d): bisect for its root.
    low, high = -1.0 / d.max(), -1.0 / d.min()

    def g(lam: float) -> float:
        return float((freq * d / (1.0 + lam * d)).sum())

    require_scipy()
    from scipy.optimize import brentq

    span = high - low
    lam = brentq(g, low + 1e-12 * span, high - 1e-12 * span, xtol=1e-14, rtol=1e-14, maxiter=500)
    p = freq / (1.0 + lam * d)
    return p / p.sum()


def llr(counts: Sequence[float], elo0: float, elo1: float, scores: Sequence[float] = PENTANOMIAL) -> float:
    """The generalised log-likelihood ratio of ``H1: elo1`` against ``H0: elo0`` for ``counts``.

    Args:
        counts: how many results fell in each category (see :data:`TRINOMIAL`, :data:`PENTANOMIAL`).
        elo0, elo1: the hypotheses (Elo advantage of the first entrant; logistic Elo).
        scores: the per-game score of each category.

    Example (trinomial: 60 wins, 20 draws, 20 losses):
        >>> round(llr([20, 20, 60], 0, 50, TRINOMIAL), 4)
        5.9556
    """
    n, a = _checked(counts, scores)
    if n.sum() == 0:
        return 0.0
    freq = (n + _PSEUDO) / (n + _PSEUDO).sum()
    p0 = _constrained_mle(freq, a, elo_to_score(elo0))
    p1 = _constrained_mle(freq, a, elo_to_score(elo1))
    return float((n * (np.log(p1) - np.log(p0))).sum())


def llr_normal(counts: Sequence[float], elo0: float, elo1: float, scores: Sequence[float] = PENTANOMIAL) -> float:
    """The normal approximation ``N (s1 - s0) (2 mean - s0 - s1) / (2 var)`` of :func:`llr`.

    Example:
        >>> round(llr_normal([20, 20, 60], 0, 50, TRINOMIAL), 4)
        7.337
    """
    n, _ = _checked(counts, scores)
    if n.sum() == 0:
        return 0.0
    mean, var = mean_and_variance(counts, scores)
    if var == 0:
        var = 1e-12
    s0, s1 = elo_to_score(elo0), elo_to_score(elo1)
    return float(n.sum() * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var))


@dataclass(frozen=True)
class SPRTState:
    """Where a test stands: the LLR, its bounds, and the verdict so far.

    Attributes:
        llr: the log-likelihood ratio of H1 against H0.
        lower, upper: Wald's bounds.
        verdict: ``"H1"`` (accepted elo1: the first entrant is stronger), ``"H0"`` or ``None`` (continue).
        units: how many units (pairs or games) were counted.
        counts: the category counts.
    """

    llr: float
    lower: float
    upper: float
    verdict: str | None
    units: int
    counts: tuple[float, ...]


@dataclass(frozen=True)
class SPRT:
    """A sequential test of ``elo0`` against ``elo1`` with error rates ``alpha`` and ``beta``.

    Args:
        elo0, elo1: the hypotheses on the first entrant's Elo advantage (``elo0 < elo1``).
        alpha, beta: the error rates (see :func:`sprt_bounds`).
        pentanomial: count game pairs (duplicate games) rather than single games.

    Example:
        >>> test = SPRT(0, 100)
        >>> test.state([0, 1, 3, 6, 10]).verdict
        'H1'
        >>> test.state([1, 1, 2, 1, 1]).verdict is None
        True
    """

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    pentanomial: bool = True

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise InvalidValueError(f"sprt: {name} must be a finite Elo difference, got {value!r}")
        if not self.elo0 < self.elo1:
            raise InvalidValueError(f"sprt: expected elo0 < elo1 (ELO0,ELO1), got {self.elo0}, {self.elo1}")
        sprt_bounds(self.alpha, self.beta)

    @property
    def scores(self) -> tuple[float, ...]:
        return PENTANOMIAL if self.pentanomial else TRINOMIAL

    @property
    def bounds(self) -> tuple[float, float]:
        return sprt_bounds(self.alpha, self.beta)

    def state(self, counts: Sequence[float]) -> SPRTState:
        """The LLR for ``counts`` and whether it crossed a bound."""
        value = llr(counts, self.elo0, self.elo1, self.scores)
        lower, upper = self.bounds
        verdict = "H1" if value >= upper else "H0" if value <= lower else None
        return SPRTState(value, lower, upper, verdict, int(sum(counts)), tuple(float(c) for c in counts))

    def first_crossing(
        self, units: Sequence[int], counts: Sequence[float] | None = None
    ) -> tuple[int | None, SPRTState]:
        """Feed units (category indices) in order; where the test first stops, and its state then.

        Args:
            units: category indices, in the order the results came.
            counts: the counts before ``units`` (to continue a test; default: none).

        Returns:
            ``(k, state)``: the test stops after the first ``k`` units (``None``: it never stops).
        """
        counts = [0.0] * len(self.scores) if counts is None else list(counts)
        state = self.state(counts)
        for k, unit in enumerate(units, 1):
            counts[unit] += 1
            state = self.state(counts)
            if state.verdict is not None:
                return k, state
        return None, state
