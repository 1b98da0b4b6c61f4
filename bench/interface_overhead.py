"""Per-agent-step overhead of a stack of interfaces, beside Gymnasium's and SuperSuit's wrappers.

The headline (target: arena's overhead at most 2.0x Gymnasium's): three trivial interface levels
per agent on a 2-agent simultaneous env, under ``EnvItfWrapper``, beside three Gymnasium wrappers
with the same hook bodies on the same dynamics as a 1-agent ``gymnasium.Env``. The levels live in
``bench/interface_overhead_levels.py``, a module without ``from __future__ import annotations``,
and their observation and action hooks are not the bare ``return argument`` (each names its value
and returns it), so both stacks call every hook and differ only in how they dispatch them.

Beside it:

* three identity levels with one hook each (observation, action, reward) against Gymnasium's
  ``TransformObservation``, ``TransformAction`` and ``TransformReward``;
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

Overhead per agent-step = (wrapped time - raw time) / agent-steps, in this process's CPU time
(``time.process_time``), the median of chunks that all stacks take turns on. Run:

    python bench/interface_overhead.py [--steps 200000] [--rounds 50] [--no-supersuit] [--no-realistic]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from interface_overhead_levels import arena_levels, gym_levels
from machine import describe

from arena import EnvItfWrapper, Interface, MultiAgentEnv
from interfaces import ActionMaskInObservation, Flatten, NormalizeObservation

OBS = spaces.Box(-1.0, 1.0, (8,), np.float32)
ACT: spaces.Discrete = spaces.Discrete(4)
EPISODE = 1000
# CPU time of this process: on a shared box, time spent descheduled is not the code's cost.
CLOCK = time.process_time


class ArenaPair(MultiAgentEnv):
    """Two agents act at once every step; episodes last EPISODE steps."""

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents = []
        self.observation_spaces = {"a": OBS, "b": OBS}
        self.action_spaces = {"a": ACT, "b": ACT}
        self._obs = np.zeros(8, np.float32)
        self._acting: tuple[str, ...] | None = None

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

    observation_space: spaces.Space = OBS
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
        return {"a": self._dict_obs, "b": self._dict_obs}, {
            "a": {"action_mask": MASK.copy()},
            "b": {"action_mask": MASK.copy()},
        }

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
        self.observation_space = spaces.Dict(
            {"observation": env.observation_space, "action_mask": spaces.Box(0, 1, (int(ACT.n),), np.int8)}
        )

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return {"observation": observation, "action_mask": info["action_mask"]}, info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(action)
        return {"observation": observation, "action_mask": info["action_mask"]}, reward, terminated, truncated, info


def realistic_stack() -> Interface:
    return ActionMaskInObservation(NormalizeObservation(Flatten()))


def realistic_gym_stack() -> gymnasium.Env:
    return MaskIntoObservation(
        gymnasium.wrappers.NormalizeObservation(gymnasium.wrappers.FlattenObservation(GymMaskedSingle()))
    )


def trivial_stack() -> Interface:
    return KeepReward(KeepAction(KeepObservation()))


def time_arena(env: MultiAgentEnv, steps: int) -> float:
    actions = {"a": 1, "b": 2}
    observations, _ = env.reset(seed=0)
    start = CLOCK()
    for _ in range(steps):
        observations, _, _, _, _ = env.step(actions)
        if not observations:
            env.reset()
    return CLOCK() - start


def time_gym(env: gymnasium.Env, steps: int) -> float:
    env.reset(seed=0)
    start = CLOCK()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(1)
        if terminated or truncated:
            env.reset()
    return CLOCK() - start


def supersuit_times(steps: int, rounds: int) -> tuple[float, float] | None:
    """Seconds per step of SuperSuit's raw and wrapped pair env (see :func:`round_robin`)."""
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
            for action in actions.values():
                if not ACT.contains(action):
                    raise ValueError(action)
            self._t += 1
            over = self._t >= EPISODE
            if over:
                self.agents = []
            flags = {"a": over, "b": over}
            return (
                {"a": self._obs, "b": self._obs},
                {"a": 1.0, "b": 1.0},
                flags,
                {"a": False, "b": False},
                {"a": {}, "b": {}},
            )

    def run(env, steps: int) -> float:
        actions = {"a": 1, "b": 2}
        env.reset(seed=0)
        start = CLOCK()
        for _ in range(steps):
            _, _, terminations, _, _ = env.step(actions)
            if terminations["a"]:
                env.reset()
        return CLOCK() - start

    def wrapped():
        env = supersuit.observation_lambda_v0(ParallelPair(), lambda obs, space: obs)
        env = supersuit.action_lambda_v1(env, lambda action, space: action, lambda space: space)
        return supersuit.reward_lambda_v0(env, lambda reward: reward)

    raw_env, wrapped_env = ParallelPair(), wrapped()
    t = round_robin({"raw": lambda n: run(raw_env, n), "wrapped": lambda n: run(wrapped_env, n)}, steps, rounds)
    return t["raw"], t["wrapped"]


