"""arena.plugins: the ``arena.interfaces`` entry-point registry and the ``arena interfaces`` command.

Third-party packages are simulated by a distribution folder (``*.dist-info`` with
``entry_points.txt``) on ``sys.path``, which is what an installed wheel leaves behind;
``tests/interfaces/test_plugin_template.py`` installs real packages with pip.
"""

from __future__ import annotations

import configparser
import inspect
import os
import re
import sys
from pathlib import Path

import pytest

import arena
import interfaces
from arena import Interface, PluginError, UnknownNameError
from arena.cli import main
from arena.plugins import InterfaceEntry, interface_registry, make_interface

ROOT = Path(__file__).resolve().parents[2]

PLUGIN_MODULE = '''\
"""Interfaces of a fake third-party package."""

from gymnasium import spaces

from arena import Interface


class Double(Interface):
    """Double every reward.

    More text that the summary leaves out.
    """

    @classmethod
    def contract_examples(cls):
        return [(cls(), spaces.Discrete(2), spaces.Discrete(2))]

    def reward(self, reward):
        return 2 * reward


class Undocumented(Interface):
    pass


class BadExamples(Interface):
    """Its contract examples cannot even be built."""

    @classmethod
    def contract_examples(cls):
        raise RuntimeError("no spaces today")


class NoExamples(Interface):
    """Keeps everything as it is."""


def factory():
    return Double()
'''

ENTRY_POINTS = """\
[arena.interfaces]
double = fake_arena_plugin:Double
undocumented = fake_arena_plugin:Undocumented
bad_examples = fake_arena_plugin:BadExamples
no_examples = fake_arena_plugin:NoExamples
a_function = fake_arena_plugin:factory
missing_module = fake_arena_plugin_missing:Thing
missing_attribute = fake_arena_plugin:Nothing
flatten = fake_arena_plugin:Double
"""


def _install_fake_plugin(site: Path) -> None:
    """Write the fake distribution ``fake-arena-plugin`` into ``site``, as a wheel's install leaves it."""
    info = site / "fake_arena_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-arena-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (site / "fake_arena_plugin.py").write_text(PLUGIN_MODULE)


@pytest.fixture
def fake_plugin(tmp_path, monkeypatch):
    """A fake distribution ``fake-arena-plugin`` declaring good and broken interfaces."""
    site = tmp_path / "site"
    _install_fake_plugin(site)
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("fake_arena_plugin", None)


def _by_name(entries: list[InterfaceEntry]) -> dict[str, list[InterfaceEntry]]:
    table: dict[str, list[InterfaceEntry]] = {}
    for entry in entries:
        table.setdefault(entry.name, []).append(entry)
    return table


def test_every_bundled_interface_is_registered_as_a_builtin_with_its_summary():
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    declared = {
        line.split("=")[1].strip().split(":")[1]
        for line in config["options.entry_points"]["arena.interfaces"].strip().splitlines()
    }
    classes = {name for name in interfaces.__all__ if inspect.isclass(getattr(interfaces, name))}
    assert declared == classes
    builtins = [entry for entry in interface_registry() if entry.builtin]
    assert {entry.interface.__name__ for entry in builtins} == classes
    for entry in builtins:
        assert entry.ok and entry.package == "arena-marl" and entry.target.startswith("interfaces.")
        paragraph = " ".join(inspect.getdoc(entry.interface).split("\n\n")[0].split())  # a wrapped sentence whole
        assert entry.summary == paragraph.replace("``", "")
    assert arena.interface_registry is interface_registry


def test_plugins_are_listed_beside_builtins_and_broken_ones_are_explained(fake_plugin):
    table = _by_name(interface_registry())
    double = table["double"][0]
    assert double.ok and double.package == "fake-arena-plugin" and not double.builtin
    assert double.summary == "Double every reward."
    assert table["no_examples"][0].ok
    reasons = {
        name: table[name][0].error for name in ("undocumented", "a_function", "missing_module", "missing_attribute")
    }
    assert reasons["undocumented"] == (
        "Undocumented has no docstring; its first paragraph is the summary 'arena interfaces' shows"
    )
    assert reasons["a_function"] == "'fake_arena_plugin:factory' is not an arena.Interface subclass (got function)"
    assert reasons["missing_module"] == (
        "failed to import 'fake_arena_plugin_missing:Thing': ModuleNotFoundError: "
        "No module named 'fake_arena_plugin_missing'"
    )
    assert reasons["missing_attribute"].startswith("failed to import 'fake_arena_plugin:Nothing': AttributeError:")
    flatten = table["flatten"]
    assert [e.package for e in flatten] == ["arena-marl", "fake-arena-plugin"]  # the built-in keeps the name
    assert flatten[0].ok and flatten[1].error == (
        "name 'flatten' is already taken by package 'arena-marl' (interfaces.observation:Flatten)"
    )
    assert all(e.package == "fake-arena-plugin" for e in interface_registry() if not e.ok)


def test_the_same_distribution_twice_on_the_path_is_listed_once(fake_plugin, monkeypatch):
    monkeypatch.syspath_prepend(str(fake_plugin))  # a second sys.path entry for the same folder
    assert len(_by_name(interface_registry())["double"]) == 1


