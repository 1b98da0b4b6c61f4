"""The shipped Pommerman levels on a batch: their array forms over PommermanBatch's planes give what
their per-game forms give on the single env's observation dicts of the same games."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.batched_stack import BatchedStack, writes_batch
from arena.errors import SpaceMismatchError
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.env import Pommerman
from envs.pommerman.planes import EGO_ACTIONS
from interfaces.pommerman import PommermanBatchPlanes
from interfaces.pommerman_safety import PommermanSafeMoves, safe_moves
from interfaces.pommerman_shaping import PommermanEnemyDownBonus, PommermanPickupBonus

AGENTS = ("agent_0", "agent_1", "agent_2", "agent_3")
MAX_STEPS = 30  # short games: every run sees restarts


def shipped_stack(mode: str, ego: bool) -> PommermanBatchPlanes:
    """The shipped team stack (envs/pommerman/recipe.py), set up on one game's raw spaces."""
    shaped = PommermanEnemyDownBonus(PommermanPickupBonus(PommermanSafeMoves(), bonus=0.1), bonus=0.3)
    stack = PommermanBatchPlanes(shaped, ego=ego, max_steps=MAX_STEPS)
    env = Pommerman(mode=mode, max_steps=MAX_STEPS)
    stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return stack


def play_both(mode: str, ego: bool, num_games: int, seed: int, steps: int) -> dict[str, int]:
    """One BatchedStack over the batch's planes (one slot per seat) beside one per-game stack per seat
    over the dicts of the same games (``Pommerman.load_state`` of each game's state); every
    observation, action mask, action and reward of a seat in play compared. Returns how often each
    level had something to do (bonuses paid, moves masked, moves replaced)."""
    stack = shipped_stack(mode, ego)
    slots = 4 * num_games
    batched = BatchedStack(copy.deepcopy(stack), slots)
    per_game = [copy.deepcopy(stack) for _ in range(slots)]
    env = Pommerman(mode=mode, max_steps=MAX_STEPS)
    batch = PommermanBatch(num_games, mode, ego=ego, max_steps=MAX_STEPS)
    observations, infos = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    starting = np.ones(slots, dtype=bool)
    seen = {"bonuses": 0, "masked": 0, "replaced": 0}
    for _ in range(steps):
        live = infos["live"].reshape(slots).copy()
        dicts: list[dict[str, Any] | None] = []
        for g in range(num_games):
            game, _ = env.load_state(batch.state_json(g))
            dicts += [game.get(agent) for agent in AGENTS]
        assert [d is not None for d in dicts] == live.tolist()

        got = batched.observation(observations.reshape(slots, *observations.shape[2:]), starting)
        masks = batched.action_mask(np.ones((slots, 6), dtype=bool))
        moves = rng.integers(0, 6, slots)
        sent = batched.action(moves)
        for k in np.flatnonzero(live).tolist():
            seat, raw = k % 4, dicts[k]
            wanted = per_game[k].transform_reset(raw) if starting[k] else per_game[k].transform_observation(raw)
            np.testing.assert_array_equal(got[k], wanted)
            per_game[k].transform_action_mask(np.ones(6, dtype=np.int8))  # the env's all-ones mask, as one game gets it
            safe = safe_moves(raw)
            frame = EGO_ACTIONS[seat] if ego else np.arange(6)  # the batch's moves (ego: the seat's ego frame)
            assert masks[k].tolist() == (safe[frame] != 0).tolist()
            seen["masked"] += int(not safe.all())
            one_game = per_game[k].transform_action(int(moves[k]))  # in the single env's frame
            seen["replaced"] += int(not masks[k][moves[k]])
            if ego and one_game != frame[sent[k]]:
                # Both filters keep a safe move and pick stop where it is safe; only "the first safe
                # move" is counted in each one's own frame (an ego frame swaps up/down, left/right).
                assert masks[k][moves[k]] == 0 and not safe[0] and safe[frame[sent[k]]]
            else:
                assert one_game == frame[sent[k]]
        observations, rewards, terminated, _, infos = batch.step(sent.reshape(num_games, 4))
        over = np.repeat(infos["episode_over"], 4)
        ended = terminated.reshape(slots) | over
        shaped = batched.reward(rewards.reshape(slots), ended, np.zeros(slots, dtype=bool))
        for k in np.flatnonzero(live).tolist():
            reward = float(rewards.reshape(slots)[k])
            if ended[k]:
                wanted_reward = per_game[k].transform_done(reward, terminated=True, truncated=False)
            else:
                wanted_reward = per_game[k].transform_reward(reward)
            assert shaped[k] == pytest.approx(wanted_reward)
            seen["bonuses"] += int(shaped[k] != reward)
        starting = over
    return seen


