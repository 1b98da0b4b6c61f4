"""The ``arena`` command line.

Each subcommand lives in its own module under ``arena.cli`` and exposes
``register(subparsers)``; the module names are listed in ``SUBCOMMANDS``.

A user's mistake (an :class:`~arena.errors.ArenaError`, or a bad flag, which argparse
reports) ends the command with one line and exit status 2; ``--traceback`` adds the
traceback. Any other exception is a bug in arena or in a plugin: it is not caught, so
Python shows its traceback and the status is 1.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence

from arena.errors import ArenaError
from arena.text import printable
from arena.working_folder import shadowed_packages

__all__ = ["main", "build_parser"]

SUBCOMMANDS = [
    "arena.cli.play",
    "arena.cli.interfaces",
    "arena.cli.train",
    "arena.cli.tournament",
    "arena.cli.report",
    "arena.cli.listing",
    "arena.cli.replay",
    "arena.cli.serve",
]


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(prog="arena", description="Multi-agent RL: play, evaluate and train agents.")
    parser.add_argument("--version", action="version", version=f"arena {_version()}")
    parser.add_argument("--traceback", action="store_true", help=_TRACEBACK_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in SUBCOMMANDS:
        importlib.import_module(module).register(subparsers)
    for subparser in subparsers.choices.values():
        # Also after the subcommand; SUPPRESS keeps a flag given before it from being reset to False.
        subparser.add_argument("--traceback", action="store_true", default=argparse.SUPPRESS, help=_TRACEBACK_HELP)
    return parser


_TRACEBACK_HELP = "on an error, print the traceback as well as the one-line reason"


def _version() -> str:
    import arena

    return arena.__version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (2 for bad input, with a one-line reason).

    Raises:
        SystemExit: argparse's exit (2 for a bad flag, 0 for ``--help``).
        Exception: anything that is not an :class:`~arena.errors.ArenaError`: a bug, shown
            with its traceback (exit status 1 from the ``arena`` script).

    Example:
        >>> main(["train", "tic_tac_toe", "--timesteps", "0"])  # stderr: arena train: error: --timesteps must ...
        2
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    shadowed = shadowed_packages()
    if shadowed:  # every bundled env, agent and interface would fail to import, far from the cause
        print(f"arena {args.command}: error: {printable(shadowed[0])}", file=sys.stderr)
        return 2
    try:
        return int(args.run(args) or 0)
    except ArenaError as err:  # a user's mistake: one line; not ValueError or TypeError, which bugs raise too
        if getattr(args, "traceback", False):
            traceback.print_exc()
        print(f"arena {args.command}: error: {printable(err)}", file=sys.stderr)  # errors quote stored text
        return 2
    except KeyboardInterrupt:
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`arena ... | head`): stop quietly, as Python's docs advise
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
