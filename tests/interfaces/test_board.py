"""Board interfaces: EgoBoard (player-relative view) and RotateBoard (symmetries that map actions back)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import envs
from arena import SpaceMismatchError
from arena.testing import check_interface
from interfaces import EgoBoard, RotateBoard

board_shapes = st.tuples(st.integers(1, 5), st.integers(1, 5))


def board_space(shape, dtype=np.int8):
    return spaces.Box(0, 2, shape, dtype)


@settings(max_examples=30, deadline=None)
@given(board_shapes, st.sampled_from([None, 0, 1]), st.booleans(), st.sampled_from([np.int8, np.int64]))
def test_ego_board_keeps_the_contract(shape, player, planes, dtype):
    check_interface(
        EgoBoard(player=player, planes=planes),
        board_space(shape, dtype),
        spaces.Discrete(shape[0] * shape[1]),
        examples=8,
    )


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.int8, (3, 3), elements=st.integers(0, 2)))
def test_ego_board_follows_the_player_to_move_and_an_explicit_seat(board):
    mover_mark = 1 if np.count_nonzero(board) % 2 == 0 else 2
    inferred, planes = EgoBoard(), EgoBoard(planes=True)
    seat_1 = EgoBoard(player=1)
    for itf in (inferred, planes, seat_1):
        itf.setup(board_space((3, 3)), spaces.Discrete(9))
    view = inferred.transform_observation(board)
    opponent = (board != 0) & (board != mover_mark)
    np.testing.assert_array_equal(view, (board == mover_mark).astype(np.float32) - opponent)
    stacked = planes.transform_observation(board)
    np.testing.assert_array_equal(stacked[0] - stacked[1], view)
    assert stacked.shape == (2, 3, 3) and set(np.unique(stacked)) <= {0.0, 1.0}
    np.testing.assert_array_equal(
        seat_1.transform_observation(board), (board == 2).astype(np.float32) - (board == 1).astype(np.float32)
    )


def test_ego_board_makes_both_seats_see_the_same_position_alike():
    env = envs.make("tic_tac_toe")
    itf = EgoBoard()
    itf.setup(env.observation_space("player_0"), env.action_space("player_0"))
    obs, _ = env.reset(seed=0)
    obs, *_ = env.step({"player_0": 4})
    obs, *_ = env.step({"player_1": 0})
    as_x = itf.transform_observation(obs["player_0"])
    assert as_x[1, 1] == 1 and as_x[0, 0] == -1  # X to move sees its centre as own
    obs, *_ = env.step({"player_0": 8})
    as_o = itf.transform_observation(obs["player_1"])
    assert as_o[0, 0] == 1 and as_o[1, 1] == -1 and as_o[2, 2] == -1  # O to move sees its corner as own


@pytest.mark.parametrize(
    "space, message",
    [
        (
            spaces.Box(0.0, 2.0, (3, 3)),
            r"needs an integer Box board with values in 0..2 .* got Box\(0.0, 2.0, \(3, 3\), float32\)",
        ),
        (spaces.Box(0, 3, (3, 3), np.int8), r"got Box\(0, 3, \(3, 3\), int8\)"),
        (spaces.Discrete(9), r"EgoBoard\(\): needs a Box observation space, got Discrete\(9\)"),
    ],
)
def test_ego_board_rejects_non_boards(space, message):
    with pytest.raises(SpaceMismatchError, match=message):
        EgoBoard().setup(space, spaces.Discrete(9))


def test_ego_board_rejects_bad_seats():
    with pytest.raises(ValueError, match=r"EgoBoard: player must be 0, 1 or None \(infer from parity\), got 2"):
        EgoBoard(player=2)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(0, 7), st.booleans(), st.integers(0, 2))
def test_rotate_board_keeps_the_contract_on_square_boards(side, turns, mirror, planes):
    shape = (planes, side, side) if planes else (side, side)
    check_interface(
        RotateBoard(quarter_turns=turns, mirror=mirror), board_space(shape), spaces.Discrete(side * side), examples=8
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 3), st.booleans(), hnp.arrays(np.int8, (3, 3), elements=st.integers(0, 2)), st.integers(0, 8))
def test_rotate_board_maps_the_cell_the_model_sees_to_the_same_raw_cell(turns, mirror, board, model_action):
    itf = RotateBoard(quarter_turns=turns, mirror=mirror)
    itf.setup(board_space((3, 3)), spaces.Discrete(9))
    view = itf.transform_observation(board)
    expected = np.rot90(board, turns)
    np.testing.assert_array_equal(view, np.fliplr(expected) if mirror else expected)
    raw = itf.transform_action(model_action)
    assert view.reshape(-1)[model_action] == board.reshape(-1)[raw]  # the model acts on what it sees
    mask = (board.reshape(-1) == 0).astype(np.int8)
    np.testing.assert_array_equal(itf.transform_action_mask(mask), (view.reshape(-1) == 0).astype(np.int8))


def test_four_quarter_turns_are_the_identity():
    itf = RotateBoard(
        RotateBoard(RotateBoard(RotateBoard(quarter_turns=1), quarter_turns=1), quarter_turns=1), quarter_turns=1
    )
    itf.setup(board_space((3, 3)), spaces.Discrete(9))
    board = np.arange(9, dtype=np.int8).reshape(3, 3) % 3
    np.testing.assert_array_equal(itf.transform_observation(board), board)
    assert [itf.transform_action(a) for a in range(9)] == list(range(9))


def test_rotate_board_mirrors_connect_four_columns():
    env = envs.make("connect_four")
    itf = RotateBoard(quarter_turns=0, mirror=True)
    check_interface(itf, env.observation_space("player_0"), env.action_space("player_0"), examples=10)
    assert [itf.transform_action(c) for c in range(7)] == [6, 5, 4, 3, 2, 1, 0]
    mask = np.array([1, 1, 0, 1, 1, 1, 0], dtype=np.int8)
    assert itf.transform_action_mask(mask).tolist() == [0, 1, 1, 1, 0, 1, 1]


@pytest.mark.parametrize(
    "kwargs, obs, actions, message",
    [
        (
            {"quarter_turns": 1},
            spaces.Box(0, 2, (6, 7), np.int8),
            spaces.Discrete(42),
            r"RotateBoard\(quarter_turns=1\): odd quarter turns need a square board, got 6x7",
        ),
        (
            {"quarter_turns": 2},
            spaces.Box(0, 2, (3, 3), np.int8),
            spaces.Discrete(4),
            r"needs one action per cell \(Discrete\(9\)\) or per column \(Discrete\(3\)\) of the 3x3 board, "
            r"got Discrete\(4\)",
        ),
        (
            {"quarter_turns": 1},
            spaces.Box(0, 2, (3, 3), np.int8),
            spaces.Discrete(3),
            r"column actions \(Discrete\(3\)\) need a transform that keeps columns as columns",
        ),
        (
            {"quarter_turns": 0},
            spaces.Box(0, 2, (9,), np.int8),
            spaces.Discrete(9),
            r"needs a Box observation with \(rows, columns\) as its last axes, got Box\(0, 2, \(9,\), int8\)",
        ),
        (
            {"quarter_turns": 0},
            spaces.Box(0, 2, (3, 3), np.int8),
            spaces.MultiDiscrete([3, 3]),
            r"needs a Discrete action space, got MultiDiscrete\(\[3 3\]\)",
        ),
    ],
)
def test_rotate_board_rejects_what_it_cannot_map(kwargs, obs, actions, message):
    with pytest.raises(SpaceMismatchError, match=message):
        RotateBoard(**kwargs).setup(obs, actions)
