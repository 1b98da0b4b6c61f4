"""The manifest of a trained-agent folder (``agent.json``): read and checked key by key, and the
files it names found inside the folder with the SHA-256 it records.

A manifest is data: nothing here imports what it names or loads a model (:mod:`arena.training.trained`
does, through the registry). This module needs only the standard library, and sits under both
:mod:`arena.specs` (an entrant that names a folder) and :mod:`arena.training`, so neither imports the other
to read one.
"""

from __future__ import annotations

import hashlib
import json
import struct
from pathlib import Path
from typing import Any

from arena.errors import AgentFolderError

__all__ = [
    "MANIFEST",
    "FORMAT_VERSION",
    "FILE_KEYS",
    "is_agent_folder",
    "read_manifest",
    "inside",
    "model_digest",
    "check_digest",
    "named_files",
    "missing_bytes",
]

MANIFEST = "agent.json"
FORMAT_VERSION = 2
#: The manifest's keys that name files in the folder (besides ``training.optimizer``).
FILE_KEYS = ("model", "interface_state", "sb3_model")


def is_agent_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding an ``agent.json`` manifest."""
    path = Path(path)
    return path.is_dir() and (path / MANIFEST).is_file()


_MAX_MANIFEST_BYTES = 1_000_000  # a manifest is a few hundred bytes
# key -> (the JSON types it may have, whether it must be there)
_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "format": ((str,), True),
    "format_version": ((int,), True),
    "algo": ((str,), True),
    "model": ((str,), True),
    "env": ((str,), True),
    "interface": ((str, type(None)), False),
    "interface_state": ((str, type(None)), False),
    "env_options": ((dict, type(None)), False),
    "seats": ((list, type(None)), False),
    "team_size": ((int, type(None)), False),
    "model_sha256": ((str, type(None)), False),
    "policy": ((dict, type(None)), False),
    "spaces": ((dict, type(None)), False),
    "interface_state_sha256": ((str, type(None)), False),
    "training": ((dict, type(None)), False),
    "sb3_model": ((str, type(None)), False),
    "sb3_model_sha256": ((str, type(None)), False),
    "timesteps": ((int, type(None)), False),
    "versions": ((dict, type(None)), False),
    # what a shipped agent's docs promise: the command and seed that trained it (informative only)
    "command": ((str, type(None)), False),
    "seed": ((int, type(None)), False),
}


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of a trained-agent folder, checked key by key.

    Raises:
        AgentFolderError: no such folder, no manifest, not an arena agent, a newer format, a key
            missing or of the wrong type, or a file it names that is missing or outside the folder.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise AgentFolderError(
            f"no such agent folder: {path}"
            if not folder.exists()
            else f"trained agent: {str(folder)!r} is not a folder (expected what 'arena train --out' wrote)"
        )
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise AgentFolderError(
            f"trained agent: {str(folder)!r} has no {MANIFEST} (expected what 'arena train --out' wrote)"
        )
    if manifest_path.stat().st_size > _MAX_MANIFEST_BYTES:
        raise AgentFolderError(
            f"trained agent: {str(manifest_path)!r} is over {_MAX_MANIFEST_BYTES:,} bytes: not a manifest"
        )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise AgentFolderError(
            f"trained agent: {str(manifest_path)!r} is not valid JSON ({err}); if it was cut short, a save by an "
            "older arena (which wrote it in place) was interrupted: train again, or copy the folder again"
        ) from None
    except RecursionError:
        raise AgentFolderError(f"trained agent: {str(manifest_path)!r} is JSON nested too deeply") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "arena-agent":
        raise AgentFolderError(
            f'trained agent: {str(manifest_path)!r} is not an arena agent manifest (expected "format": "arena-agent")'
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT_VERSION:
        raise AgentFolderError(
            f"trained agent: {str(manifest_path)!r} has format_version {version!r}; this arena "
            f"reads up to {FORMAT_VERSION} (upgrade arena)"
        )
    for key, (kinds, required) in _KEYS.items():
        if key not in manifest:
            if required:
                raise AgentFolderError(f"trained agent {str(folder)!r}: {MANIFEST} has no {key!r}")
        elif not isinstance(manifest[key], kinds) or isinstance(manifest[key], bool):
            expected = " or ".join("null" if kind is type(None) else _JSON_NAMES[kind] for kind in kinds)
            raise AgentFolderError(
                f"trained agent {str(folder)!r}: {MANIFEST} key {key!r} must be {expected}, "
                f"got {type(manifest[key]).__name__}"
            )
    if version >= 2 and not isinstance(manifest.get("policy"), dict):
        raise AgentFolderError(f"trained agent {str(folder)!r}: {MANIFEST} has no 'policy' (its class and arguments)")
    for key in FILE_KEYS:
        if manifest.get(key):
            inside(folder, manifest[key], key)
    optimizer = (manifest.get("training") or {}).get("optimizer")
    if optimizer is not None:
        if not isinstance(optimizer, str):
            raise AgentFolderError(f"trained agent {str(folder)!r}: {MANIFEST} key 'training.optimizer' must be text")
        inside(folder, optimizer, "training.optimizer")
    return manifest


_JSON_NAMES = {str: "text", int: "an integer", dict: "an object", list: "a list"}


def inside(folder: Path, name: str, key: str) -> Path:
    """The file ``name`` of the manifest's ``key``, which must be a file inside ``folder``."""
    candidate = Path(name)
    where = f"trained agent {str(folder)!r}: {MANIFEST} key {key!r}"
    if candidate.is_absolute() or not name.strip():
        raise AgentFolderError(f"{where} must name a file inside the folder, got {name!r}")
    root = folder.resolve()
    try:
        target = (folder / candidate).resolve()
    except (OSError, ValueError) as err:
        raise AgentFolderError(f"{where} names {name!r}, which cannot be resolved ({err})") from None
    if not target.is_relative_to(root):
        raise AgentFolderError(f"{where} names {name!r}, which lies outside the folder")
    if target.is_dir():
        raise AgentFolderError(f"{where} names {name!r}, which is a folder, not a file")
    if not target.is_file():
        raise AgentFolderError(f"{where} names {name!r}, which is not in the folder")
    return target


