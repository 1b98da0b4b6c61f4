"""MuJoCo soccer steps per second: arena's env beside dm_control's own loop, in one run.

Both sides step the same 2v2 (by default) BoxHead match with uniformly random actions
drawn in advance from one seeded generator, and reset when a match ends:

* dm_control: ``dm_control.locomotion.soccer.load(...)``, ``env.step([a_0, ..., a_3])``
  until ``timestep.last()``, then ``env.reset()``;
* arena: ``envs.make("soccer", ...)``, ``env.step({agent: a, ...})`` (action checks,
  per-player observation dicts, rewards and flags) until the observations are empty,
  then ``env.reset()``;
* arena + play: :func:`arena.play` with a :class:`~arena.RandomAgent` per player (the
  whole loop a tournament runs), for reference.

Rounds alternate between the sides so that load on a shared machine hits both alike,
each timed in this process's CPU time (``time.process_time``: time spent waiting for a busy
core is not the code's cost); the medians are compared. The overhead printed is ``1 - arena / dm_control``. Run::

    python bench/soccer.py --steps 400 --rounds 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

os.environ.setdefault("MUJOCO_GL", "disable")

import envs  # noqa: E402
from arena import RandomAgent, play  # noqa: E402
from envs.soccer._dm import load_dm_soccer  # noqa: E402


def dm_loop(options: dict, actions: np.ndarray):
    env = load_dm_soccer(**options, seed=0)
    env.reset()

    def run() -> float:
        start = time.process_time()
        for joint in actions:
            timestep = env.step(list(joint))
            if timestep.last():
                env.reset()
        return len(actions) / (time.process_time() - start)

    return run


def arena_loop(options: dict, actions: np.ndarray):
    env = envs.make("soccer", **options)
    env.reset(seed=0)
    agents = env.possible_agents

    def run() -> float:
        start = time.process_time()
        for joint in actions:
            observations, *_ = env.step(dict(zip(agents, joint)))
            if not observations:
                env.reset()
        return len(actions) / (time.process_time() - start)

    return run


def play_loop(options: dict, steps: int):
    env = envs.make("soccer", **options)
    agents = [RandomAgent() for _ in env.possible_agents]
    seed = [0]

    def run() -> float:
        start, done = time.process_time(), 0
        while done < steps:
            seed[0] += 1
            done += play(env, agents, seed=seed[0], max_steps=steps - done).length
        return done / (time.process_time() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--team-size", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=45.0, help="match length in game seconds")
    parser.add_argument("--steps", type=int, default=400, help="env steps per round and side")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    options = {
        "team_size": args.team_size,
        "time_limit": args.time_limit,
        "walker": "boxhead",
        "terminate_on_goal": True,
        "disable_walker_contacts": False,
        "field_box": False,
    }
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1.0, 1.0, size=(args.steps, 2 * args.team_size, 3))
    env_options = {key: options[key] for key in ("team_size", "time_limit")}
    sides = {
        "dm_control": dm_loop(options, actions),
        "arena env.step": arena_loop(env_options, actions),
        "arena play()": play_loop(env_options, args.steps),
    }
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, run in sides.items():
            rates[name].append(run())
    print(
        f"soccer {args.team_size}v{args.team_size}, {args.steps} steps x {args.rounds} rounds per side, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    for name, values in rates.items():
        print(
            f"  {name:15s} median {statistics.median(values):7.1f} steps/s  "
            f"(rounds: {', '.join(f'{v:.0f}' for v in values)})"
        )
    ratio = statistics.median(rates["arena env.step"]) / statistics.median(rates["dm_control"])
    play_ratio = statistics.median(rates["arena play()"]) / statistics.median(rates["dm_control"])
    print(
        f"arena env.step / dm_control = {ratio:.3f} (overhead {1 - ratio:+.1%}); "
        f"arena play() / dm_control = {play_ratio:.3f} (overhead {1 - play_ratio:+.1%})"
    )


if __name__ == "__main__":
    main()
