"""Env options that would make work unbounded, or rewards not numbers, are refused at construction."""

from __future__ import annotations

import math
import tracemalloc

import pytest

from arena.registry import make_env


@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        (
            "snake",
            {"snake_length": 500},
            "4 snakes of length 500 (each with a free cell ahead) and 3 fruits need 2007 "
            "free cells; the 20 x 20 map has 324",
        ),
        ("snake", {"num_fruits": 400}, "and 400 fruits need 416 free cells; the 20 x 20 map has 324"),
        (
            "snake",
            {"height": 100_000, "width": 100_000},
            "the board must have at most 262144 cells, got 100000 x 100000",
        ),
        (
            "snake",
            {"reward_dict": {"fruit": math.nan, "kill": 0, "lose": -1, "win": 1, "time": 0}},
            "reward_dict['fruit'] must be a finite number, got nan",
        ),
        (
            "snake",
            {"reward_dict": {"fruit": 1, "kill": math.inf, "lose": -1, "win": 1, "time": 0}},
            "reward_dict['kill'] must be a finite number, got inf",
        ),
        (
            "tic_tac_toe",
            {"illegal_action": "penalty", "illegal_penalty": math.nan},
            "TicTacToe: illegal_penalty must be a finite number, got nan",
        ),
        ("pong_2p", {"paddle_accel": math.inf}, "paddle_accel must be a positive finite number, got inf"),
        ("pong_2p", {"ball_speed": math.nan}, "ball_speed must be a positive finite number, got nan"),
        ("rock_paper_scissors", {"rounds": True}, "rounds must be a positive integer, got True"),
    ],
)
def test_unbounded_or_non_finite_options_are_refused_at_construction(name, options, expected):
    with pytest.raises(ValueError) as info:
        make_env(name, **options)
    assert expected in str(info.value)


def test_a_snake_that_just_fits_still_resets():
    env = make_env("snake", height=6, width=6, num_snakes=2, snake_length=5, num_fruits=1)  # 13 of 16 free cells
    observations, _ = env.reset(seed=0)
    assert len(observations) == 2


def test_a_huge_board_is_refused_before_any_of_it_is_made():
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="the board must have at most 262144 cells"):
            make_env("snake", height=100_000, width=100_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000  # the 10 GB board was never allocated
