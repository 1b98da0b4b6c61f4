"""What a game's result is for ranking, and the 95% intervals every table shows.

An env declares its :attr:`~arena.MultiAgentEnv.result_kind`, one of :data:`RESULT_KINDS`:

* ``"outcome"``: win, draw or loss. The players ranked first win, every other player loses (the
  losers tie with each other): chess, connect four, a battle won by the side with soldiers left.
* ``"ranks"``: the finishing order (1 best, ties share), as liar's dice ranks players by when
  they drop out. For two players it is the same as ``"outcome"``.
* ``"return"``: the amount of the return, as poker counts chips. Players are compared by their
  mean return per game (OpenSpiel's and the poker literature's measure), not by how often they
  won a game: a player that wins few big pots beats one that wins many small ones.

Every interval in arena's tables, pages and JSON is a 95% interval; ``x ± h`` means the interval
``[x - h, x + h]``, and an interval is written ``low .. high``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.errors import InvalidValueError
from arena.evaluation.sprt import require_scipy

__all__ = [
    "RESULT_KINDS",
    "Z_95",
    "MeanEstimate",
    "check_result_kind",
    "kind_ranking",
    "mean_interval",
    "result_description",
]

#: The result kinds an env can declare (see the module docstring).
RESULT_KINDS = ("outcome", "ranks", "return")

Z_95 = 1.959963984540054  # the 97.5% quantile of the standard normal

_DESCRIPTIONS = {
    "outcome": "win/draw/loss",
    "ranks": "finishing ranks",
    "return": "mean return per game",
}


def check_result_kind(kind: object, owner: str = "result_kind") -> str:
    """``kind`` when it is one of :data:`RESULT_KINDS`, else a ``ValueError`` naming ``owner``.

    Example:
        >>> check_result_kind("return")
        'return'
    """
    if not isinstance(kind, str) or kind not in RESULT_KINDS:
        raise InvalidValueError(f"{owner}: expected one of {', '.join(map(repr, RESULT_KINDS))}, got {kind!r}")
    return kind


def result_description(kind: str) -> str:
    """What a table says it ranks by, for a result kind.

    Example:
        >>> result_description("outcome")
        'win/draw/loss'
    """
    return _DESCRIPTIONS[check_result_kind(kind)]


def kind_ranking(ranks: Mapping[str, int], kind: str) -> dict[str, int]:
    """A game's ranks as the result kind counts them (1 best, ties share).

    ``"outcome"`` keeps the winners first and puts every other player second (a loss for each,
    a draw among them); ``"ranks"`` and ``"return"`` keep the finishing order (for
    ``"return"`` it only says who won the game; ratings use the returns themselves).

    Example:
        >>> kind_ranking({"a": 1, "b": 2, "c": 3}, "outcome")
        {'a': 1, 'b': 2, 'c': 2}
        >>> kind_ranking({"a": 1, "b": 2, "c": 3}, "ranks")
        {'a': 1, 'b': 2, 'c': 3}
    """
    if check_result_kind(kind) != "outcome":
        return dict(ranks)
    return {name: 1 if rank == 1 else 2 for name, rank in ranks.items()}


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its 95% interval over ``units`` independent units (games, or duplicate sets).

    Attributes:
        mean: the mean (NaN without units).
        low, high: the 95% interval (NaN with fewer than two units: one unit shows no spread).
        units: how many units the mean is over.
    """

    mean: float
    low: float
    high: float
    units: int

    @property
    def half_width(self) -> float:
        """``high - mean``: the ``h`` of ``mean ± h``."""
        return self.high - self.mean


def mean_interval(values: Sequence[float]) -> MeanEstimate:
    """The mean of ``values`` with its 95% Student-t interval (the units are independent).

    Example (duplicate sets of a poker match, chips per game):
        >>> estimate = mean_interval([1.0, 3.0, 2.0, 2.0])
        >>> estimate.mean, round(estimate.low, 3), round(estimate.high, 3)
        (2.0, 0.701, 3.299)
        >>> math.isnan(mean_interval([2.0]).low)
        True
    """
    n = len(values)
    if n == 0:
        return MeanEstimate(math.nan, math.nan, math.nan, 0)
    mean = math.fsum(values) / n
    if n < 2:
        return MeanEstimate(mean, math.nan, math.nan, n)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = _t_975(n - 1) * math.sqrt(variance / n)
    return MeanEstimate(mean, mean - half, mean + half, n)


def _t_975(dof: int) -> float:
    """The 97.5% quantile of Student's t with ``dof`` degrees of freedom."""
    require_scipy()
    from scipy.stats import t

    return float(t.ppf(0.975, dof))
