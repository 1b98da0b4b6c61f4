"""One training run's configuration: what ``arena train`` parses its flags into.

:class:`TrainingConfig` is frozen and checks itself when made, so a bad value fails before
anything is built, with the flag's name in the message. Fields left ``None`` come from the
recipe: the stored one of a ``load`` run (:data:`RECIPE_FILE` in its folder), else the one the
env declares (:func:`arena.training.recipe.recipe_for`); :meth:`TrainingConfig.recipe` applies
the fields given on top.

This module needs only the standard library and arena's core: no Stable-Baselines3.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.errors import InvalidTypeError, InvalidValueError
from arena.training.recipe import (
    ALGORITHM_NAMES,
    CONTROLS,
    RAW_INTERFACE,
    SELF_PLAY,
    TrainingRecipe,
    recipe_for,
)

__all__ = ["PROGRESS_MODES", "RECIPE_FILE", "SELF_PLAY_OFF", "TrainingConfig", "stored_recipe"]

#: The file in a trained folder that keeps the recipe the run trained with (read by ``load``).
RECIPE_FILE = "recipe.json"
#: ``self_play``: no self-play, whatever the recipe or the loaded run says.
SELF_PLAY_OFF = "off"
#: ``progress``: a rich bar on a terminal, plain lines otherwise (``"auto"``), or one of them, or none.
PROGRESS_MODES = ("auto", "bar", "lines", "none")


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_names(value: Any, name: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(item, str) for item in value):
        raise InvalidTypeError(f"{_flag(name)} must be a sequence of names, got {value!r}")
    names = tuple(item.strip() for item in value if item.strip())
    if not names:
        raise InvalidValueError(f"{_flag(name)} needs at least one agent name, got none")
    return names


@dataclass(frozen=True)
class TrainingConfig:
    """Everything one training run needs; ``None`` means "what the recipe says".

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
        progress: ``"auto"`` (a bar on a terminal, a line every ``progress_every``
            seconds otherwise), ``"bar"``, ``"lines"`` or ``"none"``.
        progress_every: seconds between progress lines.
        env_options: the env's keyword options (``None``: the recipe's, or the loaded run's).
        seats: the seats (``control="team"``: the teams) the learner plays, over the recipe's.
        shuffle_seats: draw the learner's seat every episode (``False``: in turn).
        eval_every, eval_games: timesteps between evaluations and games per evaluation
            (``None``: the recipe's, scaled to ``timesteps``, or a loaded run's fixed ones).
        checkpoint_every: timesteps between saves of the folder while training (``None``: at every
            evaluation; 0: none but the last, and the one a Ctrl-C takes).
        algo_options: merged over the recipe's options (the recipe's are dropped when
            ``algo`` names another algorithm).
        interface ... team_spirit: override the recipe's fields of the same names
            (:class:`~arena.training.recipe.TrainingRecipe`); ``interface="none"`` trains on raw
            observations, ``self_play="off"`` without self-play.

    Raises:
        ValueError, TypeError: a value out of range or of the wrong kind, naming the flag.

    Example:
        >>> config = TrainingConfig("pommerman", timesteps=512, out="runs/pm", eval_games=2)
        >>> config.recipe().interface, config.recipe().eval_games_for(512)
        ('pommerman_features', 2)
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
    progress: str = "auto"
    progress_every: float = 30.0
    env_options: Mapping[str, Any] | None = None
    seats: tuple[str, ...] | None = None
    shuffle_seats: bool = True
    eval_every: int | None = None
    eval_games: int | None = None
    algo_options: Mapping[str, Any] = field(default_factory=dict)
    interface: str | None = None
    algo: str | None = None
    policy: str | None = None
    opponents: tuple[str, ...] | None = None
    references: tuple[str, ...] | None = None
    teammate: str | None = None
    control: str | None = None
    self_play: str | None = None
    promote_at: float | None = None
    pool_size: int | None = None
    window: int | None = None
    n_envs: int | None = None
    team_spirit: float | None = None
    checkpoint_every: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.env, str) or not self.env:
            raise InvalidTypeError(f"env must be an env name or 'module:callable', got {self.env!r}")
        for name in ("timesteps", "threads"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidValueError(f"{_flag(name)} must be at least 1, got {value!r}")
        for name in ("eval_every", "eval_games", "pool_size", "window", "n_envs"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidValueError(f"{_flag(name)} must be at least 1, got {value!r}")
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
        choices = {
            "algo": ALGORITHM_NAMES,
            "control": CONTROLS,
            "self_play": (*SELF_PLAY, SELF_PLAY_OFF),
        }
        for name, allowed in choices.items():
            value = getattr(self, name)
            if value is not None and value not in allowed:
                from arena.errors import UnknownNameError

                kind = "algorithm" if name == "algo" else f"{_flag(name)} value"
                raise UnknownNameError(f"unknown {kind} {value!r}; expected one of {', '.join(allowed)}")
        if self.promote_at is not None and not 0.0 <= self.promote_at <= 1.0:
            raise InvalidValueError(f"--promote-at must lie in [0, 1], got {self.promote_at!r}")
        for name in ("env_options", "algo_options"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Mapping):
                raise InvalidTypeError(f"{_flag(name)} must be a mapping, got {value!r}")
        object.__setattr__(self, "opponents", _check_names(self.opponents, "opponent"))
        object.__setattr__(self, "references", _check_names(self.references, "reference"))
        if self.seats is not None:
            object.__setattr__(self, "seats", _check_names(self.seats, "seats"))

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
        """``base`` (default :meth:`base_recipe`) with the fields this config gives.

        The recipe's ``algo_options`` are kept only when the algorithm stays the recipe's;
        this config's ``algo_options`` go over them. ``control="team"`` or ``"shared"`` drops the
        recipe's teammate (the model plays every seat of its side); a recipe's ``"shared"`` control
        yields (to ``"seat"``) to a given ``teammate``.
        """
        base = self.base_recipe() if base is None else base
        algo = self.algo or base.algo
        algo_options = {**(base.algo_options if algo == base.algo else {}), **dict(self.algo_options)}
        recipe = base.replace(
            interface=None if self.interface == RAW_INTERFACE else self.interface,
            algo=algo,
            algo_options=algo_options,
            policy=self.policy,
            opponents=self.opponents,
            references=self.references,
            teammate=self.teammate,
            control=self.control,
            seats=self.seats,
            self_play=None if self.self_play == SELF_PLAY_OFF else self.self_play,
            promote_at=self.promote_at,
            pool_size=self.pool_size,
            window=self.window,
            fixed_eval_every=self.eval_every,
            fixed_eval_games=self.eval_games,
            n_envs=self.n_envs,
            team_spirit=self.team_spirit,
        )
        if self.control is None and recipe.control == "shared" and self.teammate is not None:
            recipe = replace(recipe, control="seat")  # the recipe's shared side yields to a teammate
        if recipe.control in ("team", "shared") and self.teammate is None:
            recipe = replace(recipe, teammate=None)  # the model plays every seat of its side: drop the recipe's
        if self.interface == RAW_INTERFACE:
            recipe = replace(recipe, interface=None)
        return replace(recipe, self_play=None) if self.self_play == SELF_PLAY_OFF else recipe


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
