"""Text and RGB pictures of a Pommerman state (the RGB frame is what replays and videos use)."""

from __future__ import annotations

import numpy as np

from envs.pommerman.core import AGENT_0, BOMB, SIZE

__all__ = ["SYMBOLS", "PALETTE", "text", "rgb"]

#: One character per cell code 0-13 (agents are their ids).
SYMBOLS = ". # + o * ? b r k D 0 1 2 3".split()

#: One RGB colour per cell code 0-13.
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


def text(state) -> str:
    """The board, one character a cell, then each agent's line and the step count."""
    lines = [" ".join(SYMBOLS[v] for v in row) for row in state.board.tolist()]
    for i, (alive, r, c, ammo, blast, kick) in enumerate(state.agents.tolist()):
        status = f"at ({r},{c}) ammo {ammo} blast {blast}{' kick' if kick else ''}" if alive else "dead"
        lines.append(f"agent_{i}: {status}")
    lines.append(f"step {state.step_count}")
    return "\n".join(lines) + "\n"


def rgb(state, cell_pixels: int = 16) -> np.ndarray:
    """An (11 * cell_pixels, 11 * cell_pixels, 3) uint8 image of the board.

    Agents standing on their own bomb are drawn with a dark centre, so the bomb stays
    visible; a moving bomb is drawn like any other.
    """
    image = np.repeat(np.repeat(PALETTE[state.board], cell_pixels, axis=0), cell_pixels, axis=1)
    inner = max(1, cell_pixels // 4)
    for b in state.bombs[: int(state.counts[0])]:
        r, c = int(b[0]), int(b[1])
        if state.board[r, c] >= AGENT_0:
            y, x = r * cell_pixels, c * cell_pixels
            image[y + inner : y + cell_pixels - inner, x + inner : x + cell_pixels - inner] = PALETTE[BOMB]
    return np.ascontiguousarray(image[: SIZE * cell_pixels, : SIZE * cell_pixels])
