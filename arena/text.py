"""Text from files, folders and agents, made safe to print: shown, never obeyed by the terminal.

A results file, an agent folder or an agent's error message can hold any characters. Printed
raw, some of them are commands to the terminal: ``ESC [2J`` clears the screen, ``ESC ]0;...``
sets the window title, ``ESC ]52;c;...`` writes the clipboard (OSC 52), a lone carriage return
overwrites the line, and the C1 code ``\\x9b`` starts a command on its own. :func:`printable`
writes every such character as a visible escape (``\\x1b``), so what was stored is shown, and
nothing it holds reaches the terminal as a control code. It is the one helper for this: the CLI's
rich text (:mod:`arena.cli._text`), error lines, the replay step view and plain ``print`` lines
all go through it.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

# C0 controls but tab and newline, DEL, the C1 controls, and the bidirectional overrides and
# isolates (they reorder what is shown around them: "Trojan Source").
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``str(value)`` with every terminal control character written as a visible escape.

    Tabs and newlines stay (multi-line views are text); everything else below a space, DEL,
    the C1 range and bidirectional controls become ``\\xNN`` or ``\\uNNNN``, so an escape
    sequence shows as the text it is.

    Example:
        >>> printable("\\x1b]0;pwned\\x07 lost\\r\\nok")
        '\\\\x1b]0;pwned\\\\x07 lost\\\\x0d\\nok'
    """
    return _CONTROL.sub(_visible, str(value))
