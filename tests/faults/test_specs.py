"""Specs of any length or nesting, and env options of any size, are one line on stderr.

Never ``OSError: File name too long``, ``RecursionError`` or an allocation first: each goes
through the real CLI as a user (or a script) would type it.
"""

from __future__ import annotations

import json

import pytest

from arena.cli import main

NESTED = "flatten(" * 3000 + "ego_board" + ")" * 3000
SPECS = {
    "3,000 nested interfaces": (
        f'random{{"interface": "{NESTED}"}},b=random',
        "more than 100 interfaces or values nested",
    ),
    "300 nested interfaces, JSON form": (
        "random"
        + json.dumps({"interface": json.loads('{"interface": "flatten", "inner": ' * 300 + '"ego_board"' + "}" * 300)})
        + ",b=random",
        "more than 100 interfaces or values nested",
    ),
    "100,000-deep JSON keyword arguments": (
        'random{"a": ' + "[" * 100_000 + "]" * 100_000 + "},b=random",
        "at most 100,000 are read",
    ),
    "20,000-deep JSON keyword arguments": (
        'random{"a": ' + "[" * 20_000 + "]" * 20_000 + "},b=random",
        "nested too deeply",
    ),
}


@pytest.mark.parametrize("case", sorted(SPECS))
@pytest.mark.parametrize("command", ["play", "tournament"])
def test_a_spec_of_any_length_or_nesting_is_one_line(command, case, capsys):
    agents, expected = SPECS[case]
    args = [command, "tic_tac_toe", "--agents", agents] + (
        ["--games", "1", "--progress", "none"] if command == "tournament" else []
    )
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"arena {command}: error: ") and len(err) < 600, err
    assert expected in err, err


@pytest.mark.parametrize("member", ["random", "arena.agents.base:RandomAgent", 'random{"seed": 1}'])
def test_forty_members_joined_by_plus_are_one_line(member, capsys):
    team = "t=" + "+".join([member] * 40)
    assert (
        main(
            [
                "tournament",
                "team_rock_paper_scissors",
                "--agents",
                f"{team},b=random",
                "--games",
                "1",
                "--progress",
                "none",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 600 and "has 40 members" in err and "a side it plays has 2 seats" in err


@pytest.mark.parametrize(
    "env, options, expected",
    [
        ("soccer", {"render_height": 10**6}, "render_height must be 48 to 2160 pixels, got 1000000"),
        (
            "vizdoom_deathmatch",
            {"resolution": "99999x99999"},
            "resolution must be one ViZDoom renders, 160x120 to 1920x1080",
        ),
    ],
)
def test_env_options_are_checked_before_anything_is_allocated(env, options, expected, capsys):
    pytest.importorskip({"soccer": "dm_control", "vizdoom_deathmatch": "vizdoom"}[env])
    assert (
        main(
            [
                "tournament",
                env,
                "--agents",
                "random,b=random",
                "--games",
                "1",
                "--progress",
                "none",
                "--env-options",
                json.dumps(options),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and expected in err, err
