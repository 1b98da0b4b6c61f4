"""Pommerman's action filter: the moves that lead to certain death, found from the observation alone.

:func:`safe_moves` reads one agent's observation dict (the ``pommerman`` env's) and returns
the int8 mask of its 6 actions (0 stop, 1 up, 2 down, 3 left, 4 right, 5 bomb) without those
that kill it for sure: walking into flames that still burn next step, standing (or stepping,
or laying a bomb) where a blast will reach it before it can get out of every blast's path in
time. :func:`safe_moves_planes` does the same for many views of
:class:`~envs.pommerman.batch.PommermanBatch` (its uint8 planes, ego or not) in one call.
:class:`PommermanSafeMoves` is the interface: it puts the mask in the observation
(``"safe_moves"``) and never sends a move it forbids; on a batch of games its batched hooks
run :func:`safe_moves_planes` over the batch's planes.

**How "certain" is decided.** The analysis replays the rules' timing on the observed board:
a bomb showing life ``b`` goes off at the end of the ``b``-th step from now, sooner when a
flame reaches it (on a burning cell, or in the blast of a bomb that goes off first: chains);
its flames kill at the end of that step and of the next two; a flame showing life ``f``
still burns for ``f - 1`` steps. A laid bomb goes off 10 steps later. After its first action
the agent may walk any path through cells that are not rigid, wooden or holding a bomb; the
action is certain death when every such path ends on a burning cell. Where it cannot be sure
it assumes the best for the agent: other bombers never block it, fogged cells are open and
safe, and blasts stop at wood that may burn away. It treats a moving (kicked) bomb as staying
where it is and a bomb as an obstacle even for an agent that can kick. **It never masks every
move**: when all six lead to death, all six are allowed (the policy decides how to lose).

Example:
    >>> import envs
    >>> env = envs.make("pommerman")
    >>> obs, _ = env.reset(seed=0)
    >>> safe_moves(obs["agent_0"]).tolist()  # nothing burns yet: every move is survivable
    [1, 1, 1, 1, 1, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batched_stack import split_rows
from arena.errors import InvalidActionError, InvalidValueError, MaskTranslationError, SpaceMismatchError
from arena.interface import Interface
from interfaces.pommerman import SlotRows, require_pommerman_dict

__all__ = ["PommermanSafeMoves", "safe_moves", "safe_moves_planes", "HORIZON"]

SIZE = 11
_RIGID, _WOOD, _FOG = 1, 2, 5  # board codes
#: Steps looked ahead: a bomb laid now goes off in 10, and its flames burn 2 more.
HORIZON = 13
_NEVER = 127
_LAID_BOMB_LIFE = 10
# Plane indices of PommermanBatch's views (envs/pommerman/planes.py: PLANE_NAMES).
_P_RIGID, _P_WOOD, _P_SELF, _P_LIFE, _P_STRENGTH, _P_FLAME, _P_AMMO, _P_BLAST = 1, 2, 9, 12, 13, 15, 16, 17
_DR = np.array([0, -1, 1, 0, 0, 0], dtype=np.int64)
_DC = np.array([0, 0, 0, -1, 1, 0], dtype=np.int64)
_KEYS = ("board", "bomb_life", "bomb_blast_strength", "flame_life", "position", "ammo", "blast_strength")
_RADIO = [6, 8, 8]  # radio mode's (move, word, word)


def _explosion_times(walls, life, strength, flame, times):
    """Fill ``times`` with the step each bomb goes off (``_NEVER``: no bomb), chains included."""
    for r in range(SIZE):
        for c in range(SIZE):
            if life[r, c] == 0:
                times[r, c] = _NEVER
            elif flame[r, c] >= 2:  # a bomb on a cell that still burns goes off in the next step
                times[r, c] = 1
            else:
                times[r, c] = life[r, c]
    changed = True
    while changed:  # a bomb in the blast of an earlier one goes off with it
        changed = False
        for r0 in range(SIZE):
            for c0 in range(SIZE):
                when = times[r0, c0]
                if when == _NEVER:
                    continue
                for d in range(1, 5):
                    for i in range(1, strength[r0, c0]):
                        r = r0 + _DR[d] * i
                        c = c0 + _DC[d] * i
                        if r < 0 or c < 0 or r >= SIZE or c >= SIZE or walls[r, c] == _RIGID:
                            break
                        if when < times[r, c] < _NEVER:  # a bomb lies there: it goes off now too
                            times[r, c] = when
                            changed = True
                        if walls[r, c] == _WOOD:
                            break


# Walks the blasts as the chain reaction above does, written again on purpose: both run compiled
# on every step of every agent (a hot path), where a shared walker with a callback costs a call per cell.
def _burning(walls, strength, flame, times, burning):
    """``burning[t, r, c]``: the cell burns at the end of step ``t`` (1..HORIZON)."""
    burning[:] = False
    for r in range(SIZE):
        for c in range(SIZE):
            for t in range(1, min(int(flame[r, c]) - 1, HORIZON) + 1):
                burning[t, r, c] = True
    for r0 in range(SIZE):
        for c0 in range(SIZE):
            when = times[r0, c0]
            if when == _NEVER:
                continue
            for d in range(1, 5):
                start = 0 if d == 2 else 1  # the bomb's own cell once
                for i in range(start, strength[r0, c0]):
                    r = r0 + _DR[d] * i
                    c = c0 + _DC[d] * i
                    if r < 0 or c < 0 or r >= SIZE or c >= SIZE or walls[r, c] == _RIGID:
                        break
                    for t in range(when, min(when + 2, HORIZON) + 1):
                        burning[t, r, c] = True
                    if walls[r, c] == _WOOD:
                        break


def _survives(walls, times, burning, row, col):
    """Whether some path from (row, col) at the end of step 1 avoids every burning cell to the horizon."""
    if burning[1, row, col]:
        return False
    here = np.zeros((SIZE, SIZE), dtype=np.bool_)
    nxt = np.zeros((SIZE, SIZE), dtype=np.bool_)
    here[row, col] = True
    for t in range(2, HORIZON + 1):
        nxt[:] = False
        alive = False
        for r in range(SIZE):
            for c in range(SIZE):
                if not here[r, c]:
                    continue
                for d in range(5):  # stay, or step to a free neighbour
                    tr = r + _DR[d]
                    tc = c + _DC[d]
                    if tr < 0 or tc < 0 or tr >= SIZE or tc >= SIZE or burning[t, tr, tc]:
                        continue
                    if d and (walls[tr, tc] != 0 or (times[tr, tc] != _NEVER and times[tr, tc] >= t)):
                        continue  # walls, and bombs still lying there when the step's moves happen
                    nxt[tr, tc] = True
                    alive = True
        if not alive:
            return False
        here[:] = nxt
    return True


def _safe_core(walls, life, strength, flame, row, col, ammo, blast, out):
    """Fill ``out`` (6 int8) with the actions that are not certain death; all six if none is."""
    times = np.zeros((SIZE, SIZE), dtype=np.int64)
    burning = np.zeros((HORIZON + 1, SIZE, SIZE), dtype=np.bool_)
    _explosion_times(walls, life, strength, flame, times)
    _burning(walls, strength, flame, times, burning)
    for action in range(5):
        r = row + _DR[action]
        c = col + _DC[action]
        blocked = r < 0 or c < 0 or r >= SIZE or c >= SIZE
        if not blocked:
            blocked = walls[r, c] != 0 or times[r, c] != _NEVER
        if blocked:  # the move fails: it stays, like stop
            r, c = row, col
        out[action] = 1 if _survives(walls, times, burning, r, c) else 0
    out[5] = out[0]
    if ammo > 0 and life[row, col] == 0:  # a new bomb here, going off in 10 steps (sooner in a chain)
        life2 = life.copy()
        strength2 = strength.copy()
        life2[row, col] = _LAID_BOMB_LIFE
        strength2[row, col] = blast
        _explosion_times(walls, life2, strength2, flame, times)
        _burning(walls, strength2, flame, times, burning)
        out[5] = 1 if _survives(walls, times, burning, row, col) else 0
    if out.sum() == 0:
        out[:] = 1


def _safe_planes(views, out):
    """:func:`_safe_core` over PommermanBatch views ``(n, planes, 11, 11)``; a view without self: all allowed."""
    walls = np.zeros((SIZE, SIZE), dtype=np.uint8)
    for k in range(views.shape[0]):
        out[k, :] = 1
        row = -1
        col = -1
        for r in range(SIZE):
            for c in range(SIZE):
                walls[r, c] = _RIGID if views[k, _P_RIGID, r, c] else (_WOOD if views[k, _P_WOOD, r, c] else 0)
                if views[k, _P_SELF, r, c]:
                    row = r
                    col = c
        if row < 0:
            continue  # a dead learner sees zeros: nothing to filter
        _safe_core(  # int64 scalars, as safe_moves passes: one compile of _safe_core and its callees serves both
            walls,
            views[k, _P_LIFE],
            views[k, _P_STRENGTH],
            views[k, _P_FLAME],
            np.int64(row),
            np.int64(col),
            np.int64(views[k, _P_AMMO, 0, 0]),
            np.int64(views[k, _P_BLAST, 0, 0]),
            out[k],
        )


_COMPILED: list[bool] = []


def _compile() -> None:
    """Compile the kernels with numba (where installed) on first use, callees first, so that
    ``import interfaces`` stays light (numba and the Pommerman package load only when needed)."""
    if _COMPILED:
        return
    from envs.pommerman._jit import njit  # the Pommerman rules' own switch: numba if installed, else Python

    module = globals()
    for name in ("_explosion_times", "_burning", "_survives", "_safe_core", "_safe_planes"):
        module[name] = njit(module[name])
    _COMPILED.append(True)


def safe_moves(observation: dict[str, Any]) -> np.ndarray:
    """The int8 mask of the 6 actions that do not lead to certain death (module docstring: how).

    Args:
        observation: one agent's ``pommerman`` observation dict.

    Returns:
        ``(6,)`` int8, never all zeros.

    Example:
        >>> import numpy as np
        >>> board = np.zeros((11, 11), np.uint8)
        >>> flames = np.zeros((11, 11), np.uint8); flames[5, 6] = 3  # fresh flames to the right
        >>> obs = {"board": board, "bomb_life": np.zeros_like(board), "bomb_blast_strength": np.zeros_like(board),
        ...        "flame_life": flames, "position": np.array([5, 5]), "ammo": 1, "blast_strength": 2}
        >>> safe_moves(obs).tolist()  # right walks into them
        [1, 1, 1, 1, 0, 1]
    """
    _compile()
    board = np.asarray(observation["board"])
    walls = np.where(board == _RIGID, _RIGID, np.where(board == _WOOD, _WOOD, 0)).astype(np.uint8)
    row, col = (int(v) for v in np.asarray(observation["position"]).tolist())
    out = np.ones(6, dtype=np.int8)
    # writable copies, as the copies _safe_core makes for a laid bomb: read-only arrays (an observation's)
    # would compile its callees a second time
    _safe_core(
        walls,
        np.array(observation["bomb_life"], dtype=np.uint8),
        np.array(observation["bomb_blast_strength"], dtype=np.uint8),
        np.array(observation["flame_life"], dtype=np.uint8),
        row,
        col,
        int(observation["ammo"]),
        int(observation["blast_strength"]),
        out,
    )
    return out


def safe_moves_planes(views: Any) -> np.ndarray:
    """:func:`safe_moves` for many :class:`~envs.pommerman.batch.PommermanBatch` views at once.

    Args:
        views: ``(n, planes, 11, 11)`` uint8 (22 or 24 planes; ego views give masks in the ego
            frame, the one the model's moves are read in).

    Returns:
        ``(n, 6)`` int8; a view without the agent (a dead learner's zeros) allows everything.

    Raises:
        ValueError: ``views`` is not ``(n, planes >= 18, 11, 11)``.
    """
    _compile()
    views = np.ascontiguousarray(views, dtype=np.uint8)
    if views.ndim != 4 or views.shape[1] < _P_BLAST + 1 or views.shape[2:] != (SIZE, SIZE):
        raise InvalidValueError(
            f"safe_moves_planes: expected PommermanBatch views (n, planes, {SIZE}, {SIZE}), got shape {views.shape}"
        )
    out = np.ones((views.shape[0], 6), dtype=np.int8)
    _safe_planes(views, out)
    return out


class PommermanSafeMoves(Interface):
    """The action filter: adds ``"safe_moves"`` (the ``safe_moves`` mask) to the observation
    and replaces a move it forbids by one it allows (stop when it can).

    It reads the raw observation dict, so it sits at the bottom of a stack (other Pommerman
    interfaces above it read the dict and ignore the extra key; a model sees the mask where
    :class:`~interfaces.ActionMaskInObservation`-like interfaces put it). The env's own masks
    (all ones) pass through; they arrive before the observation they belong to, so the
    filter's mask travels in the observation, as :class:`~interfaces.pommerman.PommermanLegalMoves`'
    does. A move the env's mask forbids is left to the env.

    Radio mode's ``MultiDiscrete([6, 8, 8])`` actions (a move, two words) keep their space: the
    filter acts on the move alone and never changes a word. Its mask is then MaskablePPO's mask of
    that space, the three components' flags one after the other (22): the 6 moves filtered, the
    16 words allowed (on a batch's planes: as the env's mask has them).

    On a batch of games (:class:`arena.batched_stack.BatchedStack`) it reads the batch's planes
    (:func:`safe_moves_planes`, in the frame of the batch's moves), passes them on unchanged and
    puts the filter's mask in the action masks (:meth:`action_mask_batch`); the replacement rule
    is the same, applied to every slot at once.

    Raises:
        SpaceMismatchError: at setup, for anything but the pommerman observation ``Dict`` and
            ``Discrete(6)`` or radio's ``MultiDiscrete([6, 8, 8])`` actions.
        InvalidActionError: an action that is not one move (radio: one ``(move, word, word)``;
            on a batch, one such row per slot).
        MaskTranslationError: a mask that is not the 6 (radio: 22) flags of the actions.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> itf = PommermanSafeMoves()
        >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> obs, _ = env.reset(seed=0)
        >>> itf.transform_observation(obs["agent_0"])["safe_moves"].tolist()
        [1, 1, 1, 1, 1, 1]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        from envs.pommerman.observe import observation_space

        modes: tuple[tuple[str, spaces.Space], ...] = (
            ("ffa", spaces.Discrete(6)),
            ("team", spaces.Discrete(6)),
            ("radio", spaces.MultiDiscrete(_RADIO)),
        )
        return [(cls(), observation_space(mode, 800), actions) for mode, actions in modes]

    def __init__(self, inner: Interface | None = None) -> None:
        super().__init__(inner)
        self._safe = np.ones(6, dtype=np.int8)
        self._raw_mask: np.ndarray | None = None
        self._radio, self._flags = False, 6  # set by setup from the action space
        # on a batch, one row per game slot: the filter's mask, the env's mask, stacked dicts (not planes)
        self._safe_rows, self._raw_rows, self._dict_rows = SlotRows(fill=1), SlotRows(fill=1), SlotRows(fill=False)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = require_pommerman_dict(self, _KEYS)
        action = self.inner_action_space
        radio = type(action) is spaces.MultiDiscrete and action.nvec.tolist() == _RADIO and not action.start.any()
        if not radio and (type(action) is not spaces.Discrete or action.n != 6 or action.start != 0):
            raise SpaceMismatchError(
                f"{self}: needs pommerman actions Discrete(6) or radio's MultiDiscrete([6, 8, 8]), got {action}"
            )
        self._radio = radio
        self._flags = sum(_RADIO) if radio else 6  # the mask's length: one flag per value of each component
        self.observation_space = spaces.Dict({**space.spaces, "safe_moves": spaces.MultiBinary(self._flags)})
        self._safe, self._raw_mask = np.ones(6, dtype=np.int8), None
        self._safe_rows, self._raw_rows, self._dict_rows = SlotRows(fill=1), SlotRows(fill=1), SlotRows(fill=False)

    def observation(self, observation: dict[str, Any]) -> dict[str, Any]:
        self._safe = safe_moves(observation)
        if not self._radio:
            return {**observation, "safe_moves": self._safe}
        words = np.ones(self._flags - 6, np.int8)  # the filter forbids no word (the env's mask reaches the model as is)
        return {**observation, "safe_moves": np.concatenate([self._safe, words])}

    def action_mask(self, mask: Any) -> Any:
        self._raw_mask = self._checked_masks(mask, ())
        return mask

    def action(self, action: Any) -> Any:
        raw = np.asarray(action)
        if raw.shape != ((3,) if self._radio else ()) and not (raw.shape == (1,) and not self._radio):
            raise InvalidActionError(f"{self}: expected {self._action_form()}, got {action!r}")
        move = int(raw[0] if self._radio else raw.reshape(-1)[0])
        if not 0 <= move < 6:
            raise InvalidActionError(f"{self}: expected {self._action_form()}, got move {move} in {action!r}")
        raw_moves = None if self._raw_mask is None else self._raw_mask[:6]
        if self._safe[move] or (raw_moves is not None and not raw_moves[move]):
            return action
        allowed = self._safe if raw_moves is None else self._safe & (raw_moves != 0)
        choices = np.flatnonzero(allowed)
        if not len(choices):
            return action
        replaced = 0 if allowed[0] else int(choices[0])
        if not self._radio:
            return replaced
        out = raw.astype(np.int64)  # a copy: the words go on unchanged
        out[0] = replaced
        return out

    def _action_form(self) -> str:
        return "a radio action (move, word, word) of shape (3,)" if self._radio else "one move in Discrete(6)"

    def _checked_masks(self, masks: Any, rows: tuple[int, ...]) -> np.ndarray:
        """``masks`` as an array of shape ``rows + (flags,)``; anything else raises MaskTranslationError."""
        raw = np.asarray(masks)
        if raw.shape != (*rows, self._flags):
            where = "a row of " if rows else ""
            raise MaskTranslationError(
                f"{self}: expected {where}{self._flags} mask flags (one per value of each action component), "
                f"got shape {raw.shape}"
            )
        return raw

    # On a batch: the batch's planes (or, from a batch of single envs, the dicts stacked) on axis 0,
    # one row per game slot; a call may cover only some slots (``slots``: the slot of each row).
    def observation_batch(self, observations: Any, slots: Any = None) -> Any:
        """Every slot's safe moves, kept for :meth:`action_mask_batch` and :meth:`action_batch`.

        The batch's planes pass unchanged (a plane array has no room for a key: the mask reaches
        the model as its action mask); stacked observation dicts get ``"safe_moves"`` as one game does.
        """
        if isinstance(observations, dict):
            rows = split_rows(observations)
            chosen = SlotRows.slots(slots, len(rows))
            safe = np.stack([safe_moves(row) for row in rows])
            words = np.ones((len(rows), self._flags - 6), np.int8)  # radio's words: all allowed (no env mask)
            out: Any = {**observations, "safe_moves": np.concatenate([safe, words], axis=1)}
        else:
            safe = safe_moves_planes(observations)
            chosen = SlotRows.slots(slots, len(safe))
            out = observations
        self._safe_rows.put(safe, chosen)
        self._dict_rows.put(np.full(len(chosen), isinstance(observations, dict)), chosen)
        return out

    def action_mask_batch(self, masks: Any, slots: Any = None) -> Any:
        """On the batch's planes: the slots' masks without the moves the filter forbids.

        A batched driver that hands the masks after the observation they belong to (one game's come
        before it) so gets the filter's mask to MaskablePPO, where the planes have no room for it:
        a model trained so never picks a move the filter would replace. Stacked observation dicts
        carry it under ``"safe_moves"``, and their masks pass unchanged, as one game's do.
        """
        raw = np.asarray(masks)
        raw = self._checked_masks(raw, raw.shape[:1])
        chosen = SlotRows.slots(slots, len(raw))
        self._raw_rows.put(raw[:, :6].astype(np.int8), chosen)  # the moves' flags: radio's words are not filtered
        planes = ~self._dict_rows.get(chosen).astype(bool)
        if not planes.any():
            return masks
        safe = self._safe_rows.get(chosen) != 0
        kept = raw != 0
        kept[:, :6] &= np.where(planes[:, None], safe, True)
        return kept if raw.dtype == bool else kept.astype(raw.dtype)

    def action_batch(self, actions: Any, slots: Any = None) -> Any:
        """:meth:`action` for every slot: a forbidden move becomes stop, else the first allowed move."""
        given = np.asarray(actions)
        width = 3 if self._radio else 1
        if not (given.ndim == 2 and given.shape[1] == width) and not (given.ndim == 1 and not self._radio):
            form = "(n, 3) radio actions (move, word, word)" if self._radio else "(n,) moves"
            raise InvalidActionError(f"{self}: expected {form}, one row per slot, got shape {given.shape}")
        moves = (given[:, 0] if self._radio else given.reshape(-1)).astype(np.int64)
        chosen = SlotRows.slots(slots, len(moves))
        safe, raw = self._safe_rows.get(chosen) != 0, self._raw_rows.get(chosen) != 0
        if safe.ndim == 1:  # nothing observed yet: every move is allowed
            return actions
        if raw.ndim == 1:  # no mask from the env yet: it allows every move
            raw = np.ones_like(safe)
        rows = np.arange(len(moves))
        keep = safe[rows, moves] | ~raw[rows, moves]  # a move the env's mask forbids is left to the env
        allowed = safe & raw
        replaced = np.where(allowed[:, 0], 0, np.argmax(allowed, axis=1))
        replaced = np.where(allowed.any(axis=1), replaced, moves)
        filtered = np.where(keep, moves, replaced).astype(given.dtype, copy=False)
        if not self._radio:
            return filtered.reshape(given.shape)
        out = given.copy()  # the words go on unchanged
        out[:, 0] = filtered
        return out
