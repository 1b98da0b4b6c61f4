"""The joint actions of one game, packed compactly and exactly for the results file.

A game is stored as the actions the env received at each step (the env leads, so the seed,
the env spec and these actions give the whole game back). The packing is JSON (zlib-compressed
when longer than ``_PLAIN_BYTES``: for a short game, compressing costs more time than it saves space): ``{"agents": [...], "steps": [[[agent_index, action], ...], ...]}``, each action
written with its type so that decoding gives the env exactly what it received: Python ints,
floats, bools and strings as JSON; numpy arrays as ``{"nd": dtype, "shape": [...], "v": [...]}``;
numpy scalars as ``{"np": dtype, "v": value}``; tuples as ``{"t": [...]}``; dicts as
``{"d": [[key, value], ...]}``. JSON writes floats with the shortest text that reads back to the
same float64, so no float changes on the way. A tic-tac-toe game packs into about 120 bytes, a
300-step Pong game into about 800.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena.errors import InvalidTypeError, ReplayFormatError

__all__ = ["encode_actions", "decode_actions"]

_LEVEL = 6
# A stored game decompresses to at most this much JSON, and at most _MAX_RATIO times its packed size
# beyond the first _RATIO_FLOOR bytes: a hostile file's "decompression bomb" stops there.
MAX_UNPACKED_BYTES = 32 * 2**20
_MAX_RATIO = 1000
_RATIO_FLOOR = 4 * 2**20
# JSON text up to this long is stored as is (it starts with "{", a zlib stream never does).
_PLAIN_BYTES = 256


def _pack(value: Any) -> Any:
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if kind is float:
        if value != value or value in (float("inf"), float("-inf")):
            return {"f": repr(value)}
        return value
    if isinstance(value, np.ndarray):
        return {"nd": value.dtype.str, "shape": list(value.shape), "v": [_pack(v) for v in value.ravel().tolist()]}
    if isinstance(value, np.generic):
        return {"np": value.dtype.str, "v": _pack(value.item())}
    if isinstance(value, tuple):
        return {"t": [_pack(v) for v in value]}
    if isinstance(value, list):
        return [_pack(v) for v in value]
    if isinstance(value, Mapping):
        return {"d": [[_pack(k), _pack(v)] for k, v in value.items()]}
    if isinstance(value, (int, float, str)):  # subclasses (IntEnum, ...) as their base value
        return _pack(int(value) if isinstance(value, int) else float(value) if isinstance(value, float) else str(value))
    raise InvalidTypeError(
        f"replay: cannot store an action of type {kind.__name__} ({value!r}); actions must be "
        "numbers, strings, numpy arrays or scalars, or tuples, lists and dicts of them"
    )


def _unpack(value: Any) -> Any:
    if isinstance(value, list):
        return [_unpack(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "t" in value:
        return tuple(_unpack(v) for v in value["t"])
    if "nd" in value:
        return np.array([_unpack(v) for v in value["v"]], dtype=np.dtype(value["nd"])).reshape(value["shape"])
    if "np" in value:
        return np.dtype(value["np"]).type(_unpack(value["v"]))
    if "d" in value:
        return {_unpack(k): _unpack(v) for k, v in value["d"]}
    if "f" in value:
        return float(value["f"])
    raise ReplayFormatError(f"replay: unknown stored action {value!r}")


def encode_actions(agents: Sequence[str], steps: Sequence[Mapping[str, Any]]) -> bytes:
    """Pack the joint actions of each step of a game.

    Args:
        agents: the env's ``possible_agents`` (actions are stored by index into it).
        steps: for each step, the actions dict the env's ``step`` received.

    Raises:
        TypeError: an action of a type that cannot be stored.

    Example:
        >>> blob = encode_actions(["a", "b"], [{"a": 4}, {"b": 0}])
        >>> decode_actions(blob)
        [{'a': 4}, {'b': 0}]
    """
    index = {agent: i for i, agent in enumerate(agents)}
    packed = []
    for actions in steps:
        packed.append(
            [[index[agent], action if type(action) is int else _pack(action)] for agent, action in actions.items()]
        )
    text = json.dumps({"agents": list(agents), "steps": packed}, separators=(",", ":"), allow_nan=False).encode()
    return text if len(text) <= _PLAIN_BYTES else zlib.compress(text, _LEVEL)


def decode_actions(blob: bytes) -> list[dict[str, Any]]:
    """The actions dict of each step, as :func:`encode_actions` received them.

    Raises:
        ReplayFormatError: ``blob`` is not stored actions.
    """
    try:
        if blob[:1] == b"{" and len(blob) > MAX_UNPACKED_BYTES:
            raise ReplayFormatError(
                f"replay: the stored actions are {len(blob):,} bytes, more than the "
                f"{MAX_UNPACKED_BYTES:,} a game this arena stores can take"
            )
        document = json.loads(blob if blob[:1] == b"{" else _decompress(blob))
        agents = document["agents"]
        return [{agents[i]: _unpack(action) for i, action in step} for step in document["steps"]]
    except ReplayFormatError:
        raise
    except (zlib.error, ValueError, KeyError, TypeError, IndexError, AttributeError) as err:
        raise ReplayFormatError(f"replay: the stored actions cannot be read ({type(err).__name__}: {err})") from None
    except RecursionError:
        raise ReplayFormatError("replay: the stored actions are nested too deeply to be actions") from None


def _decompress(blob: bytes) -> bytes:
    """``zlib.decompress`` that stops at :data:`MAX_UNPACKED_BYTES` and at the size/ratio bound."""
    limit = min(MAX_UNPACKED_BYTES, max(_RATIO_FLOOR, _MAX_RATIO * len(blob)))
    stream = zlib.decompressobj()
    parts, size, tail = [], 0, blob
    while tail and size <= limit:
        part = stream.decompress(tail, 1 << 20)  # a megabyte at a time: the bound holds while unpacking
        parts.append(part)
        size += len(part)
        tail = stream.unconsumed_tail
    if size > limit:
        raise ReplayFormatError(
            f"replay: the stored actions unpack to more than {limit:,} bytes (from {len(blob):,} "
            "packed): not a game this arena stored"
        )
    return b"".join(parts) + stream.flush()
