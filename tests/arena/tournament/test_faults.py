"""Forfeits: an agent that crashes, hangs, or plays an illegal or out-of-space move loses that game."""

from __future__ import annotations

import sys
import time

import pytest

from arena.errors import EntrantBuildError, MissingDependencyError, TournamentError
from arena.tournament import Execution, TournamentRules, run_tournament
from tests.arena.tournament.helpers import PREFIX


def only_forfeits_of(result, name):
    return all(game.forfeit == name for game in result.forfeits) and len(result.forfeits) > 0


@pytest.mark.parametrize(
    ("factory", "reason"),
    [
        ("CrashingAgent", "act() raised RuntimeError: crashed on purpose (at "),
        ("IllegalAgent", "illegal action 0; legal actions were ["),
        ("OutOfSpaceAgent", "invalid action: action must lie in Discrete(9), got 42"),
    ],
)
def test_a_faulty_agent_forfeits_and_the_tournament_goes_on(factory, reason):
    result = run_tournament("tic_tac_toe", ["random", f"bad={PREFIX}:{factory}"], games=6, seed=1)
    assert result.complete and len(result.games) == 6
    # the crashing agent always reaches its second move, the illegal one meets an occupied cell
    # at its second move at the latest, the out-of-space one fails at once: every game is a forfeit
    assert [game.forfeit for game in result.games] == ["bad"] * 6
    for game in result.games:
        assert reason in game.error
        assert game.ranks == {"bad": 2, "random": 1}
        assert game.outcome == "bad forfeits" and game.returns is None
    stats = result.pairings["random", "bad"]
    assert (stats.wins, stats.draws, stats.losses, stats.forfeits) == (6, 0, 0, 6)
    assert result.ratings["random"].mu > result.ratings["bad"].mu


@pytest.mark.parametrize("workers", [1, 2])
def test_a_hung_agent_is_interrupted_at_the_move_time_limit(workers):
    # A 60-second sleep and an endless Python loop: both must be cut at 0.2 s, in this process
    # (serial) and in worker processes alike.
    start = time.perf_counter()
    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe",
            ["random", f'sleepy={PREFIX}:SleepyAgent{{"delay": 60}}', f"spinning={PREFIX}:SpinningAgent"],
            games=2,
            seed=2,
            move_time_limit=0.2,
        ),
        workers=workers,
    )
    assert time.perf_counter() - start < 30  # far below one 60 s sleep: the moves were interrupted
    assert result.complete
    by_lineup = {game.lineup: game for game in result.games}
    assert by_lineup["random|sleepy"].forfeit == "sleepy"
    assert by_lineup["random|spinning"].forfeit == "spinning"
    for game in result.forfeits:
        # interrupted in the agent's process, or (on a box too loaded to deliver the signal in
        # time) its worker killed from outside: the same forfeit either way
        assert game.error.startswith("exceeded the move time limit of 0.2 s ("), game.error
    # sleepy against spinning: whoever moves first forfeits
    first = [game for game in result.games if game.lineup == "sleepy|spinning"]
    assert sorted(game.forfeit for game in first) == ["sleepy", "spinning"]


def test_a_slow_agent_under_the_limit_plays_normally():
    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe",
            ["random", f'slowish={PREFIX}:SleepyAgent{{"delay": 0.001}}'],
            games=2,
            seed=2,
            move_time_limit=5.0,
        )
    )
    assert not result.forfeits and result.complete


def test_an_agent_that_cannot_be_built_stops_the_tournament_before_any_game(tmp_path):
    db = tmp_path / "r.sqlite"
    with pytest.raises(EntrantBuildError) as info:
        run_tournament("tic_tac_toe", ["random", "b=random", f"broken={PREFIX}:broken_agent"], games=2, db=db)
    assert str(info.value) == (
        "tournament: entrant 'broken' cannot be built: FileNotFoundError: no weights at /nowhere/model.zip"
    )
    assert info.value.reasons == {"broken": "FileNotFoundError: no weights at /nowhere/model.zip"}
    assert not db.exists()  # nothing was played or stored


def test_an_agent_that_cannot_be_built_is_excluded_once_with_its_reason_when_asked():
    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe", ["random", "b=random", f"broken={PREFIX}:broken_agent"], games=2, exclude_unbuildable=True
        )
    )
    assert result.excluded == {"broken": "FileNotFoundError: no weights at /nowhere/model.zip"}
    assert result.entrants == ["random", "b"] and result.complete and len(result.games) == 2


def test_too_few_buildable_entrants_is_an_error_naming_the_reason():
    with pytest.raises(TournamentError) as info:
        run_tournament(
            rules=TournamentRules.make(
                "tic_tac_toe", ["random", f"broken={PREFIX}:broken_agent"], games=2, exclude_unbuildable=True
            )
        )
    assert "needs at least 2 entrants, got 1" in str(info.value)
    assert "broken: FileNotFoundError: no weights at /nowhere/model.zip" in str(info.value)
    with pytest.raises(
        TournamentError, match="the gauntlet's challenger 'broken' could not be built: FileNotFoundError"
    ):
        run_tournament(
            rules=TournamentRules.make(
                "tic_tac_toe",
                [f"broken={PREFIX}:broken_agent", "random", "b=random"],
                mode="gauntlet",
                exclude_unbuildable=True,
            )
        )


def test_an_unknown_agent_name_is_excluded_with_the_known_names():
    result = run_tournament(
        rules=TournamentRules.make(
            "tic_tac_toe", ["random", "b=random", "nosuchagent"], games=2, exclude_unbuildable=True
        )
    )
    assert "unknown agent 'nosuchagent'; known agents:" in result.excluded["nosuchagent"]
    assert "random" in result.excluded["nosuchagent"]


def test_a_misspelt_name_or_option_is_refused_with_a_suggestion():
    with pytest.raises(EntrantBuildError) as info:
        run_tournament("tic_tac_toe", ["randm", 'm=mcts{"simulation": 20}', "b=random"], games=2)
    assert str(info.value) == (
        "tournament: 2 entrants cannot be built: 'randm': UnknownNameError: unknown agent 'randm'; did you mean "
        "'random'? (`arena agents` lists them all); or give 'package.module:callable'; 'm': InvalidTypeError: agent "
        "'mcts' takes no option 'simulation' (did you mean 'simulations'?); its options: env, simulations, "
        "exploration, seed"
    )


def test_an_agent_that_gives_up_forfeits_under_its_entrant_name():
    result = run_tournament("tic_tac_toe", ["random", f"quitter={PREFIX}:QuittingAgent"], games=2)
    assert [(game.forfeit, game.error) for game in result.games] == [("quitter", "typed q")] * 2


def test_missing_optional_libraries_name_their_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "openskill", None)
    monkeypatch.setitem(sys.modules, "openskill.models", None)
    result = run_tournament("tic_tac_toe", ["random", "b=random"], games=2)
    with pytest.raises(MissingDependencyError, match=r"install the extra: pip install 'arena-marl\[tournament\]'"):
        _ = result.ratings
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingDependencyError, match=r"the Ray backend needs ray .*pip install 'arena-marl\[ray\]'"):
        run_tournament("tic_tac_toe", ["random", "b=random"], games=2, execution=Execution.make("ray"))


def test_max_steps_cuts_long_games():
    result = run_tournament(rules=TournamentRules.make("tic_tac_toe", ["random", "b=random"], games=2, max_steps=2))
    assert all(game.truncated and game.length == 2 and game.outcome == "draw" for game in result.games)
