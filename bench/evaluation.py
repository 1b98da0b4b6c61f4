"""Games needed to tell two agents apart: a fixed-count match against duplicate games + SPRT.

For each pairing (connect four: the heuristic against random, and MCTS with a small budget
against the heuristic) and the same hypotheses ``H0: elo = ELO0``, ``H1: elo = ELO1`` with error
rates ``alpha = beta = 0.05``:

* **fixed count**: the number of games a fixed-size test needs for those error rates,
  ``N = ((z_{1-alpha} + z_{1-beta}) sigma / (s(ELO1) - s(ELO0)))^2`` (rounded up to an even
  number, so both seats are played equally), with ``sigma`` the per-game standard deviation of
  the score measured on a pilot of independent games of the same pairing (the variance a
  fixed-count plan must assume; this favours the fixed count, which in practice must guess it);
  also shown with the worst-case ``sigma = 1/2`` a plan without a pilot would use;
* **duplicate + SPRT**: ``run_tournament(..., stopping=Stopping(sprt=(ELO0, ELO1)))`` (pentanomial over duplicate
  pairs), the games counted up to the first crossing, median over ``--seeds`` seeds; and the
  trinomial SPRT with independent games beside it, to show what pairing adds.

The ratio is fixed count / median duplicate+SPRT games (goal: at least 2). Each run also checks
the verdict: the fraction of seeds whose test accepted the hypothesis the pilot supports.

    python bench/evaluation.py                          # both pairings, 7 seeds
    python bench/evaluation.py --seeds 3 --only heuristic_vs_random
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from arena.evaluation.sprt import elo_to_score, mean_and_variance, score_to_elo
from arena.tournament import Stopping, TournamentRules, run_tournament

PAIRINGS = {
    # name: (env, [first, second], elo0, elo1, pilot games)
    "heuristic_vs_random": ("connect_four", ["connect_four_heuristic", "random"], 0.0, 200.0, 200),
    "mcts_vs_heuristic": ("connect_four", ['mcts{"simulations": 50}', "connect_four_heuristic"], 0.0, 150.0, 60),
}


def fixed_count(sigma: float, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> int:
    """Games a fixed-size one-sided test needs at these error rates (normal approximation), made even."""
    z = statistics.NormalDist().inv_cdf(1 - alpha) + statistics.NormalDist().inv_cdf(1 - beta)
    n = (z * sigma / (elo_to_score(elo1) - elo_to_score(elo0))) ** 2
    return 2 * math.ceil(n / 2)


def pilot(env: str, agents: list[str], games: int, workers: int) -> tuple[float, float]:
    """Mean score and per-game standard deviation of the first agent over independent games."""
    result = run_tournament(
        rules=TournamentRules.make(env, agents, games=games, seed=10_000, duplicate=False), workers=workers
    )
    stats = result.pairings[result.entrants[0], result.entrants[1]]
    mean, var = mean_and_variance([stats.losses, stats.draws, stats.wins], (0.0, 0.5, 1.0))
    return mean, math.sqrt(var)


def sprt_games(
    env: str, agents: list[str], elo0: float, elo1: float, seed: int, duplicate: bool, workers: int
) -> tuple[int, str | None, int]:
    result = run_tournament(
        rules=TournamentRules.make(env, agents, seed=seed, duplicate=duplicate),
        workers=workers,
        stopping=Stopping(sprt=(elo0, elo1), budget=2000),
    )
    return len(result.games), result.sprt_state.verdict, result.played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=7, help="repeated SPRT matches per pairing (default 7)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes per match (default 1)")
    parser.add_argument("--only", choices=sorted(PAIRINGS), default=None, help="one pairing")
    args = parser.parse_args()
    for name, (env, agents, elo0, elo1, pilot_games) in PAIRINGS.items():
        if args.only and name != args.only:
            continue
        start = time.perf_counter()
        mean, sigma = pilot(env, agents, pilot_games, args.workers)
        expected = "H1" if mean >= (elo_to_score(elo0) + elo_to_score(elo1)) / 2 else "H0"
        fixed, worst = fixed_count(sigma, elo0, elo1), fixed_count(0.5, elo0, elo1)
        duplicate, independent = [], []
        for seed in range(args.seeds):
            duplicate.append(sprt_games(env, agents, elo0, elo1, seed, True, args.workers))
            independent.append(sprt_games(env, agents, elo0, elo1, seed, False, args.workers))
        med_dup = statistics.median(g for g, _, _ in duplicate)
        med_ind = statistics.median(g for g, _, _ in independent)
        right_dup = sum(v == expected for _, v, _ in duplicate) / len(duplicate)
        right_ind = sum(v == expected for _, v, _ in independent) / len(independent)
        print(f"\n{name}: {env}, {agents[0]} vs {agents[1]}, H0 elo={elo0:g}, H1 elo={elo1:g}, alpha=beta=0.05")
        print(
            f"  pilot ({pilot_games} independent games): score {mean:.3f} (about {score_to_elo(mean):+.0f} Elo), "
            f"sigma per game {sigma:.3f}; expected verdict {expected}"
        )
        print(f"  fixed count (pilot sigma):       {fixed:5d} games")
        print(f"  fixed count (worst-case sigma):  {worst:5d} games")
        print(
            f"  duplicate + SPRT (pentanomial):  median {med_dup:g} games over {args.seeds} seeds "
            f"{sorted(g for g, _, _ in duplicate)}, verdict {expected} in {right_dup:.0%}"
        )
        print(
            f"  independent + SPRT (trinomial):  median {med_ind:g} games "
            f"{sorted(g for g, _, _ in independent)}, verdict {expected} in {right_ind:.0%}"
        )
        print(
            f"  ratio fixed / duplicate+SPRT: {fixed / med_dup:.2f}x (pilot sigma), {worst / med_dup:.2f}x "
            f"(worst case); {time.perf_counter() - start:.0f} s"
        )


if __name__ == "__main__":
    main()
