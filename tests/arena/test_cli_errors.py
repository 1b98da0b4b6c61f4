"""How ``arena`` ends: a user's mistake in one line (exit 2), a bug with its traceback (exit 1),
and a removed flag named with its replacement (argparse, exit 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import arena.cli.listing
from arena.cli import main
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError
from tests.faults.helpers import ROOT

# A simulated bug inside a command: `arena envs` asks for name clashes, which now raise TypeError.
_BUG = (
    "import sys, arena.cli.listing as listing\n"
    "from arena.cli import main\n"
    "def broken(kind):\n"
    "    raise TypeError('simulated bug')\n"
    "listing.name_clashes = broken\n"
    "sys.exit(main(['envs']))\n"
)


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["play", "tic_tac_toe", "--env-options", '{"sise": 3}'], "env 'tic_tac_toe' takes no option 'sise'"),
        (["play", "tic_tac_toe", "--env-options", "[1]"], "--env-options must be a JSON object, got '[1]'"),
        (["train", "tic_tac_toe", "--timesteps", "0"], "--timesteps must be at least 1, got 0"),
        (["tournament", "tic_tac_toe", "--agents", "random", "--sprt", "x"], "--sprt: expected ELO0,ELO1"),
    ],
)
def test_a_users_mistake_is_one_line_and_exit_2(argv, reason, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"arena {argv[0]}: error: ") and reason in err, err


def test_traceback_flag_adds_the_traceback_to_a_users_mistake(capsys):
    for argv in (
        ["--traceback", "train", "tic_tac_toe", "--timesteps", "0"],
        ["train", "tic_tac_toe", "--timesteps", "0", "--traceback"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("Traceback (most recent call last):") and "InvalidValueError" in err, err
        assert err.splitlines()[-1] == "arena train: error: --timesteps must be at least 1, got 0"


def test_an_internal_bug_is_not_turned_into_one_line(monkeypatch):
    def broken(kind):
        raise TypeError("simulated bug")

    monkeypatch.setattr(arena.cli.listing, "name_clashes", broken)
    with pytest.raises(TypeError, match="simulated bug"):
        main(["envs"])


def test_an_internal_bug_shows_its_traceback_and_exit_1():
    result = subprocess.run([sys.executable, "-c", _BUG], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 1
    assert "Traceback (most recent call last):" in result.stderr and "TypeError: simulated bug" in result.stderr
    assert "error: simulated bug" not in result.stderr


def test_user_input_errors_are_arena_errors_and_builtins():
    """Library users' `except ValueError` / `except TypeError` keep working."""
    assert issubclass(InvalidValueError, ArenaError) and issubclass(InvalidValueError, ValueError)
    assert issubclass(InvalidTypeError, ArenaError) and issubclass(InvalidTypeError, TypeError)


@pytest.mark.parametrize(
    "command", [["tournament", "tic_tac_toe", "--agents", "random"], ["demo"], ["train", "tic_tac_toe"]]
)
def test_no_progress_names_its_replacement(command, capsys):
    with pytest.raises(SystemExit) as info:
        main([*command, "--no-progress"])
    assert info.value.code == 2
    assert "--no-progress was removed: use --progress none" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", [["tournament", "tic_tac_toe", "--agents", "random"], ["demo"], ["train", "tic_tac_toe"]]
)
def test_progress_none_is_the_one_way(command):
    from arena.cli import build_parser

    assert build_parser().parse_args([*command, "--progress", "none"]).progress == "none"
