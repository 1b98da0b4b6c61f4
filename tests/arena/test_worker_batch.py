"""A batch of single envs in worker processes (arena.worker_batch) keeps the batch contract."""

from __future__ import annotations

import functools
import gc
import os
import signal
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena.batch import AlternatingBatch, SimultaneousBatch, turn_model
from arena.errors import ArenaError, InvalidActionError, InvalidValueError, ResetNeeded, WorkerError
from arena.testing import check_batch
from arena.worker_batch import AlternatingWorkerBatch, WorkerBatch, batch_of
from envs.rock_paper_scissors import RockPaperScissors

SMALL_SNAKE = {"height": 6, "width": 6, "num_snakes": 2, "max_steps": 12}


class BrokenOnScissors(Exception):
    """The error the env below raises (not an arena error: any exception travels)."""


class ScissorsBreak(RockPaperScissors):
    """Rock-paper-scissors whose first player's scissors (2) break the game."""

    def step(self, actions: Any):
        if int(actions["player_0"]) == 2:
            raise BrokenOnScissors("scissors are not allowed here")
        return super().step(actions)


def _checked(name: str, options: dict[str, Any], turns: str, num_workers: int, **kwargs: Any) -> None:
    make = functools.partial(batch_of, name, env_options=options, turns=turns, num_workers=num_workers)
    check_batch(envs.make(name, **options), make_batch=make, **kwargs)


@pytest.mark.parametrize(
    "name, options, turns, num_workers",
    [
        ("rock_paper_scissors", {}, "simultaneous", 2),
        ("snake", SMALL_SNAKE, "simultaneous", 1),
        ("tic_tac_toe", {}, "alternating", 2),
        ("tic_tac_toe", {}, "simultaneous", 0),
    ],
)
def test_worker_batches_keep_the_contract_and_play_the_single_env_s_games(name, options, turns, num_workers):
    _checked(name, options, turns, num_workers, num_games=3, steps=25)


@settings(max_examples=8, deadline=None)
@given(
    case=st.sampled_from([("rock_paper_scissors", {}, "simultaneous"), ("tic_tac_toe", {}, "alternating")]),
    num_games=st.integers(1, 4),
    seed=st.integers(0, 2**31 - 1),
    steps=st.integers(1, 20),
)
def test_in_process_batches_keep_the_contract_for_any_size_and_seed(case, num_games, seed, steps):
    name, options, turns = case
    _checked(name, options, turns, 0, num_games=num_games, seed=seed, steps=steps)


def test_soccer_plays_as_a_batch_of_dict_observations_in_a_worker():
    options = {"team_size": 1, "time_limit": 0.2}  # 8 steps: an episode ends inside the check
    _checked("soccer", options, "simultaneous", 1, num_games=2, steps=10)


def test_batches_declare_their_turn_model():
    with batch_of("rock_paper_scissors", 2, num_workers=0) as simultaneous:
        assert isinstance(simultaneous, SimultaneousBatch) and turn_model(simultaneous) == "simultaneous"
    with batch_of("tic_tac_toe", 2, turns="alternating", num_workers=0) as alternating:
        assert isinstance(alternating, AlternatingBatch) and turn_model(alternating) == "alternating"
        assert isinstance(alternating, AlternatingWorkerBatch)


def _play(num_workers: int, steps: int = 40) -> list[Any]:
    """Everything a small snake batch gives over ``steps`` random steps."""
    rng = np.random.default_rng(5)
    record: list[Any] = []
    with batch_of("snake", 3, env_options=SMALL_SNAKE, num_workers=num_workers) as batch:
        observations, infos = batch.reset(seed=11)
        record += [observations, infos["live"]]
        for _ in range(steps):
            observations, rewards, terminations, truncations, infos = batch.step(rng.integers(3, size=(3, 2)))
            record += [observations, rewards, terminations, truncations, infos["live"], infos["episode_over"]]
            record += [infos.get("final_observation")]
        assert any(r is not None for r in record[8::7])  # some game ended: the final observations are compared too
    return record


def test_the_same_seed_plays_the_same_games_whatever_the_number_of_workers():
    in_process, one, two = _play(0), _play(1), _play(2)
    for a, b, c in zip(in_process, one, two):
        if a is None:
            assert b is None and c is None
        else:
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("num_workers", [0, 1])
def test_an_error_in_a_game_is_raised_with_the_game_and_the_worker_s_traceback(num_workers):
    with WorkerBatch(ScissorsBreak, 3, num_workers=num_workers) as batch:
        batch.reset(seed=0)
        actions = np.zeros((3, 2), np.int64)
        actions[2, 0] = 2
        with pytest.raises(WorkerError, match="game 2 raised BrokenOnScissors: scissors are not allowed") as caught:
            batch.step(actions)
        assert caught.value.game == 2 and "in step" in caught.value.worker_traceback
        assert isinstance(caught.value.__cause__, BrokenOnScissors)
        with pytest.raises(ResetNeeded, match="after a game raised"):
            batch.step(np.zeros((3, 2), np.int64))
        batch.reset(seed=0)  # a reset makes the batch usable again
        assert batch.step(np.zeros((3, 2), np.int64))[1].shape == (3, 2)


