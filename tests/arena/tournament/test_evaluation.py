"""Duplicate sets, SPRT matches, adaptive scheduling, anchors, gauntlets and ``arena report``."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from arena.errors import ReportError
from arena.evaluation.sprt import SPRT
from arena.runtime.game import GameResult
from arena.tournament import Execution, Stopping, TournamentRules, run_tournament
from arena.tournament.analysis import analyse, load_results
from arena.tournament.evaluation_inputs import sprt_units
from arena.tournament.html_report import render_html
from arena.tournament.stopping import games_until

pytest.importorskip("rich")
pytest.importorskip("scipy")


def test_duplicate_sets_share_the_seed_and_swap_the_seats():
    result = run_tournament("kuhn_poker", ["random", 'b=random{"seed": 3}'], games=6, seed=2)
    by_seed: dict[int, list[GameResult]] = {}
    for game in result.games:
        by_seed.setdefault(game.seed, []).append(game)
    assert len(by_seed) == 3
    for games in by_seed.values():
        assert sorted(tuple(g.seats.values()) for g in games) == [("b", "random"), ("random", "b")]
    independent = run_tournament(
        rules=TournamentRules.make("kuhn_poker", ["random", 'b=random{"seed": 3}'], games=6, seed=2, duplicate=False)
    )
    assert len({game.seed for game in independent.games}) == 6


def test_sprt_match_stops_at_the_first_crossing_and_is_reproducible():
    first = run_tournament(
        "connect_four", ["connect_four_heuristic", "random"], seed=1, stopping=Stopping(sprt=(0, 150))
    )
    assert first.sprt_state.verdict == "H1"
    assert first.sprt_state.llr >= first.sprt_state.upper
    units = sprt_units(first.games, "connect_four_heuristic", "random", pentanomial=True)
    assert len(units) == first.sprt_state.units == len(first.games) // 2
    again = run_tournament(
        "connect_four",
        ["connect_four_heuristic", "random"],
        seed=1,
        execution=Execution.make("processes", 2),
        stopping=Stopping(sprt=(0, 150)),
    )
    assert [g.same_play(h) for g, h in zip(first.games, again.games)] == [True] * len(first.games)
    assert len(again.games) == len(first.games)  # a second worker plays ahead; its extra games do not count


def test_sprt_trinomial_without_duplicates_counts_games():
    result = run_tournament(
        rules=TournamentRules.make("tic_tac_toe", ["random", "mcts"], duplicate=False, seed=3),
        stopping=Stopping(sprt=(-200, 0)),
    )
    assert result.sprt.pentanomial is False
    assert result.sprt_state.verdict == "H0"  # random is not at least as strong as mcts
    assert result.sprt_state.units == len(result.games)


def test_sprt_budget_stops_an_undecided_match():
    result = run_tournament("tic_tac_toe", ["random", "b=random"], seed=0, stopping=Stopping(sprt=(-5, 5), budget=8))
    assert result.sprt_state.verdict is None and len(result.games) == 8


def test_games_after_the_stop_do_not_count():
    game = lambda i, winner: GameResult(
        "a|b", i, i // 2, {}, {"a": 1 if winner == "a" else 2, "b": 1 if winner == "b" else 2}, {}, 1, ""
    )
    games = [game(i, "a") for i in range(20)]
    stop, state = SPRT(0, 200).first_crossing(sprt_units(games, "a", "b", pentanomial=True))
    assert state.verdict == "H1"
    kept = games_until(games, stop, SPRT(0, 200))
    assert len(kept) == 2 * stop


@pytest.mark.parametrize(
    "kwargs, text",
    [
        ({"sprt": (0, 50), "until_separated": True}, "choose one of sprt"),
        ({"sprt": (50, 0)}, "expected elo0 < elo1"),
        ({"sprt": (0, 50), "alpha": 0.7}, "alpha must be a probability in"),
        ({"budget": 0, "until_separated": True}, "budget must be a positive number of games, got 0"),
    ],
)
def test_bad_evaluation_options_are_named(kwargs, text):
    with pytest.raises(ValueError, match=text):
        run_tournament("tic_tac_toe", ["random", "b=random"], games=2, stopping=Stopping(**kwargs))


def test_an_anchor_that_is_not_an_entrant_is_named():
    with pytest.raises(ValueError, match="the anchor 'nobody' is not an entrant; expected one of"):
        run_tournament(rules=TournamentRules.make("tic_tac_toe", ["random", "b=random"], anchor=("nobody", 0.0)))


def test_sprt_needs_a_two_entrant_match():
    with pytest.raises(
        ValueError, match=r"--sprt tests a two-entrant match in a two-seat env; got entrants \['random', 'b', 'c'\]"
    ):
        run_tournament("tic_tac_toe", ["random", "b=random", "c=random"], stopping=Stopping(sprt=(0, 50)))


def test_until_separated_plays_only_the_uncertain_pairs():
    result = run_tournament(
        "tic_tac_toe",
        ["random", 'weak=mcts{"simulations": 4}', 'strong=mcts{"simulations": 60}'],
        games=2,
        seed=4,
        stopping=Stopping(until_separated=True, budget=80),
    )
    assert result.separation is not None and len(result.separation) == 2
    assert len(result.games) <= 80
    counts = {key: sum(1 for g in result.games if g.lineup == key) for key in {g.lineup for g in result.games}}
    assert max(counts.values()) > 2  # more games where the order was uncertain
    again = run_tournament(
        "tic_tac_toe",
        ["random", 'weak=mcts{"simulations": 4}', 'strong=mcts{"simulations": 60}'],
        games=2,
        seed=4,
        stopping=Stopping(until_separated=True, budget=80),
    )
    assert [g.same_play(h) for g, h in zip(result.games, again.games)] == [True] * len(result.games)
    assert again.separation == result.separation


def test_gauntlet_reports_the_challenger_relative_to_the_anchor():
    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe", ["mcts", "random", "b=random"], mode="gauntlet", games=4, anchor=("random", 0.0), seed=1
        )
    )
    fit = result.elo()
    assert fit.ratings["random"] == 0.0 and fit.ratings["mcts"] > 100
    assert {g.lineup for g in result.games} == {"mcts|random", "b|mcts"}


def test_live_monitor_sees_the_sprt_state():
    seen = []
    run_tournament(
        "connect_four", ["connect_four_heuristic", "random"], monitor=seen.append, stopping=Stopping(sprt=(0, 150))
    )
    assert seen and all(r.sprt_state is not None for r in seen)
    assert seen[-1].sprt_state.verdict == "H1"


def test_report_pools_files_of_one_env(tmp_path, capsys):
    one, two = tmp_path / "one.sqlite", tmp_path / "two.sqlite"
    run_tournament("tic_tac_toe", ["random", "mcts"], games=4, db=one, seed=1)
    run_tournament("tic_tac_toe", ["mcts", 'cycle=mcts{"simulations": 5}'], games=4, db=two, seed=1)
    pooled = load_results([one, two], anchor=("random", 0.0))
    assert sorted(pooled.entrants) == ["cycle", "mcts", "random"] and len(pooled.games) == 8
    report = analyse(pooled, bootstrap=20)
    assert report["games"] == 8 and report["unmet"] in ([["cycle", "random"]], [["random", "cycle"]])
    assert sum(row["nash_weight"] for row in report["standings"]) == pytest.approx(1.0)
    assert next(r for r in report["standings"] if r["name"] == "random")["elo"] == 0.0
    page = render_html(report, pooled.games, link=lambda game: f"replays/{game.lineup}/{game.index}.html")
    assert "<table id='standings'>" in page and "href='replays/mcts|random/0.html'" in page
    html, png, js = tmp_path / "r.html", tmp_path / "r.png", tmp_path / "r.json"
    assert (
        main(
            [
                "report",
                str(one),
                str(two),
                "--html",
                str(html),
                "--png",
                str(png),
                "--json",
                str(js),
                "--bootstrap",
                "10",
                "--anchor",
                "random=0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "batch Elo" in out and "never met" in out
    assert json.loads(js.read_text())["anchor"] == ["random", 0.0]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "<h1>tic_tac_toe: 8 games" in html.read_text()


def test_report_errors_name_the_files(tmp_path, capsys):
    c4, ttt = tmp_path / "c4.sqlite", tmp_path / "ttt.sqlite"
    run_tournament("connect_four", ["random", "b=random"], games=2, db=c4)
    run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=ttt)
    with pytest.raises(ReportError, match=r"holds games of tic_tac_toe \{\}, .*c4.sqlite' of connect_four"):
        load_results([c4, ttt])
    with pytest.raises(ReportError, match="no results file at"):
        load_results([tmp_path / "missing.sqlite"])
    assert main(["report", str(tmp_path / "missing.sqlite")]) == 2
    assert "arena report: error: arena report: no results file at" in capsys.readouterr().err


def test_tournament_cli_sprt_and_until_separated(capsys):
    assert (
        main(
            [
                "tournament",
                "connect_four",
                "--agents",
                "connect_four_heuristic,random",
                "--sprt",
                "0,150",
                "--progress",
                "none",
                "--bootstrap",
                "5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "SPRT elo0=0 elo1=150" in out and "H1 accepted, connect_four_heuristic is stronger" in out
    assert (
        main(
            [
                "tournament",
                "tic_tac_toe",
                "--agents",
                'random,mcts{"simulations": 30}',
                "--until-separated",
                "--games",
                "2",
                "--budget",
                "30",
                "--anchor",
                "random=0",
                "--progress",
                "none",
                "--no-duplicate",
                "--bootstrap",
                "5",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "anchored at" in out and "separated" in out


@pytest.mark.parametrize(
    "args, text",
    [
        (["--sprt", "0"], "--sprt: expected ELO0,ELO1 (two numbers, e.g. 0,50), got '0'"),
        (["--anchor", "random"], "--anchor: expected NAME=ELO"),
        (["--bootstrap", "-1"], "--bootstrap must be a non-negative number of resamples, got -1"),
    ],
)
def test_tournament_cli_rejects_bad_evaluation_values(args, text, capsys):
    assert (
        main(["tournament", "tic_tac_toe", "--agents", "random,b=random", "--games", "2", "--progress", "none", *args])
        == 2
    )
    assert text in capsys.readouterr().err


def test_live_board_shows_the_sprt_line_and_the_standings():
    import io

    from rich.console import Console

    from arena.cli.live import LiveBoard

    buffer = io.StringIO()
    board = LiveBoard(Console(file=buffer, width=200, force_terminal=True))
    result = run_tournament(
        "connect_four",
        ["connect_four_heuristic", "random"],
        progress=board,
        monitor=board.monitor,
        stopping=Stopping(sprt=(0, 150)),
    )
    board.stop()
    assert "SPRT elo0=0 elo1=150" in buffer.getvalue() and "LLR" in buffer.getvalue()
    assert "H1 accepted" in board.status.plain and result.sprt_state.verdict == "H1"
    board = LiveBoard(Console(file=io.StringIO(), width=200))
    field = run_tournament(
        "tic_tac_toe",
        ["random", "b=random", 'mcts{"simulations": 10}'],
        games=2,
        progress=board,
        monitor=board.monitor,
        stopping=Stopping(until_separated=True, budget=12),
    )
    board.stop()
    assert field.separation is not None
    assert type(board.status).__name__ == "Table" and board.status.row_count == 3


def test_a_gauntlet_until_separated_judges_the_challenger_against_each_opponent():
    result = run_tournament(
        "tic_tac_toe",
        ['mcts{"simulations": 30}', "random", "b=random"],
        mode="gauntlet",
        games=2,
        seed=2,
        stopping=Stopping(until_separated=True, budget=24),
    )
    assert [(a, b) for a, b, _ in result.separation] == [("mcts", "random"), ("mcts", "b")]
    assert len(result.games) > 4  # it played on where the challenger was not yet separated
