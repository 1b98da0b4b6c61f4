"""ConnectFourHeuristicAgent: wins when it can, blocks when it must, and beats random play."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import RandomAgent, SpaceMismatchError, make_agent, play
from arena.testing import check_agent
from envs.connect_four_agents import ConnectFourHeuristicAgent


def position(moves):
    """The connect four env after ``moves``, with the mover's observation and mask."""
    env = envs.make("connect_four")
    observations, infos = env.reset()
    for column in moves:
        observations, *_, infos = env.step({env.acting_agents[0]: column})
    ((agent, observation),) = observations.items()
    return env, agent, observation, infos[agent]["action_mask"]


def heuristic(env, seed=0):
    agent = ConnectFourHeuristicAgent(seed=seed)
    agent.setup(env.observation_space("player_0"), env.action_space("player_0"))
    return agent


@pytest.mark.parametrize(
    "moves, expected",
    [
        ([0, 6, 0, 6, 0, 5], 0),  # player_0 completes its column
        ([1, 1, 2, 2, 3, 3], 0),  # player_0 completes its row at either end: 0 comes first
        ([0, 2, 0, 3, 6, 4, 6], 1),  # player_1 completes its row (it plays second); 1 comes before 5
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6], 3),  # player_0 completes a diagonal
    ],
)
def test_takes_a_winning_move(moves, expected):
    env, agent_id, observation, mask = position(moves)
    assert heuristic(env).act(observation, mask) == expected


@pytest.mark.parametrize(
    "moves, expected",
    [
        ([0, 6, 0, 6, 0], 0),  # player_1 blocks a column
        ([6, 2, 6, 3, 0, 4], 1),  # player_0 blocks a row open at both ends, at the first
    ],
)
def test_blocks_the_opponents_winning_move(moves, expected):
    env, agent_id, observation, mask = position(moves)
    assert heuristic(env).act(observation, mask) == expected


def test_prefers_winning_to_blocking():
    env, agent_id, observation, mask = position([0, 1, 0, 1, 0, 1])  # both threaten; player_0 to move
    assert agent_id == "player_0" and heuristic(env).act(observation, mask) == 0


def test_without_a_threat_it_plays_random_legal_moves_reproducibly():
    env, agent_id, observation, mask = position([3, 3, 3, 3, 3, 3])  # column 3 is full
    agent = heuristic(env, seed=5)
    first = [agent.act(observation, mask) for _ in range(20)]
    agent.reset(seed=5)
    assert [agent.act(observation, mask) for _ in range(20)] == first
    assert 3 not in first and len(set(first)) > 2
    assert 3 not in {agent.act(observation) for _ in range(20)}  # no mask: full columns still avoided


def test_beats_random_at_connect_four():
    env = envs.make("connect_four")
    wins = 0
    for game in range(20):
        seat = game % 2
        agents = [make_agent("connect_four_heuristic", seed=game), RandomAgent()]
        episode = play(env, agents if seat == 0 else agents[::-1], seed=game)
        wins += episode.winners == [f"player_{seat}"]
    assert wins >= 15


def test_refuses_other_games_spaces_and_keeps_the_agent_contract():
    with pytest.raises(
        SpaceMismatchError,
        match=r"expected connect four's spaces, a \(6, 7\) Box observation and "
        r"Discrete\(7\) actions, got Box\(0, 2, \(3, 3\), int8\) and "
        r"Discrete\(9\)",
    ):
        ConnectFourHeuristicAgent().setup(spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9))
    env = envs.make("connect_four")
    check_agent(ConnectFourHeuristicAgent(seed=1), env.observation_space("player_0"), env.action_space("player_0"))
