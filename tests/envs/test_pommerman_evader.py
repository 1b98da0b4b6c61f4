"""pommerman_evader: the scripted FFA survivor behind the action filter."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import make_agent, play
from arena.errors import InvalidValueError, SpaceMismatchError
from envs.pommerman.evader import PommermanEvaderAgent, pommerman_evader

ALL = np.ones(6, np.int8)


def _observation(board, position, safe=ALL, bombs=None):
    return {
        "board": board,
        "bomb_life": np.zeros_like(board) if bombs is None else bombs,
        "position": np.array(position),
        "enemies": np.array([11, 12, 13]),
        "safe_moves": np.asarray(safe, np.int8),
    }


def test_it_leaves_a_dead_end_when_an_enemy_comes_near():
    board = np.ones((11, 11), np.uint8)  # rigid walls, and a pocket open only to the right
    board[5, 3:11] = 0
    board[2:9, 8] = 0  # a crossing corridor: open ground
    board[5, 3] = 10  # the evader at the pocket's end
    board[5, 6] = 11  # an enemy in the corridor
    agent = PommermanEvaderAgent(seed=0)
    # it can only go right (towards the enemy and the crossing) or stay; staying keeps 1 + 3 cells of room,
    # going right 1 + 2: the dead end's room, counted without stepping back
    assert agent.act(_observation(board, (5, 3))) == 0
    board[5, 6] = 0
    board[2, 8] = 11  # the enemy far (farther than radius): room does not count, so it stops
    assert agent.act(_observation(board, (5, 3))) == 0


@pytest.mark.parametrize("seed", range(8))
def test_a_pocket_entered_from_here_counts_as_the_pocket_only(seed):
    """Stop forbidden, up leads into the open and left into a two-cell pocket: counted without stepping
    back through its own cell, the pocket has less room, so it goes up whatever its coin flips."""
    board = np.zeros((11, 11), np.uint8)
    board[4, 3:5] = board[6, 3:5] = board[5, 2] = 1  # the pocket (5, 3)-(5, 4), open to the right only
    board[5, 5] = 10
    board[8, 6] = 11  # an enemy near (4 steps), as far from up's cell as from left's
    agent = PommermanEvaderAgent(seed=seed)
    assert agent.act(_observation(board, (5, 5), safe=[0, 1, 0, 1, 0, 1])) == 1


def test_it_never_takes_a_move_the_filter_forbids_and_never_bombs():
    board = np.zeros((11, 11), np.uint8)
    board[5, 5] = 10
    board[5, 7] = 11
    agent = PommermanEvaderAgent(seed=3)
    for safe in ([0, 1, 0, 0, 0, 1], [0, 0, 0, 1, 1, 0], [1, 0, 0, 0, 0, 1]):
        move = agent.act(_observation(board, (5, 5), safe))
        assert safe[move] and move != 5


@pytest.mark.parametrize("name", ["depth", "radius", "cap"])
@pytest.mark.parametrize("value", [0, -2, 1.5, True, "3"])
def test_bad_options_are_refused_with_their_name(name, value):
    with pytest.raises(InvalidValueError, match=rf"PommermanEvaderAgent: {name} must be a positive int, got"):
        PommermanEvaderAgent(**{name: value})


def test_it_refuses_observations_without_the_filters_mask():
    env = envs.make("pommerman")
    with pytest.raises(SpaceMismatchError, match=r"missing \['safe_moves'\].*pommerman_evader plays behind"):
        PommermanEvaderAgent().setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    radio = envs.make("pommerman", mode="radio")
    evader = pommerman_evader()
    with pytest.raises(SpaceMismatchError):
        evader.setup(radio.observation_space("agent_0"), spaces.MultiDiscrete([6, 8, 8]))


def test_the_registered_evader_plays_behind_the_filter_and_repeats_with_its_seed():
    env = envs.make("pommerman", max_steps=120)

    def game(seed):
        record = []
        agents = [make_agent("pommerman_evader", seed=5)] + [make_agent("pommerman_simple") for _ in range(3)]
        episode = play(env, agents, seed=seed, record=record)
        return episode.returns, [step.get("agent_0") for step in record]

    first, second = game(11), game(11)
    assert first == second
    assert 5 not in first[1]  # it never bombs
    assert str(make_agent("pommerman_evader")) == "AgtItfWrapper(PommermanEvaderAgent, PommermanSafeMoves())"
