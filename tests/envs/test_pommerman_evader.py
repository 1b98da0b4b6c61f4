"""pommerman_evader and pommerman_shadow: the scripted survivors behind the action filter."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import make_agent, play
from arena.errors import InvalidValueError, SpaceMismatchError
from envs.pommerman.evader import PommermanEvaderAgent, pommerman_evader, pommerman_shadow

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


@pytest.mark.parametrize("seed", range(6))
def test_the_shadow_walks_towards_a_far_enemy_and_stops_at_its_distance(seed):
    board = np.zeros((11, 11), np.uint8)
    board[5, 1] = 10
    board[5, 9] = 11  # eight steps to the right: farther than approach=4
    shadow, evader = PommermanEvaderAgent(seed=seed, approach=4), PommermanEvaderAgent(seed=seed)
    assert shadow.act(_observation(board, (5, 1))) == 4  # right: the one move that comes nearer
    assert evader.act(_observation(board, (5, 1))) == 0  # the evader waits
    board[5, 1], board[5, 5] = 0, 10  # four steps away: near enough; room is alike everywhere, so it stops
    assert shadow.act(_observation(board, (5, 5))) == 0
    # three steps away: it backs off to four steps (up, down or left), as the evader does
    board[5, 5], board[5, 6] = 0, 10
    shadow, evader = PommermanEvaderAgent(seed=seed, approach=4), PommermanEvaderAgent(seed=seed)
    assert shadow.act(_observation(board, (5, 6))) == evader.act(_observation(board, (5, 6))) in (1, 2, 3)


def test_the_shadow_still_takes_room_before_nearness():
    board = np.ones((11, 11), np.uint8)  # a corridor along row 5 with a dead end to the left
    board[5, 2:11] = 0
    board[1:10, 6] = 0  # a crossing at column 6: open ground
    board[5, 5] = 10
    board[5, 2] = 11  # an enemy at the dead end's end: left walks towards it, into the dead end
    moving = [0, 0, 0, 1, 1, 0]  # only left and right allowed (a bomb ticking here, say)
    agent = PommermanEvaderAgent(seed=0, approach=1)
    assert agent.act(_observation(board, (5, 5), moving)) == 4  # right, into the crossing: more room than the dead end
    blind = PommermanEvaderAgent(seed=0, approach=1, radius=1)  # room never counts: nearness alone decides
    assert blind.act(_observation(board, (5, 5), moving)) == 3


@pytest.mark.parametrize("name", ["depth", "radius", "cap", "approach"])
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


def test_the_registered_shadow_follows_at_four_steps_and_repeats_with_its_seed():
    env = envs.make("pommerman", mode="team", max_steps=120)

    def game(seed):
        record = []
        agents = [make_agent("pommerman_shadow", seed=5), make_agent("pommerman_simple")] * 2
        episode = play(env, agents, seed=seed, record=record)
        return episode.returns, [step.get("agent_0") for step in record]

    first, second = game(3), game(3)
    assert first == second
    assert 5 not in first[1] and set(first[1]) - {None, 0}  # it moves, and never bombs
    shadow = make_agent("pommerman_shadow")
    assert shadow.unwrapped.approach == 4 and pommerman_shadow(approach=6).unwrapped.approach == 6
    assert make_agent("pommerman_evader").unwrapped.approach is None
