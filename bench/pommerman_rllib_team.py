"""Pommerman's team recipe on RLlib at small scale, then the learned side against two ``pommerman_simple``.

It builds :func:`envs.pommerman.rllib_recipe.team_rllib_config` (arena's env through
``to_rllib``, one policy per side through ``multi_agent_config``, the recipe's stack and masks,
the recipe's CNN), trains ``--iterations`` PPO iterations and prints, each iteration, the env
steps sampled (that iteration and in all), the episodes finished, the side policy's mean
episode return (``team_0``: both its seats' rewards, shaping bonuses included) and the
iteration's wall time. At the end the trained ``team_0`` module plays ``--games``
seat-swapped games on arena's single env (the team game, behind the same stack, greedy) against
two ``pommerman_simple`` and the score (wins + half the draws) is printed.

Run (local: Ray is started in this process with ``--num-cpus`` and shut down at the end)::

    python bench/pommerman_rllib_team.py --iterations 5 --train-batch 2048 --env-runners 1

On a Ray cluster (``ray start --head`` on the head node, ``ray start --address=HEAD:6379`` on the
others), from any node::

    python bench/pommerman_rllib_team.py --address auto --env-runners 32 --envs-per-runner 4 \\
        --learners 1 --gpus-per-learner 1 --train-batch 65536 --minibatch 8192 --iterations 500
"""

from __future__ import annotations

import argparse
import time

import ray

import envs
from arena import AgtItfWrapper, make_agent
from arena.specs.interfaces import build_interface
from arena.training.matches import Score, match
from envs.pommerman.recipe import team_interface
from envs.pommerman.rllib_recipe import MaskedPlanesModule, ModuleAgent, team_rllib_config


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--train-batch", type=int, default=2048, help="env steps an update (the recipe: 4096)")
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--max-steps", type=int, default=800, help="the game's step limit (800: the real game)")
    parser.add_argument("--opponent", default="pommerman_simple", choices=("pommerman_simple", "self_play"))
    parser.add_argument("--env-runners", type=int, default=1)
    parser.add_argument("--envs-per-runner", type=int, default=1)
    parser.add_argument("--learners", type=int, default=0)
    parser.add_argument("--gpus-per-learner", type=float, default=0)
    parser.add_argument("--games", type=int, default=10, help="evaluation games against pommerman_simple")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--address", default=None, help='a running cluster ("auto"); default: a local instance')
    return parser.parse_args()


def evaluate(module: MaskedPlanesModule, games: int, max_steps: int, seed: int) -> Score:
    """``games`` games of the module's side against two ``pommerman_simple``, the sides swapped every game."""

    def player() -> AgtItfWrapper:
        stack = build_interface(team_interface(max_steps))
        if stack is None:  # team_interface always names levels
            raise SystemExit(f"team_interface({max_steps}) named no interface")
        return AgtItfWrapper(ModuleAgent(module), stack)

    env = envs.make("pommerman", mode="team", max_steps=max_steps)
    opponent = make_agent("pommerman_simple")
    return match(env, player(), opponent, games, seed=seed, seats=["agent_0", "agent_1"], teammate=player())


def main() -> None:
    args = _arguments()
    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        config = team_rllib_config(
            args.env_runners,
            opponent=args.opponent,
            max_steps=args.max_steps,
            num_envs_per_env_runner=args.envs_per_runner,
            train_batch_size=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
            num_learners=args.learners,
            num_gpus_per_learner=args.gpus_per_learner,
            seed=args.seed,
        )
        algo = config.build_algo()
        print("iteration  steps  steps_total  episodes  team_0_return  seconds")
        for _ in range(args.iterations):
            start = time.perf_counter()
            result = algo.train()
            runners = result["env_runners"]
            returns = runners.get("module_episode_returns_mean", {})
            steps, total = int(runners.get("num_env_steps_sampled", 0)), int(runners["num_env_steps_sampled_lifetime"])
            print(
                f"{result['training_iteration']:9d}  {steps:5d}  {total:11d}  {int(runners.get('num_episodes', 0)):8d}  "
                f"{float(returns.get('team_0', float('nan'))):13.3f}  {time.perf_counter() - start:7.1f}",
                flush=True,
            )
        module = algo.get_module("team_0")
        start = time.perf_counter()
        score = evaluate(module, args.games, args.max_steps, args.seed)
        print(
            f"team_0 against two pommerman_simple, {score.games} seat-swapped games: "
            f"{score.wins} won, {score.draws} drawn, {score.losses} lost, score {score.score:.2f} "
            f"({time.perf_counter() - start:.0f} s)"
        )
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
