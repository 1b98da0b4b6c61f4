"""Suggestions for mistyped names: ``did you mean ...?`` in error messages.

Used where a user types a name arena can check (a registered env or agent, a factory's keyword
argument), so that a typo is one line that names the fix rather than a long list to search.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["did_you_mean", "unknown_keywords"]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"did you mean 'x'?"`` (or ``'x' or 'y'``) for the known names closest to ``word``; ``""`` when none is close.

    Example:
        >>> did_you_mean("connect_four_heuristc", ["random", "connect_four_heuristic", "mcts"])
        "did you mean 'connect_four_heuristic'?"
        >>> did_you_mean("zzz", ["random"])
        ''
    """
    close = difflib.get_close_matches(word, list(known), n=2, cutoff=0.75)
    return f"did you mean {' or '.join(repr(name) for name in close)}?" if close else ""


def unknown_keywords(factory: Callable[..., Any], kwargs: Mapping[str, Any], what: str) -> str | None:
    """Why ``factory(**kwargs)`` would fail on its keyword names, or ``None`` when it takes them all.

    A factory with ``**kwargs`` (or one :mod:`inspect` cannot read) takes any name, so it is
    never blamed here; it reports its own errors when it is called.

    Example:
        >>> def mcts(simulations=100, seed=None): ...
        >>> unknown_keywords(mcts, {"simulation": 20}, "agent 'mcts'")
        "agent 'mcts' takes no option 'simulation' (did you mean 'simulations'?); its options: simulations, seed"
    """
    try:
        parameters = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    named = [
        name
        for name, p in parameters.items()
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    ]
    for key in kwargs:
        if key not in named:
            hint = did_you_mean(key, named)
            options = ", ".join(named) or "(none)"
            return f"{what} takes no option {key!r}" + (f" ({hint})" if hint else "") + f"; its options: {options}"
    return None
