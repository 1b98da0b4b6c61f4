"""Pommerman interfaces: board planes, attribute vectors, positions, legal moves, ego corner, features.

All of them read the ``pommerman`` env's observation ``Dict`` (``envs.make("pommerman")``):
``board`` codes 0-13, the bomb and flame grids, ``position``, ``ammo``,
``blast_strength``, ``can_kick``, ``teammate``, ``enemies``, ``alive``, ``step_count``.
Actions are ``Discrete(6)`` (0 stop, 1 up, 2 down, 3 left, 4 right, 5 bomb); radio mode's
``MultiDiscrete([6, 8, 8])`` is accepted where noted.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batched_stack import split_rows
from arena.errors import InvalidTypeError, InvalidValueError, MaskTranslationError, SpaceMismatchError
from arena.interface import Interface

__all__ = [
    "PommermanPlanes",
    "PommermanAttributes",
    "PommermanPosition",
    "PommermanLegalMoves",
    "PommermanEgoCorner",
    "PommermanFeatures",
    "PommermanBatchPlanes",
    "PLANES",
    "SlotRows",
    "require_pommerman_dict",
]

SIZE = 11
#: The planes of :class:`PommermanPlanes`: one-hot cell types (agents relative to the
#: observer), then the bomb and flame grids scaled to 0..1. They are the first 16 of the
#: batch's ``envs.pommerman.planes.PLANE_NAMES`` but for plane 14, which says only whether a
#: bomb moves (0/1) where the batch's ``bomb_moving_direction`` says where (0-4); the names are
#: written out here because importing the batch's module compiles its rules with numba.
PLANES = (
    "passage",
    "rigid",
    "wood",
    "bomb",
    "flames",
    "fog",
    "extra_bomb",
    "incr_range",
    "kick",
    "self",
    "teammate",
    "enemy",
    "bomb_life",
    "bomb_blast_strength",
    "bomb_moving",
    "flame_life",
)
_KEYS = (
    "board",
    "bomb_blast_strength",
    "bomb_life",
    "bomb_moving_direction",
    "flame_life",
    "position",
    "ammo",
    "blast_strength",
    "can_kick",
    "teammate",
    "enemies",
    "alive",
)


def _raw_spaces(mode: str = "ffa") -> tuple[spaces.Space, spaces.Space]:
    from envs.pommerman.observe import observation_space  # envs may import arena, not the other way round

    action = spaces.MultiDiscrete([6, 8, 8]) if mode == "radio" else spaces.Discrete(6)
    return observation_space(mode, 800), action


def require_pommerman_dict(itf: Interface, keys: tuple[str, ...] = _KEYS) -> spaces.Dict:
    """``itf``'s inner observation space, checked to be a Pommerman observation Dict holding ``keys``.

    Raises:
        SpaceMismatchError: another space, or a Dict without one of ``keys``; the text names ``itf``.

    Example:
        >>> level = Interface()
        >>> level.setup(*_raw_spaces())
        >>> sorted(require_pommerman_dict(level, ("board", "alive")).spaces)[:3]
        ['alive', 'ammo', 'blast_strength']
    """
    space = itf.inner_observation_space
    if not isinstance(space, spaces.Dict) or any(k not in space.spaces for k in keys):
        raise SpaceMismatchError(f"{itf}: needs the pommerman observation Dict (keys {', '.join(keys)}), got {space}")
    return space


def _require_pommerman(itf: Interface, moves_only: bool = False) -> spaces.Dict:
    space = require_pommerman_dict(itf)
    action = itf.inner_action_space
    discrete = type(action) is spaces.Discrete and action.n == 6
    radio = isinstance(action, spaces.MultiDiscrete) and action.nvec.tolist() == [6, 8, 8]
    if not (discrete or (radio and not moves_only)):
        wanted = "Discrete(6)" if moves_only else "Discrete(6) or MultiDiscrete([6, 8, 8])"
        raise SpaceMismatchError(f"{itf}: needs pommerman actions {wanted}, got {action}")
    return space


def _max_steps(itf: Interface, max_steps: Any) -> int:
    if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or not 1 <= max_steps <= 10**9:
        raise InvalidValueError(f"{type(itf).__name__}: max_steps must be an integer in 1..{10**9}, got {max_steps!r}")
    return int(max_steps)


def _flip_free_mask(itf: Interface, mask: Any, radio: bool) -> np.ndarray:
    """A mask that no flip changes, passed on; any other raises (it arrives before the observation
    that tells whose it is, so it cannot be turned). Radio's 22 flags: the moves' 6 must be so, the
    words' 16 pass as they are (no flip turns a word)."""
    raw = np.asarray(mask)
    if raw.shape != ((22,) if radio else (6,)) or raw[1] != raw[2] or raw[3] != raw[4]:
        raise MaskTranslationError(
            f"{itf}: translates only masks that allow up and down alike and left and right alike "
            f"(the pommerman env's masks{'; radio: 6 moves, then 8 and 8 words' if radio else ''}), "
            f"got {raw.tolist() if raw.ndim == 1 else mask!r}"
        )
    return raw


