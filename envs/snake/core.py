"""Shared pieces of the snake envs: cell codes, the counter-based random draws, spawning.

Both :class:`~envs.snake.env.Snake` (one game, lean Python) and
:class:`~envs.snake.batched.SnakeBatch` (many games in numpy arrays) build on this
module, so that one game plays the same in either form.

**Grid.** A game keeps one ``uint8`` code per cell on a grid padded with walls
(``pad`` cells on each side, at least one), so that a head leaving the map lands on a
wall and no bounds check is needed. Codes: :data:`EMPTY`, :data:`WALL`, :data:`FRUIT`,
then ``3 + 3 * owner + part`` for snake cells, with part :data:`HEAD`, :data:`BODY`
or :data:`TAIL` (marlenv's order).

**Randomness.** Every random choice is a pure function of the game's *episode key*
and of what is being chosen (which snake, which attempt, which step), computed with a
SplitMix64 hash (:func:`arena.seeding.mix64`) over numpy ``uint64`` arrays. Nothing depends on how many games are
stepped together, so game ``g`` of a batch and a single env given the same seed play
the same episodes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.errors import InvalidValueError
from arena.seeding import GOLDEN, mix64

__all__ = [
    "EMPTY",
    "WALL",
    "FRUIT",
    "HEAD",
    "BODY",
    "TAIL",
    "CHANNELS",
    "DEFAULT_REWARDS",
    "MAX_SNAKES",
    "ACTION_NAMES",
    "DR",
    "DC",
    "episode_keys",
    "hash_draws",
    "parse_walls",
    "observation_luts",
    "choose",
    "spawn",
    "place_fruits",
    "snake_code",
    "check_rewards",
    "rgb_image",
    "ansi_text",
]

EMPTY, WALL, FRUIT = 0, 1, 2
HEAD, BODY, TAIL = 0, 1, 2
MAX_SNAKES = 84  # 3 + 3 * 84 codes still fit in a uint8

#: Observation channels, in order (marlenv's layout): one byte each, 0 or ``on_value``.
CHANNELS = ("wall", "fruit", "other_head", "other_body", "other_tail", "own_head", "own_body", "own_tail")

#: marlenv's reward table: only eating a fruit pays by default.
DEFAULT_REWARDS = {"fruit": 1.0, "kill": 0.0, "lose": 0.0, "time": 0.0, "win": 0.0}

#: Relative actions: 0 turns left, 1 keeps the heading, 2 turns right.
ACTION_NAMES = ("left", "straight", "right")

# Headings clockwise from up: 0 up, 1 right, 2 down, 3 left (row grows downwards).
DR = np.array([-1, 0, 1, 0], dtype=np.int64)
DC = np.array([0, 1, 0, -1], dtype=np.int64)

_SALT_SPREAD = np.uint64(0x94D049BB133111EB)  # an odd 64-bit multiplier: salts 1, 2, ... far apart

# What a draw is for, so that different choices never share a random stream.
SALT_HEAD, SALT_HEADING, SALT_BODY, SALT_FRUIT = 1, 2, 3, 4


def episode_keys(seeds: Any, episodes: Any) -> np.ndarray:
    """The random key of episode ``episodes`` (0 after a seeded reset) of games seeded ``seeds``.

    Example:
        >>> episode_keys([3], [0]).dtype
        dtype('uint64')
    """
    seeds = np.atleast_1d(np.asarray(seeds, dtype=np.uint64))
    episodes = np.atleast_1d(np.asarray(episodes, dtype=np.uint64))
    with np.errstate(over="ignore"):
        return mix64(mix64(seeds + GOLDEN) + (episodes + np.uint64(1)) * GOLDEN)


def hash_draws(keys: np.ndarray, salt: int, counters: Any) -> np.ndarray:
    """One pseudo-random uint64 per key, for purpose ``salt`` on occasion ``counters``.

    ``counters`` (a scalar or one per key) names the occasion (snake, attempt,
    segment or step) as ``sum(c * 2**(16 * i))``.
    """
    counters = np.asarray(counters, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return mix64(mix64(keys ^ (np.uint64(salt) * _SALT_SPREAD)) + (counters + np.uint64(1)) * GOLDEN)


def choose(allowed: np.ndarray, draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pick one allowed column per row, uniformly, using one random uint64 per row.

    Returns ``(column, ok)``; ``ok`` is False (and ``column`` meaningless) for a row
    with nothing allowed.
    """
    counts = allowed.sum(axis=1)
    rank = draws % np.maximum(counts, 1).astype(np.uint64)
    cumulative = np.cumsum(allowed, axis=1)
    return (cumulative <= rank[:, None].astype(np.int64)).sum(axis=1), counts > 0


