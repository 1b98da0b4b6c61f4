"""How ``arena`` ends on a mistake: a removed flag names its replacement (exit 2)."""

from __future__ import annotations

import pytest

from arena.cli import main


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