class SlotRows:
    """One row per game slot that a level written in array form keeps (a mask, a previous view).

    A batched hook may cover only some slots (``slots``: the slot of each row, ``None``: every
    slot in order, see :class:`arena.batched_stack.BatchedStack`); the rows grow to the slots seen.

    Args:
        fill: the value of a slot's row before anything is put there.

    Example:
        >>> rows = SlotRows(fill=0)
        >>> rows.put(np.array([5, 7]), rows.slots([2, 0], 2))
        >>> rows.get(rows.slots(None, 3)).tolist()
        [7, 0, 5]
    """

    def __init__(self, fill: Any) -> None:
        self.fill = fill
        self.rows: np.ndarray | None = None

    @staticmethod
    def slots(slots: Any, count: int) -> np.ndarray:
        """The slot of each of ``count`` rows: ``slots`` as indices, or ``0..count-1`` for ``None``."""
        return np.arange(count) if slots is None else np.asarray(slots, dtype=np.int64)

    def put(self, values: Any, slots: np.ndarray) -> None:
        """Keep ``values`` (one row per entry of ``slots``) as those slots' rows (a copy)."""
        values = np.asarray(values)
        if self.rows is None or self.rows.shape[1:] != values.shape[1:]:  # the first rows tell their shape
            self.rows = np.full((0, *values.shape[1:]), self.fill, dtype=values.dtype)
        self._grow(slots)
        self.rows[slots] = values

    def get(self, slots: np.ndarray) -> np.ndarray:
        """The rows of ``slots`` (``fill`` for a slot never put)."""
        if self.rows is None:
            return np.full(len(slots), self.fill)
        self._grow(slots)
        return self.rows[slots]

    def _grow(self, slots: np.ndarray) -> None:
        rows = self.rows
        size = int(slots.max()) + 1 if len(slots) else 0
        if rows is not None and size > len(rows):
            grown = np.full((size, *rows.shape[1:]), self.fill, dtype=rows.dtype)
            grown[: len(rows)] = rows
            self.rows = grown


def _observer(observation: dict[str, Any]) -> int:
    """The observer's agent id, from its teammate (team modes) or the enemy codes (FFA)."""
    teammate = int(observation["teammate"])
    if teammate >= 10:
        return (teammate - 10 + 2) % 4
    enemies = {int(e) for e in np.asarray(observation["enemies"]).tolist()}
    return next((i for i in range(4) if 10 + i not in enemies), 0)


class _PommermanInterface(Interface):
    """The opening every Pommerman interface shares: contract examples, the raw-space check, one space hook.

    Subclasses name the modes of their contract examples, whether they need plain moves
    (``Discrete(6)``), and compute their observation space in :meth:`_transformed_space`.
    """

    example_modes: tuple[str, ...] = ("ffa",)
    moves_only = False

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(), *_raw_spaces(mode)) for mode in cls.example_modes]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self.observation_space = self._transformed_space(_require_pommerman(self, self.moves_only))

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        raise NotImplementedError


