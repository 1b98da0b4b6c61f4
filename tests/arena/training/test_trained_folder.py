"""The trained-agent folder: manifest checks and stateful interface statistics kept (frozen)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")

import envs  # noqa: E402
from arena.errors import ArenaError  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import SingleAgentEnv, load_trained_agent  # noqa: E402
from arena.training.trained import pool_statistics, read_manifest, save_trained_agent  # noqa: E402


def test_statistics_of_a_stateful_interface_travel_with_the_agent(tmp_path):
    from sb3_contrib import MaskablePPO

    spec = "normalize_observation(ego_board(planes=true))"
    env = SingleAgentEnv("tic_tac_toe", "random", interface=build_interface(spec))
    env.reset(seed=0)
    for _ in range(30):  # move the running statistics away from their start
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            env.reset()
    model = MaskablePPO("MlpPolicy", env, n_steps=32, seed=0)
    save_trained_agent(
        tmp_path,
        model,
        algo="maskable-ppo",
        env="tic_tac_toe",
        env_options={},
        interface=spec,
        trained_stack=env.interface,
    )
    agent = load_trained_agent(tmp_path)
    loaded = agent.interface
    assert loaded.frozen
    assert np.allclose(loaded.statistics()["mean"], env.interface.statistics()["mean"])
    assert not np.allclose(loaded.statistics()["mean"], 0.0)
    assert read_manifest(tmp_path)["interface_state"].startswith("interface_state-")  # named by its content


def test_manifest_errors_are_clear(tmp_path):
    with pytest.raises(ArenaError, match="no such agent folder: .*none"):
        read_manifest(tmp_path / "none")
    (tmp_path / "file").write_text("")
    with pytest.raises(ArenaError, match="is not a folder"):
        read_manifest(tmp_path / "file")
    with pytest.raises(ArenaError, match="has no agent.json"):
        read_manifest(tmp_path)
    (tmp_path / "agent.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(ArenaError, match="is not an arena agent manifest"):
        read_manifest(tmp_path)
    (tmp_path / "agent.json").write_text(json.dumps({"format": "arena-agent", "format_version": 99}))
    with pytest.raises(ArenaError, match="has format_version 99; this arena reads up to 2"):
        read_manifest(tmp_path)
    assert envs.make("tic_tac_toe")  # the env used above still builds


def test_the_statistics_of_several_training_envs_are_pooled(tmp_path):
    from sb3_contrib import MaskablePPO

    spec = "normalize_observation(ego_board(planes=true))"
    bridges = []
    for seed, steps in ((0, 30), (1, 50)):  # two envs, each with statistics of its own
        env = SingleAgentEnv("tic_tac_toe", "random", interface=build_interface(spec))
        env.reset(seed=seed)
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
            if terminated or truncated:
                env.reset()
        bridges.append(env)
    model = MaskablePPO("MlpPolicy", bridges[0], n_steps=32, seed=0)
    save_trained_agent(
        tmp_path,
        model,
        algo="maskable-ppo",
        env="tic_tac_toe",
        env_options={},
        interface=spec,
        trained_stack=[bridge.interface for bridge in bridges],
    )
    saved = load_trained_agent(tmp_path).interface.statistics()
    parts = [bridge.interface.statistics() for bridge in bridges]
    assert saved["count"] == pytest.approx(parts[0]["count"] + parts[1]["count"])
    weights = np.array([part["count"] for part in parts]) / saved["count"]
    assert np.allclose(saved["mean"], weights[0] * parts[0]["mean"] + weights[1] * parts[1]["mean"])
    assert not np.allclose(saved["mean"], parts[0]["mean"])  # not the first env's alone


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.floats(-100, 100), min_size=1, max_size=20), min_size=1, max_size=5))
def test_pooled_statistics_are_those_of_all_observations_together(streams):
    parts = [{"mean": np.mean(s), "var": np.var(s), "count": float(len(s))} for s in streams]
    pooled = pool_statistics(parts)
    together = np.concatenate([np.asarray(s) for s in streams])
    assert pooled["count"] == len(together)
    assert np.isclose(pooled["mean"], together.mean(), atol=1e-9)
    assert np.isclose(pooled["var"], together.var(), rtol=1e-7, atol=1e-7)


def test_a_folder_loaded_to_play_builds_no_optimizer_and_never_imports_torchs_compiler(tmp_path):
    import subprocess
    import sys

    from arena.errors import InvalidValueError
    from arena.training.weights import PlayOnlyOptimizer
    from envs.shipped import shipped_folder

    policy = load_trained_agent(shipped_folder("pong_ppo")).agent.policy
    assert isinstance(policy.optimizer, PlayOnlyOptimizer)
    with pytest.raises(
        InvalidValueError,
        match=r"loaded to play \(load_trained_agent\): it has no optimizer; .*restore_model loads a folder to train on",
    ):
        policy.optimizer.step()
    # torch's first optimizer imports torch._dynamo (about 2.5 s of CPU): a process that only plays never does
    script = (
        "import sys\nfrom arena.training import load_trained_agent\nfrom envs.shipped import shipped_folder\n"
        "load_trained_agent(shipped_folder('pong_ppo'))\nprint('torch._dynamo' in sys.modules, 'torch' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.stdout.split() == ["False", "True"], done.stderr