@pytest.mark.parametrize("mode", ["ffa", "team"])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ego=st.booleans(), num_games=st.integers(1, 2))
def test_the_batched_stack_on_planes_equals_the_per_game_stack_on_dicts(mode, seed, ego, num_games):
    play_both(mode, ego, num_games, seed, steps=45)


def test_the_comparison_sees_bonuses_masks_and_replaced_moves():
    seen = play_both("team", True, 2, seed=5, steps=120)
    assert seen["bonuses"] > 0 and seen["masked"] > 0 and seen["replaced"] > 0, seen


def test_the_shipped_levels_write_their_array_forms():
    stack = shipped_stack("team", True)
    written = {type(level).__name__: level for level in stack.levels()}
    assert writes_batch(written["PommermanSafeMoves"], "observation")
    assert writes_batch(written["PommermanSafeMoves"], "action_mask")
    assert writes_batch(written["PommermanSafeMoves"], "action")
    for name in ("PommermanPickupBonus", "PommermanEnemyDownBonus"):
        assert all(writes_batch(written[name], hook) for hook in ("reset", "observation", "reward"))
    for hook in ("observation", "action", "action_mask"):
        assert writes_batch(stack, hook)
    assert stack.batch_options == {"ego": True}


def test_the_planes_level_is_the_identity_on_the_batch_planes_and_refuses_other_arrays():
    stack = shipped_stack("team", False)
    planes, _ = PommermanBatch(2, "team", max_steps=MAX_STEPS).reset(seed=1)
    views = planes.reshape(8, *planes.shape[2:])
    assert stack.observation_batch(views) is views
    assert stack.action_batch(np.arange(6)).tolist() == list(range(6))
    with pytest.raises(
        SpaceMismatchError, match=r"PommermanBatch's planes \(n, 22, 11, 11\).*got an array of shape \(8, 5\)"
    ):
        stack.observation_batch(np.zeros((8, 5), np.uint8))


def run(level: Any, hook: str, *args: Any, **slots: Any) -> Any:
    """``level``'s batched form of ``hook`` where its class writes it (else the value passes)."""
    if not writes_batch(level, hook):
        return None if hook == "reset" else args[0]
    return getattr(level, f"{hook}_batch")(*args, **slots)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ego=st.booleans())
def test_calls_over_some_slots_give_what_one_call_over_every_slot_gives(seed, ego):
    """A trainer may pass a level only some slots (``slots=``, e.g. the games that ended): the rows of
    the shipped array-form levels follow their slots, so two calls over a split equal one call."""
    whole = [level for level in shipped_stack("team", ego).levels()]
    split = copy.deepcopy(whole)
    batch = PommermanBatch(2, "team", ego=ego, max_steps=MAX_STEPS)
    observations, _ = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    starting = np.ones(8, dtype=bool)
    for _ in range(40):
        views = observations.reshape(8, *observations.shape[2:])
        order = rng.permutation(8)
        parts = [order[:3], order[3:]]
        masks, rewards = np.ones((8, 6), dtype=bool), rng.normal(size=8)
        moves = rng.integers(0, 6, 8)
        got_masks, got_moves, got_rewards = masks.copy(), moves.copy(), rewards.copy()
        for level in whole:  # innermost first, as BatchedStack runs them
            run(level, "reset", views, starting)
            run(level, "observation", views)
        for level in split:
            for part in parts:
                run(level, "reset", views[part], starting[part], slots=part)
                run(level, "observation", views[part], slots=part)
        for level in whole:
            masks = run(level, "action_mask", masks)
        for level in split:
            for part in parts:
                got_masks[part] = run(level, "action_mask", got_masks[part], slots=part)
        for level in reversed(whole):
            moves = run(level, "action", moves)
            rewards = run(level, "reward", rewards)
        for level in reversed(split):
            for part in parts:
                got_moves[part] = run(level, "action", got_moves[part], slots=part)
                got_rewards[part] = run(level, "reward", got_rewards[part], slots=part)
        np.testing.assert_array_equal(got_masks, masks)
        np.testing.assert_array_equal(got_moves, moves)
        np.testing.assert_array_equal(got_rewards, rewards)
        observations, _, _, _, infos = batch.step(moves.reshape(2, 4))
        starting = np.repeat(infos["episode_over"], 4)
