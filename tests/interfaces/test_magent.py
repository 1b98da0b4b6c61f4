"""MAgent2 side interfaces on the real magent2 package: a side in one call, grid-wise control, combined arms."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("magent2", reason="the MAgent2 envs need magent2 (pip install 'arena-marl[magent]')")

from gymnasium import spaces

import envs
from arena import AgtItfWrapper, RandomAgent, play
from arena.errors import SpaceMismatchError
from arena.testing import check_interface
from envs.magent.agents import MAgentAttackNearestAgent
from interfaces.magent import GridControl, SideStack, combine_by_unit
from interfaces.observation import Flatten


def _side_spaces(env, side):
    members = env.teams[side]
    return (
        spaces.Tuple([env.observation_space(a) for a in members]),
        spaces.Tuple([env.action_space(a) for a in members]),
    )


def test_check_interface_passes_on_every_magent_interface():
    battle = envs.make("magent_battle", map_size=12, minimap_mode=True)
    check_interface(SideStack(soldier=Flatten()), *_side_spaces(battle, "red"), examples=8)
    check_interface(GridControl(map_size=12), *_side_spaces(battle, "blue"), examples=8)
    arms = envs.make("magent_combined_arms", map_size=16)
    check_interface(
        combine_by_unit(arms.teams["red"], melee=Flatten, ranged=lambda: None), *_side_spaces(arms, "red"), examples=4
    )


def test_grid_control_round_trip_places_every_soldier_and_gives_each_its_cell():
    env = envs.make("magent_battle", map_size=16, minimap_mode=True, max_steps=30)
    grid = GridControl(map_size=16)
    grid.setup(*_side_spaces(env, "red"))
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(8):  # into contact: the enemy comes into view
        observations, *_ = env.step({a: int(rng.integers(21)) if a.startswith("blue") else 8 for a in observations})
    red = env.teams["red"]
    planes = grid.transform_observation(tuple(observations.get(a) for a in red))
    where = env.positions()
    own = {(int(x), int(y)) for a, (x, y) in where.items() if a.startswith("red")}
    enemy = {(int(x), int(y)) for a, (x, y) in where.items() if a.startswith("blue")}
    assert {(x, y) for y, x in np.argwhere(planes[1] > 0)} == own
    seen = {(x, y) for y, x in np.argwhere(planes[3] > 0)}
    assert seen and seen <= enemy
    assert np.all(planes[0][0] == 1) or np.all(planes[0][:, 0] == 1) or planes[0].sum() > 0  # walls seen
    actions = rng.integers(0, 21, (16, 16))
    raw = grid.transform_action(actions)
    for member, action in zip(red, raw):
        if member in observations:
            x, y = where[member]
            assert action == actions[y, x]
        else:
            assert action is None


def test_grid_control_needs_position_planes_and_says_so():
    env = envs.make("magent_battle", map_size=12)
    with pytest.raises(SpaceMismatchError, match="minimap_mode=True"):
        GridControl(map_size=12).setup(*_side_spaces(env, "red"))
    arms = envs.make("magent_combined_arms", map_size=16)
    with pytest.raises(SpaceMismatchError, match="combine_by_unit"):
        SideStack().setup(*_side_spaces(arms, "red"))


def test_a_side_in_one_call_plays_like_the_scripted_army_and_beats_random():
    env = envs.make("magent_battle", map_size=16, max_steps=200)
    calls = []

    class Counting(MAgentAttackNearestAgent):
        def act(self, observation, action_mask=None, reward=0.0):
            calls.append(np.shape(observation))
            return super().act(observation, action_mask, reward)

    army = AgtItfWrapper(Counting(seed=0), SideStack())
    episode = play(env, {"red": army, **{a: RandomAgent(i) for i, a in enumerate(env.teams["blue"])}}, seed=0)
    assert episode.outcome == "red wins"
    assert len(calls) == episode.length and calls[0] == (len(env.teams["red"]), 13, 13, 5)  # one call a step


def test_grid_controlled_army_and_combined_arms_stacks_play_through_arena_play():
    battle = envs.make("magent_battle", map_size=12, minimap_mode=True, max_steps=20)
    grid_army = AgtItfWrapper(RandomAgent(seed=0), GridControl(map_size=12))
    episode = play(
        battle, {"red": grid_army, "blue": AgtItfWrapper(RandomAgent(seed=1), GridControl(map_size=12))}, seed=0
    )
    assert episode.length > 0
    arms = envs.make("magent_combined_arms", map_size=16, max_steps=200)
    red = arms.teams["red"]
    team = AgtItfWrapper(
        [MAgentAttackNearestAgent() for _ in red], combine_by_unit(red, melee=lambda: None, ranged=lambda: None)
    )
    flat = AgtItfWrapper(
        [RandomAgent(i) for i, _ in enumerate(red)], combine_by_unit(arms.teams["blue"], melee=Flatten, ranged=Flatten)
    )
    episode = play(arms, {"red": team, "blue": flat}, seed=2)
    assert episode.outcome == "red wins"
    with pytest.raises(ValueError, match=r"no stack for unit types \['ranged'\]"):
        combine_by_unit(red, melee=Flatten)
