"""Per-agent-step overhead of a stack of interfaces, beside Gymnasium's and SuperSuit's wrappers.

Three equivalent environments with small Box observations and Discrete actions:

* arena: a 2-agent simultaneous env, raw and under ``EnvItfWrapper`` with a stack of
  three trivial interfaces per agent (identity observation, action and reward hooks);
* Gymnasium: the same dynamics as a 1-agent ``gymnasium.Env``, raw and under three
  identity wrappers (``TransformObservation``, ``TransformAction``, ``TransformReward``);
* SuperSuit (when PettingZoo and SuperSuit are installed): the same 2-agent env as a
  PettingZoo ``ParallelEnv``, raw and under ``observation_lambda_v0``,
  ``action_lambda_v1`` and ``reward_lambda_v0``.

A second, realistic comparison (``--realistic``, on by default) uses a Dict observation
(``{"position": Box(8), "phase": Discrete(3)}``) with an action mask in ``infos``:

* arena: ``ActionMaskInObservation(NormalizeObservation(Flatten()))`` per agent (from the
  ``interfaces`` package) on the 2-agent env;
* Gymnasium: ``FlattenObservation``, ``NormalizeObservation`` and a small wrapper that
  moves ``info["action_mask"]`` into a Dict observation (what an SB3 user writes) on the
  1-agent env.

Overhead per agent-step = (wrapped time - raw time) / agent-steps. Run:

    python bench/interface_overhead.py [--steps 200000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium import spaces

from arena import EnvItfWrapper, Interface, MultiAgentEnv
from interfaces import ActionMaskInObservation, Flatten, NormalizeObservation

OBS = spaces.Box(-1.0, 1.0, (8,), np.float32)
ACT = spaces.Discrete(4)
EPISODE = 1000


class ArenaPair(MultiAgentEnv):
    """Two agents act at once every step; episodes last EPISODE steps."""

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents = []
        self.observation_spaces = {"a": OBS, "b": OBS}
        self.action_spaces = {"a": ACT, "b": ACT}
        self._obs = np.zeros(8, np.float32)
        self._acting = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.agents = ["a", "b"]
        self._t = 0
        self._acting = ("a", "b")
        return {"a": self._obs, "b": self._obs}, {"a": {}, "b": {}}

    def step(self, actions):
        self.check_actions(actions, self._acting)
        self._t += 1
        over = self._t >= EPISODE
        if over:
            self.agents, self._acting = [], None
            return {}, {"a": 1.0, "b": 1.0}, {"a": True, "b": True}, {"a": False, "b": False}, {"a": {}, "b": {}}
        flags = {"a": False, "b": False}
        return {"a": self._obs, "b": self._obs}, {"a": 1.0, "b": 1.0}, flags, dict(flags), {"a": {}, "b": {}}


class GymSingle(gymnasium.Env):
    """The same dynamics for one agent."""

    observation_space = OBS
    action_space = ACT

    def __init__(self) -> None:
        self._obs = np.zeros(8, np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs, {}

    def step(self, action):
        if not self.action_space.contains(action):
            raise ValueError(action)
        self._t += 1
        return self._obs, 1.0, self._t >= EPISODE, False, {}


class KeepObservation(Interface):
    def observation(self, observation):
        return observation


class KeepAction(Interface):
    def action(self, action):
        return action

    def action_mask(self, mask):
        return mask


class KeepReward(Interface):
    def reward(self, reward):
        return reward


class KeepBoth(Interface):
    """A pass-through level that overrides both observation and action (and masks)."""

    def observation(self, observation):
        return observation

    def action(self, action):
        return action

    def action_mask(self, mask):
        return mask


class GymKeepBoth(gymnasium.Wrapper):
    """The Gymnasium peer of KeepBoth: one wrapper transforming observations and actions."""

    def observation(self, observation):
        return observation

    def action(self, action):
        return action

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return self.observation(observation), info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(self.action(action))
        return self.observation(observation), reward, terminated, truncated, info


DICT_OBS = spaces.Dict({"position": spaces.Box(-1.0, 1.0, (8,), np.float32), "phase": spaces.Discrete(3)})
MASK = np.array([1, 1, 0, 1], dtype=np.int8)


class ArenaMaskedPair(ArenaPair):
    """ArenaPair with Dict observations and an action mask for each acting agent."""

    def __init__(self) -> None:
        super().__init__()
        self.observation_spaces = {"a": DICT_OBS, "b": DICT_OBS}
        self._dict_obs = {"position": np.linspace(-1, 1, 8, dtype=np.float32), "phase": 1}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return {"a": self._dict_obs, "b": self._dict_obs}, {"a": {"action_mask": MASK.copy()},
                                                            "b": {"action_mask": MASK.copy()}}

    def step(self, actions):
        observations, rewards, terminations, truncations, infos = super().step(actions)
        if observations:
            observations = {"a": self._dict_obs, "b": self._dict_obs}
            infos = {"a": {"action_mask": MASK.copy()}, "b": {"action_mask": MASK.copy()}}
        return observations, rewards, terminations, truncations, infos


class GymMaskedSingle(GymSingle):
    """GymSingle with the Dict observation and an action mask in ``info``."""

    observation_space = DICT_OBS

    def __init__(self) -> None:
        super().__init__()
        self._dict_obs = {"position": np.linspace(-1, 1, 8, dtype=np.float32), "phase": 1}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._dict_obs, {"action_mask": MASK.copy()}

    def step(self, action):
        _, reward, terminated, truncated, _ = super().step(action)
        return self._dict_obs, reward, terminated, truncated, {"action_mask": MASK.copy()}


class MaskIntoObservation(gymnasium.Wrapper):
    """The Gymnasium way to put ``info["action_mask"]`` into a Dict observation."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.observation_space = spaces.Dict({"observation": env.observation_space,
                                              "action_mask": spaces.Box(0, 1, (ACT.n,), np.int8)})

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return {"observation": observation, "action_mask": info["action_mask"]}, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return {"observation": observation, "action_mask": info["action_mask"]}, reward, terminated, truncated, info


