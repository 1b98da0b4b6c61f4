"""check_interface: each contract rule, broken on purpose, is reported with a precise message."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from arena import Combine, ContractViolation, Interface, MaskTranslationError, SpaceMismatchError
from arena.testing import check_interface

BOX = spaces.Box(-1.0, 1.0, (2,), np.float32)


class OutOfBounds(Interface):
    """Declares [0, 1] but returns the raw value, which may be negative."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.observation_space = spaces.Box(0.0, 1.0, (2,), np.float32)


class ActionOffByOne(Interface):
    """Adds one to Discrete actions, so the last action leaves the raw space."""

    def action(self, action):
        return int(action) + 1

    def action_mask(self, mask):
        return mask


class ShortMask(Interface):
    """Drops the last mask entry."""

    def action_mask(self, mask):
        return mask[:-1]


class FloatMask(Interface):
    """Returns masks as float64 instead of int8."""

    def action_mask(self, mask):
        return mask.astype(np.float64)


class EmptyMask(Interface):
    """Forbids every action."""

    def action_mask(self, mask):
        return np.zeros_like(mask)


class PermissiveMask(Interface):
    """Allows every action whatever the raw mask says."""

    def action_mask(self, mask):
        return np.ones_like(mask)


class NewSpaceEveryCall(Interface):
    """Builds a fresh observation space object on every access."""

    @property
    def observation_space(self):
        return spaces.Box(-1.0, 1.0, (2,), np.float32)

    @observation_space.setter
    def observation_space(self, space):
        pass


class CountingObservations(Interface):
    """Appends a step counter that is never reset: state leaks between episodes."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.observation_space = spaces.Box(0, 10**6, (1,), np.int64)
        self.count = 0

    def observation(self, observation):
        self.count += 1
        return np.array([self.count], dtype=np.int64)


class CountingAcrossEpisodesOnPurpose(CountingObservations):
    """Same counter, declared as intended state."""

    stateful_across_episodes = True


class AlternatingActions(Interface):
    """Maps actions through a toggle that reset() forgets to clear."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.flip = False

    def action(self, action):
        self.flip = not self.flip
        return 0 if self.flip else int(action)

    def action_mask(self, mask):
        return mask


class ReusedBuffer(Interface):
    """Returns the same array object every step, overwriting it."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.buffer = np.zeros(2, dtype=np.float32)

    def observation(self, observation):
        self.buffer[:] = observation
        return self.buffer


class SometimesMasks(Interface):
    """Translates masks whose first action is legal and refuses the others."""

    def action_mask(self, mask):
        if not mask[0]:
            raise MaskTranslationError(f"{self}: cannot translate {mask}")
        return mask


class SometimesMasksOnPurpose(SometimesMasks):
    partial_mask_translation = True


class JointToComponents(Interface):
    """Joint Discrete(4) model actions over a raw MultiDiscrete([2, 2]), with a sloppy mask."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.action_space = spaces.Discrete(4)

    def action(self, action):
        return np.array(divmod(int(action), 2), dtype=np.int64)

    def action_mask(self, mask):
        return np.ones(4, dtype=np.int8)  # ignores the raw component masks


class ShortMultiDiscreteMask(Interface):
    """Passes MultiDiscrete masks on without their last entry."""

    def action_mask(self, mask):
        return mask[:-1]


class NotASpace(Interface):
    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.observation_space = "a box"


class RejectsDiscrete(Interface):
    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self._require_space(spaces.Box, "observation")


def _message(interface, observation_space, action_space) -> str:
    with pytest.raises(ContractViolation) as caught:
        check_interface(interface, observation_space, action_space, examples=30)
    return str(caught.value)


def test_observation_outside_the_declared_space():
    message = _message(OutOfBounds(), BOX, spaces.Discrete(2))
    assert message.startswith("check_interface(OutOfBounds(), Box(-1.0, 1.0, (2,), float32), Discrete(2)): ")
    assert "is not in Box(0.0, 1.0, (2,), float32)" in message and "from raw" in message


def test_action_not_mapping_into_the_raw_space():
    message = _message(ActionOffByOne(), BOX, spaces.Discrete(3))
    assert "maps to 3, which is not in raw Discrete(3)" in message


def test_mask_of_wrong_length():
    message = _message(ShortMask(), BOX, spaces.Discrete(4))
    assert "action_mask over Discrete(4) must be an array of shape (4,), got ndarray of shape (3,)" in message


def test_mask_of_wrong_dtype():
    assert "must have dtype int8 (the env contract), got float64" in _message(FloatMask(), BOX, spaces.Discrete(3))


def test_mask_that_loses_every_legal_action():
    message = _message(EmptyMask(), BOX, spaces.Discrete(3))
    assert "has legal actions but the translated mask [0 0 0] has none" in message


def test_mask_that_allows_a_forbidden_raw_action():
    message = _message(PermissiveMask(), BOX, spaces.Discrete(3))
    assert "is legal in the translated mask [1 1 1] but maps to raw action" in message and "which raw mask" in message


