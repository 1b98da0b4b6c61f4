"""Where a recipe's batched training spends its time: the env and opponents, the interfaces, the network.

Builds what ``arena train ENV`` builds for a recipe on the batched path, or on a worker batch in this
process for a game without a batch (soccer; ``vizdoom_ppo``, whose opponent keeps a clock per game and so
plays as one copy per game): the recipe's stack, algorithm options, policy, opponents and
games (:class:`~arena.training.batched.BatchVecEnv` under SB3's ``VecMonitor``). It learns one rollout
to warm up (numba's cache loads, torch's first calls), then learns ``--timesteps`` learner steps twice:
once bare, timed (wall and CPU seconds, learner steps/s), once under :mod:`cProfile`, whose per-function own time is split into four parts:

* **env + opponents**: the game's batch and everything it calls (``envs/``, the opponents' batched
  moves, ``arena/batch.py``, ``arena/worker_batch.py``, the opponents' slots and pool in
  ``arena/training``), except the networks' modules (``envs/*/policy.py``);
* **interfaces**: the learner's stack on the batch (``interfaces/``, ``arena/batched_stack.py``,
  ``arena/interface.py`` and the other stack modules, ``LearnerSlots``);
* **network**: torch (forward, backward, optimiser), Stable-Baselines3 and sb3-contrib (the policy,
  the rollout buffer, the update), and the recipe's feature extractor (``envs/*/policy.py``);
* **rest**: arena's trainer between them (``BatchVecEnv``, the seat bookkeeping), SB3's vectorised-env
  wrappers, and what none of the others claims.

Functions that belong to no part (C builtins, numpy, gymnasium's spaces, the standard library) are
charged to their callers, in proportion to the time each caller spent in them, up the call graph until
a part claims it; numba-compiled functions run inside the Python function that calls them, so their time
is that function's own. cProfile slows Python-heavy code more than compiled code (the profiled total is
printed beside the bare one), so the shares are a profile's, not a stopwatch's; ``--clock wall`` profiles
wall time instead of CPU time (CPU time is the default: it does not count time lost to other processes).
No evaluation runs and no self-play snapshot joins (those happen between rollouts in ``arena train``).

``vizdoom_ppo`` is PPO on the shipped ViZDoom learner's stack and options (its folder's ``recipe.json``, what
``arena train --load`` of a copy runs: the 2-player match against ``vizdoom_aim``, the labels, the radar and
the episode's clock through its stack of rule levels, an MLP) in place of the env's pixel recipe; its engines
are other processes, so profile it with ``--clock wall``: the time the learner waits on them is the env's.

Run::

    python bench/training_split.py --recipes pommerman pommerman_team --timesteps 32768
    python bench/training_split.py --recipes vizdoom_ppo --timesteps 8192 --clock wall
"""

from __future__ import annotations

import argparse
import cProfile
import dataclasses
import inspect
import json
import os
import pstats
import time
from collections.abc import Mapping
from typing import Any

import sb3_contrib  # noqa: E402
import stable_baselines3  # noqa: E402
import torch  # noqa: E402
from stable_baselines3.common.vec_env import VecMonitor  # noqa: E402

import arena  # noqa: E402
import envs  # noqa: E402
import interfaces  # noqa: E402
from arena.registry import load_callable, make_agent, make_env  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.batch_slots import BatchedPlayer, LearnerSlots  # noqa: E402
from arena.training.policy_agent import algorithm_class  # noqa: E402
from arena.training.pool import DrawnPlayers, OpponentPool  # noqa: E402
from arena.training.recipe import default_algo_options, recipe_for  # noqa: E402
from arena.training.run import choose_policy  # noqa: E402
from arena.training.vectorised import batch_vec_env, path_reasons  # noqa: E402

#: The named recipes: env and env options (the recipe's own ``env_options`` come under these).
RECIPES: dict[str, tuple[str, dict[str, Any]]] = {
    "pommerman": ("pommerman", {}),
    "pommerman_team": ("pommerman", {"mode": "team"}),
    "pommerman_radio": ("pommerman", {"mode": "radio"}),
    "pong_2p": ("pong_2p", {}),
    "soccer": ("soccer", {}),  # the workers path: single MuJoCo games in this process (--workers 0)
    "vizdoom_ppo": (
        "vizdoom_deathmatch",
        {
            "players": 2,
            "bots": 0,
            "enemies": True,
            "game_variables": ["HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT"],
        },
    ),
}
#: What a named run changes in its env's recipe: the shipped ViZDoom learner's stack, opponent and PPO options.
RECIPE_CHANGES: dict[str, dict[str, Any]] = {
    "vizdoom_ppo": {
        "interface": "episode_clock(doom_target(doom_aim_shaping(doom_variable_bonus(doom_actions(doom_auto_fire(), "
        'actions="all_moves"), index=4, bonus=0.1)), radar=True), period=48)',
        "algo": "ppo",
        "policy": None,
        "opponents": ("vizdoom_aim",),
        "algo_options": {"n_steps": 512, "batch_size": 256, "n_epochs": 4, "learning_rate": 0.0003, "ent_coef": 0.01},
    },
}
PARTS = ("env + opponents", "interfaces", "network", "rest")


