"""Tournament throughput: random-vs-random games per second, serial vs local workers vs Ray.

Plays the same tournament (two random entrants, every game committed to an SQLite file) on
each backend and prints games/s and the ratios the targets are about:

* 2 local worker processes at least 1.7x serial;
* Ray (a local cluster of 2 CPUs) within 25% of the local workers.

Games/s counts play and commits, from the first game dispatched to the last result
committed; starting the backend (forking workers, starting Ray actors) is reported beside it.
The Ray cluster itself (``ray.init``) is started once, after the serial and local runs (its
background processes would otherwise compete with them), and outside the timings, as when
joining a running cluster. Each figure is the best of ``--repeats`` runs, each on a fresh
results file. The CPU line (this process and its children) shows how much work a game costs
each way, which bounds the speed-up when other jobs share the cores; the load average is
printed because on a shared 2-core machine it decides how much of the second core we get.

    python bench/tournament.py                 # tic-tac-toe and connect four, all backends
    python bench/tournament.py --games 2000 --repeats 1 --no-ray   # a quick look
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import tempfile
import time
from pathlib import Path

from arena.tournament import Execution, run_tournament

ENVS = {"tic_tac_toe": 12000, "connect_four": 6000}  # games per tournament: about a second serial


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def measure(env: str, games: int, backend: str, workers: int, repeats: int, folder: Path) -> dict[str, float]:
    """Best games/s over ``repeats`` runs, with that run's start time and CPU seconds per game."""
    best: dict[str, float] = {"rate": 0.0}
    for repeat in range(repeats):
        db = folder / f"{env}-{backend}-{workers}-{repeat}.sqlite"
        cpu = cpu_seconds()
        result = run_tournament(
            env, ["random", "other=random"], games=games, seed=repeat, db=db, execution=Execution.make(backend, workers)
        )
        cpu = cpu_seconds() - cpu
        if not result.complete or result.played != games:
            raise RuntimeError(f"{env} on {backend}: {result.played} of {games} games played")
        if result.games_per_second > best["rate"]:
            best = {"rate": result.games_per_second, "start": result.startup, "cpu_us": 1e6 * cpu / games}
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=None, help="games per tournament (default: per env)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} CPUs)")
    local: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for env, default_games in ENVS.items():
            games = args.games or default_games
            serial = measure(env, games, "serial", 1, args.repeats, Path(folder))
            local[env] = workers = measure(env, games, "processes", args.workers, args.repeats, Path(folder))
            print(
                f"{env:<13} {games} games  serial {serial['rate']:8,.0f} games/s ({serial['cpu_us']:.0f} us CPU/game) | "
                f"{args.workers} workers {workers['rate']:8,.0f} games/s ({workers['cpu_us']:.0f} us CPU/game, "
                f"start {workers['start']:.2f} s) = {workers['rate'] / serial['rate']:.2f}x serial",
                flush=True,
            )
        if not args.no_ray:
            import ray

            start = time.perf_counter()
            ray.init(num_cpus=args.workers, include_dashboard=False, logging_level=logging.WARNING)
            print(f"ray.init (local cluster of {args.workers} CPUs): {time.perf_counter() - start:.1f} s, not counted")
            for env, default_games in ENVS.items():
                games = args.games or default_games
                on_ray = measure(env, games, "ray", args.workers, args.repeats, Path(folder))
                print(
                    f"{env:<13} {games} games  ray {on_ray['rate']:8,.0f} games/s (start {on_ray['start']:.2f} s) = "
                    f"{on_ray['rate'] / local[env]['rate']:.2f}x local workers",
                    flush=True,
                )
            ray.shutdown()
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
