"""pommerman_room_planes: the room and enemy-distance planes, one game's and a batch's alike."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import envs
from arena.errors import InvalidValueError, SpaceMismatchError
from arena.specs.interfaces import build_interface
from envs.pommerman.batch import plane_space
from interfaces.pommerman_room import PommermanRoomPlanes, room_planes
from tests.envs.test_pommerman_room import reference_distance, reference_room

_OPEN = (0, 5, 6, 7, 8)


def _played(seed: int, steps: int, ego: bool):
    """A game after ``steps`` random moves: its raw observations and agent_0's planes through the batch planes."""
    env = envs.make("pommerman")
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not observations:
            break
        observations, *_ = env.step({agent: int(rng.integers(6)) for agent in observations})
    stack = build_interface(f"pommerman_room_planes(pommerman_batch_planes(ego={str(ego).lower()}))")
    stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return observations, stack


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60))
def test_the_planes_are_each_cells_room_and_the_nearest_enemys_distance(seed, steps):
    """Against plain Python searches on the raw board, cell by cell (the frame without ego): room as the
    evader counts it, never back through the agent's own cell, and the Manhattan distance to the nearest enemy."""
    observations, stack = _played(seed, steps, ego=False)
    for agent, observation in observations.items():
        planes = stack.transform_observation(observation)
        assert stack.observation_space.contains(planes)
        board, me = observation["board"], tuple(int(v) for v in observation["position"])
        passable = np.isin(board, _OPEN) & (observation["bomb_life"] == 0)
        passable[me] = False
        codes = [int(code) for code in observation["enemies"] if code >= 10]
        enemies = np.argwhere(np.isin(board, codes))
        for r in range(11):
            for c in range(11):
                expected = min(reference_room(passable, r, c, 3), 8) if passable[r, c] or (r, c) == me else 0
                assert planes[22, r, c] == expected, (agent, r, c)
                assert planes[23, r, c] == reference_distance(enemies, r, c, 10), (agent, r, c)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40), ego=st.booleans())
def test_a_batch_of_views_gets_what_each_view_gets(seed, steps, ego):
    observations, stack = _played(seed, steps, ego=ego)
    assume(observations)  # a game that ended has none
    inner = stack.inner  # the batch planes level
    views = np.stack([inner.transform_observation(observation) for observation in observations.values()])
    batched = stack.observation_batch(views)
    for row, view in zip(batched, views):
        assert np.array_equal(row, stack.observation(view))
    assert batched.shape == (len(views), 24, 11, 11)


def test_options_change_the_planes_and_show_in_the_name():
    views = np.zeros((1, 22, 11, 11), np.uint8)
    views[0, 0] = 1  # an open board
    views[0, 0, 5, 5], views[0, 9, 5, 5] = 0, 1  # the agent in the middle
    views[0, 0, 5, 8], views[0, 11, 5, 8] = 0, 1  # an enemy three steps to its right
    planes = room_planes(views, depth=1, cap=20, reach=2)
    assert planes[0, 0, 5, 5] == 5 and planes[0, 0, 0, 0] == 3  # a cell and its open neighbours
    assert planes[0, 0, 5, 8] == 0  # an enemy's cell is no room
    assert planes[0, 1, 5, 7] == 1 and planes[0, 1, 5, 5] == 2 and planes[0, 1, 0, 0] == 2  # capped at reach
    itf = PommermanRoomPlanes(depth=1, cap=20, reach=2)
    assert str(itf) == "PommermanRoomPlanes(depth=1, cap=20, reach=2)"
    itf.setup(plane_space("ffa"), spaces.Discrete(6))
    assert itf.observation_space.high[22].max() == 20 and itf.observation_space.high[23].max() == 2


@pytest.mark.parametrize("name", ["depth", "cap", "reach"])
@pytest.mark.parametrize("value", [0, 256, 2.5, True, "3"])
def test_bad_options_are_refused_with_their_name(name, value):
    with pytest.raises(InvalidValueError, match=rf"PommermanRoomPlanes: {name} must be an int in 1..255, got"):
        PommermanRoomPlanes(**{name: value})


def test_it_refuses_what_is_not_the_batch_planes():
    env = envs.make("pommerman")
    with pytest.raises(SpaceMismatchError, match=r"needs pommerman_batch_planes' uint8 planes .* got Dict"):
        PommermanRoomPlanes().setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    with pytest.raises(SpaceMismatchError, match=r"got Box"):
        PommermanRoomPlanes().setup(spaces.Box(0, 1, (22, 9, 9), np.uint8), spaces.Discrete(6))
    with pytest.raises(
        InvalidValueError, match=r"room_planes: expected PommermanBatch views .* got shape \(22, 11, 11\)"
    ):
        room_planes(np.zeros((22, 11, 11), np.uint8))


def test_a_learner_trains_with_it_on_the_batch(tmp_path):
    """A level of the user's own above the recipe's stack: the batched trainer runs it, and the folder plays it."""
    pytest.importorskip("sb3_contrib")
    from arena.cli import main
    from arena.training.trained import read_manifest
    from envs.pommerman.recipe import planes_interface

    stack = f"pommerman_room_planes({planes_interface(60)})"
    folder = tmp_path / "room"
    argv = ["train", "pommerman", "--interface", stack, "--env-options", '{"max_steps": 60}', "--timesteps", "128"]
    argv += ["--n-envs", "2", "--eval-games", "1", "--progress", "none", "--self-play", "off", "--out", str(folder)]
    argv += ["--algo-options", '{"n_steps": 64, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0
    assert read_manifest(folder)["interface"].startswith("pommerman_room_planes(")
