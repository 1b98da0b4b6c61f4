"""Pommerman interfaces: contract checks, what each computes, ego-corner round trips, training end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena.errors import MaskTranslationError, SpaceMismatchError
from arena.testing import check_interface
from interfaces.pommerman import (
    PLANES,
    PommermanAttributes,
    PommermanBatchPlanes,
    PommermanEgoCorner,
    PommermanFeatures,
    PommermanLegalMoves,
    PommermanPlanes,
    PommermanPosition,
    legal_moves,
)

ALL = [
    PommermanPlanes,
    PommermanAttributes,
    PommermanPosition,
    PommermanLegalMoves,
    PommermanEgoCorner,
    PommermanFeatures,
    PommermanBatchPlanes,
]


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_each_interface_keeps_the_contract(cls):
    for itf, observation_space, action_space in cls.contract_examples():
        check_interface(itf, observation_space, action_space, examples=8)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_each_interface_refuses_other_spaces(cls):
    with pytest.raises(SpaceMismatchError, match=rf"{cls.__name__}\(.*\): needs the pommerman observation Dict"):
        cls().setup(spaces.Box(0, 1, (3,)), spaces.Discrete(6))


def _setup(itf, mode="ffa"):
    env = envs.make("pommerman", mode=mode)
    itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return env


def test_planes_are_one_hot_and_agents_relative_to_the_observer():
    itf = PommermanPlanes()
    env = _setup(itf, "team")
    obs, _ = env.reset(seed=2)
    planes = itf.transform_observation(obs["agent_1"])
    assert itf.observation_space.contains(planes)
    assert (planes[:12].sum(axis=0) == 1).all()
    assert planes[PLANES.index("self"), 9, 1] == 1 and planes[PLANES.index("teammate")].sum() == 0  # teammate fogged
    assert planes[PLANES.index("fog")].sum() > 0


def test_ego_corner_puts_every_agent_top_left_and_maps_moves_back():
    itf = PommermanEgoCorner()
    env = _setup(itf)
    obs, _ = env.reset(seed=0)
    for agent, o in obs.items():
        ego = itf.transform_observation(o)
        assert ego["position"].tolist() == [1, 1] and ego["board"][1, 1] == 10 + int(agent[-1])
        # the model's "down" moves the agent away from its wall row, as down does for agent_0
        raw = itf.transform_action(2)
        r, c = o["position"].tolist()
        dr = {1: -1, 2: 1}.get(raw, 0)
        assert abs((r + dr) - 5) < abs(r - 5)
    with pytest.raises(MaskTranslationError, match="translates only masks that allow up and down alike"):
        itf.transform_action_mask(np.array([1, 1, 0, 1, 1, 1], dtype=np.int8))


def test_legal_moves_follow_the_board_and_illegal_moves_become_stop():
    itf = PommermanLegalMoves()
    env = _setup(itf)
    obs, _ = env.reset(seed=0)
    o = obs["agent_0"]
    out = itf.transform_observation(o)
    assert out["legal_moves"].tolist() == legal_moves(o).tolist()
    assert out["legal_moves"][0] == 1 and out["legal_moves"][1] == 0  # (0, 1) above agent_0 is a rigid wall
    assert itf.transform_action(1) == 0 and itf.transform_action(2) == 2
    state = env.state_json()
    state["agents"][0]["ammo"] = 0
    obs, _ = env.load_state(state)
    assert itf.transform_observation(obs["agent_0"])["legal_moves"][5] == 0


def test_attributes_and_features_describe_the_agent():
    itf = PommermanFeatures()
    env = _setup(itf, "team")
    obs, _ = env.reset(seed=0)
    features = itf.transform_observation(obs["agent_3"])
    assert itf.observation_space.contains(features)
    assert features["planes"][-1, 1, 1] == 1  # the position plane, in the ego view
    assert features["vector"][:6].tolist() == pytest.approx([0.1, 0.2, 0.0, 1.0, 1.0, 0.0])
    with pytest.raises(ValueError, match=r"PommermanAttributes: max_steps must be an integer in 1..1000000000, got 0"):
        PommermanAttributes(max_steps=0)


def test_arena_train_pommerman_ffa_runs_end_to_end(tmp_path, capsys):
    pytest.importorskip("stable_baselines3")
    from arena.cli import main

    out = tmp_path / "run"
    code = main(
        [
            "train",
            "pommerman",
            "--env-options",
            '{"mode": "ffa", "max_steps": 60}',
            "--algo",
            "ppo",
            "--timesteps",
            "256",
            "--eval-every",
            "256",
            "--eval-games",
            "2",
            "--n-envs",
            "1",
            "--progress",
            "none",
            "--interface",
            "interfaces.pommerman:PommermanFeatures",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert "trained ppo on pommerman for 256 timesteps" in capsys.readouterr().out
    assert (out / json.loads((out / "agent.json").read_text())["model"]).exists()
    assert (out / "evaluations.csv").exists()


def test_batch_planes_match_the_dense_planes_and_turn_ego_moves_back():
    dense, compact, ego = PommermanPlanes(), PommermanBatchPlanes(), PommermanBatchPlanes(ego=True, max_steps=100)
    env = _setup(dense, "radio")
    for itf in (compact, ego):
        itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    obs, _ = env.reset(seed=5)
    obs, *_ = env.step({a: np.array([5, 3, 4]) for a in obs})
    for agent, o in obs.items():
        planes = compact.transform_observation(o)
        assert compact.observation_space.contains(planes) and planes.shape == (24, 11, 11)
        assert (planes[:12] == dense.transform_observation(o)[:12]).all()  # the same one-hot board
        assert (planes[12] == o["bomb_life"]).all() and planes[16, 0, 0] == o["ammo"] == 0
        assert planes[22, 5, 5] == 3 and planes[23, 5, 5] == 4  # the teammate's words
        turned = ego.transform_observation(o)
        assert turned[9, 1, 1] == 1 and turned[21, 0, 0] == 2  # itself top left; time 255 * 1 // 100
        me = int(agent[-1])
        assert ego.transform_action(np.array([1, 7, 0])).tolist() == [2 if me in (1, 2) else 1, 7, 0]
    with pytest.raises(TypeError, match="PommermanBatchPlanes: ego must be True or False, got 1"):
        PommermanBatchPlanes(ego=1)


def test_the_planes_are_the_batch_s_first_sixteen_but_for_whether_a_bomb_moves():
    # PommermanPlanes writes a 0/1 "moving" plane where the batch writes the direction (0-4)
    from envs.pommerman.planes import PLANE_NAMES

    differ = [(i, mine, theirs) for i, (mine, theirs) in enumerate(zip(PLANES, PLANE_NAMES)) if mine != theirs]
    assert len(PLANES) == 16 and differ == [(14, "bomb_moving", "bomb_moving_direction")]
