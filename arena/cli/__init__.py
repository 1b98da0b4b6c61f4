"""The ``arena`` command line.

Each subcommand lives in its own module under ``arena.cli`` and exposes
``register(subparsers)``; the module names are listed in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
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
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in SUBCOMMANDS:
        importlib.import_module(module).register(subparsers)
    return parser


def _version() -> str:
    import arena

    return arena.__version__


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (2 for bad input, with a one-line reason)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    shadowed = shadowed_packages()
    if shadowed:  # every bundled env, agent and interface would fail to import, far from the cause
        print(f"arena {args.command}: error: {printable(shadowed[0])}", file=sys.stderr)
        return 2
    try:
        return int(args.run(args) or 0)
    except (ArenaError, ValueError, TypeError) as err:
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
