"""SPRT: bounds, LLR and variance against hand-worked values and an independent optimiser."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from arena.evaluation.sprt import (
    PENTANOMIAL,
    SPRT,
    TRINOMIAL,
    elo_to_score,
    llr,
    llr_normal,
    mean_and_variance,
    score_to_elo,
    sprt_bounds,
)


def test_bounds_are_walds():
    low, high = sprt_bounds(0.05, 0.05)
    assert low == pytest.approx(math.log(0.05 / 0.95)) == pytest.approx(-2.944438979)
    assert high == pytest.approx(math.log(0.95 / 0.05))
    low, high = sprt_bounds(0.05, 0.10)
    assert (low, high) == pytest.approx((math.log(0.10 / 0.95), math.log(0.90 / 0.05)))


@pytest.mark.parametrize("alpha", [0, 0.5, 1.2, -0.1, True, "0.05"])
def test_bounds_reject_bad_error_rates(alpha):
    with pytest.raises(ValueError, match=r"sprt: alpha must be a probability in \(0, 0.5\), got"):
        sprt_bounds(alpha, 0.05)


def test_elo_score_round_trip():
    assert elo_to_score(0) == 0.5
    assert elo_to_score(400) == pytest.approx(10 / 11)
    assert score_to_elo(10 / 11) == pytest.approx(400)
    assert score_to_elo(0.75) == pytest.approx(400 * math.log10(3))
    assert score_to_elo(1.0) == math.inf and score_to_elo(0.0) == -math.inf


def test_binomial_llr_is_the_closed_form():
    # Two categories leave one distribution per mean score: LLR = W log(s1/s0) + L log((1-s1)/(1-s0)).
    s0, s1 = elo_to_score(0), elo_to_score(40)
    wins, losses = 37, 21
    expected = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert llr([losses, wins], 0, 40, scores=(0.0, 1.0)) == pytest.approx(expected, rel=1e-9)


def _llr_by_optimiser(counts, elo0, elo1, scores):
    """The GSPRT LLR by a general constrained optimiser (SLSQP): an independent implementation."""
    n = np.asarray(counts, float)
    a = np.asarray(scores, float)
    freq = (n + 1e-3) / (n + 1e-3).sum()

    def best(s):
        result = minimize(
            lambda p: -(freq * np.log(np.clip(p, 1e-300, None))).sum(),
            freq,
            method="SLSQP",
            bounds=[(1e-12, 1)] * len(a),
            options={"ftol": 1e-15, "maxiter": 500},
            constraints=[{"type": "eq", "fun": lambda p: p.sum() - 1}, {"type": "eq", "fun": lambda p: p @ a - s}],
        )
        return result.x

    p0, p1 = best(elo_to_score(elo0)), best(elo_to_score(elo1))
    return float((n * (np.log(p1) - np.log(p0))).sum())


@pytest.mark.parametrize(
    "counts, scores",
    [
        ([20, 20, 60], TRINOMIAL),
        ([30, 55, 35], TRINOMIAL),
        ([3, 10, 40, 15, 6], PENTANOMIAL),
        ([0, 4, 20, 9, 1], PENTANOMIAL),
    ],
)
def test_llr_matches_an_independent_optimiser(counts, scores):
    assert llr(counts, -10, 20, scores) == pytest.approx(_llr_by_optimiser(counts, -10, 20, scores), abs=2e-5)


def test_trinomial_llr_by_hand():
    # 60 W, 20 D, 20 L: mean 0.7, per-game variance 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16.
    mean, var = mean_and_variance([20, 20, 60], TRINOMIAL)
    assert (mean, var) == pytest.approx((0.7, 0.16))
    s1 = elo_to_score(50)
    assert llr_normal([20, 20, 60], 0, 50, TRINOMIAL) == pytest.approx(100 * (s1 - 0.5) * (1.4 - 0.5 - s1) / 0.32)


def test_pentanomial_variance_by_hand():
    # pairs: 2 at 0/2, 5 at 1/2, 6 at 2/2, 5 at 3/2, 2 at 4/2 (halved per game: 0 .. 1)
    counts = [2, 5, 6, 5, 2]
    mean, var = mean_and_variance(counts)
    assert mean == pytest.approx(0.5)
    assert var == pytest.approx((2 * 0.25 + 5 * 0.0625 + 0 + 5 * 0.0625 + 2 * 0.25) / 20)


def test_near_the_hypotheses_the_normal_approximation_agrees():
    counts = [50, 400, 1100, 420, 60]
    assert llr(counts, 0, 10) == pytest.approx(llr_normal(counts, 0, 10), rel=0.02)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=5, max_size=5))
def test_llr_is_antisymmetric_in_the_hypotheses(counts):
    assert llr(counts, 0, 30) == pytest.approx(-llr(counts, 30, 0), abs=1e-9)


def test_sprt_stops_with_the_right_verdict():
    test = SPRT(0, 50, alpha=0.05, beta=0.05)
    stop, state = test.first_crossing([4] * 200)  # only 2-0 pairs: each adds about log(s1 / s0)
    assert state.verdict == "H1" and stop == math.ceil(state.upper / math.log(elo_to_score(50) / 0.5))
    assert state.llr >= state.upper
    stop, state = test.first_crossing([0, 2] * 200)
    assert state.verdict == "H0" and state.llr <= state.lower
    stop, state = test.first_crossing([2])
    assert stop is None and state.verdict is None and state.units == 1


@pytest.mark.parametrize(
    "elo0, elo1, text",
    [
        (10, 0, "expected elo0 < elo1"),
        (math.nan, 5, "elo0 must be a finite Elo difference"),
    ],
)
def test_sprt_rejects_bad_hypotheses(elo0, elo1, text):
    with pytest.raises(ValueError, match=text):
        SPRT(elo0, elo1)


def test_counts_are_checked():
    with pytest.raises(ValueError, match=r"sprt: expected 5 counts \(one per category"):
        llr([1, 2, 3], 0, 10)
    with pytest.raises(ValueError, match="counts must be non-negative"):
        llr([1, -2, 3], 0, 10, TRINOMIAL)
