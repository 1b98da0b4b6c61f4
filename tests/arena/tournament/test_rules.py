"""The rules object and the execution: frozen, and checked when made."""

from __future__ import annotations

import dataclasses

import pytest

from arena.tournament.rules import Execution, TournamentRules


def test_rules_are_frozen_and_stored_as_the_results_file_checks_them():
    rules = TournamentRules.make(
        "tic_tac_toe", "random,b=random", games=4, seed=7, duplicate=False, anchor=("random", 0)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.games = 5  # type: ignore[misc]
    assert rules.names == ("random", "b") and rules.anchor == ("random", 0.0)
    assert rules.stored() == {
        "env": "tic_tac_toe",
        "env_kwargs": {},
        "seed": 7,
        "seatings": "auto",
        "max_steps": None,
        "move_time_limit": None,
        "duplicate": False,
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"games": 0}, "games must be a positive integer, got 0"),
        ({"seed": -1}, "seed must be an integer from 0 to 2**64 - 1, got -1"),
        ({"mode": "swiss"}, "mode must be one of round-robin, head-to-head, gauntlet, got 'swiss'"),
        ({"seatings": "random"}, "seatings must be 'auto', 'all' or 'rotations', got 'random'"),
        ({"max_steps": True}, "max_steps must be a positive integer, got True"),
        (
            {"move_time_limit": float("inf")},
            "move_time_limit must be a number of seconds greater than 0 and at most 86400 (one day), got inf",
        ),
        ({"anchor": ("c", 0.0)}, "the anchor 'c' is not an entrant; expected one of ['random', 'b']"),
    ],
)
def test_bad_rules_say_what_was_expected(options, message):
    with pytest.raises(ValueError) as info:
        TournamentRules.make("tic_tac_toe", ["random", "b=random"], **options)
    assert message in str(info.value)


def test_execution_defaults_and_refusals():
    assert Execution.make().backend == "serial" and Execution.make(workers=3).backend == "processes"
    assert Execution.make(workers=3).parallel == 3
    with pytest.raises(ValueError, match="the inline backend plays in this process and cannot hold a move time limit"):
        Execution.make("inline", move_time_limit=1.0)
    with pytest.raises(ValueError, match="chunk_size must be a positive integer, got 0"):
        Execution(chunk_size=0)
