"""Learner steps/s of the one batched trainer with a user's own levels, beside the shipped stack (issue 46).

On connect four (``BatchVecEnv`` on an alternating batch, against ``random``) and snake (a simultaneous one,
against ``random``), three learner stacks:

* **shipped**: what the recipe trains (connect four: ``ego_board``; snake: the raw planes);
* **per game**: a user's two levels written with per-game hooks only, around the shipped stack:
  a shaping level that reads the observation (keeps the count of non-zero cells in
  ``observation``, pays 0.01 per new one in ``reward``, resets in ``reset``) and an observation
  transform (float32, halved). The trainer keeps one copy of them per game slot;
* **array form**: the same two levels written once over a batch (``*_batch`` hooks; the shaping
  level keeps per-slot arrays and takes ``slots``).

Two figures per stack: **env** steps/s, the VecEnv stepped with random legal actions (the
trainer's own cost, the stack's share at its largest), and **train** steps/s, MaskablePPO
learning on it (what ``arena train`` spends), each the median of ``--rounds`` timed rounds in
which the stacks take turns (a loaded machine slows them alike), with the ratio to the shipped
stack. Run:

    python bench/batch_training.py [--games 64] [--steps 100] [--train-steps 4096] [--rounds 5] [--threads 1]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from arena import Interface
from arena.errors import SpaceMismatchError
from arena.specs.interfaces import build_interface
from arena.training.vectorised import batch_vec_env

SNAKE_OPTIONS = {"height": 11, "width": 11, "num_snakes": 2}


# ---------------------------------------------------------------- a user's levels, per game
class ShapeByCells(Interface):
    """Pays 0.01 per observation cell that became non-zero (reads the observation)."""

    def reset(self, observation):
        self.previous = np.count_nonzero(observation)
        self.bonus = 0.0

    def observation(self, observation):
        cells = np.count_nonzero(observation)
        self.bonus += 0.01 * (cells - self.previous)
        self.previous = cells
        return observation

    def reward(self, reward):
        reward, self.bonus = reward + self.bonus, 0.0
        return reward


class Halve(Interface):
    """The observation as float32, halved."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self.inner_observation_space
        if not isinstance(box, spaces.Box):
            raise SpaceMismatchError(f"{self}: halves a Box observation, got {box}")
        self.observation_space = spaces.Box((box.low / 2).astype(np.float32), (box.high / 2).astype(np.float32))

    def observation(self, observation):
        return np.asarray(observation, dtype=np.float32) / 2


# ------------------------------------------------------------ the same levels, in array form
class ShapeByCellsArrays(Interface):
    """:class:`ShapeByCells` over a batch: one row of state per slot."""

    previous: np.ndarray  # per slot: the cells of the last observation (made at the first call)
    bonus: np.ndarray

    def _state(self, slots, count):
        slots = np.arange(count) if slots is None else np.asarray(slots)
        size = int(slots.max()) + 1 if slots.size else 0
        if getattr(self, "previous", None) is None or len(self.previous) < size:
            self.previous = np.zeros(size)
            self.bonus = np.zeros(size)
        return slots

    def reset_batch(self, observations, starting, slots=None):
        slots = self._state(slots, len(starting))
        cells = np.count_nonzero(observations.reshape(len(observations), -1), axis=1)
        self.previous[slots[starting]] = cells[starting]
        self.bonus[slots[starting]] = 0.0

    def observation_batch(self, observations, slots=None):
        slots = self._state(slots, len(observations))
        cells = np.count_nonzero(observations.reshape(len(observations), -1), axis=1)
        self.bonus[slots] += 0.01 * (cells - self.previous[slots])
        self.previous[slots] = cells
        return observations

    def reward_batch(self, rewards, slots=None):
        slots = self._state(slots, len(rewards))
        paid = rewards + self.bonus[slots]
        self.bonus[slots] = 0.0
        return paid


class HalveArrays(Halve):
    """:class:`Halve` over a batch."""

    def observation_batch(self, observations):
        return np.asarray(observations, dtype=np.float32) / 2


