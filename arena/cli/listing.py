"""``arena envs`` and ``arena agents``: list what the registry can build by name."""

from __future__ import annotations

import argparse

from arena.plugins import summary_of
from arena.registry import agent_names, env_names, name_clashes, resolve
from arena.text import printable

__all__ = ["register", "summary_line"]


def summary_line(kind: str, name: str) -> str:
    """The first paragraph of the docstring of what ``name`` builds (one line of plain text), or why it cannot be loaded.

    Example:
        >>> summary_line("agent", "random")
        'Uniformly random legal actions; seeded, and fast on Discrete spaces.'
    """
    try:
        factory = resolve(kind, name)
    except Exception as err:  # a broken plugin is listed with its reason, the others still show
        return f"(cannot be loaded: {type(err).__name__}: {err})"
    return summary_of(factory)


def register(subparsers: argparse._SubParsersAction) -> None:
    envs = subparsers.add_parser("envs", help="list the env names `arena play` and `arena tournament` accept")
    envs.set_defaults(run=lambda args: _print("env", env_names()))
    agents = subparsers.add_parser("agents", help="list the agent names `--agents` accepts")
    agents.set_defaults(run=lambda args: _print("agent", agent_names()))


def _print(kind: str, names: list[str]) -> int:
    width = max((len(name) for name in names), default=0)
    for name in names:
        print(printable(f"{name:<{width}}  {summary_line(kind, name)}"))  # summaries are plugins' text
    if not names:
        print(f"(no {kind}s registered)")
    for clash in name_clashes(kind):
        print(printable(f"name clash: {clash}"))
    print(f"or give 'package.module:callable' for any {kind} factory")
    return 0
