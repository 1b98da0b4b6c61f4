"""Wilson intervals on known counts, and pairwise W/D/L from game records."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.runtime.game import GameResult
from arena.tournament.stats import pairing_stats, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),  # width 0.1924 at p = 0.5, n = 100
        (0, 10, 0.0, 0.2775),  # no collapse to [0, 0] as the Wald interval would
        (10, 10, 0.7225, 1.0),
        (8, 10, 0.4902, 0.9433),
        (200, 400, 0.4512, 0.5488),  # four times the games, half the width
    ],
)
def test_wilson_interval_on_known_counts(successes, n, low, high):
    got_low, got_high = wilson_interval(successes, n)
    assert got_low == pytest.approx(low, abs=5e-5)
    assert got_high == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(("k", "n"), [(0, 1), (3, 7), (12, 40), (99, 100), (1000, 2500)])
def test_wilson_interval_matches_scipy(k, n):
    scipy_stats = pytest.importorskip("scipy.stats")
    expected = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_interval(k, n) == pytest.approx((expected.low, expected.high), abs=1e-9)


@given(n=st.integers(1, 5000), data=st.data())
def test_wilson_interval_holds_the_rate_and_stays_in_0_1(n, data):
    halves = data.draw(st.integers(0, 2 * n))
    low, high = wilson_interval(halves / 2, n)
    assert 0.0 <= low <= halves / 2 / n <= high <= 1.0


def test_interval_with_draws_keeps_its_coverage():
    # Scores of 0, 1/2, 1 with mean 0.5 and many draws: the interval must cover 0.5 at least 95% of the time.
    rng = np.random.default_rng(0)
    n, runs = 30, 4000
    scores = rng.choice([0.0, 0.5, 1.0], p=[0.3, 0.4, 0.3], size=(runs, n)).sum(axis=1)
    covered = sum(low <= 0.5 <= high for low, high in (wilson_interval(s, n) for s in scores))
    assert covered / runs >= 0.95


def test_wilson_interval_rejects_impossible_counts():
    with pytest.raises(ValueError, match=r"need 0 <= successes <= n, got successes=11, n=10"):
        wilson_interval(11, 10)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def game(index, ranks, returns=None, forfeit=None):
    lineup = "|".join(sorted(ranks))
    return GameResult(lineup, index, index, {}, ranks, returns, 5, "x", forfeit=forfeit)


def test_pairing_stats_count_wins_draws_losses_from_ranks():
    games = [
        game(0, {"a": 1, "b": 2}, {"a": 1.0, "b": -1.0}),
        game(1, {"a": 1, "b": 1}, {"a": 0.0, "b": 0.0}),
        game(2, {"a": 2, "b": 1}, None, forfeit="a"),  # a forfeit: no returns, a loses
        game(3, {"a": 1, "b": 3, "c": 2}, {"a": 1.0, "b": -1.0, "c": 0.0}),  # three players: pairwise ranks
        game(4, {}, None),  # the env failed: counts nowhere
    ]
    stats = pairing_stats(games, ["a", "b", "c"])
    ab = stats["a", "b"]
    assert (ab.wins, ab.draws, ab.losses, ab.forfeits) == (2, 1, 1, 1)
    assert ab.score == pytest.approx(2.5 / 4)
    assert ab.mean_return == {"a": pytest.approx(2 / 3), "b": pytest.approx(-2 / 3)}
    assert ab.interval == wilson_interval(2.5, 4)
    ba = stats["b", "a"]
    assert (ba.wins, ba.draws, ba.losses) == (1, 1, 2)
    assert (stats["c", "b"].wins, stats["c", "a"].losses) == (1, 1)
    assert ("b", "b") not in stats
