"""The options of a Pommerman game, checked once: what the env and the batch both build on.

:class:`PommermanRules` holds the mode and step limit and what follows from them (fog,
the blast cap, the teams, the action space), so that :class:`~envs.pommerman.Pommerman`
and :class:`~envs.pommerman.PommermanBatch` check and derive them in one place without
importing each other.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError

__all__ = ["MODES", "MAX_STEPS", "PommermanRules"]

MODES = ("ffa", "team", "radio")
MAX_STEPS = 1_000_000  # the reference plays 800; the time plane and step counters stay meaningful below this
TEAMS: dict[str, tuple[str, ...]] = {"team_0": ("agent_0", "agent_2"), "team_1": ("agent_1", "agent_3")}


class PommermanRules:
    """A mode and a step limit, checked, with what they imply.

    Args:
        mode: ``"ffa"``, ``"team"`` or ``"radio"``.
        max_steps: the step limit (800 in the reference), 1..1,000,000.

    Raises:
        ValueError: a bad mode or ``max_steps`` (the text names the allowed values).

    Example:
        >>> rules = PommermanRules("team", 800)
        >>> rules.partial, rules.max_blast, rules.teams["team_0"]
        (True, 4, ('agent_0', 'agent_2'))
    """

    def __init__(self, mode: str = "ffa", max_steps: int = 800) -> None:
        if mode not in MODES:
            raise InvalidValueError(f"Pommerman: mode must be one of {list(MODES)}, got {mode!r}")
        if (
            isinstance(max_steps, bool)
            or not isinstance(max_steps, (int, np.integer))
            or not 1 <= max_steps <= MAX_STEPS
        ):
            raise InvalidValueError(f"Pommerman: max_steps must be an integer in 1..{MAX_STEPS}, got {max_steps!r}")
        self.mode = mode
        self.max_steps = int(max_steps)
        self.partial = mode != "ffa"  # team modes fog the far side of the board
        self.max_blast = 4 if self.partial else 10  # the reference passes its view size as the cap
        self.teams: dict[str, tuple[str, ...]] | None = None if mode == "ffa" else dict(TEAMS)
        self.action: spaces.Space = spaces.MultiDiscrete([6, 8, 8]) if mode == "radio" else spaces.Discrete(6)

    def action_space(self, agent: str) -> spaces.Space:
        """Every agent's action space (``Discrete(6)``; radio ``MultiDiscrete([6, 8, 8])``)."""
        return self.action

    def __str__(self) -> str:
        return f"<Pommerman {self.mode}>"
