"""Text and RGB pictures of a Pommerman state (the RGB frame is what replays and videos use).

The picture draws each thing so that it reads without a key, as the reference viewer's
sprites do: stone and crate walls, a black bomb with the steps left before it explodes
written on it, flames as a fire burst, power-ups as round badges (a bomb for an extra bomb, a
flame for range, a boot for kick), and agents as coloured discs with their number. Flat colours
only (no smoothing), so a frame packs as palette indices. :func:`legend` gives a sample of each
for the replay page's key, and the text render ends with the same key in words.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from envs.pommerman.core import (
    AGENT_0,
    AGENT_DUMMY,
    BLAST_STRENGTH,
    BOMB,
    EXTRA_BOMB,
    FLAMES,
    FOG,
    INCR_RANGE,
    KICK,
    LIFE,
    PASSAGE,
    RIGID,
    SIZE,
    WOOD,
)

__all__ = ["SYMBOLS", "PALETTE", "KEY", "text", "rgb", "legend", "sprite"]

#: One character per cell code 0-13 (agents are their ids).
SYMBOLS = ". # + o * ? b r k D 0 1 2 3".split()

#: What each cell code is, in words (the text render's key and the picture legend's labels).
KEY = (
    "passage",
    "rigid wall",
    "wooden wall (breaks; may hide a power-up)",
    "bomb (its number: steps until it explodes)",
    "flames",
    "fog (out of view)",
    "power-up: extra bomb",
    "power-up: blast range",
    "power-up: kick",
    "dummy agent",
)

#: The main RGB colour of each cell code 0-13.
PALETTE = np.array(
    [
        (236, 236, 228),  # passage
        (90, 90, 96),  # rigid wall
        (166, 118, 72),  # wooden wall
        (30, 30, 30),  # bomb
        (250, 140, 20),  # flames
        (160, 160, 170),  # fog
        (70, 150, 250),  # extra bomb
        (240, 80, 80),  # incr range
        (120, 200, 90),  # kick
        (200, 200, 200),  # dummy
        (214, 48, 49),
        (0, 148, 80),
        (40, 90, 220),
        (190, 80, 200),  # agents 0-3
    ],
    dtype=np.uint8,
)

_WHITE = (255, 255, 255)
_DARK = (30, 30, 30)
_YELLOW = (255, 214, 64)
_RED = (214, 40, 30)
_GRID = (214, 214, 204)

# 3x5 digits, row by row ("111" = three lit pixels).
_DIGITS = {
    "0": ("111", "101", "101", "101", "111"),
    "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"),
    "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"),
    "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"),
    "7": ("111", "001", "010", "010", "010"),
    "8": ("111", "101", "111", "101", "111"),
    "9": ("111", "101", "111", "001", "111"),
}
_MIN_DIGIT_PIXELS = 10  # cells smaller than this show no numbers (they would not read)


def _grid(p: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel centres of a ``p``-pixel cell as (y, x) in 0..1."""
    axis = (np.arange(p) + 0.5) / p
    return np.meshgrid(axis, axis, indexing="ij")


def _disc(p: int, cy: float, cx: float, r: float) -> np.ndarray:
    y, x = _grid(p)
    return (y - cy) ** 2 + (x - cx) ** 2 <= r * r


def _burst(p: int, cy: float, cx: float, r: float) -> np.ndarray:
    """A fire burst: a diamond with a taller point, centred at (cy, cx), ``r`` high."""
    y, x = _grid(p)
    dy = np.where(y < cy, (cy - y) / 1.5, y - cy)  # the flame's tip reaches higher
    return np.abs(x - cx) + dy <= r