def test_multi_discrete_masks_are_checked_by_component():
    message = _message(ShortMultiDiscreteMask(), BOX, spaces.MultiDiscrete([2, 3]))
    assert (
        "action_mask over MultiDiscrete([2 3]) must be an array of shape (5,) "
        "(the masks of components [2, 3] concatenated), got ndarray of shape (4,)"
    ) in message
    message = _message(JointToComponents(), BOX, spaces.MultiDiscrete([2, 2]))
    assert "is legal in the translated mask [1 1 1 1] but maps to raw action array(" in message


def test_team_masks_are_checked_per_member():
    team = Combine(None, [Interface(), ShortMask()])
    message = _message(team, spaces.Tuple([BOX, BOX]), spaces.Tuple([spaces.Discrete(2), spaces.Discrete(3)]))
    assert "member 1: action_mask over Discrete(3) must be an array of shape (3,)" in message


def test_space_changed_between_calls():
    message = _message(NewSpaceEveryCall(), BOX, spaces.Discrete(2))
    assert "observation_space changed after setup()" in message
    assert "spaces are computed once in setup()" in message


def test_state_leaking_between_resets_in_observations():
    message = _message(CountingObservations(), BOX, spaces.Discrete(2))
    assert "state leaks between reset()s: the same raw observations gave different results" in message
    assert "set stateful_across_episodes = True if intended" in message
    check_interface(CountingAcrossEpisodesOnPurpose(), BOX, spaces.Discrete(2), examples=10)


def test_state_leaking_between_resets_in_actions():
    message = _message(AlternatingActions(), BOX, spaces.Discrete(3))
    assert "state leaks between reset()s: actions" in message and "after a reset" in message


def test_observation_modified_by_later_calls():
    message = _message(ReusedBuffer(), BOX, spaces.Discrete(2))
    assert "was modified by later calls" in message and "return a fresh array, not an internal buffer" in message


def test_masks_translated_only_sometimes_need_the_partial_flag():
    message = _message(SometimesMasks(), BOX, spaces.Discrete(3))
    assert "translated some masks and raised MaskTranslationError for others" in message
    assert "partial_mask_translation = True" in message
    check_interface(SometimesMasksOnPurpose(), BOX, spaces.Discrete(3), examples=30)


def test_setup_must_give_gymnasium_spaces():
    assert "observation_space after setup() must be a gymnasium Space, got str" in _message(
        NotASpace(), BOX, spaces.Discrete(2)
    )


def test_space_rejections_at_setup_propagate():
    with pytest.raises(
        SpaceMismatchError, match=r"RejectsDiscrete\(\): needs a Box observation space, got Discrete\(3\)"
    ):
        check_interface(RejectsDiscrete(), spaces.Discrete(3), spaces.Discrete(2))


def test_interfaces_keeping_the_contract_pass_on_masked_spaces():
    check_interface(Interface(), BOX, spaces.MultiDiscrete([2, 3]), examples=20)
    check_interface(
        Combine(None, [Interface(), Interface()]),
        spaces.Tuple([BOX, spaces.Discrete(2)]),
        spaces.Tuple([spaces.Discrete(2), spaces.Box(0.0, 1.0, (1,))]),
        examples=20,
    )


class CommitsOnEveryCall(Interface):
    """Repeats the previous action every other call, counting calls rather than turns."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.calls, self.last = 0, None

    def reset(self, observation):
        self.calls, self.last = 0, None

    def action(self, action):
        self.calls += 1
        if self.calls % 2 == 0:
            return self.last
        self.last = action
        return action

    def action_mask(self, mask):
        return mask


def test_turn_that_cannot_be_retried():
    message = _message(CommitsOnEveryCall(), BOX, spaces.Discrete(4))
    assert "a retried turn maps differently" in message
    assert "keep a turn's choice pending until the next observation" in message


class _PermutesButIgnoresMasks(Interface):
    """Reverses actions and never translates masks (the core raises MaskTranslationError)."""

    def action(self, action):
        return self.inner_action_space.n - 1 - action


class _DeclaredMaskless(_PermutesButIgnoresMasks):
    translates_masks = False


class _MaskOfAnotherSpace(Interface):
    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.action_space = spaces.Discrete(action_space.n + 1)

    def action(self, action):
        return min(action, self.inner_action_space.n - 1)

    def action_mask(self, mask):
        return mask  # the raw layout, one entry short


def test_default_check_catches_an_interface_that_transforms_actions_but_ignores_masks():
    with pytest.raises(ContractViolation, match="raises MaskTranslationError for every action mask"):
        check_interface(_PermutesButIgnoresMasks(), spaces.Discrete(3), spaces.Discrete(4))
    check_interface(_DeclaredMaskless(), spaces.Discrete(3), spaces.Discrete(4))
    check_interface(_PermutesButIgnoresMasks(), spaces.Discrete(3), spaces.Discrete(4), require_masks=False)


def test_default_check_catches_a_mask_that_does_not_fit_the_action_space():
    with pytest.raises(ContractViolation, match=r"action_mask over Discrete\(5\) must be an array of shape \(5,\)"):
        check_interface(_MaskOfAnotherSpace(), spaces.Discrete(3), spaces.Discrete(4))
