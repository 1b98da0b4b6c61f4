"""``arena tournament``, ``arena demo``, ``arena envs`` and ``arena agents``."""

from __future__ import annotations

import json
import sqlite3

import pytest

from arena.cli import main

pytest.importorskip("rich")
pytest.importorskip("matplotlib")


def test_tournament_command_prints_tables_and_writes_db_report_and_export(tmp_path, capsys):
    db, report, export = tmp_path / "t.sqlite", tmp_path / "t.png", tmp_path / "t.json"
    code = main(["tournament", "tic_tac_toe", "--agents", 'random,b=random{"seed": 2},c=random', "--games", "4",
                 "--workers", "2", "--db", str(db), "--report", str(report), "--export", str(export), "--seed", "5"])
    out = capsys.readouterr().out
    assert code == 0
    assert "ratings (openskill Plackett-Luce" in out and "score rate of row against column" in out
    assert "12 of 12 games stored (12 played now" in out and f"results in {db}" in out
    assert report.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(json.loads(export.read_text())["games"]) == 12
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (12,)
    # the same command again resumes: nothing left to play
    assert main(["tournament", "tic_tac_toe", "--agents", 'random,b=random{"seed": 2},c=random', "--games", "4",
                 "--db", str(db), "--seed", "5", "--no-progress"]) == 0
    assert "12 of 12 games stored (0 played now" in capsys.readouterr().out


def test_tournament_command_reports_exclusions_and_forfeits(capsys):
    code = main(["tournament", "tic_tac_toe", "--agents",
                 "random,b=random,bad=tests.arena.tournament.helpers:IllegalAgent,gone=tests.arena.tournament.helpers:broken_agent",
                 "--games", "2", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("excluded gone: FileNotFoundError: no weights at /nowhere/model.zip") == 1
    assert "forfeit bad x4: illegal action 0\n" in out


def test_tournament_command_bad_input_exits_2_with_one_line(capsys):
    assert main(["tournament", "tic_tac_toe", "--agents", "random,b=random{seed: 2}"]) == 2
    err = capsys.readouterr().err
    assert "arena tournament: error: agent 'b=random{seed: 2}': the keyword arguments after the name must be a JSON object" in err
    assert main(["tournament", "tic_tac_toe", "--agents", "random,random"]) == 2
    assert "two entrants are named 'random'; name them apart, e.g. 'random_2=random'" in capsys.readouterr().err


def test_demo_command_writes_db_and_report(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    assert main(["demo", "--out", str(out_dir), "--games", "2", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for name in ("random", "heuristic", "mcts", "mirrored"):
        assert name in out
    assert (out_dir / "report.png").stat().st_size > 10_000
    with sqlite3.connect(out_dir / "results.sqlite") as connection:
        assert connection.execute("SELECT COUNT(*), COUNT(forfeit) FROM games").fetchone() == (12, 0)


def test_listing_commands(capsys):
    assert main(["envs"]) == 0
    out = capsys.readouterr().out
    assert "tic_tac_toe" in out and "Tic-tac-toe for" in out
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "random" in out and "Uniformly random legal actions" in out and "mcts" in out
