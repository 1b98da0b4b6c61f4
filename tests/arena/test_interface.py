"""Interface stacking, Combine, and the mask-translation rule."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import ArenaError, Combine, Interface, MaskTranslationError, SpaceMismatchError
from arena.testing import check_interface
from arena.testing.strategies import discrete_spaces, masks, values
from arena.testing.strategies import spaces as any_space


class AddOne(Interface):
    """Adds one to Box observations (a space-changing observation interface)."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        self.observation_space = spaces.Box(box.low + 1, box.high + 1, box.shape, box.dtype)

    def observation(self, observation):
        return (observation + 1).astype(self.observation_space.dtype)


class Reverse(Interface):
    """Reverses the order of Discrete actions and translates masks."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self._n = self._require_space(spaces.Discrete, "action").n
        self._start = int(self.inner_action_space.start)

    def action(self, action):
        return self._start + self._n - 1 - (int(action) - self._start)

    def action_mask(self, mask):
        return mask[::-1].copy()


class ReverseWithoutMasks(Reverse):
    action_mask = Interface.action_mask


class Counter(Interface):
    """Counts observations since reset (state that a reset must clear)."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.observation_space = spaces.Discrete(1000)

    def reset(self, observation):
        self.count = 0

    def observation(self, observation):
        self.count += 1
        return self.count


class Leaky(Counter):
    def reset(self, observation):
        pass

    def observation(self, observation):
        self.count = getattr(self, "count", 0) + 1
        return self.count


BOX = spaces.Box(0.0, 1.0, (2,), np.float32)


def test_stack_order_str_and_unwrapped():
    itf = AddOne(AddOne())
    itf.setup(BOX, spaces.Discrete(3))
    assert itf.transform_observation(np.zeros(2, np.float32)).tolist() == [2.0, 2.0]
    assert itf.observation_space.low.tolist() == [2.0, 2.0]
    assert str(Reverse(AddOne())) == "Reverse(AddOne())"
    assert itf.unwrapped is itf.inner and itf.raw_observation_space is BOX
    assert itf.levels() == [itf.inner, itf]


def test_actions_go_outermost_first_and_masks_innermost_first():
    calls = []

    class Tag(Interface):
        def __init__(self, inner, name):
            super().__init__(inner)
            self.name = name

        def action(self, action):
            calls.append(self.name)
            return action

        def action_mask(self, mask):
            calls.append("mask:" + self.name)
            return mask

    itf = Tag(Tag(None, "inner"), "outer")
    itf.setup(BOX, spaces.Discrete(3))
    itf.transform_action(1)
    itf.transform_action_mask(np.ones(3, np.int8))
    assert calls == ["outer", "inner", "mask:inner", "mask:outer"]


def test_spaces_are_computed_once():
    itf = AddOne()
    itf.setup(BOX, spaces.Discrete(3))
    assert itf.observation_space is itf.observation_space
    assert itf.action_space is itf.inner_action_space


def test_unset_interface_says_setup_is_missing():
    with pytest.raises(ArenaError, match=r"AddOne\(\): setup\(observation_space, action_space\) has not been called"):
        AddOne().transform_observation(0)


def test_wrong_space_is_rejected_at_setup_naming_interface_and_space():
    with pytest.raises(SpaceMismatchError, match=r"AddOne\(\): needs a Box observation space, got Discrete\(4\)"):
        AddOne().setup(spaces.Discrete(4), spaces.Discrete(2))
    with pytest.raises(TypeError, match="setup\\(\\) expects gymnasium spaces, got int for observation_space"):
        AddOne().setup(3, spaces.Discrete(2))
    with pytest.raises(TypeError, match="inner must be an arena.Interface or None, got str"):
        AddOne("Flatten")


def test_masks_are_translated_or_refused():
    itf = Reverse()
    itf.setup(BOX, spaces.Discrete(3))
    assert itf.transform_action_mask(np.array([1, 0, 0], np.int8)).tolist() == [0, 0, 1]
    bad = ReverseWithoutMasks()
    bad.setup(BOX, spaces.Discrete(3))
    assert bad.transform_action(0) == 2
    with pytest.raises(
        MaskTranslationError, match=r"ReverseWithoutMasks\(\): changes the action space .* override action_mask\(\)"
    ):
        bad.transform_action_mask(np.array([1, 0, 0], np.int8))


def test_reset_clears_state_and_checker_catches_a_leak():
    check_interface(Counter(), spaces.Discrete(3), spaces.Discrete(2))
    with pytest.raises(AssertionError, match="state leaks between reset"):
        check_interface(Leaky(), spaces.Discrete(3), spaces.Discrete(2))


def test_checker_reports_observation_outside_space():
    class Liar(AddOne):
        def observation(self, observation):
            return observation + 5

    with pytest.raises(AssertionError, match="is not in Box"):
        check_interface(Liar(), BOX, spaces.Discrete(2), examples=10)


def test_combine_applies_members_side_by_side():
    team = Combine(None, [AddOne(), Reverse()])
    obs_space = spaces.Tuple([BOX, BOX])
    act_space = spaces.Tuple([spaces.Discrete(3), spaces.Discrete(4)])
    team.setup(obs_space, act_space)
    first = team.transform_reset((np.zeros(2, np.float32), np.ones(2, np.float32)))
    assert first[0].tolist() == [1.0, 1.0] and first[1].tolist() == [1.0, 1.0]
    assert team.transform_action((0, 0)) == (0, 3)
    masks_out = team.transform_action_mask((np.array([1, 1, 0], np.int8), np.array([1, 0, 0, 0], np.int8)))
    assert masks_out[1].tolist() == [0, 0, 0, 1]
    assert team.transform_observation((None, np.zeros(2, np.float32)))[0] is None
    assert str(team) == "Combine(None, [AddOne(), Reverse()])"
    check_interface(Combine(None, [AddOne(), Reverse()]), obs_space, act_space, examples=20)


