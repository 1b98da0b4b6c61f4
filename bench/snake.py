"""Multi-snake throughput: arena's single and batched snake beside marlenv's ``Snake-v1``.

All runs: a 20x20 map, 4 snakes, uniformly random actions, everything else at its
defaults (full-map observations, one frame). For a fixed wall-clock budget each
measures

* **env steps/s**: steps of one game (a batch of ``N`` games counts ``N`` per call);
* **agent-steps/s**: actions taken by snakes in play (a dead snake that waits for its
  game to end is not counted, for either library);
* **seat-steps/s**: 4 per env step, how marlenv's own figure (4 observations per
  step, dead snakes included) is usually quoted.

Runs:

* ``marlenv``: ``gym.make("Snake-v1", height=20, width=20, num_snakes=4,
  disable_env_checker=True)`` (marlenv 1.0.1 needs ``gym==0.24.1`` and ``pillow``, so it
  lives in its own virtualenv). It runs in a subprocess with the interpreter given by
  ``--marlenv-python`` or ``$MARLENV_PYTHON``; without one it is skipped with a note.
  Make that interpreter with::

      python -m venv /tmp/marlenv-venv
      /tmp/marlenv-venv/bin/pip install gym==0.24.1 pillow marlenv==1.0.1

* ``single``: ``envs.make("snake")`` stepped with a dict of actions per step;
* ``batch N``: :class:`envs.snake.SnakeBatch` with ``N`` games and ``copy=False``
  (the trainer copies into its rollout storage), auto-reset included.

Ratios printed: single env steps/s over marlenv's; batched agent-steps/s over
marlenv's. Run::

    MARLENV_PYTHON=/tmp/marlenv-venv/bin/python python bench/snake.py --seconds 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

import envs
from envs.snake import SnakeBatch

SIZE, SNAKES = 20, 4

MARLENV_SCRIPT = r"""
import json, sys, time
import numpy as np
import gym
import marlenv.envs  # registers Snake-v1
seconds = float(sys.argv[1])
env = gym.make("Snake-v1", height=20, width=20, num_snakes=4, disable_env_checker=True)
env.reset()
rng = np.random.default_rng(0)
actions = rng.integers(0, 3, (100_000, 4)).tolist()
live, steps, agent_steps = 4, 0, 0
start = time.perf_counter()
while time.perf_counter() - start < seconds:
    for _ in range(100):
        agent_steps += live
        _, _, dones, _ = env.step(list(actions[steps % 100_000]))
        steps += 1
        live = 4 - sum(dones)
        if live == 0:
            env.reset()
            live = 4
elapsed = time.perf_counter() - start
print(json.dumps({"steps": steps / elapsed, "agent_steps": agent_steps / elapsed}))
"""


def run_marlenv(python: str | None, seconds: float) -> dict[str, float] | str:
    """marlenv's figures, or the reason they are missing."""
    if not python:
        return "skipped: give --marlenv-python or set MARLENV_PYTHON (see this script's docstring)"
    try:
        done = subprocess.run(
            [python, "-c", MARLENV_SCRIPT, str(seconds)], capture_output=True, text=True, timeout=seconds * 10 + 120
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"skipped: could not run {python}: {err}"
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return f"skipped: {python} failed: {tail[0]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_single(seconds: float) -> dict[str, float]:
    env = envs.make("snake", height=SIZE, width=SIZE, num_snakes=SNAKES)
    observations, _ = env.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 3, 100_000).tolist()
    steps = agent_steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            base = (steps * SNAKES) % 99_990
            act = {agent: actions[base + i] for i, agent in enumerate(observations)}
            agent_steps += len(act)
            observations, _, _, _, _ = env.step(act)
            steps += 1
            if not observations:
                observations, _ = env.reset()
    elapsed = time.perf_counter() - start
    return {"steps": steps / elapsed, "agent_steps": agent_steps / elapsed}


def run_batch(games: int, seconds: float) -> dict[str, float]:
    batch = SnakeBatch(games, height=SIZE, width=SIZE, num_snakes=SNAKES, copy=False)
    batch.reset(seed=0)
    actions = np.random.default_rng(0).integers(0, 3, (16, games, SNAKES))
    calls = agent_steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, infos = batch.step(actions[calls % 16])
        agent_steps += int(np.count_nonzero(infos["acted"]))
        calls += 1
    elapsed = time.perf_counter() - start
    return {"steps": calls * games / elapsed, "agent_steps": agent_steps / elapsed}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall-clock budget per run")
    parser.add_argument("--games", type=int, nargs="+", default=[256, 1024], help="batch sizes")
    parser.add_argument(
        "--marlenv-python",
        default=os.environ.get("MARLENV_PYTHON"),
        help="a Python with marlenv 1.0.1, gym 0.24.1 and pillow (default: $MARLENV_PYTHON)",
    )
    args = parser.parse_args(argv)

    results: dict[str, dict[str, float]] = {}
    marlenv = run_marlenv(args.marlenv_python, args.seconds)
    if isinstance(marlenv, str):
        print(f"marlenv: {marlenv}")
    else:
        results["marlenv Snake-v1"] = marlenv
    results["arena single"] = run_single(args.seconds)
    for games in args.games:
        results[f"arena batch {games}"] = run_batch(games, args.seconds)

    print(
        f"{SIZE}x{SIZE}, {SNAKES} snakes, random actions, {args.seconds:g} s per run, python {sys.version.split()[0]}"
    )
    print(f"{'run':<20}{'env steps/s':>14}{'agent-steps/s':>16}{'seat-steps/s':>15}")
    for name, figures in results.items():
        print(
            f"{name:<20}{figures['steps']:>14,.0f}{figures['agent_steps']:>16,.0f}{figures['steps'] * SNAKES:>15,.0f}"
        )
    if "marlenv Snake-v1" in results:
        base = results["marlenv Snake-v1"]
        print(f"single env steps/s vs marlenv: {results['arena single']['steps'] / base['steps']:.1f}x (target 20x)")
        for games in args.games:
            ours = results[f"arena batch {games}"]
            print(
                f"batch {games} agent-steps/s vs marlenv: {ours['agent_steps'] / base['agent_steps']:.0f}x "
                f"(seat-steps: {ours['steps'] / base['steps']:.0f}x; target 400x)"
            )


if __name__ == "__main__":
    main()
