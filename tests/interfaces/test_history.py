"""FrameStack, EpisodeClock and NormalizeObservation: the observation interfaces with memory."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import SpaceMismatchError
from arena.testing import check_interface
from arena.testing.strategies import box_spaces
from interfaces import EpisodeClock, Flatten, FrameStack, NormalizeObservation


@settings(max_examples=30, deadline=None)
@given(box_spaces(), st.integers(1, 4))
def test_frame_stack_keeps_the_contract(box, frames):
    itf = FrameStack(frames=frames)
    check_interface(itf, box, spaces.Discrete(2), examples=8)
    assert itf.observation_space.shape == (frames, *box.shape)


def test_frame_stack_keeps_the_last_frames_oldest_first_and_restarts_each_episode():
    itf = FrameStack(frames=3)
    itf.setup(spaces.Box(0, 100, (2,), np.int64), spaces.Discrete(2))
    first = itf.transform_reset(np.array([1, 1]))
    assert first.tolist() == [[1, 1]] * 3
    itf.transform_observation(np.array([2, 2]))
    third = itf.transform_observation(np.array([3, 3]))
    assert third.tolist() == [[1, 1], [2, 2], [3, 3]]
    fourth = itf.transform_observation(np.array([4, 4]))
    assert fourth.tolist() == [[2, 2], [3, 3], [4, 4]]
    assert third.tolist() == [[1, 1], [2, 2], [3, 3]]  # returned arrays are not the live stack
    assert itf.transform_reset(np.array([9, 9])).tolist() == [[9, 9]] * 3


def test_frame_stack_rejects_bad_arguments_and_spaces():
    with pytest.raises(ValueError, match="FrameStack: frames must be a positive integer, got 0"):
        FrameStack(frames=0)
    with pytest.raises(
        SpaceMismatchError, match=r"FrameStack\(frames=2\): needs a Box observation space, got Discrete\(3\)"
    ):
        FrameStack(frames=2).setup(spaces.Discrete(3), spaces.Discrete(2))
    itf = FrameStack(Flatten(), frames=2)  # the fix the message suggests
    check_interface(itf, spaces.Discrete(3), spaces.Discrete(2), examples=5)


@settings(max_examples=30, deadline=None)
@given(box_spaces(dtypes=(np.float32, np.float64, np.int64)))
def test_normalize_observation_keeps_the_contract(box):
    check_interface(NormalizeObservation(), box, spaces.Discrete(2), examples=8)
    check_interface(NormalizeObservation(frozen=True), box, spaces.Discrete(2), examples=8)


def test_normalize_observation_learns_mean_and_variance_and_freezes():
    rng = np.random.default_rng(0)
    data = rng.normal(loc=[5.0, -3.0], scale=[2.0, 0.5], size=(4000, 2))
    itf = NormalizeObservation()
    itf.setup(spaces.Box(-np.inf, np.inf, (2,), np.float64), spaces.Discrete(2))
    outputs = np.array([itf.transform_observation(x) for x in data])
    np.testing.assert_allclose(itf.mean, data.mean(axis=0), rtol=1e-3)
    np.testing.assert_allclose(itf.var, data.var(axis=0), rtol=1e-2)
    assert abs(outputs[2000:].mean()) < 0.1 and abs(outputs[2000:].std() - 1) < 0.1
    itf.freeze()
    frozen = itf.statistics()
    a = itf.transform_observation(np.array([100.0, 100.0]))
    b = itf.transform_observation(np.array([100.0, 100.0]))
    assert a.tolist() == b.tolist() == [10.0, 10.0]  # far outside: clipped, and the statistics did not move
    np.testing.assert_array_equal(itf.statistics()["mean"], frozen["mean"])
    assert "frozen" in str(itf)


def test_normalize_observation_statistics_move_to_an_evaluation_copy():
    train = NormalizeObservation()
    train.setup(spaces.Box(-10.0, 10.0, (1,)), spaces.Discrete(2))
    for x in (1.0, 2.0, 3.0, 4.0):
        train.transform_observation(np.array([x]))
    evaluation = NormalizeObservation(frozen=True)
    evaluation.load_statistics(train.statistics())  # before setup: applied at setup
    evaluation.setup(spaces.Box(-10.0, 10.0, (1,)), spaces.Discrete(2))
    copy_of_train = copy.deepcopy(train).freeze()
    x = np.array([2.5])
    assert evaluation.transform_observation(x).tolist() == copy_of_train.transform_observation(x).tolist()
    with pytest.raises(SpaceMismatchError, match=r"statistics of shape \(3,\) do not fit observations of shape \(1,\)"):
        evaluation.load_statistics({"mean": np.zeros(3), "var": np.ones(3), "count": 1.0})


def test_normalize_observation_state_is_declared_across_episodes():
    assert NormalizeObservation.stateful_across_episodes is True
    with pytest.raises(SpaceMismatchError, match=r"NormalizeObservation\(clip=10\): needs a Box observation space"):
        NormalizeObservation().setup(spaces.MultiBinary(3), spaces.Discrete(2))
    with pytest.raises(ValueError, match="NormalizeObservation: clip must be positive, got 0"):
        NormalizeObservation(clip=0)


@settings(max_examples=30, deadline=None)
@given(box_spaces(), st.integers(2, 6))
def test_episode_clock_keeps_the_contract(box, period):
    itf = EpisodeClock(period=period)
    check_interface(itf, box, spaces.Discrete(2), examples=8)
    assert itf.observation_space.shape == (int(np.prod(box.shape)) + period,)


@settings(max_examples=30, deadline=None)
@given(period=st.integers(2, 9), lengths=st.lists(st.integers(1, 25), min_size=1, max_size=3))
def test_episode_clock_marks_the_step_modulo_its_period_and_restarts_each_episode(period, lengths):
    itf = EpisodeClock(period=period)
    itf.setup(spaces.Box(-2.0, 2.0, (2, 1), np.float32), spaces.Discrete(2))
    observation = np.array([[0.5], [-1.5]], np.float32)
    for length in lengths:  # episodes of several lengths, one after another
        seen = [itf.transform_reset(observation)]
        seen += [itf.transform_observation(observation) for _ in range(length - 1)]
        for step, vector in enumerate(seen):
            assert itf.observation_space.contains(vector)
            assert vector[:2].tolist() == [0.5, -1.5]  # the observation, flattened, comes first
            assert vector[2:].tolist() == np.eye(period)[step % period].tolist()


def test_episode_clock_starts_at_step_zero_without_a_reset_and_refuses_bad_input():
    itf = EpisodeClock(period=2)
    itf.setup(spaces.Box(0, 1, (1,), np.int64), spaces.Discrete(2))
    assert itf.transform_observation(np.array([1])).tolist() == [1.0, 1.0, 0.0]
    assert str(itf) == "EpisodeClock(period=2)"
    for period in (1, 0, 2.0, True, "48"):
        with pytest.raises(ValueError, match=rf"^EpisodeClock: period must be an integer >= 2, got {period!r}"):
            EpisodeClock(period=period)
    with pytest.raises(SpaceMismatchError, match=r"EpisodeClock\(period=48\).*Box.*got Discrete\(3\)"):
        EpisodeClock().setup(spaces.Discrete(3), spaces.Discrete(2))
