"""One training run, from a :class:`~arena.training.config.TrainingConfig` to a trained-agent folder.

:func:`train` is what ``arena train`` does once its flags are parsed: it applies the config to
the env's recipe (or a loaded run's: :func:`arena.training.plan.plan`), builds the learner's
vectorised env (the batched path where the env's numpy batch can serve, a worker batch of single envs where an env
without one has every agent act at once, one :class:`~arena.training.SingleAgentEnv` per game
otherwise: :func:`~arena.training.vectorised.choose_path`), chooses the SB3 policy from the
learner's spaces, trains with the self-play and progress callbacks, and writes the folder
:mod:`arena.training.trained` reads: the weights (safetensors), ``agent.json``,
:data:`~arena.training.config.RECIPE_FILE`, the self-play pool's snapshots, ``evaluations.csv``
and ``learning_curve.png``.

This module imports Stable-Baselines3 and torch when it is imported (the ``train`` extra).
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.atomic import write_atomic
from arena.errors import ArenaError
from arena.registry import load_callable, make_agent, make_env
from arena.specs.interfaces import build_interface, parse_interface_spec
from arena.teams import GroupTeams
from arena.training.config import RECIPE_FILE, TrainingConfig
from arena.training.plan import RunPlan, loaded_algo_changes, plan, registered_interface_spec
from arena.training.policy_agent import algorithm_class, require_sb3
from arena.training.pool import OpponentPool
from arena.training.recipe import BATCHED_RECIPE, default_algo_options
from arena.training.report import evaluation_text, plot_learning_curve, read_csv, short_evaluation_text
from arena.training.single_agent import SingleAgentEnv
from arena.training.team_control import side_agent, team_stack
from arena.training.trained import restore_model, save_trained_agent, trained_interface

require_sb3()
import torch
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import Logger
from stable_baselines3.common.preprocessing import is_image_space
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from arena.errors import InvalidValueError
from arena.training.callbacks import EvaluationCallback, EvaluationLogCallback, OnEvaluationCallback
from arena.training.checkpoints import FolderCheckpoints, Interrupt
from arena.training.evaluation_games import EvaluationGames
from arena.training.progress import ProgressLinesCallback, RichProgressCallback
from arena.training.promotion import PromotionCallback
from arena.training.vectorised import batch_vec_env, path_reasons

__all__ = [
    "POOL_FILE",
    "RunPlan",
    "TrainedRun",
    "choose_policy",
    "loaded_algo_changes",
    "plan",
    "registered_interface_spec",
    "train",
]

#: The file in a trained folder that lists its self-play snapshots (weights in ``pool/``).
POOL_FILE = "pool.json"


@dataclass(frozen=True)
class TrainedRun:
    """The result of :func:`train`: the model, the folder it lives in, and how it was trained.

    Attributes:
        folder: the trained-agent folder (an agent: ``--agents FOLDER``).
        model: the trained Stable-Baselines3 model.
        plan: the resolved run (config, recipe, env options).
        records: every evaluation record (a continued run's earlier ones first).
        promotions: timesteps at which the learner joined the pool in this run.
        pool_size: members of the opponent pool at the end (``None``: no pool).
        path: ``"batched"``, ``"workers"`` or ``"single"`` (:func:`~arena.training.vectorised.choose_path`);
            ``path_reasons``: why the game's own batch (and on the single path, the worker batch) could
            not serve the run (:func:`~arena.training.vectorised.path_reasons`), printed in the summary;
            ``n_envs``: games stepped together.
        interrupted: training stopped early at a Ctrl-C; the folder holds the model as it was then.
        checkpoints: the timestep counts at which the folder was saved, the last one at the end.
        target_timesteps: the count the run was to reach (a loaded run's count plus ``timesteps``).
    """

    folder: Path
    model: Any
    plan: RunPlan
    records: list[dict[str, Any]] = field(default_factory=list)
    promotions: list[int] = field(default_factory=list)
    pool_size: int | None = None
    path: str = "single"
    path_reasons: list[str] = field(default_factory=list)
    n_envs: int = 1
    interrupted: bool = False
    checkpoints: list[int] = field(default_factory=list)
    target_timesteps: int = 0

    @property
    def timesteps(self) -> int:
        return int(self.model.num_timesteps)

    def _enters_with_teammate(self) -> bool:
        """Whether the printed entrant is ``FOLDER+TEAMMATE``: a one-seat learner beside a teammate, sides of two."""
        plan = self.plan
        return plan.recipe.teammate is not None and plan.team_size is None and set(plan.side_sizes) == {2}

    def continue_command(self) -> str:
        """The ``arena train --load`` command that trains the folder on to the timesteps this run asked for."""
        left = max(1, self.target_timesteps - self.timesteps)
        parts = ["arena", "train", self.plan.config.env, "--load", str(self.folder), "--timesteps", str(left)]
        return " ".join(shlex.quote(part) for part in parts)

    def tournament_command(self) -> str:
        """The ``arena tournament`` command that plays this agent against the first reference.

        A single agent entrant fills every seat of its side (and in free-for-all games of more
        than two players the seats are dealt among the entrants), so the folder and one
        reference are the whole lineup; a model of a whole side (``control="team"``) enters as
        that side; a one-seat learner trained beside a teammate enters as a team with it
        (``trained=FOLDER+TEAMMATE``) where sides have two seats. Where they have more (81
        soldiers), a two-member team cannot fill them and a list of 80 teammates is no command
        to type: the folder enters alone and plays every seat of its side (one policy, an agent
        per seat, as the "Filling seats" rule of ``docs/architecture.md`` says). The env options are
        those of the match the agent enters (:meth:`arena.env.MultiAgentEnv.match_options`: ViZDoom's
        training alone against bots enters the 2-player match).
        """
        config, recipe = self.plan.config, self.plan.recipe
        options = self.plan.env_options if self.plan.match_options is None else self.plan.match_options
        parts = ["arena", "tournament", config.env]
        if options:
            parts += ["--env-options", json.dumps(options, separators=(",", ":"))]
        folder = str(self.folder)
        if self._enters_with_teammate():
            folder = f"trained={folder}+{recipe.teammate}"  # it plays beside the teammate it knows
        parts += ["--agents", f"{folder},{recipe.references[0]}"]
        return " ".join(shlex.quote(part) for part in parts)

    def summary(self) -> list[str]:
        """The lines ``arena train`` prints at the end (or at a Ctrl-C: where it stopped, how to go on)."""
        config, recipe = self.plan.config, self.plan.recipe
        last = self.records[-1]
        side = "" if self.plan.team_size is None else " (a whole side)"
        where = f"({self.path} path, {self.n_envs} games)"
        if self.interrupted:
            lines = [
                f"interrupted {recipe.algo} on {config.env}{side} at {self.timesteps:,} of {self.target_timesteps:,} "
                f"timesteps {where}",
                f"  last evaluation at {last['timesteps']:,} timesteps:",
            ]
        else:
            lines = [
                f"trained {recipe.algo} on {config.env}{side} for {self.timesteps} timesteps in "
                f"{last['wall_s']:.1f} s {where}"
            ]
        if self.path != "batched" and self.path_reasons:  # why the game's own batch could not serve the run
            lines.insert(1, f"  ({self.path} path: {'; '.join(self.path_reasons)})")
        lines.extend(f"  vs {name}: {evaluation_text(last, name)}" for name in recipe.references)
        if self.pool_size is not None:
            kind = "self-play pool" if recipe.self_play else "opponent pool"
            lines.append(f"  {kind}: {self.pool_size} members, {len(self.promotions)} promotions")
        folder = self.folder
        lines.append(
            f"saved {folder / 'agent.json'} (the weights beside it), {folder / 'evaluations.csv'}, "
            f"{folder / 'learning_curve.png'}"
        )
        if self.interrupted:
            lines.append(f"continue training: {self.continue_command()}")
        lines.append(f"the folder is an agent: {self.tournament_command()}")
        if recipe.teammate is not None and self.plan.team_size is None and not self._enters_with_teammate():
            lines.append(
                f"  (it trained in one seat beside {recipe.teammate}; entered alone it plays every seat "
                f"of its side, {'/'.join(map(str, sorted(set(self.plan.side_sizes))))} seats)"
            )
        return lines


def train(config: TrainingConfig) -> TrainedRun:
    """Train as ``config`` says and write the trained-agent folder; return the run.

    Raises:
        ValueError, ArenaError: as :func:`plan`, or a side that cannot share one policy
            (:func:`~arena.training.vectorised.choose_path`), or spaces SB3 would misread
            (:func:`choose_policy`).

    Example::

        run = train(TrainingConfig("connect_four", timesteps=100_000, out="runs/c4"))
        print(run.records[-1]["random_win_rate"], run.tournament_command())
    """
    setup = plan(config)
    recipe = setup.recipe
    torch.set_num_threads(config.threads)
    algo_class: Any = algorithm_class(recipe.algo)
    changes = (
        loaded_algo_changes(algo_class, config.overrides.get("algo_options", {})) if setup.loaded is not None else {}
    )
    opponents, pool = _opponents(setup)
    probe = make_env(config.env, **setup.env_options)
    path, reasons = path_reasons(
        probe,
        recipe.algo,
        opponents,
        build_interface(recipe.interface),
        control=recipe.control,
        teammate=recipe.teammate,
    )
    probe.close()
    n_envs = recipe.n_envs or (BATCHED_RECIPE["n_envs"] if path == "batched" else 4)
    vec_env = _vec_env(setup, path, n_envs, opponents, pool)
    if setup.loaded is not None:
        model = restore_model(config.load_folder, vec_env, device=config.device, seed=config.seed, **changes)
    else:
        options = {**default_algo_options(recipe.algo, config.timesteps, n_envs, path), **recipe.algo_options}
        options = _resolved_policy_kwargs(options)
        model = algo_class(
            choose_policy(vec_env.observation_space, vec_env.action_space, recipe.policy),
            vec_env,
            seed=config.seed,
            device=config.device,
            verbose=0,
            **options,
        )
    if model.tensorboard_log is None:
        # SB3's default logger makes an empty folder in the temp dir at each learn(); the records go
        # to evaluations.csv, so this one writes nowhere
        model.set_logger(Logger(folder=None, output_formats=[]))
    progress = _progress(config)
    evaluation, promotion = _evaluation(setup, pool, progress, path, model)
    start = int(model.num_timesteps)
    with Interrupt(
        f"arena train: interrupted; stopping at the next step to save {setup.folder} (Ctrl-C again: stop now, "
        "keeping the last checkpoint)"
    ) as interrupt:
        checkpoints = FolderCheckpoints(
            lambda: _save(setup, model, vec_env, evaluation, promotion), _checkpoint_every(setup), interrupt
        )
        # SB3's order: progress, then evaluation (and what runs after it), then a checkpoint that holds it.
        model.learn(
            config.timesteps,
            callback=CallbackList([*([progress] if progress else []), evaluation, checkpoints]),
            reset_num_timesteps=setup.loaded is None,
        )
        checkpoints.checkpoint()
    return TrainedRun(
        folder=setup.folder,
        model=model,
        plan=setup,
        records=list(evaluation.records),
        promotions=[] if promotion is None else list(promotion.promotions),
        pool_size=None if pool is None else len(pool),
        path=path,
        path_reasons=reasons,
        n_envs=n_envs,
        interrupted=interrupt.requested,
        target_timesteps=start + config.timesteps,
        checkpoints=list(checkpoints.saved_at),
    )


def _checkpoint_every(setup: RunPlan) -> int | None:
    """Timesteps between checkpoints: ``--checkpoint-every``, else one at every evaluation; 0: none."""
    every = setup.config.checkpoint_every
    if every is None:
        return setup.eval_every
    return every or None


def choose_policy(observation_space: spaces.Space, action_space: spaces.Space, requested: str | None = None) -> str:
    """The SB3 policy for the learner's spaces: ``MultiInputPolicy`` for a Dict (a CNN per
    image entry), ``CnnPolicy`` for an image, ``MlpPolicy`` otherwise, or ``requested``.

    Raises:
        ArenaError: ``requested`` is ``CnnPolicy`` for an observation that is not an image, or
            ``MultiInputPolicy`` for one that is not a Dict (a recipe's policy, with a stack of
            the user's own); or a Discrete or MultiDiscrete space that does not start at 0: SB3 one-hot
            encodes observations and numbers actions from 0 whatever ``start`` says, so the
            model would read them wrongly (an interface such as ``flatten`` or ``one_hot``
            encodes them by their start).

    Example:
        >>> choose_policy(spaces.Box(0, 1, (4,)), spaces.Discrete(2))
        'MlpPolicy'
        >>> choose_policy(spaces.Dict({"turn": spaces.Discrete(3, start=1)}), spaces.Discrete(2))
        Traceback (most recent call last):
        ...
        arena.errors.ArenaError: the learner's observation 'turn' is Discrete(3, start=1): Stable-Baselines3 \
reads Discrete and MultiDiscrete values as 0..n-1 whatever their start; give an interface that encodes it \
(e.g. --interface flatten or one_hot)
    """
    for where, space in (("observation", observation_space), ("action", action_space)):
        for key, part in _leaves(space):
            if isinstance(part, (spaces.Discrete, spaces.MultiDiscrete)) and np.any(np.asarray(part.start) != 0):
                named = f" {key!r}" if key else ""
                raise ArenaError(
                    f"the learner's {where}{named} is {part}: Stable-Baselines3 reads Discrete and "
                    "MultiDiscrete values as 0..n-1 whatever their start; give an interface that "
                    "encodes it (e.g. --interface flatten or one_hot)"
                )
    if requested == "CnnPolicy" and not is_image_space(observation_space):
        raise ArenaError(
            f"the policy CnnPolicy reads images, and the learner's observation is {observation_space}; "
            "give --policy MlpPolicy (or a stack that shows images)"
        )
    if requested == "MultiInputPolicy" and not isinstance(observation_space, spaces.Dict):
        raise ArenaError(
            f"the policy MultiInputPolicy reads Dict observations, and the learner's observation is "
            f"{observation_space}; give --policy MlpPolicy or CnnPolicy"
        )
    if requested is not None:
        return requested
    if isinstance(observation_space, spaces.Dict):
        return "MultiInputPolicy"  # SB3 puts a CNN on each image entry
    return "CnnPolicy" if is_image_space(observation_space) else "MlpPolicy"


def _leaves(space: spaces.Space, key: str = "") -> list[tuple[str, spaces.Space]]:
    if isinstance(space, spaces.Dict):
        return [leaf for name, sub in space.spaces.items() for leaf in _leaves(sub, f"{key}.{name}".lstrip("."))]
    if isinstance(space, spaces.Tuple):
        return [leaf for index, sub in enumerate(space.spaces) for leaf in _leaves(sub, f"{key}[{index}]")]
    return [(key, space)]


# ---------------------------------------------------------------------------------------------- the parts
def _opponent(setup: RunPlan, name: str) -> Any:
    return make_agent(name) if setup.team_size is None else side_agent(name, setup.team_size)


def _opponents(setup: RunPlan) -> tuple[list[Any], OpponentPool | None]:
    """The starting opponents (a name given twice: one agent, drawn twice as often) and the pool, if any."""
    recipe = setup.recipe
    built = {name: _opponent(setup, name) for name in dict.fromkeys(recipe.opponents)}
    opponents = [built[name] for name in recipe.opponents]
    if not (recipe.self_play or len(opponents) > 1):
        return opponents, None
    return opponents, OpponentPool(
        opponents, strategy=recipe.self_play or "uniform", max_size=recipe.pool_size if recipe.self_play else None
    )


def _learner_interface(setup: RunPlan) -> Any:
    if setup.team_size is not None:
        return team_stack(setup.recipe.interface, setup.team_size)
    if setup.loaded is not None:  # go on from the trained statistics, still updating them
        return trained_interface(setup.config.load_folder, setup.loaded, frozen=False)
    return build_interface(setup.recipe.interface)


def _eval_env(setup: RunPlan) -> Any:
    env = make_env(setup.config.env, **setup.env_options)
    return env if setup.team_size is None else GroupTeams(env)


def _vec_env(setup: RunPlan, path: str, n_envs: int, opponents: list[Any], pool: OpponentPool | None) -> VecEnv:
    """The learner's ``n_envs`` games: one batch (``path="batched"``: the game's own; ``"workers"``: a
    worker batch of single envs, :mod:`arena.worker_batch`) in one trainer, or one SingleAgentEnv each."""
    config, recipe = setup.config, setup.recipe
    seats = list(recipe.seats) if recipe.seats else None
    opponent = pool if pool is not None else opponents[0]
    if recipe.team_spirit and recipe.control != "shared":
        raise InvalidValueError(
            f"--team-spirit mixes the rewards of a side that shares one policy: it needs --control shared "
            f"(this run: --control {recipe.control})"
        )
    if config.workers and path != "workers":
        raise InvalidValueError(
            f"--workers {config.workers} sets the processes of a worker batch, and this run steps none ({path} "
            "path): only runs on an env without a compiled batch whose agents all act at once train on one "
            "(arena.training.vectorised.choose_path)"
        )
    inner: VecEnv | None = None
    if path in ("batched", "workers"):
        team: dict[str, Any] = {}
        if recipe.control == "shared":  # the learner in every seat of its side
            team = {"team": True, "team_spirit": recipe.team_spirit}
        if path == "workers":  # single envs in worker processes, at most one per game
            team["num_workers"] = min(config.workers, n_envs)
            if recipe.control == "shared":  # a member that leaves the game ends its own episode
                team["member_done"] = True
        inner = batch_vec_env(
            config.env,
            n_envs,
            opponent,
            seats,
            shuffle_seats=config.shuffle_seats,
            interface=_learner_interface(setup),
            env_kwargs=setup.env_options,
            **team,
        )
    if inner is not None:  # one vectorised env for all games: monitored and seeded here
        vec_env = VecMonitor(inner)
        vec_env.seed(config.seed)
        return vec_env

    def make_single() -> SingleAgentEnv:
        return SingleAgentEnv(
            _eval_env(setup),
            pool if pool is not None else _opponent(setup, recipe.opponents[0]),
            seats,
            shuffle_seats=config.shuffle_seats,
            teammates=recipe.teammate,
            interface=_learner_interface(setup),
            illegal_action="raise" if recipe.algo == "maskable-ppo" else "forfeit",
        )

    return make_vec_env(make_single, n_envs=n_envs, seed=config.seed)


def _progress(config: TrainingConfig) -> Any:
    """The progress callback: a rich bar on a terminal, plain lines in a log, or none."""
    import sys

    mode = config.progress
    if mode == "auto":
        mode = "bar" if sys.stderr.isatty() else "lines"
    description = f"train {config.env}"
    if mode == "bar":
        return RichProgressCallback(config.timesteps, description=description)
    if mode == "lines":
        return ProgressLinesCallback(config.timesteps, description=description, every=config.progress_every)
    return None


def _resolved_policy_kwargs(options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with a ``policy_kwargs["features_extractor_class"]`` given by name (``"module:Class"``, as a
    recipe, which is JSON, names it) imported: the env's recipe or the command line chose it, not a folder."""
    kwargs = options.get("policy_kwargs")
    if not isinstance(kwargs, Mapping) or not isinstance(kwargs.get("features_extractor_class"), str):
        return options
    extractor = load_callable(kwargs["features_extractor_class"])
    return {**options, "policy_kwargs": {**kwargs, "features_extractor_class": extractor}}


def _evaluation(
    setup: RunPlan, pool: OpponentPool | None, progress: Any, path: str, model: Any
) -> tuple[EvaluationCallback, PromotionCallback | None]:
    """The evaluation callback and, with self-play only, the promotion callback it runs after each
    evaluation (before the CSV log and the progress status, which show its entries); both carry on
    a loaded run's records and snapshots."""
    config, recipe = setup.config, setup.recipe
    first = recipe.references[0]

    def show(record: dict[str, Any]) -> None:
        pool_text = f", pool {record['pool_size']}" if "pool_size" in record else ""
        progress.set_status(
            f"last evaluation at {record['timesteps']:,}: vs {first} {short_evaluation_text(record, first)}{pool_text}"
        )

    history: list[dict[str, Any]] = []
    snapshots: list[tuple[str, Any]] = []
    if setup.loaded is not None:
        loaded = config.load_folder
        if (loaded / "evaluations.csv").is_file():
            history = read_csv(loaded / "evaluations.csv")
        if pool is not None and recipe.self_play:
            snapshots = _stored_snapshots(loaded)
    promotion = None
    if pool is not None and recipe.self_play:
        promotion = PromotionCallback(pool, recipe.promote_at, window=recipe.window, snapshots=snapshots)
    after: list[BaseCallback] = [
        *([promotion] if promotion is not None else []),
        EvaluationLogCallback(setup.folder / "evaluations.csv"),
        *([OnEvaluationCallback(show)] if progress is not None else []),
    ]
    games = EvaluationGames(
        _eval_env(setup), teammate=recipe.teammate, sides=recipe.control == "shared", seed=config.seed
    )
    evaluation = EvaluationCallback(
        games,
        {name: _opponent(setup, name) for name in recipe.references},
        pool,
        eval_every=setup.eval_every,
        eval_games=setup.eval_games,
        final_games=setup.final_eval_games,
        history=history,
        callback_after_eval=CallbackList(after),
    )
    return evaluation, promotion


def _stored_snapshots(folder: Path) -> list[tuple[str, Any]]:
    """The self-play snapshots a folder keeps: ``(name, state dict)``, weights only (never code)."""
    listing = folder / POOL_FILE
    if not listing.is_file():
        return []
    entries = json.loads(listing.read_text())
    found = []
    for entry in entries if isinstance(entries, list) else []:
        name, file = entry.get("name"), entry.get("file")
        if not (isinstance(name, str) and isinstance(file, str) and Path(file).name == file):
            raise ArenaError(f"{listing}: expected entries {{'name': ..., 'file': a file in pool/}}, got {entry!r}")
        found.append((name, torch.load(folder / "pool" / file, map_location="cpu", weights_only=True)))
    return found


def _save(
    setup: RunPlan, model: Any, vec_env: VecEnv, evaluation: EvaluationCallback, promotion: PromotionCallback | None
) -> None:
    """Write the folder, each file whole (:func:`write_atomic`): the recipe, the pool's snapshots, the
    learning curve, then the model and its manifest last, so the manifest never names a model that
    is not there. A checkpoint and the end of a run both write it."""
    config, recipe, folder = setup.config, setup.recipe, setup.folder
    # The options the run's env had (the command line's or the recipe's), as the manifest has them.
    stored = replace(recipe, env_options=dict(setup.env_options))
    write_atomic(folder / RECIPE_FILE, json.dumps(stored.to_json(), indent=2) + "\n")
    _save_snapshots(folder, [] if promotion is None else promotion.snapshot_states())
    write_atomic(
        folder / "learning_curve.png",
        lambda path: plot_learning_curve(
            evaluation.records,
            path,
            references=recipe.references[:1],
            title=f"{recipe.algo} on {config.env}" + (f", self-play ({recipe.self_play})" if recipe.self_play else ""),
        ),
    )
    trained_stacks = vec_env.get_attr("interface")  # one per env: their statistics are pooled
    save_trained_agent(
        folder,
        model,
        algo=recipe.algo,
        env=config.env,
        env_options=setup.env_options,
        interface=None if recipe.interface is None else str(parse_interface_spec(recipe.interface)),
        trained_stack=trained_stacks if setup.team_size is None else None,
        seats=list(recipe.seats) if recipe.seats else None,
        team_size=setup.team_size,
        sb3_zip=config.sb3_zip,
        # a folder started from another's weights (tools/warm_start.py) or a teacher's actions
        # (tools/imitate.py) says so for as long as it trains on
        details={key: setup.loaded[key] for key in ("warm_start", "imitation") if setup.loaded and key in setup.loaded},
    )


def _save_state(state: dict[str, Any], path: Path) -> None:
    torch.save(state, path)


def _save_snapshots(folder: Path, states: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """The pool's snapshots as ``pool/NNN.pt`` and their list ``pool.json``; files no longer listed go last.

    A snapshot's file is named after its timestep (``snapshot@4096`` in ``4096.pt``), so rewriting the
    pool at a checkpoint never puts other weights under a name the old ``pool.json`` lists."""
    pool = folder / "pool"
    entries = []
    for index, (name, state) in enumerate(states):
        pool.mkdir(exist_ok=True)
        step = name.removeprefix("snapshot@")
        file = f"{step}.pt" if step.isdigit() and step.isascii() else f"snapshot-{index:03d}.pt"
        write_atomic(pool / file, partial(_save_state, dict(state)))
        entries.append({"name": name, "file": file})
    write_atomic(folder / POOL_FILE, json.dumps(entries, indent=2) + "\n")
    listed = {entry["file"] for entry in entries}
    for old in pool.glob("*.pt") if pool.is_dir() else ():
        if old.name not in listed:
            old.unlink(missing_ok=True)
