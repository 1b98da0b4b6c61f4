"""Memory does not grow with ``--games``.

The schedule is made game by game as it is played (``Schedule``, ``Pending``, ``ChunkQueue``)
and a result reads its games from the results file on each pass (``StoredGames``), so ten
times the games must not take ten times the memory. Before this, a run held every task and
every stored game as Python objects: 100 games peaked near 0.3 MB, 1,000 near 2.6 MB.
"""

from __future__ import annotations

import gc
import tracemalloc

from arena.tournament import run_tournament


def peak_bytes(games: int, db=None) -> tuple[int, int]:
    """Peak traced memory of a serial tournament of ``games`` games, and how many it stored."""
    gc.collect()
    tracemalloc.start()
    try:
        result = run_tournament("rock_paper_scissors", ["random", "b=random"], games=games, seed=1, db=db)
        stored = sum(1 for _ in result.games)  # one pass over every game, as ratings and exports do
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, stored


def test_ten_times_the_games_do_not_take_ten_times_the_memory(tmp_path):
    run_tournament("rock_paper_scissors", ["random", "b=random"], games=2, seed=1)  # imports and caches first
    small, small_games = peak_bytes(100)
    large, large_games = peak_bytes(1000)
    assert (small_games, large_games) == (100, 1000)
    assert large < 2 * small + 200_000, f"peak {small} bytes for 100 games, {large} for 1000"
    resumed, games = peak_bytes(1000, db=tmp_path / "r.sqlite")  # the same with a results file
    assert games == 1000 and resumed < 2 * small + 200_000


def test_results_read_from_the_file_survive_the_run_and_match_a_fresh_read(tmp_path):
    from arena.runtime.store import ResultStore

    result = run_tournament("tic_tac_toe", ["random", "b=random"], games=6, seed=3, db=tmp_path / "t.sqlite")
    store = ResultStore(tmp_path / "t.sqlite")
    try:
        assert [(g.lineup, g.index, g.seed, g.ranks) for g in result.games] == [
            (g.lineup, g.index, g.seed, g.ranks) for g in store.results()
        ]
    finally:
        store.close()
    assert len(result.games) == 6 and result.games[-1].index == 5 and result.games[1:3] == list(result.games)[1:3]
    without_file = run_tournament("tic_tac_toe", ["random", "b=random"], games=6, seed=3)
    assert without_file.db == ":memory:" and [g.ranks for g in without_file.games] == [g.ranks for g in result.games]
