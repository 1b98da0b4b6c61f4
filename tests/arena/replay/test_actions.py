"""The packed actions of stored games: exact round trips over generated spaces, clear errors."""

from __future__ import annotations

import base64
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ReplayFormatError
from arena.replay.engine import same_action
from arena.replay.pack import pack_observation, pack_view
from arena.runtime.actions import decode_actions, encode_actions
from arena.testing import strategies as arena_st


def _same_types(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and all(_same_types(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and all(_same_types(a[k], b[k]) for k in a)
    if isinstance(a, np.generic):
        return type(b) is type(a)
    return type(a) is type(b) or (isinstance(a, int) and isinstance(b, int))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), space=arena_st.spaces(), steps=st.integers(1, 4))
def test_actions_of_any_space_round_trip_exactly(data, space, steps):
    agents = ["a", "b"]
    recorded = [{agent: data.draw(arena_st.values(space)) for agent in agents[: 1 + i % 2]} for i in range(steps)]
    decoded = decode_actions(encode_actions(agents, recorded))
    assert len(decoded) == len(recorded)
    for before, after in zip(recorded, decoded):
        assert list(before) == list(after)
        for agent in before:
            assert same_action(before[agent], after[agent])
            assert _same_types(before[agent], after[agent])
            assert space.contains(after[agent])


def test_long_games_are_compressed_short_ones_are_not():
    short = encode_actions(["a"], [{"a": 1}])
    long = encode_actions(["a", "b"], [{"a": i % 3, "b": 2} for i in range(300)])
    assert short[:1] == b"{" and long[:1] == b"x" and len(long) < 300
    assert decode_actions(long)[299] == {"a": 2, "b": 2}


def test_special_floats_and_numpy_scalars_keep_their_values():
    steps = [{"a": (np.float32(0.1), float("nan"), -np.inf, np.int8(-3), True, "x", [1, 2], {"k": 2.5})}]
    (after,) = decode_actions(encode_actions(["a"], steps))
    value = after["a"]
    assert value[0] == np.float32(0.1) and value[0].dtype == np.float32
    assert np.isnan(value[1]) and value[2] == -np.inf and value[3].dtype == np.int8
    assert value[4:] == (True, "x", [1, 2], {"k": 2.5})


def test_errors_name_what_cannot_be_stored_or_read():
    with pytest.raises(TypeError, match=r"replay: cannot store an action of type object \(<object"):
        encode_actions(["a"], [{"a": object()}])
    with pytest.raises(ReplayFormatError, match="the stored actions cannot be read \\(error"):
        decode_actions(b"not zlib")
    with pytest.raises(ReplayFormatError, match="the stored actions cannot be read \\(JSONDecodeError"):
        decode_actions(b"{not json")
    with pytest.raises(ReplayFormatError, match="the stored actions cannot be read \\(KeyError"):
        decode_actions(zlib.compress(b'{"steps": []}'))
    with pytest.raises(ReplayFormatError, match="unknown stored action"):
        decode_actions(zlib.compress(b'{"agents": ["a"], "steps": [[[0, {"zz": 1}]]]}'))


@settings(max_examples=25, deadline=None)
@given(data=st.data(), space=arena_st.spaces())
def test_any_observation_packs_into_drawable_parts(data, space):
    observation = data.draw(arena_st.values(space))
    parts = pack_observation(observation, space)
    assert parts and all(p["kind"] in ("planes", "bars", "value") for p in parts)
    for part in parts:
        if part["kind"] == "planes":
            raw = zlib.decompress(base64.b64decode(part["z"]))
            assert len(raw) == part["n"] * part["h"] * part["w"]
        if part["kind"] == "bars":
            assert part["lo"] <= part["hi"] and np.isfinite(part["v"]).all()


def test_views_pack_as_text_or_palette_or_rgb():
    assert pack_view("\x1b[1mX\x1b[0m.") == {"text": "X."}
    rng = np.random.default_rng(0)
    noisy = rng.integers(0, 256, (20, 20, 3), dtype=np.uint8)
    packed = pack_view(noisy)["img"]
    assert "pal" not in packed and len(zlib.decompress(base64.b64decode(packed["z"]))) == 1200
    with pytest.raises(
        ValueError, match=r"a rendered frame must be text or an RGB array of shape \(H, W, 3\), got shape \(2, 2, 5\)"
    ):
        pack_view(np.zeros((2, 2, 5), np.uint8))
