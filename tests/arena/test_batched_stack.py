# No `from __future__ import annotations`: the plugin-style levels here are written as a user writes them.
"""The batched stack equals the per-game stack, game by game (arena.batched_stack)."""

import copy
import random
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import Interface
from arena.batched_stack import BatchedStack, split_rows, stack_rows
from arena.errors import ArenaError, MaskTranslationError
from arena.plugins import interface_registry
from arena.testing.interface_checker import _maskable, _random_mask, _sample
from interfaces import ClipReward, EpisodeClock, FrameStack, PotentialShaping, ScaleReward


# ---------------------------------------------------------------- plugin-style levels, per game only
class HalfReward(Interface):
    def reward(self, reward):
        return 0.5 * reward


class Negate(Interface):
    def observation(self, observation):
        return -observation

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self.inner_observation_space
        self.observation_space = spaces.Box(-box.high, -box.low, box.shape, box.dtype)


class SumShaping(Interface):
    """Shaping that reads the observation: pays the change of the observation's sum."""

    def reset(self, observation):
        self.previous, self.bonus = None, 0.0

    def observation(self, observation):
        total = float(np.sum(np.asarray(observation, dtype=np.float64)))
        if self.previous is not None:
            self.bonus += total - self.previous
        self.previous = total
        return observation

    def reward(self, reward):
        reward, self.bonus = reward + self.bonus, 0.0
        return reward

    def done(self, reward, *, terminated, truncated):
        reward = self.reward(reward)
        self.previous = None
        return reward


# ------------------------------------------------------------ the same levels in array form only
class HalfRewardArrays(Interface):
    def reward_batch(self, rewards):
        return 0.5 * rewards


class SumShapingArrays(Interface):
    """:class:`SumShaping` written once, over a batch: its state is one row per slot."""

    def reset_batch(self, observations, starting):
        size = len(starting)
        if getattr(self, "previous", None) is None or len(self.previous) != size:
            self.previous, self.bonus = np.full(size, np.nan), np.zeros(size)
        self.previous[starting] = np.nan
        self.bonus[starting] = 0.0

    def observation_batch(self, observations):
        totals = np.asarray(observations, dtype=np.float64).reshape(len(observations), -1).sum(axis=1)
        self.bonus += np.where(np.isnan(self.previous), 0.0, totals - self.previous)
        self.previous = totals
        return observations

    def reward_batch(self, rewards):
        rewards, self.bonus = rewards + self.bonus, np.zeros_like(self.bonus)
        return rewards

    def done_batch(self, rewards, *, terminated, truncated):
        rewards = self.reward_batch(rewards)
        self.previous[terminated | truncated] = np.nan
        return rewards


# ------------------------------------------------------------------------------ the harness
def assert_same(batched: Any, per_game: Any) -> None:
    """Nested arrays, dicts and tuples equal, value and shape."""
    if isinstance(per_game, dict):
        assert set(batched) == set(per_game)
        for key in per_game:
            assert_same(batched[key], per_game[key])
    elif isinstance(per_game, tuple):
        assert len(batched) == len(per_game)
        for mine, theirs in zip(batched, per_game):
            assert_same(mine, theirs)
    else:
        np.testing.assert_array_equal(np.asarray(batched), np.asarray(per_game))


def run_both(itf: Interface, batch_size: int, seed: int, steps: int = 4) -> None:
    """Drive ``batch_size`` per-game copies of the set-up ``itf`` and one BatchedStack with the
    same generated observations, masks, actions, rewards and episode ends; compare every slot."""
    rng = random.Random(seed)
    games = [copy.deepcopy(itf) for _ in range(batch_size)]
    batched = BatchedStack(copy.deepcopy(itf), batch_size)
    raw_obs_space, raw_act_space = itf.raw_observation_space, itf.raw_action_space
    masks = _maskable(raw_act_space) and not isinstance(raw_act_space, spaces.Tuple)
    starting = np.ones(batch_size, dtype=bool)
    for _ in range(steps):
        raw = [_sample(raw_obs_space, rng) for _ in range(batch_size)]
        wanted = [g.transform_reset(o) if s else g.transform_observation(o) for g, o, s in zip(games, raw, starting)]
        got = split_rows(batched.observation(stack_rows(raw), starting))
        for mine, theirs in zip(got, wanted):
            assert_same(mine, theirs)
            assert itf.observation_space.contains(mine)
        if masks:
            raw_masks = [_random_mask(raw_act_space, rng) for _ in range(batch_size)]
            try:
                wanted_masks = [g.transform_action_mask(m) for g, m in zip(games, raw_masks)]
            except MaskTranslationError:
                with pytest.raises(MaskTranslationError):
                    batched.action_mask(stack_rows(raw_masks))
            else:
                assert_same(batched.action_mask(stack_rows(raw_masks)), stack_rows(wanted_masks))
        actions = [_sample(itf.action_space, rng) for _ in range(batch_size)]
        assert_same(
            batched.action(stack_rows(actions)), stack_rows([g.transform_action(a) for g, a in zip(games, actions)])
        )
        rewards = np.array([rng.uniform(-1.0, 1.0) for _ in range(batch_size)])
        terminated = np.array([rng.random() < 0.2 for _ in range(batch_size)])
        truncated = np.array([rng.random() < 0.1 for _ in range(batch_size)])
        wanted_rewards = [
            g.transform_done(r, terminated=bool(te), truncated=bool(tr)) if te or tr else g.transform_reward(r)
            for g, r, te, tr in zip(games, rewards, terminated, truncated)
        ]
        np.testing.assert_array_equal(
            batched.reward(rewards, terminated, truncated), np.asarray(wanted_rewards, dtype=float)
        )
        starting = terminated | truncated


