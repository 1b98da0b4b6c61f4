"""The Pong levels written once over a batch: a BatchedStack over many games equals each game's own stack."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import Interface
from arena.batched_stack import BatchedStack, split_rows, stack_rows, writes_batch
from arena.seeding import derive_seed
from arena.specs.interfaces import build_interface
from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from interfaces.pong import PongFrames, PongHitBonus, PongMoves, vector_space
from interfaces.pong_aim import PongAim
from tests.arena.test_batched_stack import run_both

SHAPED = (
    "pong_moves(pong_frames(pong_aim(pong_hit_bonus(bonus=0.02, steep=0.05, edge=0.1, edge_from=0.5), weight=0.3)))"
)
STACKS = [
    ("vector", SHAPED),
    ("vector", "pong_moves(pong_frames(pong_hit_bonus(pong_aim(weight=0.2, aim_at=0.5)), scale=8, frames=3))"),
    ("vector", "pong_aim(pong_hit_bonus(steep=0.1))"),
    ("frame", "pong_moves(pong_frames(scale=8, frames=2))"),
]


def _allowed_move(mask: np.ndarray, rng: np.random.Generator) -> int:
    moves = np.flatnonzero(mask)
    return int(rng.choice(moves)) if len(moves) else 0


@pytest.mark.parametrize(("observation", "spec"), STACKS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), num_games=st.integers(1, 3), masked=st.booleans())
def test_the_batched_stack_is_each_games_own_stack(observation: str, spec: str, seed: int, num_games: int, masked):
    """Games of pong_2p (each from its seat) drive one BatchedStack and a stack per game; every slot agrees."""
    rng = np.random.default_rng(seed)
    games = [Pong2p(rounds=1, max_round_steps=40, observation=observation, frame_scale=4) for _ in range(num_games)]
    seats = [games[0].possible_agents[int(rng.integers(2))] for _ in range(num_games)]
    itf = build_interface(spec)
    itf.setup(games[0].observation_space("player_0"), games[0].action_space("player_0"))
    per_game = [copy.deepcopy(itf) for _ in range(num_games)]
    batched = BatchedStack(copy.deepcopy(itf), num_games)
    raw = [game.reset(seed=derive_seed(seed, g))[0] for g, game in enumerate(games)]
    starting = np.ones(num_games, dtype=bool)
    paid = 0.0
    for _ in range(90):  # two or three games in each slot
        views = [raw[g][seats[g]] for g in range(num_games)]
        wanted = [
            s.transform_reset(v) if start else s.transform_observation(v)
            for s, v, start in zip(per_game, views, starting)
        ]
        got = split_rows(batched.observation(stack_rows(views), starting))
        for mine, theirs in zip(got, wanted):
            assert np.array_equal(mine, theirs) and itf.observation_space.contains(mine)
        moves = rng.integers(0, itf.action_space.n, num_games)
        if observation == "vector":  # mostly pong_ai's play, so that returns are many
            scripted = PongAIAgent().act_batch(np.stack(views))
            scripted = np.searchsorted([0, 2, 3], scripted) if isinstance(itf, PongMoves) else scripted
            moves = np.where(rng.random(num_games) < 0.8, scripted, moves)
        if masked and isinstance(itf, PongMoves):  # masks that forbid the plain raw action of some moves
            raw_masks = (rng.random((num_games, 6)) < 0.6).astype(np.int8)
            raw_masks[:, 0] = 1
            masks = batched.action_mask(raw_masks)
            assert np.array_equal(masks, stack_rows([s.transform_action_mask(m) for s, m in zip(per_game, raw_masks)]))
            moves = np.array([m if mask[m] else _allowed_move(mask, rng) for m, mask in zip(moves, masks)])
        actions = batched.action(moves)
        assert actions.tolist() == [int(s.transform_action(m)) for s, m in zip(per_game, moves)]
        steps = []
        for g, game in enumerate(games):
            other = "player_1" if seats[g] == "player_0" else "player_0"
            steps.append(game.step({seats[g]: int(actions[g]), other: int(rng.integers(6))}))
        rewards = np.array([step[1][seats[g]] for g, step in enumerate(steps)])
        ended = np.array([step[2][seats[g]] for g, step in enumerate(steps)])
        shaped = batched.reward(rewards, ended)
        for g, s in enumerate(per_game):
            expected = (
                s.transform_done(rewards[g], terminated=True, truncated=False)
                if ended[g]
                else s.transform_reward(rewards[g])
            )
            assert shaped[g] == expected
        paid += float(np.abs(shaped - rewards).sum())
        raw = [game.reset()[0] if over else step[0] for game, step, over in zip(games, steps, ended)]
        starting = ended
    if "pong_aim" in spec:
        assert paid != 0  # the potentials moved: the shaping was exercised


def test_the_pong_levels_write_the_batched_form_and_derive_the_per_game_one():
    for cls, hooks in (
        (PongFrames, ("reset", "observation")),
        (PongMoves, ("action", "action_mask")),
        (PongHitBonus, ("reset", "observation", "reward")),
        (PongAim, ("reset", "observation", "reward")),
    ):
        for hook in hooks:
            assert writes_batch(cls, hook), (cls, hook)
            # The per-game hook is arena.Interface's batch of one: the level is written once.
            assert getattr(cls, hook) is getattr(Interface, f"_{hook}_of_one"), (cls, hook)


@pytest.mark.parametrize("spec", [spec for observation, spec in STACKS if observation == "vector"])
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**16), batch_size=st.integers(2, 4))
def test_any_vectors_and_episode_ends_give_each_slot_its_own_stacks_results(spec: str, seed: int, batch_size: int):
    """Random vectors (returns and potentials everywhere) and random ends: the slots never mix."""
    itf = build_interface(spec)
    itf.setup(vector_space(), spaces.Discrete(6))
    run_both(itf, batch_size, seed, steps=30)


@pytest.mark.parametrize("spec", [spec for observation, spec in STACKS if observation == "vector"])
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**16), batch_size=st.integers(1, 5))
def test_calls_over_some_slots_equal_the_per_game_stacks_of_those_slots(spec: str, seed: int, batch_size: int):
    """As opponents' stacks are called (only the games a player plays, in any order): each slot keeps its own rows."""
    itf = build_interface(spec)
    itf.setup(vector_space(), spaces.Discrete(6))
    rng = np.random.default_rng(seed)
    games = [copy.deepcopy(itf) for _ in range(batch_size)]
    batched = BatchedStack(copy.deepcopy(itf), batch_size)
    starting = [True] * batch_size
    for _ in range(25):
        slots = rng.permutation(batch_size)[: rng.integers(1, batch_size + 1)]
        raw = np.clip(rng.uniform(-1, 1, (len(slots), 8)), vector_space().low, 1.0).astype(np.float32)
        flags = np.array([starting[slot] for slot in slots])
        wanted = [
            games[slot].transform_reset(o) if starting[slot] else games[slot].transform_observation(o)
            for slot, o in zip(slots, raw)
        ]
        assert np.array_equal(batched.observation(raw, flags, slots=slots), stack_rows(wanted))
        if isinstance(itf, PongMoves):
            masks = (rng.random((len(slots), 6)) < 0.6).astype(np.int8)
            wanted_masks = [games[slot].transform_action_mask(m) for slot, m in zip(slots, masks)]
            assert np.array_equal(batched.action_mask(masks, slots=slots), stack_rows(wanted_masks))
        actions = rng.integers(0, itf.action_space.n, len(slots))
        wanted_actions = [games[slot].transform_action(a) for slot, a in zip(slots, actions)]
        assert batched.action(actions, slots=slots).tolist() == [int(a) for a in wanted_actions]
        rewards, ends = rng.uniform(-1, 1, len(slots)), rng.random(len(slots)) < 0.2
        wanted_rewards = [
            games[slot].transform_done(r, terminated=True, truncated=False) if end else games[slot].transform_reward(r)
            for slot, r, end in zip(slots, rewards, ends)
        ]
        assert batched.reward(rewards, terminated=ends, slots=slots).tolist() == wanted_rewards
        for slot, end in zip(slots, ends):
            starting[slot] = bool(end)
