"""The ``arena`` command line.

Each subcommand lives in its own module under ``arena.cli`` and exposes
``register(subparsers)``; the module names are listed in ``SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from arena.errors import ArenaError
from arena.text import printable

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
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    subparsers.required = True
    for module in SUBCOMMANDS:
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the process exit code (2 for bad input, with a one-line reason)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (ArenaError, ValueError, TypeError) as err:
        print(f"arena {args.command}: error: {printable(err)}", file=sys.stderr)  # errors quote stored text
        return 2
    except KeyboardInterrupt:
        print(f"arena {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
