"""``arena interfaces [--check [NAMES]]``: list built-in and plugin interfaces, and broken plugins.

Uses ``rich`` for the table when it is installed (the ``cli`` extra), plain text otherwise.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Collection, Sequence

from arena.cli._text import plain
from arena.errors import InvalidValueError, UnknownNameError
from arena.plugins import InterfaceEntry, interface_registry
from arena.specs.interfaces import options_text
from arena.suggest import did_you_mean
from arena.text import printable

__all__ = ["register", "run", "format_plain"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "interfaces",
        help="list the interfaces arena finds (built-in and plugins) and report broken plugins",
        description="List every interface declared in the 'arena.interfaces' entry points with its summary "
        "and package. Plugins that fail to import or break the contract are reported with the reason.",
    )
    parser.add_argument(
        "--check",
        nargs="?",
        const=True,
        default=False,
        metavar="NAMES",
        help="also run arena.testing.check_interface on each interface's contract_examples(), or only on "
        "the comma-separated NAMES (every interface takes about a second); exit status 1 if any "
        "interface is broken",
    )
    parser.add_argument(
        "--examples", type=int, default=10, help="generated examples per rule with --check (default 10)"
    )
    parser.add_argument("--plain", action="store_true", help="plain text even when rich is installed")
    parser.set_defaults(run=run)


def _status(entry: InterfaceEntry, checked: bool | Collection[str]) -> str:
    if not entry.ok:
        return "broken"
    if entry.checked:
        return "checked"
    asked = checked is True or (not isinstance(checked, bool) and entry.name in checked)
    return "no examples" if asked else "not checked" if checked else "ok"


def format_plain(entries: Sequence[InterfaceEntry], checked: bool | Collection[str] = False) -> str:
    """The listing as aligned plain text: working interfaces, then broken plugins with reasons.

    Example:
        >>> from arena.plugins import InterfaceEntry
        >>> from interfaces import FrameStack
        >>> print(format_plain([InterfaceEntry("stack", "my-plugin", "m:S", "Stack frames.", FrameStack)]))
        NAME   PACKAGE    OPTIONS   SUMMARY
        stack  my-plugin  frames=4  Stack frames.
        1 interface(s), 0 broken
    """
    working = [e for e in entries if e.ok]
    broken = [e for e in entries if not e.ok]
    rows = [("NAME", "PACKAGE", "STATUS" if checked else "", "OPTIONS", "SUMMARY")]
    rows += [
        (e.name, e.package, _status(e, checked) if checked else "", options_text(e.interface), e.summary)
        for e in working
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:4], widths) if width]
        lines.append("  ".join([*cells, row[4]]).rstrip())
    if broken:
        lines.append("")
        lines.append("broken plugins:")
        lines += [f"  {e.name} (package {e.package}, {e.target}): {e.error}" for e in broken]
    lines.append(f"{len(working)} interface(s), {len(broken)} broken")
    return "\n".join(lines)


def _print_rich(entries: Sequence[InterfaceEntry], checked: bool | Collection[str]) -> bool:
    """Print with rich; False when rich is not installed."""
    try:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text  # plain() cells: no markup, emoji codes (":factory:") or controls in plugin text
    except ImportError:
        return False
    console = Console(width=max(Console().width, 120), emoji=False, highlight=False)  # names stay whole on pipes
    table = Table(title="arena interfaces", title_justify="left")
    table.add_column("name", no_wrap=True, style="bold")
    table.add_column("package", no_wrap=True)
    if checked:
        table.add_column("status", no_wrap=True)
    table.add_column("options", overflow="fold")
    table.add_column("summary", overflow="fold")
    working = [e for e in entries if e.ok]
    for e in working:
        table.add_row(
            plain(e.name),
            plain(e.package),
            *([plain(_status(e, checked))] if checked else []),
            plain(options_text(e.interface)),
            plain(e.summary),
        )
    console.print(table)
    broken = [e for e in entries if not e.ok]
    if broken:
        problems = Table(title="broken plugins", title_justify="left", title_style="bold red")
        problems.add_column("name", no_wrap=True, style="bold")
        problems.add_column("package", no_wrap=True)
        problems.add_column("reason", overflow="fold")
        for e in broken:
            problems.add_row(plain(e.name), plain(e.package), plain(f"{e.target}: {e.error}"))
        console.print(problems)
    console.print(Text(f"{len(working)} interface(s), {len(broken)} broken"))
    return True


def run(args: argparse.Namespace) -> int:
    if args.examples < 1:
        raise InvalidValueError(f"--examples must be at least 1, got {args.examples}")
    check = _which(args.check)
    entries = interface_registry(check=check, examples=args.examples)
    if args.plain or not _print_rich(entries, check):
        print(printable(format_plain(entries, check)))  # plugins' summaries and errors
    sys.stdout.flush()
    return 1 if check and any(not e.ok for e in entries) else 0


def _which(check: bool | str) -> bool | frozenset[str]:
    """``--check`` as :func:`interface_registry` takes it; checking everything first says what it costs."""
    if check is False:
        return False
    names = [entry.name for entry in interface_registry()]
    if check is True:
        plugins = sorted({entry.name for entry in interface_registry() if not entry.builtin})
        narrower = f"--check {','.join(plugins)} checks only the plugins" if plugins else "--check NAME checks one"
        print(
            f"checking the contract examples of all {len(names)} interfaces, arena's own included (about a "
            f"second each); {narrower}",
            file=sys.stderr,
            flush=True,
        )
        return True
    asked = frozenset(name.strip() for name in check.split(",") if name.strip())
    for name in sorted(asked - set(names)):
        hint = did_you_mean(name, names)
        raise UnknownNameError(
            f"--check: no interface is named {name!r}" + (f"; {hint}" if hint else "; see `arena interfaces`")
        )
    if not asked:
        raise InvalidValueError(f"--check: expected comma-separated interface names, got {check!r}")
    return asked
