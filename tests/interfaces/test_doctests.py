"""The examples in the interfaces' docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "interfaces",
    "interfaces.observation",
    "interfaces.history",
    "interfaces.action",
    "interfaces.reward",
    "interfaces.team",
    "interfaces.board",
    "arena.plugins",
    "arena.cli.interfaces",
    "arena.testing.interface_checker",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
