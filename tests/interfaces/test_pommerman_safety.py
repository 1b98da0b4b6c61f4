"""The Pommerman action filter: never every move masked, never a move into certain death allowed.

The constructed boards are checked against the rules themselves: from the board, every first
action is played out in the ``pommerman`` env (the other bombers standing still, walled in
their corners) along every path of later moves, and an action is certain death when no path
survives to the filter's horizon.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import envs
from arena.errors import SpaceMismatchError
from arena.testing import check_interface
from envs.pommerman.env import Pommerman
from envs.pommerman.planes import EGO_ACTIONS
from interfaces.pommerman import PommermanBatchPlanes
from interfaces.pommerman_safety import HORIZON, PommermanSafeMoves, safe_moves, safe_moves_planes

STOP, UP, DOWN, LEFT, RIGHT, BOMB = range(6)
RIGID, WOOD, BOMB_CODE, FLAMES = 1, 2, 3, 4


def _board(open_cells: list[tuple[int, int]]) -> np.ndarray:
    """Rigid walls everywhere but ``open_cells`` and the other bombers' corners."""
    board = np.full((11, 11), RIGID, dtype=np.int64)
    for r, c in open_cells:
        board[r, c] = 0
    return board


def _state(
    open_cells: list[tuple[int, int]],
    me: tuple[int, int],
    bombs: list[tuple[int, int, int, int]] = (),
    flames: list[tuple[int, int, int]] = (),
    ammo: int = 1,
    blast: int = 2,
) -> dict[str, Any]:
    """A state dict: agent 0 at ``me``, the others in the other corners; bombs (row, col, life,
    strength); flames (row, col, life as observed, 1-3)."""
    board = _board(open_cells)
    others = [(10, 0), (10, 10), (0, 10)]
    agents = [
        {
            "agent_id": 0,
            "is_alive": True,
            "position": list(me),
            "ammo": ammo,
            "blast_strength": blast,
            "can_kick": False,
        }
    ]
    for i, (r, c) in enumerate(others, start=1):
        agents.append(
            {"agent_id": i, "is_alive": True, "position": [r, c], "ammo": 0, "blast_strength": 2, "can_kick": False}
        )
        board[r, c] = 10 + i
    board[me] = 10
    for r, c, _, _ in bombs:
        if (r, c) != me:
            board[r, c] = BOMB_CODE
    for r, c, _ in flames:
        board[r, c] = FLAMES
    return {
        "board_size": 11,
        "step_count": 0,
        "board": board.tolist(),
        "agents": agents,
        "bombs": [
            {"position": [r, c], "bomber_id": 1, "life": life, "blast_strength": strength, "moving_direction": None}
            for r, c, life, strength in bombs
        ],
        "flames": [{"position": [r, c], "life": life - 1} for r, c, life in flames],
        "items": [],
        "intended_actions": [],
    }


def _survivable(state: dict[str, Any]) -> list[int]:
    """Per first action, 1 if some path of later moves keeps agent 0 alive for HORIZON steps (the env decides)."""
    env = Pommerman()
    result = []
    for first in range(6):
        frontier = [state]
        for t in range(HORIZON):
            reached: dict[tuple[int, int], dict[str, Any]] = {}
            for node in frontier:
                for move in [first] if t == 0 else range(5):
                    obs, _ = env.load_state(node)
                    obs, *_ = env.step({agent: move if agent == "agent_0" else STOP for agent in obs})
                    if "agent_0" in obs:
                        position = tuple(int(v) for v in obs["agent_0"]["position"])
                        reached.setdefault(position, env.state_json())
            frontier = list(reached.values())
            if not frontier:
                break
        result.append(int(bool(frontier)))
    return result


def _observation(state: dict[str, Any]) -> dict[str, Any]:
    obs, _ = Pommerman().load_state(state)
    return obs["agent_0"]


