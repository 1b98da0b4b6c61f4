"""Where the time of a Pommerman team training run goes: the env and interfaces, or the network.

The team recipe's pieces, assembled around :class:`~envs.pommerman.vec_env.PommermanVecEnv`:

* parameter sharing with the ego view: one policy plays both members of a side
  (``seats="team"``, ``ego=True``), the sides alternating between episodes;
* an opponent pool mixing ``pommerman_simple``: half the games against two batched
  ``pommerman_simple`` (:class:`~envs.pommerman.agents.PommermanSimpleBatch`), half against a
  frozen snapshot of the policy (one forward for all of those games per step);
* the action filter (:func:`interfaces.pommerman_safety.safe_moves_planes`) as MaskablePPO's
  action masks, and the shaping bonuses (:func:`interfaces.pommerman_shaping.pickups_planes`,
  :func:`~interfaces.pommerman_shaping.enemies_down_planes`) added to the rewards;
* MaskablePPO on a small CNN over the 22 uint8 planes (:class:`envs.pommerman.policy.PlanesCNN`).

``arena train pommerman --env-options '{"mode": "team"}'`` trains on the same pieces
(:mod:`envs.pommerman.training`), with a self-play pool instead of the fixed half-and-half split.

It trains ``--timesteps`` steps and prints the CPU time of this process spent in each part:
the batch and its scripted opponents (``PommermanVecEnv.step``), the snapshot opponents'
forwards, the filter, the shaping, and the rest (the learner's forwards and PPO's updates).
CPU time, not wall time, so other processes on a shared machine do not move the split.

Run::

    python bench/pommerman_team_train.py --timesteps 16384
"""

from __future__ import annotations

import argparse
import copy
import time
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from envs.pommerman.planes import SELF
from envs.pommerman.policy import PlanesCNN
from envs.pommerman.vec_env import PommermanVecEnv
from interfaces.pommerman_safety import safe_moves_planes
from interfaces.pommerman_shaping import enemies_down_planes, pickups_planes


class Clock:
    """CPU seconds of this process, by part."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = {}

    def add(self, part: str, since: float) -> float:
        now = time.process_time()
        self.parts[part] = self.parts.get(part, 0.0) + now - since
        return now


class Concatenate(VecEnv):
    """Several VecEnvs of the same spaces as one (sub-envs in order)."""

    def __init__(self, parts: list[VecEnv], clock: Clock) -> None:
        self.parts, self.clock = parts, clock
        super().__init__(sum(p.num_envs for p in parts), parts[0].observation_space, parts[0].action_space)
        self._edges = np.cumsum([0] + [p.num_envs for p in parts])

    def reset(self) -> np.ndarray:
        return np.concatenate([part.reset() for part in self.parts])

    def step_async(self, actions: np.ndarray) -> None:
        for part, start, end in zip(self.parts, self._edges[:-1], self._edges[1:]):
            part.step_async(actions[start:end])

    def step_wait(self) -> Any:
        since = time.process_time()
        results = [part.step_wait() for part in self.parts]
        self.clock.add("PommermanVecEnv.step (batch, pommerman_simple, snapshot forwards)", since)
        obs, rewards, dones, infos = zip(*results)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), [i for part in infos for i in part]

    def close(self) -> None:
        for part in self.parts:
            part.close()

    def seed(self, seed: int | None = None) -> list[Any]:
        return [part.seed(seed) for part in self.parts]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        return [None] * len(self._get_indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        pass

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        raise AttributeError(method_name)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))


class FilterAndShaping(VecEnvWrapper):
    """The action filter as action masks, and the shaping bonuses, over the views (ego frame)."""

    def __init__(self, venv: VecEnv, clock: Clock, pickup: float, enemy_down: float) -> None:
        super().__init__(venv)
        self.clock, self.pickup, self.enemy_down = clock, pickup, enemy_down
        self._last: np.ndarray | None = None
        self._masks = np.ones((venv.num_envs, 6), dtype=bool)

    def _filter(self, obs: np.ndarray) -> None:
        since = time.process_time()
        self._masks = safe_moves_planes(obs).astype(bool)
        self.clock.add("action filter (safe_moves_planes)", since)

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self._last = obs
        self._filter(obs)
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        since = time.process_time()
        bonus = self.pickup * pickups_planes(self._last, obs) + self.enemy_down * enemies_down_planes(self._last, obs)
        alive = obs[:, SELF].any(axis=(1, 2))  # a dead learner's zeros would read as "every enemy down"
        rewards = rewards + np.where(dones | ~alive, 0.0, bonus).astype(np.float32)
        self.clock.add("shaping (pickups, enemies down)", since)
        self._last = obs
        self._filter(obs)
        return obs, rewards, dones, infos

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks":  # what MaskablePPO asks for
            return list(self._masks[self._get_indices(indices)])
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=16_384)
    parser.add_argument("--games", type=int, default=32, help="games per opponent kind (2 learner seats each)")
    parser.add_argument("--n-steps", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    clock = Clock()
    snapshot: list[Any] = []

    def snapshot_moves(views: np.ndarray) -> np.ndarray:
        since = time.process_time()
        with torch.no_grad():
            moves = snapshot[0].predict(views, deterministic=False)[0]
        clock.add("  of which snapshot forwards", since)
        return moves

    parts = [
        PommermanVecEnv(args.games, "team", seats="team", opponents="simple", ego=True, seed=args.seed),
        PommermanVecEnv(args.games, "team", seats="team", opponents=snapshot_moves, ego=True, seed=args.seed + 1),
    ]
    venv = FilterAndShaping(Concatenate(parts, clock), clock, pickup=0.1, enemy_down=0.3)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=args.n_steps,
        batch_size=1024,
        n_epochs=4,
        learning_rate=3e-4,
        ent_coef=0.01,
        gamma=0.995,
        seed=args.seed,
        verbose=0,
        device="cpu",
        policy_kwargs={"features_extractor_class": PlanesCNN, "net_arch": [128]},
    )
    snapshot.append(copy.deepcopy(model.policy))
    start = time.process_time()
    wall = time.perf_counter()
    model.learn(args.timesteps)
    total = time.process_time() - start
    wall = time.perf_counter() - wall
    env_side = sum(value for key, value in clock.parts.items() if not key.startswith("  "))
    snapshot_s = clock.parts.get("  of which snapshot forwards", 0.0)
    print(
        f"MaskablePPO, Pommerman team mode, {venv.num_envs} learner seats ({args.games} games vs pommerman_simple, "
        f"{args.games} vs a snapshot), {model.num_timesteps} steps: {total:.1f} CPU s ({wall:.1f} s wall)"
    )
    for key in sorted(
        clock.parts, key=lambda key: (0 if "PommermanVecEnv" in key else 1 if key.startswith("  ") else 2, key)
    ):
        print(f"  {key}: {clock.parts[key]:.1f} CPU s ({clock.parts[key] / total:.0%})")
    print(
        f"  network (the learner's forwards, PPO updates) and SB3: {total - env_side:.1f} CPU s "
        f"({(total - env_side) / total:.0%})"
    )
    print(
        f"env + interfaces (without the snapshot's forwards) / training CPU time: {(env_side - snapshot_s) / total:.1%}"
    )


if __name__ == "__main__":
    main()
