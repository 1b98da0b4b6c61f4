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
import dataclasses
from collections.abc import Callable
from typing import Any

from arena.cli._arguments import env_arguments, removed_flag
from arena.training.config import PROGRESS_MODES, SELF_PLAY_OFF, TrainingConfig
from arena.training.recipe import CONTROLS, SELF_PLAY

__all__ = ["FLAGS", "Flag", "config_from_args", "register", "run"]


def _names(text: str | None) -> tuple[str, ...] | None:
    """Comma-separated agent specs (commas inside ``{...}`` options kept), or ``None`` when not given."""
    if text is None:
        return None
    from arena.specs.split import split_outside_braces

    return tuple(part.strip() for part in split_outside_braces(text, ",") if part.strip())


def _env_options(text: str | None) -> Any:
    from arena.specs.options import parse_env_options

    return parse_env_options(text) if text is not None else None


def _algo_options(text: str | None) -> Any:
    from arena.specs.options import parse_json_object

    return parse_json_object(text, "--algo-options")


@dataclasses.dataclass(frozen=True)
class Flag:
    """The command-line flag of one :class:`~arena.training.config.TrainingConfig` field, or of one
    recipe field it overrides (:data:`~arena.training.config.OVERRIDABLE`).

    The flag's default is the config field's (``None`` for a recipe field: the recipe's);
    ``%(default)s`` in ``help`` shows it.

    Attributes:
        help: the ``--help`` text; ``None`` for ``env`` and ``env_options``, which
            :func:`~arena.cli._arguments.env_arguments` adds as every command does.
        group: the ``--help`` section (``None``: the first, unnamed one).
        option: the flag when it is not ``--field-name`` (``--opponent`` fills ``opponents``).
        type: argparse's ``type`` (text to a value).
        choices: the values argparse accepts.
        action: argparse's ``action`` (``store_true``, ``store_false``).
        read: the flag's value to the field's (a list split, JSON parsed).
    """

    help: str | None
    group: str | None = None
    option: str | None = None
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    action: str | None = None
    read: Callable[[Any], Any] | None = None


_OPPONENTS, _LEARNER, _RUN = "opponents and self-play", "the learner", "the run"

#: Recipe fields with no flag: the evaluation budget at full length is the recipe's to say (``--eval-every``/``--eval-games`` fix a run's schedule instead: ``fixed_eval_*``).
RECIPE_FIELDS_WITHOUT_FLAGS = ("evaluations", "eval_games", "full_budget")

