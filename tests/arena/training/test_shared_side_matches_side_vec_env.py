"""The one trainer's shared side (a worker batch, ``team=True, member_done=True``) plays the stream SideVecEnv played.

Both get the same games (the first reset's seeds aligned, later resets continuing each env's own
generator), the same opponent seed and the same learner actions; every slot's observations,
rewards, dones and terminal observations must match step by step.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from arena.registry import make_agent  # noqa: E402
from arena.seeding import derive_seed  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.side_vec_env import SideVecEnv  # noqa: E402
from arena.training.vectorised import batch_vec_env  # noqa: E402


def _fixed_seed(spec: str) -> Any:
    """The agent ``spec``, always reset with seed 7 (the two trainers draw its seed differently)."""
    agent = make_agent(spec)
    reset = agent.reset
    agent.reset = lambda seed=None: reset(seed=7)  # type: ignore[method-assign]
    return agent


def _aligned(side: SideVecEnv, seed: int) -> None:
    """Each game's first reset gets the worker batch's seed for it; later resets continue the env's own generator."""
    first = int(np.random.default_rng(seed).integers(2**31 - 1))  # the trainer's first draw seeds the batch
    for g, game in enumerate(side.games):
        calls = [derive_seed(first, g)]

        def reset(*, seed=None, options=None, _reset=game.reset, _calls=calls):
            return _reset(seed=_calls.pop() if _calls else None, options=options)

        game.reset = reset  # type: ignore[method-assign]


def _stream(venv: Any, actions: list[np.ndarray]) -> list[tuple[Any, ...]]:
    out = [(venv.reset(), None, None, None)]
    for chosen in actions:
        obs, reward, done, infos = venv.step(chosen)
        finals = [(k, infos[k]["terminal_observation"], infos[k]["TimeLimit.truncated"]) for k in np.flatnonzero(done)]
        out.append((obs.copy(), reward.copy(), done.copy(), finals))
    return out


def _compare(side: SideVecEnv, new: Any, actions: list[np.ndarray], seed: int) -> list[tuple[Any, ...]]:
    _aligned(side, seed)
    side.seed(seed)
    new.seed(seed)
    old_stream, new_stream = _stream(side, actions), _stream(new, actions)
    for step, (old, now) in enumerate(zip(old_stream, new_stream)):
        np.testing.assert_allclose(now[0], old[0], rtol=1e-6, atol=1e-6, err_msg=f"observations at step {step}")
        if step:
            np.testing.assert_allclose(now[1], old[1], rtol=1e-5, atol=1e-6, err_msg=f"rewards at step {step}")
            np.testing.assert_array_equal(now[2], old[2], err_msg=f"dones at step {step}")
            for (k, final, cut), (k_old, final_old, cut_old) in zip(now[3], old[3]):
                assert (k, cut) == (k_old, cut_old), step
                np.testing.assert_allclose(final, final_old, rtol=1e-6, atol=1e-6)
    return new_stream


@pytest.mark.skipif(importlib.util.find_spec("magent2") is None, reason="needs magent2 (magent extra)")
def test_a_magent_battle_plays_the_same_on_the_one_trainer_as_on_side_vec_env() -> None:
    options = {"map_size": 12, "max_steps": 25}
    side = SideVecEnv("magent_battle", 1, _fixed_seed("magent_attack_nearest"), env_kwargs=options, team_spirit=0.5)
    new = batch_vec_env(
        "magent_battle",
        1,
        _fixed_seed("magent_attack_nearest"),
        env_kwargs=options,
        team=True,
        member_done=True,
        team_spirit=0.5,
        num_workers=0,
    )
    assert new.num_envs == side.num_envs
    rng = np.random.default_rng(0)
    actions = [rng.integers(21, size=new.num_envs) for _ in range(80)]  # three battles and more
    stream = _compare(side, new, actions, seed=3)
    dones = np.stack([step[2] for step in stream[1:]])
    assert (dones.any(axis=1) & ~dones.all(axis=1)).any()  # a member was killed while its side played on


@pytest.mark.skipif(importlib.util.find_spec("dm_control") is None, reason="needs dm_control (soccer extra)")
def test_soccer_plays_the_same_on_the_one_trainer_as_on_side_vec_env() -> None:
    options = {"team_size": 2, "time_limit": 0.25}
    spec = "rescale_action(soccer_features(soccer_shaping(ball=0.1, goal=0.3), relative=true))"
    side = SideVecEnv("soccer", 1, _fixed_seed("random"), env_kwargs=options, interface=build_interface(spec))
    new = batch_vec_env(
        "soccer",
        1,
        _fixed_seed("random"),
        env_kwargs=options,
        interface=build_interface(spec),
        team=True,
        member_done=True,
        num_workers=0,
    )
    rng = np.random.default_rng(1)
    actions = [rng.uniform(-1, 1, size=(new.num_envs, *new.action_space.shape)).astype(np.float32) for _ in range(22)]
    stream = _compare(side, new, actions, seed=2)
    assert sum(step[2].all() for step in stream[1:]) == 2  # two games of 10 steps ended
