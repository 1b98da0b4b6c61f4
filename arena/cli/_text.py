"""Text from files, folders and agents, made safe to show with rich.

rich reads ``[...]`` as markup and ``:name:`` as emoji codes, so a forfeit reason such as
``"cannot open [/data/x.zip]"`` or an entrant named ``[/bold]`` would crash a table or change
what it shows. Every text that did not come from arena itself goes through :func:`plain`
(a :class:`rich.text.Text`, never parsed) or :func:`escape` (for a markup string); both also
write its terminal control characters as visible escapes (:func:`arena.text.printable`).
"""

from __future__ import annotations

from typing import Any

from arena.text import printable

__all__ = ["plain", "escape", "trust_argument", "trust_value"]


def plain(value: Any) -> Any:
    """``value`` as a rich ``Text`` shown as it is (no markup, no emoji codes, control characters escaped).

    Example:
        >>> plain("[/bold] :smile:").plain
        '[/bold] :smile:'
    """
    from rich.text import Text

    if isinstance(value, Text):
        return value if value.plain == printable(value.plain) else Text(printable(value.plain), style=value.style)
    return Text(printable(value))


def escape(value: Any) -> str:
    """``value`` as text to put inside a rich markup string (print it with ``emoji=False``).

    Example:
        >>> escape("reason [/data/x.zip]")
        'reason \\\\[/data/x.zip]'
    """
    from rich.markup import escape as rich_escape

    return rich_escape(printable(value))


def trust_argument(parser: Any) -> None:
    """Add ``--trust [NAMES]``: let a reader import the ``module:callable`` names a file holds."""
    parser.add_argument(
        "--trust",
        nargs="?",
        const=True,
        default=False,
        metavar="NAMES",
        help="import the 'module:callable' factories the file names (without it only registered envs and "
        "agents are used; the file is data and runs no code). Give comma-separated names to allow only "
        "those. Only for files from someone you trust",
    )


def trust_value(value: Any) -> bool | frozenset[str]:
    """The ``--trust`` option as :func:`arena.registry.reading_data` takes it."""
    if value is True or value is False:
        return value
    return frozenset(name.strip() for name in str(value).split(",") if name.strip())
