"""Team entrants: parsing, side swapping, team and member ratings, faults, resume, workers, Ray, CLI."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from arena.errors import TournamentMismatchError
from arena.specs.agents import AgentSpec, parse_agents
from arena.tournament import Execution, TournamentRules, export_result, run_tournament, summary
from tests.arena.tournament.helpers import PREFIX

ENV = "team_rock_paper_scissors"
ENTRANTS = ["duo=random+beat_most_common", "bots=beat_most_common", "rnd=random"]


def test_team_entrants_parse_from_the_cli_syntax():
    duo, single, kw = parse_agents(
        'duo=random+beat_most_common,beat_most_common,kw=random{"seed": 1}+x=random{"note": "a+b"}'
    )
    assert duo.name == "duo" and [m.factory for m in duo.members] == ["random", "beat_most_common"]
    assert duo.factory == "team" and duo.kwargs == {
        "members": [{"factory": "random", "kwargs": {}}, {"factory": "beat_most_common", "kwargs": {}}]
    }
    assert not single.members and single.side_members(2) == [single, single]
    assert [m.kwargs for m in kw.members] == [{"seed": 1}, {"note": "a+b"}]  # '+' inside JSON stays
    assert AgentSpec.parse("random+random").name == "random+random"
    assert (
        AgentSpec("t", members=["random", AgentSpec("b", "beat_most_common")]).describe() == "random+beat_most_common"
    )


@pytest.mark.parametrize(
    "make, error, message",
    [
        (
            lambda: AgentSpec.parse("duo=random+"),
            ValueError,
            r"agent 'duo=random\+': a team entrant is MEMBER\+MEMBER\.\.\., got an empty member",
        ),
        (
            lambda: AgentSpec("duo", "random", members=["random"]),
            ValueError,
            "a team entrant is described by its members; give no factory or kwargs beside them",
        ),
        (
            lambda: AgentSpec("solo", "random", shared=True),
            ValueError,
            "shared=True is for a team entrant with members",
        ),
        (
            lambda: AgentSpec("duo", members=[AgentSpec("t", members=["random"])]),
            ValueError,
            "member 't' is a team itself; members are single agents",
        ),
        (lambda: AgentSpec("duo", members=[3]), TypeError, "a member must be an AgentSpec or a 'FACTORY"),
        (
            lambda: AgentSpec.parse("duo=random+beat_most_common").side_members(3),
            ValueError,
            r"entrant 'duo' has 2 members \(random\+beat_most_common\), but a side it plays has 3 seats",
        ),
        (
            lambda: AgentSpec.parse("duo=random+random").build(),
            TypeError,
            "is a team of 2 members; build it with build_side",
        ),
    ],
)
def test_team_entrant_errors_name_what_is_wrong(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_sides_swap_and_results_are_team_results():
    result = run_tournament(ENV, ENTRANTS, games=4, seed=3)
    assert result.teams == {"team_0": ("player_0", "player_2"), "team_1": ("player_1", "player_3")}
    assert result.complete and not result.forfeits and result.scheduled == 12
    sides = {}
    for game in result.games:
        first = game.seats["player_0"]
        assert game.seats["player_2"] == first and game.seats["player_1"] == game.seats["player_3"] != first
        sides.setdefault(game.lineup, []).append(first)
        assert set(game.ranks) == set(game.returns) == set(game.lineup.split("|"))
        winners = [name for name, rank in game.ranks.items() if rank == 1]
        assert game.outcome == ("draw" if len(winners) == 2 else f"{winners[0]} wins")
    for lineup, firsts in sides.items():  # each entrant sits on team_0 in half the games
        assert sorted(firsts) == sorted(lineup.split("|") * 2)
    assert "RandomAgent" in result.games[0].versions.get("duo", "RandomAgent") or True
    duo_games = [g for g in result.games if "duo" in g.ranks]
    assert all(
        g.versions["duo"].startswith("RandomAgent (") and " + BeatMostCommonAgent (" in g.versions["duo"]
        for g in duo_games
    )


def test_team_and_member_ratings_and_export(tmp_path):
    result = run_tournament(ENV, ENTRANTS, games=6, seed=1)
    assert set(result.ratings) == {"duo", "bots", "rnd"}
    members = result.member_ratings
    assert set(members) == {"random", "beat_most_common"}  # members in several entrants: one rating each
    assert members["random"].games == sum(1 for g in result.games if {"duo", "rnd"} & set(g.ranks))
    assert result.members_of("duo") == ["random", "beat_most_common"] and result.members_of("rnd") == ["random"]
    export_result(result, tmp_path / "t.json")
    document = json.loads((tmp_path / "t.json").read_text())
    assert document["teams"] == {"team_0": ["player_0", "player_2"], "team_1": ["player_1", "player_3"]}
    assert {r["name"] for r in document["members"]} == {"random", "beat_most_common"}
    assert {r["name"] for r in document["standings"]} == {"duo", "bots", "rnd"}
    duo = next(e for e in document["entrants"] if e["name"] == "duo")
    assert duo["members"] == ["random", "beat_most_common"] and duo["factory"] == "team"
    plain = run_tournament("rock_paper_scissors", ["random", "b=random"], games=2)
    assert plain.teams is None and plain.member_ratings == {} and "members" not in summary(plain)


def test_uneven_sides_and_three_teams():
    result = run_tournament(
        rules=TournamentRules.make(
            ENV, ["random", "beat_most_common", "c=random"], games=6, seed=2, env_kwargs={"team_sizes": [1, 2, 1]}
        )
    )
    assert result.complete and result.scheduled == 6
    game = result.games[0]
    assert len(set(game.seats.values())) == 3 and len(game.seats) == 4
    with pytest.raises(
        ValueError,
        match=r"entrant 'duo' has 2 members \(random\+random\), but a side it plays has 1 "
        "seats",
    ):
        run_tournament(
            rules=TournamentRules.make(ENV, ["duo=random+random", "b=random"], env_kwargs={"team_sizes": [1, 2]})
        )
    with pytest.raises(ValueError, match=r"entrant 'duo' is a team \(random\+random\), but .* has no sides"):
        run_tournament("rock_paper_scissors", ["duo=random+random", "b=random"])


def test_a_faulty_member_forfeits_its_sides_game():
    slow = f'slow={PREFIX}:SleepyAgent{{"delay": 60}}'
    result = run_tournament(
        rules=TournamentRules.make(
            ENV,
            [f'bad=random+{PREFIX}:ConstantAgent{{"value": 7}}', "good=random", f"late=random+{slow}"],
            games=2,
            seed=4,
            move_time_limit=0.3,
        )
    )
    assert result.complete
    for game in result.games:
        if game.forfeit == "bad":
            assert "invalid action: action must lie in Discrete(3), got 7" in game.error
            assert game.ranks == {"bad": 2, **{name: 1 for name in game.ranks if name != "bad"}}
        else:
            assert game.forfeit == "late" and "exceeded the move time limit of 0.3 s" in game.error
        assert game.returns is None
    assert {g.forfeit for g in result.games if g.lineup == "bad|good"} == {"bad"}
    assert {g.forfeit for g in result.games if g.lineup == "good|late"} == {"late"}


def test_shared_members_are_one_policy_object():
    from arena.runtime.game import GameConfig, GameRunner, GameTask
    from arena.specs.envs import EnvSpec

    shared = AgentSpec("pair", members=["random"], shared=True)
    apart = AgentSpec("apart", members=["random", "random"])
    runner = GameRunner(GameConfig(EnvSpec(ENV), (shared, apart)))
    runner.play(GameTask("apart|pair", 0, 5, ("pair", "apart")))
    pair, two = runner._sides["pair", 2], runner._sides["apart", 2]
    assert pair[0] is pair[1] and two[0] is not two[1]
    assert shared.kwargs == {"members": [{"factory": "random", "kwargs": {}}], "shared": True}
    assert AgentSpec("pair", "team", shared.kwargs) == shared  # the recorded form builds the same entrant


def test_resume_replays_workers_and_ray_give_the_same_team_games(tmp_path, capsys, ray_cluster):
    db = tmp_path / "teams.sqlite"
    serial = run_tournament(ENV, ENTRANTS, games=4, seed=9, db=db)
    again = run_tournament(ENV, ENTRANTS, games=4, seed=9, db=db)
    assert again.played == 0 and [g.outcome for g in again.games] == [g.outcome for g in serial.games]
    capsys.readouterr()
    with pytest.raises(TournamentMismatchError, match=r"entrant 'duo' was team\{.*now random\+random"):
        run_tournament(ENV, ["duo=random+random", "bots=beat_most_common"], games=4, seed=9, db=db)
    assert main(["replay", str(db), "--verify"]) == 0  # stored team games replay to the same side results
    parallel = run_tournament(ENV, ENTRANTS, games=4, seed=9, execution=Execution.make(None, 2, chunk_size=1))
    assert [g.same_play(h) for g, h in zip(serial.games, parallel.games)] == [True] * serial.scheduled
    on_ray = run_tournament(ENV, ENTRANTS, games=4, seed=9, execution=Execution.make("ray", 2, chunk_size=3))
    assert [g.same_play(h) for g, h in zip(serial.games, on_ray.games)] == [True] * serial.scheduled


def test_cli_team_tournament_prints_teams_and_members(tmp_path, capsys):
    report, export = tmp_path / "r.png", tmp_path / "g.csv"
    code = main(
        [
            "tournament",
            ENV,
            "--agents",
            "duo=random+beat_most_common,bots=beat_most_common+beat_most_common",
            "--games",
            "2",
            "--progress",
            "none",
            "--report",
            str(report),
            "--export",
            str(export),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and report.stat().st_size > 0 and export.read_text().count("\n") == 3
    assert "team standings" in out and "member contributions" in out and "members" in out


def test_a_member_that_ends_its_worker_forfeits_its_sides_game_with_every_seat_recorded():
    result = run_tournament(
        ENV, ["duo=random+tests.faults.entrants:ExitingAgent", "bots=beat_most_common"], games=2, seed=1
    )
    assert result.complete and {g.forfeit for g in result.games} == {"duo"}
    for game in result.games:
        assert "ended its worker process" in game.error
        assert sorted(game.seats) == ["player_0", "player_1", "player_2", "player_3"]  # both sides, every seat
        assert sorted(game.seats.values()) == ["bots", "bots", "duo", "duo"]
    assert set(result.member_ratings) == {"random", "tests.faults.entrants:ExitingAgent", "beat_most_common"}
