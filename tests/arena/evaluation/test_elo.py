"""Batch Elo fit: known answers on constructed data, choix, order independence, anchors, bootstrap."""

from __future__ import annotations

import math

import choix
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.evaluation.elo import fit_elo

ELO = 400 / math.log(10)


def test_two_players_score_75_percent_is_400_log10_3():
    games = [{"a": 1, "b": 2}] * 10 + [{"a": 1, "b": 1}] * 10  # score (10 + 10 / 2) / 20 = 3/4
    fit = fit_elo(games, prior=0, anchor=("b", 0.0))
    assert fit.ratings["a"] == pytest.approx(400 * math.log10(3), abs=1e-3)


def test_draws_count_half():
    with_draws = fit_elo([{"a": 1, "b": 2}] * 3 + [{"a": 1, "b": 1}] * 2 + [{"a": 2, "b": 1}], prior=0)
    # 3 W, 2 D, 1 L: score 4/6, Elo difference 400 log10(2)
    assert with_draws.ratings["a"] - with_draws.ratings["b"] == pytest.approx(400 * math.log10(2), abs=1e-3)
    assert with_draws.ratings["a"] + with_draws.ratings["b"] == pytest.approx(0, abs=1e-6)  # no anchor: mean 0


def _pairwise_data(seed=0, n=4, games=300):
    rng = np.random.default_rng(seed)
    truth = rng.normal(0, 1, n)
    data = []
    for _ in range(games):
        i, j = rng.choice(n, 2, replace=False)
        data.append((i, j) if rng.random() < 1 / (1 + math.exp(truth[j] - truth[i])) else (j, i))
    return data


def test_matches_choix_bradley_terry():
    data = _pairwise_data()
    names = ["a", "b", "c", "d"]
    fit = fit_elo([{names[w]: 1, names[l]: 2} for w, l in data], names, prior=0)
    expected = choix.opt_pairwise(4, data) * ELO
    assert [fit.ratings[n] for n in names] == pytest.approx(list(expected - expected.mean()), abs=1e-3)


def test_matches_choix_plackett_luce():
    rng = np.random.default_rng(3)
    weights = np.array([0.0, 0.5, 1.0, 1.5])
    rankings = []
    for _ in range(120):  # draw a ranking by Plackett-Luce
        left, order = list(range(4)), []
        while left:
            p = np.exp(weights[left]) / np.exp(weights[left]).sum()
            order.append(left.pop(rng.choice(len(left), p=p)))
        rankings.append(order)
    names = ["a", "b", "c", "d"]
    fit = fit_elo([{names[x]: r + 1 for r, x in enumerate(order)} for order in rankings], names, prior=0)
    expected = choix.opt_rankings(4, rankings) * ELO
    assert [fit.ratings[n] for n in names] == pytest.approx(list(expected - expected.mean()), abs=1e-3)


def test_anchor_fixes_one_rating():
    games = [{"x": 1, "random": 2}] * 3 + [{"random": 1, "x": 2}]
    fit = fit_elo(games, prior=0, anchor=("random", 100.0))
    assert fit.ratings["random"] == 100.0
    assert fit.ratings["x"] == pytest.approx(100 + 400 * math.log10(3), abs=1e-3)


def test_prior_keeps_an_unbeaten_entrant_finite():
    fit = fit_elo([{"a": 1, "b": 2}] * 4, prior=1)
    # 4 wins and one virtual draw: score 4.5 / 5
    assert fit.ratings["a"] - fit.ratings["b"] == pytest.approx(400 * math.log10(9), abs=1e-2)


@settings(max_examples=10, deadline=None)
@given(st.permutations(list(range(24))))
def test_fit_does_not_depend_on_game_order(order):
    data = _pairwise_data(seed=5, games=24)
    games = [{"abcd"[w]: 1, "abcd"[l]: 2} for w, l in data] + [{"a": 1, "b": 1, "c": 2}]
    base = fit_elo(games, "abcd")
    shuffled = fit_elo([games[i] for i in order] + [games[-1]], "abcd")
    assert shuffled.ratings == pytest.approx(base.ratings, abs=1e-6)


def test_bootstrap_intervals_hold_the_estimate_and_are_reproducible():
    data = _pairwise_data(seed=1, games=80)
    games = [{"abcd"[w]: 1, "abcd"[l]: 2} for w, l in data]
    groups = [i // 2 for i in range(len(games))]
    first = fit_elo(games, "abcd", bootstrap=30, groups=groups, seed=4)
    again = fit_elo(games, "abcd", bootstrap=30, groups=groups, seed=4)
    assert first.intervals == again.intervals
    for name, (low, high) in first.intervals.items():
        assert low < first.ratings[name] < high


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="the anchor 'zed' is not an entrant"):
        fit_elo([{"a": 1, "b": 2}], anchor=("zed", 0.0))
    with pytest.raises(ValueError, match="names 'c', not one of the entrants"):
        fit_elo([{"a": 1, "c": 2}], ["a", "b"])
    with pytest.raises(ValueError, match="prior must be a non-negative number"):
        fit_elo([{"a": 1, "b": 2}], prior=-1)


# ------------------------------------------------------------- members of sides
def test_members_of_sides_of_one_player_rate_that_player_as_the_side():
    games = [{"ppo": 1, "simple": 2}] * 7 + [{"ppo": 2, "simple": 1}] * 3 + [{"ppo": 1, "simple": 1}] * 2
    sides = fit_elo(games, anchor=("simple", 0.0), bootstrap=20, seed=3)
    members = fit_elo(games, anchor=("y", 0.0), bootstrap=20, seed=3, members={"ppo": ["x", "x"], "simple": ["y", "y"]})
    assert members.ratings["x"] == pytest.approx(sides.ratings["ppo"], abs=1e-3)
    assert members.intervals["x"] == pytest.approx(sides.intervals["ppo"], abs=1e-3)
    assert members.games == {"x": 12, "y": 12}


def test_a_member_in_two_sides_gets_one_rating_from_both():
    # x is strong: its side wins with either teammate; z is weak
    games = [{"xy": 1, "yz": 2}] * 8 + [{"xz": 1, "yz": 2}] * 6 + [{"xy": 1, "xz": 2}] * 5 + [{"xy": 2, "xz": 1}] * 3
    fit = fit_elo(games, members={"xy": ["x", "y"], "yz": ["y", "z"], "xz": ["x", "z"]}, prior=0.5)
    assert fit.order() == ["x", "y", "z"]
    assert fit.games == {"x": 22, "y": 22, "z": 22}


def test_members_that_always_play_together_cannot_be_told_apart():
    games = [{"duo": 1, "c": 2}] * 5 + [{"duo": 2, "c": 1}] * 3
    fit = fit_elo(games, members={"duo": ["a", "b"], "c": ["c"]}, bootstrap=10, anchor=("c", 0.0))
    assert fit.intervals["a"] == (-np.inf, np.inf) and fit.intervals["b"] == (-np.inf, np.inf)
    assert all(np.isfinite(fit.intervals["c"]))


def test_members_must_be_players():
    with pytest.raises(ValueError, match=r"the side 'duo' has member 'q', not one of the players \['a', 'b'\]"):
        fit_elo([{"duo": 1, "b": 2}], names=["a", "b"], members={"duo": ["q"], "b": ["b"]})
    with pytest.raises(ValueError, match=r"the side 'duo' has no members"):
        fit_elo([{"duo": 1, "b": 2}], members={"duo": [], "b": ["b"]})