def test_combine_rejects_mismatched_spaces():
    with pytest.raises(SpaceMismatchError, match="needs a Tuple observation space, got Box"):
        Combine(None, [AddOne()]).setup(BOX, spaces.Discrete(2))
    with pytest.raises(SpaceMismatchError, match="has 2 member interfaces but the spaces have 1 observation"):
        Combine(None, [None, None]).setup(spaces.Tuple([BOX]), spaces.Tuple([spaces.Discrete(2)]))


@settings(max_examples=40, deadline=None)
@given(any_space(), any_space())
def test_identity_stack_keeps_every_space(observation_space, action_space):
    itf = Interface(Interface(Interface()))
    itf.setup(observation_space, action_space)
    assert itf.observation_space is observation_space and itf.action_space is action_space
    check_interface(itf, observation_space, action_space, examples=5)


@settings(max_examples=40, deadline=None)
@given(discrete_spaces(), st.data())
def test_reverse_round_trips_actions_and_keeps_masks_consistent(space, data):
    itf = Reverse(Reverse(Reverse()))
    itf.setup(BOX, space)
    action = data.draw(values(space))
    twice = Reverse(Reverse())
    twice.setup(BOX, space)
    assert twice.transform_action(action) == action  # reversing twice is the identity
    mask = data.draw(masks(space.n))
    translated = itf.transform_action_mask(mask)
    for model_action in np.flatnonzero(translated):
        raw = itf.transform_action(int(space.start) + int(model_action))
        assert mask[raw - int(space.start)] == 1


@settings(max_examples=30, deadline=None)
@given(
    st.builds(
        lambda shape: spaces.Box(-3.0, 3.0, shape, np.float32), st.lists(st.integers(1, 3), min_size=1, max_size=3)
    ),
    st.data(),
)
def test_transformed_observations_lie_in_the_declared_space(box, data):
    itf = AddOne(AddOne())
    itf.setup(box, spaces.Discrete(2))
    observation = data.draw(values(box))
    assert itf.observation_space.contains(itf.transform_reset(observation))


class KeepEverything(Interface):
    """Overrides hooks with ones that return their argument unchanged."""

    def observation(self, observation):
        """Nothing to change."""
        return observation

    def action(self, action):
        return action

    def action_mask(self, mask):
        return mask

    def reward(self, reward):
        return reward


def test_the_compiled_stack_holds_each_channels_overridden_hooks_in_running_order():
    stack = AddOne(KeepEverything(Reverse()))
    stack.setup(BOX, spaces.Discrete(3))
    outer, middle, inner = stack.levels()[::-1]
    compiled = stack.compiled()
    assert compiled._fields == ("observation", "action", "reward", "action_mask", "reset", "done")
    # A level runs every hook its class overrides (one returning its argument too); no bytecode is read.
    assert compiled.observation == ((middle, middle.observation), (outer, outer.observation))
    assert compiled.action[1:] == ((middle, middle.action), (inner, inner.action))  # outermost first, after the check
    assert compiled.reward == ((middle, middle.reward),) and compiled.reset is None and compiled.done is None
    assert compiled.action_mask == ((inner, inner.action_mask), (middle, middle.action_mask))
    assert stack.transform_action(0) == 2  # Reverse runs
    narrowed = KeepEverything()  # the outermost level that maps actions checks them against its space
    narrowed.setup(BOX, spaces.Discrete(5))
    narrowed.action_space = spaces.Discrete(3)
    with pytest.raises(ArenaError, match=r"action 4 is not in Discrete\(3\)"):
        narrowed.transform_action(4)


def test_a_hook_raising_in_the_stack_is_blamed_on_its_level_and_a_breakpoint_lands_in_the_hook():
    from arena.stack import failing_level

    calls = []

    class Fails(Interface):
        def observation(self, observation):
            calls.append(sys._getframe(1).f_code.co_name)  # who called the hook
            raise ValueError("no")

    stack = AddOne(Fails(AddOne()))
    stack.setup(BOX, spaces.Discrete(3))
    with pytest.raises(ValueError) as caught:
        stack.transform_observation(np.zeros(2, np.float32))
    assert failing_level(caught.value) is stack.inner
    assert calls == ["run_hooks"]  # one plain loop calls the hooks, no generated closure


def test_an_action_without_its_mask_refuses_masks():
    class Shift(Interface):
        def action(self, action):
            return action + 1

    class Narrow(Interface):  # changes the action space, keeps the base action_mask
        def setup(self, observation_space, action_space):
            super().setup(observation_space, action_space)
            self.action_space = spaces.Discrete(2)

    for level in (Shift(), Narrow()):
        level.setup(BOX, spaces.Discrete(3))
        name = type(level).__name__
        with pytest.raises(MaskTranslationError, match=rf"{name}\(\): .* override action_mask\(\)"):
            level.action_mask(np.ones(3, np.int8))  # the base action_mask itself refuses
        with pytest.raises(MaskTranslationError, match=rf"{name}\(\): .* override action_mask\(\)"):
            level.transform_action_mask(np.ones(3, np.int8))
    assert Shift.action_mask is Interface.action_mask  # the class is left as written
    keep = Interface()
    keep.setup(BOX, spaces.Discrete(3))
    assert keep.action_mask([1, 0, 1]) == [1, 0, 1]  # a level keeping the actions keeps masks
