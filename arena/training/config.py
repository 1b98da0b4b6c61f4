"""One training run's configuration: what ``arena train`` parses its flags into.

:class:`TrainingConfig` is frozen and checks itself when made, so a bad value fails before
anything is built, with the flag's name in the message. It holds what only a run has (length,
folder, seed, device, progress) and, in ``overrides``, the recipe fields it changes by name: the
recipe is the stored one of a ``load`` run (:data:`RECIPE_FILE` in its folder), else the one the
env declares (:func:`arena.training.recipe.recipe_for`); :meth:`TrainingConfig.recipe` applies
the overrides on top. A recipe field is declared once, in :class:`~arena.training.recipe.TrainingRecipe`.

This module needs only the standard library and arena's core: no Stable-Baselines3.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import InvalidTypeError, InvalidValueError, UnknownNameError
from arena.training.recipe import (
    ALGORITHM_NAMES,
    CONTROLS,
    RAW_INTERFACE,
    SELF_PLAY,
    TrainingRecipe,
    recipe_for,
)

__all__ = ["OVERRIDABLE", "PROGRESS_MODES", "RECIPE_FILE", "SELF_PLAY_OFF", "TrainingConfig", "stored_recipe"]

#: The file in a trained folder that keeps the recipe the run trained with (read by ``load``).
RECIPE_FILE = "recipe.json"
#: ``self_play``: no self-play, whatever the recipe or the loaded run says.
SELF_PLAY_OFF = "off"
#: ``progress``: a rich bar on a terminal, plain lines otherwise (``"auto"``), or one of them, or none.
PROGRESS_MODES = ("auto", "bar", "lines", "none")


#: What ``overrides`` may change: every :class:`~arena.training.recipe.TrainingRecipe` field but
#: ``env_options``, which is the config's own field (the options choose the recipe: a callable recipe
#: receives them).
OVERRIDABLE = tuple(item.name for item in dataclasses.fields(TrainingRecipe) if item.name != "env_options")
#: Flags named otherwise than ``--field-name``: agent lists (one agent a flag to type), and a run's fixed
#: evaluation schedule, which the recipe keeps under ``fixed_`` so that a ``--load`` evaluates alike.
_OPTIONS = {
    "opponents": "--opponent",
    "references": "--reference",
    "fixed_eval_every": "--eval-every",
    "fixed_eval_games": "--eval-games",
}


def _flag(name: str) -> str:
    return _OPTIONS.get(name) or "--" + name.replace("_", "-")


def _check_names(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Sequence) or not all(isinstance(item, str) for item in value):
        raise InvalidTypeError(f"{_flag(name)} must be a sequence of names, got {value!r}")
    names = tuple(item.strip() for item in value if item.strip())
    if not names:
        raise InvalidValueError(f"{_flag(name)} needs at least one agent name, got none")
    return names


def _checked_overrides(overrides: Any) -> dict[str, Any]:
    """``overrides`` checked field by field against :class:`TrainingRecipe` (errors name the flag), with
    ``None`` values left out (the recipe's) and agent lists as tuples."""
    if not isinstance(overrides, Mapping):
        raise InvalidTypeError(f"TrainingConfig: overrides must be a mapping of recipe fields, got {overrides!r}")
    unknown = sorted(str(key) for key in overrides if key not in OVERRIDABLE)
    if unknown:
        raise InvalidValueError(
            f"TrainingConfig: overrides names no recipe field {', '.join(map(repr, unknown))}; expected some of "
            f"{', '.join(OVERRIDABLE)} (env_options is the config's own field)"
        )
    checked = {key: value for key, value in overrides.items() if value is not None}
    choices = {"algo": ALGORITHM_NAMES, "control": CONTROLS, "self_play": (*SELF_PLAY, SELF_PLAY_OFF)}
    for name, allowed in choices.items():
        if name in checked and checked[name] not in allowed:
            kind = "algorithm" if name == "algo" else f"{_flag(name)} value"
            raise UnknownNameError(f"unknown {kind} {checked[name]!r}; expected one of {', '.join(allowed)}")
    for name in ("opponents", "references", "seats"):
        if name in checked:
            checked[name] = _check_names(checked[name], name)
    for name, value in checked.items():
        if (name, value) in (("interface", RAW_INTERFACE), ("self_play", SELF_PLAY_OFF)):
            continue  # "none" and "off": the recipe's stack and self-play overridden by nothing
        try:
            TrainingRecipe(**{name: value})  # the recipe's own check of this one field
        except (InvalidValueError, InvalidTypeError) as err:
            message = str(err).replace(f"TrainingRecipe: {name}", _flag(name))
            raise type(err)(message) from None
    return checked


@dataclass(frozen=True)
class TrainingConfig:
    """One training run: the run's own settings, and the recipe fields it changes (``overrides``).

    What to train (interface, algorithm, opponents, self-play...) is a
    :class:`~arena.training.recipe.TrainingRecipe`: the env's, or the one a loaded run stored.
    ``overrides`` changes its fields by name, so each recipe field is declared once, there; the
    config's own fields are what only a run has (its length, folder, seed, device, progress).

    Attributes:
        env: the env's registered name or ``"module:callable"``.
        timesteps: learner steps to train (added to a loaded run's count).
        out: the trained-agent folder to write (default with ``load``: the loaded folder).
        load: a folder written by a previous run, to continue (model, optimizer state,
            timestep count, interface statistics, recipe, self-play pool, evaluations).
        force: write into an ``out`` folder that is not empty.
        sb3_zip: also write Stable-Baselines3's own ``model.zip`` into the folder (for other tools;
            arena never loads it).
        seed: seeds the envs, the model and the evaluation games.
        device: the torch device; ``threads``: torch CPU threads.
        workers: processes that step the games of a run on a worker batch (:mod:`arena.worker_batch`:
            an env without a compiled batch whose agents all act at once, for a seat or a shared side,
            :func:`~arena.training.vectorised.choose_path`); 0 steps them in this process.
            The games, and so the run, are the same for any number.
        progress: ``"auto"`` (a bar on a terminal, a line every ``progress_every``
            seconds otherwise), ``"bar"``, ``"lines"`` or ``"none"``.
        progress_every: seconds between progress lines.
        env_options: the env's keyword options (``None``: the recipe's, or the loaded run's).
        shuffle_seats: draw the learner's seat every episode (``False``: in turn).
        checkpoint_every: timesteps between saves of the folder while training (``None``: at every
            evaluation; 0: none but the last, and the one a Ctrl-C takes).
        overrides: recipe fields by name, over the recipe's (:data:`OVERRIDABLE`); a ``None`` value
            keeps the recipe's. ``"interface": "none"`` trains on raw observations, ``"self_play":
            "off"`` without self-play; ``"algo_options"`` are merged over the recipe's (which are
            dropped when ``"algo"`` names another algorithm); ``"fixed_eval_every"`` and
            ``"fixed_eval_games"`` (``--eval-every``, ``--eval-games``) fix the evaluation schedule
            (otherwise the recipe's, scaled to ``timesteps``, or a loaded run's fixed one).

    Raises:
        ValueError, TypeError: a value out of range or of the wrong kind, naming the flag.

    Example:
        >>> config = TrainingConfig("pommerman", timesteps=512, out="runs/pm", overrides={"fixed_eval_games": 2})
        >>> config.recipe().algo, config.recipe().eval_games_for(512)
        ('maskable-ppo', 2)
        >>> TrainingConfig("tic_tac_toe", out="runs/t", overrides={"opponents": ["mcts"]}).recipe().opponents
        ('mcts',)
        >>> TrainingConfig("pommerman", timesteps=0, out="x")
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: --timesteps must be at least 1, got 0
    """

    env: str
    timesteps: int = 100_000
    out: str | Path | None = None
    load: str | Path | None = None
    force: bool = False
    sb3_zip: bool = False
    seed: int = 0
    device: str = "cpu"
    threads: int = 1
    workers: int = 0
    progress: str = "auto"
    progress_every: float = 30.0
    env_options: Mapping[str, Any] | None = None
    shuffle_seats: bool = True
    checkpoint_every: int | None = None
    overrides: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.env, str) or not self.env:
            raise InvalidTypeError(f"env must be an env name or 'module:callable', got {self.env!r}")
        for name in ("timesteps", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidValueError(f"{_flag(name)} must be at least 1, got {value!r}")
        if isinstance(self.workers, bool) or not isinstance(self.workers, int) or self.workers < 0:
            raise InvalidValueError(f"--workers must be 0 (in this process) or more, got {self.workers!r}")
        every = self.checkpoint_every
        if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 0):
            raise InvalidValueError(f"--checkpoint-every must be a number of timesteps, 0 or more, got {every!r}")
        if self.out is None and self.load is None:
            raise InvalidValueError("--out is required (the folder to write the trained agent into)")
        if self.progress not in PROGRESS_MODES:
            raise InvalidValueError(f"--progress must be one of {', '.join(PROGRESS_MODES)}, got {self.progress!r}")
        if (
            isinstance(self.progress_every, bool)
            or not isinstance(self.progress_every, (int, float))
            or not (self.progress_every > 0)
        ):
            raise InvalidValueError(
                f"--progress-every must be a positive number of seconds, got {self.progress_every!r}"
            )
        if self.env_options is not None and not isinstance(self.env_options, Mapping):
            raise InvalidTypeError(f"--env-options must be a mapping, got {self.env_options!r}")
        object.__setattr__(self, "overrides", _checked_overrides(self.overrides))

    @property
    def folder(self) -> Path:
        """The folder the run writes: ``out``, or the loaded folder."""
        return Path(self.out) if self.out is not None else self.load_folder

    @property
    def load_folder(self) -> Path:
        """The folder this run continues (``load``).

        Raises:
            ValueError: the run continues no folder (``load`` is None).
        """
        if self.load is None:
            raise InvalidValueError("TrainingConfig: this run continues no folder (load is None)")
        return Path(self.load)

    def base_recipe(self, env_options: Mapping[str, Any] | None = None) -> TrainingRecipe:
        """The recipe before this config's fields: the loaded run's, else the env's."""
        if self.load is not None:
            stored = stored_recipe(self.load)
            if stored is not None:
                return stored
        return recipe_for(self.env, self.env_options if env_options is None else env_options)

    def recipe(self, base: TrainingRecipe | None = None) -> TrainingRecipe:
        """``base`` (default :meth:`base_recipe`) with this config's ``overrides``.

        The recipe's ``algo_options`` are kept only when the algorithm stays the recipe's; the
        overriding ``algo_options`` go over them. ``control="team"`` or ``"shared"`` drops the
        recipe's teammate (the model plays every seat of its side); a recipe's ``"shared"`` control
        yields (to ``"seat"``) to a given ``teammate``.
        """
        base = self.base_recipe() if base is None else base
        changes = dict(self.overrides)
        algo = changes.get("algo", base.algo)
        changes["algo_options"] = {
            **(base.algo_options if algo == base.algo else {}),
            **dict(changes.get("algo_options", {})),
        }
        raw = changes.get("interface") == RAW_INTERFACE
        no_self_play = changes.get("self_play") == SELF_PLAY_OFF
        changes = {key: value for key, value in changes.items() if not (raw and key == "interface")}
        changes = {key: value for key, value in changes.items() if not (no_self_play and key == "self_play")}
        recipe = base.replace(**changes)
        given = self.overrides
        if "control" not in given and recipe.control == "shared" and "teammate" in given:
            recipe = replace(recipe, control="seat")  # the recipe's shared side yields to a teammate
        if recipe.control in ("team", "shared") and "teammate" not in given:
            recipe = replace(recipe, teammate=None)  # the model plays every seat of its side: drop the recipe's
        if raw:
            recipe = replace(recipe, interface=None)
        return replace(recipe, self_play=None) if no_self_play else recipe


def stored_recipe(folder: str | Path) -> TrainingRecipe | None:
    """The recipe a trained folder was trained with (``None`` for folders written before recipes).

    Raises:
        ValueError: the stored recipe is not valid JSON or not a recipe.
    """
    path = Path(folder) / RECIPE_FILE
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise InvalidValueError(f"{path}: not valid JSON ({err})") from None
    return TrainingRecipe.from_json(data)
