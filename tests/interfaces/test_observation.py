"""Observation interfaces: Flatten, OneHot, ClipObservation, CastObservation, ActionMaskInObservation."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import SpaceMismatchError
from arena.testing import check_interface
from arena.testing.strategies import box_spaces, discrete_spaces, values
from arena.testing.strategies import spaces as any_space
from interfaces import ActionMaskInObservation, CastObservation, ClipObservation, Flatten, OneHot

multi_discrete_spaces = st.builds(spaces.MultiDiscrete, st.lists(st.integers(1, 5), min_size=1, max_size=4))
maskable_action_spaces = st.one_of(discrete_spaces(), multi_discrete_spaces)


@settings(max_examples=40, deadline=None)
@given(any_space(), st.data())
def test_flatten_matches_gymnasium_layout_and_keeps_the_contract(space, data):
    itf = Flatten()
    check_interface(itf, space, spaces.Discrete(2), examples=5)
    value = data.draw(values(space))
    expected = spaces.flatten(space, value)
    got = itf.transform_observation(value)
    assert got.dtype == np.float32 and got.shape == itf.observation_space.shape == expected.shape
    np.testing.assert_allclose(got, expected.astype(np.float32))


def test_flatten_keeps_a_requested_dtype():
    itf = Flatten(dtype=np.int64)
    itf.setup(spaces.Tuple([spaces.Discrete(3), spaces.MultiBinary(2)]), spaces.Discrete(2))
    assert itf.observation_space == spaces.Box(0, 1, (5,), np.int64)
    assert itf.transform_observation((2, np.array([1, 0], dtype=np.int8))).tolist() == [0, 0, 1, 1, 0]


@pytest.mark.parametrize(
    "space, kind",
    [
        (spaces.Text(5), "Text"),
        (spaces.Sequence(spaces.Discrete(2)), "Sequence"),
        (spaces.Dict({"ok": spaces.Discrete(2), "bad": spaces.Text(3)}), "Text"),
    ],
)
def test_flatten_rejects_spaces_without_a_vector_form(space, kind):
    with pytest.raises(SpaceMismatchError) as caught:
        Flatten().setup(space, spaces.Discrete(2))
    message = str(caught.value)
    assert message.startswith(f"Flatten(): cannot flatten {space}: {kind} spaces have no fixed-size vector form")


@settings(max_examples=30, deadline=None)
@given(st.one_of(discrete_spaces(), multi_discrete_spaces))
def test_one_hot_keeps_the_contract_and_lights_one_entry_per_component(space):
    itf = OneHot()
    check_interface(itf, space, spaces.Discrete(2), examples=8)
    sampler = space
    sampler.seed(0)
    value = sampler.sample()
    encoded = itf.transform_observation(value)
    if isinstance(space, spaces.Discrete):
        assert encoded.sum() == 1 and encoded[int(value) - int(space.start)] == 1
    else:
        assert encoded.shape == (*space.nvec.shape, int(space.nvec.max()))
        assert (encoded.sum(axis=-1) == 1).all()
        assert (encoded.argmax(axis=-1) == value - space.start).all()


def test_one_hot_rejects_other_spaces():
    with pytest.raises(
        SpaceMismatchError,
        match=r"OneHot\(\): needs a Discrete or MultiDiscrete observation space, "
        r"got Box\(0.0, 1.0, \(2,\), float32\)",
    ):
        OneHot().setup(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(2))


@settings(max_examples=30, deadline=None)
@given(box_spaces(), st.floats(-6, 3), st.floats(0, 6))
def test_clip_observation_keeps_the_contract(box, low, width):
    high = low + width
    integer = np.issubdtype(box.dtype, np.integer)
    lo, hi = (np.ceil(low), np.floor(high)) if integer else (low, high)
    # In float64, as ClipObservation judges it (float32 would round a tiny bound onto the box edge).
    overlaps = max(lo, float(box.low.max())) <= min(hi, float(box.high.min()))
    itf = ClipObservation(low=low, high=high)
    if not overlaps:
        with pytest.raises(SpaceMismatchError, match="does not overlap"):
            itf.setup(box, spaces.Discrete(2))
        return
    check_interface(itf, box, spaces.Discrete(2), examples=8)
    assert itf.observation_space.low.min() >= np.floor(low) and itf.observation_space.high.max() <= np.ceil(high)


def test_clip_observation_rejects_bad_spaces_and_bounds():
    with pytest.raises(
        SpaceMismatchError,
        match=r"ClipObservation\(low=-1, high=1\): needs a Box observation space, "
        r"got Discrete\(3\)",
    ):
        ClipObservation(low=-1, high=1).setup(spaces.Discrete(3), spaces.Discrete(2))
    with pytest.raises(SpaceMismatchError, match=r"do not broadcast to the observation shape of Box\(0.0, 1.0, \(2,\)"):
        ClipObservation(low=[0, 0, 0], high=1).setup(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(2))
    with pytest.raises(SpaceMismatchError, match=r"the range \[5, 6\] does not overlap Box\(0.0, 1.0"):
        ClipObservation(low=5, high=6).setup(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(2))


@settings(max_examples=30, deadline=None)
@given(box_spaces(), st.sampled_from([np.float32, np.float64, np.int8, np.int32, np.uint8]))
def test_cast_observation_keeps_the_contract(box, dtype):
    itf = CastObservation(dtype=dtype)
    if np.dtype(dtype) == np.uint8 and box.low.min() < 0:
        with pytest.raises(SpaceMismatchError, match=r"uint8 cannot hold the range of Box"):
            itf.setup(box, spaces.Discrete(2))
        return
    check_interface(itf, box, spaces.Discrete(2), examples=8)
    assert itf.observation_space.dtype == np.dtype(dtype)


def test_cast_observation_rounds_floats_to_integers_and_rejects_unbounded_boxes():
    itf = CastObservation(dtype=np.int16)
    itf.setup(spaces.Box(-2.0, 2.0, (3,)), spaces.Discrete(2))
    assert itf.transform_observation(np.array([-1.6, 0.4, 1.5], dtype=np.float32)).tolist() == [-2, 0, 2]
    with pytest.raises(
        SpaceMismatchError,
        match=r"CastObservation\(dtype=int8\): int8 cannot hold the range of "
        r"Box\(-inf, inf, \(2,\), float32\)",
    ):
        CastObservation(dtype=np.int8).setup(spaces.Box(-np.inf, np.inf, (2,)), spaces.Discrete(2))


@settings(max_examples=40, deadline=None)
@given(any_space(max_depth=1), maskable_action_spaces)
def test_action_mask_in_observation_keeps_the_contract(observation_space, action_space):
    check_interface(ActionMaskInObservation(), observation_space, action_space, examples=8)


def test_action_mask_in_observation_shows_the_turns_mask_once():
    itf = ActionMaskInObservation()
    itf.setup(spaces.Discrete(4), spaces.Discrete(3))
    assert itf.observation_space == spaces.Dict(
        {"observation": spaces.Discrete(4), "action_mask": spaces.Box(0, 1, (3,), np.int8)}
    )
    itf.transform_action_mask(np.array([0, 1, 0], dtype=np.int8))
    first = itf.transform_reset(2)
    assert first["observation"] == 2 and first["action_mask"].tolist() == [0, 1, 0]
    second = itf.transform_observation(3)  # no mask arrived this turn: all legal, not the stale one
    assert second["action_mask"].tolist() == [1, 1, 1] and second["action_mask"].dtype == np.int8


def test_action_mask_in_observation_takes_multi_discrete_masks():
    itf = ActionMaskInObservation()
    itf.setup(spaces.Discrete(2), spaces.MultiDiscrete([2, 3]))
    itf.transform_action_mask(np.array([1, 0, 0, 1, 1], dtype=np.int8))
    assert itf.transform_reset(0)["action_mask"].tolist() == [1, 0, 0, 1, 1]
    with pytest.raises(
        SpaceMismatchError,
        match=r"expected a mask of shape \(5,\) for MultiDiscrete\(\[2 3\]\), "
        r"got shape \(3,\)",
    ):
        itf.transform_action_mask(np.ones(3, dtype=np.int8))


def test_action_mask_in_observation_rejects_actions_without_masks():
    with pytest.raises(
        SpaceMismatchError,
        match=r"ActionMaskInObservation\(\): needs a Discrete or MultiDiscrete "
        r"action space, got Box\(-1.0, 1.0, \(2,\), float32\)",
    ):
        ActionMaskInObservation().setup(spaces.Discrete(2), spaces.Box(-1.0, 1.0, (2,)))
