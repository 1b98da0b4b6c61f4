"""Result kinds and the 95% mean interval of arena.evaluation.results."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.evaluation.results import RESULT_KINDS, check_result_kind, kind_ranking, mean_interval

scipy_stats = pytest.importorskip("scipy.stats")


def test_outcome_keeps_the_winners_and_ties_everyone_else():
    assert kind_ranking({"a": 1, "b": 2, "c": 3, "d": 4}, "outcome") == {"a": 1, "b": 2, "c": 2, "d": 2}
    assert kind_ranking({"a": 1, "b": 1, "c": 3}, "outcome") == {"a": 1, "b": 1, "c": 2}  # two winners
    assert kind_ranking({"a": 1, "b": 2, "c": 3}, "ranks") == {"a": 1, "b": 2, "c": 3}
    assert kind_ranking({"a": 1, "b": 2}, "return") == {"a": 1, "b": 2}


def test_an_unknown_kind_is_refused_with_the_kinds_named():
    assert RESULT_KINDS == ("outcome", "ranks", "return")
    with pytest.raises(
        ValueError, match=r"env\.result_kind: expected one of 'outcome', 'ranks', 'return', got 'chips'"
    ):
        check_result_kind("chips", "env.result_kind")
    with pytest.raises(ValueError, match="got None"):
        kind_ranking({"a": 1}, None)  # type: ignore[arg-type]


def test_mean_interval_is_the_student_t_interval():
    values = [1.5, -2.0, 0.25, 3.0, -1.0, 2.5]
    estimate = mean_interval(values)
    low, high = scipy_stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=scipy_stats.sem(values))
    assert estimate.units == 6 and estimate.mean == pytest.approx(np.mean(values))
    assert (estimate.low, estimate.high) == (pytest.approx(low), pytest.approx(high))
    assert estimate.half_width == pytest.approx(high - np.mean(values))


def test_mean_interval_of_too_few_units_is_unknown_not_a_point():
    assert mean_interval([]).units == 0 and math.isnan(mean_interval([]).mean)
    one = mean_interval([4.0])
    assert one.mean == 4.0 and math.isnan(one.low) and math.isnan(one.high)
