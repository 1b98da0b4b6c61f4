"""A scripted ViZDoom deathmatch player that aims with the engine's labels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import InvalidValueError, SpaceMismatchError

__all__ = ["VizdoomAimAgent", "nearest_on_radar", "sharpened"]

# Indices in the button vector (envs.vizdoom.BUTTONS).
_ATTACK, _FORWARD, _BACKWARD, _LEFT, _RIGHT, _TURN_LEFT, _TURN_RIGHT = range(7)
_FIELD_OF_VIEW = 90.0  # Doom's horizontal field of view, degrees
# A fresh press of a turn button turns about 7 degrees in a 4-tic step (Doom turns slowly for
# the first 6 tics held): 0.078 of the screen; an offset under half of that is left alone.
_HALF_TURN_STEP = 0.039
_MAP_SCALE = 4096.0  # the radar's distances are map units / 4096
_BODY = 16.0  # a player's 32-unit body seen d units away spans 16 / d of a 90-degree screen


def sharpened(radar: np.ndarray, offset: float, width: float) -> tuple[float, float]:
    """The enemy's offset from the screen's centre and its width, sharpened by the radar row that matches its label.

    A label's box follows the sprite (an arm or a gun sticks out); the radar gives the body's exact
    bearing and distance. A row matches when it puts a player on screen within the label's width
    (at least 0.05) of its centre; the closest such row wins. Without a match the label's own offset
    and width come back.

    Args:
        radar: the ``"radar"`` rows ``[seen, bearing in half-turns (left positive), distance / 4096]``,
            or an empty ``(0, 3)`` array.
        offset: the label's centre x minus 0.5 (a screen fraction, right positive).
        width: the label's width (a screen fraction).

    Example:
        >>> rows = np.array([[1.0, 0.0, 0.1]], np.float32)  # straight ahead, 410 units away
        >>> offset, width = sharpened(rows, 0.03, 0.1)  # the label leans right (a gun arm)
        >>> offset, round(width, 4)
        (-0.0, 0.0391)
    """
    best = None
    for seen, bearing, distance in radar:
        if seen > 0 and abs(bearing) < 0.25:  # within 45 degrees: on screen
            guess = -0.5 * math.tan(bearing * math.pi)  # screen fraction right of the centre
            if abs(guess - offset) <= max(width, 0.05) and (best is None or abs(guess - offset) < best[2]):
                best = (guess, _BODY / max(distance * _MAP_SCALE, 1.0), abs(guess - offset))
    return (float(best[0]), float(best[1])) if best is not None else (offset, width)


def nearest_on_radar(radar: np.ndarray) -> np.ndarray | None:
    """The radar row ``[seen, bearing, distance]`` of the nearest player it shows (the first on a tie), or
    ``None`` when it shows none (no rows, or none with ``seen > 0``).

    Example:
        >>> rows = np.array([[1.0, 0.5, 0.3], [0.0, 0.0, 0.1], [1.0, -0.2, 0.2]], np.float32)
        >>> nearest_on_radar(rows).tolist(), nearest_on_radar(rows[1:2])
        ([1.0, -0.20000000298023224, 0.20000000298023224], None)
    """
    shown = radar[:, 0] > 0
    if not shown.any():
        return None
    return radar[np.argmin(np.where(shown, radar[:, 2], np.inf))]


class VizdoomAimAgent(Agent):
    """Turn towards the nearest enemy in view and shoot; seek the nearest one when nobody is in view.

    It reads the ``"enemies"`` table of ``vizdoom_deathmatch``'s observation (built from the
    engine's labels buffer: nearest visible player first, centre x as a screen fraction).
    When an enemy is in view it turns towards it (binary turn buttons, or the exact angle
    with ``delta_turn`` actions), walks towards it until it is close, then strafes from side
    to side. It fires only when the enemy's centre is within ``tolerance`` of the crosshair
    (or within 40% of the enemy's width of it, whichever is wider), and then only one short
    press every ``cadence`` steps: Doom's hitscan weapons shoot straight only when the
    trigger was released since the last shot (held fire spreads), and a shot that cannot hit
    wastes one of the 50 starting bullets; nor does it fire in the first ``hold`` steps of a
    match or after a frag, while players (re)spawn invulnerable. With a ``"radar"`` it takes
    the enemy's bearing and distance from the radar row that matches the label (a label's box
    follows the sprite, arms and gun included). With nobody in view it heads for the nearest
    player on the radar (turning towards its bearing while walking, strafing now and then to
    get off walls), or, without a radar, walks forward and sweeps right on a fixed cycle (no
    randomness: it is reproducible).

    Args:
        tolerance: the horizontal distance from the screen centre (a screen fraction) within
            which it fires at any enemy, however small on screen.
        sweep: steps of each roaming cycle spent turning (of 8).
        close: the on-screen height (a screen fraction) from which an enemy counts as close:
            it stops walking towards it and strafes from side to side while it aims.
        heading: how far off the radar's bearing (half-turns) it turns while seeking.
        cadence: steps from one press of the trigger to the next (at the default frame skip
            of 4 tics, 5 steps let the pistol's 19-tic shot finish with the trigger released).
        hold: steps without firing after the start and after each frag it scores: players
            (re)spawn invulnerable for about 3 s (``sv_respawnprotect``), 26 steps of 4 tics.
        move: whether it walks and strafes; ``False`` keeps it where it spawned, turning and
            firing only (on the ``duel`` map, whose floor between the two ledges kills).
        weave: with an enemy in view, strafe all the time, left for ``weave`` steps then right for
            ``weave``, also while it fires, aims and walks towards the enemy (a moving target for
            rockets, which fly 20 units a tic); 0 (the default) strafes as described above, stopping
            to fire and to line up.
        keep: with an enemy in view nearer than this on the radar (map units / 4096), walk
            backwards (strafing from side to side) instead of closing in: a rocket's splash
            reaches 128 units (0.031); 0 (the default) never backs off. Needs a ``"radar"``.

    It keeps a clock per game, so it cannot act for many games at once; a batched trainer on a worker
    batch plays it as one copy per game (:attr:`arena.Agent.copy_per_game`).

    Raises:
        SpaceMismatchError: in :meth:`setup`, for observations without an ``"enemies"``
            table (make the env with ``enemies=True``) or actions that are not the 7 buttons.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = VizdoomAimAgent(hold=0)  # fire from the first step (no spawn protection to wait out)
        >>> table = spaces.Box(0.0, 1.0, (1, 5), np.float32)
        >>> agent.setup(spaces.Dict({"enemies": table}), spaces.MultiBinary(7))
        >>> enemy_left = {"enemies": np.array([[1, 0.2, 0.5, 0.05, 0.2]], np.float32)}
        >>> agent.act(enemy_left).tolist()  # turn left, not yet firing
        [0, 1, 0, 0, 0, 1, 0]
        >>> agent.act({"enemies": np.array([[1, 0.5, 0.5, 0.05, 0.3]], np.float32)}).tolist()[0]  # fire
        1
    """

    copy_per_game = True  # its clocks are attributes: a batched trainer plays a copy per game

    def __init__(
        self,
        tolerance: float = 0.02,
        sweep: int = 3,
        close: float = 0.3,
        heading: float = 0.06,
        cadence: int = 5,
        hold: int = 28,
        move: bool = True,
        weave: int = 0,
        keep: float = 0.0,
    ) -> None:
        if not 0 < tolerance < 0.5:
            raise InvalidValueError(f"VizdoomAimAgent: tolerance must lie in (0, 0.5), got {tolerance!r}")
        if isinstance(sweep, bool) or not isinstance(sweep, int) or not 0 <= sweep <= 8:
            raise InvalidValueError(f"VizdoomAimAgent: sweep must be an integer in 0..8, got {sweep!r}")
        if not 0 < close <= 1:
            raise InvalidValueError(f"VizdoomAimAgent: close must lie in (0, 1], got {close!r}")
        if not 0 < heading < 1:
            raise InvalidValueError(f"VizdoomAimAgent: heading must lie in (0, 1), got {heading!r}")
        if isinstance(cadence, bool) or not isinstance(cadence, int) or cadence < 1:
            raise InvalidValueError(f"VizdoomAimAgent: cadence must be an integer >= 1, got {cadence!r}")
        if isinstance(hold, bool) or not isinstance(hold, int) or hold < 0:
            raise InvalidValueError(f"VizdoomAimAgent: hold must be an integer >= 0, got {hold!r}")
        self.tolerance, self.sweep, self.close, self.heading = float(tolerance), sweep, float(close), float(heading)
        if isinstance(weave, bool) or not isinstance(weave, int) or weave < 0:
            raise InvalidValueError(f"VizdoomAimAgent: weave must be an integer >= 0, got {weave!r}")
        if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not 0 <= keep < 1:
            raise InvalidValueError(f"VizdoomAimAgent: keep must lie in [0, 1), got {keep!r}")
        self.cadence, self.hold, self.move, self.weave, self.keep = cadence, hold, bool(move), weave, float(keep)
        self._quiet_until = hold  # the clock until which it holds fire
        self._radar = False
        self._delta = False
        self._clock = 0
        self._fired = -cadence  # the clock when it last pressed the trigger

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        table = observation_space.spaces.get("enemies") if isinstance(observation_space, spaces.Dict) else None
        buttons = action_space.spaces.get("buttons") if isinstance(action_space, spaces.Dict) else action_space
        if not (isinstance(table, spaces.Box) and len(table.shape) == 2 and table.shape[1] == 5) or not (
            isinstance(buttons, spaces.MultiBinary) and buttons.shape == (7,)
        ):
            raise SpaceMismatchError(
                "VizdoomAimAgent: needs vizdoom_deathmatch's observation with an 'enemies' Box(n, 5) (make the "
                "env with enemies=True) and its 7-button MultiBinary action (or the delta_turn Dict), got "
                f"{observation_space} and {action_space}"
            )
        super().setup(observation_space, action_space)
        self._delta = isinstance(action_space, spaces.Dict)
        self._radar = isinstance(observation_space, spaces.Dict) and "radar" in observation_space.spaces

    def reset(self, *, seed: int | None = None) -> None:
        self._clock = 0
        self._fired = -self.cadence
        self._quiet_until = self.hold

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        buttons = np.zeros(7, np.int8)
        turn = 0.0
        enemies = np.asarray(observation["enemies"])
        radar = np.asarray(observation.get("radar", np.zeros((0, 3))) if self._radar else np.zeros((0, 3)))
        self._clock += 1
        if reward > 0:  # a frag: its victim respawns protected
            self._quiet_until = self._clock + self.hold - 1  # this step and the next hold - 1
        if enemies.size and enemies[0, 0] > 0:
            offset, width = float(enemies[0, 1]) - 0.5, float(enemies[0, 3])
            offset, width = sharpened(radar, offset, width)
            aligned = abs(offset) <= max(self.tolerance, 0.4 * width)
            if aligned and self._clock - self._fired >= self.cadence and self._clock > self._quiet_until:
                buttons[_ATTACK] = 1
                self._fired = self._clock
            # The shot leaves a few tics after the press, in the next step: hold the aim until then.
            steady = self._clock - self._fired <= 1
            if self._delta:
                turn = 0.0 if steady else offset * _FIELD_OF_VIEW / 4  # per tic; the env repeats it frame_skip times
            elif abs(offset) > _HALF_TURN_STEP and not aligned and not steady:
                buttons[_TURN_LEFT if offset < 0 else _TURN_RIGHT] = 1
            # Off by less than a turn step: side-step towards it, which moves the sight onto it.
            nudge = not (self._delta or aligned or steady) and abs(offset) <= _HALF_TURN_STEP
            if nudge:
                buttons[_LEFT if offset < 0 else _RIGHT] = 1
            nearest = nearest_on_radar(radar) if self.keep else None  # read only when it may back off
            if nearest is not None and nearest[2] < self.keep:  # too close (its rockets' splash): back off, strafing
                buttons[_BACKWARD] = 1
                if not (steady or nudge):
                    buttons[_LEFT if (self._clock // 6) % 2 else _RIGHT] = 1
            elif float(enemies[0, 4]) < self.close:
                buttons[_FORWARD] = 1
            elif not (steady or nudge):  # close: circle-strafe instead of walking into its fire
                buttons[_LEFT if (self._clock // 6) % 2 else _RIGHT] = 1
            if self.weave:  # never still in its sight: strafe all the time, while firing and aiming too
                buttons[_LEFT] = buttons[_RIGHT] = 0
                buttons[_LEFT if (self._clock // self.weave) % 2 else _RIGHT] = 1
        elif (row := nearest_on_radar(radar)) is not None:
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
        if not self.move:
            buttons[_FORWARD : _RIGHT + 1] = 0
        if self._delta:
            return {"buttons": buttons, "turn": np.array([turn], np.float32)}
        return buttons
