"""The rules object, the execution and the stopping request: frozen, checked when made, and what
run_tournament takes beside its common options."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from arena.tournament import Stopping, run_tournament
from arena.tournament.rules import Execution, TournamentRules, check_fits


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
        ({"exclude_unbuildable": "yes"}, "exclude_unbuildable must be True or False, got 'yes'"),
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
        check_fits(TournamentRules.make("tic_tac_toe", "random,b=random", move_time_limit=1.0), Execution("inline"))
    with pytest.raises(ValueError, match="chunk_size must be a positive integer, got 0"):
        Execution(chunk_size=0)


def test_run_tournament_takes_at_most_twelve_parameters():
    assert len(inspect.signature(run_tournament).parameters) <= 12


def _played(result):
    return [(g.lineup, g.index, g.seed, g.seats, g.outcome, g.length, g.actions) for g in result.games]


def test_passing_the_parts_plays_the_same_games_as_the_common_form():
    common = run_tournament("connect_four", "random,b=random", games=4, seed=11, mode="head-to-head", workers=1)
    parts = run_tournament(
        rules=TournamentRules.make("connect_four", "random,b=random", games=4, seed=11, mode="head-to-head"),
        execution=Execution.make(None, 1),
        stopping=Stopping(),
    )
    assert _played(parts) == _played(common) and len(_played(common)) == 4


def test_an_sprt_asked_through_stopping_stops_at_its_budget():
    result = run_tournament(
        "tic_tac_toe",
        "random,b=random",
        seed=3,
        execution=Execution("inline"),
        stopping=Stopping(sprt=(0, 50), budget=4),
    )
    assert result.sprt is not None and result.scheduled == 4


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"rules": "rules", "games": 4}, "rules= already holds games"),
        (
            {"env": "tic_tac_toe", "agents": "random,b=random", "execution": Execution(), "workers": 2},
            "execution= already",
        ),
        (
            {"env": "tic_tac_toe", "agents": "random,b=random", "stopping": {"sprt": (0, 50)}},
            "stopping must be a Stopping",
        ),
        ({"env": "tic_tac_toe"}, "give env and agents"),
    ],
)
def test_a_part_and_an_option_it_holds_are_refused_together(call, message):
    if call.get("rules") == "rules":
        call["rules"] = TournamentRules.make("tic_tac_toe", "random,b=random")
    with pytest.raises(TypeError, match=message):
        run_tournament(**call)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"budget": 0}, "budget must be a positive number of games, got 0"),
        ({"sprt": (0, 50), "until_separated": True}, "choose one of sprt"),
        ({"sprt": 50}, "sprt must be (elo0, elo1), got 50"),
        ({"sprt": (50, 0)}, "expected elo0 < elo1"),
    ],
)
def test_bad_stopping_says_what_was_expected(options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Stopping(**options)
