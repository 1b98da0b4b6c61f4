"""Pommerman team training on arena's one batched trainer: the shipped stack beside a user's level and radio mode.

Trains MaskablePPO (the team recipe's CNN over the planes) for ``--timesteps`` learner steps on
:class:`~arena.training.batched.BatchVecEnv` (``team=True``: one policy in
both seats of its side, two batched ``pommerman_simple`` as the enemies) in four runs, one after the
other in one process, ``--rounds`` times in turn (a load that changes during the run weighs on all),
and prints each one's median learner steps per second and its ratio to the first:

* ``shipped``: the team recipe's stack (:func:`envs.pommerman.recipe.planes_interface`), every level
  in its array form over the batch's planes;
* ``+ per-game level``: a user's level written per game only (a shaping that reads the
  observation: a small penalty for standing still, and half the reward), wrapped around the
  shipped stack; arena runs it game by game, one copy per slot;
* ``+ array-form level``: the same level written once in array form;
* ``radio mode``: the shipped stack in radio mode, the model choosing a move and two words and
  reading 24 planes (the radio recipe).

Run::

    python bench/pommerman_team_training.py --timesteps 8192 --rounds 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO

from arena import Interface, make_agent
from arena.specs.interfaces import build_interface
from arena.training.batched import BatchVecEnv
from envs.pommerman.planes import SELF
from envs.pommerman.policy import PlanesCNN
from envs.pommerman.recipe import PLANES_ALGO_OPTIONS, planes_interface


class StillPenalty(Interface):
    """Per game: half the reward, and -0.01 each step the agent's cell did not change."""

    def reset(self, observation: Any) -> None:
        self.previous: np.ndarray | None = None
        self.owed = 0.0

    def observation(self, observation: Any) -> Any:
        here = np.asarray(observation)[SELF]
        if self.previous is not None and here.any() and (here == self.previous).all():
            self.owed -= 0.01
        self.previous = here.copy()
        return observation

    def reward(self, reward: float) -> float:
        reward, self.owed = 0.5 * reward + self.owed, 0.0
        return reward


class StillPenaltyArrays(Interface):
    """:class:`StillPenalty` written once over a batch: one row per slot."""

    def reset_batch(self, observations: Any, starting: np.ndarray, slots: Any = None) -> None:
        rows = np.arange(len(starting)) if slots is None else np.asarray(slots)
        self._grow(rows)
        self.seen[rows[starting]] = False
        self.owed[rows[starting]] = 0.0

    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        here = np.asarray(observations)[:, SELF]
        rows = np.arange(len(here)) if slots is None else np.asarray(slots)
        self._grow(rows)
        still = self.seen[rows] & here.any(axis=(1, 2)) & (here == self.previous[rows]).all(axis=(1, 2))
        self.owed[rows] -= 0.01 * still
        self.previous[rows], self.seen[rows] = here, True
        return observations

    def reward_batch(self, rewards: np.ndarray, slots: Any = None) -> np.ndarray:
        rows = np.arange(len(rewards)) if slots is None else np.asarray(slots)
        self._grow(rows)
        out = 0.5 * rewards + self.owed[rows]
        self.owed[rows] = 0.0
        return out

    def _grow(self, rows: np.ndarray) -> None:
        size = int(rows.max()) + 1 if len(rows) else 0
        if size > len(getattr(self, "owed", ())):
            self.owed = np.zeros(size)
            self.seen = np.zeros(size, dtype=bool)
            self.previous = np.zeros((size, 11, 11), dtype=np.uint8)


def steps_per_second(stack: Interface | None, mode: str, args: argparse.Namespace) -> float:
    """Learner steps per second of ``--timesteps`` MaskablePPO steps behind ``stack`` in ``mode`` (after one warm-up update)."""
    options = {"mode": mode, "max_steps": 800}
    venv = BatchVecEnv(
        "pommerman", args.games, make_agent("pommerman_simple"), team=True, interface=stack, env_kwargs=options
    )
    algo = {key: value for key, value in PLANES_ALGO_OPTIONS.items() if key != "policy_kwargs"}
    algo["n_steps"] = args.n_steps
    policy_kwargs = {"features_extractor_class": PlanesCNN, "features_extractor_kwargs": {"features_dim": 256}}
    model = MaskablePPO(
        "MlpPolicy", venv, seed=args.seed, device="cpu", policy_kwargs={**policy_kwargs, "net_arch": [128]}, **algo
    )
    venv.seed(args.seed)
    model.learn(venv.num_envs * model.n_steps)  # compiles and warms up outside the clock
    start = time.perf_counter()
    model.learn(args.timesteps, reset_num_timesteps=False)
    return args.timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument("--games", type=int, default=32, help="games stepped together (2 learner seats each)")
    parser.add_argument("--rounds", type=int, default=1, help="the four runs in turn, this many times (medians)")
    parser.add_argument("--n-steps", type=int, default=PLANES_ALGO_OPTIONS["n_steps"], help="steps per update and seat")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rows = [
        ("shipped", "team", lambda: build_interface(planes_interface())),
        ("+ per-game level", "team", lambda: StillPenalty(build_interface(planes_interface()))),
        ("+ array-form level", "team", lambda: StillPenaltyArrays(build_interface(planes_interface()))),
        ("radio mode", "radio", lambda: build_interface(planes_interface())),
    ]
    print(
        f"MaskablePPO, Pommerman team and radio modes, {args.games} games x 2 learner seats, "
        f"{args.timesteps} learner steps a run, {args.rounds} rounds"
    )
    rates: dict[str, list[float]] = {name: [] for name, _mode, _stack in rows}
    for _round in range(args.rounds):
        for name, mode, stack in rows:
            rates[name].append(steps_per_second(stack(), mode, args))
    first = float(np.median(rates["shipped"]))
    for name, seen in rates.items():
        rate = float(np.median(seen))
        print(f"  {name:20s} {rate:8.0f} learner steps/s  ({rate / first:.2f}x the shipped stack)")


if __name__ == "__main__":
    main()
