"""PommermanBatch: reference steps through batch slots, the single env's games in any slot, boards, spaces, errors.

The replay test samples every 7th recorded step; ``ARENA_POMMERMAN_FULL_REPLAY=1`` replays them all.
"""

from __future__ import annotations

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena.errors import InvalidActionError, ResetNeeded
from arena.seeding import derive_seed
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.board import _PAIRS
from envs.pommerman.core import RIGID
from envs.pommerman.planes import EGO_ACTIONS
from envs.pommerman.replay import compare_states
from interfaces.pommerman import PommermanBatchPlanes
from tests.envs.test_pommerman import _check_invariants

AGENTS = ("agent_0", "agent_1", "agent_2", "agent_3")
FULL_REPLAY = os.environ.get("ARENA_POMMERMAN_FULL_REPLAY", "") not in ("", "0")
_BATCHES: dict = {}


def _batch(mode: str, games: int = 3, **options) -> PommermanBatch:
    key = (mode, games, tuple(sorted(options.items())))
    if key not in _BATCHES:
        _BATCHES[key] = PommermanBatch(games, mode, **options)
    return _BATCHES[key]


def _planes(mode: str, ego: bool, max_steps: int = 800) -> tuple[PommermanBatchPlanes, object]:
    env = envs.make("pommerman", mode=mode, max_steps=max_steps)
    itf = PommermanBatchPlanes(ego=ego, max_steps=max_steps)
    itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return itf, env


def _batch_actions(record_actions, mode: str, games: int, slot: int, rng) -> np.ndarray:
    shape = (games, 4, 3) if mode == "radio" else (games, 4)
    actions = rng.integers(0, 6, shape)
    if mode == "radio":
        actions[..., 1:] = rng.integers(0, 8, (games, 4, 2))
    actions[slot] = np.array(record_actions)
    return actions


def test_recorded_reference_steps_replay_through_batch_slots(trajectories):
    _, episodes = trajectories
    rng = np.random.default_rng(0)
    checked, failures, ends = Counter(), [], 0
    single = {mode: _planes(mode, False) for mode in ("ffa", "team", "radio")}
    index = 0
    for episode in episodes:
        mode = episode["mode"]
        batch = _batch(mode)
        if not batch._started:
            batch.reset(seed=1)
        itf, env = single[mode]
        before = episode["initial_state"]
        for t, record in enumerate(episode["steps"]):
            index += 1
            if FULL_REPLAY or index % 7 == 0:
                slot = index % batch.num_games
                batch.load_state(slot, before)
                obs, rewards, terms, _, infos = batch.step(_batch_actions(record["actions"], mode, 3, slot, rng))
                # as the single env: FFA rewards reach the agents in play (the reference repeats -1 to the dead)
                scored = [i for i in range(4) if mode != "ffa" or before["agents"][i]["is_alive"]]
                bad = [f"reward {i}" for i in scored if rewards[slot, i] != record["rewards"][i]]
                if bool(infos["episode_over"][slot]) != record["done"]:
                    bad.append("done")
                views = obs[slot]
                if record["done"]:
                    ends += 1
                    views = infos["final_observation"][np.flatnonzero(infos["episode_over"]).tolist().index(slot)]
                else:
                    bad += compare_states(batch.state_json(slot), record["state"])
                # the views: the single env's observations at the recorded state, through the same planes
                observations, _ = env.load_state(record["state"])
                for i, agent in enumerate(AGENTS):
                    expected = itf.transform_observation(observations[agent]) if agent in observations else 0
                    if not np.array_equal(views[i], np.zeros_like(views[i]) + expected):
                        bad.append(f"obs {i}")
                checked[mode] += 1
                if bad:
                    failures.append((episode["id"], t, bad))
            before = record["state"]
    assert not failures, failures[:10]
    assert min(checked.values()) > 0 and ends > 0, (checked, ends)


def _expect_views(views, observations, itf) -> None:
    """``views`` (4, planes, 11, 11) are the single env's ``observations`` through ``itf`` (zero where none)."""
    for i, agent in enumerate(AGENTS):
        expected = itf.transform_observation(observations[agent]) if agent in observations else 0
        assert np.array_equal(views[i], np.zeros_like(views[i]) + expected), agent


