"""Copies behave like the original: deep copies and pickles of every bundled env mid-game, of
interface wrappers, and of every bundled interface; one interface object given to two wrappers
leaks no state between them."""

from __future__ import annotations

import copy
import functools
import pickle

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from hypothesis import given, settings
from hypothesis import strategies as st

from arena import EnvItfWrapper
from arena.plugins import interface_registry
from arena.registry import env_names, make_env
from tests.quick import QUICK_OPTIONS

# Envs that drive an engine process (VizDoom) cannot be copied mid-game; they are left to their own tests.
ENGINE_ENVS = {"vizdoom_deathmatch"}
# MuJoCo's copies rebuild the physics (about 2 s CPU an example): fewer examples, the same check
SLOW_COPIES = ["soccer"]
PURE_ENVS = [name for name in env_names() if name not in ENGINE_ENVS and name not in SLOW_COPIES]

DUPLICATE = {"deepcopy": copy.deepcopy, "pickle": lambda env: pickle.loads(pickle.dumps(env))}


@functools.cache
def made(name):
    # the quick options' short episodes and small maps: a copy taken mid-game must also end the game the same way
    return make_env(name, **QUICK_OPTIONS.get(name, {}))


def play(env, observations, infos, rng, steps):
    """Step ``env`` with masked random actions from ``rng``; the record of what came back."""
    trace = []
    for _ in range(steps):
        if not env.agents:
            break
        actions = {}
        for agent in observations:
            mask = infos.get(agent, {}).get("action_mask")
            space = env.action_space(agent)
            if mask is not None:
                actions[agent] = int(rng.choice(np.flatnonzero(mask)))
            else:  # any space (Box for soccer, MultiDiscrete for radio Pommerman): a sample seeded from rng
                space.seed(int(rng.integers(2**31)))
                actions[agent] = space.sample()
        observations, rewards, terminations, truncations, infos = env.step(actions)
        trace.append((observations, rewards, terminations, truncations, infos))
    return observations, infos, trace


@pytest.mark.parametrize("how", sorted(DUPLICATE))
@pytest.mark.parametrize("name", PURE_ENVS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), before=st.integers(0, 8))
def test_a_copy_of_a_bundled_env_mid_game_plays_exactly_like_the_original(name, how, seed, before):
    _copy_plays_like_the_original(name, how, seed, before)


@pytest.mark.parametrize("how", sorted(DUPLICATE))
@pytest.mark.parametrize("name", SLOW_COPIES)
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), before=st.integers(0, 8))
def test_a_copy_of_a_slow_to_copy_env_mid_game_plays_exactly_like_the_original(name, how, seed, before):
    _copy_plays_like_the_original(name, how, seed, before)


def _copy_plays_like_the_original(name, how, seed, before):
    env = made(name)  # one env per name, reset with each example's seed (soccer's is ~0.6 s to build)
    observations, infos = env.reset(seed=seed)
    observations, infos, _ = play(env, observations, infos, np.random.default_rng(seed), before)
    twin = DUPLICATE[how](env)
    twin_observations, twin_infos = copy.deepcopy((observations, infos))
    _, _, original = play(env, observations, infos, np.random.default_rng(seed + 1), 40)
    _, _, copied = play(twin, twin_observations, twin_infos, np.random.default_rng(seed + 1), 40)
    assert data_equivalence(original, copied)


def test_a_deep_copy_of_an_interface_wrapper_shares_no_state_with_it():
    from interfaces.history import FrameStack

    env = EnvItfWrapper(make_env("tic_tac_toe"), FrameStack(frames=3))
    observations, infos = env.reset(seed=0)
    observations, infos, _ = play(env, observations, infos, np.random.default_rng(0), 2)
    twin = copy.deepcopy(env)
    assert twin.interfaces["player_0"] is not env.interfaces["player_0"]
    reference = copy.deepcopy(env)
    twin_observations, twin_infos = copy.deepcopy((observations, infos))
    _, _, copied = play(twin, twin_observations, twin_infos, np.random.default_rng(5), 9)  # the copy plays on ...
    _, _, original = play(env, observations, infos, np.random.default_rng(5), 9)  # ... and the original is untouched
    ref_observations, ref_infos = copy.deepcopy((observations, infos))
    assert data_equivalence(original, copied)
    assert data_equivalence(play(reference, ref_observations, ref_infos, np.random.default_rng(5), 9)[2], original)


