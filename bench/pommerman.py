"""Pommerman throughput: arena's env and ``pommerman_simple`` beside the reference (playground), in one run.

Two measurements, both FFA (``PommeFFACompetition-v0``), resets inside the timing, the
same protocol on both sides (the one of ``pommerman_reference.py --bench``):

* **random steps/s**: env steps with uniformly random actions drawn outside the env
  (arena: a dict of ints per step; the reference: a list of ints per step);
* **simple4 steps/s**: a full game loop of 4 scripted agents (arena: 4
  ``pommerman_simple`` agents asked in turn; the reference: ``env.act(obs)`` with 4
  ``SimpleAgent`` objects, then ``env.step``).

The reference runs in a subprocess with the interpreter given by ``--reference-python``
or ``$POMMERMAN_REFERENCE_PYTHON`` (build it with ``../shared/pommerman/reference/setup.sh
SOURCE``, which prints that interpreter); without one only arena's figures are printed.
The sides alternate run by run (reference, arena, reference, ...) so that load drifting on a
shared machine hits both alike; medians of ``--runs`` runs and their ratio are printed.
Run::

    python bench/pommerman.py --reference-python /tmp/pommerman-reference/bin/python --steps 3000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import envs
from envs.pommerman.agents import PommermanSimpleAgent

REFERENCE_SCRIPT = r"""
import json, random, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
import pommerman
steps, kind, seed = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
random.seed(seed)
np.random.seed(seed)
agents = [pommerman.agents.SimpleAgent() if kind == "simple4" else pommerman.agents.RandomAgent() for _ in range(4)]
env = pommerman.make("PommeFFACompetition-v0", agents)
rng = random.Random(seed)
start = time.perf_counter()
obs, n = env.reset(), 0
while n < steps:
    actions = env.act(obs) if kind == "simple4" else [rng.randrange(6) for _ in range(4)]
    obs, _, done, _ = env.step(actions)
    n += 1
    if done:
        obs = env.reset()
print(json.dumps(n / (time.perf_counter() - start)))
"""


def reference_rate(python: str, steps: int, kind: str, seed: int) -> float:
    out = subprocess.run(
        [python, "-c", REFERENCE_SCRIPT, str(steps), kind, str(seed)], check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip().splitlines()[-1])


def arena_random(steps: int, seed: int) -> float:
    env = envs.make("pommerman", mode="ffa")
    moves = np.random.default_rng(seed).integers(0, 6, (steps, 4)).tolist()
    index = {a: int(a[-1]) for a in env.possible_agents}
    start = time.perf_counter()
    obs, _ = env.reset(seed=seed)
    for n in range(steps):
        row = moves[n]
        obs, _, _, _, _ = env.step({a: row[index[a]] for a in obs})
        if not obs:
            obs, _ = env.reset()
    return steps / (time.perf_counter() - start)


def arena_simple4(steps: int, seed: int) -> float:
    env = envs.make("pommerman", mode="ffa")
    agents = {a: PommermanSimpleAgent(seed + i) for i, a in enumerate(env.possible_agents)}
    for a, agent in agents.items():
        agent.setup(env.observation_space(a), env.action_space(a))
    start = time.perf_counter()
    obs, infos = env.reset(seed=seed)
    for _ in range(steps):
        obs, _, _, _, infos = env.step({a: agents[a].act(o, infos[a].get("action_mask")) for a, o in obs.items()})
        if not obs:
            for agent in agents.values():
                agent.reset()
            obs, infos = env.reset()
    return steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-python", default=os.environ.get("POMMERMAN_REFERENCE_PYTHON"))
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    arena_random(200, 0), arena_simple4(200, 0)  # compile (numba caches on disk) outside the timing
    results: dict[str, dict[str, list[float]]] = {
        "random": {"arena": [], "reference": []},
        "simple4": {"arena": [], "reference": []},
    }
    for run in range(args.runs):
        for kind, ours in (("random", arena_random), ("simple4", arena_simple4)):
            if args.reference_python:
                results[kind]["reference"].append(reference_rate(args.reference_python, args.steps, kind, run))
            results[kind]["arena"].append(ours(args.steps, run))
    summary = {}
    for kind, sides in results.items():
        row = {side: statistics.median(rates) for side, rates in sides.items() if rates}
        runs = {side: [round(r) for r in rates] for side, rates in sides.items() if rates}
        line = f"{kind:8s} arena {row['arena']:9.0f} steps/s {runs['arena']}"
        if "reference" in row:
            row["ratio"] = row["arena"] / row["reference"]
            line += f"   reference {row['reference']:7.0f} steps/s {runs['reference']}   ratio {row['ratio']:.1f}x"
        print(line)
        summary[kind] = row
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