def shipped_examples() -> list[Any]:
    """Every registered interface's contract examples (instance, raw spaces), with an id."""
    found = []
    for entry in interface_registry():
        for index, (itf, obs_space, act_space) in enumerate(entry.interface.contract_examples() or []):
            found.append(pytest.param(itf, obs_space, act_space, id=f"{entry.name}-{index}"))
    return found


# ---------------------------------------------------------------------------------- the tests
@pytest.mark.parametrize(("itf", "obs_space", "act_space"), shipped_examples())
@settings(max_examples=3, deadline=None)
@given(batch_size=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_batched_stack_equals_per_game_stacks_for_shipped_interfaces(itf, obs_space, act_space, batch_size, seed):
    itf = copy.deepcopy(itf)
    itf.setup(obs_space, act_space)
    run_both(itf, batch_size, seed)


def plugin_stacks() -> list[Any]:
    box = spaces.Box(-1.0, 1.0, (3,), np.float32)
    return [
        (HalfReward(), box, spaces.Discrete(3)),
        (SumShaping(Negate()), box, spaces.Discrete(3)),
        (HalfReward(SumShaping(FrameStack(Negate(), frames=2))), box, spaces.Discrete(3)),
        (ScaleReward(SumShapingArrays(HalfRewardArrays(FrameStack(frames=3))), factor=2.0), box, spaces.Discrete(3)),
        (SumShaping(SumShapingArrays()), box, spaces.Discrete(2)),
    ]


@pytest.mark.parametrize(("itf", "obs_space", "act_space"), plugin_stacks(), ids=str)
@settings(max_examples=5, deadline=None)
@given(batch_size=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_batched_stack_equals_per_game_stacks_for_plugin_levels(itf, obs_space, act_space, batch_size, seed):
    itf = copy.deepcopy(itf)
    itf.setup(obs_space, act_space)
    run_both(itf, batch_size, seed, steps=6)


@settings(max_examples=5, deadline=None)
@given(steps=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_a_level_in_array_form_gives_the_per_game_form_results(steps, seed):
    box = spaces.Box(-1.0, 1.0, (3,), np.float32)
    per_game, arrays = HalfReward(SumShaping()), HalfRewardArrays(SumShapingArrays())
    per_game.setup(box, spaces.Discrete(2))
    arrays.setup(box, spaces.Discrete(2))
    rng = np.random.default_rng(seed)
    for one, other in ((per_game, arrays), (copy.deepcopy(per_game), copy.deepcopy(arrays))):
        first = rng.uniform(-1, 1, 3).astype(np.float32)
        assert_same(one.transform_reset(first), other.transform_reset(first))
        for _ in range(steps):
            observation = rng.uniform(-1, 1, 3).astype(np.float32)
            assert_same(one.transform_observation(observation), other.transform_observation(observation))
            reward = float(rng.uniform(-1, 1))
            assert one.transform_reward(reward) == other.transform_reward(reward)
        assert one.transform_done(0.5, terminated=True, truncated=False) == other.transform_done(
            0.5, terminated=True, truncated=False
        )
    # The array form writes no per-game hook: arena derives them from the batched ones.
    assert {"observation", "reward", "reset", "done"} <= SumShapingArrays.overridden_hooks


def test_per_episode_state_is_kept_per_slot():
    itf = FrameStack(frames=2)
    itf.setup(spaces.Box(0.0, 9.0, (1,), np.float32), spaces.Discrete(2))
    batched = BatchedStack(itf, 2)
    batched.observation(np.array([[1.0], [5.0]], dtype=np.float32), starting=[True, True])
    second = batched.observation(np.array([[2.0], [6.0]], dtype=np.float32), starting=[False, True])
    # Slot 0 goes on from 1; slot 1 starts again from 6.
    assert second[:, :, 0].tolist() == [[1.0, 2.0], [6.0, 6.0]]


def test_mask_refusal_and_bad_flags_are_clear_errors():
    class Shift(Interface):  # maps actions, translates no masks
        def action(self, action):
            return action

    itf = Shift()
    itf.setup(spaces.Discrete(3), spaces.Discrete(3))
    batched = BatchedStack(itf, 2)
    with pytest.raises(MaskTranslationError):
        batched.action_mask(np.ones((2, 3), dtype=np.int8))
    with pytest.raises(ArenaError, match="one flag per slot"):
        batched.reward(np.zeros(2), terminated=[True])
    with pytest.raises(ArenaError, match="positive int"):
        BatchedStack(itf, 0)


def test_a_subclass_that_writes_the_per_game_hook_is_not_run_by_its_parents_batched_form():
    class NegateArrays(Interface):
        def observation_batch(self, observations):
            return -observations

    class Twice(NegateArrays):  # the form the most derived class writes wins
        def observation(self, observation):
            return 2 * observation

    itf = Twice()
    itf.setup(spaces.Box(-9.0, 9.0, (1,), np.float64), spaces.Discrete(2))
    assert BatchedStack(itf, 2).observation(np.array([[1.0], [2.0]])).tolist() == [[2.0], [4.0]]
    assert NegateArrays.observation is not Twice.observation  # the parent keeps its derived form


#: Levels that fit a Box observation and Discrete actions, each built on an inner level.
STACKABLE = {
    "negate": Negate,
    "half_reward": HalfReward,
    "half_reward_arrays": HalfRewardArrays,
    "sum_shaping": SumShaping,
    "sum_shaping_arrays": SumShapingArrays,
    "frame_stack": lambda inner: FrameStack(inner, frames=2),
    "episode_clock": lambda inner: EpisodeClock(inner, period=3),
    "scale_reward": lambda inner: ScaleReward(inner, factor=3.0),
    "clip_reward": lambda inner: ClipReward(inner, low=-0.5, high=0.5),
    "potential_shaping": lambda inner: PotentialShaping(inner, potential=lambda obs: float(np.max(obs))),
}


@settings(max_examples=15, deadline=None)
@given(
    names=st.lists(st.sampled_from(sorted(STACKABLE)), min_size=1, max_size=4),
    batch_size=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_batched_stack_equals_per_game_stacks_for_generated_stacks(names, batch_size, seed):
    itf = None
    for name in names:
        itf = STACKABLE[name](itf)
    itf.setup(spaces.Box(-1.0, 1.0, (2,), np.float32), spaces.Discrete(3))
    run_both(itf, batch_size, seed, steps=5)


# ------------------------------------------------------------------- calls over some slots only
class SumShapingSlotArrays(Interface):
    """:class:`SumShaping` in array form over some slots at a time: its hooks take ``slots``."""

    size = 0

    def _rows(self, slots, count):
        slots = np.arange(count) if slots is None else np.asarray(slots)
        if slots.size and slots.max() >= self.size:  # grow the per-slot arrays to the slots seen
            grown = int(slots.max()) + 1
            self.previous = np.concatenate([getattr(self, "previous", np.zeros(0)), np.full(grown - self.size, np.nan)])
            self.bonus = np.concatenate([getattr(self, "bonus", np.zeros(0)), np.zeros(grown - self.size)])
            self.size = grown
        return slots

    def reset_batch(self, observations, starting, slots=None):
        slots = self._rows(slots, len(starting))
        self.previous[slots[starting]] = np.nan
        self.bonus[slots[starting]] = 0.0

    def observation_batch(self, observations, slots=None):
        slots = self._rows(slots, len(observations))
        totals = np.asarray(observations, dtype=np.float64).reshape(len(observations), -1).sum(axis=1)
        previous = self.previous[slots]
        self.bonus[slots] += np.where(np.isnan(previous), 0.0, totals - previous)
        self.previous[slots] = totals
        return observations

    def reward_batch(self, rewards, slots=None):
        slots = self._rows(slots, len(rewards))
        rewards = rewards + self.bonus[slots]
        self.bonus[slots] = 0.0
        return rewards

    def done_batch(self, rewards, *, terminated, truncated, slots=None):
        rewards = self.reward_batch(rewards, slots=slots)
        slots = self._rows(slots, len(rewards))
        self.previous[slots[terminated | truncated]] = np.nan
        return rewards


#: Levels that may run over some slots at a time: per-game ones, array-form ones that take ``slots``
#: and array-form ones without per-slot state.
SUBSET_STACKABLE = {
    name: STACKABLE[name]
    for name in ("negate", "half_reward", "half_reward_arrays", "sum_shaping", "frame_stack", "episode_clock")
} | {"sum_shaping_slot_arrays": SumShapingSlotArrays}


@settings(max_examples=20, deadline=None)
@given(
    names=st.lists(st.sampled_from(sorted(SUBSET_STACKABLE)), min_size=1, max_size=4),
    batch_size=st.integers(1, 5),
    seed=st.integers(0, 2**16),
)
def test_calls_over_some_slots_equal_the_per_game_stacks_of_those_slots(names, batch_size, seed):
    itf = None
    for name in names:
        itf = SUBSET_STACKABLE[name](itf)
    itf.setup(spaces.Box(-1.0, 1.0, (2,), np.float32), spaces.Discrete(3))
    rng = random.Random(seed)
    games = [copy.deepcopy(itf) for _ in range(batch_size)]
    batched = BatchedStack(copy.deepcopy(itf), batch_size)
    starting = [True] * batch_size
    for _ in range(8):
        # a turn-based game: only some games reach the stack, in any order
        slots = rng.sample(range(batch_size), rng.randint(1, batch_size))
        raw = [_sample(itf.raw_observation_space, rng) for _ in slots]
        flags = np.array([starting[slot] for slot in slots])
        wanted = [
            games[slot].transform_reset(o) if starting[slot] else games[slot].transform_observation(o)
            for slot, o in zip(slots, raw)
        ]
        assert_same(batched.observation(stack_rows(raw), flags, slots=slots), stack_rows(wanted))
        actions = [_sample(itf.action_space, rng) for _ in slots]
        wanted_actions = [games[slot].transform_action(a) for slot, a in zip(slots, actions)]
        assert_same(batched.action(stack_rows(actions), slots=slots), stack_rows(wanted_actions))
        rewards = np.array([rng.uniform(-1.0, 1.0) for _ in slots])
        ends = np.array([rng.random() < 0.3 for _ in slots])
        wanted_rewards = [
            games[slot].transform_done(r, terminated=True, truncated=False) if end else games[slot].transform_reward(r)
            for slot, r, end in zip(slots, rewards, ends)
        ]
        np.testing.assert_array_equal(
            batched.reward(rewards, terminated=ends, slots=slots), np.asarray(wanted_rewards, dtype=float)
        )
        for slot, end in zip(slots, ends):
            starting[slot] = bool(end)


def test_bad_slots_are_a_clear_error():
    itf = HalfReward()
    itf.setup(spaces.Discrete(3), spaces.Discrete(2))
    batched = BatchedStack(itf, 2)
    for slots in ([0, 0], [2], [[0]], [0.5]):
        with pytest.raises(ArenaError, match=r"slots must be distinct slot indices in \[0, 2\)"):
            batched.reward(np.zeros(len(np.atleast_1d(slots))), slots=slots)


def test_observe_gives_each_level_the_mask_where_its_form_wants_it():
    """Per game: the mask before the observation (folded into it); in array form: after (derived from it)."""
    from interfaces import ActionMaskInObservation

    class MaskFromObservationArrays(Interface):  # forbids action 0 where the observation's first entry is > 0
        def observation_batch(self, observations, slots=None):
            self.forbid = np.asarray(observations)[:, 0] > 0
            return observations

        def action_mask_batch(self, masks, slots=None):
            masks = np.array(masks, dtype=bool, copy=True)
            masks[self.forbid, 0] = False
            return masks

    itf = ActionMaskInObservation(MaskFromObservationArrays())
    itf.setup(spaces.Box(-1.0, 1.0, (2,), np.float32), spaces.Discrete(3))
    batched = BatchedStack(itf, 2)
    raw = np.array([[0.5, 0.0], [-0.5, 0.0]], dtype=np.float32)
    observations, masks = batched.observe(raw, np.ones((2, 3), dtype=bool), starting=[True, True])
    # the array-form level saw this step's observation before its mask: slot 0 loses action 0 now
    assert masks.tolist() == [[False, True, True], [True, True, True]]
    # the per-game level above got that mask before its observation, and shows it
    assert observations["action_mask"].tolist() == [[0, 1, 1], [1, 1, 1]]
