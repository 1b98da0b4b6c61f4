"""MAgent2 battle steps per second: arena's env beside MAgent2's own parallel loop, in one run.

Both sides step the same battle (81 against 81 on the default 45x45 map) with actions drawn in
advance from one seeded generator (one row of 162 per step; a soldier takes its column), and
reset when the battle ends:

* MAgent2: ``magent2.environments.battle_v4.parallel_env(...)``, ``env.step({agent: a, ...})``
  for ``env.agents`` (its PettingZoo ParallelEnv, the loop its docs show);
* arena: ``envs.make("magent_battle", ...)``, ``env.step({agent: a, ...})`` for the agents in the
  last observations (action checks, per-soldier observations, rewards, flags, side counts).

Rounds alternate between the two so that load on a shared machine hits both alike, each timed
in this process's CPU time (``time.process_time``); the medians are compared and the ratio
``arena / MAgent2`` printed (goal: at least 0.9). Run::

    python bench/magent.py --steps 300 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import envs
from envs.magent._engine import magent_game


def _index(agents: list[str]) -> dict[str, int]:
    return {agent: i for i, agent in enumerate(agents)}


def magent_loop(map_size: int, max_steps: int, actions: np.ndarray):
    env = magent_game("battle_v4").parallel_env(map_size=map_size, max_cycles=max_steps)
    env.reset(seed=0)
    column = _index(env.possible_agents)

    def run() -> float:
        start = time.process_time()
        for row in actions:
            env.step({agent: int(row[column[agent]]) for agent in env.agents})
            if not env.agents:
                env.reset()
        return len(actions) / (time.process_time() - start)

    return run


def arena_loop(map_size: int, max_steps: int, actions: np.ndarray):
    env = envs.make("magent_battle", map_size=map_size, max_steps=max_steps)
    observations, _ = env.reset(seed=0)
    column = _index(env.possible_agents)
    state = {"observations": observations}

    def run() -> float:
        start = time.process_time()
        observations = state["observations"]
        for row in actions:
            observations, *_ = env.step({agent: int(row[column[agent]]) for agent in observations})
            if not observations:
                observations, _ = env.reset()
        state["observations"] = observations
        return len(actions) / (time.process_time() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--map-size", type=int, default=45)
    parser.add_argument("--max-steps", type=int, default=1000, help="the battle's length limit")
    parser.add_argument("--steps", type=int, default=300, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    probe = envs.make("magent_battle", map_size=args.map_size)
    actions = np.random.default_rng(0).integers(0, 21, (args.steps, len(probe.possible_agents)))
    loops = {
        "MAgent2": magent_loop(args.map_size, args.max_steps, actions),
        "arena": arena_loop(args.map_size, args.max_steps, actions),
    }
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for _ in range(args.rounds):
        for name, run in loops.items():
            rates[name].append(run())
    medians = {name: statistics.median(values) for name, values in rates.items()}
    print(
        f"magent_battle {len(probe.possible_agents)} soldiers on {args.map_size}x{args.map_size}, "
        f"{args.steps} steps x {args.rounds} rounds (CPU time, medians)"
    )
    for name, value in medians.items():
        print(f"  {name:8s} {value:8.1f} steps/s  ({value * len(probe.possible_agents):,.0f} soldier-steps/s)")
    print(f"  ratio arena / MAgent2: {medians['arena'] / medians['MAgent2']:.3f} (goal >= 0.9)")


if __name__ == "__main__":
    main()