STACKS: dict[str, dict[str, Callable[[], Interface | None]]] = {
    "connect_four": {
        "shipped": lambda: build_interface("ego_board"),
        "per game": lambda: Halve(ShapeByCells(build_interface("ego_board"))),
        "array form": lambda: HalveArrays(ShapeByCellsArrays(build_interface("ego_board"))),
    },
    "snake": {
        "shipped": lambda: None,
        "per game": lambda: Halve(ShapeByCells()),
        "array form": lambda: HalveArrays(ShapeByCellsArrays()),
    },
}


def make(game: str, games: int, interface: Interface | None) -> Any:
    options = SNAKE_OPTIONS if game == "snake" else {}
    venv = batch_vec_env(game, games, "random", interface=interface, env_kwargs=options)
    venv.seed(0)
    return venv


def env_rates(game: str, games: int, stacks: dict[str, Interface | None], steps: int, rounds: int) -> dict[str, float]:
    """Learner steps/s of each stack's VecEnv stepped with random legal actions: the median over
    ``rounds`` rounds of ``steps`` steps, the stacks taking turns (a loaded machine slows them alike)."""
    venvs = {label: make(game, games, itf) for label, itf in stacks.items()}
    rng = np.random.default_rng(0)
    rates: dict[str, list[float]] = {label: [] for label in venvs}
    for venv in venvs.values():
        venv.reset()
    for round_index in range(rounds + 1):  # round 0 is untimed: caches and first allocations
        for label, venv in venvs.items():
            start = time.perf_counter()
            for _ in range(steps):
                masks = venv.action_masks()
                venv.step((rng.random(masks.shape) * masks).argmax(axis=1))  # a random legal action a game
            if round_index:
                rates[label].append(games * steps / (time.perf_counter() - start))
    return {label: float(np.median(values)) for label, values in rates.items()}


def train_rates(
    game: str, games: int, stacks: dict[str, Interface | None], steps: int, rounds: int
) -> dict[str, float]:
    """Learner steps/s of MaskablePPO learning on each stack's VecEnv (rollouts and updates), the
    median over ``rounds`` rounds of about ``steps`` steps each, the stacks taking turns."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    n_steps = max(8, steps // games)
    models = {}
    for label, itf in stacks.items():
        venv = VecMonitor(make(game, games, itf))
        models[label] = MaskablePPO(
            "MlpPolicy", venv, n_steps=n_steps, batch_size=256, n_epochs=1, seed=0, device="cpu"
        )
    rates: dict[str, list[float]] = {label: [] for label in models}
    for round_index in range(rounds + 1):  # round 0 is untimed
        for label, model in models.items():
            start, before = time.perf_counter(), model.num_timesteps
            model.learn(games * n_steps, reset_num_timesteps=False)
            if round_index:
                rates[label].append((model.num_timesteps - before) / (time.perf_counter() - start))
    return {label: float(np.median(values)) for label, values in rates.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64, help="games stepped together")
    parser.add_argument("--steps", type=int, default=100, help="VecEnv steps a round for the env figure")
    parser.add_argument("--train-steps", type=int, default=4096, help="learner steps a round, train figure (0: none)")
    parser.add_argument("--rounds", type=int, default=5, help="timed rounds (the median is shown)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--games-list", default="connect_four,snake", help="which games, comma-separated")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    print(
        f"{args.games} games, opponents: random; median of {args.rounds} rounds of {args.steps} VecEnv steps "
        f"and of {args.train_steps} training steps, the stacks taking turns"
    )
    print(f"{'game':<14}{'stack':<12}{'env steps/s':>13}{'ratio':>7}{'train steps/s':>15}{'ratio':>7}")
    for game in args.games_list.split(","):
        env = env_rates(
            game, args.games, {label: build() for label, build in STACKS[game].items()}, args.steps, args.rounds
        )
        stacks = {label: build() for label, build in STACKS[game].items()}
        trained = train_rates(game, args.games, stacks, args.train_steps, args.rounds) if args.train_steps else {}
        for label in STACKS[game]:
            train = trained.get(label, float("nan"))
            print(
                f"{game:<14}{label:<12}{env[label]:>13,.0f}{env[label] / env['shipped']:>7.2f}"
                f"{train:>15,.0f}{train / trained.get('shipped', float('nan')):>7.2f}"
            )


if __name__ == "__main__":
    main()
