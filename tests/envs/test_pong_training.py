"""Pong-2p trains on the one batched trainer: the recipe's stack per game slot, pong_ai and snapshots batched."""

from __future__ import annotations

import json

import numpy as np

import envs
from arena import AgtItfWrapper, make_agent
from arena.agents.base import Agent
from arena.specs.interfaces import build_interface
from arena.training import TrainingRecipe
from arena.training.batched import BatchVecEnv
from arena.training.vectorised import choose_path
from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from envs.recipes import pong_2p

STACK = "pong_moves(pong_frames(pong_hit_bonus(bonus=0.02, steep=0.05, edge=0.1, edge_from=0.5), scale=4, frames=2))"
GAME = {"rounds": 1, "max_round_steps": 50}


def test_the_recipe_trains_on_the_batch_through_the_one_batched_trainer() -> None:
    recipe = pong_2p()
    opponents = [make_agent(name) for name in recipe.opponents]
    stack = build_interface(recipe.interface)
    assert choose_path(envs.make("pong_2p"), recipe.algo, opponents, stack) == "batched"


def test_the_learner_sees_what_its_stack_shows_it_in_the_single_env() -> None:
    venv = BatchVecEnv("pong_2p", 3, PongAIAgent(), interface=build_interface(STACK), env_kwargs=GAME)
    venv.seed(5)
    observations = venv.reset()
    assert observations.shape == (3, 2, 40, 40) and observations.dtype == np.uint8
    vectors = venv.batch.vectors()
    for game in range(3):  # the learner starts as player_0 in every game
        single = build_interface(STACK)
        env = Pong2p(**GAME)
        single.setup(env.observation_space("player_0"), env.action_space("player_0"))
        assert np.array_equal(observations[game], single.transform_reset(vectors[game, 0]))
    paid = 0.0
    for _ in range(120):  # games end and start again; the learner earns the rounds and the stack's bonus
        observations, rewards, dones, infos = venv.step(np.full(3, 1, dtype=np.int64))
        assert rewards.dtype == np.float32 and observations.shape == (3, 2, 40, 40)
        paid += float(np.abs(rewards).sum())
        for game in np.flatnonzero(dones):
            assert infos[game]["terminal_observation"].shape == (2, 40, 40)
    assert paid > 0


class Watcher(Agent):
    """A frozen 'policy' for many games at once: records the pictures it is shown, always moves up."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def act(self, observation, action_mask=None, reward=0.0):
        return 1

    def act_batch(self, observations, action_masks=None):
        self.seen.append(np.array(observations))
        return np.ones(len(observations), dtype=np.int64)


def test_a_snapshot_behind_the_stack_sees_its_own_seats_pictures_and_acts_for_all_its_games_at_once() -> None:
    watcher = Watcher()
    snapshot = AgtItfWrapper(watcher, build_interface(STACK))
    venv = BatchVecEnv("pong_2p", 3, snapshot, interface=build_interface(STACK), env_kwargs=GAME)
    venv.seed(1)
    venv.reset()
    vectors = venv.batch.vectors()
    venv.step(np.zeros(3, dtype=np.int64))
    stacks = [build_interface(STACK) for _ in range(3)]
    env = Pong2p(**GAME)
    for stack in stacks:
        stack.setup(env.observation_space("player_1"), env.action_space("player_1"))
    assert len(watcher.seen) == 1  # one call for every game it plays
    expected = np.stack([stacks[game].transform_reset(vectors[game, 1]) for game in range(3)])
    assert np.array_equal(watcher.seen[0], expected)  # its own seat's view, through its own stack
    for _ in range(10):
        venv.step(np.zeros(3, dtype=np.int64))
    assert len(watcher.seen) == 11 and all(len(seen) == 3 for seen in watcher.seen)


def test_the_shipped_folder_trained_on_pongs_own_trainer_reads_as_a_recipe_of_the_batched_path() -> None:
    from envs.shipped import shipped_folder

    stored = json.loads((shipped_folder("pong_ppo") / "recipe.json").read_text())
    assert stored["vec_env"] == "pong_2p"  # written by Pong's own trainer, now retired
    recipe = TrainingRecipe.from_json(stored)
    assert recipe.control == "seat" and recipe.interface == stored["interface"]
