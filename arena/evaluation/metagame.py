"""Meta-game analysis of a round-robin: Nash averaging and alpha-rank.

One Elo number per entrant assumes the entrants are ordered; they may not be (rock beats
scissors beats paper). The meta-game is the symmetric two-player game whose strategies are
the entrants and whose payoff to ``i`` against ``j`` is ``P[i, j]``, ``i``'s score rate
against ``j``.

* **Nash averaging** (Balduzzi et al., 2018) plays the zero-sum game ``A = P - 1/2``
  (antisymmetric when ``P[i, j] + P[j, i] = 1``). Its value is 0, and its equilibria are the
  mixtures ``p`` with ``(p^T A)_j >= 0`` for every ``j``. Among them the one of maximum entropy
  is unique; the entrants it plays form the unbeaten core and each entrant's *Nash-averaged
  score* ``(A p)_i`` (0 in the core, negative outside it) says how it fares against that
  mixture. Computation: for each entrant an LP (scipy ``linprog``) finds the largest weight
  it can have in any equilibrium; the entrants that can have weight are the support, the
  average of those LP solutions is an interior starting point, and SLSQP maximises the
  entropy over the equilibria on that support.
* **alpha-rank** (Omidshafiei et al., 2019), single population: a population of ``m``
  players all using entrant ``s``; a mutant ``r`` appears and takes over with the Moran
  process's fixation probability ``rho(s -> r) = 1 / (1 + sum_{l=1}^{m-1} prod_{k=1}^{l}
  exp(-alpha (f_r(k) - f_s(m - k))))``, where ``f_x(k)`` is the mean payoff of a player of
  ``x`` when ``k`` of the ``m`` play ``x``. The chain moves from ``s`` to ``r`` with
  probability ``rho / (n - 1)``; its stationary distribution ranks the entrants, and the
  strongest transitions show the cycles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.errors import InvalidValueError
from arena.evaluation.sprt import require_scipy

__all__ = ["nash_average", "NashAverage", "alpha_rank", "AlphaRank", "payoff_matrix"]


def payoff_matrix(scores: np.ndarray | list[list[float]]) -> np.ndarray:
    """A square matrix of score rates as floats, unmet pairs (NaN) and the diagonal set to 1/2.

    Raises:
        ValueError: not square, or a score outside [0, 1].
    """
    matrix = np.array(scores, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise InvalidValueError(f"meta-game: expected a square matrix of score rates, got shape {matrix.shape}")
    matrix[np.isnan(matrix)] = 0.5
    np.fill_diagonal(matrix, 0.5)
    if (matrix < 0).any() or (matrix > 1).any():
        raise InvalidValueError(f"meta-game: score rates must lie in [0, 1], got {matrix.tolist()}")
    return matrix


@dataclass(frozen=True)
class NashAverage:
    """The maximum-entropy Nash equilibrium of the meta-game and the scores against it.

    Attributes:
        weights: the equilibrium mixture (one weight per entrant).
        scores: ``(A p)_i``: each entrant's expected ``score - 1/2`` against the mixture.
    """

    weights: np.ndarray
    scores: np.ndarray


def nash_average(payoffs: np.ndarray | list[list[float]], *, zero_sum: bool = False, tol: float = 1e-9) -> NashAverage:
    """Nash averaging of a meta-game (see the module docstring).

    Args:
        payoffs: score rates ``P`` (in [0, 1], ``P[i, j] + P[j, i] = 1``), or with
            ``zero_sum=True`` an antisymmetric matrix ``A`` used as it is.
        zero_sum: ``payoffs`` already is the antisymmetric ``A``.
        tol: the slack allowed in the equilibrium constraints.

    Raises:
        ValueError: a matrix that is not square, or ``A`` not antisymmetric.

    Example (rock, paper, scissors, and a fourth entrant that everyone beats):
        >>> rps = [[0.5, 0, 1, 1], [1, 0.5, 0, 1], [0, 1, 0.5, 1], [0, 0, 0, 0.5]]
        >>> [round(float(w), 3) for w in nash_average(rps).weights]
        [0.333, 0.333, 0.333, 0.0]
    """
    require_scipy()
    from scipy.optimize import linprog, minimize

    if zero_sum:
        a = np.array(payoffs, dtype=float)
        if a.ndim != 2 or a.shape[0] != a.shape[1]:
            raise InvalidValueError(f"nash_average: expected a square matrix, got shape {a.shape}")
    else:
        a = payoff_matrix(payoffs) - 0.5
    if not np.allclose(a, -a.T, atol=1e-9):
        raise InvalidValueError(
            f"nash_average: the meta-game must be zero-sum: P[i, j] + P[j, i] = 1 (A antisymmetric), got {a.tolist()}"
        )
    n = len(a)
    # Equilibria: p >= 0, sum p = 1, and every pure reply j gets (p^T A)_j >= 0, i.e. -A^T p <= 0.
    a_ub, b_ub = -a.T, np.full(n, tol)
    a_eq, b_eq = np.ones((1, n)), np.ones(1)
    largest = []
    for i in range(n):
        cost = np.zeros(n)
        cost[i] = -1.0
        result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=[(0, 1)] * n, method="highs")
        if result.status != 0:
            raise InvalidValueError(f"nash_average: the equilibrium LP failed ({result.message})")
        largest.append(result.x)
    support = [i for i in range(n) if largest[i][i] > 1e-7]
    start = np.mean(largest, axis=0)[support]
    start /= start.sum()
    sub = a[np.ix_(support, support)]
    outside = a[np.ix_(support, [j for j in range(n) if j not in support])]

    def negative_entropy(q: np.ndarray) -> tuple[float, np.ndarray]:
        q = np.clip(q, 1e-300, None)
        return float((q * np.log(q)).sum()), np.log(q) + 1.0

    constraints = [
        {"type": "eq", "fun": lambda q: q.sum() - 1.0, "jac": lambda q: np.ones_like(q)},
        {"type": "ineq", "fun": lambda q: sub.T @ q + tol, "jac": lambda q: sub.T},
    ]
    if outside.size:
        constraints.append({"type": "ineq", "fun": lambda q: outside.T @ q + tol, "jac": lambda q: outside.T})
    result = minimize(
        negative_entropy,
        start,
        jac=True,
        method="SLSQP",
        constraints=constraints,
        bounds=[(0.0, 1.0)] * len(support),
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    q = result.x if result.success else start
    weights = np.zeros(n)
    weights[support] = np.clip(q, 0.0, None)
    weights /= weights.sum()
    return NashAverage(weights, a @ weights)


@dataclass(frozen=True)
class AlphaRank:
    """alpha-rank's result.

    Attributes:
        pi: the stationary distribution (the ranking mass of each entrant).
        transitions: ``C[s, r]``, the chain's probability of moving from ``s`` to ``r``.
        fixation: ``rho[s, r]``, the fixation probability of a mutant ``r`` among ``s``.
    """

    pi: np.ndarray
    transitions: np.ndarray
    fixation: np.ndarray


def alpha_rank(payoffs: np.ndarray | list[list[float]], *, alpha: float = 10.0, m: int = 50) -> AlphaRank:
    """Single-population alpha-rank of a symmetric meta-game (see the module docstring).

    Args:
        payoffs: ``M[i, j]``, the payoff of ``i`` against ``j`` (score rates, or any payoffs).
        alpha: the selection intensity (larger: the fitter mutant wins more surely).
        m: the population size.

    Example:
        >>> [round(float(p), 3) for p in alpha_rank([[0.5, 0, 1], [1, 0.5, 0], [0, 1, 0.5]]).pi]
        [0.333, 0.333, 0.333]
    """
    require_scipy()
    from scipy.special import logsumexp

    matrix = np.array(payoffs, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or len(matrix) < 2:
        raise InvalidValueError(
            f"alpha_rank: expected a square payoff matrix of at least 2 entrants, got shape {matrix.shape}"
        )
    if np.isnan(matrix).any():
        raise InvalidValueError("alpha_rank: the payoff matrix has unmet pairs (NaN); every pair must have played")
    if not alpha > 0 or not isinstance(m, int) or m < 2:
        raise InvalidValueError(
            f"alpha_rank: need alpha > 0 and an integer population m >= 2, got alpha={alpha}, m={m}"
        )
    n = len(matrix)
    k = np.arange(1, m)
    rho = np.zeros((n, n))
    for s in range(n):
        for r in range(n):
            if r == s:
                continue
            # fitness of a mutant r when k play r, and of a resident s when m - k play s
            f_r = ((k - 1) * matrix[r, r] + (m - k) * matrix[r, s]) / (m - 1)
            f_s = ((m - k - 1) * matrix[s, s] + k * matrix[s, r]) / (m - 1)
            log_terms = np.cumsum(-alpha * (f_r - f_s))
            rho[s, r] = np.exp(-logsumexp(np.concatenate([[0.0], log_terms])))
    transitions = rho / (n - 1)
    np.fill_diagonal(transitions, 0.0)
    np.fill_diagonal(transitions, 1.0 - transitions.sum(axis=1))
    # pi C = pi with sum pi = 1: solve (C^T - I) pi = 0 with the normalisation appended.
    system = np.vstack([transitions.T - np.eye(n), np.ones((1, n))])
    target = np.zeros(n + 1)
    target[-1] = 1.0
    pi = np.linalg.lstsq(system, target, rcond=None)[0]
    pi = np.clip(pi, 0.0, None)
    return AlphaRank(pi / pi.sum(), transitions, rho)