def test_an_env_s_own_error_is_the_cause():
    with batch_of("soccer", 1, env_options={"team_size": 1}, num_workers=0) as batch:
        batch.reset(seed=0)
        with pytest.raises(WorkerError, match="game 0 raised InvalidActionError") as caught:
            batch.step(np.full((1, 2, 3), 5.0))  # outside the Box(-1, 1)
        assert isinstance(caught.value.__cause__, InvalidActionError)


def test_bad_calls_are_refused_with_what_was_expected():
    with batch_of("rock_paper_scissors", 2, num_workers=0) as batch:
        with pytest.raises(ResetNeeded, match="before reset"):
            batch.step(np.zeros((2, 2), np.int64))
        batch.reset(seed=0)
        with pytest.raises(InvalidValueError, match=r"actions must be an array of shape \(2, 2\), got shape \(2,\)"):
            batch.step(np.zeros(2, np.int64))
    with pytest.raises(ArenaError, match="the batch is closed"):
        batch.reset(seed=0)
    with pytest.raises(InvalidValueError, match="num_workers must be 0 .* to num_games \\(2\\), got 3"):
        batch_of("rock_paper_scissors", 2, num_workers=3)
    with pytest.raises(InvalidValueError, match="context must be one of"):
        batch_of("rock_paper_scissors", 2, num_workers=1, context="fork")
    with pytest.raises(InvalidValueError, match="turns must be 'simultaneous' or 'alternating'"):
        batch_of("rock_paper_scissors", 2, turns="sides")
    with batch_of("rock_paper_scissors", 1, turns="alternating", num_workers=0) as alternating:
        with pytest.raises(InvalidValueError, match=r"game 0 has \['player_0', 'player_1'\] acting at once"):
            alternating.reset(seed=0)


def test_a_game_that_cannot_be_built_names_the_build():
    with pytest.raises(WorkerError, match="building the envs raised InvalidValueError: RockPaperScissors: rounds"):
        batch_of("rock_paper_scissors", 2, env_options={"rounds": 0}, num_workers=1)


def test_a_dead_worker_is_reported_and_closes_the_batch():
    batch = batch_of("rock_paper_scissors", 2, num_workers=2)
    batch.reset(seed=0)
    pid = batch._runner.pids[1]
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerError, match=rf"worker 1 \(pid {pid}, games \[1\]\) died \(exit code -9\)"):
        batch.step(np.zeros((2, 2), np.int64))
    with pytest.raises(ArenaError, match="the batch is closed"):
        batch.reset(seed=0)


def test_close_and_garbage_collection_end_the_workers():
    batch = batch_of("rock_paper_scissors", 2, num_workers=2)
    processes = list(batch._runner._processes)
    batch.close()
    batch.close()  # twice is safe
    assert not any(process.is_alive() for process in processes)
    forgotten = batch_of("rock_paper_scissors", 2, num_workers=1)
    forgotten.reset(seed=0)
    processes = list(forgotten._runner._processes)
    del forgotten
    gc.collect()
    assert not any(process.is_alive() for process in processes)


def test_a_final_observation_is_the_last_one_each_agent_was_shown():
    # one round: the single env shows no observation at the end, so the final one is the opening view (3: none yet)
    with batch_of("rock_paper_scissors", 2, env_options={"rounds": 1}, num_workers=0) as batch:
        batch.reset(seed=0)
        infos = batch.step(np.array([[0, 1], [2, 2]]))[4]
        assert infos["episode_over"].all() and infos["final_observation"].tolist() == [[3, 3], [3, 3]]


def test_the_batched_trainer_trains_soccer_sides_through_a_worker_batch():
    from stable_baselines3 import PPO

    from arena.specs.interfaces import build_interface
    from arena.training.vectorised import batch_vec_env

    stack = build_interface("rescale_action(soccer_features(soccer_shaping(ball=0.1, goal=0.3), relative=true))")
    options = {"team_size": 2, "time_limit": 0.2}  # 8 steps a match: episodes end inside the run
    venv = batch_vec_env("soccer", 2, "random", team=True, interface=stack, env_kwargs=options, num_workers=1)
    try:
        assert isinstance(venv.batch, WorkerBatch) and venv.num_envs == 4  # 2 games x 2 walkers of a side
        model = PPO("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
        model.learn(16)
        assert model.num_timesteps == 32  # one rollout: 8 steps in 4 sub-envs
    finally:
        venv.close()
    assert venv.batch._runner.closed  # closing the trainer env ends the workers


def test_vizdoom_plays_as_a_worker_batch():
    options = {"players": 1, "bots": 1, "time_limit": 2.0, "screen_format": "grey"}  # fast mode: one engine a game
    with batch_of("vizdoom_deathmatch", 2, env_options=options, num_workers=1) as batch:
        observations, infos = batch.reset(seed=0)
        assert observations["screen"].shape == (2, 1, 120, 160, 1) and infos["live"].all()
        for _ in range(3):
            observations, rewards, *_ = batch.step(np.zeros((2, 1, 7), np.int8))
        assert rewards.shape == (2, 1) and observations["variables"].shape == (2, 1, 4)
