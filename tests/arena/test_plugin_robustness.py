"""A plugin that calls ``sys.exit`` or raises ``BaseException`` at import is reported like any
broken plugin, and one that takes a bundled name is reported and never wins."""

from __future__ import annotations

import sys

import pytest

from arena import registry
from arena.cli import main
from arena.plugins import interface_registry
from arena.tournament import TournamentRules

EXITING = """
import sys
sys.exit(3)
"""

RAISING = """
raise BaseException("the plugin gave up")
"""

ROGUE = '''
from arena import RandomAgent
from envs.tic_tac_toe import TicTacToe


class Impostor(TicTacToe):
    """Not arena's tic-tac-toe."""


def agent(**kwargs):
    """Not arena's random agent."""
    return RandomAgent(**kwargs)
'''

ENTRY_POINTS = """\
[arena.interfaces]
exiting = rogue_exiting:Thing
raising = rogue_raising:Thing

[arena.envs]
tic_tac_toe = rogue_plugin:Impostor
exiting_env = rogue_exiting:make

[arena.agents]
random = rogue_plugin:agent
exiting_agent = rogue_exiting:agent
raising_agent = rogue_raising:agent
"""


@pytest.fixture
def rogue(tmp_path, monkeypatch):
    site = tmp_path / "site"
    info = site / "rogue_arena_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rogue-arena-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    (site / "rogue_exiting.py").write_text(EXITING)
    (site / "rogue_raising.py").write_text(RAISING)
    (site / "rogue_plugin.py").write_text(ROGUE)
    monkeypatch.syspath_prepend(str(site))  # a new sys.path: the registries read it afresh
    yield site
    for name in ("rogue_exiting", "rogue_raising", "rogue_plugin"):
        sys.modules.pop(name, None)


def test_interfaces_that_exit_or_raise_base_exception_at_import_are_reported(rogue, capsys):
    entries = {entry.name: entry for entry in interface_registry()}
    assert entries["exiting"].error == "failed to import 'rogue_exiting:Thing': SystemExit: 3"
    assert entries["raising"].error == "failed to import 'rogue_raising:Thing': BaseException: the plugin gave up"
    assert entries["flatten"].ok  # the rest still load
    assert main(["interfaces"]) in (0, 1)
    out = capsys.readouterr().out
    assert "exiting" in out and "flatten" in out


def test_envs_and_agents_listing_reports_clashes_and_broken_plugins_and_goes_on(rogue, capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    assert (
        "name clash: arena.envs: package 'rogue-arena-plugin' also declares 'tic_tac_toe' "
        "(rogue_plugin:Impostor); ignored, 'arena-marl' keeps it"
    ) in out
    line = next(line for line in out.splitlines() if line.startswith("exiting_env "))
    assert line.split(None, 1)[1] == (
        "(cannot be loaded: PluginError: env 'exiting_env' from package "
        "'rogue-arena-plugin' failed to import 'rogue_exiting:make': SystemExit: 3)"
    )
    assert "connect_four" in out
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "name clash: arena.agents: package 'rogue-arena-plugin' also declares 'random'" in out
    assert "raising_agent" in out and "BaseException: the plugin gave up" in out


def test_a_bundled_name_is_never_taken_over(rogue):
    assert type(registry.make_env("tic_tac_toe")).__name__ == "TicTacToe"
    assert type(registry.make_agent("random")).__module__ == "arena.agents.base"


def test_a_tournament_excludes_a_plugin_entrant_that_exits_at_import_and_goes_on(rogue):
    from arena.tournament import run_tournament

    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe",
            ["random", "b=random", "x=exiting_agent", "y=raising_agent"],
            games=2,
            exclude_unbuildable=True,
        )
    )
    assert result.complete and result.entrants == ["random", "b"]
    assert (
        "PluginError: agent 'exiting_agent' from package 'rogue-arena-plugin' failed to import "
        "'rogue_exiting:agent': SystemExit: 3" == result.excluded["x"]
    )
    assert result.excluded["y"].endswith("BaseException: the plugin gave up")
