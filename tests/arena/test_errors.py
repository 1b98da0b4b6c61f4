"""Every exception arena defines lives in arena/errors.py (listed in ``__all__``); no module raises a plain ValueError or TypeError."""

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


def _plain_raises(source: str) -> list[int]:
    """Lines of ``source`` that raise a bare ``ValueError`` or ``TypeError`` (called or not)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id in ("ValueError", "TypeError"):
                found.append(node.lineno)
    return found


def test_no_package_module_raises_a_plain_value_or_type_error():
    """The CLI shows a plain ValueError or TypeError as a bug (with its traceback): a check of what a
    user gave raises InvalidValueError or InvalidTypeError, which the CLI shows as one line."""
    plain = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in ("arena", "interfaces", "envs")
        for path in sorted((ROOT / package).rglob("*.py"))
        for line in _plain_raises(path.read_text(encoding="utf-8"))
    ]
    assert not plain, plain


def test_the_plain_raise_check_sees_both_forms():
    assert _plain_raises("raise ValueError('x')\nraise TypeError\nraise KeyError('k')\n") == [1, 2]
