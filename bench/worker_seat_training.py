"""Learner steps per second of a seat run on a worker batch (soccer's, or the ViZDoom duel's) on each path.

``--run soccer`` (``arena train soccer --control seat``): PPO trains one walker (``home_0``) of soccer
with the recipe's env options, interface stack and algorithm options, against ``random`` in the other
seats. ``--run vizdoom_duel``: PPO trains ``player_0`` of the 2-player ViZDoom match on the labels
(the stack of rule levels and PPO options of the radar learners in docs/performance.md, "ViZDoom: learners
on the labels", 20 s matches) against ``vizdoom_aim``, which keeps a clock per game and plays the worker batch as one copy
per game (``Agent.copy_per_game``). ``--games`` games at once, on:

* single path: one ``SingleAgentEnv`` per game in SB3's ``DummyVecEnv``, what ``arena train`` ran
  for these runs before they took the worker batch (no longer reachable from the command line);
* workers 0: ``BatchVecEnv`` over a worker batch stepped in this process, what
  ``arena train soccer --control seat`` runs by default;
* workers 1: the same with the games in one worker process (``--workers 1``).

Each side builds its env and model once, then learns ``--steps`` timesteps per round; rounds
alternate between the sides and the best round of each is kept, so a neighbour's burst of load
hurts every side alike. Learner steps/s is timesteps over the wall time of ``model.learn``
(rollouts and updates; no evaluation games). The ratio is each side over the single path. Beside
it, steps per CPU second of this process (best round): on a loaded box the steadier figure for
the in-process sides; with a worker, the games' CPU time is the worker's and is not counted.

Run (as recorded in docs/performance.md, "Worker batches" and "ViZDoom: learners on the labels")::

    python bench/worker_seat_training.py --steps 2048 --rounds 2
    python bench/worker_seat_training.py --run vizdoom_duel --steps 2048 --rounds 2
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from stable_baselines3 import PPO  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

import envs  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import SingleAgentEnv  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from envs.soccer.recipe import training_recipe  # noqa: E402

_VARIABLES = ["HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT"]
#: Each run: env, seat, opponent, env options, interface stack, PPO options (None: soccer's recipe's).
RUNS: dict[str, tuple[str, str, str, dict[str, Any] | None, str | None, dict[str, Any] | None]] = {
    "soccer": ("soccer", "home_0", "random", None, None, None),
    "vizdoom_duel": (
        "vizdoom_deathmatch",
        "player_0",
        "vizdoom_aim",
        {"screen_format": "grey", "enemies": True, "frame_skip": 4, "time_limit": 20.0, "game_variables": _VARIABLES},
        'doom_target(doom_aim_shaping(doom_variable_bonus(doom_actions(doom_auto_fire(), actions="move"), '
        "index=4, bonus=0.1)), radar=True)",
        {"n_steps": 512, "batch_size": 256, "n_epochs": 4, "learning_rate": 0.0003, "ent_coef": 0.01},
    ),
}


def vec_env(run: str, path: str, games: int, options: dict[str, Any], stack: str, seed: int) -> Any:
    """The learner's ``games`` games of ``run`` on ``path`` (``"single"``, ``"workers 0"``, ``"workers 1"``)."""
    env, seat, opponent = RUNS[run][:3]
    if path == "single":

        def make() -> SingleAgentEnv:
            return SingleAgentEnv(envs.make(env, **options), opponent, [seat], interface=build_interface(stack))

        return make_vec_env(make, n_envs=games, seed=seed)
    workers = int(path.split()[1])
    inner = BatchVecEnv(
        env, games, opponent, [seat], interface=build_interface(stack), env_kwargs=options, num_workers=workers
    )
    venv = VecMonitor(inner)
    venv.seed(seed)
    return venv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2048, help="learner timesteps a round (default 2048)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", type=int, default=2, help="games at once (the recipes' n_envs: 2)")
    parser.add_argument("--run", choices=sorted(RUNS), default="soccer", help="the seat run (default: soccer)")
    args = parser.parse_args()
    recipe = training_recipe()
    env, seat, opponent, options, stack, ppo = RUNS[args.run]
    env_options, interface = options or dict(recipe.env_options), stack or str(recipe.interface)
    algo_options = dict(ppo or recipe.algo_options)
    # a rollout fits a round (tiny smoke runs), as the recipe's 512 steps a game do at 2,048
    algo_options["n_steps"] = min(algo_options["n_steps"], max(8, args.steps // args.games))
    algo_options["batch_size"] = min(algo_options["batch_size"], algo_options["n_steps"] * args.games)
    models, venvs = {}, []
    for path in ("single", "workers 0", "workers 1"):
        venv = vec_env(args.run, path, args.games, env_options, interface, seed=0)
        venvs.append(venv)
        models[path] = PPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0, **algo_options)
    best, best_cpu = dict.fromkeys(models, 0.0), dict.fromkeys(models, 0.0)
    for _ in range(args.rounds):
        for path, model in models.items():
            started, cpu = time.perf_counter(), time.process_time()
            model.learn(args.steps, reset_num_timesteps=False)
            best[path] = max(best[path], args.steps / (time.perf_counter() - started))
            best_cpu[path] = max(best_cpu[path], args.steps / max(time.process_time() - cpu, 1e-9))
    for venv in venvs:
        venv.close()
    print(f"{env} seat {seat} vs {opponent} ({args.games} games, {env_options}, {args.steps} steps a round):")
    for path, rate in best.items():
        print(
            f"  {path:<10} {rate:8,.0f} learner steps/s   x{rate / best['single']:.2f} of the single path   "
            f"{best_cpu[path]:8,.0f} steps per CPU second of this process"
        )


if __name__ == "__main__":
    main()