class PommermanPlanes(_PommermanInterface):
    """The board as one-hot planes per cell type (agents as self/teammate/enemy) plus bomb and flame planes.

    Output ``Box(0, 1, (16, 11, 11), float32)``, planes in the order of :data:`PLANES`:
    passage, rigid, wood, bomb, flames, fog, the three power-ups, self, teammate, enemy
    (a one-hot cell type each), then bomb life / 10, bomb blast strength / 10, bomb moving
    (0/1) and flame life / 3. The observer is found from its ``teammate``/``enemies``, so
    one policy can play any seat.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanPlanes()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> planes = itf.transform_observation(obs["agent_1"])
        >>> planes.shape, float(planes[PLANES.index("self"), 9, 1])
        ((16, 11, 11), 1.0)
    """

    example_modes = ("ffa", "radio")

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        # code -> plane, per observer: 0-8 themselves, agents 10-13 to self/teammate/enemy, 9 never drawn
        self._tables = []
        for me in range(4):
            table = np.arange(14)
            table[9] = 0
            for other in range(4):
                table[10 + other] = 9 if other == me else 11
            self._tables.append(table)
        self._eye = np.eye(12, dtype=np.float32)
        return spaces.Box(0.0, 1.0, (len(PLANES), SIZE, SIZE), np.float32)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        me = _observer(observation)
        table = self._tables[me].copy()
        teammate = int(observation["teammate"])
        if teammate >= 10:
            table[teammate] = 10
        planes = np.empty((len(PLANES), SIZE, SIZE), np.float32)
        planes[:12] = np.moveaxis(self._eye[table[np.asarray(observation["board"])]], -1, 0)
        planes[12] = np.asarray(observation["bomb_life"], np.float32) / 10.0
        planes[13] = np.asarray(observation["bomb_blast_strength"], np.float32) / 10.0
        planes[14] = np.asarray(observation["bomb_moving_direction"]) > 0
        planes[15] = np.asarray(observation["flame_life"], np.float32) / 3.0
        return np.clip(planes, 0.0, 1.0, out=planes)


class PommermanAttributes(_PommermanInterface):
    """The agent's attributes as a vector: ammo, blast strength, kick, alive teammate and enemies, time.

    Output ``Box(0, 1, (6,), float32)``: ammo / 10, blast strength / 10, can kick, teammate
    alive (0 in FFA), fraction of enemies alive, step count / ``max_steps``.

    Args:
        inner: the interface underneath.
        max_steps: the env's step limit, to scale the step count.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman", mode="team")
        >>> itf = PommermanAttributes()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> [round(float(x), 2) for x in itf.transform_observation(obs["agent_0"])]
        [0.1, 0.2, 0.0, 1.0, 1.0, 0.0]
    """

    example_modes = ("team",)

    def __init__(self, inner: Interface | None = None, *, max_steps: int = 800) -> None:
        super().__init__(inner)
        self.max_steps = _max_steps(self, max_steps)

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        return spaces.Box(0.0, 1.0, (6,), np.float32)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        alive = np.asarray(observation["alive"])
        teammate = int(observation["teammate"])
        enemies = [int(e) - 10 for e in np.asarray(observation["enemies"]).tolist() if int(e) >= 10]
        vector = np.array(
            [
                int(observation["ammo"]) / 10.0,
                int(observation["blast_strength"]) / 10.0,
                float(observation["can_kick"]),
                float(alive[teammate - 10]) if teammate >= 10 else 0.0,
                float(alive[enemies].sum()) / max(1, len(enemies)),
                int(observation.get("step_count", 0)) / self.max_steps,
            ],
            dtype=np.float32,
        )
        return np.clip(vector, 0.0, 1.0, out=vector)

    def _arguments(self) -> str:
        return ", ".join(
            filter(None, [super()._arguments(), f"max_steps={self.max_steps}" if self.max_steps != 800 else ""])
        )


