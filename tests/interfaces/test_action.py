"""Action interfaces: DiscretizeBox, MultiDiscreteToDiscrete, DiscreteToMultiDiscrete, RepeatAction."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import InvalidActionError, MaskTranslationError, SpaceMismatchError
from arena.testing import check_interface
from arena.testing.strategies import box_spaces, discrete_spaces, masks
from interfaces import DiscreteToMultiDiscrete, DiscretizeBox, MultiDiscreteToDiscrete, RepeatAction

OBS = spaces.Discrete(2)
multi_discrete_spaces = st.builds(
    lambda nvec, start: spaces.MultiDiscrete(nvec, start=[start] * len(nvec)),
    st.lists(st.integers(1, 4), min_size=1, max_size=3),
    st.integers(-2, 2),
)


@settings(max_examples=30, deadline=None)
@given(box_spaces(max_dims=2, max_side=2), st.integers(2, 4))
def test_discretize_box_keeps_the_contract_and_hits_the_bounds(box, bins):
    itf = DiscretizeBox(bins=bins)
    check_interface(itf, OBS, box, examples=8)
    n = itf.action_space.n
    assert n == bins ** int(np.prod(box.shape))
    np.testing.assert_array_equal(itf.transform_action(0), box.low)
    np.testing.assert_array_equal(itf.transform_action(n - 1), box.high)


def test_discretize_box_takes_bins_per_element():
    itf = DiscretizeBox(bins=[2, 3])
    itf.setup(OBS, spaces.Box(np.array([0.0, -1.0], np.float32), np.array([1.0, 1.0], np.float32)))
    grid = [itf.transform_action(a).tolist() for a in range(itf.action_space.n)]
    assert grid == [[0.0, -1.0], [0.0, 0.0], [0.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]


@pytest.mark.parametrize(
    "bins, space, message",
    [
        (3, spaces.Discrete(4), r"DiscretizeBox\(bins=3\): needs a Box action space, got Discrete\(4\)"),
        (
            3,
            spaces.Box(-np.inf, np.inf, (2,)),
            r"needs a bounded Box action space with at least one dimension, got Box\(-inf",
        ),
        (
            [2, 2, 2],
            spaces.Box(0.0, 1.0, (2,)),
            r"bins \[2, 2, 2\] do not fit the action shape of Box\(0.0, 1.0, \(2,\)",
        ),
        (1, spaces.Box(0.0, 1.0, (2,)), r"bins must be integers of at least 2, got 1"),
        (100, spaces.Box(0.0, 1.0, (4,)), r"gives 100000000 joint actions, more than 10000000"),
    ],
)
def test_discretize_box_rejects_what_it_cannot_handle(bins, space, message):
    with pytest.raises(SpaceMismatchError, match=message):
        DiscretizeBox(bins=bins).setup(OBS, space)


@settings(max_examples=30, deadline=None)
@given(multi_discrete_spaces)
def test_multi_discrete_to_discrete_keeps_the_contract_and_enumerates_every_combination(space):
    itf = MultiDiscreteToDiscrete()
    check_interface(itf, OBS, space, examples=8)
    decoded = {tuple(itf.transform_action(a).tolist()) for a in range(itf.action_space.n)}
    expected = set(itertools.product(*(range(s, s + n) for s, n in zip(space.start, space.nvec))))
    assert decoded == expected


@settings(max_examples=30, deadline=None)
@given(multi_discrete_spaces, st.data())
def test_multi_discrete_to_discrete_masks_are_exact(space, data):
    itf = MultiDiscreteToDiscrete()
    itf.setup(OBS, space)
    raw = np.concatenate([data.draw(masks(int(n))) for n in space.nvec])
    joint = itf.transform_action_mask(raw)
    offsets = np.concatenate(([0], np.cumsum(space.nvec)[:-1]))
    for a in range(itf.action_space.n):
        components = itf.transform_action(a) - space.start
        assert joint[a] == int(raw[offsets + components].all())


def test_multi_discrete_to_discrete_rejects_other_spaces():
    with pytest.raises(
        SpaceMismatchError,
        match=r"MultiDiscreteToDiscrete\(\): needs a MultiDiscrete action space, "
        r"got Discrete\(3\)",
    ):
        MultiDiscreteToDiscrete().setup(OBS, spaces.Discrete(3))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3), st.integers(-2, 2))
def test_discrete_to_multi_discrete_keeps_the_contract_and_round_trips(nvec, start):
    n = int(np.prod(nvec))
    raw = spaces.Discrete(n, start=start)
    itf = DiscreteToMultiDiscrete(nvec=nvec)
    check_interface(itf, OBS, raw, examples=8)
    back = MultiDiscreteToDiscrete(DiscreteToMultiDiscrete(nvec=nvec))
    back.setup(OBS, raw)
    assert [back.transform_action(a) for a in range(n)] == list(range(start, start + n))


def test_discrete_to_multi_discrete_translates_product_masks_and_refuses_others():
    itf = DiscreteToMultiDiscrete(nvec=[3, 3])
    itf.setup(OBS, spaces.Discrete(9))
    rows_1_2_cols_0_1 = np.array([0, 0, 0, 1, 1, 0, 1, 1, 0], dtype=np.int8)
    assert itf.transform_action_mask(rows_1_2_cols_0_1).tolist() == [0, 1, 1, 1, 1, 0]
    diagonal = np.eye(3, dtype=np.int8).reshape(-1)
    with pytest.raises(
        MaskTranslationError,
        match=r"the legal raw actions \[0, 4, 8\] are not a product of "
        r"per-component sets, so no MultiDiscrete\[3, 3\] mask",
    ):
        itf.transform_action_mask(diagonal)


def test_discrete_to_multi_discrete_rejects_mismatched_nvec():
    with pytest.raises(
        SpaceMismatchError,
        match=r"DiscreteToMultiDiscrete\(nvec=\[2, 2\]\): nvec must be a list of "
        r"positive integers whose product is the number of raw actions of "
        r"Discrete\(9\) \(9\), got \[2, 2\]",
    ):
        DiscreteToMultiDiscrete(nvec=[2, 2]).setup(OBS, spaces.Discrete(9))
    with pytest.raises(SpaceMismatchError, match=r"needs a Discrete action space, got MultiDiscrete"):
        DiscreteToMultiDiscrete(nvec=[2]).setup(OBS, spaces.MultiDiscrete([2]))


@settings(max_examples=30, deadline=None)
@given(st.one_of(discrete_spaces(), multi_discrete_spaces, box_spaces(max_dims=1)), st.integers(1, 4))
def test_repeat_action_keeps_the_contract(space, repeat):
    check_interface(RepeatAction(repeat=repeat), OBS, space, examples=8)


def test_repeat_action_repeats_until_the_mask_forbids_it():
    itf = RepeatAction(repeat=3)
    itf.setup(OBS, spaces.Discrete(4))

    def turn(model_action, mask=None, first=False):
        if mask is not None:
            itf.transform_action_mask(np.array(mask, dtype=np.int8))
        itf.transform_reset(0) if first else itf.transform_observation(0)
        return itf.transform_action(model_action)

    assert turn(2, first=True) == 2
    assert turn(0, mask=[1, 1, 1, 1]) == 2  # repeated: the model's 0 is ignored
    assert turn(3, mask=[1, 1, 0, 1]) == 3  # 2 became illegal: the model decides again
    assert [turn(1), turn(1), turn(1)] == [3, 3, 1]  # the fresh decision repeats in its turn
    assert turn(0, first=True) == 0  # every episode starts with a decision


def test_repeat_action_lets_a_rejected_step_be_retried():
    itf = RepeatAction(repeat=2)
    itf.setup(OBS, spaces.Discrete(4))
    itf.transform_reset(0)
    assert itf.transform_action(1) == 1  # the env rejects this step ...
    assert itf.transform_action(2) == 2  # ... and the retry is still this turn's decision
    itf.transform_observation(0)
    assert itf.transform_action(0) == 2
    with pytest.raises(InvalidActionError, match=r"RepeatAction\(repeat=2\): action 'x' is not in Discrete\(4\)"):
        itf.transform_action("x")  # rejected even on a repeating turn


def test_repeat_action_rejects_bad_counts():
    with pytest.raises(ValueError, match="RepeatAction: repeat must be a positive integer, got 0"):
        RepeatAction(repeat=0)


def test_multi_discrete_masks_may_also_come_as_gymnasium_tuples():
    space = spaces.MultiDiscrete([2, 3])
    itf = MultiDiscreteToDiscrete()
    itf.setup(OBS, space)
    flat = np.array([1, 0, 0, 1, 1], dtype=np.int8)
    parts = (np.array([1, 0], dtype=np.int8), np.array([0, 1, 1], dtype=np.int8))
    np.testing.assert_array_equal(itf.transform_action_mask(parts), itf.transform_action_mask(flat))
    sampler = spaces.MultiDiscrete([2, 3], seed=0)
    assert all(parts[0][a] and parts[1][b] for a, b in (sampler.sample(mask=parts) for _ in range(20)))
