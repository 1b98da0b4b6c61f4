"""Game steps per second of a worker batch (``arena.worker_batch``) beside N single envs stepped in-process.

For each game (soccer 1v1 on MuJoCo, snake on the default board) ``--games`` games are stepped
with random actions the same way a trainer steps them:

* single envs: ``--games`` single envs built by ``envs.make``, stepped one after the other in
  this process with dict actions (reset when a game ends): the single-env path's cost, without
  a learner.
* in-process batch: ``batch_of(name, games, num_workers=0)``: the same envs behind the batch
  contract (rows stacked into arrays), in this process.
* 1 worker, 2 workers: ``batch_of(name, games, num_workers=k)``: the games dealt to ``k``
  processes; the parent sends actions and stacks the answers.

A step of N games counts N game steps. Rounds alternate between the sides (``--rounds`` of
``--seconds`` each) and the best round of each side is kept, so a neighbour's burst of load on
a shared machine hurts every side alike. The ratio is each side over the single envs.

Run (as recorded in docs/performance.md)::

    python bench/worker_batch.py --games 8 --seconds 3 --rounds 3
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import envs
from arena.worker_batch import batch_of

GAMES: dict[str, dict[str, Any]] = {"soccer": {"team_size": 1}, "snake": {}}


def _random_actions(env: Any, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    space = env.action_space(env.possible_agents[0])
    if hasattr(space, "n"):
        return rng.integers(int(space.n), size=shape)
    return rng.uniform(space.low, space.high, size=(*shape, *space.shape))


def single_runner(name: str, games: int) -> Callable[[float], float]:
    envs_ = [envs.make(name, **GAMES[name]) for _ in range(games)]
    observations = [env.reset(seed=g)[0] for g, env in enumerate(envs_)]
    rng = np.random.default_rng(0)
    agents = envs_[0].possible_agents

    def run(seconds: float) -> float:
        steps, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            actions = _random_actions(envs_[0], rng, (games, len(agents)))
            for g, env in enumerate(envs_):
                acting = {agent: actions[g, i] for i, agent in enumerate(agents) if agent in observations[g]}
                observations[g] = env.step(acting)[0]
                if not env.agents:
                    observations[g] = env.reset()[0]
            steps += games
        return steps / elapsed

    return run


def batch_runner(name: str, games: int, num_workers: int) -> tuple[Callable[[float], float], Any]:
    batch = batch_of(name, games, env_options=GAMES[name], num_workers=num_workers)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    probe = envs.make(name, **GAMES[name])

    def run(seconds: float) -> float:
        steps, started = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - started) < seconds:
            batch.step(_random_actions(probe, rng, (games, len(probe.possible_agents))))
            steps += games
        return steps / elapsed

    return run, batch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--envs", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args()
    for name in args.envs:
        runners: dict[str, Callable[[float], float]] = {"single envs": single_runner(name, args.games)}
        batches = []
        for label, workers in (("in-process batch", 0), ("1 worker", 1), ("2 workers", 2)):
            runners[label], batch = batch_runner(name, args.games, workers)
            batches.append(batch)
        best = dict.fromkeys(runners, 0.0)
        for _ in range(args.rounds):
            for label, run in runners.items():
                best[label] = max(best[label], run(args.seconds))
        for batch in batches:
            batch.close()
        print(f"{name} ({args.games} games, {GAMES[name] or 'defaults'}):")
        for label, rate in best.items():
            print(f"  {label:<18} {rate:10,.0f} game steps/s   x{rate / best['single envs']:.2f} of single envs")


if __name__ == "__main__":
    main()
