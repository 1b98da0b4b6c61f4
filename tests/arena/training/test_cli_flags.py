"""`arena train`'s flags come from one table keyed by TrainingConfig's fields and the recipe fields it
overrides: a field without a flag, or a flag without a field, fails here (no Stable-Baselines3 needed)."""

from __future__ import annotations

import argparse
import dataclasses

from arena.cli import build_parser
from arena.cli.train import FLAGS, RECIPE_FIELDS_WITHOUT_FLAGS, config_from_args
from arena.training.config import OVERRIDABLE, TrainingConfig
from arena.training.recipe import TrainingRecipe

CONFIG_FIELDS = [field.name for field in dataclasses.fields(TrainingConfig) if field.name != "overrides"]
RECIPE_FIELDS = [field.name for field in dataclasses.fields(TrainingRecipe)]
FIELDS = CONFIG_FIELDS + [name for name in OVERRIDABLE if name not in RECIPE_FIELDS_WITHOUT_FLAGS]
#: Parser entries that are no config field: help, the error switch every command has, removed flags.
NOT_FIELDS = {"help", "traceback", "no_progress", "path"}


def _train_parser() -> argparse.ArgumentParser:
    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices["train"]


def _config(*flags: str) -> TrainingConfig:
    return config_from_args(build_parser().parse_args(["train", "tic_tac_toe", *flags]))


def test_every_config_field_has_one_flag_and_every_flag_a_field():
    assert sorted(FLAGS) == sorted(FIELDS)
    dests = [action.dest for action in _train_parser()._actions if action.dest not in NOT_FIELDS]
    assert sorted(dests) == sorted(FIELDS)


def test_a_recipe_field_is_declared_once_in_the_recipe_not_again_in_the_config():
    # env_options choose the recipe (a callable recipe receives them): the run's, kept apart from the
    # recipe's default options.
    assert set(CONFIG_FIELDS) & set(RECIPE_FIELDS) == {"env_options"}
    assert set(OVERRIDABLE) == set(RECIPE_FIELDS) - {"env_options"}
    config = _config("--out", "run", "--interface", "flatten", "--n-envs", "2", "--eval-games", "4")
    assert config.overrides == {"interface": "flatten", "n_envs": 2, "fixed_eval_games": 4}
    recipe = config.recipe()
    assert (recipe.interface, recipe.n_envs, recipe.fixed_eval_games) == ("flatten", 2, 4)


def test_flags_left_out_are_the_configs_defaults():
    assert _config("--out", "run") == TrainingConfig("tic_tac_toe", out="run")


def test_flags_reach_their_fields_read_as_the_field_wants():
    config = _config(
        "--out", "run", "--opponent", 'random,deep=mcts{"simulations": 4, "seed": 1}', "--no-shuffle",
        "--algo-options", '{"learning_rate": 0.001}', "--env-options", "{}", "--seats", "player_1",
        "--timesteps", "64", "--progress", "none", "--self-play", "off", "--promote-at", "0.5",
    )  # fmt: skip
    given = config.overrides
    assert given["opponents"] == ("random", 'deep=mcts{"simulations": 4, "seed": 1}')
    assert (config.shuffle_seats, given["algo_options"], config.env_options) == (False, {"learning_rate": 0.001}, {})
    assert (given["seats"], config.timesteps, config.progress) == (("player_1",), 64, "none")
    assert (given["self_play"], given["promote_at"]) == ("off", 0.5)


def test_help_names_each_flag_by_its_option_and_shows_the_defaults():
    text = _train_parser().format_help()
    assert "--opponent OPPONENT" in text and "--no-shuffle" in text and "(default 100000)" in text
    assert "--no-progress" not in text
