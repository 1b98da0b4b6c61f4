"""Ratings from ranks, including games of three and more players."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.tournament import GameResult, TournamentRules, rate_games, run_tournament
from tests.arena.tournament.helpers import PREFIX

pytest.importorskip("openskill")


def constant(name, value):
    return f'{name}={PREFIX}:ConstantAgent{{"value": {value}}}'


def test_three_player_ranks_reach_the_ratings():
    # In HighestNumber the higher number ranks better; four entrants, three seats: 4 lineups of 6 seatings.
    result = run_tournament(
        f"{PREFIX}:HighestNumber",
        [constant("three", 3), constant("one", 1), constant("two", 2), constant("zero", 0)],
        games=6,
    )
    assert len(result.lineups) == 4 and len(result.games) == 24
    value = {"zero": 0, "one": 1, "two": 2, "three": 3}
    for game in result.games:
        assert len(game.ranks) == 3
        for name, rank in game.ranks.items():
            assert rank == 1 + sum(value[other] > value[name] for other in game.ranks)
    board = [rating.name for rating in result.leaderboard()]
    assert board == ["three", "two", "one", "zero"]
    assert all(rating.games == 18 for rating in result.ratings.values())
    # pairwise: "two" beats "one" in every game they share, and "three" beats everyone
    assert result.pairings["two", "one"].score == 1.0 and result.pairings["two", "one"].games == 12
    assert result.pairings["zero", "three"].score == 0.0


def test_ties_in_a_multi_player_game_share_the_rating_update():
    result = run_tournament(f"{PREFIX}:HighestNumber", [constant("a", 2), constant("b", 2), constant("c", 0)], games=6)
    ratings = result.ratings
    assert ratings["a"].mu == pytest.approx(ratings["b"].mu)
    assert ratings["a"].mu > ratings["c"].mu
    assert result.pairings["a", "b"].draws == 6


def test_liars_dice_seats_three_players_in_every_rotation():
    result = run_tournament(
        rules=TournamentRules.make(
            "liars_dice",
            ["random", "b=random", "c=random", "d=random"],
            env_kwargs={"players": 3, "dice": 1},
            games=6,
            seed=4,
        )
    )
    assert result.complete and len(result.games) == 4 * 6 and not result.forfeits
    seats = Counter((game.lineup, seat, name) for game in result.games for seat, name in game.seats.items())
    assert set(seats.values()) == {2}  # each entrant twice in each of the 3 seats of each lineup
    assert all(sorted(game.ranks.values()) == [1, 2, 3] for game in result.games)
    assert sum(rating.games for rating in result.ratings.values()) == 3 * 24


def test_rate_games_without_ranks_or_unknown_entrants_skips_them():
    games = [
        GameResult("a|b", 0, 0, {}, {}, None, 0, "error"),
        GameResult("a|x", 1, 1, {}, {"a": 1, "x": 2}, None, 0, "a wins"),
    ]
    ratings = rate_games(games, ["a", "b"])
    assert ratings["a"].games == 0 and ratings["a"].mu == 25.0
    assert ratings["a"].interval == pytest.approx((25 - 1.96 * 25 / 3, 25 + 1.96 * 25 / 3), abs=1e-3)
