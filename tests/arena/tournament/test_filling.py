"""Filling seats: fewer entrants than seats (FFA), and a single agent spec on a team game's side."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from arena.cli import main
from arena.runtime.game import GameConfig, GameRunner, GameTask
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.tournament import Execution, TournamentRules, run_tournament

pytest.importorskip("rich")

DICE = ["liars_dice", "--env-options", '{"players": 4}']


def test_two_entrants_fill_four_seats_each_seat_its_own_agent():
    runner = GameRunner(
        GameConfig(
            EnvSpec("liars_dice", {"players": 4}), (AgentSpec("x", "random"), AgentSpec("r", "random", {"seed": 1}))
        )
    )
    result = runner.play(GameTask("r|x", 0, 3, ("x", "r", "x", "r")))
    assert result.seats == {"player_0": "x", "player_1": "r", "player_2": "x", "player_3": "r"}
    assert runner._guards["x", 0] is not runner._guards["x", 1]  # state per seat
    assert len(runner._guards) == 4
    # an entrant is scored as a side: the mean of its seats' returns, ranks by it
    assert set(result.ranks) == {"x", "r"} and sorted(result.ranks.values()) in ([1, 2], [1, 1])
    assert result.outcome in ("x wins", "r wins", "draw")


def test_cli_fills_the_seats_resumes_verifies_and_workers_agree(tmp_path, capsys):
    db, export = tmp_path / "d.sqlite", tmp_path / "d.json"
    args = [
        "tournament",
        *DICE,
        "--agents",
        'x=random,r=random{"seed": 2}',
        "--games",
        "4",
        "--db",
        str(db),
        "--progress",
        "none",
    ]
    assert main([*args, "--export", str(export)]) == 0
    out = capsys.readouterr().out
    assert "4 of 4 games stored (4 played now" in out
    games = json.loads(export.read_text())["games"]
    assert [list(g["seats"].values()) for g in games] == [["x", "r", "x", "r"], ["r", "x", "r", "x"]] * 2
    assert all(set(g["ranks"]) == {"x", "r"} for g in games)
    assert main(args) == 0 and "4 of 4 games stored (0 played now" in capsys.readouterr().out  # resume
    assert main(["replay", str(db), "--verify"]) == 0  # the stored side scores replay to the same
    serial = run_tournament(
        rules=TournamentRules.make(
            "liars_dice", ["x=random", 'r=random{"seed": 2}'], env_kwargs={"players": 4}, games=4
        )
    )
    parallel = run_tournament(
        rules=TournamentRules.make(
            "liars_dice", ["x=random", 'r=random{"seed": 2}'], env_kwargs={"players": 4}, games=4
        ),
        execution=Execution.make(None, 2, chunk_size=1),
    )
    assert [g.same_play(h) for g, h in zip(serial.games, parallel.games)] == [True] * 4


def test_three_entrants_in_four_seats_share_the_odd_seat():
    result = run_tournament(
        rules=TournamentRules.make(
            "liars_dice",
            ["a=random", 'b=random{"seed": 1}', 'c=random{"seed": 2}'],
            env_kwargs={"players": 4},
            games=1,
            seed=1,
        )
    )
    assert result.scheduled == 12 and len(result.lineups) == 1
    seats = Counter((seat, name) for game in result.games for seat, name in game.seats.items())
    assert set(seats.values()) == {4}  # every entrant sits in every seat equally often
    assert {name: rating.games for name, rating in result.ratings.items()} == {"a": 12, "b": 12, "c": 12}


def test_fill_on_ray_gives_the_local_games(ray_cluster):
    local = run_tournament(
        rules=TournamentRules.make(
            "liars_dice", ["x=random", 'r=random{"seed": 2}'], env_kwargs={"players": 3}, games=6
        )
    )
    on_ray = run_tournament(
        rules=TournamentRules.make(
            "liars_dice", ["x=random", 'r=random{"seed": 2}'], env_kwargs={"players": 3}, games=6
        ),
        execution=Execution.make("ray", 2, chunk_size=2),
    )
    assert [g.same_play(h) for g, h in zip(local.games, on_ray.games)] == [True] * 6


@pytest.mark.parametrize("agents", ["pommerman_simple,random", "a=pommerman_simple+random,b=random+random"])
def test_pommerman_team_mode_from_the_cli(agents, tmp_path, capsys):
    db = tmp_path / "p.sqlite"
    code = main(
        [
            "tournament",
            "pommerman",
            "--env-options",
            '{"mode": "team", "max_steps": 12}',
            "--agents",
            agents,
            "--games",
            "2",
            "--db",
            str(db),
            "--progress",
            "none",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "2 of 2 games stored" in out and "team standings" in out
    assert main(["replay", str(db), "--verify"]) == 0


def test_pommerman_ffa_with_two_entrants_from_the_cli(tmp_path, capsys):
    export = tmp_path / "p.json"
    code = main(
        [
            "tournament",
            "pommerman",
            "--env-options",
            '{"max_steps": 12}',
            "--agents",
            "pommerman_simple,random",
            "--games",
            "2",
            "--export",
            str(export),
            "--progress",
            "none",
        ]
    )
    assert code == 0, capsys.readouterr()
    games = json.loads(export.read_text())["games"]
    assert [sorted(Counter(g["seats"].values()).items()) for g in games] == [
        [("pommerman_simple", 2), ("random", 2)]
    ] * 2


def test_team_rock_paper_scissors_one_spec_plays_its_whole_side(capsys):
    code = main(
        [
            "tournament",
            "team_rock_paper_scissors",
            "--agents",
            "beat_most_common,random",
            "--games",
            "2",
            "--progress",
            "none",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "beat_most_common" in out and "every seat" in out
