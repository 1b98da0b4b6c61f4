"""The one parser of JSON options given on the command line (``--env-options`` and friends).

Every command that takes ``--env-options`` reads it here, so the same text means the same
options (and fails with the same one-line error) in ``tournament``, ``train``, ``play`` and
``serve``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from arena.errors import InvalidTypeError, InvalidValueError

__all__ = ["parse_json_object", "parse_env_options", "parse_anchor", "MAX_OPTIONS_TEXT"]

MAX_OPTIONS_TEXT = 100_000  # characters: options are a few keys, never a data file


def parse_json_object(text: str | None, option: str) -> dict[str, Any]:
    """The JSON object ``text`` holds (``{}`` for ``None`` or empty text).

    Args:
        text: the option's value as typed.
        option: the option's name, for the error (``"--env-options"``).

    Raises:
        ValueError: the text is not a JSON object, is nested too deeply, or is too long;
            the message names the option and shows what came.

    Example:
        >>> parse_json_object('{"players": 4}', "--env-options")
        {'players': 4}
        >>> parse_json_object(None, "--env-options")
        {}
        >>> parse_json_object("[1]", "--env-options")
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: --env-options must be a JSON object, got '[1]'
    """
    if not text:
        return {}
    if not isinstance(text, str):
        raise InvalidTypeError(f"{option} must be JSON text, got {type(text).__name__}")
    if len(text) > MAX_OPTIONS_TEXT:
        raise InvalidValueError(
            f"{option} must be a JSON object of at most {MAX_OPTIONS_TEXT:,} characters, got {len(text):,}"
        )
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidValueError(f"{option} must be a JSON object, got {_shown(text)} ({err})") from None
    except RecursionError:
        raise InvalidValueError(
            f"{option} must be a JSON object nested at most a few hundred levels deep, got {_shown(text)}"
        ) from None
    if not isinstance(value, dict):
        raise InvalidValueError(f"{option} must be a JSON object, got {_shown(text)}")
    return value


def parse_env_options(text: str | None) -> dict[str, Any]:
    """``--env-options``: the env's keyword options as a JSON object.

    Example:
        >>> parse_env_options('{"rounds": 5}')
        {'rounds': 5}
    """
    return parse_json_object(text, "--env-options")


def parse_anchor(text: str | None) -> tuple[str, float] | None:
    """``--anchor NAME=ELO`` as ``(name, rating)`` (``None`` stays ``None``); the rating must be finite.

    Example:
        >>> parse_anchor("random=0")
        ('random', 0.0)
        >>> parse_anchor("random=nan")
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: --anchor: the rating must be a finite number, got 'random=nan'
    """
    if text is None:
        return None
    name, eq, value = text.rpartition("=")
    try:
        if not eq or not name.strip():
            raise InvalidValueError
        rating = float(value)
    except ValueError:
        raise InvalidValueError(
            f"--anchor: expected NAME=ELO (an entrant and its fixed rating, e.g. random=0), got {_shown(text)}"
        ) from None
    if not math.isfinite(rating):
        raise InvalidValueError(f"--anchor: the rating must be a finite number, got {_shown(text)}")
    return name.strip(), rating


def _shown(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")
