"""The one brace-aware splitter every spec language and CLI list uses.

Agent specs carry JSON keyword arguments (``mcts{"simulations": 5, "c": 1}``), so a comma
or a ``+`` inside ``{...}`` belongs to the arguments, not to the list around them.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["split_outside_braces", "split_words"]


def split_outside_braces(text: str, separator: str) -> list[str]:
    """Split ``text`` at ``separator`` outside ``{...}`` (JSON keyword arguments keep theirs).

    Example:
        >>> split_outside_braces('random,mcts{"simulations": 5, "c": 1}', ",")
        ['random', 'mcts{"simulations": 5, "c": 1}']
    """
    items: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        if char == separator and depth == 0:
            items.append("".join(current))
            current = []
        else:
            current.append(char)
    items.append("".join(current))
    return items


def split_words(values: Sequence[str] | str | None, separator: str = ",") -> list[str]:
    """Comma lists (one option given once or several times) as one list of non-empty words.

    Example:
        >>> split_words(["random, mcts{\\"a\\": 1, \\"b\\": 2}", "human"])
        ['random', 'mcts{"a": 1, "b": 2}', 'human']
        >>> split_words(None)
        []
    """
    if values is None:
        return []
    joined = separator.join([values] if isinstance(values, str) else values)
    return [word.strip() for word in split_outside_braces(joined, separator) if word.strip()]
