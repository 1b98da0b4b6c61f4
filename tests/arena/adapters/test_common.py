"""Adapter plumbing: optional imports that name their extra, placeholder observations, docstring examples."""

from __future__ import annotations

import doctest
import importlib
import subprocess
import sys

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings

from arena.adapters._common import as_space_dtype, blank_observation, int8_mask, require
from arena.errors import ArenaError, MissingDependencyError
from arena.testing.strategies import spaces as space_strategy
from arena.testing.strategies import values


def test_require_names_the_module_the_extra_and_the_command() -> None:
    with pytest.raises(MissingDependencyError) as caught:
        require("no_such_module_for_arena", "openspiel", "arena.adapters.openspiel")
    message = str(caught.value)
    assert "arena.adapters.openspiel needs the 'no_such_module_for_arena' package" in message
    assert "install the 'openspiel' extra: pip install 'arena-marl[openspiel]'" in message
    assert isinstance(caught.value, ImportError) and isinstance(caught.value, ArenaError)
    with pytest.raises(
        MissingDependencyError, match=r"pip install torch==2\.13\.0 && pip install 'arena-marl\[rllib\]'"
    ):
        require("no_such_module_for_arena", "rllib", "arena.adapters.rllib")


@pytest.mark.parametrize(
    ("adapter", "library", "extra"),
    [
        ("arena.adapters.pettingzoo", "pettingzoo", "pettingzoo"),
        ("arena.adapters.openspiel", "pyspiel", "openspiel"),
        ("arena.adapters.rllib", "ray", "rllib"),
    ],
)
def test_each_adapter_names_its_extra_when_its_library_is_missing(adapter: str, library: str, extra: str) -> None:
    # A fresh interpreter where the library cannot be imported (None in sys.modules blocks it).
    script = (
        f"import sys; sys.modules[{library!r}] = None\n"
        "import arena.adapters\n"
        "try:\n"
        f"    import {adapter}\n"
        "except ImportError as err:\n"
        "    print(type(err).__name__, err)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.startswith("MissingDependencyError ")
    assert f"pip install 'arena-marl[{extra}]'" in result.stdout


def test_importing_arena_adapters_imports_no_optional_library() -> None:
    script = (
        "import sys, arena.adapters, arena.adapters.gymnasium\n"
        "print(sorted(m for m in ('pettingzoo', 'pyspiel', 'ray', 'torch') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


@settings(max_examples=60, deadline=None)
@given(space_strategy())
def test_blank_observation_lies_in_the_space_and_is_fixed(space: spaces.Space) -> None:
    blank = blank_observation(space)
    assert space.contains(blank)
    again = blank_observation(space)
    assert np.array_equal(np.asarray(spaces.flatten(space, blank)), np.asarray(spaces.flatten(space, again)))


@settings(max_examples=60, deadline=None)
@given(space_strategy().flatmap(lambda space: values(space).map(lambda value: (space, value))))
def test_as_space_dtype_keeps_values_in_their_space(case) -> None:
    space, value = case
    converted = as_space_dtype(space, value)
    assert space.contains(converted)
    if isinstance(space, (spaces.Box, spaces.Discrete)):
        assert converted.dtype == space.dtype


def test_int8_mask() -> None:
    assert int8_mask([True, False, 2]).tolist() == [1, 0, 1]
    assert int8_mask(np.array([[1.0, 0.0]])).dtype == np.int8


@pytest.mark.parametrize(
    "module",
    [
        "arena.adapters",
        "arena.adapters._common",
        "arena.adapters.gymnasium",
        "arena.adapters.pettingzoo",
        "arena.adapters._pettingzoo_import",
        "arena.adapters.openspiel",
        "arena.adapters.rllib",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    libraries = {
        "pettingzoo": "pettingzoo",
        "_pettingzoo_import": "pettingzoo",
        "openspiel": "pyspiel",
        "rllib": "ray.rllib",
    }
    needed = libraries.get(module.rsplit(".", 1)[-1])
    if needed:
        pytest.importorskip(needed)
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