@pytest.mark.parametrize("mode", ["ffa", "team", "radio"])
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), ego=st.booleans(), warmup=st.integers(0, 40), data=st.data())
def test_a_single_env_game_plays_the_same_in_a_batch_slot(mode, seed, ego, warmup, data):
    games, slot = 3, data.draw(st.integers(0, 2))
    itf, env = _planes(mode, ego, max_steps=60)
    batch = _batch(mode, games, ego=ego, max_steps=60)
    batch.reset(seed=seed)
    observations, _ = env.reset(seed=derive_seed(seed, slot))
    assert env.state_json()["board"] == batch.state_json(slot)["board"]  # the same first board from the seed
    rng = np.random.default_rng(seed)
    radio = mode == "radio"

    def draw():
        actions = rng.integers(0, 6, (games, 4, 3) if radio else (games, 4))
        if radio:
            actions[..., 1:] = rng.integers(0, 8, (games, 4, 2))
        return actions

    same_stream = True  # until the env draws a board the slot does not
    for _ in range(warmup):  # a game in progress, then loaded into the slot
        row = draw()[slot]
        observations, *_ = env.step(
            {a: row[AGENTS.index(a)] if radio else int(row[AGENTS.index(a)]) for a in observations}
        )
        if not observations:
            observations, _ = env.reset()
            same_stream = False
    views = batch.load_state(slot, env.state_json())
    episodes = 0
    for _ in range(150):
        _expect_views(views, observations, itf)
        actions = draw()
        moves = {}
        for agent in observations:  # the single env gets the batch's (ego) actions through the same interface
            itf.transform_observation(observations[agent])
            i = AGENTS.index(agent)
            moves[agent] = itf.transform_action(actions[slot, i] if radio else int(actions[slot, i]))
        observations, rewards, terms, _, _ = env.step(moves)
        obs, b_rewards, b_terms, b_truncs, b_infos = batch.step(actions)
        for i, agent in enumerate(AGENTS):
            assert b_rewards[slot, i] == rewards.get(agent, 0.0) and b_terms[slot, i] == terms.get(agent, False)
        assert not b_truncs.any()
        assert bool(b_infos["episode_over"][slot]) == (not observations)
        if not observations:
            episodes += 1
            final = b_infos["final_observation"][np.flatnonzero(b_infos["episode_over"]).tolist().index(slot)]
            last, _ = env.load_state(env.state_json())  # the views of the final state
            _expect_views(final, last, itf)
            observations, _ = env.reset()  # the slot's board stream goes on as the env's does
            if not same_stream:
                observations, _ = env.load_state(batch.state_json(slot))
            assert env.state_json()["board"] == batch.state_json(slot)["board"]
        else:
            assert not compare_states(batch.state_json(slot), env.state_json())
        assert b_infos["live"][slot].tolist() == [a in observations for a in AGENTS]
        views = obs[slot]
        if episodes == 2:
            break


def test_batch_boards_follow_the_reference_distribution():
    batch = PommermanBatch(400, "ffa", copy=False)
    batch.reset(seed=0)
    rigid = np.zeros((11, 11))
    kinds = Counter()
    for g in range(batch.num_games):
        board, items = batch._boards[g], batch._items[g]
        _check_invariants(board, items)
        rigid += board == RIGID
        kinds.update(items[items > 0].tolist())
    p = rigid[_PAIRS[:, 0], _PAIRS[:, 1]] / batch.num_games
    assert abs(p.mean() - 18 / len(_PAIRS)) < 0.02
    assert np.all(np.abs(p - 18 / len(_PAIRS)) < 5 * np.sqrt(0.25 / batch.num_games))
    assert all(abs(kinds[k] / (20 * batch.num_games) - 1 / 3) < 0.03 for k in (6, 7, 8))
    again = PommermanBatch(3, "ffa")
    first = again.reset(seed=4)[0]
    assert np.array_equal(first, again.reset(seed=4)[0]) and not np.array_equal(first, again.reset()[0])


