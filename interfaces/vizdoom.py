"""ViZDoom interfaces: a small discrete action set, the frame a CNN wants, and the target an MLP wants.

``vizdoom_deathmatch`` observes a ``Dict`` with ``"screen"`` (``(height, width, channels)``
uint8), ``"variables"`` (float32 game variables) and optionally ``"enemies"``, and acts with
the 7 buttons of ``envs.vizdoom.BUTTONS`` as ``MultiBinary(7)`` (or a ``Dict`` of
``"buttons"`` and a ``"turn"`` Box with ``delta_turn=True``). A typical training stack:
``FrameStack(DoomScreen(DoomActions(), size=(60, 80)), frames=4)``: ``Discrete(10)``
actions and ``(4, 60, 80)`` uint8 frames, an image for a CNN policy. ``DoomTarget(DoomActions())`` reads
the labels instead of the screen: the nearest enemy in view and the game variables, a vector for an MLP.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.interface import Interface
from envs.vizdoom.agents import nearest_on_radar

__all__ = ["DoomActions", "DoomScreen", "DoomTarget", "ACTION_SETS"]

_BUTTON_NAMES = ("attack", "forward", "backward", "strafe_left", "strafe_right", "turn_left", "turn_right")
#: Named combinations of buttons; each name joins button names with ``+``.
ACTION_SETS = {
    "default": (
        "forward",
        "backward",
        "turn_left",
        "turn_right",
        "attack",
        "forward+attack",
        "turn_left+attack",
        "turn_right+attack",
        "strafe_left",
        "strafe_right",
    ),
    "minimal": ("forward", "turn_left", "turn_right", "attack"),
    # No trigger: for a learner behind a rule that fires (interfaces.vizdoom_rules.DoomAutoFire).
    "move": (
        "forward",
        "backward",
        "turn_left",
        "turn_right",
        "forward+turn_left",
        "forward+turn_right",
        "strafe_left",
        "strafe_right",
    ),
    # Every way to walk, turn and strafe at once (26, no trigger): a scripted teacher backing off while it
    # strafes and turns (vizdoom_aim's keep and weave) presses three buttons in one step.
    "all_moves": tuple(
        "+".join(filter(None, combo))
        for combo in product(
            ("", "forward", "backward"), ("", "turn_left", "turn_right"), ("", "strafe_left", "strafe_right")
        )
        if any(combo)
    ),
}
_GREY = np.array([0.299, 0.587, 0.114], np.float32)  # ITU-R 601 luma


def _checked_scale(where: str, variable_scale: Any) -> float:
    """``variable_scale`` as a float, or an error naming ``where``: it must be a positive number."""
    if isinstance(variable_scale, bool) or not isinstance(variable_scale, (int, float)) or not variable_scale > 0:
        raise InvalidValueError(f"{where}: variable_scale must be a positive number, got {variable_scale!r}")
    return float(variable_scale)


def _scaled_variables(variables: Any, scale: float) -> np.ndarray:
    """Game variables divided by ``scale`` and clipped to [-10, 10], ``nan`` read as 0 (float32)."""
    values = np.asarray(variables, np.float32) / np.float32(scale)
    return np.clip(np.nan_to_num(values), -10.0, 10.0).astype(np.float32)


def _buttons_space(action_space: spaces.Space) -> spaces.Space | None:
    if isinstance(action_space, spaces.Dict) and set(action_space.spaces) == {"buttons", "turn"}:
        action_space = action_space.spaces["buttons"]
    if isinstance(action_space, spaces.MultiBinary) and tuple(action_space.shape) == (len(_BUTTON_NAMES),):
        return action_space
    return None


class DoomActions(Interface):
    """A small ``Discrete`` action set (forward, turn, attack, ... and combinations) for ViZDoom's buttons.

    Each action is a combination of the buttons ``attack``, ``forward``, ``backward``,
    ``strafe_left``, ``strafe_right``, ``turn_left`` and ``turn_right``, written with ``+``
    (``"forward+attack"``). Action ``i`` presses the buttons of ``actions[i]`` for the step
    (and no delta turn, when the env has one). Observations pass unchanged.

    Args:
        inner: the interface underneath.
        actions: a name from :data:`ACTION_SETS` (``"default"``: 10 actions, ``"minimal"``:
            4, ``"move"``: 8 without the trigger, ``"all_moves"``: the 26 ways to walk, turn and strafe at
            once, without the trigger) or a sequence of combinations.

    Raises:
        ValueError: an unknown set name or button name, or an empty or repeated set.
        SpaceMismatchError: at setup, for an action space other than ``MultiBinary(7)`` (or
            its ``delta_turn`` Dict).

    Example:
        >>> from gymnasium import spaces
        >>> itf = DoomActions(actions=["forward", "turn_left+attack"])
        >>> itf.setup(spaces.Dict({}), spaces.MultiBinary(7))
        >>> itf.action_space, itf.transform_action(1).tolist()
        (Discrete(2), [1, 0, 0, 0, 0, 1, 0])
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        screen = spaces.Box(0, 255, (12, 16, 3), np.uint8)
        delta = spaces.Dict({"buttons": spaces.MultiBinary(7), "turn": spaces.Box(-45, 45, (1,), np.float32)})
        return [
            (cls(), spaces.Dict({"screen": screen}), spaces.MultiBinary(7)),
            (cls(actions="minimal"), screen, delta),
        ]

    def __init__(self, inner: Interface | None = None, *, actions: str | Sequence[str] = "default") -> None:
        super().__init__(inner)
        where = type(self).__name__
        if isinstance(actions, str):
            if actions not in ACTION_SETS:
                raise InvalidValueError(
                    f"{where}: actions must be one of {sorted(ACTION_SETS)} or a sequence of button "
                    f"combinations, got {actions!r}"
                )
            self.set_name: str | None = actions
            actions = ACTION_SETS[actions]
        else:
            self.set_name = None
        combos = tuple(actions)
        if not combos or len(set(combos)) != len(combos) or not all(isinstance(c, str) for c in combos):
            raise InvalidValueError(f"{where}: actions must be distinct button combinations, got {list(combos)!r}")
        table = np.zeros((len(combos), len(_BUTTON_NAMES)), np.int8)
        for row, combo in zip(table, combos):
            for name in combo.split("+"):
                if name not in _BUTTON_NAMES:
                    raise InvalidValueError(
                        f"{where}: unknown button {name!r} in {combo!r}; buttons: {', '.join(_BUTTON_NAMES)}"
                    )
                row[_BUTTON_NAMES.index(name)] = 1
        self.actions, self._table = combos, table

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        inner = self.inner_action_space
        if _buttons_space(inner) is None:
            raise SpaceMismatchError(
                f"{self}: needs ViZDoom's 7 buttons, MultiBinary(7) or a Dict of 'buttons' and "
                f"'turn', as the action space, got {inner}"
            )
        self._delta = isinstance(inner, spaces.Dict)
        self._no_turn = np.zeros(1, np.float32)
        self.observation_space = self.inner_observation_space
        self.action_space = spaces.Discrete(len(self.actions))

    def action(self, action: Any) -> Any:
        buttons = self._table[int(action)].copy()
        return {"buttons": buttons, "turn": self._no_turn.copy()} if self._delta else buttons

    def _arguments(self) -> str:
        chosen = f"actions={self.set_name!r}" if self.set_name else f"actions={list(self.actions)!r}"
        return ", ".join(filter(None, [super()._arguments(), "" if self.set_name == "default" else chosen]))


