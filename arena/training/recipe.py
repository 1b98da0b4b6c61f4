"""Training recipes: how an env trains by default, declared beside the env and found by name.

A :class:`TrainingRecipe` says what ``arena train ENV`` uses when the command line says
nothing else: the learner's interface stack, the algorithm and its options, the policy, the
opponents and the self-play pool, the reference agents and the evaluation budget. An env
declares its recipe through the ``arena.recipes`` entry-point group, under the env's
registered name (the bundled envs do so in ``setup.cfg``, the recipe living beside the env:
``envs.pommerman.recipe:training_recipe``); :func:`recipe_for` finds it. The entry point is a
:class:`TrainingRecipe` or a callable that takes the env's options as keywords and returns one
(Pommerman's team mode trains differently from its free-for-all). An env without a recipe
trains with :data:`DEFAULT_RECIPE`. Flags of ``arena train`` override single fields
(:meth:`arena.training.config.TrainingConfig.recipe`).

This module needs only the standard library: importing it never imports Stable-Baselines3.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.errors import InvalidTypeError, InvalidValueError, PluginError, UnknownNameError
from arena.registry import resolve

__all__ = [
    "ALGORITHM_NAMES",
    "BATCHED_RECIPE",
    "CONTROLS",
    "DEFAULT_RECIPE",
    "MIN_EVAL_GAMES",
    "RAW_INTERFACE",
    "REMOVED_FIELDS",
    "SELF_PLAY",
    "TrainingRecipe",
    "default_algo_options",
    "recipe_for",
]

ALGORITHM_NAMES = ("maskable-ppo", "ppo", "a2c", "dqn")
SELF_PLAY = ("latest", "uniform")
CONTROLS = ("seat", "team", "shared")
#: The interface spec that means "the raw observations" (a recipe's stack overridden by none).
RAW_INTERFACE = "none"
#: The fewest games a scaled-down evaluation plays (unless the recipe asks fewer at full budget): the
#: learning curve draws a win rate as a result from this many games (a 95% interval at most about 60
#: points wide), where 2 games put the curve at 0% or 100% at a stroke.
MIN_EVAL_GAMES = 10

# The batched path's MaskablePPO recipe (docs/performance.md, "Training connect four"): 64 games x 32
# steps = 2,048 samples per update, 4 epochs of minibatches of 1,024, two hidden layers of 128 for the
# policy and the value net. bench/train_connect_four.py's batched path defaults to the same.
BATCHED_RECIPE: dict[str, Any] = {
    "n_envs": 64,
    "n_steps": 32,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "ent_coef": 0.01,
    "gamma": 0.99,
    "net_arch": [128, 128],
}


def _names(value: Any, what: str, *, empty: bool = False) -> tuple[str, ...]:
    if isinstance(value, str) or not all(isinstance(name, str) and name.strip() for name in value):
        raise InvalidTypeError(f"TrainingRecipe: {what} must be a sequence of agent names, got {value!r}")
    names = tuple(name.strip() for name in value)
    if not names and not empty:
        raise InvalidValueError(f"TrainingRecipe: {what} needs at least one agent name, got none")
    return names


def _positive(value: Any, what: str, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidValueError(
            f"TrainingRecipe: {what} must be a positive integer{' or None' if optional else ''}, got {value!r}"
        )


def _choice(value: Any, what: str, choices: tuple[str, ...], *, optional: bool = False) -> None:
    if not (value in choices or (optional and value is None)):
        raise InvalidValueError(
            f"TrainingRecipe: {what} must be one of {', '.join(choices)}{' or None' if optional else ''}, got {value!r}"
        )


#: Fields a recipe once had, both saying how its games were stepped, which the run now chooses
#: (:func:`arena.training.vectorised.choose_path`); :meth:`TrainingRecipe.from_json` still reads them.
REMOVED_FIELDS = ("path", "vec_env")


def _unknown_fields_text(unknown: list[str], known: list[str]) -> str:
    """What :class:`TrainingRecipe` says of keyword arguments that are none of its fields."""
    names = ", ".join(map(repr, unknown))
    text = f"TrainingRecipe: unknown field{'s' if len(unknown) > 1 else ''} {names}"
    removed = [name for name in unknown if name in REMOVED_FIELDS]
    if removed:
        text += (
            f" ({' and '.join(REMOVED_FIELDS)} were removed: the run chooses how to step its games from what the "
            "recipe trains; control='shared' trains one policy in every seat of its side)"
        )
    return f"{text}; the fields are {', '.join(known)}"


@dataclass(frozen=True)
class TrainingRecipe:
    """What an env trains with by default: interface, algorithm, opponents, evaluation budget.

    Every field has the generic default, so a recipe names only what its env needs.
    The evaluation budget scales with the run: once a run is ``full_budget`` steps long it
    evaluates ``evaluations`` times (every ``timesteps // evaluations`` steps) with
    ``eval_games`` games each; a shorter run evaluates proportionally fewer times
    (:meth:`evaluations_for`, at least twice) with proportionally fewer games
    (:meth:`eval_games_for`: an even number, both seats of a two-player game, and at least
    :data:`MIN_EVAL_GAMES` or ``eval_games`` if fewer), so a short run is not spent on evaluation,
    while its last evaluation, the figure ``arena train`` reports, plays ``eval_games`` in full
    (:meth:`final_eval_games`).

    Attributes:
        interface: the learner's interface stack in arena's interface syntax (``None``: raw).
        algo: ``"maskable-ppo"``, ``"ppo"``, ``"a2c"`` or ``"dqn"``.
        algo_options: keyword options for the algorithm, over :func:`default_algo_options`.
        policy: the SB3 policy name (``None``: ``MlpPolicy``, ``CnnPolicy`` for images,
            ``MultiInputPolicy`` for dicts).
        opponents: the starting opponents (agent specs; several make a pool drawn from
            uniformly every game, a name given twice drawn twice as often).
        references: fixed agents evaluated against; the first draws the learning curve.
        teammate: in team games, the frozen agent beside a one-seat learner.
        control: ``"seat"`` (the model plays one seat), ``"team"`` (one model for a whole side, the
            members' observations concatenated) or ``"shared"`` (one policy in every seat of its side,
            each seat acting on its own observation: parameter sharing).
        seats: the seats (``control="team"``: the teams) the learner plays (``None``: all), e.g.
            one kind of unit where kinds have different spaces.
        self_play: ``None``, ``"latest"`` or ``"uniform"``: snapshots of the learner join the pool.
        promote_at: the score against the pool that promotes the learner (self-play).
        pool_size: the most opponents the self-play pool keeps (``None``: all).
        window: games in the promotion window (``None``: the evaluation games).
        evaluations: evaluation points over a run (besides the one at the start).
        eval_games: games per evaluation (against each reference and the pool) at full budget.
        full_budget: the run length, in timesteps, from which ``eval_games`` are played in full.
        fixed_eval_every, fixed_eval_games: an evaluation schedule that does not scale with the
            run (``arena train --eval-every/--eval-games``; kept in a trained folder's recipe, so a
            ``--load`` segment evaluates as the run it continues). ``None``: the scaled budget.
        n_envs: games stepped together (``None``: 64 on a batch, 4 otherwise).
        team_spirit: with ``control="shared"``, how much of each member's reward is its side's mean
            (OpenAI Five's "team spirit": 0 its own reward, 1 the side's mean).

    How the games are stepped (one numpy batch, a side's seats as slots, one env per game) is no
    field: :func:`arena.training.vectorised.choose_path` derives it from what the recipe trains.
        env_options: options the env is built with unless the command line gives its own.

    Example:
        >>> recipe = TrainingRecipe(interface="ego_board", eval_games=40, full_budget=100_000)
        >>> recipe.eval_games_for(100_000), recipe.eval_games_for(50_000), recipe.eval_games_for(512)
        (40, 20, 10)
        >>> recipe.final_eval_games()
        40
        >>> recipe.eval_every_for(100_000), recipe.eval_every_for(10_000), recipe.eval_every_for(512)
        (5000, 5000, 256)
        >>> TrainingRecipe(self_play="best")
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: TrainingRecipe: self_play must be one of latest, uniform or None, got 'best'
    """

    interface: str | None = None
    algo: str = "maskable-ppo"
    algo_options: Mapping[str, Any] = field(default_factory=dict)
    policy: str | None = None
    opponents: tuple[str, ...] = ("random",)
    references: tuple[str, ...] = ("random",)
    teammate: str | None = None
    control: str = "seat"
    seats: tuple[str, ...] | None = None
    self_play: str | None = None
    promote_at: float = 0.6
    pool_size: int | None = None
    window: int | None = None
    evaluations: int = 20
    eval_games: int = 50
    full_budget: int = 100_000
    fixed_eval_every: int | None = None
    fixed_eval_games: int | None = None
    n_envs: int | None = None
    team_spirit: float = 0.0
    env_options: Mapping[str, Any] = field(default_factory=dict)

    def __new__(cls, *args: Any, **fields: Any) -> TrainingRecipe:
        # Name an unknown keyword before the dataclass's __init__ refuses it with a bare TypeError.
        known = [item.name for item in dataclasses.fields(cls)]
        unknown = sorted(set(fields) - set(known))
        if unknown:
            raise InvalidTypeError(_unknown_fields_text(unknown, known))
        return super().__new__(cls)

    def __post_init__(self) -> None:
        if self.interface is not None and not isinstance(self.interface, str):
            raise InvalidTypeError(
                f"TrainingRecipe: interface must be an interface spec (str) or None, got "
                f"{type(self.interface).__name__}"
            )
        _choice(self.algo, "algo", ALGORITHM_NAMES)
        _choice(self.control, "control", CONTROLS)
        _choice(self.self_play, "self_play", SELF_PLAY, optional=True)
        for name in ("algo_options", "env_options"):
            if not isinstance(getattr(self, name), Mapping):
                raise InvalidTypeError(f"TrainingRecipe: {name} must be a mapping, got {getattr(self, name)!r}")
            object.__setattr__(self, name, dict(getattr(self, name)))
        object.__setattr__(self, "opponents", _names(self.opponents, "opponents"))
        object.__setattr__(self, "references", _names(self.references, "references"))
        if self.seats is not None:
            object.__setattr__(self, "seats", _names(self.seats, "seats"))
        if self.teammate is not None and not (isinstance(self.teammate, str) and self.teammate.strip()):
            raise InvalidTypeError(f"TrainingRecipe: teammate must be an agent name or None, got {self.teammate!r}")
        if self.policy is not None and not isinstance(self.policy, str):
            raise InvalidTypeError(f"TrainingRecipe: policy must be an SB3 policy name or None, got {self.policy!r}")
        if (
            isinstance(self.promote_at, bool)
            or not isinstance(self.promote_at, (int, float))
            or not (0.0 <= self.promote_at <= 1.0)
        ):
            raise InvalidValueError(f"TrainingRecipe: promote_at must be a number in [0, 1], got {self.promote_at!r}")
        for name in ("evaluations", "eval_games", "full_budget"):
            _positive(getattr(self, name), name)
        for name in ("pool_size", "window", "n_envs", "fixed_eval_every", "fixed_eval_games"):
            _positive(getattr(self, name), name, optional=True)
        spirit = self.team_spirit
        if isinstance(spirit, bool) or not isinstance(spirit, (int, float)) or not 0.0 <= spirit <= 1.0:
            raise InvalidValueError(f"TrainingRecipe: team_spirit must be a number in [0, 1], got {spirit!r}")

    def eval_games_for(self, timesteps: int) -> int:
        """Games per evaluation for a run of ``timesteps``: ``eval_games`` scaled down for short runs,
        to no fewer than :data:`MIN_EVAL_GAMES` (``fixed_eval_games`` if set)."""
        if self.fixed_eval_games is not None:
            return self.fixed_eval_games
        scaled = self.eval_games * min(1.0, timesteps / self.full_budget)
        return max(min(self.eval_games, MIN_EVAL_GAMES), min(self.eval_games, 2 * round(scaled / 2)))

    def final_eval_games(self) -> int:
        """Games of a run's last evaluation, the one it reports: ``eval_games`` whatever the run's
        length (``fixed_eval_games`` if set)."""
        return self.fixed_eval_games if self.fixed_eval_games is not None else self.eval_games

    def evaluations_for(self, timesteps: int) -> int:
        """Evaluation points of a run of ``timesteps`` (besides the first, at the start):
        ``evaluations`` at full budget, proportionally fewer below, at least 2."""
        return max(2, min(self.evaluations, math.ceil(self.evaluations * timesteps / self.full_budget)))

    def eval_every_for(self, timesteps: int) -> int:
        """Timesteps between evaluations for a run of ``timesteps`` (``fixed_eval_every`` if set)."""
        if self.fixed_eval_every is not None:
            return self.fixed_eval_every
        return max(1, timesteps // self.evaluations_for(timesteps))

    def replace(self, **changes: Any) -> TrainingRecipe:
        """A copy with ``changes`` (checked again); ``None`` values leave a field as it is."""
        return dataclasses.replace(self, **{key: value for key, value in changes.items() if value is not None})

    def to_json(self) -> dict[str, Any]:
        """The recipe as JSON data (what a trained folder keeps for ``--load``)."""
        return {item.name: _plain(getattr(self, item.name)) for item in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrainingRecipe:
        """The recipe :meth:`to_json` wrote; unknown keys are refused by name.

        A recipe written by an earlier arena, before the run derived how to step its games, may hold
        a ``path`` key or a ``vec_env`` (the env's own trainer, a name in a removed entry-point group):
        both are dropped, since the run now chooses, and ``path="side"`` or ``vec_env="pommerman_team"``
        (one policy in every seat of its side) are read as ``control="shared"``, what they trained, so a
        ``--load`` goes on training the same learner.

        Raises:
            ValueError: ``data`` is not a mapping of known fields, or a field is invalid.

        Example:
            >>> TrainingRecipe.from_json({"path": "side", "algo": "ppo"}).control
            'shared'
        """
        if isinstance(data, Mapping) and set(REMOVED_FIELDS) & set(data):
            data = _without_path(data)
        known = {item.name for item in dataclasses.fields(cls)}
        if not isinstance(data, Mapping) or set(data) - known:
            extra = sorted(set(data) - known) if isinstance(data, Mapping) else type(data).__name__
            raise InvalidValueError(
                f"TrainingRecipe.from_json: expected a mapping of {', '.join(sorted(known))}; got {extra}"
            )
        values: dict[str, Any] = {
            key: tuple(value) if key in ("opponents", "references", "seats") and isinstance(value, list) else value
            for key, value in data.items()
        }
        try:
            return cls(**values)
        except TypeError as err:
            raise InvalidValueError(f"TrainingRecipe.from_json: {err}") from None


#: The env trainers of the removed ``arena.vec_envs`` group whose learner played every seat of its side.
_SHARED_TRAINERS = ("pommerman_team",)


def _without_path(data: Mapping[str, Any]) -> dict[str, Any]:
    """A stored recipe from before the run derived its path, in today's fields: ``path="side"`` trained
    one policy in every seat of its side (``control="shared"``); the other paths and ``vec_env`` said
    only how games were stepped, which the run now chooses itself, but for the trainers that played every
    seat of the learner's side (:data:`_SHARED_TRAINERS`)."""
    values = {key: value for key, value in data.items() if key not in REMOVED_FIELDS}
    shared = data.get("path") == "side" or data.get("vec_env") in _SHARED_TRAINERS
    if shared and values.get("control", "seat") == "seat":
        values["control"] = "shared"
    return values


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


#: The recipe of an env that declares none: raw observations, MaskablePPO against ``random``.
DEFAULT_RECIPE = TrainingRecipe()


def recipe_for(env: str, env_options: Mapping[str, Any] | None = None) -> TrainingRecipe:
    """The training recipe ``env`` declares (entry-point group ``arena.recipes``), or the default.

    Args:
        env: a registered env name; a ``"module:callable"`` spec has no recipe of its own.
        env_options: the options the env will be built with (a callable recipe receives them).

    Raises:
        PluginError: the declared recipe fails to import, or is not a :class:`TrainingRecipe`.

    Example:
        >>> recipe_for("pommerman").opponents
        ('pommerman_simple',)
        >>> recipe_for("some.module:factory") == DEFAULT_RECIPE
        True
    """
    if ":" in env:
        return DEFAULT_RECIPE
    try:
        declared = resolve("recipe", env)
    except PluginError:
        raise
    except UnknownNameError:
        return DEFAULT_RECIPE
    recipe = declared if isinstance(declared, TrainingRecipe) else None
    if recipe is None and callable(declared):
        recipe = _called_recipe(env, declared, dict(env_options or {}))
    if not isinstance(recipe, TrainingRecipe):
        raise PluginError(
            f"the training recipe of {env!r} must be an arena.training.TrainingRecipe (or a callable "
            f"returning one), got {type(recipe if recipe is not None else declared).__name__}"
        )
    return recipe


def _called_recipe(env: str, declared: Any, env_options: dict[str, Any]) -> Any:
    """What the callable recipe of ``env`` returns for ``env_options``; a :class:`PluginError` says
    whether it refused the options (named ones it does not take) or failed building its recipe."""
    try:
        inspect.signature(declared).bind(**env_options)
    except TypeError as err:
        raise PluginError(f"the training recipe of {env!r} refused the env options {env_options}: {err}") from None
    except ValueError:  # no signature to read (a builtin): calling it tells
        pass
    try:
        return declared(**env_options)
    except (TypeError, ValueError) as err:
        raise PluginError(f"the training recipe of {env!r} failed (env options {env_options}): {err}") from None


def default_algo_options(algo: str, timesteps: int, n_envs: int, path: str = "single") -> dict[str, Any]:
    """The algorithm options a run uses under its recipe's ``algo_options``.

    On the batched path, MaskablePPO gets :data:`BATCHED_RECIPE` (the minibatch no larger
    than a rollout). Elsewhere PPO and A2C get rollout sizes that give a run of
    ``timesteps`` several updates: SB3's PPO default (2048 steps per env per rollout)
    would spend a short run on one rollout and learn nothing.

    Example:
        >>> default_algo_options("ppo", 100_000, 4)
        {'n_steps': 2048, 'batch_size': 256}
    """
    if algo == "maskable-ppo" and path == "batched":
        recipe = BATCHED_RECIPE
        return {
            "n_steps": recipe["n_steps"],
            "batch_size": min(recipe["batch_size"], recipe["n_steps"] * n_envs),
            "n_epochs": recipe["n_epochs"],
            "learning_rate": recipe["learning_rate"],
            "ent_coef": recipe["ent_coef"],
            "gamma": recipe["gamma"],
            "policy_kwargs": {"net_arch": list(recipe["net_arch"])},
        }
    if algo in ("ppo", "maskable-ppo"):
        n_steps = max(32, min(2048, timesteps // (8 * n_envs)))
        return {"n_steps": n_steps, "batch_size": min(256, n_steps * n_envs)}
    return {}
