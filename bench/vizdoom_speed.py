"""Learner steps per second of ViZDoom deathmatch: the fast mode (alone against bots) beside the networked 2-player mode.

The first two modes are what ``arena train vizdoom_deathmatch`` gives its learner, ``player_0``, behind the
recipe's interface (``frame_stack(doom_screen(doom_actions()))``: 4 grey 60x80 frames, 10 actions):

* **fast**: the recipe's env options (``envs.vizdoom.recipe.FAST_OPTIONS``): one engine, the learner
  alone against 3 built-in bots, grey 160x120 screens, no labels, ``make_action`` of 4 tics a step;
* **networked**: today's 2-player mode, ``envs.make("vizdoom_deathmatch", time_limit=20.0)``: two
  engines on 127.0.0.1 in lockstep (4 single tics a step), RGB screens, the enemies table and radar,
  a ``RandomAgent`` in ``player_1``;
* **target**: the fast mode with the labels buffer on (``enemies=True``) and the learner behind
  ``doom_target(doom_actions())`` in place of the frames: the nearest enemy in view and the game
  variables, 9 floats (PPO's ``MlpPolicy``).

Two measures, each through ``arena.training.SingleAgentEnv`` (the env the learner trains on):

* **env**: the learner's random actions, steps per wall-clock second (match restarts included,
  the first engine start not), rounds alternating between the modes, best round of each kept
  (which filters out other load on a shared machine);
* **ppo** (``--learn N``, 0 to skip): Stable-Baselines3 PPO (``CnnPolicy``, ``MlpPolicy`` for target; the
  recipe's ``n_steps=256, batch_size=64, n_epochs=4``) learning ``N`` steps, steps per second (updates included).

Run: ``OMP_NUM_THREADS=1 python bench/vizdoom_speed.py [--seconds 10] [--rounds 3] [--learn 512]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from arena.specs.interfaces import build_interface
from arena.training import SingleAgentEnv
from envs.vizdoom.recipe import FAST_OPTIONS, training_recipe

MODES = {"fast": dict(FAST_OPTIONS), "networked": {"time_limit": 20.0}, "target": {**FAST_OPTIONS, "enemies": True}}
INTERFACES = {"target": "doom_target(doom_actions())"}  # the others: the recipe's
POLICIES = {"target": "MlpPolicy"}  # the others: CnnPolicy


def learner_env(mode: str) -> SingleAgentEnv:
    """The env ``arena train`` gives its learner in ``mode``: ``player_0`` behind the mode's interface."""
    return SingleAgentEnv(
        "vizdoom_deathmatch",
        "random",
        seats="player_0",
        interface=build_interface(INTERFACES.get(mode, training_recipe().interface)),
        env_kwargs=MODES[mode],
    )


def env_round(mode: str, seconds: float, seed: int) -> float:
    """Learner steps per second with random actions for ``seconds`` (after an untimed first reset)."""
    env = learner_env(mode)
    env.action_space.seed(seed)
    env.reset(seed=seed)  # starts the engines: not timed
    steps, started = 0, time.perf_counter()
    try:
        while time.perf_counter() - started < seconds:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            steps += 1
            if terminated or truncated:
                env.reset()
        return steps / (time.perf_counter() - started)
    finally:
        env.close()


def ppo_round(mode: str, steps: int, seed: int) -> float:
    """Learner steps per second of PPO learning ``steps`` steps (the engines' start not timed)."""
    from stable_baselines3 import PPO

    env = learner_env(mode)
    model = PPO(POLICIES.get(mode, "CnnPolicy"), env, n_steps=256, batch_size=64, n_epochs=4, seed=seed, verbose=0)
    env.reset(seed=seed)  # starts the engines before the clock
    started = time.perf_counter()
    try:
        model.learn(steps)
        return steps / (time.perf_counter() - started)
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="timed seconds per env round")
    parser.add_argument("--rounds", type=int, default=3, help="env rounds per mode (alternating)")
    parser.add_argument("--learn", type=int, default=512, help="PPO steps per mode (0: skip)")
    args = parser.parse_args(argv)
    os.chdir(tempfile.mkdtemp(prefix="vizdoom-speed-"))  # PPO's and ViZDoom's stray files land there
    best = dict.fromkeys(MODES, 0.0)
    for round_index in range(args.rounds):
        for mode in MODES:
            rate = env_round(mode, args.seconds, seed=round_index)
            best[mode] = max(best[mode], rate)
            print(f"env round {round_index + 1} {mode:>9}: {rate:8.1f} learner steps/s", flush=True)
    print(
        f"env, best of {args.rounds}: fast {best['fast']:.1f}, networked {best['networked']:.1f} "
        f"learner steps/s, fast/networked = {best['fast'] / best['networked']:.2f}x; target {best['target']:.1f}, "
        f"target/fast = {best['target'] / best['fast']:.2f}x"
    )
    if args.learn > 0:
        ppo = {mode: ppo_round(mode, args.learn, seed=0) for mode in MODES}
        print(
            f"ppo, {args.learn} steps: fast {ppo['fast']:.1f}, networked {ppo['networked']:.1f} "
            f"learner steps/s, fast/networked = {ppo['fast'] / ppo['networked']:.2f}x; target {ppo['target']:.1f}, "
            f"target/fast = {ppo['target'] / ppo['fast']:.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
