"""docs/writing-plugins.md shows every file of examples/plugin-template, and says how it installs
where arena comes from a checkout (its distribution, arena-marl, is not on the package index)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "examples" / "plugin-template"
DOC = (ROOT / "docs" / "writing-plugins.md").read_text(encoding="utf-8")


def _template_files() -> list[str]:
    skip = {"__pycache__", "build", ".pytest_cache"}
    return sorted(
        str(path.relative_to(TEMPLATE))
        for path in TEMPLATE.rglob("*")
        if path.is_file() and not skip & set(path.parts) and ".egg-info" not in str(path)
    )


def _code_blocks(text: str) -> list[str]:
    """The bodies of the fenced blocks (``` or ````), outermost only."""
    return [body for _, body in re.findall(r"^(`{3,})[\w-]*\n(.*?)\n\1$", text, flags=re.M | re.S)]


@pytest.mark.parametrize("name", _template_files())
def test_the_walkthrough_shows_the_whole_file(name):
    content = (TEMPLATE / name).read_text(encoding="utf-8").rstrip("\n")
    assert content in _code_blocks(DOC), f"docs/writing-plugins.md does not show {name} as it is"
    assert name.split("/")[-1] in DOC  # and names it


def test_the_folder_tree_lists_every_file():
    tree = _code_blocks(DOC)[0]
    for name in _template_files():
        assert name.split("/")[-1] in tree, name


def test_the_install_steps_install_arena_from_its_checkout_first():
    section = DOC.split("## 4. Install", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in _code_blocks(section)[0].splitlines()]
    assert commands[0] == "pip install -e /path/to/arena" and 'pip install -e ".[test]"' in commands
    assert "not on the package index" in section
    readme = (TEMPLATE / "README.md").read_text(encoding="utf-8")
    assert "pip install -e /path/to/arena" in readme


def test_the_template_installs_offline_where_arena_marl_comes_from_the_checkout(tmp_path):
    """pip resolves the template with no index at all: arena-marl is met by this checkout's install."""
    import importlib.metadata

    try:
        importlib.metadata.distribution("arena-marl")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("arena is not installed from this checkout")
    folder = tmp_path / "plugin-template"
    shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--no-build-isolation", "-e", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "Would install arena-plugin-template-0.1.0" in result.stdout
    assert re.search(r"Requirement already satisfied: arena-marl .*\(from arena-plugin-template", result.stdout)


def test_the_real_game_check_runs_as_written(tmp_path):
    """The page's ``arena.testing.check_env(...)`` block, run as a script with only ``import arena``."""
    block = next(body for body in _code_blocks(DOC) if "arena.testing.check_env(" in body)
    assert "import arena\n" in block and "from arena.testing" not in block
    script = tmp_path / "check.py"
    script.write_text(block + "\nprint('checked')\n")
    paths = [str(ROOT), str(TEMPLATE)]  # the template as if installed
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(paths)},
    )
    assert result.stdout == "checked\n", result.stderr[-2000:]
