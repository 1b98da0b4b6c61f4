"""PommermanBatch's codes layout: unpacked, every view equals the planes layout's; the views lie in their space."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import InvalidValueError
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.codes import code_length, code_space, codes_to_planes

GAMES = 3
_BATCHES: dict = {}


def _pair(mode: str, ego: bool, copy: bool) -> tuple[PommermanBatch, PommermanBatch]:
    """A planes batch and a codes batch with the same options (kept: a batch's arrays are made once)."""
    key = (mode, ego, copy)
    if key not in _BATCHES:
        _BATCHES[key] = tuple(
            PommermanBatch(GAMES, mode, ego=ego, copy=copy, layout=layout, max_steps=40)
            for layout in ("planes", "codes")
        )
    return _BATCHES[key]


def _same_views(codes: np.ndarray, planes: np.ndarray, space) -> None:
    assert codes.shape == (*planes.shape[:-3], space.shape[0])
    unpacked = codes_to_planes(codes)
    for index in np.ndindex(planes.shape[:-3]):  # game by game, seat by seat: a failure names its view
        assert np.array_equal(unpacked[index], planes[index]), index
        assert space.contains(codes[index]), index


@settings(max_examples=12, deadline=None)
@given(
    mode=st.sampled_from(["ffa", "team", "radio"]),
    ego=st.booleans(),
    copy=st.booleans(),
    seed=st.integers(0, 2**31 - 1),
    steps=st.integers(1, 60),
    data=st.data(),
)
def test_codes_unpacked_are_the_planes_of_every_view(mode, ego, copy, seed, steps, data):
    planes_batch, codes_batch = _pair(mode, ego, copy)
    space = codes_batch.single_observation_space
    assert space == code_space(mode) and space.shape == (code_length(mode),)
    planes, _ = planes_batch.reset(seed=seed)
    codes, _ = codes_batch.reset(seed=seed)
    _same_views(codes, planes, space)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if data.draw(st.integers(0, 5)) == 0:  # now and then other seats viewed (a trainer's learner seats)
            seats = rng.random((GAMES, 4)) < 0.5
            planes_batch.set_view_seats(seats)
            codes_batch.set_view_seats(seats)
        actions = rng.integers(0, [6, 8, 8], (GAMES, 4, 3)) if mode == "radio" else rng.integers(0, 6, (GAMES, 4))
        planes, planes_rewards, _, _, planes_infos = planes_batch.step(actions)
        codes, codes_rewards, _, _, codes_infos = codes_batch.step(actions)
        assert np.array_equal(planes_rewards, codes_rewards)
        _same_views(codes, planes, space)
        if planes_infos["episode_over"].any():
            _same_views(codes_infos["final_observation"], planes_infos["final_observation"], space)
    games = np.arange(GAMES)
    _same_views(codes_batch.observe(games), planes_batch.observe(games), space)
    planes_batch.set_view_seats(np.ones((GAMES, 4), bool))
    codes_batch.set_view_seats(np.ones((GAMES, 4), bool))


def test_the_codes_space_and_the_unpacking_of_a_hand_made_view():
    space = code_space("radio")
    assert space.shape == (250,) and space.dtype == np.uint8
    assert space.high[:121].tolist() == [12 | 4 << 4] * 121 and space.high[121:242].tolist() == [10 | 10 << 4] * 121
    assert space.high[242:].tolist() == [10, 10, 1, 1, 3, 255, 7, 7]
    view = np.zeros(250, np.uint8)
    view[:121] = 1  # passage everywhere but one cell of self, a moving bomb and a cell of flames
    view[5 * 11 + 4] = 10
    view[3] = 4 | 2 << 4  # a bomb moving down (direction 2) at cell 3
    view[121 + 3] = 9 | 7 << 4  # its life 9, its blast strength 7
    view[7] = 5 | 3 << 4  # flames with life 3 at cell 7
    view[242:] = [1, 2, 0, 1, 3, 17, 4, 5]
    planes = codes_to_planes(view[None, None])[0, 0]
    assert planes.shape == (24, 11, 11)
    assert planes[0].sum() == 118 and planes[9, 5, 4] == 1 and planes[3, 0, 3] == 1 and planes[4, 0, 7] == 1
    assert (planes[12, 0, 3], planes[13, 0, 3], planes[14, 0, 3], planes[15, 0, 3]) == (9, 7, 2, 0)
    assert (planes[12, 0, 7], planes[13, 0, 7], planes[14, 0, 7], planes[15, 0, 7]) == (0, 0, 0, 3)
    assert planes[12:16].sum() == 9 + 7 + 2 + 3
    assert (planes[16:].reshape(8, -1) == np.array([1, 2, 0, 1, 3, 17, 4, 5])[:, None]).all()
    assert not codes_to_planes(np.zeros((2, 248), np.uint8)).any()  # the view of an agent not in play


@pytest.mark.parametrize(("mode", "ego"), [("ffa", False), ("team", True), ("radio", False)])
def test_flames_and_bombs_never_share_a_cell_over_long_random_games(mode, ego):
    """What lets one nibble of the codes layout carry either a bomb's direction or the flames' life.

    Long games with kicks (the planes layout, where each value has a plane of its own): a cell of
    flames shows the flames' code and life, never a bomb's values, and only bombs move.
    """
    batch = PommermanBatch(32, mode, ego=ego, copy=False)
    batch.reset(seed=7)
    rng = np.random.default_rng(7)
    moved = 0
    for _ in range(1200):
        moves = rng.choice(6, size=(32, 4), p=[0.1, 0.15, 0.15, 0.15, 0.15, 0.3])
        actions = np.stack([moves, *rng.integers(0, 8, (2, 32, 4))], axis=-1) if mode == "radio" else moves
        planes = batch.step(actions)[0].reshape(32, 4, -1, 121)
        flame_life, bomb_life, direction = planes[:, :, 15], planes[:, :, 12], planes[:, :, 14]
        on_flames = planes[:, :, 4] == 1
        assert np.array_equal(flame_life > 0, on_flames)
        assert not (on_flames & ((bomb_life > 0) | (direction > 0))).any()
        assert not ((direction > 0) & (bomb_life == 0)).any()
        moved += int((direction > 0).sum())
    assert moved > 0  # kicked bombs were seen moving


def test_bad_layouts_and_codes_name_what_was_expected():
    with pytest.raises(InvalidValueError, match=r"layout must be one of \('planes', 'codes'\), got 'bits'"):
        PommermanBatch(1, layout="bits")
    with pytest.raises(InvalidValueError, match=r"expected uint8 codes views of shape \(\.\.\., 248\) or"):
        codes_to_planes(np.zeros((2, 611), np.uint8))
    with pytest.raises(InvalidValueError, match=r"got int64 array of shape \(248,\)"):
        codes_to_planes(np.zeros(248, np.int64))


def test_the_codes_network_gives_the_planes_networks_features():
    pytest.importorskip("stable_baselines3")
    import torch

    from envs.pommerman.batch import plane_space
    from envs.pommerman.policy import CodesCNN, PlanesCNN

    codes = PommermanBatch(2, "radio", layout="codes").reset(seed=1)[0].reshape(8, -1)
    planes = PommermanBatch(2, "radio").reset(seed=1)[0].reshape(8, 24, 11, 11)
    torch.manual_seed(0)
    on_planes = PlanesCNN(plane_space("radio"), features_dim=32)
    on_codes = CodesCNN(code_space("radio"), features_dim=32)
    on_codes.load_state_dict(on_planes.state_dict())  # the same weights
    features = on_codes(torch.as_tensor(codes).float())
    assert torch.allclose(features, on_planes(torch.as_tensor(planes).float())) and features.abs().sum() > 0
    with pytest.raises(InvalidValueError, match=r"CodesCNN: expected the codes views' space, shape \(248,\)"):
        CodesCNN(plane_space("ffa"))
