"""Tournament throughput: random-vs-random games per second, serial vs local workers vs Ray.

Plays the same tournament (two random entrants, results committed to an SQLite file as each
game ends) on each backend and prints games/s and the ratios the targets are about:

* 2 local worker processes at least 1.7x serial;
* Ray (a local cluster of 2 CPUs, started once before timing) within 25% of the local workers.

Games/s counts play and commits, from the first game dispatched to the last result
committed; starting the backend (forking workers, starting actors) is reported beside it.
Starting the Ray cluster itself (``ray.init``) is done once, outside the timings, as when
joining a running cluster. Each figure is the best of ``--repeats`` runs, each run on a fresh
results file.

    python bench/tournament.py                 # tic-tac-toe and connect four, all backends
    python bench/tournament.py --games 2000 --repeats 1 --no-ray   # a quick look
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from arena.tournament import run_tournament

ENVS = {"tic_tac_toe": 12000, "connect_four": 6000}  # games per tournament: a few seconds serial


def measure(env: str, games: int, backend: str, workers: int, repeats: int, folder: Path) -> tuple[float, float]:
    """Best games/s over ``repeats`` runs, and the backend start time of that run."""
    best, best_startup = 0.0, 0.0
    for repeat in range(repeats):
        db = folder / f"{env}-{backend}-{workers}-{repeat}.sqlite"
        result = run_tournament(env, ["random", "other=random"], games=games, seed=repeat, db=db,
                                backend=backend, workers=workers)
        if not result.complete or result.played != games:
            raise RuntimeError(f"{env} on {backend}: {result.played} of {games} games played")
        if result.games_per_second > best:
            best, best_startup = result.games_per_second, result.startup
    return best, best_startup


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None, help="games per tournament (default: per env)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()

    ray = None
    if not args.no_ray:
        import ray

        start = time.perf_counter()
        ray.init(num_cpus=args.workers, include_dashboard=False, logging_level=logging.WARNING)
        print(f"ray.init (local cluster of {args.workers} CPUs): {time.perf_counter() - start:.1f} s, not counted below")

    with tempfile.TemporaryDirectory() as folder:
        for env, default_games in ENVS.items():
            games = args.games or default_games
            serial, _ = measure(env, games, "serial", 1, args.repeats, Path(folder))
            local, local_start = measure(env, games, "processes", args.workers, args.repeats, Path(folder))
            line = (f"{env:<13} {games} games  serial {serial:8,.0f} games/s | {args.workers} workers {local:8,.0f} games/s "
                    f"(start {local_start:.2f} s) = {local / serial:.2f}x serial")
            if ray is not None:
                on_ray, ray_start = measure(env, games, "ray", args.workers, args.repeats, Path(folder))
                line += f" | ray {on_ray:8,.0f} games/s (start {ray_start:.2f} s) = {on_ray / local:.2f}x local workers"
            print(line, flush=True)
    if ray is not None:
        ray.shutdown()


if __name__ == "__main__":
    main()
