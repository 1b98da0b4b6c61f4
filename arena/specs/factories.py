"""What agent and env specs share: a factory named by text, keyword arguments as plain JSON.

Example:
    >>> from arena.specs.factories import callable_spec
    >>> callable_spec(callable_spec, "example")
    'arena.specs.factories:callable_spec'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from arena.errors import InvalidValueError

__all__ = ["callable_spec", "plain_json_kwargs"]


def callable_spec(factory: Callable[..., Any], what: str) -> str:
    """``"module:qualname"`` for an importable callable, so a worker can import it again.

    Raises:
        ValueError: ``factory`` is a lambda or a local function that no worker could import.
    """
    module, qualname = getattr(factory, "__module__", None), getattr(factory, "__qualname__", "")
    if not module or not qualname or "<" in qualname:
        raise InvalidValueError(
            f"{what}: a factory given as a callable must be importable by name so that workers can "
            f"build it, got {factory!r}; define it at module level or give 'package.module:callable'"
        )
    return f"{module}:{qualname}"


def plain_json_kwargs(kwargs: Mapping[str, Any], what: str) -> dict[str, Any]:
    """``kwargs`` as plain JSON values (a fresh dict, keys sorted), so that a spec travels to any worker.

    Raises:
        ValueError: a value JSON cannot hold; the text starts with ``what``.

    Example:
        >>> plain_json_kwargs({"b": (1, 2), "a": 1.5}, "env 'x'")
        {'a': 1.5, 'b': [1, 2]}
    """
    try:
        return json.loads(json.dumps(dict(kwargs), sort_keys=True))
    except (TypeError, ValueError) as err:
        raise InvalidValueError(
            f"{what}: keyword arguments must be JSON-serialisable, got {dict(kwargs)!r} ({err})"
        ) from None