def realistic_stack() -> Interface:
    return ActionMaskInObservation(NormalizeObservation(Flatten()))


def realistic_gym_stack() -> gymnasium.Env:
    return MaskIntoObservation(gymnasium.wrappers.NormalizeObservation(
        gymnasium.wrappers.FlattenObservation(GymMaskedSingle())))


def trivial_stack() -> Interface:
    return KeepReward(KeepAction(KeepObservation()))


def time_arena(env: MultiAgentEnv, steps: int) -> float:
    actions = {"a": 1, "b": 2}
    observations, _ = env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        observations, _, _, _, _ = env.step(actions)
        if not observations:
            env.reset()
    return time.perf_counter() - start


def time_gym(env: gymnasium.Env, steps: int) -> float:
    env.reset(seed=0)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(1)
        if terminated or truncated:
            env.reset()
    return time.perf_counter() - start


def paired(repeats: int, raw: Callable[[], float], wrapped: Callable[[], float]) -> tuple[float, float]:
    """Best-of timings, raw and wrapped runs interleaved so that machine noise hits both alike."""
    raw_times, wrapped_times = [], []
    for _ in range(repeats):
        raw_times.append(raw())
        wrapped_times.append(wrapped())
    return min(raw_times), min(wrapped_times)


def supersuit_pair(steps: int, repeats: int) -> tuple[float, float] | None:
    try:
        import supersuit
        from pettingzoo import ParallelEnv
    except ImportError:
        return None

    class ParallelPair(ParallelEnv):
        metadata = {"name": "pair_v0"}

        def __init__(self) -> None:
            self.possible_agents = ["a", "b"]
            self._obs = np.zeros(8, np.float32)

        def observation_space(self, agent):
            return OBS

        def action_space(self, agent):
            return ACT

        def reset(self, seed=None, options=None):
            self.agents = ["a", "b"]
            self._t = 0
            return {"a": self._obs, "b": self._obs}, {"a": {}, "b": {}}

        def step(self, actions):
            for agent, action in actions.items():
                if not ACT.contains(action):
                    raise ValueError(action)
            self._t += 1
            over = self._t >= EPISODE
            if over:
                self.agents = []
            flags = {"a": over, "b": over}
            return ({"a": self._obs, "b": self._obs}, {"a": 1.0, "b": 1.0}, flags,
                    {"a": False, "b": False}, {"a": {}, "b": {}})

    def run(env) -> float:
        actions = {"a": 1, "b": 2}
        env.reset(seed=0)
        start = time.perf_counter()
        for _ in range(steps):
            _, _, terminations, _, _ = env.step(actions)
            if terminations["a"]:
                env.reset()
        return time.perf_counter() - start

    def wrapped():
        env = supersuit.observation_lambda_v0(ParallelPair(), lambda obs, space: obs)
        env = supersuit.action_lambda_v1(env, lambda action, space: action, lambda space: space)
        return supersuit.reward_lambda_v0(env, lambda reward: reward)

    raw_env, wrapped_env = ParallelPair(), wrapped()
    return paired(repeats, lambda: run(raw_env), lambda: run(wrapped_env))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-realistic", dest="realistic", action="store_false",
                        help="skip the realistic stack (flatten + normalise + mask in observation)")
    args = parser.parse_args()
    steps, repeats = args.steps, args.repeats

    raw = ArenaPair()
    wrapped = EnvItfWrapper(ArenaPair(), trivial_stack())
    arena_raw, arena_wrapped = paired(repeats, lambda: time_arena(raw, steps), lambda: time_arena(wrapped, steps))
    arena_overhead = (arena_wrapped - arena_raw) / (2 * steps) * 1e6

    gym_raw_env = GymSingle()
    gym_wrapped_env = gymnasium.wrappers.TransformReward(
        gymnasium.wrappers.TransformAction(
            gymnasium.wrappers.TransformObservation(GymSingle(), lambda o: o, OBS), lambda a: a, ACT),
        lambda r: r)
    gym_raw, gym_wrapped = paired(repeats, lambda: time_gym(gym_raw_env, steps), lambda: time_gym(gym_wrapped_env, steps))
    gym_overhead = (gym_wrapped - gym_raw) / steps * 1e6

    print(f"{'stack':<58} {'raw us/step':>12} {'wrapped us/step':>16} {'overhead us/agent-step':>23}")
    print(f"{'arena EnvItfWrapper, 3 trivial interfaces x 2 agents':<58} {arena_raw / steps * 1e6:>12.3f} "
          f"{arena_wrapped / steps * 1e6:>16.3f} {arena_overhead:>23.3f}")
    print(f"{'gymnasium, 3 identity Transform* wrappers, 1 agent':<58} {gym_raw / steps * 1e6:>12.3f} "
          f"{gym_wrapped / steps * 1e6:>16.3f} {gym_overhead:>23.3f}")
    superset = supersuit_pair(steps, repeats)
    if superset is not None:
        ss_raw, ss_wrapped = superset
        ss_overhead = (ss_wrapped - ss_raw) / (2 * steps) * 1e6
        print(f"{'supersuit, 3 lambda wrappers x 2 agents (ParallelEnv)':<58} {ss_raw / steps * 1e6:>12.3f} "
              f"{ss_wrapped / steps * 1e6:>16.3f} {ss_overhead:>23.3f}")
    both = EnvItfWrapper(ArenaPair(), KeepBoth(KeepBoth(KeepBoth())))
    both_raw, both_wrapped = paired(repeats, lambda: time_arena(raw, steps), lambda: time_arena(both, steps))
    both_overhead = (both_wrapped - both_raw) / (2 * steps) * 1e6
    gym_both_env = GymKeepBoth(GymKeepBoth(GymKeepBoth(GymSingle())))
    gym_both_raw, gym_both_wrapped = paired(repeats, lambda: time_gym(gym_raw_env, steps),
                                            lambda: time_gym(gym_both_env, steps))
    gym_both_overhead = (gym_both_wrapped - gym_both_raw) / steps * 1e6
    print(f"{'arena EnvItfWrapper, 3 obs+action interfaces x 2 agents':<58} {both_raw / steps * 1e6:>12.3f} "
          f"{both_wrapped / steps * 1e6:>16.3f} {both_overhead:>23.3f}")
    print(f"{'gymnasium, 3 obs+action wrappers, 1 agent':<58} {gym_both_raw / steps * 1e6:>12.3f} "
          f"{gym_both_wrapped / steps * 1e6:>16.3f} {gym_both_overhead:>23.3f}")
    print()
    print(f"arena overhead / gymnasium overhead: {arena_overhead / gym_overhead:.2f}x (target <= 2x)")
    print(f"obs+action levels: arena overhead / gymnasium overhead: {both_overhead / gym_both_overhead:.2f}x "
          "(target <= 2x)")
    if superset is not None:
        print(f"supersuit overhead / arena overhead: {ss_overhead / arena_overhead:.1f}x (target >= 50x)")
    else:
        print("supersuit: not installed (pip install pettingzoo supersuit) - comparison skipped")
    if args.realistic:
        realistic(steps, repeats)