class PommermanPosition(_PommermanInterface):
    """The agent's position as one plane: 1 on its cell (``Box(0, 1, (1, 11, 11), float32)``).

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanPosition()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> float(itf.transform_observation(obs["agent_3"])[0, 1, 9])  # agent_3 starts at (1, 9)
        1.0
    """

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        return spaces.Box(0.0, 1.0, (1, SIZE, SIZE), np.float32)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        plane = np.zeros((1, SIZE, SIZE), np.float32)
        r, c = np.asarray(observation["position"]).tolist()
        plane[0, r, c] = 1.0
        return plane


def legal_moves(observation: dict[str, Any]) -> np.ndarray:
    """The int8 mask of the 6 actions the board allows: no move off the board, into a wall or a
    bomb; no bomb without ammo or where a bomb already lies. Stop is always legal."""
    board = np.asarray(observation["board"])
    bombs = np.asarray(observation["bomb_life"])
    r, c = np.asarray(observation["position"]).tolist()
    mask = np.ones(6, dtype=np.int8)
    for action, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1)), start=1):
        tr, tc = r + dr, c + dc
        if not (0 <= tr < SIZE and 0 <= tc < SIZE) or board[tr, tc] in (1, 2, 3) or bombs[tr, tc] > 0:
            mask[action] = 0
    if int(observation["ammo"]) < 1 or bombs[r, c] > 0:
        mask[5] = 0
    return mask


class PommermanLegalMoves(_PommermanInterface):
    """Add the board's legal-move mask to the observation and never send an illegal move.

    The env keeps all 6 actions legal (as the reference does). This interface computes
    from the board which ones make sense (:func:`legal_moves`: no walking off the board,
    into walls or bombs, no bomb without ammo or on a bomb) and puts them in the
    observation under ``"legal_moves"`` (``MultiBinary(6)``). An action the board forbids
    is replaced by stop (or, when the env's own mask forbids stop, by the first action
    both allow). The env's masks pass through unchanged: they arrive before the
    observation they belong to, so the board's mask travels in the observation.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanLegalMoves()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> itf.transform_observation(obs["agent_0"])["legal_moves"].tolist()  # top-left corner
        [1, 0, 1, 0, 1, 1]
        >>> itf.transform_action(1)  # up, into the rigid wall: stop instead
        0
    """

    moves_only = True

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        self._legal = np.ones(6, dtype=np.int8)
        self._raw_mask: np.ndarray | None = None
        return spaces.Dict({**raw.spaces, "legal_moves": spaces.MultiBinary(6)})

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        self._legal = legal_moves(observation)
        return {**observation, "legal_moves": self._legal}

    def action_mask(self, mask: Any) -> Any:
        self._raw_mask = np.asarray(mask)
        return mask

    def action(self, action: Any) -> Any:
        move = int(action)
        if self._legal[move]:
            return action
        allowed = self._legal if self._raw_mask is None else self._legal & (self._raw_mask != 0)
        if self._raw_mask is not None and not self._raw_mask[move]:
            return action  # the env forbids it anyway; leave the choice to the env's mask
        if allowed[0]:
            return 0
        legal = np.flatnonzero(allowed)
        return int(legal[0]) if len(legal) else action


# row flips, column flips per observer: each agent sees itself in agent_0's top-left corner
_FLIPS = ((False, False), (True, False), (True, True), (False, True))
_GRID_KEYS = ("board", "bomb_blast_strength", "bomb_life", "bomb_moving_direction", "flame_life")