CORRIDOR = [(5, c) for c in range(1, 10)] + [(4, 7)]
CASES = {
    # a bomb to the left about to go off down the corridor: only running right, then up the side exit, lives
    "run right to the exit": (_state(CORRIDOR, (5, 5), bombs=[(5, 4, 3, 5)]), [0, 0, 0, 0, 1, 0]),
    # fresh flames to the right (life 3) burn two more steps; flames at life 1 go out first
    "flames": (_state(CORRIDOR, (5, 5), flames=[(5, 6, 3), (5, 4, 1)]), [1, 1, 1, 1, 0, 1]),
    # a bomb laid at the end of a dead end, with a blast that fills the corridor: no way out
    "no bomb in a dead end": (_state([(5, c) for c in range(1, 5)], (5, 1), blast=5), [1, 1, 1, 1, 1, 0]),
    # ...but with a side exit within reach, laying it is fine
    "bomb with an exit": (_state([(5, c) for c in range(1, 5)] + [(4, 3)], (5, 1), blast=5), [1, 1, 1, 1, 1, 1]),
    # a chain: the near bomb (life 9) goes off with the far one (life 2) whose blast reaches it
    "chain": (_state(CORRIDOR, (5, 5), bombs=[(5, 8, 2, 3), (5, 6, 9, 3)]), [0, 0, 0, 1, 0, 0]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_constructed_boards_mask_exactly_the_deadly_moves(name: str) -> None:
    state, expected = CASES[name]
    assert _survivable(state) == expected  # the rules agree with the case
    assert safe_moves(_observation(state)).tolist() == expected


def test_no_escape_at_all_allows_every_move() -> None:
    state = _state(CORRIDOR[:-1], (5, 5), bombs=[(5, 4, 2, 10)])
    assert _survivable(state) == [0] * 6
    assert safe_moves(_observation(state)).tolist() == [1] * 6


_codes = st.sampled_from([0, 0, 0, 1, 2, 3, 4, 6, 7, 8])


@settings(max_examples=60, deadline=None)
@given(
    board=hnp.arrays(np.uint8, (11, 11), elements=_codes),
    life=hnp.arrays(np.uint8, (11, 11), elements=st.integers(0, 10)),
    strength=hnp.arrays(np.uint8, (11, 11), elements=st.integers(1, 6)),
    flames=hnp.arrays(np.uint8, (11, 11), elements=st.integers(0, 3)),
    row=st.integers(0, 10),
    col=st.integers(0, 10),
    ammo=st.integers(0, 2),
    blast=st.integers(1, 6),
)
def test_never_masks_every_move(
    board: np.ndarray,
    life: np.ndarray,
    strength: np.ndarray,
    flames: np.ndarray,
    row: int,
    col: int,
    ammo: int,
    blast: int,
) -> None:
    observation = {
        "board": board,
        "bomb_life": life,
        "bomb_blast_strength": strength * (life > 0),
        "flame_life": flames,
        "position": np.array([row, col]),
        "ammo": ammo,
        "blast_strength": blast,
    }
    mask = safe_moves(observation)
    assert mask.dtype == np.int8 and mask.shape == (6,)
    assert mask.any()


@pytest.mark.parametrize("ego", [False, True])
def test_batch_views_give_the_masks_of_the_observations(ego: bool) -> None:
    env = envs.make("pommerman")
    planes = PommermanBatchPlanes(ego=ego)
    planes.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    rng = np.random.default_rng(3)
    observations, _ = env.reset(seed=3)
    views, masks, deadly = [], [], 0
    while observations and len(views) < 400:
        for agent, observation in observations.items():
            views.append(planes.transform_observation(observation))
            mask = safe_moves(observation)
            deadly += int(not mask.all())
            if ego:  # the view's moves are turned: turn the mask the same way
                me = int(agent[-1])
                mask = mask[EGO_ACTIONS[me]]
            masks.append(mask)
        observations, *_ = env.step({a: int(rng.integers(6)) for a in observations})
    assert deadly > 0  # random bombers put themselves in danger: the comparison sees masks
    assert safe_moves_planes(np.stack(views)).tolist() == np.stack(masks).tolist()


def test_planes_of_the_wrong_shape_are_refused() -> None:
    with pytest.raises(ValueError, match=r"expected PommermanBatch views \(n, planes, 11, 11\), got shape \(2, 5\)"):
        safe_moves_planes(np.zeros((2, 5), np.uint8))


def test_interface_replaces_a_deadly_move_and_keeps_the_contract() -> None:
    state, _ = CASES["run right to the exit"]
    env = Pommerman()
    itf = PommermanSafeMoves()
    itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    observation = itf.transform_observation(_observation(state))
    assert observation["safe_moves"].tolist() == [0, 0, 0, 0, 1, 0]
    assert [int(itf.transform_action(a)) for a in range(6)] == [RIGHT] * 6
    for instance, observation_space, action_space in PommermanSafeMoves.contract_examples():
        check_interface(instance, observation_space, action_space, examples=10, require_masks=False)
    with pytest.raises(SpaceMismatchError, match="needs the pommerman observation Dict"):
        itf.setup(env.action_space("agent_0"), env.action_space("agent_0"))
