"""The documentation site (mkdocs.yml): its tutorials run, every page is in the nav, it builds offline and strictly."""

from __future__ import annotations

import configparser
import importlib.util
import re
import subprocess
import sys

import pytest

from tests.doc_blocks import ROOT, missing_modules, python_blocks, run_script
from tests.tool_scripts import load_tool

DOCS = ROOT / "docs"
TUTORIALS = sorted((DOCS / "tutorials").glob("*.md"))
# What each tutorial's script prints first (its comments say so) and the extra modules it needs beyond the core.
FIRST_LINES = {
    "compose-interfaces.md": ["Flatten(EgoBoard())", "Box(-1.0, 1.0, (9,), float32)"],
    "evaluate-head-to-head.md": ["4 0 0 4"],
    "train-and-enter.md": ["ttt-agent batched"],
    "write-a-plugin.md": [],
}
NEEDS = {"train-and-enter.md": ["sb3_contrib"], "evaluate-head-to-head.md": ["scipy"]}


def _config() -> dict:
    yaml = pytest.importorskip("yaml")
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def _nav_pages(nav: list) -> list[str]:
    pages = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_there_is_a_tutorial_for_each_job():
    assert sorted(path.name for path in TUTORIALS) == sorted(FIRST_LINES)


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=[path.stem for path in TUTORIALS])
def test_the_tutorial_runs_as_one_script(tutorial, tmp_path):
    """A tutorial's blocks build on each other: they run one after the other as one script file."""
    code = "\n\n".join(block for _, block in python_blocks(tutorial.read_text(encoding="utf-8")))
    assert code, f"{tutorial.name} has no python block"
    for module in NEEDS.get(tutorial.name, []):
        pytest.importorskip(module)
    missing = missing_modules(code)
    if missing:
        pytest.skip(f"needs {missing} (an extra)")
    result = run_script(code, tmp_path)
    assert result.returncode == 0, f"{tutorial.name} failed:\n{result.stderr[-3000:]}"
    expected = FIRST_LINES[tutorial.name]
    assert result.stdout.splitlines()[: len(expected)] == expected, result.stdout
    written = [path.name + "/" * path.is_dir() for path in tmp_path.iterdir() if path.name != "block.py"]
    assert [name for name in written if not _ignored(name)] == [], "written where a reader runs it: add to .gitignore"


def test_what_the_tutorials_commands_write_is_in_gitignore():
    text = "\n".join(path.read_text(encoding="utf-8") for path in TUTORIALS)
    outputs = set(
        re.findall(r"--(?:db|out|report)[ =\n]+([^\s`'\"]+)", text) + re.findall(r'\b(?:db|out)="([^"]+)"', text)
    )
    assert {"head_to_head.sqlite", "head_to_head.png", "ttt-agent", "ttt-agent.sqlite"} <= outputs
    assert [path for path in sorted(outputs) if not _ignored(path)] == []


def _ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0


def test_the_nav_holds_every_page_and_only_pages_that_exist():
    config = _config()
    pages = _nav_pages(config["nav"])
    on_disk = sorted(str(path.relative_to(DOCS)) for path in DOCS.rglob("*.md"))
    assert sorted(pages) == on_disk
    assert len(pages) == len(set(pages))


def test_the_api_reference_covers_the_main_public_modules():
    reference = "\n".join(path.read_text(encoding="utf-8") for path in sorted((DOCS / "api").glob("*.md")))
    documented = set(re.findall(r"^::: ([\w.]+)", reference, flags=re.M))
    for module in ("arena", "arena.env", "arena.interface", "arena.wrappers", "arena.agent_wrapper", "arena.play_loop"):
        assert module in documented
    for module in ("arena.training", "arena.tournament", "arena.replay", "envs.registry", "interfaces"):
        assert module in documented
    assert all(importlib.util.find_spec(module) is not None for module in documented), documented


def test_the_site_builds_offline():
    """No request at build time: Material's web fonts off, and no plugin that fetches (social cards, privacy)."""
    config = _config()
    assert config["theme"]["name"] == "material" and config["theme"]["font"] is False
    plugins = [next(iter(p)) if isinstance(p, dict) else p for p in config["plugins"]]
    assert plugins == ["search", "mkdocstrings"]
    assert config["strict"] is True and set(config["validation"].values()) == {"warn"}  # warnings fail --strict


def test_the_readme_test_command_installs_the_docs_extra_for_the_suites_strict_build():
    command = re.findall(r"```bash\n(.*?)\n```", (ROOT / "README.md").read_text(encoding="utf-8"), flags=re.S)[1]
    assert 'pip install --no-compile ".[test,all,docs]"' in command
    assert "mkdocs" not in command  # test_the_site_builds_strictly builds it once, in the suite
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    docs = setup["options.extras_require"]["docs"].split()
    assert {pin.split("==")[0] for pin in docs} == {"mkdocs", "mkdocs-material", "mkdocstrings-python", "griffelib"}
    assert all("==" in pin for pin in docs)  # pinned: a release's new warnings must not fail the build overnight
    assert not set(docs) & set(setup["options.extras_require"]["all"].split())
    site = _config()["site_dir"]
    assert subprocess.run(["git", "check-ignore", "-q", site], cwd=ROOT).returncode == 0


def test_example_headings_become_examples_sections():
    griffe = pytest.importorskip("griffe")
    extension = load_tool("griffe_examples")
    code = 'def f():\n    """Do.\n\n    Example:\n        >>> f()\n        [\'a\', \'b\']\n    """\n'
    module = griffe.temporary_visited_module(code, extensions=griffe.load_extensions(extension.ExampleSections))
    with module as visited:
        sections = visited["f"].docstring.parse("google")
    assert [section.kind.value for section in sections] == ["text", "examples"]


def test_the_site_builds_strictly(tmp_path):
    """Broken links, missing anchors and docstrings Griffe cannot read fail the build (the suite's one build:
    the README's test command installs the docs extra and runs the suite)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "arena" / "index.html").exists()