def _folder(module: Any) -> str:
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


# folders of the packages, found where Python imported them from (a venv's path may hold "envs" too)
_ARENA, _ENVS, _INTERFACES = _folder(arena), _folder(envs), _folder(interfaces)
_NETWORK = tuple(_folder(module) for module in (torch, stable_baselines3, sb3_contrib))
_VEC_ENV = os.path.join(_folder(stable_baselines3), "common", "vec_env") + os.sep
_STACK = tuple(
    os.path.join(_ARENA, name)
    for name in ("batched_stack.py", "interface.py", "stack.py", "masks.py", "agent_wrapper.py")
)
_GAMES = (*(os.path.join(_ARENA, name) for name in ("batch.py", "worker_batch.py", "worker_games.py")), _ENVS)
#: Classes whose methods belong to a part other than their module's.
_CLASSES: tuple[tuple[type, str], ...] = (
    (LearnerSlots, "interfaces"),
    (BatchedPlayer, "env + opponents"),
    (OpponentPool, "env + opponents"),
    (DrawnPlayers, "env + opponents"),
)


def _class_lines() -> list[tuple[str, int, int, str]]:
    """(file, first line, last line, part) of each class in :data:`_CLASSES`."""
    spans = []
    for cls, part in _CLASSES:
        lines, first = inspect.getsourcelines(cls)
        spans.append((os.path.abspath(inspect.getfile(cls)), first, first + len(lines) - 1, part))
    return spans


def part_of(filename: str, line: int, spans: list[tuple[str, int, int, str]]) -> str | None:
    """The part a function's own time goes to, by its file (and class), or None: charged to its callers."""
    if filename.startswith(("<", "~")):  # builtins, and code compiled from strings
        return None
    path = os.path.abspath(filename)
    for file, first, last, part in spans:
        if path == file and first <= line <= last:
            return part
    if path.startswith(_ENVS) and os.path.basename(path) == "policy.py":  # a recipe's feature extractor
        return "network"
    if path.startswith(_VEC_ENV):
        return "rest"
    if path.startswith(_NETWORK):
        return "network"
    if path.startswith(_INTERFACES) or path in _STACK:
        return "interfaces"
    if path.startswith(_GAMES) or path.startswith(os.path.join(_ARENA, "agents") + os.sep):
        return "env + opponents"
    if path.startswith(_ARENA):
        return "rest"
    return None


def split(stats: pstats.Stats, top: int = 0) -> dict[str, float]:
    """Seconds of own time per part, functions of no part charged up the call graph to their callers (and
    the ``top`` functions of most own time printed, with their parts)."""
    table: Mapping[Any, Any] = stats.stats  # type: ignore[attr-defined]
    spans = _class_lines()
    shares: dict[Any, dict[str, float]] = {}

    def share(func: Any, seen: frozenset[Any]) -> dict[str, float]:
        if func in shares:
            return shares[func]
        filename, line, _name = func
        part = part_of(filename, line, spans)
        if part is not None:
            result = {part: 1.0}
        else:
            callers = {caller: times for caller, times in table[func][4].items() if caller not in seen}
            weights = {caller: times[2] for caller, times in callers.items()}  # time spent in func from each caller
            total = sum(weights.values())
            if not callers or total <= 0:
                result = {"rest": 1.0}
            else:
                result = dict.fromkeys(PARTS, 0.0)
                for caller, weight in weights.items():
                    for name, fraction in share(caller, seen | {func}).items():
                        result[name] += fraction * weight / total
        shares[func] = result  # a cycle cut on the way stays cut: a small error, in recursion only
        return result

    seconds = dict.fromkeys(PARTS, 0.0)
    for func, (_cc, _nc, own, _cumulative, _callers) in table.items():
        for name, fraction in share(func, frozenset()).items():
            seconds[name] += own * fraction
    if top:
        print(f"  the {top} functions of most own time, and the parts they are charged to:")
        for func in sorted(table, key=lambda func: -table[func][2])[:top]:
            parts = ", ".join(f"{name} {fraction:.0%}" for name, fraction in shares[func].items() if fraction >= 0.005)
            where = pstats.func_std_string(func)  # type: ignore[attr-defined]  # in pstats, not in typeshed
            print(f"    {table[func][2]:7.2f} s  {where[-90:]}  ->  {parts}")
    return seconds


