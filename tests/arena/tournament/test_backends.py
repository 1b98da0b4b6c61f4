"""Every backend plays the same games the same way: results depend on the seed only."""

from __future__ import annotations

import pytest

from arena.runtime.runner import chunked
from arena.tournament import Execution, TournamentRules, run_tournament

ENTRANTS = ["random", "heuristic=connect_four_heuristic", 'mcts=mcts{"simulations": 8}']


def assert_same_games(left, right):
    assert len(left.games) == len(right.games) == left.scheduled
    for a, b in zip(left.games, right.games):
        assert a.same_play(b), (a, b)
        assert a.versions == b.versions


def test_one_and_two_workers_give_identical_results():
    serial = run_tournament("connect_four", ENTRANTS, games=4, seed=21)
    # chunks of one game, so the two workers interleave and finish out of order
    parallel = run_tournament(
        "connect_four", ENTRANTS, games=4, seed=21, execution=Execution.make(None, 2, chunk_size=1)
    )
    assert_same_games(serial, parallel)
    assert {r.name: (r.mu, r.sigma) for r in serial.leaderboard()} == {
        r.name: (r.mu, r.sigma) for r in parallel.leaderboard()
    }
    # a different tournament seed plays different games
    other = run_tournament("connect_four", ENTRANTS, games=4, seed=22)
    assert [g.seed for g in other.games] != [g.seed for g in serial.games]


def test_an_agent_behind_an_interface_is_a_first_class_entrant():
    mirrored = (
        'mirrored=arena.specs.agents:behind_interface{"agent": "connect_four_heuristic", '
        '"interface": "rotate_board", "interface_kwargs": {"quarter_turns": 0, "mirror": true}}'
    )
    result = run_tournament("connect_four", ["random", mirrored], games=4, seed=5, workers=2)
    assert not result.forfeits and result.complete
    assert (
        "AgtItfWrapper(ConnectFourHeuristicAgent, RotateBoard(quarter_turns=0, mirror=True))"
        in result.games[0].versions["mirrored"]
    )
    assert result.pairings["mirrored", "random"].score > 0.5


def test_ray_gives_the_same_results_as_local_workers(ray_cluster):
    serial = run_tournament("tic_tac_toe", ["random", "b=random"], games=40, seed=13)
    on_ray = run_tournament(
        "tic_tac_toe", ["random", "b=random"], games=40, seed=13, execution=Execution.make("ray", 2, chunk_size=7)
    )
    assert_same_games(serial, on_ray)


def test_bad_backend_options_are_named():
    with pytest.raises(ValueError, match="backend must be one of serial, inline, processes, ray, got 'threads'"):
        run_tournament("tic_tac_toe", ["random", "b=random"], execution=Execution.make("threads"))
    with pytest.raises(ValueError, match="workers must be a positive integer, got 0"):
        run_tournament("tic_tac_toe", ["random", "b=random"], workers=0)
    with pytest.raises(
        ValueError, match="the serial backend plays one game at a time; workers=2 needs backend='processes' or 'ray'"
    ):
        run_tournament("tic_tac_toe", ["random", "b=random"], execution=Execution.make("serial", 2))
    with pytest.raises(
        ValueError,
        match=r"move_time_limit must be a number of seconds greater than 0 and at most 86400 \(one day\), got -1",
    ):
        run_tournament(rules=TournamentRules.make("tic_tac_toe", ["random", "b=random"], move_time_limit=-1))


def test_chunked_keeps_the_order():
    assert list(chunked(list(range(7)), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