#: Every TrainingConfig field's flag and every overridable recipe field's (but
#: :data:`RECIPE_FIELDS_WITHOUT_FLAGS`), in ``--help`` order: the one place a new field gets its flag.
FLAGS: dict[str, Flag] = {
    "env": Flag(None),
    "env_options": Flag(None, read=_env_options),
    "algo": Flag("maskable-ppo, ppo, a2c or dqn (default: the recipe's)"),
    "timesteps": Flag("learner steps to train (default %(default)s)", type=int),
    "out": Flag(
        "the trained-agent folder to write: the weights (safetensors), agent.json (the manifest: interface, "
        "env, versions), recipe.json, evaluations.csv and learning_curve.png; the folder is an "
        "agent for --agents (default with --load: the loaded folder)"
    ),
    "load": Flag(
        "a folder written by 'arena train' (or saved at a Ctrl-C) to continue training (model, "
        "optimizer state, timestep count, interface, env options, its recipe and self-play pool); "
        "evaluations.csv and the learning curve go on from its records. The run saves into the same folder, "
        "each file replaced whole, unless --out names another (the loaded folder is then left as it is)"
    ),
    "force": Flag("write into an --out folder that is not empty", action="store_true"),
    "sb3_zip": Flag(
        "also write Stable-Baselines3's own model.zip (for other tools; arena loads the folder without it)",
        action="store_true",
    ),
    "opponents": Flag(
        "the starting opponent: agent name or 'module:factory' (default: the recipe's); "
        "several, comma separated, make a pool drawn from uniformly every game (a name given "
        "twice is drawn twice as often; with --self-play the snapshots join them)",
        _OPPONENTS,
        option="--opponent",
        read=_names,
    ),
    "self_play": Flag(
        "keep a pool of snapshots of the learner as opponents, sampled latest-first or "
        "uniformly over history; off: none (default: the recipe's)",
        _OPPONENTS,
        choices=(*SELF_PLAY, SELF_PLAY_OFF),
    ),
    "promote_at": Flag(
        "self-play: snapshot the learner into the pool once its score (wins + draws/2) "
        "against the pool over the window reaches this (0 = at every evaluation; default 0.6)",
        _OPPONENTS,
        type=float,
    ),
    "window": Flag("self-play: games in the promotion window (default: --eval-games)", _OPPONENTS, type=int),
    "pool_size": Flag("self-play: keep at most this many opponents", _OPPONENTS, type=int),
    "team_spirit": Flag(
        "--control shared: the share of each member's reward that is its side's mean, 0 to 1 (default: the recipe's)",
        _OPPONENTS,
        type=float,
    ),
    "references": Flag(
        "comma-separated fixed agents to evaluate against; the first draws the learning curve (default: the recipe's)",
        _OPPONENTS,
        option="--reference",
        read=_names,
    ),
    "interface": Flag(
        "the learner's interface stack in arena's interface syntax, e.g. "
        "'flatten(ego_board(planes=true))' ('arena interfaces' lists names and options); "
        "'none': the raw observations (default: the recipe's)",
        _LEARNER,
    ),
    "policy": Flag("the SB3 policy (default: MlpPolicy, CnnPolicy for images, MultiInputPolicy for dicts)", _LEARNER),
    "seats": Flag(
        "comma-separated seats the learner plays (default: all; with --control team: team names)",
        _LEARNER,
        read=_names,
    ),
    "teammate": Flag(
        "team games: the frozen agent (name or 'module:factory') in the other seats of the "
        "learner's side; --opponent then plays only the other sides",
        _LEARNER,
    ),
    "control": Flag(
        "seat: the model plays one seat; team: one model controls every seat of "
        "its side (members' observations concatenated, actions split: Combine + "
        "ConcatenateTeam; --interface applies to each member); shared: one policy plays every seat of its "
        "side, each seat on its own observation (parameter sharing) (default: the recipe's)",
        _LEARNER,
        choices=CONTROLS,
    ),
    "shuffle_seats": Flag(
        "take the seats in turn instead of drawing one at random every episode",
        _LEARNER,
        option="--no-shuffle",
        action="store_false",
    ),
    "fixed_eval_every": Flag(
        "timesteps between evaluations (default: the loaded run's if it fixed one, else the recipe's, "
        "timesteps / 20 for most)",
        _RUN,
        option="--eval-every",
        type=int,
    ),
    "fixed_eval_games": Flag(
        "games per evaluation (default: the loaded run's if it fixed them, else the recipe's, scaled to "
        "the run: fewer for short runs)",
        _RUN,
        option="--eval-games",
        type=int,
    ),
    "n_envs": Flag(
        "games stepped together (default 64 where the env's batch steps them, 4 where each game is its own env)",
        _RUN,
        type=int,
    ),
    "checkpoint_every": Flag(
        "timesteps between saves of the folder while training, so that a crash or kill leaves a "
        "folder to --load (default: at every evaluation; 0: only at the end). Ctrl-C always saves: training "
        "stops at the next step, the folder is written and the command to continue is printed (exit 130)",
        _RUN,
        type=int,
    ),
    "seed": Flag("seed for envs, model and evaluation (default %(default)s)", _RUN, type=int),
    "algo_options": Flag(
        "JSON keyword options for the algorithm, e.g. '{\"learning_rate\": 0.0003}'; with --load "
        "they change the loaded model from here on (all but policy_kwargs: the network is the loaded one)",
        _RUN,
        read=_algo_options,
    ),
    "device": Flag("torch device (default %(default)s)", _RUN),
    "threads": Flag(
        "torch CPU threads (default %(default)s: small policy nets run fastest on one thread, "
        "and many threads on a busy machine are ten times slower)",
        _RUN,
        type=int,
    ),
    "workers": Flag(
        "processes that step the games where the run plays them as a worker batch of single envs "
        "(an env without a compiled batch whose agents all act at once: soccer, ViZDoom, MAgent2); 0 (default): "
        "in this process. Results are the same for any number; more help where a game step is slow and "
        "cores are free",
        _RUN,
        type=int,
    ),
    "progress": Flag(
        "auto (default): a progress bar on a terminal, a plain line every --progress-every "
        "seconds otherwise (steps, rate, eta, last evaluation); none: no progress output",
        _RUN,
        choices=PROGRESS_MODES,
    ),
    "progress_every": Flag("seconds between progress lines (default %(default)s)", _RUN, type=float),
}


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
    groups: dict[str | None, Any] = {None: parser}
    defaults = {field.name: field.default for field in dataclasses.fields(TrainingConfig)}
    for name, flag in FLAGS.items():
        if flag.help is None:  # env and --env-options, added above as every command adds them
            continue
        if flag.group not in groups:
            groups[flag.group] = parser.add_argument_group(flag.group)
        default = defaults.get(name, None)  # a recipe field's: None, the recipe's
        default = None if default is dataclasses.MISSING else default
        extra: dict[str, Any] = {
            key: value for key, value in (("type", flag.type), ("choices", flag.choices)) if value is not None
        }
        option = flag.option or "--" + name.replace("_", "-")
        if flag.action is None:  # a flag that takes a value: named after the flag, not the field (OPPONENT)
            extra["metavar"] = option[2:].replace("-", "_").upper() if flag.choices is None else None
        action = flag.action or "store"
        groups[flag.group].add_argument(option, dest=name, default=default, action=action, help=flag.help, **extra)
    removed_flag(parser, "--no-progress", "--progress none")
    removed_flag(
        parser,
        "--path",
        "--control shared for one policy in every seat of its side (what --path side did); the run chooses "
        "how to step its games from what it trains",
        takes_value=True,
    )
    parser.set_defaults(run=run)


def config_from_args(args: argparse.Namespace) -> TrainingConfig:
    """The :class:`~arena.training.config.TrainingConfig` the parsed flags describe: one config field or
    one entry of its ``overrides`` (a recipe field) per entry of :data:`FLAGS`, read by its ``read``.

    Raises:
        InvalidValueError, InvalidTypeError: a flag's value is out of range or not the JSON it should be.

    Example:
        >>> from arena.cli import build_parser
        >>> args = build_parser().parse_args(["train", "tic_tac_toe", "--out", "run", "--opponent", "random,mcts"])
        >>> config_from_args(args).overrides
        {'opponents': ('random', 'mcts')}
    """
    values = {name: (flag.read or _same)(getattr(args, name)) for name, flag in FLAGS.items()}
    own = {item.name for item in dataclasses.fields(TrainingConfig)}
    overrides = {name: value for name, value in values.items() if name not in own and value not in (None, {})}
    return TrainingConfig(**{name: value for name, value in values.items() if name in own}, overrides=overrides)


def _same(value: Any) -> Any:
    return value


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
