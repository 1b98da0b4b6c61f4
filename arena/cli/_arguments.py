"""Arguments several subcommands take, written once so that they read and mean the same everywhere."""

from __future__ import annotations

import argparse

__all__ = ["env_arguments"]


def env_arguments(parser: argparse.ArgumentParser, options_example: str | None = None) -> None:
    """Add the env to play: ``env`` (a registered name or ``package.module:factory``) and
    ``--env-options`` (its JSON keyword options, read by :func:`arena.specs.options.parse_env_options`).

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> env_arguments(parser, '{"rounds": 5}')
        >>> vars(parser.parse_args(["tic_tac_toe", "--env-options", "{}"]))
        {'env': 'tic_tac_toe', 'env_options': '{}'}
    """
    parser.add_argument("env", help="env name (see `arena envs`) or 'package.module:factory'")
    example = f", e.g. '{options_example}'" if options_example else ""
    parser.add_argument("--env-options", default=None, help=f"JSON keyword options for the env{example}")