def model_digest(path: str | Path) -> str:
    """The SHA-256 (hex) of a model file, as a manifest records it."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_digest(folder: Path, name: str, expected: str | None, key: str = "model") -> Path:
    """The file ``name`` (the manifest's ``key``), checked against the SHA-256 the manifest records.

    Raises:
        AgentFolderError: the file is shorter than its own header says (a save cut short: the
            text says so and what to do), or has another SHA-256 (changed or replaced).
    """
    path = inside(folder, name, key)
    if expected is None or model_digest(path) == str(expected).lower():
        return path
    where = f"trained agent {str(folder)!r}: {name}"
    torn = missing_bytes(path)
    if torn is not None:
        raise AgentFolderError(
            f"{where} is incomplete ({torn[0]:,} bytes, its own header promises {torn[1]:,}): a save into this "
            "folder was interrupted (a kill, a crash or a full disk while writing); train again, or copy the "
            "folder again from where it came from; not loaded"
        )
    raise AgentFolderError(
        f"{where} does not have the SHA-256 its manifest records ({str(expected)[:16]}…): the file was changed "
        "or replaced after it was saved; not loaded"
    )


def named_files(folder: Path) -> set[str]:
    """The files the folder's manifest names (none when it has no readable manifest): those a save
    removes once its own manifest no longer names them."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return set()
    if not isinstance(manifest, dict):
        return set()
    training = manifest.get("training")
    names = [manifest.get(key) for key in FILE_KEYS]
    names.append(training.get("optimizer") if isinstance(training, dict) else None)
    return {name for name in names if isinstance(name, str) and name and Path(name).name == name}


def missing_bytes(path: Path) -> tuple[int, int] | None:
    """``(size, expected size)`` when a model file is shorter than its own header says (a save cut
    short), else ``None``: for safetensors (header length and data offsets) and zip files (SB3's
    zip, whose directory sits at the end)."""
    size = path.stat().st_size
    with open(path, "rb") as handle:
        head = handle.read(8)
        if path.suffix == ".zip" or head[:2] == b"PK":
            return None if _zip_ends_whole(handle, size) else (size, size + 1)
        if len(head) < 8:
            return (size, 8)
        (length,) = struct.unpack("<Q", head)
        if length > 100_000_000:
            return None
        header = handle.read(length)
    if len(header) < length:
        return (size, 8 + length)
    try:
        entries = json.loads(header)
        end = max((entry["data_offsets"][1] for key, entry in entries.items() if key != "__metadata__"), default=0)
    except (ValueError, TypeError, KeyError, IndexError):
        return None
    expected = 8 + length + int(end)
    return (size, expected) if size < expected else None


def _zip_ends_whole(handle: Any, size: int) -> bool:
    """Whether a zip file ends with its end-of-directory record (and its comment): a zip cut short
    loses it. (``zipfile.is_zipfile`` is fooled by the record of a zip stored inside, as SB3's are.)"""
    start = max(0, size - 65_536 - 22)
    handle.seek(start)
    tail = handle.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return False
    (comment,) = struct.unpack("<H", tail[at + 20 : at + 22])
    return at + 22 + comment == len(tail)
