"""The game state as compact arrays, and its JSON form (the reference's ``get_json_info``, decoded)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.errors import InvalidValueError
from envs.pommerman.core import BOMB_CAP, FLAME_LIFE, FLAMES, MAX_AMMO, SIZE

__all__ = ["State", "decode_state", "encode_state", "packed_state", "PACKED_BYTES", "PACKED_LAYOUT"]

_RADIO_NAMES = ("Agent0", "Agent1", "Agent2", "Agent3")


@dataclass
class State:
    """Everything the rules read; see :mod:`envs.pommerman.core` for the array layouts."""

    board: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), np.uint8))
    items: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), np.uint8))
    flames: np.ndarray = field(default_factory=lambda: np.zeros((SIZE, SIZE), np.uint8))
    agents: np.ndarray = field(default_factory=lambda: np.zeros((4, 6), np.int8))
    bombs: np.ndarray = field(default_factory=lambda: np.zeros((BOMB_CAP, 6), np.int8))
    counts: np.ndarray = field(default_factory=lambda: np.zeros(2, np.int64))
    radio: np.ndarray = field(default_factory=lambda: np.zeros((4, 2), np.int64))
    step_count: int = 0
    intended_actions: list = field(default_factory=list)


# A packed state: each array's (name, shape, dtype, byte offset) in one buffer; observe.unpack_state
# reads the same layout. int64s start on a multiple of 8.
_CELLS = SIZE * SIZE
_BOMBS_AT = 3 * _CELLS + 24
_COUNTS_AT = -(-(_BOMBS_AT + BOMB_CAP * 6) // 8) * 8
PACKED_LAYOUT = (
    ("board", (SIZE, SIZE), np.dtype(np.uint8), 0),
    ("items", (SIZE, SIZE), np.dtype(np.uint8), _CELLS),
    ("flames", (SIZE, SIZE), np.dtype(np.uint8), 2 * _CELLS),
    ("agents", (4, 6), np.dtype(np.int8), 3 * _CELLS),
    ("bombs", (BOMB_CAP, 6), np.dtype(np.int8), _BOMBS_AT),
    ("counts", (2,), np.dtype(np.int64), _COUNTS_AT),
    ("radio", (4, 2), np.dtype(np.int64), _COUNTS_AT + 16),
)
#: The size of a packed state's buffer.
PACKED_BYTES = _COUNTS_AT + 16 + 64


def packed_state(source: State | None = None) -> tuple[State, np.ndarray]:
    """A :class:`State` whose arrays are views of one uint8 buffer, and the buffer.

    A compiled call then takes the whole state as one argument (numba's dispatch costs per
    argument about what a step of the rules costs per array). ``source`` is copied in (default: zeros).

    Example:
        >>> state, buffer = packed_state()
        >>> state.agents[0, 3] = 1
        >>> buffer.shape, int(buffer[3 * 121 + 3])
        ((1200,), 1)
    """
    buffer = np.zeros(PACKED_BYTES, np.uint8)
    views = {name: np.ndarray(shape, dtype, buffer, offset) for name, shape, dtype, offset in PACKED_LAYOUT}
    state = State(
        views["board"],
        views["items"],
        views["flames"],
        views["agents"],
        views["bombs"],
        views["counts"],
        views["radio"],
    )
    if source is not None:
        for name, *_ in PACKED_LAYOUT:
            getattr(state, name)[:] = getattr(source, name)
        state.step_count = source.step_count
        state.intended_actions = list(source.intended_actions)
    return state, buffer


def _cell(value: Any, what: str) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InvalidValueError(f"Pommerman.load_state: {what} must be [row, col], got {value!r}")
    r, c = int(value[0]), int(value[1])
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        raise InvalidValueError(f"Pommerman.load_state: {what} {value!r} is off the {SIZE}x{SIZE} board")
    return r, c


#: The largest blast strength the rules give (the FFA cap) and the observation spaces bound.
_MAX_BLAST = 10


def _small(value: Any, what: str, low: int = 0, high: int = 127) -> int:
    """An int in ``low..high`` (the compact state keeps counts in one byte)."""
    number = int(value)
    if not low <= number <= high:
        raise InvalidValueError(f"Pommerman.load_state: {what} must lie in {low}..{high}, got {value!r}")
    return number


def _field(record: Mapping[str, Any], key: str, what: str) -> Any:
    try:
        return record[key]
    except (KeyError, TypeError):
        raise InvalidValueError(f"Pommerman.load_state: {what} has no {key!r} field (got {record!r})") from None


def _check_flames_drawn(state: State) -> None:
    """Flames show on the board wherever they burn, and no bomb lies on them, as after any step of the rules.

    (The batch's codes views rely on it: one nibble carries a bomb's direction or the flames' life.)
    """
    burning = state.flames != 0
    if (state.board[burning] != FLAMES).any():
        r, c = np.argwhere(burning & (state.board != FLAMES))[0]
        raise InvalidValueError(
            f"Pommerman.load_state: flames burn on cell {[int(r), int(c)]} but the board shows "
            f"{int(state.board[r, c])} there, not {FLAMES} (flames): the board draws flames over the cells they burn"
        )
    for bomb in state.bombs[: state.counts[0]]:
        if state.board[bomb[0], bomb[1]] == FLAMES:
            raise InvalidValueError(
                f"Pommerman.load_state: a bomb lies on cell {[int(bomb[0]), int(bomb[1])]}, which the board "
                "shows as flames: a bomb on flames goes off in the step that puts it there"
            )


def decode_state(data: Mapping[str, Any], radio: bool) -> State:
    """Build a :class:`State` from a state dict in the trajectory file's format.

    Raises:
        ValueError: a field is missing or out of range, or the state is one the rules never reach
            (flames the board does not show, a bomb on flames); the text names it.
    """
    if not isinstance(data, Mapping):
        raise InvalidValueError(f"Pommerman.load_state: expected a state dict, got {type(data).__name__}")
    state = State()
    board = np.asarray(_field(data, "board", "the state"))
    if board.shape != (SIZE, SIZE) or board.dtype.kind not in "iu" or board.min() < 0 or board.max() > 13:
        raise InvalidValueError(
            f"Pommerman.load_state: board must be {SIZE}x{SIZE} cell codes 0-13, got shape {board.shape}"
        )
    state.board[:] = board
    agents = _field(data, "agents", "the state")
    if len(agents) != 4:
        raise InvalidValueError(f"Pommerman.load_state: agents must list 4 agents, got {len(agents)}")
    for i, agent in enumerate(agents):
        what = f"agent {i}"
        r, c = _cell(_field(agent, "position", what), f"{what} position")
        state.agents[i] = (
            bool(_field(agent, "is_alive", what)),
            r,
            c,
            _small(_field(agent, "ammo", what), f"{what} ammo", 0, MAX_AMMO),
            _small(_field(agent, "blast_strength", what), f"{what} blast_strength", 0, _MAX_BLAST),
            bool(_field(agent, "can_kick", what)),
        )
    bombs = _field(data, "bombs", "the state")
    if len(bombs) > BOMB_CAP:
        raise InvalidValueError(f"Pommerman.load_state: at most {BOMB_CAP} bombs, got {len(bombs)}")
    for i, bomb in enumerate(bombs):
        what = f"bomb {i}"
        r, c = _cell(_field(bomb, "position", what), f"{what} position")
        bomber = int(_field(bomb, "bomber_id", what))
        if not 0 <= bomber < 4:
            raise InvalidValueError(f"Pommerman.load_state: {what} bomber_id must be 0-3, got {bomber}")
        direction = _field(bomb, "moving_direction", what)
        state.bombs[i] = (
            r,
            c,
            bomber,
            _small(_field(bomb, "life", what), f"{what} life", 1, 10),
            _small(_field(bomb, "blast_strength", what), f"{what} blast_strength", 0, _MAX_BLAST),
            0 if direction is None else _small(direction, f"{what} moving_direction", 1, 4),
        )
    for i, flame in enumerate(_field(data, "flames", "the state")):
        r, c = _cell(_field(flame, "position", f"flame {i}"), f"flame {i} position")
        bit = 1 << _small(_field(flame, "life", f"flame {i}"), f"flame {i} life", 0, FLAME_LIFE)
        if state.flames[r, c] & bit:
            raise InvalidValueError(f"Pommerman.load_state: two flames with the same life on cell {[r, c]}")
        state.flames[r, c] |= bit
    state.counts[:] = (len(bombs), np.count_nonzero(state.flames))
    _check_flames_drawn(state)
    for entry in _field(data, "items", "the state"):
        r, c = _cell(entry[0], "item position")
        state.items[r, c] = int(entry[1])
    state.step_count = int(_field(data, "step_count", "the state"))
    state.intended_actions = list(data.get("intended_actions", []))
    if radio:
        words = _field(data, "radio_from_agent", "a radio-mode state")
        for i, name in enumerate(_RADIO_NAMES):
            state.radio[i] = words.get(name, (0, 0))
    return state


def _flame_list(flames: np.ndarray) -> list[dict[str, Any]]:
    """The flames in the reference's order: oldest (lowest life) first, cells row by row."""
    out = []
    for life in range(8):
        for r, c in zip(*np.nonzero(flames & (1 << life))):
            out.append({"position": [int(r), int(c)], "life": life})
    return out


def encode_state(state: State, radio: bool) -> dict[str, Any]:
    """The state dict of :class:`State` in the trajectory file's format (plain Python values)."""
    nb = int(state.counts[0])
    data: dict[str, Any] = {
        "board_size": SIZE,
        "step_count": state.step_count,
        "board": state.board.tolist(),
        "agents": [
            {
                "agent_id": i,
                "is_alive": bool(a[0]),
                "position": [int(a[1]), int(a[2])],
                "ammo": int(a[3]),
                "blast_strength": int(a[4]),
                "can_kick": bool(a[5]),
            }
            for i, a in enumerate(state.agents.tolist())
        ],
        "bombs": [
            {
                "position": [b[0], b[1]],
                "bomber_id": b[2],
                "life": b[3],
                "blast_strength": b[4],
                "moving_direction": b[5] or None,
            }
            for b in state.bombs[:nb].tolist()
        ],
        "flames": _flame_list(state.flames),
        "items": [[[int(r), int(c)], int(state.items[r, c])] for r, c in zip(*np.nonzero(state.items))],
        "intended_actions": list(state.intended_actions),
    }
    if radio:
        data["radio_vocab_size"] = 8
        data["radio_num_words"] = 2
        data["radio_from_agent"] = {name: state.radio[i].tolist() for i, name in enumerate(_RADIO_NAMES)}
    return data
