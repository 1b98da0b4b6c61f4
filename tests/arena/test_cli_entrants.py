"""An entrant that cannot be built stops ``arena tournament`` before any game (exit 2, one line);
agent modules the user names are found in the working folder, last; a folder that hides arena's
own ``envs`` or ``interfaces`` is named."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import UnknownNameError
from arena.registry import load_callable, reading_data
from arena.working_folder import _WorkingFolderFinder
from tests.faults.helpers import ROOT, run_cli

HELPERS = "tests.arena.tournament.helpers"


def test_a_misspelt_agent_is_one_line_with_a_suggestion_and_exit_2(capsys, tmp_path):
    db = tmp_path / "r.sqlite"
    agents = 'connect_four_heuristc,random,mcts{"simulations": 20}'
    assert main(["tournament", "connect_four", "--agents", agents, "--db", str(db), "--progress", "none"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no tables: nothing was played
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(
        "arena tournament: error: tournament: entrant 'connect_four_heuristc' cannot be built: UnknownNameError: "
        "unknown agent 'connect_four_heuristc'; did you mean 'connect_four_heuristic'?"
    )
    assert captured.err.rstrip().endswith("(--exclude-unbuildable plays without it)")
    assert not db.exists()


def test_a_misspelt_option_is_refused_even_with_enough_entrants_left(capsys):
    agents = 'random,mcts{"simulation": 20},connect_four_heuristic'
    assert main(["tournament", "connect_four", "--agents", agents, "--games", "2", "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "arena tournament: error: tournament: entrant 'mcts' cannot be built: InvalidTypeError: agent 'mcts' takes no "
        "option 'simulation' (did you mean 'simulations'?); its options: env, simulations, exploration, seed "
        "(--exclude-unbuildable plays without it)\n"
    )


def test_exclude_unbuildable_plays_without_it_as_before(capsys):
    agents = f"random,b=random,gone={HELPERS}:broken_agent"
    code = main(
        ["tournament", "tic_tac_toe", "--agents", agents, "--games", "2", "--progress", "none", "--exclude-unbuildable"]
    )
    out = capsys.readouterr().out
    assert code == 0 and "excluded gone: FileNotFoundError: no weights at /nowhere/model.zip" in out


def test_an_entrant_that_fails_during_games_still_forfeits_them(capsys):
    agents = f"random,b=random,bad={HELPERS}:IllegalAgent"
    assert main(["tournament", "tic_tac_toe", "--agents", agents, "--games", "2", "--progress", "none"]) == 0
    assert "forfeit bad x4: illegal action 0\n" in capsys.readouterr().out


def test_an_unknown_env_suggests_the_close_name():
    from arena.registry import make_env

    with pytest.raises(UnknownNameError, match=r"unknown env 'tic_tac_to'; did you mean 'tic_tac_toe'\?"):
        make_env("tic_tac_to")


# --- modules in the working folder ------------------------------------------------------------------------

CENTER_PLAYER = textwrap.dedent(
    '''
    import numpy as np

    import arena


    class CenterPlayer(arena.Agent):
        """The centre column when it is legal, else the first legal one."""

        def act(self, observation, action_mask=None, reward=0.0):
            legal = np.flatnonzero(action_mask)
            return int(3 if 3 in legal else legal[0])


    def center_player(**options):
        return CenterPlayer()
    '''
)


def _as_installed(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``arena ARGS`` as the console script runs it: the working folder is not on ``sys.path`` (``-P``)."""
    return subprocess.run(
        [sys.executable, "-P", "-m", "arena", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"},
    )


def test_an_agent_module_in_the_working_folder_plays_in_worker_processes(tmp_path):
    (tmp_path / "myagents.py").write_text(CENTER_PLAYER)
    (tmp_path / "numpy.py").write_text("raise SystemExit('the folder shadowed numpy')\n")  # looked at last, never first
    result = _as_installed(
        "tournament", "connect_four", "--agents", "mine=myagents:center_player,random", "--games", "2", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "2 of 2 games stored" in result.stdout and "mine" in result.stdout
    assert "forfeit" not in result.stdout


def test_a_module_found_nowhere_says_where_arena_looked(tmp_path):
    result = _as_installed("tournament", "connect_four", "--agents", "mine=myagentz:center_player,random", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert (
        f"cannot load 'myagentz:center_player': No module named 'myagentz': it is not installed, and the current "
        f"folder {tmp_path} has no myagentz.py or myagentz/ (run from the folder that holds it, or put that folder "
        "on PYTHONPATH)"
    ) in result.stderr


def test_a_module_that_needs_a_missing_one_names_the_missing_one(tmp_path):
    (tmp_path / "needy.py").write_text("import no_such_dependency_here\n")
    result = _as_installed("tournament", "connect_four", "--agents", "mine=needy:agent,random", cwd=tmp_path)
    assert result.returncode == 2
    assert "cannot load 'needy:agent': No module named 'no_such_dependency_here'" in result.stderr


@pytest.fixture
def folder_module(tmp_path, monkeypatch):
    """A module ``cli_folder_agents_<n>`` in a fresh working folder, and import state restored afterwards."""
    name = f"cli_folder_agents_{os.getpid()}"
    (tmp_path / f"{name}.py").write_text("def factory():\n    return 'built'\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    yield name
    sys.modules.pop(name, None)


def test_a_name_the_user_gives_is_looked_for_in_the_working_folder_last(folder_module):
    assert load_callable(f"{folder_module}:factory")() == "built"
    assert isinstance(sys.meta_path[-1], _WorkingFolderFinder)  # after every installed package and import hook


def test_names_read_from_a_file_are_never_looked_for_in_the_working_folder(folder_module):
    with reading_data("results file 'x.db'", trust=True), pytest.raises(UnknownNameError) as info:
        load_callable(f"{folder_module}:factory")
    assert (
        f"No module named '{folder_module}': the current folder has {folder_module}.py or {folder_module}/, but "
        "names read from a file are imported only from installed packages"
    ) in str(info.value)
    assert not any(isinstance(finder, _WorkingFolderFinder) for finder in sys.meta_path)


# --- folders that hide arena's own packages ---------------------------------------------------------------


@pytest.mark.parametrize("package", ["envs", "interfaces"])
def test_a_local_folder_hiding_arenas_package_is_named(tmp_path, package):
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    result = run_cli("tournament", "connect_four", "--agents", "random,connect_four_heuristic", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == (
        f"arena tournament: error: the folder {tmp_path / package} hides arena's own package {package!r} (in "
        f"{ROOT}), so arena's envs, agents and interfaces cannot be imported: run arena from another folder, use "
        f"the 'arena' command instead of 'python -m arena', or rename your {package}/\n"
    )
