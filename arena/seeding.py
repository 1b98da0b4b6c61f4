"""Cheap, process-independent seeding: SplitMix64 (Steele, Lea and Flood, 2014).

Tournaments and the play loop seed every participant of every game, so seeding must
cost far less than a short game: ``random.Random.seed`` and numpy generators take
microseconds (they fill hundreds of words of state), SplitMix64 takes one addition.

This module is arena's only SplitMix64. Its two functions :func:`mix64` (the finaliser)
and :func:`next_uniform` (one step of a stream) are written once for three kinds of
values: Python ints (:class:`SplitMix64`, :func:`derive_seed`), numpy ``uint64`` arrays
(the snake games' counter-based draws) and numba's compiled ``uint64`` (the Pommerman rules
and scripted agent compile them into their loops with ``njit``; arena itself never imports
numba). Their streams are pinned by tests: seeded games replay only while they stay.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

from arena.errors import InvalidValueError

__all__ = ["derive_seed", "game_seeds", "mix64", "next_uniform", "GOLDEN", "SplitMix64"]

# Plain ints, not numpy scalars: numba types a literal above 2**63 as uint64, so the compiled
# forms stay in uint64, and Python's ints stay exact (the masks keep them in 64 bits).
_MASK = 0xFFFFFFFFFFFFFFFF
#: The stream's increment (2**64 over the golden ratio); also the snake draws' multiplier.
GOLDEN = 0x9E3779B97F4A7C15
_MIX_1 = 0xBF58476D1CE4E5B9
_MIX_2 = 0x94D049BB133111EB
_UNIT = 1.1102230246251565e-16  # 2**-53: 53 random bits to a float in [0, 1)


def mix64(z: Any) -> Any:
    """SplitMix64's finaliser: a bijective scramble of 64-bit values (wraps by design).

    Takes a Python int below 2**64, a numpy ``uint64`` array (elementwise) or, compiled by
    numba, a ``uint64``. Seeding a stream is ``state = mix64(seed)``.

    Example:
        >>> mix64(7)
        1346066267577507604
    """
    z = ((z ^ (z >> 30)) * _MIX_1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX_2) & _MASK
    return z ^ (z >> 31)


def next_uniform(state: Any) -> float:
    """Advance the stream ``state`` (a list of one int, or a ``uint64`` array of one) and draw from it.

    Returns the next float in [0, 1) (53 random bits). The finaliser is :func:`mix64`'s, written
    out: compiled code cannot call a plain Python function, and this runs every move.

    Example:
        >>> state = [mix64(3)]
        >>> 0.0 <= next_uniform(state) < 1.0
        True
    """
    z = (state[0] + GOLDEN) & _MASK
    state[0] = z
    z = ((z ^ (z >> 30)) * _MIX_1) & _MASK
    z = ((z ^ (z >> 27)) * _MIX_2) & _MASK
    return ((z ^ (z >> 31)) >> 11) * _UNIT


def derive_seed(seed: int, index: int) -> int:
    """A child seed (31 bits) for participant ``index`` of something seeded with ``seed``.

    Deterministic and the same in every process.

    Example:
        >>> derive_seed(7, 0) == derive_seed(7, 0) != derive_seed(7, 1)
        True
    """
    return mix64((seed * GOLDEN + (index + 1) * _MIX_1) & _MASK) & 0x7FFFFFFF


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
            raise InvalidValueError(f"{owner}: seed must be a non-negative integer, got {seed!r}")
        return [derive_seed(int(seed), g) for g in range(games)]
    seeds = list(seed) if isinstance(seed, Iterable) and not isinstance(seed, (str, bytes)) else None
    if (
        seeds is None
        or len(seeds) != games
        or any(isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 0 for s in seeds)
    ):
        raise InvalidValueError(f"{owner}: seed must be an int or {games} non-negative ints, got {seed!r}")
    return [int(s) for s in seeds]


class SplitMix64:
    """A tiny seeded generator of floats in [0, 1): seeding is one assignment.

    Example:
        >>> rng = SplitMix64(3)
        >>> 0.0 <= rng.random() < 1.0
        True
    """

    __slots__ = ("_state",)

    _state: list[int]  # a list of one int: the state :func:`next_uniform` advances in place

    def __init__(self, seed: int | None = None) -> None:
        self._state = [0]
        self.seed(seed)

    def seed(self, seed: int | None = None) -> None:
        """Restart the sequence from ``seed`` (``None``: from the OS's entropy)."""
        if seed is None:
            import os

            seed = int.from_bytes(os.urandom(8), "little")
        self._state[0] = mix64(int(seed) & _MASK)  # in place: :attr:`stream` stays the same list

    @property
    def stream(self) -> list[int]:
        """The state as a list of one int, the same list for the generator's life (re-seeding
        rewrites its item): ``next_uniform(rng.stream)`` is ``rng.random()`` without the method
        call, for loops that draw every step.

        Example:
            >>> a, b = SplitMix64(3), SplitMix64(3)
            >>> next_uniform(a.stream) == b.random()
            True
        """
        return self._state

    def random(self) -> float:
        """The next float in [0, 1), 53 random bits."""
        return next_uniform(self._state)

    def getrandbits32(self) -> int:
        """The next 32 random bits as an int."""
        state = self._state[0] = (self._state[0] + GOLDEN) & _MASK
        return mix64(state) >> 32
