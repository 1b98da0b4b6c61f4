"""Pommerman radio training on the batched team trainer beside team mode: learner steps per second.

Trains MaskablePPO with the recipe's settings (:data:`envs.pommerman.recipe.PLANES_ALGO_OPTIONS`: the
CNN over the planes, 64 steps an update) behind :func:`envs.pommerman.recipe.planes_interface` on
:class:`~arena.training.batched.BatchVecEnv` (``team=True``, two batched ``pommerman_simple`` as the
enemies) for ``--timesteps`` learner steps in team mode, then in radio mode (the model choosing a move and
two words, reading 24 planes), ``--rounds`` times in turn in one process, so that a load that changes
during the run weighs on both. Prints each run's learner steps per second and radio's ratio to team.

Run::

    python bench/pommerman_radio_training.py --timesteps 8192 --rounds 2
"""

from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO

from arena import make_agent
from arena.specs.interfaces import build_interface
from arena.training.batched import BatchVecEnv
from envs.pommerman.policy import PlanesCNN
from envs.pommerman.recipe import PLANES_ALGO_OPTIONS, planes_interface


def steps_per_second(mode: str, args: argparse.Namespace) -> float:
    """Learner steps per second of ``--timesteps`` MaskablePPO steps in ``mode`` (after one warm-up update)."""
    venv = BatchVecEnv(
        "pommerman",
        args.games,
        make_agent("pommerman_simple"),
        team=True,
        interface=build_interface(planes_interface()),
        env_kwargs={"mode": mode},
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
    parser.add_argument("--rounds", type=int, default=2, help="team then radio, this many times")
    parser.add_argument("--games", type=int, default=32, help="games stepped together (2 learner seats each)")
    parser.add_argument("--n-steps", type=int, default=PLANES_ALGO_OPTIONS["n_steps"], help="steps per update and seat")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(
        f"MaskablePPO on the batched team trainer, {args.games} games x 2 learner seats, {args.timesteps} steps a run"
    )
    rates: dict[str, list[float]] = {"team": [], "radio": []}
    for round_ in range(args.rounds):
        for mode, seen in rates.items():
            seen.append(steps_per_second(mode, args))
            print(f"  round {round_ + 1}, {mode:5s} {seen[-1]:8.0f} learner steps/s", flush=True)
    team, radio = sum(rates["team"]) / args.rounds, sum(rates["radio"]) / args.rounds
    print(f"  mean: team {team:.0f}, radio {radio:.0f} learner steps/s (radio {radio / team:.2f}x team)")


if __name__ == "__main__":
    main()