class PommermanEgoCorner(_PommermanInterface):
    """Flip the board so each agent sees itself in the top-left corner; map actions and masks back.

    Agent 1 (bottom left) sees the board upside down, agent 3 (top right) mirrored left to
    right, agent 2 both; agent 0 as is. The grids, ``position`` and bomb moving
    directions are flipped; a model's up/down (left/right) is swapped back when its rows
    (columns) were flipped, and so are masks. Works in every mode (radio actions keep
    their words). Masks that tell up from down or left from right raise
    :class:`~arena.errors.MaskTranslationError` (the env's own masks are all ones).

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanEgoCorner()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> itf.transform_observation(obs["agent_2"])["position"].tolist()
        [1, 1]
        >>> itf.transform_action(1)  # the model's up is agent_2's down
        2
    """

    example_modes = ("ffa", "radio")

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        self._flips = (False, False)
        self._radio = not isinstance(self.inner_action_space, spaces.Discrete)
        self._perms = []
        self._directions = []
        for rows, cols in _FLIPS:
            perm = np.arange(6)
            if rows:
                perm[[1, 2]] = [2, 1]
            if cols:
                perm[[3, 4]] = [4, 3]
            self._perms.append(perm)
            self._directions.append(np.concatenate([perm[:5], [0] * 251]).astype(np.uint8))
        return raw

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        me = _observer(observation)
        self._me = me
        rows, cols = _FLIPS[me]
        out = dict(observation)
        for key in _GRID_KEYS:
            grid = np.asarray(observation[key])
            if rows:
                grid = grid[::-1]
            if cols:
                grid = grid[:, ::-1]
            out[key] = np.ascontiguousarray(grid)
        out["bomb_moving_direction"] = self._directions[me][out["bomb_moving_direction"]]
        r, c = np.asarray(observation["position"]).tolist()
        out["position"] = np.array([SIZE - 1 - r if rows else r, SIZE - 1 - c if cols else c], dtype=np.int64)
        return out

    partial_mask_translation = True

    def _perm(self) -> np.ndarray:
        return self._perms[getattr(self, "_me", 0)]

    def action(self, action: Any) -> Any:
        perm = self._perm()
        if self._radio:
            action = np.array(action, dtype=np.int64).copy()
            action[0] = perm[int(action[0])]
            return action
        return int(perm[int(action)])

    def action_mask(self, mask: Any) -> Any:
        return _flip_free_mask(self, mask, self._radio)


class PommermanFeatures(_PommermanInterface):
    """One (planes, vector) observation for a CNN+MLP policy: ego corner, planes, position, attributes, legal moves.

    Output ``Dict(planes=Box(0, 1, (17, 11, 11)), vector=Box(0, 1, (12,)))``: the
    :class:`PommermanPlanes` of the :class:`PommermanEgoCorner` view plus its
    :class:`PommermanPosition` plane, and the :class:`PommermanAttributes` vector followed
    by the :class:`PommermanLegalMoves` mask of that view. Actions are the model's in the
    ego view, mapped back to the agent's own; board-illegal moves become stop.

    Args:
        inner: the interface underneath.
        max_steps: the env's step limit (for the time feature).

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanFeatures()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> features = itf.transform_observation(obs["agent_2"])
        >>> features["planes"].shape, features["vector"].shape
        ((17, 11, 11), (12,))
    """

    example_modes = ("ffa", "team")
    moves_only = True
    partial_mask_translation = True  # the ego view's masks (see PommermanEgoCorner)

    def __init__(self, inner: Interface | None = None, *, max_steps: int = 800) -> None:
        super().__init__(inner)
        self.max_steps = _max_steps(self, max_steps)
        self._ego = PommermanEgoCorner()
        self._legal = PommermanLegalMoves()
        self._planes = PommermanPlanes()
        self._position = PommermanPosition()
        self._attributes = PommermanAttributes(max_steps=max_steps)

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        self._ego.setup(self.inner_observation_space, self.inner_action_space)
        for part in (self._legal, self._planes, self._position, self._attributes):
            part.setup(self._ego.observation_space, self._ego.action_space)
        return spaces.Dict(
            {
                "planes": spaces.Box(0.0, 1.0, (len(PLANES) + 1, SIZE, SIZE), np.float32),
                "vector": spaces.Box(0.0, 1.0, (12,), np.float32),
            }
        )

    def observation(self, observation: dict[str, Any]) -> dict[str, np.ndarray]:
        ego = self._ego.observation(observation)
        legal = self._legal.observation(ego)["legal_moves"]
        planes = np.concatenate([self._planes.observation(ego), self._position.observation(ego)])
        vector = np.concatenate([self._attributes.observation(ego), legal.astype(np.float32)])
        return {"planes": planes, "vector": vector}

    def action_mask(self, mask: Any) -> Any:
        ego_mask = self._ego.action_mask(mask)
        self._legal.action_mask(ego_mask)
        return ego_mask

    def action(self, action: Any) -> Any:
        return self._ego.action(self._legal.action(action))

    def _arguments(self) -> str:
        return ", ".join(
            filter(None, [super()._arguments(), f"max_steps={self.max_steps}" if self.max_steps != 800 else ""])
        )