def build(name: str, n_envs: int | None, timesteps: int) -> tuple[Any, str]:
    """The model ``arena train`` would build for the named recipe on the batched path (or, for a game without a
    batch, the worker batch in this process), and a description."""
    env_name, options = RECIPES[name]
    recipe = dataclasses.replace(recipe_for(env_name, options), **RECIPE_CHANGES.get(name, {}))
    env_options = {**recipe.env_options, **options}
    built = {agent: make_agent(agent) for agent in dict.fromkeys(recipe.opponents)}
    opponents = [built[agent] for agent in recipe.opponents]
    interface = build_interface(recipe.interface)
    path, reasons = path_reasons(
        make_env(env_name, **env_options), recipe.algo, opponents, interface, control=recipe.control
    )
    if path == "single":
        raise SystemExit(f"{name}: the recipe trains on the {path} path, not the batched one: {'; '.join(reasons)}")
    opponent: Any = opponents[0]
    if recipe.self_play or len(opponents) > 1:
        opponent = OpponentPool(opponents, strategy=recipe.self_play or "uniform", max_size=recipe.pool_size)
    games = n_envs or recipe.n_envs or 64
    team: dict[str, Any] = {"team": True, "team_spirit": recipe.team_spirit} if recipe.control == "shared" else {}
    if path == "workers":  # as arena train's default --workers 0: the worker batch in this process
        team["num_workers"] = 0
        if recipe.control == "shared":
            team["member_done"] = True
    venv = VecMonitor(
        batch_vec_env(env_name, games, opponent, None, interface=interface, env_kwargs=env_options, **team)
    )
    venv.seed(0)
    algo = {**default_algo_options(recipe.algo, timesteps, games, "batched"), **recipe.algo_options}
    kwargs = dict(algo.get("policy_kwargs") or {})
    if isinstance(kwargs.get("features_extractor_class"), str):
        kwargs["features_extractor_class"] = load_callable(kwargs["features_extractor_class"])
    algo["policy_kwargs"] = kwargs
    policy = choose_policy(venv.observation_space, venv.action_space, recipe.policy)
    model = algorithm_class(recipe.algo)(policy, venv, seed=0, device="cpu", verbose=0, **algo)
    seats = venv.num_envs // games
    text = f"{name}: {env_name} {json.dumps(options)}, {games} games x {seats} learner seat{'s' * (seats > 1)}"
    return model, f"{text}, {' vs '.join(dict.fromkeys(recipe.opponents))}, {recipe.algo} {policy}"


def measure(name: str, timesteps: int, n_envs: int | None, clock: str, top: int = 0) -> None:
    """Print the named recipe's split of ``timesteps`` learner steps."""
    model, description = build(name, n_envs, timesteps)
    model.learn(model.n_steps * model.env.num_envs)  # warm-up: caches, first calls
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(timesteps, reset_num_timesteps=False)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    profile = cProfile.Profile(time.process_time if clock == "cpu" else time.perf_counter)
    profile.runcall(model.learn, timesteps, reset_num_timesteps=False)
    print(description)
    seconds = split(pstats.Stats(profile), top)
    total = sum(seconds.values())
    print(
        f"  bare: {timesteps} learner steps in {wall:.1f} s wall, {cpu:.1f} s CPU ({timesteps / wall:.0f} steps/s, "
        f"{timesteps / cpu:.0f} per CPU-second)"
    )
    print(f"  profiled ({clock} clock): {total:.1f} s ({total / (cpu if clock == 'cpu' else wall):.2f}x the bare run)")
    print(f"  {'part':<18}{'seconds':>9}{'share':>8}")
    for part in PARTS:
        print(f"  {part:<18}{seconds[part]:>9.2f}{seconds[part] / total:>8.1%}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recipes", nargs="+", choices=sorted(RECIPES), default=["pommerman", "pommerman_team"])
    parser.add_argument("--timesteps", type=int, default=32_768, help="learner steps timed (after a warm-up rollout)")
    parser.add_argument("--n-envs", type=int, default=None, help="games (default: the recipe's)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="the profile's clock")
    parser.add_argument("--top", type=int, default=0, help="also list this many functions of most own time")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (arena train --threads)")
    args = parser.parse_args()
    if args.timesteps < 1:
        parser.error(f"--timesteps must be a positive number of learner steps, got {args.timesteps}")
    torch.set_num_threads(args.threads)
    print(f"torch threads {args.threads}; parts: {', '.join(PARTS)} (see the module docstring)\n")
    for name in args.recipes:
        measure(name, args.timesteps, args.n_envs, args.clock, args.top)


if __name__ == "__main__":
    main()
