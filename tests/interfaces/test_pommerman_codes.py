"""PommermanBatchCodes: a stack made for planes plays a ``layout="codes"`` batch exactly as it plays the planes."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.batched_stack import BatchedStack, stack_batch_options
from arena.errors import SpaceMismatchError
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.env import Pommerman
from interfaces.pommerman import PommermanBatchPlanes
from interfaces.pommerman_codes import PommermanBatchCodes
from interfaces.pommerman_safety import PommermanSafeMoves
from interfaces.pommerman_shaping import PommermanEnemyDownBonus, PommermanPickupBonus

MAX_STEPS = 30  # short games: every run sees restarts


def _shipped(mode: str, ego: bool, bottom: PommermanBatchCodes | None) -> PommermanBatchPlanes:
    """The shipped team stack (envs/pommerman/recipe.py), over ``bottom``, set up on one game's raw spaces."""
    shaped = PommermanEnemyDownBonus(PommermanPickupBonus(PommermanSafeMoves(bottom), bonus=0.1), bonus=0.3)
    stack = PommermanBatchPlanes(shaped, ego=ego, max_steps=MAX_STEPS)
    env = Pommerman(mode=mode, max_steps=MAX_STEPS)
    stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return stack


@settings(max_examples=4, deadline=None)
@given(mode=st.sampled_from(["ffa", "team"]), ego=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_the_shipped_stack_over_codes_gives_what_it_gives_over_planes(mode, ego, seed):
    games, slots = 2, 8
    over_codes, over_planes = _shipped(mode, ego, PommermanBatchCodes()), _shipped(mode, ego, None)
    assert stack_batch_options(over_codes) == {"layout": "codes", "ego": ego}
    stacks = [BatchedStack(copy.deepcopy(stack), slots) for stack in (over_codes, over_planes)]
    batches = [
        PommermanBatch(games, mode, max_steps=MAX_STEPS, **stack_batch_options(stack))
        for stack in (over_codes, over_planes)
    ]
    views = [batch.reset(seed=seed)[0] for batch in batches]
    rng = np.random.default_rng(seed)
    starting = np.ones(slots, dtype=bool)
    for _ in range(40):
        seen = [s.observation(v.reshape(slots, *v.shape[2:]), starting) for s, v in zip(stacks, views)]
        np.testing.assert_array_equal(seen[0], seen[1])
        masks = [s.action_mask(np.ones((slots, 6), dtype=bool)) for s in stacks]
        np.testing.assert_array_equal(masks[0], masks[1])
        moves = rng.integers(0, 6, slots)
        sent = [s.action(moves) for s in stacks]
        np.testing.assert_array_equal(sent[0], sent[1])
        steps = [batch.step(sent[0].reshape(games, 4)) for batch in batches]
        views = [step[0] for step in steps]
        ended = steps[0][2].reshape(slots) | np.repeat(steps[0][4]["episode_over"], 4)
        rewards = [s.reward(step[1].reshape(slots), ended, np.zeros(slots, bool)) for s, step in zip(stacks, steps)]
        np.testing.assert_array_equal(rewards[0], rewards[1])
        starting = np.repeat(steps[0][4]["episode_over"], 4)


def test_on_one_game_the_dict_passes_unchanged():
    env = Pommerman(mode="radio")
    stack, plain = PommermanBatchPlanes(PommermanBatchCodes()), PommermanBatchPlanes()
    for itf in (stack, plain):
        itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    obs, _ = env.reset(seed=3)
    np.testing.assert_array_equal(
        stack.transform_observation(obs["agent_1"]), plain.transform_observation(obs["agent_1"])
    )
    codes_level = stack.levels()[0]  # innermost first
    assert isinstance(codes_level, PommermanBatchCodes)
    assert codes_level.observation_space == env.observation_space("agent_0")
    stacked = {key: np.stack([value] * 2) for key, value in obs["agent_1"].items()}
    assert codes_level.observation_batch(stacked) is stacked  # a batch of single envs: the dicts go up


def test_bad_input_names_what_was_expected():
    level = PommermanBatchCodes()
    with pytest.raises(SpaceMismatchError, match="needs the pommerman observation Dict"):
        level.setup(spaces.Box(0, 1, (248,), np.uint8), spaces.Discrete(6))
    env = Pommerman()
    level.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    planes, _ = PommermanBatch(2).reset(seed=0)
    with pytest.raises(SpaceMismatchError, match=r"reads PommermanBatch's codes views \(n, 248\) uint8"):
        level.observation_batch(planes[:, 0])