def _counted_scans(monkeypatch, group: str) -> list[dict]:
    """The reads of entry-point ``group`` from now on, one entry each (``importlib.metadata`` counted)."""
    from importlib import metadata

    scans: list[dict] = []
    scan = metadata.entry_points

    def counted(**kwargs):
        if kwargs.get("group") == group:
            scans.append(kwargs)
        return scan(**kwargs)

    monkeypatch.setattr(metadata, "entry_points", counted)
    return scans


def _empty_site(tmp_path: Path, monkeypatch) -> Path:
    """An empty folder first on ``sys.path``, for a distribution installed into it later."""
    site = tmp_path / "site"
    site.mkdir()
    os.utime(site, ns=(0, 0))  # made long ago: an install changes its time even on a coarse clock
    monkeypatch.syspath_prepend(str(site))
    return site


def test_the_listing_is_read_once_until_a_distribution_is_installed_or_sys_path_changes(tmp_path, monkeypatch):
    scans = _counted_scans(monkeypatch, "arena.interfaces")
    site = _empty_site(tmp_path, monkeypatch)
    before = interface_registry()
    assert interface_registry() == before and len(scans) == 1  # nothing installed since: not read again
    before.clear()  # a caller's list is its own
    assert len(interface_registry()) > 0 and len(scans) == 1
    _install_fake_plugin(site)  # into a folder already on sys.path
    try:
        assert "double" in {entry.name for entry in interface_registry()} and len(scans) == 2
        monkeypatch.syspath_prepend(str(tmp_path))  # sys.path itself changed
        interface_registry()
        assert len(scans) == 3
        interface_registry(check={"double"})  # a check always reads and checks afresh
        assert len(scans) == 4
    finally:
        sys.modules.pop("fake_arena_plugin", None)


def test_an_env_installed_while_a_program_runs_is_found_and_the_scan_kept_until_then(tmp_path, monkeypatch):
    from arena import registry

    scans = _counted_scans(monkeypatch, "arena.envs")
    site = _empty_site(tmp_path, monkeypatch)
    assert "late_env" not in registry.env_names()
    registry.make_env("tic_tac_toe")
    assert len(scans) == 1  # the env names and the lookup: one scan
    info = site / "late_arena_env-1.0.dist-info"  # installed now, into a folder already on sys.path
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: late-arena-env\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[arena.envs]\nlate_env = late_arena_env:make\n")
    (site / "late_arena_env.py").write_text(
        "from envs.tic_tac_toe import TicTacToe\n\n\ndef make():\n    return TicTacToe()\n"
    )
    try:
        assert type(registry.make_env("late_env")).__name__ == "TicTacToe" and len(scans) == 2
    finally:
        sys.modules.pop("late_arena_env", None)


def test_check_runs_contract_examples(fake_plugin):
    # two examples an interface: the table's plumbing; tests/interfaces/test_every_interface.py checks each in depth
    table = _by_name(interface_registry(check=True, examples=2))
    assert table["double"][0].checked and table["double"][0].ok
    assert table["no_examples"][0].ok and not table["no_examples"][0].checked
    assert table["bad_examples"][0].error == "breaks the contract: RuntimeError: no spaces today"
    for entries in table.values():  # every built-in declares contract examples, and passes them
        assert all(e.checked for e in entries if e.builtin), [f"{e.name}: {e.error}" for e in entries]


def test_make_interface_builds_by_name_and_explains_failures(fake_plugin):
    itf = make_interface("frame_stack", frames=3)
    assert isinstance(itf, Interface) and str(itf) == "FrameStack(frames=3)"
    assert type(make_interface("double")).__name__ == "Double"
    with pytest.raises(
        PluginError,
        match=r"interface 'missing_module' from package 'fake-arena-plugin' is broken: "
        r"failed to import",
    ):
        make_interface("missing_module")
    with pytest.raises(UnknownNameError, match=r"unknown interface 'nope'; known interfaces: .*double.*flatten"):
        make_interface("nope")


def test_cli_lists_plugins_in_plain_text(fake_plugin, capsys):
    assert main(["interfaces", "--plain"]) == 0
    out = capsys.readouterr().out
    working, _, broken = out.partition("broken plugins:")
    assert "double" in working and "fake-arena-plugin" in working and "Double every reward." in working
    assert "  missing_module (package fake-arena-plugin, fake_arena_plugin_missing:Thing): failed to import" in broken
    assert "undocumented" not in working


def test_cli_check_exit_status_and_rich_table(fake_plugin, capsys):
    assert main(["interfaces", "--check", "--examples", "2"]) == 1
    out, err = capsys.readouterr()
    assert (
        err.startswith("checking the contract examples of all ") and "arena's own included (about a second each)" in err
    )
    assert re.search(r"; --check \S*double\S* checks only the plugins\n$", err)  # the narrower command, spelt out
    assert "broken plugins" in out and "bad_examples" in out and "RuntimeError" in out
    assert "│ double" in out  # a rich table row
    assert "fake_arena_plugin:factory" in out  # plugin text is shown as is (no emoji codes, no markup)


def test_cli_falls_back_to_plain_text_without_rich(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "rich", None)  # import rich -> ImportError
    monkeypatch.setitem(sys.modules, "rich.console", None)
    assert main(["interfaces"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NAME ") and "│" not in out and "flatten" in out


def test_cli_rejects_a_bad_example_count(capsys):
    assert main(["interfaces", "--examples", "0"]) == 2
    assert "arena interfaces: error: --examples must be at least 1, got 0" in capsys.readouterr().err
