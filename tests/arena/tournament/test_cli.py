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
    code = main(
        [
            "tournament",
            "tic_tac_toe",
            "--agents",
            'random,b=random{"seed": 2},c=random',
            "--games",
            "4",
            "--workers",
            "2",
            "--db",
            str(db),
            "--report",
            str(report),
            "--export",
            str(export),
            "--seed",
            "5",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "standings by win/draw/loss (outcome env)" in out and "mu: openskill" in out and "mu ± 95%" in out
    assert "score rate of row against column" in out
    assert "12 of 12 games stored (12 played now" in out and f"results in {db}" in out
    assert report.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(json.loads(export.read_text())["games"]) == 12
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (12,)
    # the same command again resumes: nothing left to play
    assert (
        main(
            [
                "tournament",
                "tic_tac_toe",
                "--agents",
                'random,b=random{"seed": 2},c=random',
                "--games",
                "4",
                "--db",
                str(db),
                "--seed",
                "5",
                "--progress",
                "none",
            ]
        )
        == 0
    )
    assert "12 of 12 games stored (0 played now" in capsys.readouterr().out


def test_tournament_command_reports_exclusions_and_forfeits(capsys):
    code = main(
        [
            "tournament",
            "tic_tac_toe",
            "--agents",
            "random,b=random,bad=tests.arena.tournament.helpers:IllegalAgent,gone=tests.arena.tournament.helpers:broken_agent",
            "--games",
            "2",
            "--progress",
            "none",
            "--exclude-unbuildable",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.count("excluded gone: FileNotFoundError: no weights at /nowhere/model.zip") == 1
    assert "forfeit bad x4: illegal action 0\n" in out


def test_tournament_command_bad_input_exits_2_with_one_line(capsys):
    assert main(["tournament", "tic_tac_toe", "--agents", "random,b=random{seed: 2}"]) == 2
    err = capsys.readouterr().err
    assert (
        "arena tournament: error: agent 'b=random{seed: 2}': the keyword arguments after the name must be a JSON object"
        in err
    )
    assert main(["tournament", "tic_tac_toe", "--agents", "random,random"]) == 2
    assert "two entrants are named 'random'; name them apart, e.g. 'random_2=random'" in capsys.readouterr().err


def test_demo_command_writes_db_and_report(tmp_path, capsys):
    out_dir = tmp_path / "demo"
    assert main(["demo", "--out", str(out_dir), "--games", "2", "--workers", "1", "--progress", "none"]) == 0
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


def test_texts_from_agents_and_files_are_shown_as_they_are(tmp_path, capsys):
    export = tmp_path / "g.json"
    code = main(
        [
            "tournament",
            "tic_tac_toe",
            "--agents",
            "random,b=random,bad=tests.arena.tournament.helpers:MarkupAgent,"
            "gone=tests.arena.tournament.helpers:markup_broken_agent",
            "--games",
            "2",
            "--progress",
            "none",
            "--exclude-unbuildable",
            "--export",
            str(export),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and export.is_file()  # rich did not stop the run before the export
    assert "excluded gone: FileNotFoundError: [bold]missing[/bold] [/data/model.zip]" in out
    assert "forfeit bad x4: act() raised RuntimeError: no weights at [/data/x.zip] [/bold]" in out


def test_tables_fit_80_columns_without_cutting_names(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a terminal of 80 columns
    long = "connect_four_heuristic"
    assert (
        main(
            [
                "tournament",
                "connect_four",
                "--agents",
                f"{long},random,another_long_random_name=random",
                "--games",
                "2",
                "--max-steps",
                "12",
                "--progress",
                "none",
                "--bootstrap",
                "10",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 80
    assert "…" not in out
    table_rows = [line for line in out.splitlines() if long in line]
    assert len(table_rows) >= 2  # the standings and the score table each show the whole name
    assert "separated" not in out  # not an adaptive run


def test_small_samples_print_intervals_that_are_not_a_point(capsys):
    assert main(["tournament", "tic_tac_toe", "--agents", "mcts,random", "--games", "2", "--progress", "none"]) == 0
    out = capsys.readouterr().out
    elo_rows = [
        line.split() for line in out.splitlines() if line.split()[:1] in (["1"], ["2"]) and ".." in line and "±" in line
    ]
    assert len(elo_rows) == 2
    for row in elo_rows:
        low, high = int(row[3]), int(row[5])
        assert high - low >= 100, row  # two games cannot place a rating within a point
