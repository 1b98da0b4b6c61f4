"""Every exception arena defines lives in arena/errors.py and is listed in its ``__all__``."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import arena.errors

ROOT = Path(__file__).resolve().parents[2]
EXCEPTION_NAMES = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
} | set(arena.errors.__all__)


def test_errors_all_lists_every_exception_class_of_the_module():
    defined = {
        name
        for name, value in vars(arena.errors).items()
        if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == "arena.errors"
    }
    assert set(arena.errors.__all__) == defined


def test_no_package_module_defines_an_exception_class_of_its_own():
    scattered = []
    for package in ("arena", "interfaces", "envs"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "arena" / "errors.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                bases = {
                    base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
                    for base in getattr(node, "bases", ())
                }
                if isinstance(node, ast.ClassDef) and bases & EXCEPTION_NAMES:
                    scattered.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert not scattered, scattered
