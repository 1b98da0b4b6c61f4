"""PongBatch: a game in a slot is the single env's game; the pictures and pong_ai's moves are the single ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from envs.pong_batch import PongBatch, pictures, pong_ai_moves
from interfaces.pong import PongFrames

_VECTOR_LOW = np.array([0, 0, -1, -1, 0, -1, 0, -1], dtype=np.float32)


def _setup(itf, env: Pong2p):
    itf.setup(env.observation_space("player_0"), env.action_space("player_0"))
    return itf


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), slot=st.integers(0, 2), scripted=st.floats(0.0, 1.0))
def test_a_game_in_any_slot_is_the_single_envs_game_until_its_round_ends(seed: int, slot: int, scripted: float) -> None:
    rng = np.random.default_rng(seed)
    env = Pong2p(rounds=3, max_round_steps=200)
    batch = PongBatch(3, rounds=3, max_round_steps=200)
    batch.reset(seed=seed)
    frames = _setup(PongFrames(scale=4, frames=1), env)
    ai = _setup(PongAIAgent(), env)
    observations, _ = env.reset(seed=seed)
    batch.load_state(slot, env.state)
    while env.agents:
        vectors = batch.vectors()[slot]
        for side, agent in enumerate(env.possible_agents):  # the observations, pictures, scripted moves
            assert np.array_equal(vectors[side], observations[agent])
            assert np.array_equal(pictures(vectors[side][None])[0], frames.picture(observations[agent]))
            assert pong_ai_moves(vectors[side][None])[0] == ai.act(observations[agent])
        moves = rng.integers(0, 6, (3, 2))
        if rng.random() < scripted:  # long rallies as well as random play
            moves[slot] = [ai.act(observations[agent]) for agent in env.possible_agents]
        round_before = env.state.round
        observations, rewards, *_ = env.step(dict(zip(env.possible_agents, moves[slot].tolist())))
        _, batch_rewards, over = batch.step(moves)
        assert batch_rewards[slot].tolist() == [rewards["player_0"], rewards["player_1"]]
        assert bool(over[slot]) == (not env.agents)
        if env.agents and env.state.round == round_before:
            assert batch.state(slot) == env.state
        elif env.agents:  # a new serve: the batch draws its own, so the slot takes the env's
            assert batch.state(slot).score == env.state.score
            batch.load_state(slot, env.state)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, (5, 8), elements=st.floats(-1.0, 1.0, width=32)))
def test_batched_pictures_and_moves_are_the_single_ones_on_any_vector(values: np.ndarray) -> None:
    vectors = np.clip(values, _VECTOR_LOW, np.float32(1.0))
    env = Pong2p()
    frames = _setup(PongFrames(scale=4, frames=2), env)
    coarse = _setup(PongFrames(scale=8, frames=1), env)
    ai = _setup(PongAIAgent(gain=12.0, dead_zone=0.02), env)
    drawn, drawn_coarse = pictures(vectors, 4), pictures(vectors, 8)
    assert drawn.shape == (5, 40, 40) and drawn_coarse.shape == (5, 20, 20)
    moves = pong_ai_moves(vectors, gain=12.0, dead_zone=0.02)
    for k, vector in enumerate(vectors):
        assert np.array_equal(drawn[k], frames.picture(vector))
        assert np.array_equal(drawn_coarse[k], coarse.picture(vector))
        assert moves[k] == ai.act(vector)


def test_games_end_after_their_rounds_and_start_again_in_the_same_step() -> None:
    batch = PongBatch(2, rounds=2, max_round_steps=30)
    batch.reset(seed=0)
    ends, steps = 0, 0
    while ends < 2 and steps < 500:  # noop paddles: each round a miss or a 30-step tie
        vectors, rewards, over = batch.step(np.zeros((2, 2), dtype=np.int64))
        steps += 1
        if over.any():
            ends += int(over.sum())
            assert (batch.final_score[over].sum(axis=1) + batch.final_ties[over] == 2).all()
            assert (batch.score[over] == 0).all() and (batch.round[over] == 0).all()
            assert (batch.round_steps[over] == 0).all()  # the new game's first serve
    assert ends >= 2


def test_bad_actions_and_options_are_refused_with_what_was_expected() -> None:
    batch = PongBatch(2)
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions must be \(2, 2\) integers, got \(2,\)"):
        batch.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match=r"actions must be pong_2p's 0-5, got \[0, 6\]"):
        batch.step(np.array([[0, 6], [0, 0]]))
    with pytest.raises(ValueError, match="num_games must be a positive integer, got 0"):
        PongBatch(0)
    with pytest.raises(ValueError, match="ball_speed must be below 64"):
        PongBatch(1, ball_speed=100.0)
