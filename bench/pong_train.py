"""What the Pong batch buys a training run: the trainer env on the batch beside the single env.

Times the trainer envs alone with random moves (no network): the one batched trainer
(:class:`~arena.training.batched.BatchVecEnv` on ``Pong2p.make_batch``), 32 games a
numpy step, beside one ``SingleAgentEnv`` with the recipe's stack and ``pong_ai``; and the bare recipe
(``arena train pong_2p``, which trains on the batch) in a process of its own, timed in CPU seconds
(evaluations off but for the first and last, 2 games each), rounds interleaved. Prints steps per
CPU-second and the batch's ratio. (The single env no longer trains ``pong_2p`` from the command line:
``arena train`` chooses the batch wherever it can serve the run.)

    python bench/pong_train.py --timesteps 60000 --rounds 3
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def train_rate(games: int, timesteps: int, out: str) -> float:
    """Learner steps per CPU-second of one ``arena train pong_2p`` process (on the batch)."""
    command = [
        sys.executable, "-c", "import sys; from arena.cli import main; sys.exit(main(sys.argv[1:]))", "train", "pong_2p", "--timesteps", str(timesteps), "--out", out,
        "--force", "--seed", "1", "--threads", "1", "--n-envs", str(games),
        "--eval-games", "2", "--eval-every", str(10 * timesteps), "--progress", "none",
    ]  # fmt: skip
    before = _child_cpu()
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return timesteps / (_child_cpu() - before)


def env_rate(path: str, games: int, steps: int) -> float:
    """Trainer-env steps (one game, one step) per CPU-second with random moves: the env side alone."""
    from arena.specs.interfaces import build_interface
    from arena.training import SingleAgentEnv
    from arena.training.vectorised import batch_vec_env
    from envs.pong import Pong2p
    from envs.pong_agents import PongAIAgent
    from envs.recipes import pong_2p

    recipe = pong_2p()
    rng = np.random.default_rng(0)
    if path == "env":
        venv = batch_vec_env(
            "pong_2p", games, PongAIAgent(), interface=build_interface(recipe.interface), env_kwargs=recipe.env_options
        )
        venv.seed(0)
        venv.reset()
        started = time.process_time()
        for _ in range(steps // games):
            venv.step(rng.integers(0, 3, games))
        return (steps // games) * games / (time.process_time() - started)
    env = SingleAgentEnv(Pong2p(**recipe.env_options), PongAIAgent(), interface=build_interface(recipe.interface))
    env.reset(seed=0)
    started = time.process_time()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(int(rng.integers(0, 3)))
        if terminated or truncated:
            env.reset()
    return steps / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=60000)
    parser.add_argument("--env-steps", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=32, help="games of the batch (the recipe's --n-envs: 32)")
    args = parser.parse_args()
    games = args.games
    rates: dict[str, list[float]] = {"train env": [], "env env": [], "env single": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            rates["env env"].append(env_rate("env", games, args.env_steps))
            rates["env single"].append(env_rate("single", 1, args.env_steps))
            rates["train env"].append(train_rate(games, args.timesteps, f"{folder}/env"))
    median = {key: statistics.median(values) for key, values in rates.items()}
    for key, label in (
        ("env env", f"trainer env alone, the batch ({games} games)"),
        ("env single", "trainer env alone, SingleAgentEnv (1 game)"),
        ("train env", f"arena train pong_2p (on the batch, {games} games)"),
    ):
        runs = " / ".join(f"{value:,.0f}" for value in rates[key])
        print(f"{label:46s} {median[key]:10,.0f} steps per CPU-second ({runs})")
    print(f"the batch / the single env: trainer env {median['env env'] / median['env single']:.1f}x")


if __name__ == "__main__":
    main()
