"""Per-pairing statistics: wins, draws, losses, score rate with a 95% confidence interval, mean return.

In a game of ``k`` players every pair of entrants in it is compared by rank: the better rank
wins the pair, equal ranks draw. A forfeit ranks its entrant last and the others first, so
it is a loss for the forfeiter and a win for each opponent. Games that ended in an env error
carry no ranks and count nowhere.

The score of an entrant against another is ``(wins + draws / 2) / games``. Its interval is the
Wilson score interval (Wilson 1927) with ``n = games`` and ``wins + draws / 2`` successes. For
win/loss only it is the standard Wilson interval, which keeps close to its nominal coverage
even for small ``n`` and rates near 0 or 1, where the normal (Wald) interval collapses. With
draws it is conservative: a score ``X`` in ``{0, 1/2, 1}`` with mean ``p`` has
``Var(X) = E[X^2] - p^2 <= E[X] - p^2 = p (1 - p)``, the binomial variance the interval assumes.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from arena.errors import InvalidValueError
from arena.evaluation.results import Z_95
from arena.runtime.game import GameResult

__all__ = ["score_rate", "wilson_interval", "PairingStats", "pairing_stats", "Z_95"]


def score_rate(wins: int, draws: int, games: int, *, empty: float) -> float:
    """Wins plus half the draws, per game: the one score rate of tournaments and training.

    Args:
        wins: games won.
        draws: games drawn (each counts one half).
        games: games played (wins, draws and losses).
        empty: the rate to give before any game (a tournament pairing says 0.5, a training
            evaluation 0.0).

    Example:
        >>> score_rate(3, 2, 10, empty=0.5)
        0.4
    """
    return (wins + draws / 2) / games if games else empty


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``successes / n`` (95% by default).

    Args:
        successes: the number of successes (may be fractional: draws count one half).
        n: the number of trials; ``0`` gives the uninformative ``(0.0, 1.0)``.
        z: the normal quantile (1.96 for 95%).

    Raises:
        ValueError: ``successes`` outside ``[0, n]``.

    Example:
        >>> low, high = wilson_interval(50, 100)
        >>> round(low, 4), round(high, 4)
        (0.4038, 0.5962)
    """
    if n < 0 or not 0 <= successes <= n:
        raise InvalidValueError(f"wilson_interval: need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # Exact at the ends (the interval always holds p); rounding must not push them off.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


@dataclass
class PairingStats:
    """How entrant ``first`` fared against entrant ``second`` in the games they shared.

    Attributes:
        wins, draws, losses: of ``first`` against ``second``.
        forfeits: games of the two that ended in a forfeit (by either, or a third player).
        mean_return: entrant -> mean episode return over the shared games that finished.
        returned: how many of those games finished with returns (forfeits and env errors have none).
    """

    first: str
    second: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    mean_return: dict[str, float | None] | None = None
    returned: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``first``'s score rate, ``(wins + draws / 2) / games`` (0.5 before any game)."""
        return score_rate(self.wins, self.draws, self.games, empty=0.5)

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`score`."""
        return wilson_interval(self.wins + self.draws / 2, self.games)

    def swapped(self) -> PairingStats:
        """The same games seen from ``second``."""
        return PairingStats(
            self.second, self.first, self.losses, self.draws, self.wins, self.forfeits, self.mean_return, self.returned
        )

    def as_dict(self) -> dict[str, object]:
        low, high = self.interval
        return {
            "first": self.first,
            "second": self.second,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "forfeits": self.forfeits,
            "score": self.score,
            "score_low": low,
            "score_high": high,
            "mean_return": self.mean_return,
            "returned": self.returned,
        }


def pairing_stats(results: Iterable[GameResult], names: list[str]) -> dict[tuple[str, str], PairingStats]:
    """Statistics for every ordered pair ``(a, b)`` of ``names`` that shared a game.

    Example:
        >>> from arena.runtime.game import GameResult
        >>> game = GameResult("a|b", 0, 1, {"p0": "a", "p1": "b"}, {"a": 1, "b": 2}, {"a": 1.0, "b": -1.0}, 5, "a wins")
        >>> stats = pairing_stats([game], ["a", "b"])
        >>> stats["a", "b"].wins, stats["b", "a"].losses, stats["a", "b"].mean_return
        (1, 1, {'a': 1.0, 'b': -1.0})
    """
    order = {name: i for i, name in enumerate(names)}
    table: dict[tuple[str, str], PairingStats] = {}
    sums: dict[tuple[str, str], dict[str, list[float]]] = {}
    for game in results:
        if not game.ranks:
            continue
        present = sorted((n for n in game.ranks if n in order), key=order.__getitem__)
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                stats = table.get((a, b))
                if stats is None:
                    stats = table[a, b] = PairingStats(a, b)
                    sums[a, b] = {a: [0.0, 0], b: [0.0, 0]}
                ra, rb = game.ranks[a], game.ranks[b]
                if ra < rb:
                    stats.wins += 1
                elif ra > rb:
                    stats.losses += 1
                else:
                    stats.draws += 1
                if game.forfeit is not None:
                    stats.forfeits += 1
                if game.returns is not None:
                    stats.returned += 1
                    for name in (a, b):
                        sums[a, b][name][0] += game.returns[name]
                        sums[a, b][name][1] += 1
    for key, stats in list(table.items()):
        stats.mean_return = {name: (total / count if count else None) for name, (total, count) in sums[key].items()}
        table[key[1], key[0]] = stats.swapped()
    return table
