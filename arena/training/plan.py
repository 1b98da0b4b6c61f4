"""What a training run resolves to before anything trains: :func:`plan` and :class:`RunPlan`.

:func:`plan` applies a :class:`~arena.training.config.TrainingConfig` to the env's recipe (or to
the recipe a loaded run stored), checks it against the loaded run's manifest and the env's sides,
and settles the output folder; :func:`arena.training.run.train` then builds and trains what it
says. :func:`loaded_algo_changes` checks the algorithm options a loaded model takes on. Nothing
here imports Stable-Baselines3 or torch.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.env import match_options_of
from arena.errors import InvalidValueError
from arena.registry import make_env
from arena.specs.interfaces import InterfaceSpec, build_interface, parse_interface_spec
from arena.training.config import TrainingConfig
from arena.training.recipe import RAW_INTERFACE, TrainingRecipe
from arena.training.trained import MANIFEST, is_agent_folder, read_manifest

__all__ = ["RunPlan", "loaded_algo_changes", "plan", "registered_interface_spec"]


@dataclass(frozen=True)
class RunPlan:
    """What a config resolves to before anything trains: the recipe, env options, folder, loaded run."""

    config: TrainingConfig
    recipe: TrainingRecipe
    env_options: dict[str, Any]
    folder: Path
    team_size: int | None
    loaded: dict[str, Any] | None
    eval_every: int
    eval_games: int
    side_sizes: tuple[int, ...] = ()  # seats of each side of a team env (empty without sides)
    final_eval_games: int | None = None  # games of the last evaluation, the reported one (None: eval_games)
    #: The env options of the match the trained agent enters (the env's ``match_options`` of ``env_options``;
    #: ``None``: ``env_options``): ``arena tournament`` refuses a training mode of one seat.
    match_options: dict[str, Any] | None = None


def plan(config: TrainingConfig) -> RunPlan:
    """Resolve ``config``: the recipe with the config's fields, env options, folder, loaded run.

    Raises:
        ValueError: ``load`` disagrees with the config (another env, algorithm, interface or
            env options), the folder is not empty (without ``force`` or ``load``), or team
            options that the env cannot take.
        ArenaError: a bad env name or interface spec (with the registry's message).
    """
    loaded = _loaded_manifest(config) if config.load is not None else None
    base = config.base_recipe(None if loaded is None else dict(loaded.get("env_options") or {}))
    if loaded is not None:  # the model's interface and algorithm are the loaded run's
        base = replace(base, interface=loaded["interface"], algo=loaded["algo"])
    recipe = config.recipe(base)
    recipe = replace(recipe, interface=registered_interface_spec(recipe.interface))
    if loaded is not None:
        env_options = dict(loaded.get("env_options") or {})
    else:
        env_options = dict(recipe.env_options if config.env_options is None else config.env_options)
    probe = make_env(config.env, **env_options)  # fail early, with the registry's message, on a bad name
    try:
        build_interface(recipe.interface)  # fail early on a bad spec
        team_size = _team_size(recipe, probe, config.env)
        side_sizes = tuple(len(members) for members in (probe.teams or {}).values())
        match_options = match_options_of(probe, env_options)
    finally:
        probe.close()
    return RunPlan(
        config=config,
        recipe=recipe,
        env_options=env_options,
        folder=_out_folder(config),
        team_size=team_size,
        loaded=loaded,
        eval_every=recipe.eval_every_for(config.timesteps),  # the config's --eval-every is in the recipe
        eval_games=recipe.eval_games_for(config.timesteps),
        final_eval_games=recipe.final_eval_games(),
        side_sizes=side_sizes,
        match_options=match_options,
    )


def registered_interface_spec(spec: str | None) -> str | None:
    """``spec`` with every ``"module:Class"`` that an ``arena.interfaces`` entry point declares
    written as its registered name, so a trained folder names only registered interfaces (a
    folder is data: a tournament imports no ``module:Class`` it names without ``--trust``).

    Example:
        >>> registered_interface_spec("flatten(interfaces.board:EgoBoard(planes=true))")
        'flatten(ego_board(planes=true))'
        >>> registered_interface_spec("none") is None
        True
    """
    if spec is None or spec == RAW_INTERFACE:
        return None
    names = {entry.value: entry.name for entry in metadata.entry_points(group="arena.interfaces")}

    def rename(value: Any) -> Any:
        if not isinstance(value, InterfaceSpec):
            return value
        return replace(
            value,
            name=names.get(value.name, value.name),
            options={key: rename(option) for key, option in value.options.items()},
            inner=rename(value.inner),
        )

    return str(rename(parse_interface_spec(spec)))


#: Constructor arguments a loaded model keeps: its network, and what the run itself sets.
_FIXED_ON_LOAD = frozenset(
    {"policy", "policy_kwargs", "env", "device", "seed", "verbose", "tensorboard_log", "_init_setup_model"}
)


def loaded_algo_changes(algo_class: type[Any], algo_options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``--algo-options`` a loaded model takes on (learning rate, clip range, ``gamma``...).

    SB3's ``load`` sets any keyword as an attribute before rebuilding the schedules and the
    rollout buffer, so a misspelt name would be kept and ignored: names are checked against the
    algorithm's constructor.

    Raises:
        ValueError: a name the algorithm does not take, or one a loaded model keeps (its network,
            ``policy_kwargs``; device and seed come from their own flags).

    Example:
        >>> class Algorithm:  # an SB3 algorithm's constructor, in short
        ...     def __init__(self, policy, env, learning_rate=3e-4, gamma=0.99, policy_kwargs=None): ...
        >>> loaded_algo_changes(Algorithm, {"learning_rate": 1e-4, "gamma": 0.995})
        {'learning_rate': 0.0001, 'gamma': 0.995}
        >>> loaded_algo_changes(Algorithm, {"policy_kwargs": {"net_arch": [8]}})
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: --algo-options with --load: 'policy_kwargs' cannot change on a trained model (its network is \
the loaded one); train a new folder to change them
    """
    taken = set(inspect.signature(algo_class.__init__).parameters) - {"self"}
    unknown = sorted(set(algo_options) - taken)
    fixed = sorted(set(algo_options) & _FIXED_ON_LOAD)
    if unknown:
        raise InvalidValueError(
            f"--algo-options with --load: {algo_class.__name__} takes no option {', '.join(map(repr, unknown))}; "
            f"expected some of {', '.join(sorted(taken - _FIXED_ON_LOAD))}"
        )
    if fixed:
        raise InvalidValueError(
            f"--algo-options with --load: {', '.join(map(repr, fixed))} cannot change on a trained model "
            "(its network is the loaded one); train a new folder to change them"
        )
    return dict(algo_options)


def _loaded_manifest(config: TrainingConfig) -> dict[str, Any]:
    """The manifest of ``config.load``, checked against the config (same env, algo, interface, options)."""
    manifest = read_manifest(config.load_folder)
    problems = []
    if manifest["env"] != config.env:
        problems.append(f"env {manifest['env']!r} (got {config.env!r})")
    algo, interface = config.overrides.get("algo"), config.overrides.get("interface")
    if algo is not None and manifest["algo"] != algo:
        problems.append(f"--algo {manifest['algo']!r} (got {algo!r})")
    if config.env_options and dict(config.env_options) != manifest.get("env_options"):
        problems.append(
            f"--env-options {json.dumps(manifest.get('env_options'))} (got {json.dumps(dict(config.env_options))})"
        )
    if interface is not None and (
        manifest["interface"] is None
        or registered_interface_spec(interface) != registered_interface_spec(manifest["interface"])
    ):
        problems.append(f"--interface {manifest['interface']!r} (got {interface!r})")
    if problems:
        raise InvalidValueError(
            f"--load {config.load}: the run was trained with "
            + "; ".join(problems)
            + "; leave them out or give the same"
        )
    return manifest


def _team_size(recipe: TrainingRecipe, env: Any, name: str) -> int | None:
    """The side size a ``control="team"`` model controls (``None`` for one seat); checks the team options."""
    if (recipe.teammate or recipe.control != "seat") and not env.teams:
        asked = "--teammate" if recipe.control == "seat" else f"--control {recipe.control}"
        raise InvalidValueError(f"{asked} needs a team game; {name} has no sides (teams is None)")
    if recipe.teammate and recipe.control == "shared":
        raise InvalidValueError(
            "--teammate plays beside a one-seat learner; with --control shared the model plays every seat of its side"
        )
    if recipe.control != "team":
        return None
    if recipe.teammate:
        raise InvalidValueError(
            "--teammate plays beside a one-seat learner; with --control team the model plays every seat of its side"
        )
    sizes = {len(ids) for ids in env.teams.values()}
    if len(sizes) != 1:
        raise InvalidValueError(f"--control team needs sides of one size, {name} has sides of sizes {sorted(sizes)}")
    return sizes.pop()


def _out_folder(config: TrainingConfig) -> Path:
    """The output folder; an existing non-empty one only with ``force``, or as the loaded folder itself."""
    out = config.folder
    continuing = config.load is not None and out.resolve() == Path(config.load).resolve()
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not (config.force or continuing):
        if is_agent_folder(out):
            raise InvalidValueError(
                f"--out {out} exists and is not empty; pass --force to write into it, "
                f"or --load {out} to continue training that agent"
            )
        raise InvalidValueError(
            f"--out {out} exists and is not empty, and holds no trained agent ({MANIFEST}) to continue; "
            "pass --force to write into it, or choose another --out"
        )
    out.mkdir(parents=True, exist_ok=True)
    return out
