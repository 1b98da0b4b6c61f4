"""Integers of every kind are actions (numpy scalars, IntEnum members, int subclasses), in every
bundled env, in the table-lookup interfaces and in tournaments; out-of-space actions are refused
by the interface, never wrapped into a legal raw action."""

from __future__ import annotations

import enum

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import InvalidActionError
from arena.registry import env_names, make_env


class Sub(int):
    pass


KINDS = {
    "numpy int64": np.int64,
    "numpy uint8": np.uint8,
    "0-d array": lambda a: np.array(a, dtype=np.int32),
    "IntEnum": lambda a: enum.IntEnum("Action", {f"a{i}": i for i in range(a + 1)})(a),
    "int subclass": Sub,
}


def episode(name, convert, steps=40):
    env = make_env(name)
    observations, infos = env.reset(seed=7)
    rng = np.random.default_rng(7)
    trace = []
    for _ in range(steps):
        actions = {}
        for agent in observations:
            mask = infos.get(agent, {}).get("action_mask")
            legal = np.flatnonzero(mask) if mask is not None else np.arange(env.action_space(agent).n)
            actions[agent] = convert(int(rng.choice(legal)))
        observations, rewards, terminations, truncations, infos = env.step(actions)
        trace.append((sorted(rewards.items()), sorted(terminations.items())))
        if not env.agents:
            break
    return trace


def discrete_envs():
    names = []
    for name in env_names():
        if name == "vizdoom_deathmatch":  # an engine process per env: covered by its own tests
            continue
        env = make_env(name)
        if all(isinstance(env.action_space(agent), spaces.Discrete) for agent in env.possible_agents):
            names.append(name)
    return names


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("name", discrete_envs())
def test_every_bundled_env_takes_integers_of_every_kind_and_plays_the_same(name, kind):
    assert episode(name, KINDS[kind]) == episode(name, int)


def lookup_interfaces():
    from interfaces.action import DiscretizeBox, MultiDiscreteToDiscrete
    from interfaces.board import RotateBoard

    rotate = RotateBoard(quarter_turns=1)
    rotate.setup(spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9))
    multi = MultiDiscreteToDiscrete()
    multi.setup(spaces.Discrete(2), spaces.MultiDiscrete([2, 3]))
    box = DiscretizeBox(bins=3)
    box.setup(spaces.Discrete(2), spaces.Box(-1.0, 1.0, (2,), np.float32))
    return [rotate, multi, box]


@pytest.mark.parametrize("index", range(3))
def test_lookup_interfaces_refuse_actions_outside_their_space_and_take_every_integer_kind(index):
    itf = lookup_interfaces()[index]
    n = itf.action_space.n
    for bad in (-1, n, n + 5, True, 1.0, "1"):
        with pytest.raises(
            InvalidActionError, match=rf"{type(itf).__name__}\(.*\): action .* is not in Discrete\({n}\)"
        ):
            itf.transform_action(bad)
    for action in range(n):
        plain = itf.transform_action(action)
        assert itf.action_space.contains(action)
        for convert in KINDS.values():
            assert np.array_equal(itf.transform_action(convert(action)), plain)


@settings(max_examples=30, deadline=None)
@given(nvec=st.lists(st.integers(1, 4), min_size=1, max_size=3), action=st.integers(-20, 80))
def test_multi_discrete_to_discrete_maps_exactly_its_own_space(nvec, action):
    from interfaces.action import MultiDiscreteToDiscrete

    itf = MultiDiscreteToDiscrete()
    raw = spaces.MultiDiscrete(nvec)
    itf.setup(spaces.Discrete(2), raw)
    if 0 <= action < int(np.prod(nvec)):
        assert raw.contains(np.asarray(itf.transform_action(action)))
    else:
        with pytest.raises(InvalidActionError):
            itf.transform_action(action)


def test_a_tournament_entrant_that_answers_with_odd_integers_plays_normally():
    from arena.tournament import run_tournament

    result = run_tournament("tic_tac_toe", ["random", "odd=tests.faults.entrants:OddIntegersAgent"], games=4, seed=2)
    assert result.complete and result.errors == [] and result.forfeits == []
    plain = run_tournament("connect_four", ["random", "odd=tests.faults.entrants:OddIntegersAgent"], games=2, seed=2)
    assert plain.errors == [] and plain.forfeits == []
