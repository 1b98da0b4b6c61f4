"""Evaluation mathematics: pure functions over result tables (no games are played here).

* :mod:`~arena.evaluation.sprt`: sequential probability ratio tests (trinomial and pentanomial
  GSPRT), Wald's bounds, Elo/score conversion.
* :mod:`~arena.evaluation.elo`: Bradley-Terry / Plackett-Luce maximum-likelihood ratings over
  all games, with draws, an anchor and bootstrap intervals over game sets.
* :mod:`~arena.evaluation.metagame`: Nash averaging (maximum-entropy Nash of the meta-game)
  and alpha-rank.

The formulas are written out in docs/evaluation.md. These modules need numpy and scipy
(the ``tournament`` extra).

Example:
    >>> from arena.evaluation import SPRT, fit_elo, nash_average
    >>> SPRT(0, 50, pentanomial=False).state([10, 10, 80]).verdict
    'H1'
"""

from arena.evaluation.elo import EloFit, fit_elo
from arena.evaluation.metagame import AlphaRank, NashAverage, alpha_rank, nash_average, payoff_matrix
from arena.evaluation.sprt import (
    PENTANOMIAL,
    SPRT,
    TRINOMIAL,
    SPRTState,
    elo_to_score,
    llr,
    llr_normal,
    mean_and_variance,
    score_to_elo,
    sprt_bounds,
)

__all__ = [
    "AlphaRank",
    "EloFit",
    "NashAverage",
    "PENTANOMIAL",
    "SPRT",
    "SPRTState",
    "TRINOMIAL",
    "alpha_rank",
    "elo_to_score",
    "fit_elo",
    "llr",
    "llr_normal",
    "mean_and_variance",
    "nash_average",
    "payoff_matrix",
    "score_to_elo",
    "sprt_bounds",
]
