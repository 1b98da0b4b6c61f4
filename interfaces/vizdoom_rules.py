"""ViZDoom rule levels for training: a trigger pressed by rule, and a reward for a game variable's change.

Arena's paper trains its ViZDoom learners with rule-based auto-actions (``PostRuleAction``);
:class:`DoomAutoFire` is that rule for the trigger: it fires when the nearest enemy in view is under
the crosshair, so a policy only learns where to turn and walk. :class:`DoomVariableBonus` pays for
the change of one game variable (``HITCOUNT``: each hit on an enemy), a denser signal than frags,
and :class:`DoomAimShaping` pays for bringing the nearest enemy to the crosshair (potential-based).
Both read ``vizdoom_deathmatch``'s raw ``Dict`` observation, so they sit under the level that
replaces it (``DoomTarget`` or ``DoomScreen``):

``DoomTarget(DoomVariableBonus(DoomActions(DoomAutoFire(), actions="move"), index=4))``.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.interface import Interface
from envs.vizdoom.agents import sharpened
from envs.vizdoom.env import _positive_int
from interfaces._spaces import require_finite
from interfaces.reward import PotentialShaping
from interfaces.vizdoom import _buttons_space

__all__ = ["DoomAimShaping", "DoomAutoFire", "DoomVariableBonus"]

_ATTACK = 0  # the trigger's index in envs.vizdoom.BUTTONS


def _raw_entry(level: Interface, key: str, rows: int | None) -> spaces.Box:
    """The raw observation's Box ``key`` (2-D with 5 columns for the table, 1-D otherwise), or an error."""
    raw = level.inner_observation_space
    found = raw.spaces.get(key) if isinstance(raw, spaces.Dict) else None
    shape_ok = isinstance(found, spaces.Box) and (
        (len(found.shape) == 2 and found.shape[0] >= 1 and found.shape[1] == 5) if rows else len(found.shape) == 1
    )
    if not shape_ok:
        wanted = "an 'enemies' Box (n, 5) (make the env with enemies=True)" if rows else f"a {key!r} Box (k,)"
        raise SpaceMismatchError(f"{level}: needs vizdoom_deathmatch's Dict observation with {wanted}, got {raw}")
    return cast(spaces.Box, found)


