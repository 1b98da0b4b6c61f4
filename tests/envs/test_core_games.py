"""Rules of tic-tac-toe and rock-paper-scissors, and the env registry."""

from __future__ import annotations

import importlib.metadata

import numpy as np
import pytest

import envs
from arena import IllegalActionError, RandomAgent, UnknownNameError, play
from arena.testing import check_env
from tests.quick import quick_make


def run(env, moves):
    env.reset(seed=0)
    result = None
    for i, move in enumerate(moves):
        result = env.step({f"player_{i % 2}": move})
    return result


@pytest.mark.parametrize(
    "moves, winner",
    [
        ([0, 3, 1, 4, 2], "player_0"),  # row
        ([0, 1, 3, 2, 6], "player_0"),  # column
        ([0, 1, 4, 2, 8], "player_0"),  # diagonal
        ([1, 2, 0, 4, 3, 6], "player_1"),  # anti-diagonal
    ],
)
def test_tic_tac_toe_wins(moves, winner):
    env = envs.make("tic_tac_toe")
    obs, rewards, terms, truncs, infos = run(env, moves)
    loser = "player_1" if winner == "player_0" else "player_0"
    assert rewards == {winner: 1.0, loser: -1.0} and all(terms.values()) and obs == {} and env.agents == []


def test_tic_tac_toe_draw_and_render():
    env = envs.make("tic_tac_toe", render_mode="ansi")
    obs, rewards, terms, *_ = run(env, [0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and all(terms.values())
    assert env.render() == "XOX\nXOO\nOXX\n"


def test_tic_tac_toe_penalty_variant_ignores_the_move_and_passes_the_turn():
    env = envs.make("tic_tac_toe", illegal_action="penalty", illegal_penalty=-5.0)
    env.reset()
    env.step({"player_0": 4})
    obs, rewards, *_ = env.step({"player_1": 4})
    assert rewards["player_1"] == -5.0 and list(obs) == ["player_0"] and obs["player_0"].sum() == 1
    with pytest.raises(IllegalActionError):
        strict = envs.make("tic_tac_toe")
        strict.reset()
        strict.step({"player_0": 4})
        strict.step({"player_1": 4})
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'penalty', got 'ignore'"):
        envs.make("tic_tac_toe", illegal_action="ignore")


def test_rock_paper_scissors_rounds_observations_and_rewards():
    env = envs.make("rock_paper_scissors", rounds=2, render_mode="ansi")
    obs, _ = env.reset()
    assert obs == {"player_0": 3, "player_1": 3}
    obs, rewards, terms, *_ = env.step({"player_0": 1, "player_1": 0})  # paper beats rock
    assert rewards == {"player_0": 1.0, "player_1": -1.0} and obs == {"player_0": 0, "player_1": 1}
    assert env.render() == "round 1/2: player_0 paper, player_1 rock\n"
    obs, rewards, terms, *_ = env.step({"player_0": 2, "player_1": 2})
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and all(terms.values()) and obs == {}
    with pytest.raises(ValueError, match="rounds must be a positive integer, got 0"):
        envs.make("rock_paper_scissors", rounds=0)


@pytest.mark.parametrize("name", envs.names())
def test_every_bundled_env_keeps_the_contract_and_renders(name):
    env = (
        quick_make(name, render_mode="ansi")
        if "ansi" in quick_make(name).metadata.get("render_modes", [])
        else quick_make(name)
    )
    check_env(env)
    episode = play(env, {agent: RandomAgent(i) for i, agent in enumerate(env.possible_agents)}, seed=0)
    assert episode.length > 0
    assert env.__doc__ and "Observation" in env.__doc__ and "Action" in env.__doc__


def test_unknown_env_lists_the_available_names():
    with pytest.raises(UnknownNameError, match=r"unknown env 'chess'; available: .*rock_paper_scissors.*tic_tac_toe"):
        envs.make("chess")


def test_every_bundled_env_is_declared_as_an_entry_point():
    declared = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="arena.envs")}
    for name, target in envs.REGISTRY.items():
        assert declared.get(name) == target, f"setup.cfg [arena.envs] must declare {name} = {target}"


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four"])
def test_a_clone_plays_on_alone_and_leaves_the_original_as_it_was(name):
    env = envs.make(name, render_mode="ansi")
    observations, infos = env.reset(seed=4)
    for _ in range(3):
        agent = next(iter(observations))
        observations, _, _, _, infos = env.step({agent: int(infos[agent]["action_mask"].argmax())})
    before = env.render()
    twin = env.clone()
    assert twin.render() == before and twin.agents == env.agents and twin.agents is not env.agents
    twin_obs, twin_infos = observations, infos
    while twin_obs:  # the twin plays to the end, always the last legal move
        agent = next(iter(twin_obs))
        twin_obs, *_, twin_infos = twin.step({agent: int(np.flatnonzero(twin_infos[agent]["action_mask"])[-1])})
    assert twin.agents == [] and env.render() == before  # nothing the twin did reached the original
    agent = next(iter(observations))
    observations, *_ = env.step({agent: int(infos[agent]["action_mask"].argmax())})
    assert env.render() != before and env.render() != twin.render()
