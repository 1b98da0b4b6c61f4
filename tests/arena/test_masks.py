"""arena.masks: one reading of action masks for the interfaces and the interface checker."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

import arena.testing.interface_checker as checker
import interfaces.action
from arena.masks import flat_mask, mask_allows, mask_length, mask_segments


def test_layouts_of_every_kind_of_action_space():
    assert mask_segments(spaces.Discrete(4, start=2)) == [4] and mask_length(spaces.Discrete(4)) == 4
    assert mask_segments(spaces.MultiDiscrete([[2, 3], [4, 1]])) == [2, 3, 4, 1]
    assert mask_segments(spaces.MultiDiscrete([])) is None and mask_length(spaces.Box(0, 1, (2,))) is None
    assert flat_mask((np.array([1, 0]), [0, 1, 1])).tolist() == [1, 0, 0, 1, 1]


def test_what_a_mask_allows_with_starts_tuples_and_members_without_masks():
    shifted = spaces.Discrete(3, start=-1)
    assert mask_allows(shifted, np.array([0, 1, 0], dtype=np.int8), 0)
    assert not mask_allows(shifted, np.array([0, 1, 0], dtype=np.int8), -1)
    multi = spaces.MultiDiscrete([2, 3], start=[1, 0])
    mask = np.array([0, 1, 1, 0, 0], dtype=np.int8)
    assert mask_allows(multi, mask, np.array([2, 0])) and not mask_allows(multi, mask, np.array([1, 0]))
    assert mask_allows(multi, (np.array([0, 1]), np.array([1, 0, 0])), np.array([2, 0]))  # gymnasium's tuple form
    team = spaces.Tuple([spaces.Discrete(2), spaces.Box(0, 1, (1,))])
    assert mask_allows(team, (np.array([1, 0], dtype=np.int8), None), (0, np.zeros(1)))
    assert not mask_allows(team, (np.array([1, 0], dtype=np.int8), None), (1, np.zeros(1)))
    assert mask_allows(team, None, (1, np.zeros(1)))


def test_the_checker_and_the_interfaces_read_masks_with_the_same_function():
    assert checker.mask_allows is mask_allows is interfaces.action.mask_allows