class DoomAutoFire(Interface):
    """Press the trigger by rule: when the nearest enemy in view is under the crosshair (``PostRuleAction``).

    The rule owns the ``attack`` button: whatever the model chose, the trigger is pressed exactly
    when the first row of the ``"enemies"`` table is visible and its centre lies within
    ``tolerance`` of the screen's centre, or within 40% of its width, whichever is wider; then
    only once every ``cadence`` steps (Doom's hitscan weapons shoot straight only when the
    trigger was released since the last shot), and never in the first ``hold`` steps of a match
    or after a frag (players respawn invulnerable). Where the observation has a ``"radar"``, the
    enemy's offset and width come from the radar row that matches its label, as ``vizdoom_aim``
    takes them (a label's box follows the sprite, gun arm included:
    :func:`envs.vizdoom.agents.sharpened`). It is ``vizdoom_aim``'s trigger rule, so a learner
    behind it learns to turn and walk, not when to shoot. Observations pass unchanged.

    Edge cases: with nobody in view the trigger stays released; the model's own ``attack`` presses
    are dropped; a frag is a positive reward at this level.

    Args:
        inner: the interface underneath.
        tolerance: the horizontal distance from the centre (a screen fraction) within which it
            fires at any enemy, however small on screen.
        cadence: steps from one press of the trigger to the next.
        hold: steps without firing at a match's start and after each frag.

    Raises:
        InvalidValueError: a tolerance outside (0, 0.5), a cadence below 1 or a negative hold.
        SpaceMismatchError: at setup, for observations without the ``"enemies"`` table or actions
            that are not ViZDoom's 7 buttons.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DoomAutoFire(hold=0)
        >>> itf.setup(spaces.Dict({"enemies": spaces.Box(0.0, 1.0, (1, 5), np.float32)}), spaces.MultiBinary(7))
        >>> centred = {"enemies": np.array([[1, 0.5, 0.5, 0.05, 0.3]], np.float32)}
        >>> _ = itf.transform_reset(centred)
        >>> itf.transform_action(np.zeros(7, np.int8)).tolist()  # the rule fires
        [1, 0, 0, 0, 0, 0, 0]
        >>> _ = itf.transform_observation(centred)
        >>> itf.transform_action(np.ones(7, np.int8)).tolist()  # too soon after the last shot: released
        [0, 1, 1, 1, 1, 1, 1]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        raw = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (12, 16, 1), np.uint8),
                "enemies": spaces.Box(0.0, 1.0, (3, 5), np.float32),
            }
        )
        delta = spaces.Dict({"buttons": spaces.MultiBinary(7), "turn": spaces.Box(-45, 45, (1,), np.float32)})
        with_radar = spaces.Dict({**raw.spaces, "radar": spaces.Box(-1.0, 1.0, (1, 3), np.float32)})
        return [
            (cls(), raw, spaces.MultiBinary(7)),
            (cls(cadence=1, hold=0), raw, delta),
            (cls(hold=0), with_radar, spaces.MultiBinary(7)),  # aims by the radar row that matches the label
        ]

    def __init__(
        self, inner: Interface | None = None, *, tolerance: float = 0.02, cadence: int = 5, hold: int = 28
    ) -> None:
        super().__init__(inner)
        where = type(self).__name__
        if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 < tolerance < 0.5:
            raise InvalidValueError(f"{where}: tolerance must lie in (0, 0.5), got {tolerance!r}")
        self.tolerance = float(tolerance)
        self.cadence, self.hold = _positive_int(where, "cadence", cadence), _positive_int(where, "hold", hold, low=0)
        self._radar = False  # set at setup: whether the observation has a radar to sharpen the aim with
        self._restart()

    def _restart(self) -> None:
        self._clock, self._fired, self._quiet_until, self._aligned = 0, -self.cadence, self.hold, False
        self._pending = False  # this turn's shot, committed at the next observation (a turn may be retried)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        _raw_entry(self, "enemies", rows=True)
        raw = self.inner_observation_space
        radar = raw.spaces.get("radar") if isinstance(raw, spaces.Dict) else None
        self._radar = isinstance(radar, spaces.Box) and len(radar.shape) == 2 and radar.shape[1] == 3
        if _buttons_space(self.inner_action_space) is None:
            raise SpaceMismatchError(
                f"{self}: needs ViZDoom's 7 buttons, MultiBinary(7) or a Dict of 'buttons' and 'turn', as the "
                f"action space, got {self.inner_action_space}"
            )
        self.observation_space, self.action_space = self.inner_observation_space, self.inner_action_space
        self._restart()

    def reset(self, observation: Any) -> None:
        self._restart()

    def observation(self, observation: Any) -> Any:
        if self._pending:
            self._fired, self._pending = self._clock, False
        seen, centre_x, _, width, _ = np.nan_to_num(np.asarray(observation["enemies"], np.float64)[0])
        offset = centre_x - 0.5
        if seen > 0 and self._radar:
            offset, width = sharpened(np.asarray(observation["radar"]), offset, width)
        self._aligned = bool(seen > 0 and abs(offset) <= max(self.tolerance, 0.4 * width))
        self._clock += 1
        return observation

    def action(self, action: Any) -> Any:
        fire = self._aligned and self._clock - self._fired >= self.cadence and self._clock > self._quiet_until
        self._pending = fire
        delta = isinstance(action, dict)  # the delta_turn Dict: buttons and a turn
        buttons = np.array(action["buttons"] if delta else action, np.int8)
        buttons[_ATTACK] = int(fire)
        return {**action, "buttons": buttons} if delta else buttons

    def reward(self, reward: float) -> float:
        if reward > 0:  # a frag: its victim respawns protected
            self._quiet_until = self._clock + self.hold
        return reward

    def _arguments(self) -> str:
        options = [super()._arguments()]
        options += [f"tolerance={self.tolerance:g}"] if self.tolerance != 0.02 else []
        options += [f"cadence={self.cadence}"] if self.cadence != 5 else []
        options += [f"hold={self.hold}"] if self.hold != 28 else []
        return ", ".join(filter(None, options))


class DoomVariableBonus(Interface):
    """Add ``bonus`` times the change of one game variable to each reward (``HITCOUNT``: a reward per hit).

    Frags are rare (``vizdoom_aim`` makes about half a frag a 20 s match against 3 bots); hits come
    several a match, so a bonus per hit gives a learner a denser signal on the way to a frag. The variable is the
    ``index``-th of the env's ``game_variables`` (make the env with them, e.g. ``("HEALTH",
    "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT")`` and ``index=4``). The change is
    signed (a negative bonus on ``HEALTH`` charges for damage taken, and pays for a respawn's
    refill); ``nan`` values change nothing. The first observation of a match pays nothing.
    Observations and actions pass unchanged; tournaments score frags, not this reward.

    Args:
        inner: the interface underneath.
        index: the position of the variable in the ``"variables"`` vector.
        bonus: the reward per unit of change.

    Raises:
        InvalidValueError: a negative index or a bonus that is not a finite number.
        SpaceMismatchError: at setup, for observations without a ``"variables"`` Box with more
            than ``index`` entries.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DoomVariableBonus(index=1, bonus=0.1)
        >>> itf.setup(spaces.Dict({"variables": spaces.Box(-np.inf, np.inf, (2,), np.float32)}), spaces.Discrete(2))
        >>> _ = itf.transform_reset({"variables": np.array([100.0, 3.0], np.float32)})
        >>> _ = itf.transform_observation({"variables": np.array([90.0, 5.0], np.float32)})  # two hits
        >>> round(itf.transform_reward(1.0), 6)
        1.2
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        raw = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (12, 16, 1), np.uint8),
                "variables": spaces.Box(-np.inf, np.inf, (5,), np.float32),
            }
        )
        return [(cls(index=4), raw, spaces.MultiBinary(7)), (cls(index=0, bonus=-0.01), raw, spaces.Discrete(3))]

    def __init__(self, inner: Interface | None = None, *, index: int = 0, bonus: float = 0.1) -> None:
        super().__init__(inner)
        where = type(self).__name__
        self.index = _positive_int(where, "index", index, low=0)
        require_finite(where, bonus=bonus)
        self.bonus = float(bonus)
        self._last: float | None = None
        self._owed = 0.0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        variables = _raw_entry(self, "variables", rows=None)
        if variables.shape[0] <= self.index:
            raise SpaceMismatchError(
                f"{self}: index {self.index} needs at least {self.index + 1} game variables, the observation has "
                f"{variables.shape[0]} (add the variable to the env's game_variables)"
            )
        self.observation_space, self.action_space = self.inner_observation_space, self.inner_action_space
        self._last, self._owed = None, 0.0

    def _value(self, observation: Any) -> float | None:
        value = float(np.asarray(observation["variables"])[self.index])
        return value if np.isfinite(value) else None

    def reset(self, observation: Any) -> None:
        self._last, self._owed = self._value(observation), 0.0

    def observation(self, observation: Any) -> Any:
        value = self._value(observation)
        if value is not None and self._last is not None:
            self._owed += self.bonus * (value - self._last)
        self._last = value if value is not None else self._last
        return observation

    def reward(self, reward: float) -> float:
        owed, self._owed = self._owed, 0.0
        return reward + owed

    def done(self, reward: float, *, terminated: bool, truncated: bool) -> float:
        reward = self.reward(reward)
        self._last = None
        return reward

    def _arguments(self) -> str:
        options = [super()._arguments(), f"index={self.index}"]
        options += [f"bonus={self.bonus:g}"] if self.bonus != 0.1 else []
        return ", ".join(filter(None, options))