@pytest.mark.parametrize("mode", ["ffa", "team", "radio"])
@pytest.mark.parametrize("threads", [1, 2])
def test_views_lie_in_the_space_and_threads_change_nothing(mode, threads):
    batch = PommermanBatch(6, mode, ego=True, threads=threads, max_steps=40)
    serial = _batch(mode, 6, ego=True, max_steps=40)
    space = batch.single_observation_space
    assert space.shape == (24 if mode == "radio" else 22, 11, 11) and space.dtype == np.uint8
    assert batch.single_action_space == envs.make("pommerman", mode=mode).action_space("agent_0")
    obs, infos = batch.reset(seed=2)
    assert np.array_equal(obs, serial.reset(seed=2)[0])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        actions = rng.integers(0, [6, 8, 8], (6, 4, 3)) if mode == "radio" else rng.integers(0, 6, (6, 4))
        obs, rewards, terms, _, infos = batch.step(actions)
        expected = serial.step(actions)
        assert np.array_equal(obs, expected[0]) and np.array_equal(rewards, expected[1])
        assert all(space.contains(view) for view in obs.reshape(-1, *space.shape))
        assert (obs[~infos["live"]] == 0).all()
        ended += int(infos["episode_over"].sum())
        if infos["episode_over"].any():
            assert all(space.contains(v) for v in infos["final_observation"].reshape(-1, *space.shape))
            # the serial step writes them in order as games end, the threaded one gathers them after
            assert np.array_equal(infos["final_observation"], expected[4]["final_observation"])
            assert len(infos["final_observation"]) == infos["episode_over"].sum()
    assert ended > 0


@pytest.mark.parametrize("copy", [False, True])
def test_acted_is_who_was_live_before_the_step(copy):
    # the compiled step writes "acted" (live before it moved anyone); with copy=False into one buffer
    batch = PommermanBatch(4, "ffa", copy=copy, max_steps=30)
    live = batch.reset(seed=3)[1]["live"]
    rng = np.random.default_rng(3)
    infos = batch.step(rng.integers(0, 6, (4, 4)))[4]
    np.testing.assert_array_equal(infos["acted"], live)
    first, kept, live = infos["acted"], infos["acted"].copy(), infos["live"].copy()
    deaths = 0
    for _ in range(90):
        infos = batch.step(rng.integers(0, 6, (4, 4)))[4]
        np.testing.assert_array_equal(infos["acted"], live)
        deaths += int((infos["acted"] & ~infos["live"] & ~infos["episode_over"][:, None]).sum())
        live = infos["live"].copy()
    assert deaths > 0  # someone died in a game that went on: acted and live differed
    assert (infos["acted"] is first) is not copy  # copy=False: the batch's own buffer, overwritten
    if copy:
        np.testing.assert_array_equal(first, kept)


def test_the_serial_and_threaded_steps_compile_their_body_once():
    """Both entries pass the body the same argument types, so numba compiles it once (docs/performance.md, "CI")."""
    from envs.pommerman import _jit, batch_core

    if not _jit.HAVE_NUMBA:
        pytest.skip("numba is not installed (the pommerman extra)")
    for threads in (1, 2):
        batch = PommermanBatch(2, "ffa", threads=threads, max_steps=10)
        batch.reset(seed=0)
        batch.step(np.zeros((2, 4), np.int64))
    # what this process compiled, and what numba's disk cache holds (a step loaded from it brings the body along)
    cached = [key[0] for key in batch_core._step_games._cache._cache_file._load_index()]
    compiled = {str(signature) for signature in [*batch_core._step_games.signatures, *cached]}
    assert len(compiled) == 1, compiled


def test_the_batch_trains_through_the_simultaneous_vec_env():
    from arena.training.batched import BatchVecEnv

    venv = BatchVecEnv("pommerman", 4, "random", shuffle_seats=True, env_kwargs={"max_steps": 30})
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape == (4, 22, 11, 11) and obs.dtype == np.uint8
    dones = 0
    for _ in range(40):
        obs, rewards, done, infos = venv.step(np.zeros(4, dtype=np.int64))
        dones += int(done.sum())
    assert dones > 0 and all("seat" in info for info in infos)