class PommermanBatchPlanes(_PommermanInterface):
    """One agent's view as the uint8 planes ``PommermanBatch`` emits.

    Output ``Box(0, ..., (22, 11, 11), uint8)`` (radio: 24 planes): the board one-hot
    (agents as self, teammate, enemy), the bomb and flame grids as they are, and constant
    planes for ammo, blast strength, kick, teammate alive, enemies alive, time and, in
    radio mode, the teammate's two words (:mod:`envs.pommerman.planes` lists them). The
    same compiled encoder fills the batch's views, so a policy trained on the batch plays
    the single env through this interface and the reverse. With ``ego=True`` the board is
    turned so the agent starts top left and the model's moves are turned back, as the
    batch's ``ego`` option does (masks as :class:`PommermanEgoCorner`).

    On a batch of games the batch's planes are already this level's output, so its batched
    hooks are the identity on them (:attr:`batch_options` names the ``make_batch`` options that
    make it so): a level wrapped around this one sees the same planes on one game and on a
    batch. The levels underneath read the observation dict on one game and the batch's planes on
    a batch (the shipped ones write both forms). Stacked observation dicts (a batch of single
    envs) are encoded row by row.

    Args:
        inner: the interface underneath.
        ego: the ego view.
        max_steps: the env's step limit (for the time plane).

    Example:
        >>> import envs
        >>> env = envs.make("pommerman", mode="team")
        >>> itf = PommermanBatchPlanes(ego=True)
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> planes = itf.transform_observation(obs["agent_2"])
        >>> planes.shape, int(planes[9, 1, 1]), itf.transform_action(1)  # itself top left; up is down
        ((22, 11, 11), 1, 2)
    """

    example_modes = ("ffa", "team", "radio")
    partial_mask_translation = True

    def __init__(self, inner: Interface | None = None, *, ego: bool = False, max_steps: int = 800) -> None:
        super().__init__(inner)
        if not isinstance(ego, bool):
            raise InvalidTypeError(f"{type(self).__name__}: ego must be True or False, got {ego!r}")
        self.ego = ego
        self.max_steps = _max_steps(self, max_steps)

    def _transformed_space(self, raw: spaces.Dict) -> spaces.Space:
        from envs.pommerman.batch import plane_space  # envs may import arena, not the other way round
        from envs.pommerman.planes import EGO_ACTIONS, encode_view

        self._encode, self._ego_actions = encode_view, EGO_ACTIONS
        self._radio = "message" in raw.spaces
        self._me = 0
        self._me_rows = SlotRows(fill=0)  # each slot's seat, for stacked dicts
        self._dict_rows = SlotRows(fill=False)  # the slots whose last batch was stacked dicts, not planes
        planes = plane_space("radio" if self._radio else "ffa")
        self._shape = planes.shape
        return planes

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        self._me = me = _observer(observation)
        teammate = int(observation["teammate"])
        alive = np.asarray(observation["alive"])
        enemies = sum(int(alive[e - 10]) for e in np.asarray(observation["enemies"]).tolist() if e >= 10)
        scalars = [
            int(observation["ammo"]),
            int(observation["blast_strength"]),
            int(observation["can_kick"]),
            int(alive[teammate - 10]) if teammate >= 10 else 0,
            enemies,
            min(255, int(observation["step_count"]) * 255 // self.max_steps),
        ]
        if self._radio:
            scalars += np.asarray(observation["message"]).tolist()
        out = np.empty(self._shape, np.uint8)
        self._encode(
            np.asarray(observation["board"]),
            np.asarray(observation["bomb_life"]),
            np.asarray(observation["bomb_blast_strength"]),
            np.asarray(observation["bomb_moving_direction"]),
            np.asarray(observation["flame_life"]),
            me,
            teammate,
            -1,
            0,
            self.ego,
            np.array(scalars, dtype=np.int64),
            out,
        )
        return out

    def action(self, action: Any) -> Any:
        if not self.ego:
            return action
        if self._radio:
            action = np.array(action, dtype=np.int64).copy()
            action[0] = self._ego_actions[self._me, int(action[0])]
            return action
        return int(self._ego_actions[self._me, int(action)])

    def action_mask(self, mask: Any) -> Any:
        return _flip_free_mask(self, mask, self._radio) if self.ego else mask

    # On a batch: PommermanBatch's planes are this level's output already (the identity); the
    # observation dicts of a batch of single envs, stacked, are encoded row by row.
    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        """The batch's planes as they are (checked), or each stacked dict's planes.

        Raises:
            SpaceMismatchError: an array that is not ``(n, *planes shape)``: not this level's planes.
        """
        if isinstance(observations, dict):
            rows = split_rows(observations)
            chosen = SlotRows.slots(slots, len(rows))
            self._me_rows.put(np.array([_observer(row) for row in rows], dtype=np.int64), chosen)
            self._dict_rows.put(np.ones(len(rows), dtype=bool), chosen)
            return np.stack([self.observation(row) for row in rows])
        planes = np.asarray(observations)
        if planes.ndim != len(self._shape) + 1 or planes.shape[1:] != self._shape:
            raise SpaceMismatchError(
                f"{self}: on a batch it passes PommermanBatch's planes (n, {', '.join(map(str, self._shape))}) "
                f"or maps stacked observation dicts, got an array of shape {planes.shape}"
            )
        self._dict_rows.put(np.zeros(len(planes), dtype=bool), SlotRows.slots(slots, len(planes)))
        return observations

    def action_batch(self, actions: Any, slots: Any = None) -> Any:
        """The identity on the batch's planes (a batch made with ``ego=True`` reads ego moves itself);
        ego moves turned back row by row for stacked dicts."""
        if not self.ego:
            return actions
        chosen = SlotRows.slots(slots, len(actions))
        dicts = self._dict_rows.get(chosen)
        if not dicts.any():
            return actions
        actions = np.array(actions, dtype=np.int64, copy=True)
        moves = actions[:, 0] if self._radio else actions
        moves[dicts] = self._ego_actions[self._me_rows.get(chosen)[dicts], moves[dicts]]
        return actions

    def action_mask_batch(self, masks: Any, slots: Any = None) -> Any:
        """The identity on the batch's planes; :meth:`action_mask`'s check row by row for stacked dicts."""
        if self.ego and self._dict_rows.get(SlotRows.slots(slots, len(masks))).any():
            return np.stack([self.action_mask(mask) for mask in masks])
        return masks

    @property
    def batch_options(self) -> dict[str, Any]:
        """The options of ``make_batch`` whose planes this level passes unchanged: ``{"ego": ...}``.

        A batch made with another ``ego`` would hand the model views in the other frame; the
        batch's ``max_steps`` is the env's, which must equal this level's (its time plane).

        Example:
            >>> PommermanBatchPlanes(ego=True).batch_options
            {'ego': True}
        """
        return {"ego": self.ego}

    def _arguments(self) -> str:
        return ", ".join(
            filter(
                None,
                [
                    super()._arguments(),
                    "ego=True" if self.ego else "",
                    f"max_steps={self.max_steps}" if self.max_steps != 800 else "",
                ],
            )
        )