class DoomAimShaping(PotentialShaping):
    """Potential-based shaping (Ng et al., 1999) that pays for bringing the nearest enemy to the crosshair.

    The potential of an observation is ``-scale`` times the horizontal distance of the first row
    of the ``"enemies"`` table from the screen's centre (a screen fraction, 0 to 0.5), or
    ``-scale * 0.5`` with nobody in view; each step adds ``gamma * potential(o') - potential(o)``
    (see :class:`~interfaces.reward.PotentialShaping`). Sweeping past an enemy pays nothing on
    balance; turning onto one and staying there pays. Behind :class:`DoomAutoFire` that is what
    makes the rule shoot. Observations and actions pass unchanged.

    Args:
        inner: the interface underneath.
        scale: the potential's weight: turning from nobody in view onto an enemy pays up to ``0.5 * scale``.
        gamma: the discount of the potential difference (the learner's own, for an unchanged optimum).

    Raises:
        InvalidValueError: a scale that is not a positive finite number, or a NaN gamma.
        SpaceMismatchError: at setup, for observations without the ``"enemies"`` table.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DoomAimShaping(gamma=1.0)
        >>> itf.setup(spaces.Dict({"enemies": spaces.Box(0.0, 1.0, (1, 5), np.float32)}), spaces.MultiBinary(7))
        >>> _ = itf.transform_reset({"enemies": np.zeros((1, 5), np.float32)})  # nobody in view: -0.5
        >>> _ = itf.transform_observation({"enemies": np.array([[1, 0.6, 0.5, 0.05, 0.2]], np.float32)})
        >>> round(itf.transform_reward(0.0), 6)  # -0.1 - (-0.5)
        0.4
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        raw = spaces.Dict({"enemies": spaces.Box(0.0, 1.0, (3, 5), np.float32)})
        return [(cls(), raw, spaces.MultiBinary(7)), (cls(scale=2.0, gamma=1.0), raw, spaces.Discrete(4))]

    def __init__(self, inner: Interface | None = None, *, scale: float = 1.0, gamma: float = 0.99) -> None:
        where = type(self).__name__
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale < np.inf:
            raise InvalidValueError(f"{where}: scale must be a positive finite number, got {scale!r}")
        self.scale = float(scale)
        super().__init__(inner, potential=self._aim_potential, gamma=gamma)

    def _aim_potential(self, observation: Any) -> float:
        seen, centre_x = np.nan_to_num(np.asarray(observation["enemies"], np.float64)[0, :2])
        return -self.scale * (min(abs(float(centre_x) - 0.5), 0.5) if seen > 0 else 0.5)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        _raw_entry(self, "enemies", rows=True)

    def _arguments(self) -> str:
        options = [Interface._arguments(self)]
        options += [f"scale={self.scale:g}"] if self.scale != 1.0 else []
        options += [f"gamma={self.gamma:g}"] if self.gamma != 0.99 else []
        return ", ".join(filter(None, options))