def test_bad_calls_name_what_was_expected():
    batch = PommermanBatch(2, "radio")
    with pytest.raises(ResetNeeded, match="step\\(\\) called before reset\\(\\)"):
        batch.step(np.zeros((2, 4, 3), dtype=np.int64))
    batch.reset(seed=0)
    with pytest.raises(
        InvalidActionError,
        match=r"actions must be an integer array of shape \(2, 4, 3\), got int64 "
        r"array of shape \(2, 4\)",
    ):
        batch.step(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(InvalidActionError, match="radio words must lie in 0..7, got values from 0 to 8"):
        batch.step(np.full((2, 4, 3), [0, 8, 0]))
    before = [batch.state_json(g) for g in range(2)]
    moves = np.ones((2, 4, 3), np.int64)
    moves[1, 3, 0] = 6  # only the last game's last move is out of range: no game steps
    with pytest.raises(InvalidActionError, match="moves must lie in 0..5, got values from 1 to 6"):
        batch.step(moves)
    assert [batch.state_json(g) for g in range(2)] == before
    with pytest.raises(ValueError, match=r"game must be an integer in 0..1, got 2"):
        batch.state_json(2)
    with pytest.raises(ValueError, match="num_games must be an integer in 1..1048576, got 0"):
        PommermanBatch(0)
    with pytest.raises(ValueError, match="Pommerman: mode must be one of"):
        PommermanBatch(1, "duel")
    state = batch.state_json(0)
    state["agents"][0]["ammo"] = 500
    with pytest.raises(ValueError, match=r"agent 0 ammo must lie in 0..10, got 500"):
        batch.load_state(0, state)


@pytest.mark.parametrize("mode", ["ffa", "team", "radio"])
def test_batched_simple_agents_decide_as_the_single_agent(mode):
    from envs.pommerman.agents import PommermanSimpleAgent, PommermanSimpleBatch

    games, seed = 3, 11
    batch = PommermanBatch(games, mode, ego=mode == "team", max_steps=120)
    batch.reset(seed=5)
    simple = PommermanSimpleBatch(batch, seed=seed)
    slot = 1
    env = envs.make("pommerman", mode=mode, max_steps=120)
    observations, _ = env.load_state(batch.state_json(slot))
    agents = {}
    for i, name in enumerate(AGENTS):
        agents[name] = PommermanSimpleAgent()
        agents[name].setup(env.observation_space(name), env.action_space(name))
        agents[name].reset(seed=derive_seed(seed, 4 * slot + i))
    decisions = 0
    while observations:
        actions = simple.act()
        raw = actions[..., 0] if mode == "radio" else actions
        if batch.ego:  # the ego frame's moves, turned back (the table is its own inverse)
            raw = EGO_ACTIONS[np.arange(4), raw]
        moves = {name: agents[name].act(o) for name, o in observations.items()}
        for name, move in moves.items():
            expected = int(move[0]) if mode == "radio" else move
            assert raw[slot, AGENTS.index(name)] == expected, (decisions, name)
            decisions += 1
        observations, *_ = env.step(moves)
        _, _, _, _, infos = batch.step(actions)
        assert bool(infos["episode_over"][slot]) == (not observations)
    assert decisions > 20
    with pytest.raises(ValueError, match=r"seats must be a bool mask of shape \(3, 4\), got shape \(4,\)"):
        simple.act(np.ones(4, bool))


def test_numbas_cache_is_dropped_when_any_source_of_the_package_changes(tmp_path, monkeypatch) -> None:
    from envs.pommerman import _jit

    monkeypatch.setattr(_jit, "HAVE_NUMBA", True)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    (tmp_path / "core.py").write_text("RULES = 1\n")
    (tmp_path / "batch_core.py").write_text("from core import RULES\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    compiled = [cache / "batch_core.step-10.py311.nbi", cache / "batch_core.step-10.py311.1.nbc"]
    for path in compiled:
        path.write_bytes(b"old")
    assert _jit.forget_stale_cache(tmp_path)  # no stamp yet: whatever is there may be stale
    assert not any(path.exists() for path in compiled)
    for path in compiled:  # numba compiles again
        path.write_bytes(b"new")
    assert not _jit.forget_stale_cache(tmp_path)  # the sources did not change
    assert all(path.exists() for path in compiled)
    (tmp_path / "core.py").write_text("RULES = 2\n")  # an edit to a callee's file, not the cached function's
    assert _jit.forget_stale_cache(tmp_path) and not any(path.exists() for path in compiled)
    # a module of another package compiled in (arena.seeding's SplitMix64) counts as a source too
    seeding = tmp_path.parent / f"{tmp_path.name}-seeding.py"
    seeding.write_text("GOLDEN = 1\n")
    for path in compiled:
        path.write_bytes(b"new")
    assert _jit.forget_stale_cache(tmp_path, [seeding])  # a new source: the stamp differs
    for path in compiled:
        path.write_bytes(b"new")
    assert not _jit.forget_stale_cache(tmp_path, [seeding])
    seeding.write_text("GOLDEN = 2\n")
    assert _jit.forget_stale_cache(tmp_path, [seeding]) and not any(path.exists() for path in compiled)
    assert [module.__name__ for module in _jit.COMPILED_IN] == ["arena.seeding"]
    monkeypatch.setattr(_jit, "HAVE_NUMBA", False)
    assert not _jit.forget_stale_cache(tmp_path)


_PLAY_A_FEW_STEPS = """
import sys
import numpy as np
from envs.pommerman.batch import PommermanBatch
arrays = []
for mode, layout in (("ffa", "planes"), ("team", "planes"), ("radio", "planes"), ("ffa", "codes"), ("radio", "codes")):
    for ego in (False, True):
        batch = PommermanBatch(3, mode, ego=ego, max_steps=25, layout=layout)
        arrays.append(batch.reset(seed=1)[0])
        rng = np.random.default_rng(0)
        for _ in range(60):
            actions = rng.integers(0, 6, (3, 4, 3) if mode == "radio" else (3, 4))
            if mode == "radio":
                actions[..., 1:] = rng.integers(0, 8, (3, 4, 2))
            views, rewards, terms, _, infos = batch.step(actions)
            arrays += [views, rewards, terms, infos["final_observation"] if "final_observation" in infos else views[:0]]
np.savez(sys.argv[1], *arrays)
"""


def test_the_batch_plays_the_same_without_numba(tmp_path) -> None:
    """The compiled batch (no reference counting, its own index arithmetic) and plain Python give the same arrays,
    in both layouts (the codes' nibbles are packed from int8 bombs), and plain Python warns of no overflow (a user's ``-W error`` would fail on one)."""
    import subprocess
    import sys

    outputs = {}
    for jit in ("0", "1"):
        out = tmp_path / f"disable_jit_{jit}.npz"
        # an overflow in plain Python is a bug of the rules' integer types (one wrapped crossing ids);
        # SplitMix64's wraps are by design and quiet (envs.pommerman._jit.njit_wrapping)
        env = {**os.environ, "NUMBA_DISABLE_JIT": jit, "PYTHONWARNINGS": "error::RuntimeWarning"}
        subprocess.run([sys.executable, "-c", _PLAY_A_FEW_STEPS, str(out)], check=True, env=env, timeout=600)
        with np.load(out) as arrays:
            outputs[jit] = [arrays[name] for name in arrays.files]
    compiled, plain = outputs["0"], outputs["1"]
    assert len(compiled) == len(plain) > 1200
    for k, (a, b) in enumerate(zip(compiled, plain)):
        assert a.dtype == b.dtype and np.array_equal(a, b), f"array {k} differs between compiled and plain Python"


def test_the_streams_draws_wrap_quietly_in_plain_python_as_compiled(monkeypatch) -> None:
    """SplitMix64 on numpy's uint64 scalars wraps as compiled code does, without numpy's overflow warning."""
    import warnings

    from arena.seeding import SplitMix64, mix64, next_uniform
    from envs.pommerman import _jit

    monkeypatch.setattr(_jit, "_njit", None)  # what an install without numba has
    draw, start = _jit.njit_wrapping(next_uniform), _jit.njit_wrapping(mix64)
    stream, python = np.zeros(1, np.uint64), SplitMix64(2**64 - 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stream[0] = start(np.uint64(2**64 - 5))
        drawn = [draw(stream) for _ in range(50)]
        with pytest.raises(RuntimeWarning, match="overflow"):  # the same arithmetic, unwrapped, warns
            next_uniform(stream)
    assert drawn == [python.random() for _ in range(50)]
