"""PongBatch keeps the batch contract and plays the single env's games, game by game."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena.batch import SimultaneousBatch, turn_model
from arena.errors import InvalidActionError, ResetNeeded
from arena.seeding import derive_seed
from arena.testing import check_batch
from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from envs.pong_batch import PongBatch


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), num_games=st.integers(1, 3), rounds=st.integers(1, 3))
def test_every_game_is_the_single_envs_game_with_random_moves(seed: int, num_games: int, rounds: int) -> None:
    env = envs.make("pong_2p", rounds=rounds, max_round_steps=25)
    check_batch(env, num_games=num_games, seed=seed, steps=120)  # several games end and start again


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), slot=st.integers(0, 2))
def test_long_rallies_of_pong_ai_are_the_single_envs_too(seed: int, slot: int) -> None:
    env, ai = Pong2p(rounds=2, max_round_steps=300), PongAIAgent()
    batch = env.make_batch(3)
    vectors, _ = batch.reset(seed=seed)
    observations, _ = env.reset(seed=derive_seed(seed, slot))
    while env.agents:
        assert batch.state(slot) == env.state
        for side, agent in enumerate(env.possible_agents):
            assert np.array_equal(vectors[slot, side], observations[agent])
        moves = ai.act_batch(vectors.reshape(6, 8)).reshape(3, 2)
        assert moves[slot].tolist() == [ai.act(observations[agent]) for agent in env.possible_agents]
        observations, rewards, terminations, *_ = env.step(dict(zip(env.possible_agents, moves[slot].tolist())))
        vectors, batch_rewards, batch_terminations, _, infos = batch.step(moves)
        assert batch_rewards[slot].tolist() == [rewards["player_0"], rewards["player_1"]]
        assert batch_terminations[slot].tolist() == [terminations["player_0"], terminations["player_1"]]
    assert infos["episode_over"][slot]


def test_games_end_after_their_rounds_and_start_again_in_the_same_step() -> None:
    batch = PongBatch(2, rounds=2, max_round_steps=30)
    assert turn_model(batch) == "simultaneous" and isinstance(batch, SimultaneousBatch)
    batch.reset(seed=0)
    ends, steps = 0, 0
    while ends < 2 and steps < 500:  # noop paddles: each round a miss or a 30-step tie
        vectors, rewards, terminations, truncations, infos = batch.step(np.zeros((2, 2), dtype=np.int64))
        steps += 1
        over = infos["episode_over"]
        assert (terminations == over[:, None]).all() and not truncations.any() and infos["live"].all()
        if over.any():
            ends += int(over.sum())
            assert infos["final_score"].shape == infos["final_observation"].shape[:2] == (int(over.sum()), 2)
            assert (infos["final_score"].sum(axis=1) <= 2).all()
            assert (batch.score[over] == 0).all() and (batch.round[over] == 0).all()
            assert (batch.round_steps[over] == 0).all()  # the new game's first serve
    assert ends >= 2


def test_restart_starts_the_next_game_of_the_chosen_games_only() -> None:
    batch = PongBatch(3, rounds=5)
    batch.reset(seed=4)
    for _ in range(40):
        batch.step(np.full((3, 2), 2, dtype=np.int64))
    moved = batch.paddle_y.copy()
    fresh = batch.restart([1])
    assert fresh.shape == (1, 2, 8) and np.array_equal(fresh[0], batch.vectors()[1])
    assert batch.paddle_y[1].tolist() == [72.0, 72.0] and np.array_equal(batch.paddle_y[[0, 2]], moved[[0, 2]])


def test_bad_actions_options_and_order_are_refused_with_what_was_expected() -> None:
    batch = PongBatch(2)
    with pytest.raises(ResetNeeded, match=r"step\(\) called before reset\(\)"):
        batch.step(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ResetNeeded, match=r"restart\(\) called before reset\(\)"):
        batch.restart([0])
    batch.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"actions must be \(2, 2\) integers, got \(2,\)"):
        batch.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(InvalidActionError, match=r"actions must be pong_2p's 0-5, got \[0, 6\]"):
        batch.step(np.array([[0, 6], [0, 0]]))
    with pytest.raises(ValueError, match="num_games must be a positive integer, got 0"):
        PongBatch(0)
    with pytest.raises(ValueError, match="ball_speed must be below 64"):
        PongBatch(1, ball_speed=100.0)
    with pytest.raises(ValueError, match="the batch gives the 'vector' observation, got observation='frame'"):
        Pong2p(observation="frame").make_batch(2)
    assert Pong2p(rounds=3, ball_spin=3.0).make_batch(1, rounds=4).rounds == 4  # the env's rules, overridable
    assert Pong2p(rounds=3, ball_spin=3.0).make_batch(1).ball_spin == 3.0
