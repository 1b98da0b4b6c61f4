"""Arguments several subcommands take, written once so that they read and mean the same everywhere."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

__all__ = ["env_arguments", "progress_arguments", "removed_flag"]


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


def progress_arguments(parser: argparse.ArgumentParser, choices: Sequence[str], help: str) -> None:
    """Add ``--progress {choices}`` (default ``auto``; ``none`` shows nothing) and refuse the old
    ``--no-progress`` with an error that names ``--progress none``.

    Example:
        >>> parser = argparse.ArgumentParser()
        >>> progress_arguments(parser, ("auto", "none"), "auto: a bar on a terminal; none: nothing")
        >>> parser.parse_args(["--progress", "none"]).progress
        'none'
    """
    parser.add_argument("--progress", choices=tuple(choices), default="auto", help=help)
    removed_flag(parser, "--no-progress", "--progress none")


def removed_flag(parser: argparse.ArgumentParser, flag: str, replacement: str, *, takes_value: bool = False) -> None:
    """Make a removed flag stop parsing with ``FLAG was removed: use REPLACEMENT`` (exit status 2),
    rather than argparse's "unrecognized arguments", which would not say what to write instead.
    The flag is left out of ``--help``; ``takes_value``: it took a value (``--path side``, ``--path=side``)."""
    nargs = "?" if takes_value else 0
    parser.add_argument(flag, action=_RemovedFlag, nargs=nargs, replacement=replacement, help=argparse.SUPPRESS)


class _RemovedFlag(argparse.Action):
    """The action of a flag that no longer exists: its use is an argparse error naming the replacement."""

    def __init__(self, *args: Any, replacement: str, **kwargs: Any) -> None:
        self.replacement = replacement
        super().__init__(*args, **kwargs)

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        parser.error(f"{option} was removed: use {self.replacement}")
