"""Modules in the folder ``arena`` runs from: found last for names the user typed, and never hiding arena's own.

``python -m pkg`` and pytest put the working folder on ``sys.path``, so a user expects
``arena tournament ... --agents mine=myagents:center_player`` to find ``./myagents.py``. The
``arena`` console script does not, so :func:`import_module` looks in the working folder only
after every installed package (and every import hook) has missed, and only for the top-level
name the user typed: a file there never shadows an installed module. Names read from data
(a results file, an agent folder) never come here: :mod:`arena.registry` asks only for names
typed on the command line or passed in Python.

The opposite mistake is common in RL projects: a folder named ``envs/`` or ``interfaces/`` in
the working folder, when that folder comes first on ``sys.path`` (``python -m arena``), hides
arena's own packages of those names, and imports fail far from the cause.
:func:`shadowed_packages` says so.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["import_module", "in_folder", "shadowed_packages", "ARENA_PACKAGES"]

# The top-level packages arena's distribution ships beside ``arena`` itself.
ARENA_PACKAGES = ("envs", "interfaces")


class _WorkingFolderFinder(importlib.abc.MetaPathFinder):
    """The last import hook: top-level modules from one folder (a package's submodules follow its own path)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if path is not None or "." in name:
            return None
        return importlib.machinery.PathFinder.find_spec(name, [self.folder])


def in_folder(name: str, folder: Path) -> bool:
    """Whether ``folder`` holds the top-level module ``name`` (``name.py`` or a package folder ``name/``).

    Example:
        >>> in_folder("no_such_module_here", Path("."))
        False
    """
    return importlib.machinery.PathFinder.find_spec(name, [str(folder)]) is not None


def _look_in(folder: Path) -> None:
    """Add the last import hook for ``folder`` (once)."""
    where = str(folder)
    if not any(isinstance(f, _WorkingFolderFinder) and f.folder == where for f in sys.meta_path):
        sys.meta_path.append(_WorkingFolderFinder(where))
        importlib.invalidate_caches()


def import_module(module_name: str, from_working_folder: bool) -> ModuleType:
    """Import ``module_name``; when it is not installed and ``from_working_folder``, look in the working folder last.

    Raises:
        ModuleNotFoundError: found nowhere; the message says where arena looked and what to do.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        top = module_name.partition(".")[0]
        if err.name != top:  # the module exists but needs one that is missing: that is the cause to show
            raise
        folder = Path.cwd()
        if not in_folder(top, folder):
            raise ModuleNotFoundError(
                f"No module named {top!r}: it is not installed, and the current folder {folder} has no {top}.py "
                f"or {top}/ (run from the folder that holds it, or put that folder on PYTHONPATH)",
                name=top,
            ) from None
        if not from_working_folder:
            raise ModuleNotFoundError(
                f"No module named {top!r}: the current folder has {top}.py or {top}/, but names read from a file "
                f"are imported only from installed packages (install it, or put {folder} on PYTHONPATH)",
                name=top,
            ) from None
    _look_in(folder)
    return importlib.import_module(module_name)


def _arena_root() -> Path:
    return Path(__file__).resolve().parent.parent


def _locations(spec: importlib.machinery.ModuleSpec) -> list[Path]:
    if spec.submodule_search_locations:
        return [Path(location).resolve() for location in spec.submodule_search_locations]
    return [Path(spec.origin).resolve().parent] if spec.origin else []


def shadowed_packages() -> list[str]:
    """One line for each of arena's own top-level packages (``envs``, ``interfaces``) that another folder hides.

    Example:
        >>> shadowed_packages()
        []
    """
    root = _arena_root()
    problems = []
    for name in ARENA_PACKAGES:
        module = sys.modules.get(name)
        try:
            spec = module.__spec__ if module is not None else importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is None:
            continue
        found = _locations(spec)
        if found and not any(location == root / name for location in found):
            problems.append(
                f"the folder {found[0]} hides arena's own package {name!r} (in {root}), so arena's envs, agents "
                f"and interfaces cannot be imported: run arena from another folder, use the 'arena' command "
                f"instead of 'python -m arena', or rename your {name}/"
            )
    return problems