def realistic(steps: int, repeats: int) -> None:
    """Flatten + running normalisation + mask in observation, arena beside Gymnasium."""
    raw, wrapped = ArenaMaskedPair(), EnvItfWrapper(ArenaMaskedPair(), realistic_stack())
    arena_raw, arena_wrapped = paired(repeats, lambda: time_arena(raw, steps), lambda: time_arena(wrapped, steps))
    arena_overhead = (arena_wrapped - arena_raw) / (2 * steps) * 1e6
    gym_raw_env, gym_wrapped_env = GymMaskedSingle(), realistic_gym_stack()
    gym_raw, gym_wrapped = paired(repeats, lambda: time_gym(gym_raw_env, steps), lambda: time_gym(gym_wrapped_env, steps))
    gym_overhead = (gym_wrapped - gym_raw) / steps * 1e6
    print()
    print(f"{'realistic stack: flatten + normalise + mask in observation':<58} {'raw us/step':>12} "
          f"{'wrapped us/step':>16} {'overhead us/agent-step':>23}")
    print(f"{'arena ActionMaskInObservation(NormalizeObservation(Flatten())) x 2':<58} "
          f"{arena_raw / steps * 1e6:>12.3f} {arena_wrapped / steps * 1e6:>16.3f} {arena_overhead:>23.3f}")
    print(f"{'gymnasium Flatten-, NormalizeObservation, mask wrapper, 1 agent':<58} {gym_raw / steps * 1e6:>12.3f} "
          f"{gym_wrapped / steps * 1e6:>16.3f} {gym_overhead:>23.3f}")
    print()
    print(f"realistic: arena overhead / gymnasium overhead: {arena_overhead / gym_overhead:.2f}x")


if __name__ == "__main__":
    main()
