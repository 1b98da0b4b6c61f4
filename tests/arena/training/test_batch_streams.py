"""The batched trainer's streams stay what they were: short seeded rollouts, hashed, against stored hashes.

Each case plays a few steps through :func:`~arena.training.vectorised.batch_vec_env` with fixed seeds
and hashes everything the learner sees: observations, rewards, dones, each info's seat, terminal
observation and truncation flag, and the action masks. A change in how the trainer steps a batch
(who moves when, what is reset, what a member sees after it left) changes a hash.

MuJoCo's floats (soccer) are not bit for bit the same on every CPU of the project's kind (the hash of
soccer's raw floats recorded on one box failed on another, a Zen 3 without AVX-512): those streams hash
their floats rounded to :data:`PHYSICS_DECIMALS` decimals, which keeps every step's values to 1e-4 and
drops the last bits.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from arena.training.vectorised import batch_vec_env  # noqa: E402

#: name -> (env, games, steps, keyword arguments of batch_vec_env)
CASES: dict[str, tuple[str, int, int, dict[str, Any]]] = {
    "tic_tac_toe": ("tic_tac_toe", 3, 12, {"opponents": "random", "shuffle_seats": True}),
    "connect_four": ("connect_four", 3, 16, {"opponents": "random", "shuffle_seats": True}),
    "snake": (
        "snake",
        3,
        20,
        {"opponents": "random", "shuffle_seats": True, "env_kwargs": {"height": 8, "width": 8, "num_snakes": 2}},
    ),
    "pong_2p": ("pong_2p", 2, 30, {"opponents": "random", "env_kwargs": {"rounds": 1, "max_round_steps": 12}}),
    "pommerman_team": (
        "pommerman",
        2,
        14,
        {
            "opponents": "random",
            "team": True,
            "team_spirit": 0.5,
            "shuffle_seats": True,
            "env_kwargs": {"mode": "team", "max_steps": 6},
        },
    ),
    "soccer_workers": (
        "soccer",
        2,
        12,
        {
            "opponents": "random",
            "team": True,
            "member_done": True,
            "num_workers": 0,
            "env_kwargs": {"team_size": 2, "time_limit": 0.25},
        },
    ),
    # members die mid-game here: member_done's own episode end, the zeros an out member sees
    "magent_workers": (
        "magent_battle",
        1,
        40,
        {
            "opponents": "magent_attack_nearest",
            "team": True,
            "member_done": True,
            "team_spirit": 0.3,
            "num_workers": 0,
            "env_kwargs": {"map_size": 16, "max_steps": 40},
        },
    ),
}

#: the streams' hashes, recorded while BatchVecEnv had a subclass for simultaneous batches (SimultaneousBatchVecEnv)
EXPECTED = {
    "tic_tac_toe": "628acd1d732a5acc28730ec848a37d88722ffe1e7905ffc5a67eed09259d611c",
    "connect_four": "df7e4bb5c62b939a4aca6c6b287d05f85d0af7cf666d8f906df7838cfbbde736",
    "snake": "f8a360928cd6aafb90b939a5cdd6cbc7156955f4fa8947798cea1bfcfe1d2873",
    "pong_2p": "6192f65e8603af7de81bfd6ebbf2273dff5d3e8f003a734b81a0011ccf5cf5c6",
    "pommerman_team": "ad138296a89d3f9eeec557803b739957368e72786be304574ae2102ba21e66a6",
    "soccer_workers": "1ef0205f15c4451774f41d0cb3d93f27493d44f20df507c5526366bb3bbc67d7",  # rounded (PHYSICS)
    "magent_workers": "571977a7bd102f7214e701ed8a39d3e6a301e112bbc5ae98335ab20d65238b8e",
}


#: the cases whose floats come from a physics engine, hashed rounded (see the module docstring)
PHYSICS = {"soccer_workers"}
PHYSICS_DECIMALS = 4

#: the optional packages a case's env needs (the ``soccer`` and ``magent`` extras)
NEEDS = {"soccer_workers": "dm_control", "magent_workers": "magent2"}


def _feed(digest: Any, value: Any, decimals: int | None = None) -> None:
    """Hash ``value`` (arrays by dtype, shape and bytes; dicts by sorted key) into ``digest``.

    ``decimals``: float arrays are hashed rounded to that many decimals (``-0.0`` as ``0.0``).
    """
    if isinstance(value, dict):
        for key in sorted(value):
            digest.update(str(key).encode())
            _feed(digest, value[key], decimals)
    elif isinstance(value, (list, tuple)):
        digest.update(f"[{len(value)}".encode())
        for item in value:
            _feed(digest, item, decimals)
    else:
        array = np.ascontiguousarray(np.asarray(value))
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        if decimals is not None and array.dtype.kind == "f":
            array = np.round(array.astype(np.float64), decimals) + 0.0  # + 0.0: a -0.0 hashes as 0.0
        digest.update(array.tobytes())


def _stream(case: str) -> str:
    """The hex digest of ``case``'s rollout: what the learner is shown at reset and at every step."""
    name, games, steps, kwargs = CASES[case]
    decimals = PHYSICS_DECIMALS if case in PHYSICS else None
    venv = batch_vec_env(name, games, **kwargs)
    try:
        digest = hashlib.sha256()
        venv.seed(3)
        observations = venv.reset()
        masks = venv.action_masks()
        _feed(digest, [observations, masks], decimals)
        rng = np.random.default_rng(7)
        space = venv.action_space
        for _ in range(steps):
            if masks.shape[1]:  # a legal action per sub-env, drawn from its mask
                actions: Any = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            else:
                actions = rng.uniform(space.low, space.high, (venv.num_envs, *space.shape)).astype(space.dtype)
            observations, rewards, dones, infos = venv.step(actions)
            masks = venv.action_masks()
            shown = [
                [info["seat"], info.get("terminal_observation", []), info.get("TimeLimit.truncated", -1)]
                for info in infos
            ]
            _feed(digest, [observations, rewards, dones, shown, masks], decimals)
        return digest.hexdigest()
    finally:
        venv.close()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_batched_trainer_shows_the_recorded_streams(case: str) -> None:
    if case in NEEDS:
        pytest.importorskip(NEEDS[case])
    assert _stream(case) == EXPECTED[case]


if __name__ == "__main__":  # print the hashes to record
    for case in CASES:
        print(f'    "{case}": "{_stream(case)}",')
