"""``arena train ENV --timesteps N --out DIR``: train one seat (or side) with Stable-Baselines3.

This module only parses: the flags become one :class:`arena.training.config.TrainingConfig`,
and :func:`arena.training.run.train` runs it. A flag left out means "what the env's recipe
says" (:mod:`arena.training.recipe`; with ``--load``, what the loaded run trained with).

Writes the trained-agent folder ``DIR`` (:mod:`arena.training.trained`): the policy's weights
and the optimizer's state as safetensors files, ``agent.json`` (the manifest: policy class and
arguments, interface stack, env and options, versions; ``interface_state-*.json`` keeps stateful
interfaces' statistics; ``--sb3-zip`` adds SB3's own ``model.zip``),
``recipe.json`` (what the run trained with), the self-play pool (``pool.json``, ``pool/``),
``evaluations.csv`` (one row per evaluation point, each with its games and the 95% interval of the
win rate) and ``learning_curve.png``. The folder is an agent: ``--agents DIR`` in ``arena tournament``
and ``arena play``; ``--load DIR`` continues it. It is saved at every evaluation (``--checkpoint-every``)
and at a Ctrl-C, which stops training at the next step, saves, prints the command that goes on and
exits 130.
"""

from __future__ import annotations

import argparse
from typing import Any

from arena.cli._arguments import env_arguments, progress_arguments

__all__ = ["config_from_args", "register", "run"]


def _names(text: str | None) -> tuple[str, ...] | None:
    """Comma-separated agent specs (commas inside ``{...}`` options kept), or ``None`` when not given."""
    if text is None:
        return None
    from arena.specs.split import split_outside_braces

    return tuple(part.strip() for part in split_outside_braces(text, ",") if part.strip())


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train an agent for one seat with Stable-Baselines3 (optionally by self-play)",
        description="Train a Stable-Baselines3 model on one seat of a multi-agent env, the other seats "
        "played by frozen opponents; save the model, evaluation CSV and learning curve. Every env "
        "declares a training recipe (interface, algorithm, opponents, evaluation budget): the flags "
        "left out come from it, and those given override it.",
    )
    env_arguments(parser)
    parser.add_argument("--algo", default=None, help="maskable-ppo, ppo, a2c or dqn (default: the recipe's)")
    parser.add_argument("--timesteps", type=int, default=100_000, help="learner steps to train (default 100000)")
    parser.add_argument(
        "--out",
        default=None,
        help="the trained-agent folder to write: the weights (safetensors), agent.json (the manifest: interface, "
        "env, versions), recipe.json, evaluations.csv and learning_curve.png; the folder is an "
        "agent for --agents (default with --load: the loaded folder)",
    )
    parser.add_argument(
        "--load",
        default=None,
        help="a folder written by 'arena train' (or saved at a Ctrl-C) to continue training (model, "
        "optimizer state, timestep count, interface, env options, its recipe and self-play pool); "
        "evaluations.csv and the learning curve go on from its records. The run saves into the same folder, "
        "each file replaced whole, unless --out names another (the loaded folder is then left as it is)",
    )
    parser.add_argument("--force", action="store_true", help="write into an --out folder that is not empty")
    parser.add_argument(
        "--sb3-zip",
        action="store_true",
        help="also write Stable-Baselines3's own model.zip (for other tools; arena loads the folder without it)",
    )
    _add_opponent_options(parser)
    _add_learner_options(parser)
    _add_run_options(parser)
    parser.set_defaults(run=run)


def _add_opponent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--opponent",
        default=None,
        help="the starting opponent: agent name or 'module:factory' (default: the recipe's); "
        "several, comma separated, make a pool drawn from uniformly every game (a name given "
        "twice is drawn twice as often; with --self-play the snapshots join them)",
    )
    parser.add_argument(
        "--self-play",
        choices=("latest", "uniform", "off"),
        default=None,
        help="keep a pool of snapshots of the learner as opponents, sampled latest-first or "
        "uniformly over history; off: none (default: the recipe's)",
    )
    parser.add_argument(
        "--promote-at",
        type=float,
        default=None,
        help="self-play: snapshot the learner into the pool once its score (wins + draws/2) "
        "against the pool over the window reaches this (0 = at every evaluation; default 0.6)",
    )
    parser.add_argument(
        "--window", type=int, default=None, help="self-play: games in the promotion window (default: --eval-games)"
    )
    parser.add_argument("--pool-size", type=int, default=None, help="self-play: keep at most this many opponents")
    parser.add_argument(
        "--team-spirit",
        type=float,
        default=None,
        help="side path: the share of each member's reward that is its side's mean, 0 to 1 (default: the recipe's)",
    )
    parser.add_argument(
        "--reference",
        default=None,
        help="comma-separated fixed agents to evaluate against; the first draws the "
        "learning curve (default: the recipe's)",
    )