def _text(tile: np.ndarray, label: str, colour: tuple[int, int, int], cy: float, height: float) -> None:
    """Write ``label`` (digits) centred on row ``cy`` of ``tile``, ``height`` of the cell tall."""
    p = tile.shape[0]
    if p < _MIN_DIGIT_PIXELS:
        return
    scale = max(1, round(height * p / 5))
    width = len(label) * 4 * scale - scale
    top = int(round(cy * p - 2.5 * scale))
    left = (p - width) // 2
    for index, char in enumerate(label):
        rows = _DIGITS[char]
        for r, row in enumerate(rows):
            for c, lit in enumerate(row):
                if lit == "1":
                    y, x = top + r * scale, left + index * 4 * scale + c * scale
                    tile[max(0, y) : y + scale, max(0, x) : x + scale] = colour


def _ground(p: int) -> np.ndarray:
    tile = np.empty((p, p, 3), np.uint8)
    tile[:] = PALETTE[PASSAGE]
    if p >= 8:  # faint grid lines: cells are countable
        tile[-1, :] = _GRID
        tile[:, -1] = _GRID
    return tile


def _bomb(tile: np.ndarray, cy: float, cx: float, r: float) -> None:
    p = tile.shape[0]
    tile[_disc(p, cy, cx, r)] = PALETTE[BOMB]
    tile[_disc(p, cy - r * 0.95, cx + r * 0.75, r * 0.22)] = _RED  # the lit fuse


def _badge(p: int, colour: np.ndarray) -> np.ndarray:
    """A power-up's round badge on the ground."""
    tile = _ground(p)
    tile[_disc(p, 0.5, 0.5, 0.42)] = colour
    return tile


@lru_cache(maxsize=16)
def _tiles(p: int) -> np.ndarray:
    """The tile of every cell code for ``p``-pixel cells, shape (14, p, p, 3)."""
    y, x = _grid(p)
    tiles = np.empty((len(PALETTE), p, p, 3), np.uint8)
    tiles[PASSAGE] = _ground(p)
    # Rigid wall: a stone block, light top-left edge, dark bottom-right edge.
    stone = tiles[RIGID]
    stone[:] = PALETTE[RIGID]
    edge = 0.12
    stone[(y < edge) | (x < edge)] = (130, 130, 138)
    stone[(y > 1 - edge) | (x > 1 - edge)] = (55, 55, 60)
    # Wooden wall: a crate of planks.
    crate = tiles[WOOD]
    crate[:] = PALETTE[WOOD]
    crate[(np.abs(y - 1 / 3) < 0.04) | (np.abs(y - 2 / 3) < 0.04)] = (120, 80, 44)
    crate[(y < 0.08) | (y > 0.92) | (x < 0.08) | (x > 0.92)] = (110, 72, 40)
    tiles[BOMB] = _ground(p)
    _bomb(tiles[BOMB], 0.56, 0.5, 0.36)
    # Flames: a red-orange cell with a yellow-hearted burst.
    fire = tiles[FLAMES]
    fire[:] = (232, 84, 24)
    fire[_burst(p, 0.58, 0.5, 0.46)] = PALETTE[FLAMES]
    fire[_burst(p, 0.62, 0.5, 0.24)] = _YELLOW
    tiles[FOG] = PALETTE[FOG]
    tiles[EXTRA_BOMB] = _badge(p, PALETTE[EXTRA_BOMB])
    _bomb(tiles[EXTRA_BOMB], 0.55, 0.5, 0.2)
    tiles[INCR_RANGE] = _badge(p, PALETTE[INCR_RANGE])
    tiles[INCR_RANGE][_burst(p, 0.55, 0.5, 0.27)] = _YELLOW
    tiles[KICK] = _badge(p, PALETTE[KICK])
    shaft = (x > 0.33) & (x < 0.55) & (y > 0.22) & (y < 0.7)
    foot = (x > 0.33) & (x < 0.68) & (y >= 0.52) & (y < 0.7)
    boot = shaft | foot | _disc(p, 0.61, 0.68, 0.09)
    tiles[KICK][boot] = (90, 52, 24)
    tiles[KICK][boot & (y > 0.64)] = _DARK  # the sole
    for code in range(AGENT_DUMMY, len(PALETTE)):
        body = tiles[code]
        body[:] = _ground(p)
        body[_disc(p, 0.5, 0.5, 0.44)] = _DARK  # outline
        body[_disc(p, 0.5, 0.5, 0.38)] = PALETTE[code]
        if code >= AGENT_0:
            _text(body, str(code - AGENT_0), _WHITE, 0.5, 0.5)
    return tiles