def snake_code(owner: Any, part: Any) -> Any:
    """The grid code of ``part`` (HEAD, BODY or TAIL) of snake ``owner``."""
    return 3 + 3 * owner + part


def check_rewards(rewards: Any, where: str) -> dict[str, float]:
    """Validate a reward table: a mapping with exactly marlenv's keys."""
    if rewards is None:
        return dict(DEFAULT_REWARDS)
    if not hasattr(rewards, "keys") or set(rewards.keys()) != set(DEFAULT_REWARDS):
        got = sorted(rewards.keys()) if hasattr(rewards, "keys") else type(rewards).__name__
        raise InvalidValueError(f"{where}: reward_dict must have exactly the keys {sorted(DEFAULT_REWARDS)}, got {got}")
    table = {}
    for key in DEFAULT_REWARDS:
        value = rewards[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value)
        ):
            raise InvalidValueError(f"{where}: reward_dict[{key!r}] must be a finite number, got {value!r}")
        table[key] = float(value)
    return table


def _board_side(where: str, name: str, value: Any) -> int:
    """``value`` as a board's height or width: an integer of at least 3."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 3:
        raise InvalidValueError(f"{where}: {name} must be an integer of at least 3, got {value!r}")
    return int(value)


def parse_walls(
    walls: Any, height: int | None, width: int | None, where: str, max_cells: int | None = None
) -> np.ndarray:
    """The wall map as a bool array ``(height, width)``.

    ``walls`` is ``None`` (walls on the border, marlenv's map), a 2-D array of
    0/1 or bools, or a sequence of equal-length strings with ``#`` for a wall and
    ``.`` for a free cell. ``height``/``width``, when given, must agree with a map.
    A board of more than ``max_cells`` cells is refused before any of it is made.
    """
    if walls is None:
        rows, columns = _board_side(where, "height", height), _board_side(where, "width", width)
        check_cells(rows, columns, where, max_cells)
        grid = np.zeros((rows, columns), dtype=bool)
        grid[[0, -1], :] = True
        grid[:, [0, -1]] = True
        return grid
    if isinstance(walls, (list, tuple)) and walls and all(isinstance(row, str) for row in walls):
        if len({len(row) for row in walls}) != 1 or any(set(row) - {"#", "."} for row in walls):
            raise InvalidValueError(
                f"{where}: a wall map given as strings needs rows of equal length "
                f"made of '#' (wall) and '.' (free), got {list(walls)!r}"
            )
        grid = np.array([[ch == "#" for ch in row] for row in walls], dtype=bool)
    else:
        grid = np.asarray(walls)
        if grid.ndim != 2 or grid.dtype.kind not in "biu" or not np.isin(grid, (0, 1)).all():
            raise InvalidValueError(
                f"{where}: walls must be a 2-D array of 0/1 (or bools) or a list of "
                f"'#'/'.' strings, got {type(walls).__name__} with shape {grid.shape}"
            )
        grid = grid.astype(bool)
    for name, value, size in (("height", height, grid.shape[0]), ("width", width, grid.shape[1])):
        if value is not None and value != size:
            raise InvalidValueError(f"{where}: {name}={value!r} disagrees with the wall map's {name} {size}")
    check_cells(grid.shape[0], grid.shape[1], where, max_cells)
    return grid


def check_cells(height: int, width: int, where: str, max_cells: int | None) -> None:
    """Refuse a board of more than ``max_cells`` cells (``None``: any size)."""
    if max_cells is not None and height * width > max_cells:
        raise InvalidValueError(
            f"{where}: the board must have at most {max_cells} cells, got {height} x {width} = {height * width}"
        )


def observation_luts(num_snakes: int, on_value: int) -> np.ndarray:
    """``lut[observer, code]``: the 8 channel bytes of a cell, packed in a little-endian uint64.

    Reading the packed value as 8 bytes gives the channels of :data:`CHANNELS`.
    """
    codes = 3 + 3 * num_snakes
    table = np.zeros((num_snakes, codes, 8), dtype=np.uint8)
    table[:, WALL, 0] = on_value
    table[:, FRUIT, 1] = on_value
    for owner in range(num_snakes):
        for part in (HEAD, BODY, TAIL):
            code = snake_code(owner, part)
            table[:, code, 2 + part] = on_value  # another snake's part...
            table[owner, code, 2 + part] = 0
            table[owner, code, 5 + part] = on_value  # ...or the observer's own
    return table.view("<u8")[..., 0]


_QUICK_TRIES = 8  # draws of a random map cell before falling back to an exact uniform choice


def _pick_free(
    free_cells: np.ndarray, blocked: np.ndarray, keys: np.ndarray, salt: int, counters: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A uniformly random cell of ``free_cells`` that ``blocked`` (``(k, size)``) leaves free.

    A few cheap draws of any cell of ``free_cells`` first (rejecting blocked ones),
    then an exact choice among the free cells for the rows still without one.
    Returns ``(cell, ok)``.
    """
    rows = np.arange(len(keys))
    cell = np.zeros(len(keys), dtype=np.int64)
    todo = rows
    for attempt in range(_QUICK_TRIES):
        draws = hash_draws(keys[todo], salt, counters[todo] + np.uint64(attempt << 56))
        pick = free_cells[(draws % np.uint64(len(free_cells))).astype(np.int64)]
        ok = ~blocked[todo, pick]
        cell[todo[ok]] = pick[ok]
        todo = todo[~ok]
        if len(todo) == 0:
            return cell, np.ones(len(keys), dtype=bool)
    allowed = ~blocked[todo][:, free_cells]
    index, found = choose(allowed, hash_draws(keys[todo], salt, counters[todo] + np.uint64(255 << 56)))
    cell[todo] = free_cells[np.minimum(index, len(free_cells) - 1)]
    ok = np.ones(len(keys), dtype=bool)
    ok[todo] = found
    return cell, ok


def spawn(keys: np.ndarray, walls: np.ndarray, num_snakes: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Random starting snakes for each game, on the padded wall grid ``walls`` (``(Hp, Wp)`` bool).

    Snakes are placed one after another. Each is a random self-avoiding walk of
    ``length`` free cells starting at a uniformly random free head cell, heading away
    from its neck, with a free cell in front of the head that later snakes leave free
    too (no snake dies on its first straight move). A game where a snake's walk gets
    stuck retries that snake with fresh draws.

    Returns:
        ``(cells, headings)``: padded flat cell indices ``(G, num_snakes, length)`` with
        the head first, and headings ``(G, num_snakes)`` (0 up, 1 right, 2 down, 3 left).

    Raises:
        ValueError: the map has no room for the snakes after many attempts.
    """
    games = len(keys)
    hp, wp = walls.shape
    size = hp * wp
    free_cells = np.flatnonzero(~walls.reshape(-1))
    if len(free_cells) == 0:
        raise InvalidValueError("snake: the map has no free cell")
    blocked = np.broadcast_to(walls.reshape(-1), (games, size)).copy()
    cells = np.zeros((games, num_snakes, length), dtype=np.int64)
    headings = np.zeros((games, num_snakes), dtype=np.int64)
    step = DR * wp + DC
    for snake in range(num_snakes):
        pending = np.arange(games)
        for attempt in range(200):
            if len(pending) == 0:
                break
            key, block = keys[pending], blocked[pending]
            rows = np.arange(len(pending))[:, None]
            counter = np.full(len(pending), snake + (attempt << 16), dtype=np.uint64)
            head, ok = _pick_free(free_cells, block, key, SALT_HEAD, counter)
            # Heading: the cell in front and the neck behind must both be free.
            front = head[:, None] + step[None, :]
            neck = head[:, None] - step[None, :]
            valid = ~block[rows, front % size] & ~block[rows, neck % size]
            heading, found = choose(valid, hash_draws(key, SALT_HEADING, counter))
            ok &= found
            heading = np.minimum(heading, 3)
            rows = rows[:, 0]
            path = [head, neck[rows, heading]]
            ahead = front[rows, heading]
            for segment in range(2, length):
                options = path[-1][:, None] + step[None, :]
                free = ~block[rows[:, None], options % size] & (options != ahead[:, None])
                for earlier in path:
                    free &= options != earlier[:, None]
                choice, found = choose(free, hash_draws(key, SALT_BODY, counter + np.uint64(segment << 32)))
                ok &= found
                path.append(options[rows, np.minimum(choice, 3)])
            body = np.stack(path[:length], axis=1)
            done = pending[ok]
            cells[done, snake] = body[ok]
            headings[done, snake] = heading[ok]
            blocked[done[:, None], body[ok]] = True
            blocked[done, ahead[ok]] = True
            pending = pending[~ok]
        if len(pending):
            raise InvalidValueError(f"snake: no room to place {num_snakes} snakes of length {length} on this map")
    return cells, headings


def place_fruits(
    codes: np.ndarray, keys: np.ndarray, counters: np.ndarray, counts: np.ndarray, free_cells: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Put ``counts[i]`` fruits on distinct empty cells of ``codes[i]``, uniformly at random.

    ``codes`` is ``(G, cells)`` and is changed in place; ``free_cells`` lists the
    cells that are not walls. Where fewer cells are empty than asked, every empty
    cell gets a fruit.

    Returns:
        ``(rows, cells)`` of the fruits placed.
    """
    placed_rows, placed_cells = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    rows = np.flatnonzero(counts)
    for index in range(int(counts.max(initial=0))):
        if index:
            rows = rows[counts[rows] > index]
        cell, ok = _pick_free(
            free_cells, codes[rows] != EMPTY, keys[rows], SALT_FRUIT, counters[rows] + np.uint64(index << 40)
        )
        codes[rows[ok], cell[ok]] = FRUIT
        placed_rows.append(rows[ok])
        placed_cells.append(cell[ok])
    return np.concatenate(placed_rows), np.concatenate(placed_cells)


# ------------------------------------------------------------------ rendering
_PALETTE = np.array(
    [
        (104, 255, 0),
        (255, 191, 0),
        (0, 111, 255),
        (200, 0, 255),
        (0, 230, 230),
        (255, 0, 92),
        (255, 160, 200),
        (160, 160, 60),
    ],
    dtype=np.int64,
)


def _colors(num_snakes: int) -> np.ndarray:
    """An RGB colour per grid code: heads bright, bodies a little darker, tails darker still."""
    colors = np.zeros((3 + 3 * num_snakes, 3), dtype=np.uint8)
    colors[WALL] = (96, 96, 96)
    colors[FRUIT] = (223, 7, 22)
    for owner in range(num_snakes):
        base = _PALETTE[owner % len(_PALETTE)]
        for part, scale in ((HEAD, 1.0), (BODY, 0.75), (TAIL, 0.5)):
            colors[snake_code(owner, part)] = (base * scale).astype(np.uint8)
    if 0 in colors[FRUIT + 1 :].sum(axis=1):  # never draw a snake cell black
        colors[FRUIT + 1 :] = np.maximum(colors[FRUIT + 1 :], 40)
    return colors


def rgb_image(codes: np.ndarray, num_snakes: int, cell_pixels: int) -> np.ndarray:
    """The map ``codes`` (``(H, W)`` uint8) as an RGB image, ``cell_pixels`` pixels a cell."""
    image = _colors(num_snakes)[codes]
    return np.repeat(np.repeat(image, cell_pixels, axis=0), cell_pixels, axis=1)


def ansi_text(codes: np.ndarray, num_snakes: int) -> str:
    """The map as text: ``#`` wall, ``*`` fruit, ``.`` empty, a snake's head as its capital
    letter (``A`` for ``snake_0``) and its body and tail as the small letter."""
    symbols = [".", "#", "*"]
    for owner in range(num_snakes):
        letter = chr(ord("a") + owner % 26)
        symbols += [letter.upper(), letter, letter]
    table = np.array(symbols)
    return "\n".join("".join(row) for row in table[codes]) + "\n"


def parse_positions(snakes: Sequence[Sequence[tuple[int, int]]], where: str) -> list[list[tuple[int, int]]]:
    """Validate snake cell lists given as ``[(row, col), ...]`` with the head first."""
    result = []
    for index, cells in enumerate(snakes):
        pairs: list[tuple[int, int]] = []
        for cell in cells:
            values = tuple(int(v) for v in cell)
            if len(values) != 2:
                raise InvalidValueError(f"{where}: snake {index}: a cell is (row, col), got {cell!r}")
            pairs.append((values[0], values[1]))
        if len(pairs) < 2:
            raise InvalidValueError(f"{where}: snake {index} needs at least 2 cells (head first), got {pairs}")
        for a, b in zip(pairs, pairs[1:]):
            if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
                raise InvalidValueError(f"{where}: cells {a} and {b} of snake {index} are not neighbours")
        result.append(pairs)
    return result
