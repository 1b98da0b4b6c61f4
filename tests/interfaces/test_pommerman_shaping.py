"""Pommerman's shaping interfaces: each pays its bonus for its event, on boards built for it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from arena.errors import SpaceMismatchError
from arena.testing import check_interface
from envs.pommerman.env import Pommerman
from interfaces.pommerman import PommermanBatchPlanes
from interfaces.pommerman_shaping import (
    PommermanEnemyDownBonus,
    PommermanPickupBonus,
    enemies_down_planes,
    pickups_planes,
)

STOP, RIGHT = 0, 4


def _state(board_items: dict[tuple[int, int], int], bombs: list[tuple[int, int, int, int]] = ()) -> dict[str, Any]:
    """Open board, agents in the corners (agent 0 top left at (1, 1)); extra board codes; bombs (row, col, life, strength)."""
    board = np.zeros((11, 11), dtype=np.int64)
    positions = [(1, 1), (9, 1), (9, 9), (1, 9)]
    for (r, c), code in board_items.items():
        board[r, c] = code
    for r, c, _, _ in bombs:
        board[r, c] = 3
    for i, (r, c) in enumerate(positions):
        board[r, c] = 10 + i
    return {
        "board_size": 11,
        "step_count": 0,
        "board": board.tolist(),
        "agents": [
            {"agent_id": i, "is_alive": True, "position": list(p), "ammo": 1, "blast_strength": 2, "can_kick": False}
            for i, p in enumerate(positions)
        ],
        "bombs": [
            {"position": [r, c], "bomber_id": 2, "life": life, "blast_strength": strength, "moving_direction": None}
            for r, c, life, strength in bombs
        ],
        "flames": [],
        "items": [],
        "intended_actions": [],
    }


def _play(itf: Any, state: dict[str, Any], move: int) -> tuple[float, float, Any, Any]:
    """Agent 0 makes ``move`` (the others stop), then stops; the shaped rewards of both steps, and the
    batch views before and after the first step."""
    env = Pommerman()
    planes = PommermanBatchPlanes()
    for level in (itf, planes):
        level.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    obs, _ = env.load_state(state)
    itf.transform_reset(obs["agent_0"])
    before = planes.transform_observation(obs["agent_0"])
    rewards = []
    for action in (move, STOP):
        obs, reward, *_ = env.step({a: action if a == "agent_0" else STOP for a in obs})
        rewards.append(itf.transform_reward(reward["agent_0"]))
        observed = itf.transform_observation(obs["agent_0"])
        assert observed is obs["agent_0"]  # the observation passes unchanged
        if len(rewards) == 1:
            after = planes.transform_observation(obs["agent_0"])
    return rewards[0], rewards[1], before[None], after[None]


def test_pickup_bonus_pays_once_for_a_power_up_and_not_for_an_empty_cell() -> None:
    with_power_up = _state({(1, 2): 7})
    first, second, before, after = _play(PommermanPickupBonus(bonus=0.1), with_power_up, RIGHT)
    assert (first, second) == (0.0, 0.1)  # paid with the reward after the observation that shows it
    assert pickups_planes(before, after).tolist() == [1]
    first, second, before, after = _play(PommermanPickupBonus(bonus=0.1), _state({}), RIGHT)
    assert (first, second) == (0.0, 0.0)
    assert pickups_planes(before, after).tolist() == [0]


def test_enemy_down_bonus_pays_for_each_enemy_that_dies() -> None:
    # a bomb about to go off above agent_1 (bottom left): its blast reaches agent_1 and nobody else
    deadly = _state({}, bombs=[(8, 1, 1, 2)])
    first, second, before, after = _play(PommermanEnemyDownBonus(bonus=0.5), deadly, STOP)
    assert (first, second) == (0.0, 0.5)
    assert enemies_down_planes(before, after).tolist() == [1]
    first, second, before, after = _play(PommermanEnemyDownBonus(bonus=0.5), _state({}), STOP)
    assert (first, second) == (0.0, 0.0)
    assert enemies_down_planes(before, after).tolist() == [0]


@pytest.mark.parametrize("cls", [PommermanPickupBonus, PommermanEnemyDownBonus])
def test_contract_and_bad_input(cls: type) -> None:
    for instance, observation_space, action_space in cls.contract_examples():
        check_interface(instance, observation_space, action_space, examples=10, require_masks=False)
    with pytest.raises(ValueError, match=f"{cls.__name__}: bonus must be a finite number, got nan"):
        cls(bonus=float("nan"))
    env = Pommerman()
    with pytest.raises(SpaceMismatchError, match="needs the pommerman observation Dict"):
        cls().setup(env.action_space("agent_0"), env.action_space("agent_0"))
