"""Entrants that end their own process, swallow the time limit's interrupt or hang in C code:
each costs that entrant a stored forfeit, the tournament finishes, and a rerun plays nothing again.
Every run is the real ``arena tournament`` command in a subprocess under a timeout."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.faults.helpers import ENTRANTS, run_cli


def forfeits(db):
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT lineup, forfeit, error, outcome, ranks FROM games ORDER BY lineup, game_index"
        )
        return [(lineup, forfeit, error, outcome, json.loads(ranks)) for lineup, forfeit, error, outcome, ranks in rows]


@pytest.mark.parametrize("workers", [["--workers", "2"], []])  # [] is the serial default, no time limit
def test_entrants_that_kill_their_worker_forfeit_and_the_tournament_finishes(tmp_path, workers):
    db = tmp_path / "t.sqlite"
    # Each game seats the two in turn; the first to reach its second move ends its worker.
    args = [
        "tournament",
        "tic_tac_toe",
        "--agents",
        f"exit={ENTRANTS}:ExitingAgent,segv={ENTRANTS}:SegfaultingAgent",
        "--games",
        "2",
        *workers,
        "--db",
        str(db),
        "--progress",
        "none",
    ]
    first = run_cli(*args)
    assert first.returncode == 0, first.stderr
    assert "2 of 2 games stored (2 played now" in first.stdout
    assert forfeits(db) == [
        (
            "exit|segv",
            "exit",
            "ended its worker process during act() (exit code 3)",
            "exit forfeits",
            {"exit": 2, "segv": 1},
        ),
        (
            "exit|segv",
            "segv",
            "ended its worker process during act() (killed by SIGSEGV)",
            "segv forfeits",
            {"exit": 1, "segv": 2},
        ),
    ]
    assert "forfeit exit x1" in first.stdout and "forfeit segv x1" in first.stdout
    again = run_cli(*args)
    assert again.returncode == 0, again.stderr
    assert "2 of 2 games stored (0 played now" in again.stdout
    assert len(forfeits(db)) == 2


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_system_exit_and_keyboard_interrupt_raised_by_an_agent_are_forfeits(tmp_path, workers):
    db = tmp_path / "t.sqlite"
    result = run_cli(
        "tournament",
        "tic_tac_toe",
        "--agents",
        f"random,quit={ENTRANTS}:SystemExitAgent,ctrlc={ENTRANTS}:InterruptingAgent",
        "--games",
        "2",
        "--db",
        str(db),
        "--progress",
        "none",
        *workers,
    )
    assert result.returncode == 0, result.stderr
    games = forfeits(db)
    assert len(games) == 6
    for lineup, forfeit, error, _, _ in games:
        assert forfeit in ("quit", "ctrlc") and forfeit in lineup.split("|")
        expected = "act() raised SystemExit: 4 (at " if forfeit == "quit" else "act() raised KeyboardInterrupt:  (at "
        assert error.startswith(expected), error


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_the_move_time_limit_holds_against_agents_that_ignore_it(tmp_path, workers):
    db = tmp_path / "t.sqlite"
    result = run_cli(
        "tournament",
        "tic_tac_toe",
        "--agents",
        f"stubborn={ENTRANTS}:StubbornAgent,stuck={ENTRANTS}:StuckInCAgent",
        "--games",
        "2",
        "--move-time-limit",
        "0.3",
        "--db",
        str(db),
        "--progress",
        "none",
        *workers,
    )
    assert result.returncode == 0, result.stderr
    games = forfeits(db)
    assert [forfeit for _, forfeit, _, _, _ in games] == ["stubborn", "stuck"]  # whoever moves first
    for _, _, error, _, _ in games:
        assert error.startswith(
            "exceeded the move time limit of 0.3 s (did not answer the interrupt; its worker process was killed after "
        ), error


def test_on_ray_an_entrant_that_kills_its_actor_forfeits_and_the_tournament_finishes(tmp_path):
    pytest.importorskip("ray")
    db = tmp_path / "t.sqlite"
    # Every game's exiting entrant ends its Ray actor on its second move; replacement actors play on.
    args = [
        "tournament",
        "tic_tac_toe",
        "--agents",
        f"random,exit={ENTRANTS}:ExitingAgent",
        "--games",
        "4",
        "--backend",
        "ray",
        "--workers",
        "2",
        "--db",
        str(db),
        "--progress",
        "none",
    ]
    first = run_cli(*args, timeout=300)
    assert first.returncode == 0, first.stderr
    assert "4 of 4 games stored (4 played now" in first.stdout, first.stdout
    games = forfeits(db)
    assert [forfeit for _, forfeit, _, _, _ in games] == ["exit"] * 4
    assert {error for _, _, error, _, _ in games} == {"ended its worker process during act() (exit code 3)"}
    again = run_cli(*args, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "4 of 4 games stored (0 played now" in again.stdout
