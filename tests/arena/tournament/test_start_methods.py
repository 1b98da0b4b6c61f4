"""Same seed, same results: whatever the start method of the workers, and serially."""

from __future__ import annotations

import pytest

from arena.runtime.runner import grace_seconds, start_context
from arena.tournament import Execution, TournamentRules, run_tournament

AGENTS = ["random", 'b=random{"seed": 3}', "mcts"]


def test_results_do_not_depend_on_the_start_method():
    serial = run_tournament("tic_tac_toe", AGENTS, games=2, seed=4)
    for method in ("forkserver", "spawn", "fork"):
        other = run_tournament(
            "tic_tac_toe", AGENTS, games=2, seed=4, execution=Execution.make(None, 2, start_method=method)
        )
        assert len(other.games) == len(serial.games) == 6
        assert all(a.same_play(b) for a, b in zip(serial.games, other.games)), method


def test_serial_games_under_a_time_limit_play_the_same_in_their_worker():
    free = run_tournament("tic_tac_toe", AGENTS, games=2, seed=5)
    limited = run_tournament(rules=TournamentRules.make("tic_tac_toe", AGENTS, games=2, seed=5, move_time_limit=30.0))
    assert all(a.same_play(b) for a, b in zip(free.games, limited.games))


def test_an_unknown_start_method_is_refused_naming_the_offered_ones():
    with pytest.raises(ValueError, match=r"start_method must be one of forkserver, spawn, fork, got 'threads'"):
        run_tournament(
            "tic_tac_toe", ["random", "b=random"], games=2, execution=Execution.make(None, 2, start_method="threads")
        )
    assert start_context().get_start_method() == "forkserver"


def test_the_grace_before_a_worker_is_killed_grows_with_the_limit_and_stays_bounded():
    assert grace_seconds(0.01) == 0.5 and grace_seconds(4) == 1.0 and grace_seconds(1000) == 5.0
