"""A scripted ViZDoom deathmatch player that aims with the engine's labels."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import SpaceMismatchError

__all__ = ["VizdoomAimAgent"]

# Indices in the button vector (envs.vizdoom.BUTTONS).
_ATTACK, _FORWARD, _BACKWARD, _LEFT, _RIGHT, _TURN_LEFT, _TURN_RIGHT = range(7)
_FIELD_OF_VIEW = 90.0  # Doom's horizontal field of view, degrees


class VizdoomAimAgent(Agent):
    """Turn towards the nearest enemy in view and shoot; seek the nearest one when nobody is in view.

    It reads the ``"enemies"`` table of ``vizdoom_deathmatch``'s observation (built from the
    engine's labels buffer: nearest visible player first, centre x as a screen fraction).
    When an enemy is in view it turns towards it (binary turn buttons, or the exact angle
    with ``delta_turn`` actions) and fires once the enemy's centre is within ``tolerance``
    of the crosshair (or of half the enemy's width, whichever is wider), walking towards it
    until it is close, then strafing from side to side. With nobody in view it heads for the
    nearest player on the ``"radar"`` (turning towards its bearing while walking, strafing now
    and then to get off walls), or, without a radar, walks forward and sweeps right on a fixed
    cycle (no randomness: it is reproducible).

    Args:
        tolerance: the horizontal distance from the screen centre (a screen fraction) within
            which it fires.
        sweep: steps of each roaming cycle spent turning (of 8).
        close: the on-screen height (a screen fraction) from which an enemy counts as close:
            it stops walking towards it and strafes from side to side while it aims.

    Raises:
        SpaceMismatchError: in :meth:`setup`, for observations without an ``"enemies"``
            table (make the env with ``enemies=True``) or actions that are not the 7 buttons.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = VizdoomAimAgent()
        >>> table = spaces.Box(0.0, 1.0, (1, 5), np.float32)
        >>> agent.setup(spaces.Dict({"enemies": table}), spaces.MultiBinary(7))
        >>> enemy_left = {"enemies": np.array([[1, 0.2, 0.5, 0.05, 0.2]], np.float32)}
        >>> agent.act(enemy_left).tolist()  # turn left, not yet firing
        [0, 1, 0, 0, 0, 1, 0]
        >>> agent.act({"enemies": np.array([[1, 0.5, 0.5, 0.05, 0.3]], np.float32)}).tolist()[0]  # fire
        1
    """

    def __init__(self, tolerance: float = 0.08, sweep: int = 3, close: float = 0.3, heading: float = 0.06) -> None:
        if not 0 < tolerance < 0.5:
            raise ValueError(f"VizdoomAimAgent: tolerance must lie in (0, 0.5), got {tolerance!r}")
        if isinstance(sweep, bool) or not isinstance(sweep, int) or not 0 <= sweep <= 8:
            raise ValueError(f"VizdoomAimAgent: sweep must be an integer in 0..8, got {sweep!r}")
        if not 0 < close <= 1:
            raise ValueError(f"VizdoomAimAgent: close must lie in (0, 1], got {close!r}")
        if not 0 < heading < 1:
            raise ValueError(f"VizdoomAimAgent: heading must lie in (0, 1), got {heading!r}")
        self.tolerance, self.sweep, self.close, self.heading = float(tolerance), sweep, float(close), float(heading)
        self._radar = False
        self._delta = False
        self._clock = 0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        table = observation_space.spaces.get("enemies") if isinstance(observation_space, spaces.Dict) else None
        buttons = action_space.spaces.get("buttons") if isinstance(action_space, spaces.Dict) else action_space
        if not (isinstance(table, spaces.Box) and len(table.shape) == 2 and table.shape[1] == 5) or not (
                isinstance(buttons, spaces.MultiBinary) and buttons.shape == (7,)):
            raise SpaceMismatchError(
                "VizdoomAimAgent: needs vizdoom_deathmatch's observation with an 'enemies' Box(n, 5) (make the "
                "env with enemies=True) and its 7-button MultiBinary action (or the delta_turn Dict), got "
                f"{observation_space} and {action_space}")
        super().setup(observation_space, action_space)
        self._delta = isinstance(action_space, spaces.Dict)
        self._radar = "radar" in observation_space.spaces

    def reset(self, *, seed: int | None = None) -> None:
        self._clock = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        buttons = np.zeros(7, np.int8)
        turn = 0.0
        enemies = np.asarray(observation["enemies"])
        self._clock += 1
        if enemies.size and enemies[0, 0] > 0:
            offset = float(enemies[0, 1]) - 0.5
            if abs(offset) <= max(self.tolerance, float(enemies[0, 3]) / 2):
                buttons[_ATTACK] = 1
            if self._delta:
                turn = offset * _FIELD_OF_VIEW / 4  # per tic; the env repeats it frame_skip times
            elif abs(offset) > self.tolerance:  # a binary turn step is ~14 degrees: no finer turn
                buttons[_TURN_LEFT if offset < 0 else _TURN_RIGHT] = 1
            if float(enemies[0, 4]) < self.close:
                buttons[_FORWARD] = 1
            else:  # close: circle-strafe instead of walking into its fire
                buttons[_LEFT if (self._clock // 6) % 2 else _RIGHT] = 1
        elif self._radar and len(radar := np.asarray(observation["radar"])) and radar[:, 0].max() > 0:
            row = radar[np.argmin(np.where(radar[:, 0] > 0, radar[:, 2], np.inf))]
            bearing = float(row[1])  # half-turns, positive to the left
            buttons[_FORWARD] = 1
            if self._delta:
                turn = float(np.clip(bearing * 180.0 / 2, -_FIELD_OF_VIEW / 4, _FIELD_OF_VIEW / 4))
            elif abs(bearing) > self.heading:
                buttons[_TURN_LEFT if bearing > 0 else _TURN_RIGHT] = 1
            if self._clock % 16 >= 13:  # now and then off the wall it may be walking into
                buttons[_LEFT if (self._clock // 16) % 2 else _RIGHT] = 1
        else:
            phase = self._clock % 8
            buttons[_FORWARD] = 1
            if phase < self.sweep:
                buttons[_TURN_RIGHT] = 1
            if phase == 7:
                buttons[_LEFT if (self._clock // 8) % 2 else _RIGHT] = 1
        if self._delta:
            return {"buttons": buttons, "turn": np.array([turn], np.float32)}
        return buttons
