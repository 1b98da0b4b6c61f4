"""PommermanBatch calls numba's compiled step without its dispatch: actions of any integer type play the same."""

from __future__ import annotations

import numpy as np
import pytest

from envs.pommerman._jit import HAVE_NUMBA
from envs.pommerman.batch import PommermanBatch


def _unaligned(actions: np.ndarray) -> np.ndarray:
    """``actions`` copied into int64 memory that starts one byte past an aligned address."""
    memory = np.zeros(actions.size * 8 + 1, np.uint8)[1:].view(np.int64).reshape(actions.shape)
    memory[...] = actions
    return memory


def _read_only(actions: np.ndarray) -> np.ndarray:
    actions = actions.copy()
    actions.flags.writeable = False
    return actions


_FORMS = (
    lambda a: a.astype(np.int32),
    _read_only,
    _unaligned,
    lambda a: np.asfortranarray(a),
    lambda a: a.astype(np.uint8),
    lambda a: np.repeat(a, 2, axis=0)[::2],  # strided
    lambda a: a.tolist(),
)


@pytest.mark.parametrize("mode", ["ffa", "radio"])
def test_actions_of_any_integer_type_and_layout_play_as_int64_ones(mode):
    """After its first call a batch calls the overload numba chose directly (none of numba's typing of
    its arguments a step), so every other form of actions must be made into that one type first."""
    rng = np.random.default_rng(7)
    shape = (3, 4, 3) if mode == "radio" else (3, 4)
    plays = rng.integers(0, 6, (60, *shape))
    if mode == "radio":
        plays[..., 1:] = rng.integers(0, 8, (60, 3, 4, 2))
    reference, batch = PommermanBatch(3, mode, max_steps=25), PommermanBatch(3, mode, max_steps=25)
    reference.reset(seed=11)
    batch.reset(seed=11)
    for step, actions in enumerate(plays):
        expected = reference.step(np.ascontiguousarray(actions, np.int64))
        got = batch.step(_FORMS[step % len(_FORMS)](actions))
        for want, have in zip(expected[:4], got[:4]):
            np.testing.assert_array_equal(have, want)
        assert expected[4].keys() == got[4].keys()
        for key, value in expected[4].items():
            np.testing.assert_array_equal(got[4][key], value)
    if HAVE_NUMBA:  # the dispatcher was left after the first step
        assert batch._call is not batch._run