def round_robin(runners: dict[str, Callable[[int], float]], steps: int, rounds: int) -> dict[str, float]:
    """Seconds per step of each runner: median over ``rounds`` chunks of ``steps // rounds`` steps.

    The runners take turns chunk by chunk, so a slow spell of the machine (another process on
    the sibling core) lands on every side alike instead of on whichever ran then.
    """
    chunk = max(1, steps // rounds)
    per_step: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            per_step[name].append(run(chunk) / chunk)
    return {name: float(np.median(times)) for name, times in per_step.items()}


def row(label: str, raw: float, wrapped: float, agents: int) -> float:
    overhead = (wrapped - raw) / agents * 1e6
    print(f"{label:<58} {raw * 1e6:>12.3f} {wrapped * 1e6:>16.3f} {overhead:>23.3f}")
    return overhead


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=200_000, help="steps per stack, over all rounds")
    parser.add_argument("--rounds", type=int, default=50, help="chunks the stacks take turns on")
    parser.add_argument(
        "--no-realistic",
        dest="realistic",
        action="store_false",
        help="skip the realistic stack (flatten + normalise + mask in observation)",
    )
    parser.add_argument(
        "--no-supersuit",
        dest="supersuit",
        action="store_false",
        help="skip SuperSuit (its wrappers are ~100x slower, so it runs steps / 20)",
    )
    args = parser.parse_args()
    print(describe(), flush=True)
    steps, rounds = args.steps, args.rounds

    raw, levels = ArenaPair(), EnvItfWrapper(ArenaPair(), arena_levels())
    trivial = EnvItfWrapper(ArenaPair(), trivial_stack())
    gym_raw, gym_levels_env = GymSingle(), gym_levels(GymSingle())
    gym_trivial = gymnasium.wrappers.TransformReward(
        gymnasium.wrappers.TransformAction(
            gymnasium.wrappers.TransformObservation(GymSingle(), lambda o: o, OBS), lambda a: a, ACT
        ),
        lambda r: r,
    )
    t = round_robin(
        {
            "arena raw": lambda n: time_arena(raw, n),
            "arena levels": lambda n: time_arena(levels, n),
            "arena trivial": lambda n: time_arena(trivial, n),
            "gym raw": lambda n: time_gym(gym_raw, n),
            "gym levels": lambda n: time_gym(gym_levels_env, n),
            "gym trivial": lambda n: time_gym(gym_trivial, n),
        },
        steps,
        rounds,
    )

    print(f"{'stack':<58} {'raw us/step':>12} {'wrapped us/step':>16} {'overhead us/agent-step':>23}")
    arena_overhead = row(
        "arena EnvItfWrapper, 3 trivial obs+action levels x 2 agents", t["arena raw"], t["arena levels"], 2
    )
    gym_overhead = row("gymnasium, 3 wrappers with the same hooks, 1 agent", t["gym raw"], t["gym levels"], 1)
    identity_overhead = row("arena, 3 one-hook identity levels x 2 agents", t["arena raw"], t["arena trivial"], 2)
    gym_identity_overhead = row("gymnasium, 3 identity Transform* wrappers, 1 agent", t["gym raw"], t["gym trivial"], 1)
    superset = supersuit_times(max(1, steps // 20), rounds) if args.supersuit else None
    if superset is not None:
        ss_overhead = row("supersuit, 3 lambda wrappers x 2 agents (ParallelEnv)", *superset, 2)
    print()
    print(
        f"trivial obs+action levels: arena overhead / gymnasium overhead: {arena_overhead / gym_overhead:.2f}x (target <= 2x)"
    )
    print(
        f"one-hook identity levels: arena overhead / gymnasium overhead: {identity_overhead / gym_identity_overhead:.2f}x"
    )
    if superset is not None:
        print(f"supersuit overhead / arena overhead: {ss_overhead / identity_overhead:.1f}x (target >= 50x)")
    elif args.supersuit:
        print("supersuit: not installed (pip install pettingzoo supersuit) - comparison skipped")
    if args.realistic:
        realistic(steps, rounds)


def realistic(steps: int, rounds: int) -> None:
    """Flatten + running normalisation + mask in observation, arena beside Gymnasium."""
    raw, wrapped = ArenaMaskedPair(), EnvItfWrapper(ArenaMaskedPair(), realistic_stack())
    gym_raw, gym_wrapped = GymMaskedSingle(), realistic_gym_stack()
    t = round_robin(
        {
            "arena raw": lambda n: time_arena(raw, n),
            "arena wrapped": lambda n: time_arena(wrapped, n),
            "gym raw": lambda n: time_gym(gym_raw, n),
            "gym wrapped": lambda n: time_gym(gym_wrapped, n),
        },
        steps,
        rounds,
    )
    print()
    print(
        f"{'realistic stack: flatten + normalise + mask in observation':<58} {'raw us/step':>12} "
        f"{'wrapped us/step':>16} {'overhead us/agent-step':>23}"
    )
    arena_overhead = row(
        "arena ActionMaskInObservation(NormalizeObservation(Flatten())) x 2", t["arena raw"], t["arena wrapped"], 2
    )
    gym_overhead = row(
        "gymnasium Flatten-, NormalizeObservation, mask wrapper, 1 agent", t["gym raw"], t["gym wrapped"], 1
    )
    print()
    print(f"realistic: arena overhead / gymnasium overhead: {arena_overhead / gym_overhead:.2f}x")


if __name__ == "__main__":
    main()