class DoomScreen(Interface):
    """The ViZDoom frame resized and grey-scaled (or RGB), optionally with the normalised game variables.

    Takes the ``"screen"`` entry (``(height, width, 1 or 3)`` uint8) of the observation, or a
    Box image itself, and resizes it to ``size`` by picking evenly spaced pixels. Grey frames
    are ``(height, width)`` (stack them with :class:`~interfaces.FrameStack` into channels
    first); RGB frames are ``(3, height, width)``. With ``variables=True`` the result is a
    ``Dict`` of that ``"screen"`` and ``"variables"``: the game variables divided by
    ``variable_scale`` and clipped to [-10, 10] (for a multi-input policy).

    Args:
        inner: the interface underneath.
        size: ``(height, width)`` of the output frame.
        grey: grey-scale (ITU-R 601 luma) instead of RGB.
        variables: also pass the normalised ``"variables"`` entry.
        variable_scale: what one unit of a normalised variable is (health 100 -> 1.0).

    Raises:
        ValueError: a bad size or scale.
        SpaceMismatchError: at setup, for observations without an image (a uint8 Box of shape
            ``(height, width, 1 or 3)``), or ``variables=True`` without a ``"variables"`` Box.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DoomScreen(size=(2, 2))
        >>> itf.setup(spaces.Dict({"screen": spaces.Box(0, 255, (4, 4, 3), np.uint8)}), spaces.MultiBinary(7))
        >>> frame = np.full((4, 4, 3), 200, np.uint8)
        >>> itf.observation_space.shape, itf.transform_observation({"screen": frame}).tolist()
        ((2, 2), [[200, 200], [200, 200]])
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        raw = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (12, 16, 3), np.uint8),
                "variables": spaces.Box(-np.inf, np.inf, (3,), np.float32),
            }
        )
        return [
            (cls(size=(6, 8)), raw, spaces.MultiBinary(7)),
            (cls(size=(6, 8), grey=False, variables=True), raw, spaces.MultiBinary(7)),
        ]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        size: tuple[int, int] = (60, 80),
        grey: bool = True,
        variables: bool = False,
        variable_scale: float = 100.0,
    ) -> None:
        super().__init__(inner)
        where = type(self).__name__
        if not (
            isinstance(size, (tuple, list))
            and len(size) == 2
            and all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n > 0 for n in size)
        ):
            raise InvalidValueError(f"{where}: size must be (height, width) with positive integers, got {size!r}")
        self.size = (int(size[0]), int(size[1]))
        self.grey, self.variables, self.variable_scale = (
            bool(grey),
            bool(variables),
            _checked_scale(where, variable_scale),
        )

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        raw = self.inner_observation_space
        self._keyed = isinstance(raw, spaces.Dict)
        screen = raw.spaces.get("screen") if isinstance(raw, spaces.Dict) else raw
        if not (
            isinstance(screen, spaces.Box)
            and screen.dtype == np.uint8
            and len(screen.shape) == 3
            and screen.shape[2] in (1, 3)
        ):
            raise SpaceMismatchError(
                f"{self}: needs an image, a uint8 Box (height, width, 1 or 3), or a Dict with "
                f"one as 'screen', as the observation space, got {raw}"
            )
        height, width, channels = screen.shape
        self._rows = (np.arange(self.size[0]) * height // self.size[0])[:, None]
        self._columns = (np.arange(self.size[1]) * width // self.size[1])[None, :]
        self._channels = channels
        shape = self.size if self.grey else (3, *self.size)
        frame = spaces.Box(0, 255, shape, np.uint8)
        if self.variables:
            found = raw.spaces.get("variables") if isinstance(raw, spaces.Dict) else None
            if not (isinstance(found, spaces.Box) and len(found.shape) == 1):
                raise SpaceMismatchError(
                    f"{self}: variables=True needs a 'variables' Box (n,) in the observation, got {raw}"
                )
            self.observation_space = spaces.Dict(
                {"screen": frame, "variables": spaces.Box(-10.0, 10.0, found.shape, np.float32)}
            )
        else:
            self.observation_space = frame

    def observation(self, observation: Any) -> Any:
        image = np.asarray(observation["screen"] if self._keyed else observation)[self._rows, self._columns]
        if self.grey:
            frame = image[:, :, 0].copy() if self._channels == 1 else (image @ _GREY).astype(np.uint8)
        else:
            frame = np.repeat(image, 3, axis=2) if self._channels == 1 else image
            frame = np.ascontiguousarray(np.moveaxis(frame, 2, 0))
        if not self.variables:
            return frame
        return {"screen": frame, "variables": _scaled_variables(observation["variables"], self.variable_scale)}

    def _arguments(self) -> str:
        options = [super()._arguments(), f"size={self.size}"]
        if not self.grey:
            options.append("grey=False")
        if self.variables:
            options.append("variables=True")
        if self.variable_scale != 100.0:
            options.append(f"variable_scale={self.variable_scale:g}")
        return ", ".join(filter(None, options))


class DoomTarget(Interface):
    """The nearest enemy in view and the normalised game variables, as one flat vector for an MLP policy.

    Ground truth from the engine's labels, as Arena's ``SegmentationAsObs`` gives its learners in
    training: the first row of the ``"enemies"`` table (``[visible, centre x, centre y, width,
    height]`` as screen fractions, the tallest enemy on screen; all zero when nobody is in view),
    then the ``"variables"`` divided by ``variable_scale`` and clipped to [-10, 10] (``nan`` reads 0).
    Only the first row is kept, so the vector has the same size whatever the table's rows: a policy
    trained alone against bots (``players=1, bots=3``: 3 rows) plays the 2-player match (1 row).
    The env must be made with ``enemies=True``; the screen is not read.

    With ``radar=True`` three more values follow: the nearest row of the ``"radar"`` (``[1,
    bearing, distance]``: where the nearest other player is, seen or not; the privileged
    information ``vizdoom_aim`` seeks with), or zeros where the observation has no radar (alone
    against bots, who are not on it).

    Args:
        inner: the interface underneath.
        variables: also pass the normalised game variables (after the 5 target values).
        variable_scale: what one unit of a normalised variable is (health 100 -> 1.0).
        radar: also pass the nearest player on the radar (last).

    Raises:
        InvalidValueError: a scale that is not a positive number.
        SpaceMismatchError: at setup, for observations without an ``"enemies"`` Box ``(n, 5)``, or
            ``variables=True`` without a ``"variables"`` Box ``(k,)``, or ``radar=True`` with a
            ``"radar"`` entry that is not a Box ``(n, 3)``.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = DoomTarget()
        >>> table, variables = spaces.Box(0.0, 1.0, (3, 5), np.float32), spaces.Box(-np.inf, np.inf, (1,), np.float32)
        >>> itf.setup(spaces.Dict({"enemies": table, "variables": variables}), spaces.MultiBinary(7))
        >>> seen = np.array([[1, 0.25, 0.5, 0.1, 0.3], [1, 0.75, 0.5, 0.05, 0.1], [0, 0, 0, 0, 0]], np.float32)
        >>> itf.transform_observation({"enemies": seen, "variables": np.array([150.0], np.float32)}).tolist()
        [1.0, 0.25, 0.5, 0.10000000149011612, 0.30000001192092896, 1.5]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        raw = spaces.Dict(
            {
                "screen": spaces.Box(0, 255, (12, 16, 1), np.uint8),
                "variables": spaces.Box(-np.inf, np.inf, (3,), np.float32),
                "enemies": spaces.Box(0.0, 1.0, (3, 5), np.float32),
            }
        )
        with_radar = spaces.Dict({**raw.spaces, "radar": spaces.Box(-1.0, 1.0, (2, 3), np.float32)})
        return [
            (cls(), raw, spaces.MultiBinary(7)),
            (cls(variables=False), raw, spaces.MultiBinary(7)),
            (cls(radar=True), with_radar, spaces.MultiBinary(7)),
            (cls(radar=True), raw, spaces.MultiBinary(7)),
        ]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        variables: bool = True,
        variable_scale: float = 100.0,
        radar: bool = False,
    ) -> None:
        super().__init__(inner)
        self.variables, self.variable_scale = bool(variables), _checked_scale(type(self).__name__, variable_scale)
        self.radar = bool(radar)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        raw = self.inner_observation_space
        table = raw.spaces.get("enemies") if isinstance(raw, spaces.Dict) else None
        if not (
            isinstance(table, spaces.Box) and len(table.shape) == 2 and table.shape[0] >= 1 and table.shape[1] == 5
        ):
            raise SpaceMismatchError(
                f"{self}: needs vizdoom_deathmatch's 'enemies' table, a Box (n, 5), in a Dict observation (make "
                f"the env with enemies=True), got {raw}"
            )
        count = 0
        if self.variables:
            found = raw.spaces.get("variables") if isinstance(raw, spaces.Dict) else None
            if not (isinstance(found, spaces.Box) and len(found.shape) == 1):
                raise SpaceMismatchError(
                    f"{self}: variables=True needs a 'variables' Box (k,) in the observation, got {raw}"
                )
            count = found.shape[0]
        radar = raw.spaces.get("radar") if self.radar and isinstance(raw, spaces.Dict) else None
        if (
            self.radar
            and radar is not None
            and not (isinstance(radar, spaces.Box) and len(radar.shape) == 2 and radar.shape[1] == 3)
        ):
            raise SpaceMismatchError(f"{self}: radar=True needs the 'radar' Box (n, 3) or none, got {radar}")
        self._read_radar = isinstance(radar, spaces.Box) and radar.shape[0] > 0
        extra = 3 if self.radar else 0
        low = np.concatenate([np.zeros(5), np.full(count, -10.0), np.full(extra, -1.0)]).astype(np.float32)
        high = np.concatenate([np.ones(5), np.full(count, 10.0), np.ones(extra)]).astype(np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._no_radar = np.zeros(3, np.float32)

    def observation(self, observation: Any) -> Any:
        target = np.clip(np.nan_to_num(np.asarray(observation["enemies"], np.float32)[0]), 0.0, 1.0)
        parts = [target]
        if self.variables:
            parts.append(_scaled_variables(observation["variables"], self.variable_scale))
        if self.radar:
            parts.append(self._nearest_on_radar(observation) if self._read_radar else self._no_radar)
        return np.concatenate(parts) if len(parts) > 1 else target

    def _nearest_on_radar(self, observation: Any) -> np.ndarray:
        rows = np.clip(np.nan_to_num(np.asarray(observation["radar"], np.float32)), -1.0, 1.0)
        row = nearest_on_radar(rows)
        return self._no_radar if row is None else row

    def _arguments(self) -> str:
        options = [super()._arguments()]
        if not self.variables:
            options.append("variables=False")
        if self.variable_scale != 100.0:
            options.append(f"variable_scale={self.variable_scale:g}")
        if self.radar:
            options.append("radar=True")
        return ", ".join(filter(None, options))
