"""Crash-safe results: commit per game, resume after kill -9, no double counting, exports."""

from __future__ import annotations

import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.errors import ResultsFileError, TournamentMismatchError
from arena.tournament import ResultStore, export_result, run_tournament
from tests.arena.tournament.helpers import PREFIX

ROOT = Path(__file__).resolve().parents[3]


def stored_games(db):
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT lineup, game_index, seed FROM games").fetchall()


def test_a_rerun_plays_only_the_missing_games(tmp_path):
    db = tmp_path / "t.sqlite"
    first = run_tournament("tic_tac_toe", ["random", "b=random", "c=random"], games=4, seed=9, db=db)
    assert (first.played, len(first.games)) == (12, 12)
    again = run_tournament("tic_tac_toe", ["random", "b=random", "c=random"], games=4, seed=9, db=db)
    assert (again.played, len(again.games)) == (0, 12)
    assert all(a.same_play(b) for a, b in zip(first.games, again.games))
    more = run_tournament("tic_tac_toe", ["random", "b=random", "c=random", "d=random"], games=6, seed=9, db=db)
    assert (more.played, len(more.games)) == (6 * 6 - 12, 36)  # new games and the new entrant's lineups
    assert len(stored_games(db)) == 36
    fewer = run_tournament("tic_tac_toe", ["random", "b=random"], games=2, seed=9, db=db)
    assert (fewer.played, len(fewer.games)) == (0, 2)  # only the scheduled games are summarised


def test_the_same_game_is_never_counted_twice(tmp_path):
    result = run_tournament("tic_tac_toe", ["random", "b=random"], games=4, seed=1)
    with ResultStore(tmp_path / "t.sqlite") as store:
        assert store.add(result.games) == 4
        assert store.add(result.games) == 0
        assert store.add(result.games[:1]) == 0
        assert store.count() == 4
        assert [game.seed for game in store.results()] == [game.seed for game in result.games]


def test_other_rules_in_the_same_file_are_refused(tmp_path):
    db = tmp_path / "t.sqlite"
    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, seed=1, db=db)
    with pytest.raises(TournamentMismatchError) as info:
        run_tournament("tic_tac_toe", ["random", "b=random"], games=2, seed=2, db=db)
    assert f"{db} holds a tournament with other rules (seed: stored 1, asked 2)" in str(info.value)
    with pytest.raises(TournamentMismatchError) as info:
        run_tournament("tic_tac_toe", ["random", 'b=random{"seed": 4}'], games=2, seed=1, db=db)
    assert "entrant 'b' was random in the stored games, now random{\"seed\": 4}; give the new one another name" in str(
        info.value
    )


def test_a_file_that_is_not_sqlite_is_reported(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(ResultsFileError) as info:
        ResultStore(path)
    assert f"{str(path)!r} is not an arena results file (not an SQLite database)" in str(info.value)


def test_exports(tmp_path):
    db = tmp_path / "t.sqlite"
    result = run_tournament("tic_tac_toe", ["random", f"bad={PREFIX}:OutOfSpaceAgent"], games=2, seed=3, db=db)
    export_result(result, tmp_path / "games.csv")
    rows = list(csv.DictReader(open(tmp_path / "games.csv")))
    assert [row["forfeit"] for row in rows] == ["bad", "bad"]
    assert json.loads(rows[0]["seats"]) in (
        {"player_0": "random", "player_1": "bad"},
        {"player_0": "bad", "player_1": "random"},
    )
    assert "RandomAgent (arena-marl " in json.loads(rows[0]["versions"])["random"]
    export_result(result, tmp_path / "all.json")
    document = json.loads((tmp_path / "all.json").read_text())
    assert document["rules"]["seed"] == 3 and len(document["games"]) == 2
    assert document["pairings"][0]["wins"] == 2 and {r["name"] for r in document["standings"]} == {"random", "bad"}
    with ResultStore(db) as store:
        store.export_json(tmp_path / "db.json")
    assert json.loads((tmp_path / "db.json").read_text())["games"] == document["games"]
    with pytest.raises(ValueError, match="the file must end in .csv or .json, got '.*games.txt'"):
        export_result(result, tmp_path / "games.txt")


KILLED_RUN = """
import sys
from arena.tournament import run_tournament
run_tournament("tic_tac_toe", ["random", 'sleepy=tests.arena.tournament.helpers:SleepyAgent{"delay": 0.003}'],
               games=120, seed=8, db=sys.argv[1], workers=int(sys.argv[2]))
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_resume_after_kill_9_in_the_middle(tmp_path, workers):
    db = tmp_path / "killed.sqlite"
    process = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, str(db), str(workers)],
        cwd=ROOT,
        start_new_session=True,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if db.exists() and process.poll() is None:
            try:
                if len(stored_games(db)) >= 20:
                    break
            except sqlite3.OperationalError:  # tables not created yet
                pass
        assert process.poll() is None, process.stderr.read().decode()
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the run and its workers, at once
    process.wait()
    killed_at = len(stored_games(db))
    assert 20 <= killed_at < 120
    resumed = run_tournament(
        "tic_tac_toe",
        ["random", 'sleepy=tests.arena.tournament.helpers:SleepyAgent{"delay": 0.003}'],
        games=120,
        seed=8,
        db=db,
    )
    assert resumed.played == 120 - killed_at
    games = stored_games(db)
    assert len(games) == 120
    assert len({(lineup, index) for lineup, index, _ in games}) == 120
    assert len({seed for _, _, seed in games}) == 60  # duplicate sets: the two seatings share a seed
    # and the games are those of an uninterrupted run (the same agent without its sleep)
    fresh = run_tournament(
        "tic_tac_toe", ["random", "sleepy=tests.arena.tournament.helpers:SleepyAgent"], games=120, seed=8
    )
    assert all(a.same_play(b) for a, b in zip(resumed.games, fresh.games))


def test_ctrl_c_stops_the_cli_with_the_finished_games_saved(tmp_path):
    # The sleepy agent moves at least twice a game (0.06 s), so on two workers the 30 games after
    # the tenth take at least 0.9 s: Ctrl-C, sent within 50 ms of seeing the tenth, comes mid-run.
    games = 40
    db = tmp_path / "interrupted.sqlite"
    command = [
        sys.executable,
        "-m",
        "arena",
        "tournament",
        "tic_tac_toe",
        "--agents",
        'random,sleepy=tests.arena.tournament.helpers:SleepyAgent{"delay": 0.03}',
        "--games",
        str(games),
        "--workers",
        "2",
        "--db",
        str(db),
        "--seed",
        "8",
        "--progress",
        "none",
    ]
    process = subprocess.Popen(
        command, cwd=ROOT, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if db.exists() and len(stored_games(db)) >= 10:
                break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends to the whole group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err.decode()
    assert "arena tournament: interrupted" in err.decode()
    saved = len(stored_games(db))
    assert 10 <= saved < games
    resumed = run_tournament(
        "tic_tac_toe",
        ["random", 'sleepy=tests.arena.tournament.helpers:SleepyAgent{"delay": 0.03}'],
        games=games,
        seed=8,
        db=db,
        workers=2,
    )
    assert resumed.played == games - saved and len(stored_games(db)) == games
