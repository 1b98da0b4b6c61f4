"""The machine a bench runs on, as docs/performance.md names it: the CPU model and its L2 cache.

A speed ratio is a result only with the machine it was measured on, and some ratios move with the
core's L2 cache (the batched Pommerman's does: docs/performance.md, "Which figures move between
machines"). The benches print :func:`describe` first, so that a figure pasted from their output
carries its machine. Both files are read as data: a missing or unreadable field reads as unknown.

Example:
    >>> parse_cache_size("2048K"), parse_cache_size("1M"), parse_cache_size("big")
    (2097152, 1048576, None)
"""

from __future__ import annotations

import os

__all__ = ["cache_bytes", "cpu_model", "describe", "parse_cache_size"]

CPUINFO = "/proc/cpuinfo"
#: Linux's description of the first CPU's caches: one ``index*`` folder per cache.
CACHES = "/sys/devices/system/cpu/cpu0/cache"
_UNITS = {"K": 1024, "M": 1024**2, "G": 1024**3}


def parse_cache_size(text: str) -> int | None:
    """Bytes of a sysfs cache size (``"2048K"``, ``"1M"``, ``"512"``), or ``None`` when it is not one."""
    text = text.strip()
    scale = _UNITS.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale if digits.isdigit() else None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return None


def cache_bytes(level: int, root: str = CACHES) -> int | None:
    """The size of the first CPU's unified (or data) cache of ``level``, or ``None`` when the system does not say."""
    try:
        folders = sorted(name for name in os.listdir(root) if name.startswith("index"))
    except OSError:
        return None
    for folder in folders:
        path = os.path.join(root, folder)
        if (_read(os.path.join(path, "level")) or "").strip() != str(level):
            continue
        if (_read(os.path.join(path, "type")) or "").strip() not in ("Unified", "Data"):
            continue
        size = _read(os.path.join(path, "size"))
        return None if size is None else parse_cache_size(size)
    return None


def cpu_model(path: str = CPUINFO) -> str | None:
    """``"<model name> (family F model M)"`` from ``/proc/cpuinfo`` (as ``lscpu`` shows it), or ``None``."""
    fields: dict[str, str] = {}
    for line in (_read(path) or "").splitlines():
        if not line.strip():
            break  # the first CPU's block ends at the first blank line
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name")
    if not name:
        return None
    family, model = fields.get("cpu family"), fields.get("model")
    return f"{name} (family {family} model {model})" if family and model else name


def describe(cpuinfo: str = CPUINFO, caches: str = CACHES) -> str:
    """One line naming the machine: the CPU model, the CPUs, CPU 0's L2 cache.

    Example:
        >>> describe("/nonexistent", "/nonexistent")  # doctest: +ELLIPSIS
        'machine: CPU model unknown, ... CPUs, L2 size unknown'
    """
    l2 = cache_bytes(2, caches)
    l2_text = "L2 size unknown" if l2 is None else f"L2 {l2 // 1024:,} KiB (CPU 0's)"
    return f"machine: {cpu_model(cpuinfo) or 'CPU model unknown'}, {os.cpu_count()} CPUs, {l2_text}"
