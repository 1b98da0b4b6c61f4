"""``arena train ENV --algo maskable-ppo --timesteps N --out DIR``: train one seat with SB3.

Writes the trained-agent folder ``DIR`` (:mod:`arena.training.trained`): ``model.zip``
(the SB3 model with its optimizer state), ``agent.json`` (the manifest: interface stack,
env and options, versions; ``interface_state.json`` keeps stateful interfaces' statistics),
``evaluations.csv`` (one row per evaluation point) and ``learning_curve.png`` (win rate
against the reference agent over timesteps, promotions marked). The folder is an agent:
``--agents DIR`` in ``arena tournament`` and ``arena play``; ``--load DIR`` continues it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

__all__ = ["register", "run", "default_algo_options", "choose_path", "BATCHED_RECIPE"]


def _names(text: str | None) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()] if text else []


# The batched path's MaskablePPO recipe (docs/performance.md, "Training connect four"): 64 games x 32
# steps = 2,048 samples per update, 4 epochs of minibatches of 1,024, two hidden layers of 128 for the
# policy and the value net. bench/train_connect_four.py's batched path defaults to the same.
BATCHED_RECIPE: dict[str, Any] = {
    "n_envs": 64, "n_steps": 32, "batch_size": 1024, "n_epochs": 4, "learning_rate": 3e-4, "ent_coef": 0.01,
    "gamma": 0.99, "net_arch": [128, 128],
}


def default_algo_options(algo: str, timesteps: int, n_envs: int, path: str = "single") -> dict[str, Any]:
    """The algorithm options ``arena train`` uses unless ``--algo-options`` says otherwise.

    On the batched path, MaskablePPO gets :data:`BATCHED_RECIPE` (the minibatch no larger
    than a rollout). Elsewhere PPO and A2C get rollout sizes that give a run of
    ``timesteps`` several updates: SB3's PPO default (2048 steps per env per rollout)
    would spend a short run on one rollout and learn nothing.
    """
    if algo == "maskable-ppo" and path == "batched":
        recipe = BATCHED_RECIPE
        return {"n_steps": recipe["n_steps"], "batch_size": min(recipe["batch_size"], recipe["n_steps"] * n_envs),
                "n_epochs": recipe["n_epochs"], "learning_rate": recipe["learning_rate"],
                "ent_coef": recipe["ent_coef"], "gamma": recipe["gamma"],
                "policy_kwargs": {"net_arch": list(recipe["net_arch"])}}
    if algo in ("ppo", "maskable-ppo"):
        n_steps = max(32, min(2048, timesteps // (8 * n_envs)))
        return {"n_steps": n_steps, "batch_size": min(256, n_steps * n_envs)}
    return {}


def choose_path(requested: str, env: Any, algo: str, opponent: Any, interface: Any) -> str:
    """``"batched"`` or ``"single"``: which training path ``--path`` gives for this run.

    ``opponent`` is one agent or a list of them (every one must act in batches).

    Raises:
        ValueError: ``--path batched`` where the batched path cannot run, saying why.
    """
    reasons = []
    if not callable(getattr(env, "make_batch", None)):
        reasons.append(f"{env} has no batch (make_batch)")
    if algo != "maskable-ppo":
        reasons.append(f"--algo {algo} trains without action masks, which the batch enforces")
    for agent in opponent if isinstance(opponent, (list, tuple)) else [opponent]:
        if not agent.batchable:
            reasons.append(f"the opponent {agent} cannot act for many games at once")
    if interface is not None and interface.stateful:
        reasons.append(f"the interface {interface} keeps per-episode state")
    if requested == "batched" and reasons:
        raise ValueError(f"--path batched cannot train this run: {'; '.join(reasons)}")
    if requested == "single" or reasons:
        return "single"
    return "batched"


def _check_team_options(args: argparse.Namespace, env: Any) -> int | None:
    """The side size a ``--control team`` model controls (``None`` for one seat); checks the team options."""
    if (args.teammate or args.control == "team") and not env.teams:
        raise ValueError(f"--teammate and --control team need a team game; {args.env} has no sides (teams is None)")
    if args.control != "team":
        return None
    if args.teammate:
        raise ValueError("--teammate plays beside a one-seat learner; with --control team the model plays every "
                         "seat of its side")
    sizes = {len(ids) for ids in env.teams.values()}
    if len(sizes) != 1:
        raise ValueError(f"--control team needs sides of one size, {args.env} has sides of sizes {sorted(sizes)}")
    return sizes.pop()


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train", help="train an agent for one seat with Stable-Baselines3 (optionally by self-play)",
        description="Train a Stable-Baselines3 model on one seat of a multi-agent env, the other seats "
                    "played by frozen opponents; save the model, evaluation CSV and learning curve.")
    parser.add_argument("env", help="env name or 'package.module:factory'")
    parser.add_argument("--algo", default="maskable-ppo", help="maskable-ppo (default), ppo, a2c or dqn")
    parser.add_argument("--timesteps", type=int, default=100_000, help="learner steps to train (default 100000)")
    parser.add_argument("--out", default=None,
                        help="the trained-agent folder to write: model.zip, agent.json (the manifest: interface, "
                             "env, versions), evaluations.csv and learning_curve.png; the folder is an agent "
                             "for --agents (default with --load: the loaded folder)")
    parser.add_argument("--load", default=None,
                        help="a folder written by 'arena train' to continue training (model, optimizer state, "
                             "timestep count, interface, env options)")
    parser.add_argument("--force", action="store_true", help="write into an --out folder that is not empty")
    parser.add_argument("--opponent", default="random",
                        help="the starting opponent: agent name or 'module:factory' (default random); several, "
                             "comma separated, make a pool drawn from uniformly every game (a name given twice "
                             "is drawn twice as often; with --self-play the snapshots join them)")
    parser.add_argument("--self-play", choices=("latest", "uniform"), default=None,
                        help="keep a pool of snapshots of the learner as opponents, sampled latest-first or "
                             "uniformly over history (default: no self-play, train against --opponent)")
    parser.add_argument("--promote-at", type=float, default=0.6,
                        help="self-play: snapshot the learner into the pool once its score (wins + draws/2) "
                             "against the pool over the window reaches this (0 = at every evaluation)")
    parser.add_argument("--window", type=int, default=None, help="self-play: games in the promotion window "
                                                                  "(default: --eval-games)")
    parser.add_argument("--pool-size", type=int, default=None, help="self-play: keep at most this many opponents")
    parser.add_argument("--reference", default="random",
                        help="comma-separated fixed agents to evaluate against; the first draws the "
                             "learning curve (default random)")
    parser.add_argument("--interface", default=None,
                        help="the learner's interface stack in arena's interface syntax, e.g. "
                             "'flatten(ego_board(planes=true))' ('arena interfaces' lists names and options)")
    parser.add_argument("--seats", default=None, help="comma-separated seats the learner plays (default: all; "
                                                      "with --control team: team names)")
    parser.add_argument("--teammate", default=None,
                        help="team games: the frozen agent (name or 'module:factory') in the other seats of the "
                             "learner's side; --opponent then plays only the other sides")
    parser.add_argument("--control", choices=("seat", "team"), default="seat",
                        help="seat (default): the model plays one seat; team: one model controls every seat of "
                             "its side (members' observations concatenated, actions split: Combine + "
                             "ConcatenateTeam; --interface applies to each member)")
    parser.add_argument("--no-shuffle", action="store_true",
                        help="take the seats in turn instead of drawing one at random every episode")
    parser.add_argument("--eval-every", type=int, default=None, help="timesteps between evaluations "
                                                                     "(default: timesteps / 20)")
    parser.add_argument("--eval-games", type=int, default=50, help="games per evaluation (default 50)")
    parser.add_argument("--n-envs", type=int, default=None,
                        help="games stepped together (default 64 on the batched path, 4 on the single-env path)")
    parser.add_argument("--path", choices=("auto", "batched", "single"), default="auto",
                        help="batched: every game in one numpy batch (BatchVecEnv), opponents acting for all "
                             "games at once; single: one SingleAgentEnv per game; auto (default): batched when "
                             "the env has a batch, the algorithm is maskable-ppo, the opponents can act in "
                             "batches and the interface keeps no per-episode state")
    parser.add_argument("--seed", type=int, default=0, help="seed for envs, model and evaluation (default 0)")
    parser.add_argument("--env-options", default=None, help="JSON keyword options for the env")
    parser.add_argument("--algo-options", default=None,
                        help='JSON keyword options for the algorithm, e.g. \'{"learning_rate": 0.0003}\'')
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: small policy nets run fastest on one thread, "
                             "and many threads on a busy machine are ten times slower)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.errors import ArenaError
    from arena.registry import make_agent, make_env
    from arena.specs.interfaces import build_interface, parse_interface_spec
    from arena.team import GroupTeams
    from arena.training import OpponentPool, SingleAgentEnv, algorithm_class, side_agent, team_stack
    from arena.training.trained import save_trained_agent, trained_interface
    from arena.training.report import plot_learning_curve
    from arena.specs.options import parse_env_options, parse_json_object
    from arena.specs.split import split_outside_braces

    if args.timesteps < 1:
        raise ValueError(f"--timesteps must be at least 1, got {args.timesteps}")
    if args.n_envs is not None and args.n_envs < 1:
        raise ValueError(f"--n-envs must be at least 1, got {args.n_envs}")
    try:
        algo_class = algorithm_class(args.algo)  # checks the name and that SB3 is installed
    except ImportError as err:
        raise ArenaError(str(err)) from err
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    from arena.training.callbacks import RichProgressCallback, SelfPlayCallback

    if args.threads < 1:
        raise ValueError(f"--threads must be at least 1, got {args.threads}")
    torch.set_num_threads(args.threads)
    env_options = parse_env_options(args.env_options)
    references = _names(args.reference)
    if not references:
        raise ValueError("--reference needs at least one agent name")
    loaded = _loaded_run(args, env_options) if args.load else None
    if loaded is not None:
        env_options = loaded["env_options"]
    probe = make_env(args.env, **env_options)  # fail early, with the registry's message, on a bad name
    interface_spec = loaded["interface"] if loaded is not None else args.interface
    build_interface(interface_spec)  # fail early on a bad spec
    team_size = _check_team_options(args, probe)
    out = _out_folder(args)

    def opponent_agent(name: str) -> Any:
        return make_agent(name) if team_size is None else side_agent(name, team_size)

    def learner_interface() -> Any:
        if team_size is not None:
            return team_stack(interface_spec, team_size)
        if loaded is not None:  # go on from the trained statistics, still updating them
            return trained_interface(args.load, loaded, frozen=False)
        return build_interface(interface_spec)

    def make_eval_env() -> Any:
        env = make_env(args.env, **env_options)
        return env if team_size is None else GroupTeams(env)

    opponent_names = [name.strip() for name in split_outside_braces(args.opponent, ",") if name.strip()]
    if not opponent_names:
        raise ValueError("--opponent needs at least one agent name")
    built = {name: opponent_agent(name) for name in dict.fromkeys(opponent_names)}
    opponents = [built[name] for name in opponent_names]  # a name given twice: one agent, drawn twice as often
    opponent = opponents[0]
    pool = (OpponentPool(opponents, strategy=args.self_play or "uniform",
                         max_size=args.pool_size if args.self_play else None)
            if args.self_play or len(opponents) > 1 else None)
    masked = args.algo == "maskable-ppo"
    path = choose_path(args.path, probe, args.algo, opponents, build_interface(interface_spec))
    n_envs = args.n_envs or (BATCHED_RECIPE["n_envs"] if path == "batched" else 4)
    algo_options = {**default_algo_options(args.algo, args.timesteps, n_envs, path),
                    **parse_json_object(args.algo_options, "--algo-options")}

    def make_single() -> SingleAgentEnv:
        return SingleAgentEnv(make_eval_env(), pool if pool is not None else opponent_agent(opponent_names[0]),
                              _names(args.seats) or None, shuffle_seats=not args.no_shuffle,
                              teammates=args.teammate, interface=learner_interface(),
                              illegal_action="raise" if masked else "forfeit")

    if path == "batched":
        from stable_baselines3.common.vec_env import VecMonitor

        from arena.training.batched import batch_vec_env

        vec_env = VecMonitor(batch_vec_env(args.env, n_envs, pool if pool is not None else opponent,
                                         _names(args.seats) or None, shuffle_seats=not args.no_shuffle,
                                         interface=learner_interface(), env_kwargs=env_options))
        vec_env.seed(args.seed)
    else:
        vec_env = make_vec_env(make_single, n_envs=n_envs, seed=args.seed)
    from gymnasium import spaces

    from stable_baselines3.common.preprocessing import is_image_space

    if isinstance(vec_env.observation_space, spaces.Dict):
        policy = "MultiInputPolicy"  # SB3 puts a CNN on each image entry
    else:
        policy = "CnnPolicy" if is_image_space(vec_env.observation_space) else "MlpPolicy"
    if loaded is not None:
        model = algo_class.load(str(Path(args.load) / loaded["model"]), env=vec_env, device=args.device)
    else:
        model = algo_class(policy, vec_env, seed=args.seed, device=args.device, verbose=0, **algo_options)
    callbacks: list[Any] = []
    progress = None
    if not args.no_progress:
        progress = RichProgressCallback(args.timesteps, description=f"train {args.env}")
        callbacks.append(progress)

    def show(record: dict[str, Any]) -> None:
        if progress is not None:
            pool_text = f"  pool {record['pool_size']}" if "pool_size" in record else ""
            progress.set_status(f"vs {references[0]} {record[f'{references[0]}_win_rate']:.0%}{pool_text}")

    self_play = SelfPlayCallback(
        make_eval_env(), pool, {name: opponent_agent(name) for name in references}, teammate=args.teammate,
        eval_every=args.eval_every or max(1, args.timesteps // 20), eval_games=args.eval_games,
        promote_at=args.promote_at if args.self_play else None, window=args.window,
        seed=args.seed, csv_path=out / "evaluations.csv", on_evaluation=show)
    callbacks.append(self_play)
    model.learn(args.timesteps, callback=callbacks, reset_num_timesteps=loaded is None)

    model_path = out / "model.zip"
    trained_stacks = vec_env.get_attr("interface")  # one per env: their statistics are pooled
    save_trained_agent(out, model, algo=args.algo, env=args.env, env_options=env_options,
                       interface=None if interface_spec is None else str(parse_interface_spec(interface_spec)),
                       trained_stack=trained_stacks if team_size is None else None, seats=_names(args.seats) or None,
                       team_size=team_size)
    plot_learning_curve(self_play.records, out / "learning_curve.png", references=references[:1],
                        title=f"{args.algo} on {args.env}" + (f", self-play ({args.self_play})" if args.self_play else ""))
    last = self_play.records[-1]
    print(f"trained {args.algo} on {args.env}{'' if team_size is None else ' (a whole side)'} for "
          f"{model.num_timesteps} timesteps in {last['wall_s']:.1f} s ({path} path, {n_envs} games)")
    for name in references:
        print(f"  vs {name}: win rate {last[f'{name}_win_rate']:.0%}, draws {last[f'{name}_draw_rate']:.0%}")
    if pool is not None:
        kind = "self-play pool" if args.self_play else "opponent pool"
        print(f"  {kind}: {len(pool)} members, {len(self_play.promotions)} promotions")
    print(f"saved {model_path}, {out / 'evaluations.csv'}, {out / 'learning_curve.png'}, {out / 'agent.json'}")
    print(f"the folder is an agent: arena tournament {args.env} --agents {out},random")
    return 0


def _loaded_run(args: argparse.Namespace, env_options: dict[str, Any]) -> dict[str, Any]:
    """The manifest of ``--load``, checked against the command line (same env, algo, interface)."""
    from arena.specs.interfaces import parse_interface_spec
    from arena.training.trained import read_manifest

    manifest = read_manifest(args.load)
    problems = []
    if manifest["env"] != args.env:
        problems.append(f"env {manifest['env']!r} (got {args.env!r})")
    if manifest["algo"] != args.algo:
        problems.append(f"--algo {manifest['algo']!r} (got {args.algo!r})")
    if env_options and env_options != manifest.get("env_options"):
        problems.append(f"--env-options {json.dumps(manifest.get('env_options'))} (got {json.dumps(env_options)})")
    if args.interface is not None and (manifest["interface"] is None or parse_interface_spec(args.interface)
                                       != parse_interface_spec(manifest["interface"])):
        problems.append(f"--interface {manifest['interface']!r} (got {args.interface!r})")
    if problems:
        raise ValueError(f"--load {args.load}: the run was trained with " + "; ".join(problems)
                         + "; leave them out or give the same")
    return {**manifest, "env_options": dict(manifest.get("env_options") or {})}


def _out_folder(args: argparse.Namespace) -> Path:
    """The output folder; an existing non-empty one only with --force, or as the --load folder itself."""
    if args.out is None and args.load is None:
        raise ValueError("--out is required (the folder to write the trained agent into)")
    out = Path(args.out if args.out is not None else args.load)
    continuing = args.load is not None and out.resolve() == Path(args.load).resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not (args.force or continuing):
        raise ValueError(f"--out {out} exists and is not empty; pass --force to write into it, "
                         f"or --load {out} to continue training that agent")
    out.mkdir(parents=True, exist_ok=True)
    return out
