"""Rules of connect four: drops, wins in every direction, draws, bad moves, planning copies."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from arena import IllegalActionError, InvalidActionError, ResetNeeded, WrongAgentsError
from arena.testing import check_env
from envs.connect_four import ConnectFour, has_four

# A full board without four in a line, found by random play and kept as a fixture.
DRAW = [
    3,
    6,
    1,
    3,
    1,
    3,
    6,
    4,
    5,
    5,
    3,
    4,
    3,
    1,
    1,
    0,
    4,
    3,
    0,
    4,
    6,
    6,
    2,
    6,
    1,
    0,
    5,
    5,
    2,
    4,
    5,
    1,
    5,
    6,
    0,
    0,
    2,
    2,
    4,
    2,
    2,
    0,
]


def play_moves(env, moves):
    observations, infos = env.reset(seed=0)
    result = (observations, {}, {}, {}, infos)
    for index, column in enumerate(moves):
        agent = f"player_{index % 2}"
        assert list(result[0]) == [agent]
        result = env.step({agent: column})
    return result


def test_discs_fall_to_the_lowest_empty_row_and_only_the_mover_observes():
    env = ConnectFour()
    observations, infos = env.reset()
    assert list(observations) == ["player_0"] and observations["player_0"].dtype == np.int8
    observations, rewards, terms, truncs, infos = env.step({"player_0": 2})
    assert list(observations) == ["player_1"] and list(infos) == ["player_1"]
    observations, *_ = env.step({"player_1": 2})
    board = observations["player_0"]
    assert board[5, 2] == 1 and board[4, 2] == 2 and board.sum() == 3
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and not any(terms.values())


@pytest.mark.parametrize(
    "moves, winner",
    [
        ([0, 0, 1, 1, 2, 2, 3], "player_0"),  # bottom row
        ([4, 5, 4, 5, 4, 5, 4], "player_0"),  # column
        ([0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3], "player_0"),  # diagonal rising to the right
        ([6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3], "player_0"),  # diagonal rising to the left
        ([3, 3, 0, 3, 0, 3, 1, 3], "player_1"),  # column for O, off the floor
        ([0, 2, 0, 3, 1, 4, 1, 5], "player_1"),  # row for O, away from the edges
    ],
)
def test_four_in_a_line_wins(moves, winner):
    env = ConnectFour()
    observations, rewards, terms, truncs, infos = play_moves(env, moves)
    loser = "player_1" if winner == "player_0" else "player_0"
    assert rewards == {winner: 1.0, loser: -1.0}
    assert terms == {"player_0": True, "player_1": True} and not any(truncs.values())
    assert observations == {} and env.agents == [] and env.acting_agents == ()


def test_full_board_without_four_is_a_draw_and_renders():
    env = ConnectFour(render_mode="ansi")
    observations, rewards, terms, *_ = play_moves(env, DRAW)
    assert rewards == {"player_0": 0.0, "player_1": 0.0} and all(terms.values()) and observations == {}
    assert env.render() == ("OOXOXXO\nOXOXOXO\nXXOXOOO\nOOXOXXX\nXXXOOOX\nOXXXOXO\n0123456\n")
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step({"player_0": 0})


def test_no_four_before_the_last_move_of_the_draw():
    env = ConnectFour()
    observations, rewards, terms, *_ = play_moves(env, DRAW[:-1])
    assert not any(terms.values()) and list(observations) == ["player_1"]


def test_full_column_is_masked_and_illegal_with_a_clear_message():
    env = ConnectFour()
    observations, rewards, terms, truncs, infos = play_moves(env, [3, 3, 3, 3, 3, 3])
    assert infos["player_0"]["action_mask"].tolist() == [1, 1, 1, 0, 1, 1, 1]
    with pytest.raises(
        IllegalActionError, match=r"action 3 for 'player_0' is illegal now; legal actions: \[0, 1, 2, 4, 5, 6\]"
    ):
        env.step({"player_0": 3})
    observations, *_ = env.step({"player_0": np.int64(4)})  # the rejected move changed nothing
    assert observations["player_1"][:, 3].tolist() == [2, 1, 2, 1, 2, 1]


def test_bad_moves_name_the_env_and_what_came():
    env = ConnectFour()
    with pytest.raises(ResetNeeded, match=r"<ConnectFour>: step\(\) called with no episode running"):
        env.step({"player_0": 0})
    env.reset()
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['player_0'\].*got \['player_1'\]"):
        env.step({"player_1": 0})
    with pytest.raises(InvalidActionError, match=r"must lie in Discrete\(7\), got 7"):
        env.step({"player_0": 7})
    with pytest.raises(InvalidActionError, match=r"must be an integer in Discrete\(7\), got 'left'"):
        env.step({"player_0": "left"})
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi', got 'human'"):
        ConnectFour(render_mode="human")


def test_clone_is_independent_of_the_game_it_copies():
    env = ConnectFour()
    play_moves(env, [3, 2, 3])
    twin = env.clone()
    assert twin.acting_agents == ("player_1",)
    twin.step({"player_1": 3})
    observations, *_ = env.step({"player_1": 0})
    board = observations["player_0"]
    assert board[3, 3] == 0 and board[5, 0] == 2  # the twin's move did not leak into the original
    assert twin.board_text() != env.board_text()


def test_has_four_in_every_direction_and_not_across_the_column_edge():
    def bit(column, height):
        return 1 << (column * 7 + height)

    assert has_four(bit(0, 0) | bit(0, 1) | bit(0, 2) | bit(0, 3))
    assert has_four(bit(1, 2) | bit(2, 2) | bit(3, 2) | bit(4, 2))
    assert has_four(bit(0, 0) | bit(1, 1) | bit(2, 2) | bit(3, 3))
    assert has_four(bit(3, 0) | bit(2, 1) | bit(1, 2) | bit(0, 3))
    assert not has_four(bit(0, 3) | bit(0, 4) | bit(0, 5) | bit(1, 0))  # wraps into the next column
    assert not has_four(bit(0, 0) | bit(1, 0) | bit(2, 0) | bit(4, 0))


def test_contract_names_and_seeded_reproducibility():
    env = envs.make("connect_four", render_mode="ansi")
    check_env(env, episodes=4)
    assert env.action_names("player_1") == [f"column {c}" for c in range(7)]
    assert env.perfect_information is True
