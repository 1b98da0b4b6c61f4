"""Both single-seat bridges, ``arena.training.SingleAgentEnv`` and ``arena.adapters.gymnasium.to_gymnasium``,
pass Gymnasium's own ``check_env`` on every bundled env and seat, and end episodes with a fresh
observation object (not the one the previous step returned)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils.env_checker import check_env, data_equivalence

from arena import RandomAgent
from arena.adapters.gymnasium import to_gymnasium
from arena.registry import env_names, make_env
from arena.training import SingleAgentEnv
from tests.quick import probe, quick_make

# VizDoom drives an engine process per env (slow to start): covered by its own tests.
SEATS = [
    (name, seat) for name in env_names() if name != "vizdoom_deathmatch" for seat in probe(name).possible_agents
]  # the quick options' seats (MAgent2: 4, not 162)


def bridge(kind, name, seat):
    env = quick_make(name)
    if kind == "SingleAgentEnv":
        return SingleAgentEnv(env, RandomAgent(seed=1), seats=[seat], illegal_action="forfeit")
    return to_gymnasium(
        env,
        seat,
        {other: RandomAgent(seed=1) for other in env.possible_agents if other != seat},
        illegal_action="forfeit",
    )


@pytest.mark.parametrize("kind", ["SingleAgentEnv", "to_gymnasium"])
@pytest.mark.parametrize(("name", "seat"), SEATS)
def test_gymnasium_check_env_passes_on_every_bundled_env_and_seat(kind, name, seat):
    env = bridge(kind, name, seat)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Gymnasium's checker warns for what it does not fail
        # soccer's physics features are unbounded by nature (positions, velocities)
        warnings.filterwarnings("ignore", message=r".*A Box observation space (minimum|maximum) value is")
        # gymnasium's Box.contains warns when it casts a probe value (soccer's Box actions)
        warnings.filterwarnings("ignore", message=r".*Casting input x to numpy array")
        check_env(env, skip_render_check=True)
    # the terminal observation is a fresh object with the last observation's value
    rng = np.random.default_rng(0)
    observation, _ = env.reset(seed=3)
    for _ in range(3000):  # long games (pong: 20 rounds) may not end here; the short ones do
        previous, kept = observation, copy.deepcopy(observation)
        if isinstance(env.action_space, spaces.Discrete):
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
        else:  # continuous controls (soccer): a seeded sample
            env.action_space.seed(int(rng.integers(2**31)))
            action = env.action_space.sample()
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            assert data_equivalence(previous, kept)
            if isinstance(observation, (np.ndarray, dict, list)):  # immutable values may be shared
                assert observation is not previous
            break


def test_to_gymnasium_forfeit_ends_the_episode_with_the_penalty_and_refuses_unknown_modes():
    env = to_gymnasium(
        make_env("tic_tac_toe"),
        "player_0",
        {"player_1": RandomAgent(seed=0)},
        illegal_action="forfeit",
        illegal_penalty=-5.0,
    )
    env.reset(seed=0)
    env.step(4)
    taken = int(np.flatnonzero(env.action_masks() == 0)[0])
    _, reward, terminated, truncated, info = env.step(taken)
    assert (reward, terminated, truncated, info["forfeit"]) == (-5.0, True, False, True)
    with pytest.raises(ValueError, match="illegal_action must be"):
        to_gymnasium(make_env("tic_tac_toe"), "player_0", {"player_1": RandomAgent()}, illegal_action="skip")
