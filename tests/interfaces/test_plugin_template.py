"""The plugin template installs and is listed by ``arena interfaces``; broken plugins are reported, not fatal.

The packages are really installed (``pip install --no-deps --no-build-isolation --no-index
--target``, offline) into a temporary folder that the ``arena`` subprocess gets on its
``PYTHONPATH``, so entry-point discovery works exactly as for a user's installation.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TEMPLATE = Path(__file__).resolve().parents[2] / "examples" / "plugin-template"

BROKEN_SETUP = """\
[metadata]
name = arena-broken-plugin
version = 0.0.1

[options]
packages = find:

[options.entry_points]
arena.interfaces =
    needs_missing_library = arena_broken_plugin.needs_missing:Anything
    not_an_interface = arena_broken_plugin.plain:NotAnInterface
    leaks_between_episodes = arena_broken_plugin.plain:LeaksBetweenEpisodes
"""

BROKEN_PLAIN = '''\
"""Entry points that load but break the contract."""

import numpy as np
from gymnasium import spaces

from arena import Interface


class NotAnInterface:
    """Looks like an interface, but does not derive from arena.Interface."""

    def observation(self, observation):
        return observation


class LeaksBetweenEpisodes(Interface):
    """Counts observations and never resets the count."""

    @classmethod
    def contract_examples(cls):
        return [(cls(), spaces.Discrete(3), spaces.Discrete(2))]

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.observation_space = spaces.Box(0, 10**6, (1,), np.int64)
        self.count = 0

    def observation(self, observation):
        self.count += 1
        return np.array([self.count], dtype=np.int64)
'''


def _write_broken_package(root: Path) -> Path:
    package = root / "arena-broken-plugin"
    (package / "arena_broken_plugin").mkdir(parents=True)
    (package / "pyproject.toml").write_text((TEMPLATE / "pyproject.toml").read_text())
    (package / "setup.cfg").write_text(BROKEN_SETUP)
    (package / "arena_broken_plugin" / "__init__.py").write_text('"""A deliberately broken arena plugin."""\n')
    (package / "arena_broken_plugin" / "needs_missing.py").write_text(
        "import a_library_nobody_installed  # noqa: F401\n"
    )
    (package / "arena_broken_plugin" / "plain.py").write_text(BROKEN_PLAIN)
    return package


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process that has the template and the broken plugin installed."""
    root = tmp_path_factory.mktemp("plugins")
    template = root / "plugin-template"
    shutil.copytree(
        TEMPLATE, template, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".pytest_cache")
    )
    broken = _write_broken_package(root)
    target = root / "site"
    # setuptools>=70.1 (the test extra) builds wheels by itself, so nothing is downloaded.
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(template),
            str(broken),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"pip could not install the plugins:\n{result.stdout}\n{result.stderr}"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH")]))
    env["COLUMNS"] = "200"
    return env


def _arena(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena", "interfaces", *args], env=env, capture_output=True, text=True, timeout=300
    )


def test_arena_interfaces_lists_the_installed_template_beside_the_built_ins(installed):
    result = _arena(installed)  # the default output: a rich table
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    template_row = next(line for line in lines if "append_turn_count" in line)
    assert "arena-plugin-template" in template_row and "Append the number of turns played" in template_row
    assert any("flatten" in line and "arena-marl" in line for line in lines)


def test_broken_plugins_are_reported_with_package_and_reason_without_hiding_the_others(installed):
    result = _arena(installed, "--plain")
    assert result.returncode == 0, result.stderr
    working, _, broken = result.stdout.partition("broken plugins:")
    assert re.search(
        r"^append_turn_count +arena-plugin-template +max_turns=\S+ +Append the number of turns", working, re.M
    )
    assert "ego_board" in working and "leaks_between_episodes" in working  # it loads; only --check runs it
    assert (
        "needs_missing_library (package arena-broken-plugin, arena_broken_plugin.needs_missing:Anything): "
        "failed to import 'arena_broken_plugin.needs_missing:Anything': ModuleNotFoundError: "
        "No module named 'a_library_nobody_installed'"
    ) in broken
    assert (
        "not_an_interface (package arena-broken-plugin, arena_broken_plugin.plain:NotAnInterface): "
        "'arena_broken_plugin.plain:NotAnInterface' is not an arena.Interface subclass "
        "(got class NotAnInterface)"
    ) in broken
    assert re.search(r"\n\d+ interface\(s\), 2 broken$", result.stdout.rstrip())


def test_check_runs_every_plugins_contract_examples_and_fails_on_a_contract_breach(installed):
    result = _arena(installed, "--check", "--plain", "--examples", "2")
    assert result.returncode == 1
    working, _, broken = result.stdout.partition("broken plugins:")
    assert re.search(r"^append_turn_count +arena-plugin-template +checked +max_turns=\S+ +Append", working, re.M)
    assert re.search(r"^flatten +arena-marl +checked +dtype=float32 +Flatten any", working, re.M)
    leak = next(line for line in broken.splitlines() if "leaks_between_episodes" in line)
    assert "package arena-broken-plugin" in leak and "breaks the contract: ContractViolation:" in leak
    assert "state leaks between reset()s" in leak


def test_the_template_is_usable_from_python_once_installed(installed):
    script = textwrap.dedent("""
        from arena.plugins import make_interface
        from gymnasium import spaces
        from arena.testing import check_interface
        itf = make_interface("append_turn_count", max_turns=3)
        check_interface(itf, spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(2), examples=5)
        print(itf)
    """)
    result = subprocess.run([sys.executable, "-c", script], env=installed, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "AppendTurnCount(max_turns=3)"