def test_a_deep_copy_over_a_nested_stateful_stack_is_independent():
    # The wrapper's cached stack functions must call the copy's own levels, or stepping the copy
    # moves the original's running statistics and frame history.
    from interfaces.history import FrameStack, NormalizeObservation

    env = EnvItfWrapper(make_env("tic_tac_toe"), FrameStack(NormalizeObservation(), frames=3))
    observations, infos = env.reset(seed=0)
    observations, infos, _ = play(env, observations, infos, np.random.default_rng(0), 2)
    normalize = env.interfaces["player_0"].inner
    before = normalize.statistics()
    for twin in (copy.deepcopy(env), env.clone()):  # clone(): what planners copy envs with
        twin_observations, twin_infos = copy.deepcopy((observations, infos))
        play(twin, twin_observations, twin_infos, np.random.default_rng(3), 6)
        assert twin.interfaces["player_0"].inner.statistics()["count"] > before["count"]
        assert data_equivalence(normalize.statistics(), before)  # the original did not move


def test_one_interface_object_in_two_wrappers_leaks_no_state():
    from interfaces.history import FrameStack

    shared = FrameStack(frames=4)
    first = EnvItfWrapper(make_env("tic_tac_toe"), {"player_0": shared})
    second = EnvItfWrapper(make_env("tic_tac_toe"), {"player_0": shared})
    alone = EnvItfWrapper(make_env("tic_tac_toe"), {"player_0": FrameStack(frames=4)})
    assert first.interfaces["player_0"] is shared and second.interfaces["player_0"] is not shared
    first_obs, first_infos = first.reset(seed=1)
    play(first, first_obs, first_infos, np.random.default_rng(1), 5)  # stacks frames of the first game
    second_obs, second_infos = second.reset(seed=2)
    alone_obs, alone_infos = alone.reset(seed=2)
    assert data_equivalence(second_obs, alone_obs)
    assert data_equivalence(
        play(second, second_obs, second_infos, np.random.default_rng(2), 6)[2],
        play(alone, alone_obs, alone_infos, np.random.default_rng(2), 6)[2],
    )


def test_one_interface_object_behind_two_agents_leaks_no_state():
    from arena import AgtItfWrapper, RandomAgent
    from interfaces.board import EgoBoard

    shared = EgoBoard()
    a, b = AgtItfWrapper(RandomAgent(seed=1), shared), AgtItfWrapper(RandomAgent(seed=2), shared)
    assert a.interface is shared and b.interface is not shared
    assert str(b.interface) == str(shared)


def shaping(observation, action, reward):
    """A module-level shaping function (a lambda cannot be pickled, whatever holds it)."""
    return reward + 0.5


def examples():
    from interfaces.reward import ShapeReward

    cases = []
    for entry in interface_registry():
        if not entry.builtin:
            continue
        for index, (interface, observation_space, action_space) in enumerate(entry.interface.contract_examples()):
            if entry.name == "shape_reward":
                interface = ShapeReward(interface.inner, shaping=shaping)
            cases.append(pytest.param(interface, observation_space, action_space, id=f"{entry.name}-{index}"))
    return cases


@pytest.mark.parametrize(("interface", "observation_space", "action_space"), examples())
def test_every_bundled_interface_pickles_set_up_and_mid_episode(interface, observation_space, action_space):
    interface.setup(observation_space, action_space)
    observation_space.seed(0)
    interface.transform_reset(observation_space.sample())
    twin = pickle.loads(pickle.dumps(interface))
    for _ in range(3):
        observation = observation_space.sample()
        assert data_equivalence(interface.transform_observation(observation), twin.transform_observation(observation))
        assert interface.transform_reward(1.0) == twin.transform_reward(1.0)
