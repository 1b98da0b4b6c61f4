"""Learner steps per second of soccer's seat run (``arena train soccer --control seat``) on each path.

PPO trains one walker (``home_0``) of soccer with the recipe's env options, interface stack and
algorithm options, against ``random`` in the other seats, ``--games`` games at once, on:

* single path: one ``SingleAgentEnv`` per game in SB3's ``DummyVecEnv``, what ``arena train`` ran
  for this run before it took the worker batch (no longer reachable from the command line);
* workers 0: ``BatchVecEnv`` over a worker batch stepped in this process, what
  ``arena train soccer --control seat`` runs by default;
* workers 1: the same with the games in one worker process (``--workers 1``).

Each side builds its env and model once, then learns ``--steps`` timesteps per round; rounds
alternate between the sides and the best round of each is kept, so a neighbour's burst of load
hurts every side alike. Learner steps/s is timesteps over the wall time of ``model.learn``
(rollouts and updates; no evaluation games). The ratio is each side over the single path. Beside
it, steps per CPU second of this process (best round): on a loaded box the steadier figure for
the in-process sides; with a worker, the games' CPU time is the worker's and is not counted.

Run (as recorded in docs/performance.md, "Worker batches")::

    python bench/worker_seat_training.py --steps 2048 --rounds 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from stable_baselines3 import PPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecMonitor

import envs
from arena.specs.interfaces import build_interface
from arena.training import SingleAgentEnv
from arena.training.batched import BatchVecEnv
from envs.soccer.recipe import training_recipe

SEAT = "home_0"


def vec_env(path: str, games: int, options: dict[str, Any], stack: str, seed: int) -> Any:
    """The learner's ``games`` soccer games on ``path`` (``"single"``, ``"workers 0"``, ``"workers 1"``)."""
    if path == "single":

        def make() -> SingleAgentEnv:
            return SingleAgentEnv(envs.make("soccer", **options), "random", [SEAT], interface=build_interface(stack))

        return make_vec_env(make, n_envs=games, seed=seed)
    workers = int(path.split()[1])
    inner = BatchVecEnv(
        "soccer", games, "random", [SEAT], interface=build_interface(stack), env_kwargs=options, num_workers=workers
    )
    venv = VecMonitor(inner)
    venv.seed(seed)
    return venv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2048, help="learner timesteps a round (default 2048)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", type=int, default=2, help="games at once (the recipe's n_envs: 2)")
    args = parser.parse_args()
    recipe = training_recipe()
    algo_options = dict(recipe.algo_options)
    # a rollout fits a round (tiny smoke runs), as the recipe's 512 steps a game do at 2,048
    algo_options["n_steps"] = min(algo_options["n_steps"], max(8, args.steps // args.games))
    algo_options["batch_size"] = min(algo_options["batch_size"], algo_options["n_steps"] * args.games)
    models = {}
    for path in ("single", "workers 0", "workers 1"):
        venv = vec_env(path, args.games, dict(recipe.env_options), recipe.interface, seed=0)
        models[path] = PPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0, **algo_options)
    best, best_cpu = dict.fromkeys(models, 0.0), dict.fromkeys(models, 0.0)
    for _ in range(args.rounds):
        for path, model in models.items():
            started, cpu = time.perf_counter(), time.process_time()
            model.learn(args.steps, reset_num_timesteps=False)
            best[path] = max(best[path], args.steps / (time.perf_counter() - started))
            best_cpu[path] = max(best_cpu[path], args.steps / max(time.process_time() - cpu, 1e-9))
    for model in models.values():
        model.get_env().close()
    print(f"soccer seat {SEAT} vs random ({args.games} games, {recipe.env_options}, {args.steps} steps a round):")
    for path, rate in best.items():
        print(
            f"  {path:<10} {rate:8,.0f} learner steps/s   x{rate / best['single']:.2f} of the single path   "
            f"{best_cpu[path]:8,.0f} steps per CPU second of this process"
        )


if __name__ == "__main__":
    main()