def sprite(code: int, cell_pixels: int = 32, life: int | None = None) -> np.ndarray:
    """How a cell of ``code`` is drawn, as a ``(cell_pixels, cell_pixels, 3)`` picture (a bomb
    with ``life`` shows that number)."""
    tile = _tiles(cell_pixels)[code].copy()
    if code == BOMB and life is not None:
        _text(tile, str(life), _WHITE, 0.58, 0.4)
    return tile


def text(state, teams: dict[str, tuple[str, ...]] | None = None) -> str:
    """The board, one character a cell; then each agent (and its side), each bomb with its
    timer, the key to the characters and the step count."""
    side = {agent: team for team, members in (teams or {}).items() for agent in members}
    lines = [" ".join(SYMBOLS[v] for v in row) for row in state.board.tolist()]
    for i, (alive, r, c, ammo, blast, kick) in enumerate(state.agents.tolist()):
        status = f"at ({r},{c}) ammo {ammo} blast {blast}{' kick' if kick else ''}" if alive else "dead"
        team = f" [{side[f'agent_{i}']}]" if f"agent_{i}" in side else ""
        lines.append(f"agent_{i}{team}: {status}")
    bombs = state.bombs[: int(state.counts[0])].tolist()
    if bombs:
        lines.append(
            "bombs: "
            + "; ".join(f"({b[0]},{b[1]}) in {b[LIFE]} blast {b[BLAST_STRENGTH]} by agent_{b[2]}" for b in bombs)
        )
    key = [f"{SYMBOLS[code]} {KEY[code].split(' (')[0]}" for code in range(AGENT_DUMMY) if code != FOG]
    lines.append("key: " + ", ".join(key) + ", 0-3 agent_0-agent_3")
    lines.append(f"step {state.step_count}")
    return "\n".join(lines) + "\n"


def rgb(state, cell_pixels: int = 32) -> np.ndarray:
    """An (11 * cell_pixels, 11 * cell_pixels, 3) uint8 image of the board.

    Bombs show the steps until they explode; an agent standing on a bomb is drawn with a
    small bomb at its lower right (with its number where the cell is large enough).
    """
    p = cell_pixels
    tiles = _tiles(p)
    board = state.board
    image = tiles[board].transpose(0, 2, 1, 3, 4).reshape(SIZE * p, SIZE * p, 3)
    for b in state.bombs[: int(state.counts[0])]:
        r, c, life = int(b[0]), int(b[1]), int(b[LIFE])
        cell = image[r * p : (r + 1) * p, c * p : (c + 1) * p]
        if board[r, c] == BOMB:
            _text(cell, str(life), _WHITE, 0.58, 0.4)
        elif board[r, c] >= AGENT_0:  # the bomber still on its bomb: a small bomb at its lower right
            corner = cell[p // 2 :, p // 2 :]  # a square view into the image
            _bomb(corner, 0.56, 0.5, 0.4)
            _text(corner, str(life), _WHITE, 0.58, 0.4)
    return np.ascontiguousarray(image)


def legend(cell_pixels: int = 32) -> list[tuple[int, str, np.ndarray]]:
    """``(cell code, what it is, how it is drawn)`` for the things a picture shows, agents last."""
    shown = [WOOD, RIGID, PASSAGE, BOMB, FLAMES, EXTRA_BOMB, INCR_RANGE, KICK]
    entries = [(code, KEY[code], sprite(code, cell_pixels, 7 if code == BOMB else None)) for code in shown]
    entries += [(AGENT_0 + i, f"agent_{i}", sprite(AGENT_0 + i, cell_pixels)) for i in range(4)]
    return entries
