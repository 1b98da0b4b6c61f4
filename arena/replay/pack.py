"""Views, observations and actions as plain JSON for the browser (the replay page and ``arena serve``).

Pictures travel as zlib-compressed bytes in base64, which the page inflates with the browser's
own ``DecompressionStream("deflate")``: an RGB frame with at most 256 colours is sent as palette
indices (a Pong frame of 194x160 pixels packs into a few hundred bytes), any other as raw RGB.
Observations for the agent's-eye view are packed by shape: arrays of two or more dimensions as
grey-scale planes (scaled to the space's bounds, or to the array's own range where the space
is unbounded), vectors as bars, dicts and tuples part by part.
"""

from __future__ import annotations

import base64
import re
import zlib
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError

__all__ = ["pack_view", "pack_observation", "describe_action", "strip_ansi", "MAX_BARS"]

# Vectors longer than this are drawn as a strip of grey cells instead of bars.
MAX_BARS = 64
# Pictures larger than this (either side, pixels) are sent at a whole fraction of their size.
MAX_SIDE = 400
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _b64z(data: bytes) -> str:
    return base64.b64encode(zlib.compress(data, 6)).decode("ascii")


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour and cursor codes.

    Example:
        >>> strip_ansi("\\x1b[31mX\\x1b[0m|O")
        'X|O'
    """
    return _ANSI.sub("", text)


def pack_view(view: Any) -> dict[str, Any] | None:
    """A render (text or RGB array) as ``{"text": ...}`` or ``{"img": {...}}``; ``None`` for no view.

    Example:
        >>> pack_view("X|O")
        {'text': 'X|O'}
        >>> img = pack_view(np.zeros((2, 3, 3), np.uint8))["img"]
        >>> img["w"], img["h"], img["pal"]
        (3, 2, [[0, 0, 0]])
        >>> pack_view(np.zeros((480, 640, 3), np.uint8))["img"]["w"]  # large pictures at a fraction
        320
    """
    if view is None:
        return None
    if isinstance(view, str):
        return {"text": strip_ansi(view)}
    frame = np.asarray(view)
    if frame.ndim == 2:
        frame = np.repeat(frame[:, :, None], 3, axis=2)
    if frame.ndim != 3 or frame.shape[2] not in (3, 4):
        raise InvalidValueError(
            f"a rendered frame must be text or an RGB array of shape (H, W, 3), got shape {frame.shape}"
        )
    stride = -(-max(frame.shape[:2]) // MAX_SIDE)  # a page shows it at about this size anyway
    frame = np.ascontiguousarray(frame[::stride, ::stride, :3], dtype=np.uint8)
    h, w = frame.shape[:2]
    flat = frame.reshape(-1, 3)
    keys = (flat[:, 0].astype(np.uint32) << 16) | (flat[:, 1].astype(np.uint32) << 8) | flat[:, 2]
    colours, indices = np.unique(keys, return_inverse=True)
    if len(colours) <= 256:
        palette = [[int(c >> 16), int((c >> 8) & 255), int(c & 255)] for c in colours]
        return {"img": {"w": w, "h": h, "pal": palette, "z": _b64z(indices.astype(np.uint8).tobytes())}}
    return {"img": {"w": w, "h": h, "z": _b64z(frame.tobytes())}}


def _plane_pack(array: np.ndarray, low: float, high: float, label: str) -> dict[str, Any]:
    if array.ndim == 1:
        planes = array.reshape(1, 1, -1)
    elif array.ndim == 2:
        planes = array[None]
    else:
        # Channels last when the last axis is shorter than both others (an image), else first (planes:
        # (17, 11, 11) is 17 boards of 11 x 11).
        planes = np.moveaxis(array, -1, 0) if array.shape[-1] < min(array.shape[0], array.shape[1]) else array
        planes = planes.reshape(-1, planes.shape[-2], planes.shape[-1])
    span = high - low if high > low else 1.0
    grey = np.clip((planes.astype(np.float64) - low) / span * 255.0, 0, 255).round().astype(np.uint8)
    return {
        "label": label,
        "kind": "planes",
        "n": int(grey.shape[0]),
        "h": int(grey.shape[1]),
        "w": int(grey.shape[2]),
        "lo": low,
        "hi": high,
        "z": _b64z(grey.tobytes()),
    }


def _bounds(array: np.ndarray, space: Any) -> tuple[float, float]:
    low = high = None
    if isinstance(space, spaces.Box) and space.is_bounded():
        low, high = float(np.min(space.low)), float(np.max(space.high))
    elif isinstance(space, spaces.MultiBinary):
        low, high = 0.0, 1.0
    elif isinstance(space, spaces.MultiDiscrete):
        low, high = 0.0, float(np.max(space.nvec) - 1)
    if low is None or high is None:
        finite = array[np.isfinite(array)] if array.dtype.kind == "f" else array
        low = float(finite.min()) if finite.size else 0.0
        high = float(finite.max()) if finite.size else 1.0
    return low, high


def pack_observation(observation: Any, space: Any = None, label: str = "observation") -> list[dict[str, Any]]:
    """An observation as a list of drawable parts (planes, bars or values), labelled by path.

    Example:
        >>> [p["kind"] for p in pack_observation({"board": np.zeros((3, 3)), "turn": 1})]
        ['planes', 'value']
    """
    if isinstance(observation, dict):
        parts = []
        for key, value in observation.items():
            sub = space[key] if isinstance(space, spaces.Dict) and key in space.spaces else None
            parts += pack_observation(value, sub, f"{label}.{key}" if label != "observation" else str(key))
        return parts
    if isinstance(observation, tuple):
        parts = []
        for i, value in enumerate(observation):
            sub = space[i] if isinstance(space, spaces.Tuple) and i < len(space) else None
            parts += pack_observation(value, sub, f"{label}[{i}]")
        return parts
    array = np.asarray(observation)
    if array.dtype.kind not in "biuf":
        return [{"label": label, "kind": "value", "text": str(observation)}]
    if array.ndim == 0:
        return [{"label": label, "kind": "value", "text": describe_action(observation)}]
    array = array.astype(np.float64)
    low, high = _bounds(array, space)
    if array.ndim == 1 and array.size <= MAX_BARS:
        return [{"label": label, "kind": "bars", "v": [round(float(v), 6) for v in array], "lo": low, "hi": high}]
    return [_plane_pack(array, low, high, label)]


def describe_action(action: Any, names: list[str] | None = None) -> str:
    """An action as short text, by name where the env names its actions.

    Example:
        >>> describe_action(np.int64(2), ["rock", "paper", "scissors"])
        'scissors (2)'
        >>> describe_action(np.array([0.5, -1.0], dtype=np.float32))
        '[0.5, -1.0]'
    """
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        value = int(action)
        if names is not None and 0 <= value < len(names):
            return f"{names[value]} ({value})"
        return str(value)
    if isinstance(action, np.ndarray):
        return str([round(v, 4) if isinstance(v, float) else v for v in action.tolist()])
    if isinstance(action, np.generic):
        return str(action.item())
    if isinstance(action, (tuple, list)):
        return "(" + ", ".join(describe_action(a) for a in action) + ")"
    return str(action)
