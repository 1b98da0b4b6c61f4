"""The batched snake (SnakeBatch) and its gymnasium VectorEnv view, against the single env."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import InvalidActionError, ResetNeeded
from arena.seeding import derive_seed
from envs.snake import Snake, SnakeBatch, SnakeVectorEnv

CONFIGS = [
    {},
    {"num_snakes": 3, "height": 12, "width": 15, "vision_range": 3, "frame_stack": 2},
    {"num_snakes": 1, "height": 6, "width": 6, "max_steps": 30},
    {
        "num_snakes": 6,
        "height": 9,
        "width": 9,
        "snake_length": 4,
        "num_fruits": 4,
        "reward_dict": {"fruit": 1.0, "kill": 2.0, "lose": -3.0, "time": 0.5, "win": 7.0},
    },
    {
        "num_snakes": 9,
        "height": 10,
        "width": 12,
        "snake_length": 2,
        "frame_stack": 3,
        "max_steps": 40,
        "walls": [
            "############",
            "#..........#",
            "#..#.......#",
            "#..#...##..#",
            "#..........#",
            "#.....#....#",
            "#..........#",
            "#...##.....#",
            "#..........#",
            "############",
        ],
    },
]


def play_side_by_side(options: dict, seed: int, games: int, steps: int, action_seed: int) -> int:
    """Step a batch and one single env per game with the same actions; assert every output agrees.

    Returns the number of episodes that ended.
    """
    batch = SnakeBatch(games, **options)
    singles = [Snake(**options) for _ in range(games)]
    batch_obs, batch_info = batch.reset(seed=seed)
    single_obs = [env.reset(seed=derive_seed(seed, g))[0] for g, env in enumerate(singles)]
    rng = np.random.default_rng(action_seed)
    ended = 0
    for step in range(steps):
        for g, env in enumerate(singles):
            live = [f"snake_{i}" for i in np.flatnonzero(batch_info["live"][g])]
            assert sorted(single_obs[g]) == live, (step, g)
            assert np.array_equal(batch.map_codes(g), env._map), (step, g)
            for agent, observation in single_obs[g].items():
                assert np.array_equal(observation, batch_obs[g, int(agent[6:])]), (step, g, agent)
            for i in np.flatnonzero(~batch_info["live"][g]):
                assert not batch_obs[g, i].any()  # a snake out of play sees nothing
        actions = rng.integers(0, 3, (games, batch.num_snakes))
        batch_obs, rewards, terminations, truncations, batch_info = batch.step(actions)
        assert rewards.dtype == np.float32 and terminations.dtype == bool and truncations.dtype == bool
        for g, env in enumerate(singles):
            acting = single_obs[g]
            obs, r, te, tr, _ = env.step({agent: int(actions[g, int(agent[6:])]) for agent in acting})
            expected = np.zeros((3, batch.num_snakes))
            for agent in r:
                expected[:, int(agent[6:])] = r[agent], te[agent], tr[agent]
            assert np.array_equal(expected, np.stack([rewards[g], terminations[g], truncations[g]])), (step, g)
            assert batch_info["acted"][g].sum() == len(acting)
            if not env.agents:
                assert batch_info["episode_over"][g]
                ended += 1
                obs, _ = env.reset()
            else:
                assert not batch_info["episode_over"][g]
            single_obs[g] = obs
    return ended


@pytest.mark.parametrize("options", CONFIGS)
def test_batch_and_single_envs_play_identical_trajectories(options) -> None:
    assert play_side_by_side(options, seed=7, games=12, steps=150, action_seed=1) > 12


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**40), action_seed=st.integers(0, 2**32))
def test_identical_trajectories_for_any_seed(seed, action_seed) -> None:
    play_side_by_side({"height": 8, "width": 8, "num_snakes": 3}, seed, games=4, steps=40, action_seed=action_seed)


def test_reset_seeds_per_game_and_unseeded_reset_plays_the_next_episodes() -> None:
    batch = SnakeBatch(3, height=8, width=8, num_snakes=2)
    obs, info = batch.reset(seed=[5, 6, 5])
    assert info["live"].all() and obs.shape == (3, 2, 8, 8, 8)
    assert np.array_equal(obs[0], obs[2]) and not np.array_equal(obs[0], obs[1])
    single = Snake(height=8, width=8, num_snakes=2)
    first, _ = single.reset(seed=5)
    assert np.array_equal(first["snake_1"], obs[0, 1])
    nxt, _ = batch.reset()
    second, _ = single.reset()
    assert np.array_equal(second["snake_0"], nxt[0, 0])
    again, _ = batch.reset(seed=[5, 6, 5])
    assert np.array_equal(again, obs)


def test_final_observation_and_auto_reset() -> None:
    batch = SnakeBatch(64, height=6, width=6, num_snakes=2, max_steps=5)
    batch.reset(seed=3)
    rng = np.random.default_rng(0)
    seen_end = False
    for _ in range(5):
        obs, rewards, terms, truncs, info = batch.step(rng.integers(0, 3, (64, 2)))
        over = info["episode_over"]
        if over.any():
            seen_end = True
            final = info["final_observation"]
            assert final.shape == (over.sum(), 2, 6, 6, 8)
            assert info["live"][over].all()  # reset in the same step
            ended_live = truncs[over]  # the survivors of ended games were truncated, their last view kept
            assert all(final[k, i].any() for k, i in zip(*np.nonzero(ended_live)))
            assert all(not final[k, i].any() for k, i in zip(*np.nonzero(terms[over])))
    assert seen_end and (truncs.any() or terms.any())


def test_copy_option_controls_buffer_reuse() -> None:
    fresh = SnakeBatch(2, height=6, width=6, num_snakes=2)
    shared = SnakeBatch(2, height=6, width=6, num_snakes=2, copy=False)
    a, _ = fresh.reset(seed=0)
    b, _ = shared.reset(seed=0)
    actions = np.ones((2, 2), dtype=np.int64)
    a2, *_ = fresh.step(actions)
    b2, *_ = shared.step(actions)
    assert a2 is not a and b2 is b and np.array_equal(a2, b2)


def test_bad_input_is_refused_with_a_clear_message() -> None:
    batch = SnakeBatch(2, height=6, width=6, num_snakes=2)
    with pytest.raises(ResetNeeded, match=r"SnakeBatch 2 games .* step\(\) called before reset\(\)"):
        batch.step(np.ones((2, 2), dtype=np.int64))
    batch.reset(seed=0)
    with pytest.raises(
        InvalidActionError,
        match=r"actions must be an integer array of shape \(2, 2\), got float64 array of shape \(2, 2\)",
    ):
        batch.step(np.ones((2, 2)))
    with pytest.raises(InvalidActionError, match=r"shape \(2, 2\), got int64 array of shape \(4,\)"):
        batch.step(np.ones(4, dtype=np.int64))
    with pytest.raises(InvalidActionError, match="actions must lie in 0..2 .*, got values from 0 to 3"):
        batch.step(np.array([[0, 3], [1, 1]]))
    with pytest.raises(ValueError, match="SnakeBatch: num_games must be a positive integer, got 0"):
        SnakeBatch(0)
    with pytest.raises(TypeError, match="render_mode is not an option of a batch"):
        SnakeBatch(2, render_mode="ansi")
    with pytest.raises(ValueError, match=r"seed must be an int or 2 non-negative ints, got \[1\]"):
        batch.reset(seed=[1])
    with pytest.raises(ValueError, match=r"seed must be an int or 2 non-negative ints, got 'ab'"):
        batch.reset(seed="ab")  # a string is not a sequence of seeds
    with pytest.raises(ValueError, match="Snake: num_snakes must be an integer of at least 1"):
        SnakeBatch(2, num_snakes=0)


def test_vector_env_seats_black_death_and_same_step_autoreset() -> None:
    venv = SnakeVectorEnv(32, height=6, width=6, num_snakes=2)
    assert venv.num_envs == 64 and venv.metadata["autoreset_mode"].name == "SAME_STEP"
    assert venv.single_observation_space.shape == (6, 6, 8) and venv.action_space.shape == (64,)
    obs, info = venv.reset(seed=1)
    assert obs.shape == (64, 6, 6, 8) and info["live"].all()
    rng = np.random.default_rng(2)
    paused = np.zeros(64, dtype=bool)
    checked_pause = checked_end = False
    for _ in range(60):
        obs, rewards, terms, truncs, info = venv.step(rng.integers(0, 3, 64))
        live = info["live"]
        assert (rewards[paused] == 0).all()  # a pause pays nothing
        ends = terms | truncs
        if ends.any():
            assert (info["_final_obs"] == ends).all()
            assert all(info["final_obs"][i].shape == (6, 6, 8) for i in np.flatnonzero(ends))
            assert all(info["final_obs"][i] is None for i in np.flatnonzero(~ends))
            checked_end = True
        still_paused = paused & ~ends
        if still_paused.any():
            assert not obs[still_paused].any()
            checked_pause = True
        paused = (paused | terms) & ~live  # a seat whose snake died waits for its game to reset
        assert not obs[~live].any() and obs[live].any(axis=(1, 2, 3)).all()
    assert checked_pause and checked_end
    with pytest.raises(InvalidActionError, match=r"expected 64 actions, got shape \(3,\)"):
        venv.step(np.zeros(3, dtype=np.int64))