def _add_learner_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--interface",
        default=None,
        help="the learner's interface stack in arena's interface syntax, e.g. "
        "'flatten(ego_board(planes=true))' ('arena interfaces' lists names and options); "
        "'none': the raw observations (default: the recipe's)",
    )
    parser.add_argument(
        "--policy",
        default=None,
        help="the SB3 policy (default: MlpPolicy, CnnPolicy for images, MultiInputPolicy for dicts)",
    )
    parser.add_argument(
        "--seats",
        default=None,
        help="comma-separated seats the learner plays (default: all; with --control team: team names)",
    )
    parser.add_argument(
        "--teammate",
        default=None,
        help="team games: the frozen agent (name or 'module:factory') in the other seats of the "
        "learner's side; --opponent then plays only the other sides",
    )
    parser.add_argument(
        "--control",
        choices=("seat", "team"),
        default=None,
        help="seat: the model plays one seat; team: one model controls every seat of "
        "its side (members' observations concatenated, actions split: Combine + "
        "ConcatenateTeam; --interface applies to each member) (default: the recipe's)",
    )
    parser.add_argument(
        "--no-shuffle",
        action="store_true",
        help="take the seats in turn instead of drawing one at random every episode",
    )


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help="timesteps between evaluations (default: the loaded run's if it fixed one, else the recipe's, "
        "timesteps / 20 for most)",
    )
    parser.add_argument(
        "--eval-games",
        type=int,
        default=None,
        help="games per evaluation (default: the loaded run's if it fixed them, else the recipe's, scaled to "
        "the run: fewer for short runs)",
    )
    parser.add_argument(
        "--n-envs",
        type=int,
        default=None,
        help="games stepped together (default 64 on the batched and env paths, 4 on the single-env path)",
    )
    parser.add_argument(
        "--path",
        choices=("auto", "batched", "single", "side", "env"),
        default=None,
        help="batched: every game in one numpy batch (BatchVecEnv), opponents acting for all "
        "games at once; single: one SingleAgentEnv per game; side: parameter sharing, every member of "
        "the learner's side a sub-env (SideVecEnv, envs with two sides); env: the env's own vectorised "
        "env, which its recipe names (Pommerman's team mode); auto (default): env where the recipe names "
        "one, else batched when the env has a batch, the algorithm is maskable-ppo, the opponents can act "
        "in batches and the interface keeps no per-episode state",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=None,
        help="timesteps between saves of the folder while training, so that a crash or kill leaves a "
        "folder to --load (default: at every evaluation; 0: only at the end). Ctrl-C always saves: training "
        "stops at the next step, the folder is written and the command to continue is printed (exit 130)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for envs, model and evaluation (default 0)")
    parser.add_argument(
        "--algo-options",
        default=None,
        help="JSON keyword options for the algorithm, e.g. '{\"learning_rate\": 0.0003}'; with --load "
        "they change the loaded model from here on (all but policy_kwargs: the network is the loaded one)",
    )
    parser.add_argument("--device", default="cpu", help="torch device (default cpu)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1: small policy nets run fastest on one thread, "
        "and many threads on a busy machine are ten times slower)",
    )
    progress_arguments(
        parser,
        ("auto", "bar", "lines", "none"),
        "auto (default): a progress bar on a terminal, a plain line every --progress-every "
        "seconds otherwise (steps, rate, eta, last evaluation); none: no progress output",
    )
    parser.add_argument(
        "--progress-every", type=float, default=30.0, help="seconds between progress lines (default 30)"
    )


def config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~arena.training.config.TrainingConfig` the parsed flags describe.

    Raises:
        ValueError, TypeError: a flag's value is out of range or not the JSON it should be.
    """
    from arena.specs.options import parse_env_options, parse_json_object
    from arena.training.config import TrainingConfig

    return TrainingConfig(
        env=args.env,
        timesteps=args.timesteps,
        out=args.out,
        load=args.load,
        force=args.force,
        sb3_zip=args.sb3_zip,
        seed=args.seed,
        device=args.device,
        threads=args.threads,
        progress=args.progress,
        progress_every=args.progress_every,
        env_options=parse_env_options(args.env_options) if args.env_options is not None else None,
        seats=_names(args.seats),
        shuffle_seats=not args.no_shuffle,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        algo_options=parse_json_object(args.algo_options, "--algo-options"),
        interface=args.interface,
        algo=args.algo,
        policy=args.policy,
        opponents=_names(args.opponent),
        references=_names(args.reference),
        teammate=args.teammate,
        control=args.control,
        self_play=args.self_play,
        promote_at=args.promote_at,
        pool_size=args.pool_size,
        team_spirit=args.team_spirit,
        window=args.window,
        n_envs=args.n_envs,
        path=args.path,
        checkpoint_every=args.checkpoint_every,
    )


def run(args: argparse.Namespace) -> int:
    from arena.errors import ArenaError

    config = config_from_args(args)
    try:
        from arena.training.run import train
    except ImportError as err:  # SB3 or torch missing: the message names the extra
        raise ArenaError(str(err)) from err
    trained = train(config)
    for line in trained.summary():
        print(line)
    return 130 if trained.interrupted else 0  # 128 + SIGINT, as for any program stopped by Ctrl-C
