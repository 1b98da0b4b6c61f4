"""Random games per second on one core: arena's board batches beside OpenSpiel's C++ core, in one run.

Every side plays complete games with uniformly random legal moves for the same
wall-clock budget, on one thread of this process:

* arena batch: ``TicTacToeBatch`` / ``ConnectFourBatch`` with ``--games`` games stepped
  together, actions from ``batch.random_actions`` (one uniform draw per game and step);
  every step also produces the observations, masks and rewards a trainer reads.
  Games that finish are counted (auto-reset starts the next one in the same step).
* arena single env: ``envs.make(name)`` stepped one game at a time (for scale).
* OpenSpiel: ``pyspiel.load_game(name)``, ``new_initial_state()``, ``legal_actions()``,
  ``apply_action`` with a seeded ``random.Random`` choice: the C++ game core called from
  Python, as a Python user drives it.

The ratio printed is arena batch / OpenSpiel. Rounds alternate between the sides
(``--rounds`` of ``--seconds`` each) and the best round of each side is kept, so a
neighbour's burst of load on a shared machine hurts both sides alike.

Run (as recorded in docs/performance.md)::

    python bench/batched_games.py --seconds 3 --rounds 3
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

import envs
from envs.connect_four import ConnectFourBatch
from envs.tic_tac_toe import TicTacToeBatch

BATCHES = {"tic_tac_toe": TicTacToeBatch, "connect_four": ConnectFourBatch}


def batch_runner(name: str, num_games: int) -> Callable[[float], float]:
    batch = BATCHES[name](num_games, copy=False)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(seconds: float) -> float:
        done, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            for _ in range(20):
                done += int(batch.step(batch.random_actions(rng))[4]["episode_over"].sum())
        return done / elapsed

    return run


def single_runner(name: str) -> Callable[[float], float]:
    env, rng = envs.make(name), random.Random(0)

    def run(seconds: float) -> float:
        done, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            observations, infos = env.reset(seed=done)
            while env.agents:
                (agent,) = observations
                legal = np.flatnonzero(infos[agent]["action_mask"])
                observations, _, _, _, infos = env.step({agent: int(legal[int(rng.random() * len(legal))])})
            done += 1
        return done / elapsed

    return run


def openspiel_runner(name: str) -> Callable[[float], float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game, rng = pyspiel.load_game(name), random.Random(0)

    def run(seconds: float) -> float:
        done, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply_action(legal[int(rng.random() * len(legal))])
            done += 1
        return done / elapsed

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per side and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=16384, help="games in each arena batch")
    parser.add_argument("--only", choices=sorted(BATCHES), default=None)
    args = parser.parse_args(argv)
    try:  # one core: numpy's ufuncs are single-threaded; keep any BLAS pool to one thread too
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    except ImportError:
        pass
    print(f"{'game':<14}{'arena batch':>14}{'arena single':>14}{'OpenSpiel C++':>15}{'batch/OpenSpiel':>17}")
    for name in [args.only] if args.only else list(BATCHES):
        runners = {
            "batch": batch_runner(name, args.games),
            "single": single_runner(name),
            "openspiel": openspiel_runner(name),
        }
        best = dict.fromkeys(runners, 0.0)
        for _ in range(args.rounds):
            for side, run in runners.items():
                if run is not None:
                    best[side] = max(best[side], run(args.seconds))
        ratio = f"{best['batch'] / best['openspiel']:.1f}x" if best["openspiel"] else "n/a (no open_spiel)"
        spiel = f"{best['openspiel']:,.0f}" if best["openspiel"] else "-"
        print(f"{name:<14}{best['batch']:>14,.0f}{best['single']:>14,.0f}{spiel:>15}{ratio:>17}", flush=True)


if __name__ == "__main__":
    main()
