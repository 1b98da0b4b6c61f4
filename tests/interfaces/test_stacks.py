"""Stacks of several interfaces on the bundled envs keep the env contract through EnvItfWrapper."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import envs
from arena import Agent, AgtItfWrapper, ContractViolation, EnvItfWrapper, RandomAgent, play
from arena.testing import check_env
from interfaces import (
    ActionMaskInObservation,
    CastObservation,
    ClipReward,
    EgoBoard,
    Flatten,
    FrameStack,
    NormalizeObservation,
    OneHot,
    RepeatAction,
    RotateBoard,
    ScaleReward,
)


def warmed_up_normaliser(env_name: str, inner) -> NormalizeObservation:
    """A normaliser that has seen a few random games, then frozen (evaluation mode)."""
    normaliser = NormalizeObservation(inner)
    env = EnvItfWrapper(envs.make(env_name), {"player_0": normaliser})
    for seed in range(3):
        play(env, [RandomAgent(), RandomAgent()], seed=seed)
    return copy.deepcopy(env.interfaces["player_0"]).freeze()


STACKS = {
    "tic_tac_toe: mask in obs over frozen normalised flat ego board": (
        "tic_tac_toe",
        lambda: ActionMaskInObservation(warmed_up_normaliser("tic_tac_toe", Flatten(EgoBoard()))),
    ),
    "tic_tac_toe: stacked rotated ego planes, clipped rewards": (
        "tic_tac_toe",
        lambda: ClipReward(
            FrameStack(RotateBoard(EgoBoard(planes=True), quarter_turns=3), frames=2), low=-0.5, high=0.5
        ),
    ),
    "rock_paper_scissors: mask in obs over stacked one-hot, repeated actions, scaled rewards": (
        "rock_paper_scissors",
        lambda: ActionMaskInObservation(
            ScaleReward(RepeatAction(FrameStack(OneHot(), frames=3), repeat=2), factor=0.5)
        ),
    ),
    "connect_four: mask in obs over mirrored ego planes, flattened and cast": (
        "connect_four",
        lambda: ActionMaskInObservation(
            CastObservation(Flatten(RotateBoard(EgoBoard(planes=True), quarter_turns=0, mirror=True)), dtype=np.float16)
        ),
    ),
}


@pytest.mark.parametrize("name", list(STACKS))
def test_stack_on_bundled_env_passes_check_env(name):
    env_name, build = STACKS[name]
    check_env(EnvItfWrapper(envs.make(env_name), build()), episodes=2)


@pytest.mark.parametrize("name", list(STACKS))
def test_mask_in_observation_is_the_mask_of_the_same_turn(name):
    env_name, build = STACKS[name]
    env = EnvItfWrapper(envs.make(env_name), build())
    rng = np.random.default_rng(1)
    observations, infos = env.reset(seed=1)
    while observations:
        actions = {}
        for agent, observation in observations.items():
            mask = infos[agent].get("action_mask")
            if isinstance(observation, dict):
                expected = mask if mask is not None else np.ones_like(observation["action_mask"])
                np.testing.assert_array_equal(observation["action_mask"], expected)
            legal = np.flatnonzero(mask) if mask is not None else np.arange(env.action_space(agent).n)
            actions[agent] = int(rng.choice(legal))
        observations, _, _, _, infos = env.step(actions)


class ReadsMaskFromObservation(Agent):
    """Plays only from the mask inside its observation, and checks it equals the mask argument."""

    def act(self, observation, action_mask=None, reward=0.0):
        inside = observation["action_mask"]
        if action_mask is not None and not np.array_equal(inside, action_mask):
            raise AssertionError(f"mask in observation {inside} differs from the turn's mask {action_mask}")
        return int(np.flatnonzero(inside)[0])


def test_agents_behind_mask_in_observation_play_legal_moves_to_the_end():
    for env_name in ("tic_tac_toe", "connect_four"):
        players = [
            AgtItfWrapper(ReadsMaskFromObservation(), ActionMaskInObservation(Flatten(EgoBoard()))) for _ in range(2)
        ]
        episode = play(envs.make(env_name), players, seed=0)
        assert episode.length > 0


def test_running_normalisation_must_be_frozen_for_reproducible_episodes():
    env = EnvItfWrapper(envs.make("tic_tac_toe"), NormalizeObservation(Flatten(EgoBoard())))
    with pytest.raises(ContractViolation, match="two episodes with seed 0 and the same actions differ"):
        check_env(env, episodes=1)


def test_mask_in_observation_stack_is_a_valid_stable_baselines3_env():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    from arena.training import SingleAgentEnv

    # SB3's checker steps unseeded random actions: one into a full column (about 1 run in 30) would raise
    # under the default illegal_action="raise"; "forfeit" ends that episode instead.
    env = SingleAgentEnv(
        "connect_four", "random", interface=ActionMaskInObservation(Flatten(EgoBoard())), illegal_action="forfeit"
    )
    sb3_checker.check_env(env, warn=False)
    observation, _ = env.reset(seed=3)
    np.testing.assert_array_equal(observation["action_mask"], env.action_masks().astype(np.int8))
