"""Tables that agree, or say why not: ratings follow the env's result kind, and every table,
page and JSON export states one uncertainty (95%) with one label."""

from __future__ import annotations

import io
import json
import re

import pytest

from arena.cli import main
from arena.runtime.game import GameResult
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.tournament import Execution, Stopping
from arena.tournament.analysis import analyse
from arena.tournament.result import TournamentResult

pytest.importorskip("openskill")
rich_console = pytest.importorskip("rich.console")


def _result(games, names, *, kind, env="tic_tac_toe", specs=None, teams=None):
    return TournamentResult(
        env=EnvSpec(env),
        entrants=list(names),
        excluded={},
        lineups=[],
        games=games,
        scheduled=len(games),
        played=len(games),
        seconds=float(len(games)),
        startup=0.0,
        db=":memory:",
        specs=specs or {name: AgentSpec.parse(name) for name in names},
        teams=teams,
        result_kind=kind,
    )


def _game(i, ranks, returns, lineup="a|b"):
    return GameResult(lineup, i, i // 2, {}, ranks, returns, 10, "")


def _printed(result, bootstrap=20):
    from arena.cli.standings import print_result

    buffer = io.StringIO()
    print_result(result, rich_console.Console(file=buffer, width=80), bootstrap=bootstrap)
    return buffer.getvalue()


def _poker():
    """``many`` wins 60% of hands by one chip, ``big`` the rest by three: big wins more chips."""
    games = []
    for i in range(40):
        if i % 5 < 3:
            games.append(_game(i, {"many": 1, "big": 2}, {"many": 1.0, "big": -1.0}, "many|big"))
        else:
            games.append(_game(i, {"many": 2, "big": 1}, {"many": -3.0, "big": 3.0}, "many|big"))
    return _result(games, ["many", "big"], kind="return", env="leduc_poker")


def test_a_return_env_is_ranked_by_mean_return_not_by_games_won():
    report = analyse(_poker(), bootstrap=20)
    assert report["result_kind"] == "return" and report["ranked_by"] == "mean_return"
    best, worst = report["standings"]
    assert (best["name"], worst["name"]) == ("big", "many")
    assert best["mean_return"] == pytest.approx(0.6) and best["score"] == pytest.approx(0.4)
    assert best["return_low"] < 0.6 < best["return_high"] and best["return_sets"] == 20
    assert best["elo"] is None and best["mu"] is None  # they rate who won a game: not this env's result
    assert report["meta_game"] == "mean return" and best["nash_weight"] == pytest.approx(1.0)
    versus = next(row for row in report["pairwise"] if row["first"] == "big")
    assert versus["return"] == pytest.approx(0.6) and versus["returned"] == 40


def test_the_tables_say_why_games_won_and_chips_disagree():
    poker = _poker()
    poker.anchor = ("many", 0.0)
    out = _printed(poker)
    assert "--anchor many=0 is not used: it fixes a batch Elo, and this env is ranked by mean return" in out
    assert "standings by mean return per game (return env" in out
    assert "many won more games (60% against 40%), big more per game (+0.60 against -0.60)" in out
    assert "this env's result is the return, so the standings follow the mean return" in out
    assert re.search(r"\+0\.60 ± \d\.\d\d\s", out) and "40 games" in out  # mean ± 95% and the games behind it
    assert "nan" not in out


def test_returns_that_disagree_with_the_outcome_are_marked_and_explained():
    # the army that wins (by soldiers alive) collects fewer shaped rewards than the one that loses
    games = [_game(i, {"a": 1, "b": 2}, {"a": -1.16, "b": 2.25}) for i in range(6)]
    out = _printed(_result(games, ["a", "b"], kind="outcome", env="magent_battle"))
    assert "-1.16*" in out and "+2.25*" in out
    assert "* the mean returns order this pair the other way: the env's result is its outcome (win/draw/loss)" in out
    assert "do not decide it" in out


def test_outcome_games_count_everyone_but_the_winner_as_losing():
    games = [
        GameResult("a|b|c", i, i, {}, {"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 0, "c": -1}, 5, "") for i in range(4)
    ]
    outcome = _result(games, ["a", "b", "c"], kind="outcome")
    ranks = _result(games, ["a", "b", "c"], kind="ranks")
    assert outcome.pairings["b", "c"].draws == 4 and ranks.pairings["b", "c"].wins == 4
    assert outcome.pairings["a", "c"].wins == 4
    fit = outcome.elo()
    assert fit.ratings["b"] == pytest.approx(fit.ratings["c"], abs=1e-6)
    assert ranks.elo().ratings["b"] > ranks.elo().ratings["c"] + 50
    rows = {row["name"]: row for row in analyse(outcome, bootstrap=0)["standings"]}
    assert rows["b"]["games"] == 4 and rows["b"]["wins"] + rows["b"]["draws"] + rows["b"]["losses"] == 8  # 2 per game


def test_member_contributions_agree_with_the_team_standings():
    # ppo's side wins 5, draws 1, loses 4, the losses last: openskill (game by game) puts simple first
    specs = {s.name: s for s in map(AgentSpec.parse, ["ppo=x+x", "simple=y+y"])}
    outcomes = [{"ppo": 1, "simple": 2}] * 5 + [{"ppo": 1, "simple": 1}] + [{"ppo": 2, "simple": 1}] * 4
    games = [
        GameResult("ppo|simple", i, i, {"p0": "ppo", "p2": "ppo", "p1": "simple", "p3": "simple"}, r, None, 9, "")
        for i, r in enumerate(outcomes)
    ]
    teams = {"team_0": ("p0", "p2"), "team_1": ("p1", "p3")}
    result = _result(games, ["ppo", "simple"], kind="outcome", specs=specs, teams=teams)
    report = analyse(result, bootstrap=20)
    order = [row["name"] for row in report["standings"]]
    members = {row["name"]: row for row in report["members"]}
    assert order == ["ppo", "simple"] and [row["name"] for row in report["members"]] == ["x", "y"]
    team_elo = {row["name"]: row["elo"] for row in report["standings"]}
    assert members["x"]["elo"] == pytest.approx(team_elo["ppo"], abs=0.5)
    assert members["x"]["games"] == 10 and members["x"]["teams"] == ["ppo"]
    assert result.ratings["simple"].mu > result.ratings["ppo"].mu  # openskill, game by game, disagrees ...
    out = " ".join(_printed(result).split())
    assert "openskill puts simple above ppo (mu 28.0 against 22.0): it rates game by game" in out  # ... and says so
    assert "member contributions: batch Elo inside the teams" in out


def test_games_that_all_failed_print_no_nan():
    games = [GameResult("a|b", i, i, {}, {}, None, 0, "error", error="the env failed: boom") for i in range(3)]
    out = _printed(_result(games, ["a", "b"], kind="outcome"))
    assert "nan" not in out.lower()
    assert "3 games failed in the env; no game finished, so there is nothing to rate" in out


def test_pace_reads_at_any_speed():
    from arena.cli.standings import pace_text

    assert pace_text(3, 240.0) == "80.0 s/game" and pace_text(300, 2.0) == "150.0 games/s"


def test_llr_past_a_bound_is_not_printed_as_inside_it():
    from arena.cli.live import sprt_line
    from arena.evaluation import SPRT

    test = SPRT(0, 100)
    decided = sprt_line(test.state([0, 0, 2, 6, 12]), test, ["a", "b"])
    assert "past the upper bound +2.94" in decided and " in [" not in decided
    assert "H1 accepted" in decided
    lost = sprt_line(test.state([12, 6, 2, 0, 0]), test, ["a", "b"])
    assert "past the lower bound -2.94" in lost and "H0 accepted" in lost
    running = sprt_line(test.state([1, 1, 2, 1, 1]), test, ["a", "b"])
    assert "between the bounds -2.94 and +2.94" in running


def test_sequential_tests_refuse_an_env_whose_result_is_the_return():
    from arena.tournament import run_tournament

    with pytest.raises(ValueError, match=r"--sprt judges who wins games .* the result of 'kuhn_poker' is the return"):
        run_tournament(
            "kuhn_poker", ["random", "b=random"], execution=Execution.make("inline"), stopping=Stopping(sprt=(0, 50))
        )


def test_one_uncertainty_with_one_label_in_tournament_report_html_and_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    db, export, page, document = tmp_path / "t.db", tmp_path / "t.json", tmp_path / "r.html", tmp_path / "r.json"
    common = ["--bootstrap", "30"]
    args = [
        "tournament",
        "tic_tac_toe",
        "--agents",
        'random,b=random{"seed": 3}',
        "--games",
        "6",
        "--backend",
        "inline",
    ]
    assert main([*args, "--db", str(db), "--export", str(export), "--progress", "none", *common]) == 0
    tournament_out = capsys.readouterr().out
    assert main(["report", str(db), "--html", str(page), "--json", str(document), *common]) == 0
    report_out = capsys.readouterr().out
    exported, reported = json.loads(export.read_text()), json.loads(document.read_text())
    html = page.read_text()
    # one set of rows with one set of keys (the files list entrants in another order: float noise aside)
    for mine, theirs in zip(exported["standings"], reported["standings"], strict=True):
        assert mine.keys() == theirs.keys()
        for key, value in mine.items():
            assert theirs[key] == (pytest.approx(value, abs=1e-9) if isinstance(value, float) else value), key
    for row in reported["standings"]:
        half = row["mu_high"] - row["mu"]
        assert half == pytest.approx(1.959963984540054 * row["sigma"])  # mu ± the 95% interval, nowhere sigma
        shown = f"{row['mu']:.1f} ± {half:.1f}"
        elo = f"{row['elo_low']:+.0f} .. {row['elo_high']:+.0f}"
        assert shown in tournament_out and shown in report_out and f"{row['mu']:.1f} &plusmn; {half:.1f}" in html
        assert elo in tournament_out and elo in report_out and elo in html
    for text in (" ".join(tournament_out.split()), " ".join(report_out.split())):  # titles wrap
        assert "mu ± 95%" in text and "every interval and ± is 95%" in text and "openskill mu ± sigma" not in text
    assert "mu &plusmn; 95%" in html and "Every interval and &plusmn; on this page is 95%" in html
    assert exported["interval"] == reported["interval"] == "95%"
    assert exported["result_kind"] == reported["result_kind"] == "outcome"
