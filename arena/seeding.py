"""Cheap, process-independent seeding: SplitMix64 (Steele, Lea and Flood, 2014).

Tournaments and the play loop seed every participant of every game, so seeding must
cost far less than a short game: ``random.Random.seed`` and numpy generators take
microseconds (they fill hundreds of words of state), SplitMix64 takes one addition.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

__all__ = ["derive_seed", "game_seeds", "SplitMix64"]

_MASK = 0xFFFFFFFFFFFFFFFF
_GOLDEN = 0x9E3779B97F4A7C15


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def derive_seed(seed: int, index: int) -> int:
    """A child seed (31 bits) for participant ``index`` of something seeded with ``seed``.

    Deterministic and the same in every process.

    Example:
        >>> derive_seed(7, 0) == derive_seed(7, 0) != derive_seed(7, 1)
        True
    """
    return _mix((seed * _GOLDEN + (index + 1) * 0xBF58476D1CE4E5B9) & _MASK) & 0x7FFFFFFF


def game_seeds(seed: Any, games: int, owner: object) -> list[int]:
    """One seed per game of a batch: ``derive_seed(seed, g)`` for an int, else one given per game.

    The rule of every batch of games' ``reset(seed=...)`` (``envs.board_batch``,
    ``envs.snake.SnakeBatch``).

    Args:
        seed: a non-negative int, or a sequence of ``games`` non-negative ints.
        games: how many games the batch plays.
        owner: the batch, named in the error.

    Raises:
        ValueError: a negative int, a bool, or a sequence of the wrong length or with a
            negative, bool or non-int member.

    Example:
        >>> game_seeds(7, 2, "batch") == [derive_seed(7, 0), derive_seed(7, 1)]
        True
        >>> game_seeds([3, 4], 2, "batch")
        [3, 4]
    """
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        if seed < 0:
            raise ValueError(f"{owner}: seed must be a non-negative integer, got {seed!r}")
        return [derive_seed(int(seed), g) for g in range(games)]
    seeds = list(seed) if isinstance(seed, Iterable) and not isinstance(seed, (str, bytes)) else None
    if (
        seeds is None
        or len(seeds) != games
        or any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0 for s in seeds)
    ):
        raise ValueError(f"{owner}: seed must be an int or {games} non-negative ints, got {seed!r}")
    return [int(s) for s in seeds]


class SplitMix64:
    """A tiny seeded generator of floats in [0, 1): seeding is one assignment.

    Example:
        >>> rng = SplitMix64(3)
        >>> 0.0 <= rng.random() < 1.0
        True
    """

    __slots__ = ("_state",)

    def __init__(self, seed: int | None = None) -> None:
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart the sequence from ``seed`` (``None``: from the OS's entropy)."""
        if seed is None:
            import os

            seed = int.from_bytes(os.urandom(8), "little")
        self._state = _mix(int(seed) & _MASK)

    def random(self) -> float:
        """The next float in [0, 1), 53 random bits."""
        z = self._state = (self._state + _GOLDEN) & _MASK
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK  # _mix, inlined: this runs every move
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return ((z ^ (z >> 31)) >> 11) * 1.1102230246251565e-16

    def getrandbits32(self) -> int:
        """The next 32 random bits as an int."""
        state = self._state = (self._state + _GOLDEN) & _MASK
        return _mix(state) >> 32
