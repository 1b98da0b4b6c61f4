"""Nash averaging and alpha-rank on textbook matrices, against cvxopt and OpenSpiel."""

from __future__ import annotations

import numpy as np
import pytest
from cvxopt import matrix, solvers
from open_spiel.python.egt import alpharank

from arena.evaluation.metagame import alpha_rank, nash_average

RPS = [[0.5, 0.0, 1.0], [1.0, 0.5, 0.0], [0.0, 1.0, 0.5]]


def _random_score_matrix(rng, n):
    p = np.triu(rng.random((n, n)), 1)
    p = p + np.tril(1 - p.T, -1)
    np.fill_diagonal(p, 0.5)
    return p


def test_rock_paper_scissors_is_uniform():
    result = nash_average(RPS)
    assert result.weights == pytest.approx([1 / 3] * 3, abs=1e-6)
    assert result.scores == pytest.approx([0, 0, 0], abs=1e-9)


def test_a_dominated_entrant_gets_weight_zero():
    game = [[0.5, 0.0, 1.0, 0.9], [1.0, 0.5, 0.0, 0.8], [0.0, 1.0, 0.5, 0.7], [0.1, 0.2, 0.3, 0.5]]
    result = nash_average(game)
    assert result.weights == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0], abs=1e-6)
    assert result.scores[3] == pytest.approx(-0.5 + (0.1 + 0.2 + 0.3) / 3)


def test_a_transitive_field_puts_all_weight_on_the_best():
    game = [[0.5, 0.7, 0.9], [0.3, 0.5, 0.6], [0.1, 0.4, 0.5]]
    assert nash_average(game).weights == pytest.approx([1, 0, 0], abs=1e-9)


def test_clones_share_the_weight_of_their_strategy():
    # rock, paper, scissors and a second rock: the maximum-entropy Nash splits rock's third.
    game = [[0.5, 0, 1, 0.5], [1, 0.5, 0, 1], [0, 1, 0.5, 0], [0.5, 0, 1, 0.5]]
    assert nash_average(game).weights == pytest.approx([1 / 6, 1 / 3, 1 / 3, 1 / 6], abs=1e-5)


def _max_entropy_nash_cvxopt(a):
    """Maximum-entropy Nash of an antisymmetric A by cvxopt's convex solver: min sum p log p, A p <= 0."""
    n = len(a)

    def objective(x=None, z=None):
        if x is None:
            return 0, matrix(1.0 / n, (n, 1))
        if min(x) <= 0:
            return None
        p = np.array(x).ravel()
        f = matrix(float((p * np.log(p)).sum()))
        df = matrix(np.log(p) + 1).T
        if z is None:
            return f, df
        return f, df, matrix(np.diag(z[0] / p))

    solvers.options["show_progress"] = False
    solution = solvers.cp(objective, G=matrix(a), h=matrix(np.zeros(n)), A=matrix(np.ones((1, n))), b=matrix(1.0))
    return np.array(solution["x"]).ravel()


def _planted_game(rng, n):
    """Score rates whose meta-game has the interior equilibrium ``p``: A = B - v 1^T + 1 v^T, v = B p."""
    p = rng.dirichlet(np.ones(n) * 3)
    b = rng.normal(0, 0.05, (n, n))
    b = b - b.T
    v = b @ p
    a = b - np.outer(v, np.ones(n)) + np.outer(np.ones(n), v)
    return a + 0.5, p


@pytest.mark.parametrize("seed", range(4))
def test_matches_an_independent_convex_solver(seed):
    rng = np.random.default_rng(seed)
    for n in (3, 5, 7):
        scores, planted = _planted_game(rng, n)
        ours = nash_average(scores).weights
        assert ours == pytest.approx(_max_entropy_nash_cvxopt(scores - 0.5), abs=1e-4)
        assert ours == pytest.approx(planted, abs=1e-4)  # odd n: the equilibrium is unique


def test_zero_sum_is_checked():
    with pytest.raises(ValueError, match=r"the meta-game must be zero-sum: P\[i, j\] \+ P\[j, i\] = 1"):
        nash_average([[0.5, 0.9], [0.9, 0.5]])
    with pytest.raises(ValueError, match=r"expected a square matrix of score rates, got shape \(2, 3\)"):
        nash_average([[0.5, 0.9, 0.1], [0.1, 0.5, 0.2]])


def test_alpha_rank_rps_is_uniform_and_dominance_is_ranked_last():
    assert alpha_rank(RPS).pi == pytest.approx([1 / 3] * 3, abs=1e-9)
    game = [[0.5, 0.0, 1.0, 0.9], [1.0, 0.5, 0.0, 0.8], [0.0, 1.0, 0.5, 0.7], [0.1, 0.2, 0.3, 0.5]]
    pi = alpha_rank(game, alpha=20).pi
    assert pi[3] < 1e-3 and pi[:3] == pytest.approx([pi[:3].sum() / 3] * 3, rel=1e-6)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_rank_matches_openspiel(seed):
    rng = np.random.default_rng(seed)
    scores = _random_score_matrix(rng, 5)
    general = rng.random((4, 4))  # a payoff matrix that is not constant-sum
    for payoffs, alpha, m in ((scores, 5.0, 20), (general, 3.0, 10)):
        ours = alpha_rank(payoffs, alpha=alpha, m=m)
        _, _, pi, _, _ = alpharank.compute([payoffs], m=m, alpha=alpha, use_local_selection_model=False)
        assert ours.pi == pytest.approx(np.asarray(pi), abs=1e-8)


def test_alpha_rank_input_errors():
    with pytest.raises(ValueError, match="unmet pairs"):
        alpha_rank([[0.5, np.nan], [np.nan, 0.5]])
    with pytest.raises(ValueError, match="need alpha > 0"):
        alpha_rank(RPS, alpha=0)
