"""Soccer interfaces: feature vectors, continuous-action scaling, reward shaping, team views.

* :class:`SoccerFeatures` — the soccer env's observation dict as one vector in a fixed,
  documented order, optionally with relative features and the previous action appended;
* :class:`RescaleAction` — a model's ``[-1, 1]`` actions clipped and mapped onto the
  walker's bounds;
* :class:`SoccerShaping` — dm_control's ball-chasing and ball-to-goal statistics added to
  the reward (dense signal for training);
* :func:`soccer_team` — ``Combine`` + ``ConcatenateTeam`` so one model drives a whole side.

Example:
    >>> import envs
    >>> env = envs.make("soccer", team_size=1, time_limit=0.25)
    >>> itf = SoccerFeatures(relative=True)
    >>> itf.setup(env.observation_space("home_0"), env.action_space("home_0"))
    >>> obs, _ = env.reset(seed=0)
    >>> itf.transform_reset(obs["home_0"]).shape == itf.observation_space.shape
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, InvalidValueError, SpaceMismatchError
from arena.interface import Combine, Interface
from interfaces._spaces import require_finite
from interfaces.team import ConcatenateTeam

__all__ = ["SoccerFeatures", "RescaleAction", "SoccerShaping", "soccer_team", "shaped_team", "RELATIVE_FEATURES"]

#: The derived features :class:`SoccerFeatures` appends with ``relative=True``, in order.
RELATIVE_FEATURES = (
    "ball_distance",
    "ball_bearing_cos",
    "ball_bearing_sin",
    "opponent_goal_distance",
    "opponent_goal_bearing_cos",
    "opponent_goal_bearing_sin",
    "team_goal_distance",
    "team_goal_bearing_cos",
    "team_goal_bearing_sin",
    "ball_to_opponent_goal_x",
    "ball_to_opponent_goal_y",
)
_RELATIVE_NEEDS = ("ball_ego_position", "opponent_goal_mid", "team_goal_mid")
_SHAPING_NEEDS = ("stats_vel_to_ball", "stats_vel_ball_to_goal")
_BEHIND_NEEDS = ("ball_ego_position", "opponent_goal_mid")


def _box_dict(itf: Interface, space: spaces.Space) -> dict[str, spaces.Box]:
    """The Boxes of a Dict of Box observations (the soccer env's), by key in the Dict's order."""
    boxes = (
        {key: box for key, box in space.spaces.items() if isinstance(box, spaces.Box)}
        if isinstance(space, spaces.Dict)
        else {}
    )
    if not boxes or not isinstance(space, spaces.Dict) or len(boxes) != len(space.spaces):
        raise SpaceMismatchError(f"{itf}: needs a Dict of Box observations (the soccer env's), got {space}")
    return boxes


class SoccerFeatures(Interface):
    """The soccer observation dict as one float vector, in a fixed documented order.

    **Order**: the dict's keys in the order of its ``Dict`` space, which sorts them
    (``ball_ego_angular_velocity, ball_ego_linear_velocity, ball_ego_position,
    body_height, end_effectors_pos, field_back_right, ...``), each value flattened; the
    ``stats_*`` diagnostics (dm_control's game statistics, the score among them) are left
    out unless ``stats=True``; ``keys`` picks and orders the keys explicitly instead.
    :attr:`layout` lists ``(name, start, stop)`` for every block of the vector.

    **Relative features** (``relative=True``, appended after the keys): the distance and
    bearing (cos, sin of the angle from the walker's driving direction, counter-clockwise
    positive) of the ball, the opponents' goal and its own goal, and the vector from the
    ball to the opponents' goal, all in the walker's frame (see :data:`RELATIVE_FEATURES`).

    **Previous action** (``append_action=True``, last): the raw action this interface
    last passed down (zeros at the start of an episode).

    Args:
        inner: the interface underneath (``None``: the env's raw dict).
        keys: the keys to use, in this order (default: all but ``stats_*``).
        stats: with the default keys, keep the ``stats_*`` features too.
        relative: append the relative features.
        append_action: append the previous action.
        dtype: dtype of the vector.

    Raises:
        SpaceMismatchError: at setup, for anything but a Dict of Boxes, a missing key,
            ``relative`` without the ball and goal features, or ``append_action`` with
            non-Box actions.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> box = spaces.Box(-np.inf, np.inf, (3,))
        >>> itf = SoccerFeatures(append_action=True)
        >>> itf.setup(spaces.Dict({"b": box, "a": spaces.Box(0, 1, (1,)), "stats_x": box}),
        ...           spaces.Box(-1, 1, (2,)))
        >>> itf.layout
        [('a', 0, 1), ('b', 1, 4), ('previous_action', 4, 6)]
        >>> obs = {"a": np.array([0.5]), "b": np.array([1.0, 2, 3]), "stats_x": np.zeros(3)}
        >>> itf.transform_reset(obs).tolist()
        [0.5, 1.0, 2.0, 3.0, 0.0, 0.0]
        >>> _ = itf.transform_action(np.array([0.25, -1.0]))
        >>> itf.transform_observation(obs)[-2:].tolist()
        [0.25, -1.0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        box = spaces.Box(-50.0, 50.0, (3,), np.float64)
        soccer_like = spaces.Dict({key: box for key in (*_RELATIVE_NEEDS, "stats_vel_to_ball")})
        return [
            (cls(), soccer_like, spaces.Box(-1.0, 1.0, (3,), np.float64)),
            (cls(relative=True, append_action=True), soccer_like, spaces.Box(-1.0, 1.0, (3,), np.float64)),
        ]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        keys: Sequence[str] | None = None,
        stats: bool = False,
        relative: bool = False,
        append_action: bool = False,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__(inner)
        if keys is not None and (isinstance(keys, str) or not all(isinstance(k, str) for k in keys)):
            raise InvalidTypeError(f"SoccerFeatures: keys must be a sequence of str, got {keys!r}")
        self.keys = None if keys is None else list(keys)
        self.stats, self.relative, self.append_action = bool(stats), bool(relative), bool(append_action)
        self.dtype = np.dtype(dtype)
        self._previous: np.ndarray | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self.inner_observation_space
        boxes = _box_dict(self, space)
        if self.keys is None:
            keys = [k for k in boxes if self.stats or not str(k).startswith("stats_")]
        else:
            missing = [k for k in self.keys if k not in boxes]
            if missing:
                raise SpaceMismatchError(f"{self}: keys {missing} are not in the observation space {space}")
            keys = self.keys
        if not keys and not self.relative and not self.append_action:
            raise SpaceMismatchError(f"{self}: no features left in {space} (only stats_* keys)")
        lows, highs, self.layout = [], [], []
        start = 0
        for key in keys:
            box = boxes[key]
            size = int(np.prod(box.shape))
            lows.append(box.low.reshape(-1).astype(np.float64))
            highs.append(box.high.reshape(-1).astype(np.float64))
            self.layout.append((key, start, start + size))
            start += size
        self._keys = keys
        if self.relative:
            missing = [k for k in _RELATIVE_NEEDS if k not in boxes or boxes[k].shape[-1:] not in ((2,), (3,))]
            if missing:
                raise SpaceMismatchError(
                    f"{self}: relative features need positions {list(_RELATIVE_NEEDS)} in the "
                    f"observation space, missing {missing} in {space}"
                )
            n = len(RELATIVE_FEATURES)
            # distances >= 0, bearings' cos and sin in [-1, 1], the ball-to-goal vector unbounded
            lows.append(np.array([0, -1, -1] * 3 + [-np.inf] * 2, dtype=np.float64))
            highs.append(np.array([np.inf, 1, 1] * 3 + [np.inf] * 2, dtype=np.float64))
            self.layout.append(("relative", start, start + n))
            start += n
        if self.append_action:
            act = self.inner_action_space
            if not isinstance(act, spaces.Box):
                raise SpaceMismatchError(f"{self}: append_action needs Box actions, got {act}")
            self._zero_action = np.clip(np.zeros(act.shape), act.low, act.high).reshape(-1)
            lows.append(act.low.reshape(-1).astype(np.float64))
            highs.append(act.high.reshape(-1).astype(np.float64))
            self.layout.append(("previous_action", start, start + act.low.size))
            start += act.low.size
        low, high = np.concatenate(lows).astype(self.dtype), np.concatenate(highs).astype(self.dtype)
        self._box = spaces.Box(low, high, low.shape, self.dtype)
        self.observation_space = self._box
        self._previous = None

    def reset(self, observation: Any) -> None:
        self._previous = None

    def observation(self, observation: Any) -> np.ndarray:
        parts = [np.asarray(observation[key], dtype=self.dtype).reshape(-1) for key in self._keys]
        if self.relative:
            parts.append(self._relative(observation))
        if self.append_action:
            parts.append((self._zero_action if self._previous is None else self._previous).astype(self.dtype))
        vector = np.concatenate(parts) if parts else np.zeros(0, self.dtype)
        # Keep the vector in its declared bounds after the cast (a float64 bound can round inwards).
        return np.clip(vector, self._box.low, self._box.high)

    def _relative(self, observation: Any) -> np.ndarray:
        ball, own, theirs = (
            np.asarray(observation[k], dtype=np.float64).reshape(-1)[:2]
            for k in ("ball_ego_position", "team_goal_mid", "opponent_goal_mid")
        )
        values = []
        for point in (ball, theirs, own):
            distance = float(np.hypot(point[0], point[1]))
            # BoxHead drives along -x: bearings are measured from there.
            angle = np.arctan2(-point[1], -point[0])
            values += [distance, np.cos(angle), np.sin(angle)]
        values += list(theirs - ball)
        return np.nan_to_num(np.asarray(values, dtype=self.dtype))

    def action(self, action: Any) -> Any:
        if self.append_action:
            self._previous = np.asarray(action, dtype=np.float64).reshape(-1).copy()
        return action

    def action_mask(self, mask: Any) -> Any:
        return mask  # actions pass unchanged

    def _arguments(self) -> str:
        options = [
            f"keys={self.keys!r}" if self.keys is not None else "",
            "stats=True" if self.stats else "",
            "relative=True" if self.relative else "",
            "append_action=True" if self.append_action else "",
        ]
        return ", ".join(filter(None, [super()._arguments(), *options]))


class RescaleAction(Interface):
    """Clip a model's continuous action to ``[low, high]`` and map it onto the raw Box's bounds.

    A policy with Gaussian outputs acts in ``Box(low, high)`` (``[-1, 1]`` by default);
    each component is clipped there (``clip=True``) and mapped affinely onto the raw
    action's finite bounds, so the env never sees an out-of-range action.

    Args:
        inner: the interface underneath.
        low, high: the model's action bounds (``low < high``).
        clip: clip the model's action into ``[low, high]`` first (otherwise an action
            outside is mapped outside the raw bounds and the env rejects it).

    Raises:
        SpaceMismatchError: at setup, for actions other than a float Box with finite bounds.
        ValueError: ``low >= high``.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = RescaleAction()
        >>> itf.setup(spaces.Discrete(2), spaces.Box(np.array([0.0, -2.0]), np.array([10.0, 2.0]), dtype=np.float64))
        >>> itf.action_space
        Box(-1.0, 1.0, (2,), float32)
        >>> itf.transform_action(np.array([0.5, 3.0])).tolist()  # 3.0 is clipped to 1.0
        [7.5, 2.0]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (
                cls(),
                spaces.Box(-1.0, 1.0, (2,)),
                spaces.Box(np.array([0.0, -2.0]), np.array([10.0, 2.0]), dtype=np.float64),
            )
        ]

    def __init__(
        self, inner: Interface | None = None, *, low: float = -1.0, high: float = 1.0, clip: bool = True
    ) -> None:
        super().__init__(inner)
        if not np.isfinite(low) or not np.isfinite(high) or not low < high:
            raise InvalidValueError(f"RescaleAction: needs finite low < high, got low={low!r}, high={high!r}")
        self.low, self.high, self.clip = float(low), float(high), bool(clip)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        raw = self._require_space(spaces.Box, "action")
        if not np.issubdtype(raw.dtype, np.floating) or not (
            np.all(np.isfinite(raw.low)) and np.all(np.isfinite(raw.high))
        ):
            raise SpaceMismatchError(f"{self}: needs a float Box action with finite bounds, got {raw}")
        self._raw_low, self._raw_high = raw.low.astype(np.float64), raw.high.astype(np.float64)
        self._raw_dtype = raw.dtype
        self.action_space = spaces.Box(self.low, self.high, raw.shape, np.float32)

    def action(self, action: Any) -> np.ndarray:
        action = np.asarray(action, dtype=np.float64)
        if self.clip:
            action = np.clip(action, self.low, self.high)
        fraction = (action - self.low) / (self.high - self.low)
        raw = self._raw_low + fraction * (self._raw_high - self._raw_low)
        # float rounding must not step outside the raw bounds
        return np.clip(raw, self._raw_low, self._raw_high).astype(self._raw_dtype)

    def action_mask(self, mask: Any) -> Any:
        return self._untranslatable_mask(mask)

    def _arguments(self) -> str:
        options = [
            f"low={self.low:g}" if self.low != -1 else "",
            f"high={self.high:g}" if self.high != 1 else "",
            "clip=False" if not self.clip else "",
        ]
        return ", ".join(filter(None, [super()._arguments(), *options]))


class SoccerShaping(Interface):
    """Add dm_control's ball statistics to the reward: a dense signal for learning soccer.

    After each decision the reward gains ``ball * stats_vel_to_ball + goal *
    stats_vel_ball_to_goal`` from the latest observation this interface saw (the state
    the action led to, in simultaneous play): the walker's speed towards the ball and the
    ball's speed towards the opponents' goal, in m/s (Liu et al. 2019 shaped with these).

    With ``behind > 0`` it also pays for getting behind the ball, the first move of
    :class:`~envs.soccer.agents.SoccerChaserAgent`: the spot ``behind_by`` metres behind
    the ball on the line from the opponents' goal through it. That term is a potential,
    ``-behind * distance to the spot`` (egocentric, so the walker's turning does not
    change it); each decision pays its change, so running in circles earns nothing and a
    whole approach earns ``behind`` per metre gained. Pushing the ball away from the goal
    moves the spot with it and earns nothing (the ``goal`` term charges for it). With
    ``around=True`` the distance from the goal's side of the ball is measured along a path
    round it, by the point ``behind_by`` beside the ball on the walker's side, so running
    straight through the ball towards the spot is not the shortest way there.

    Over a team's Tuple of observations the members' terms are averaged (absent members
    skipped). Goals keep their +1/-1. It reads the raw dicts, so it sits innermost
    (under :class:`arena.Combine` for a team).

    Args:
        inner: the interface underneath (keep ``None``).
        ball: weight of the speed towards the ball.
        goal: weight of the ball's speed towards the goal.
        behind: weight, per metre, of the approach to the spot behind the ball (0: off).
        behind_by: how far behind the ball that spot is, in metres (positive).
        around: measure the approach from the goal's side of the ball round it.

    Raises:
        ValueError: a weight is not a finite number, or ``behind_by`` is not positive.
        SpaceMismatchError: at setup, unless observations are Dicts (or a Tuple of Dicts)
            with ``stats_vel_to_ball`` and ``stats_vel_ball_to_goal`` (and, with
            ``behind``, ``ball_ego_position`` and ``opponent_goal_mid``).

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> box = spaces.Box(-np.inf, np.inf, (1,))
        >>> itf = SoccerShaping(ball=0.1, goal=1.0)
        >>> itf.setup(spaces.Dict({"stats_vel_to_ball": box, "stats_vel_ball_to_goal": box}),
        ...           spaces.Box(-1, 1, (3,)))
        >>> _ = itf.transform_reset({"stats_vel_to_ball": np.array([2.0]), "stats_vel_ball_to_goal": np.array([0.5])})
        >>> round(itf.transform_reward(1.0), 6)
        1.7
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        box = spaces.Box(-10.0, 10.0, (1,), np.float64)
        return [(cls(), spaces.Dict({key: box for key in _SHAPING_NEEDS}), spaces.Box(-1.0, 1.0, (3,)))]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        ball: float = 0.001,
        goal: float = 0.003,
        behind: float = 0.0,
        behind_by: float = 2.5,
        around: bool = False,
    ) -> None:
        super().__init__(inner)
        require_finite("SoccerShaping", ball=ball, goal=goal, behind=behind, behind_by=behind_by)
        if behind_by <= 0:
            raise InvalidValueError(
                f"SoccerShaping: behind_by must be positive (metres behind the ball), got {behind_by!r}"
            )
        if not isinstance(around, bool):
            raise InvalidValueError(f"SoccerShaping: around must be True or False, got {around!r}")
        self.ball, self.goal = float(ball), float(goal)
        self.behind, self.behind_by, self.around = float(behind), float(behind_by), around
        self._latest: Any = None
        self._potential = self._previous_potential = 0.0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        space = self.inner_observation_space
        members = list(space.spaces) if isinstance(space, spaces.Tuple) else [space]
        needs = _SHAPING_NEEDS + (_BEHIND_NEEDS if self.behind else ())
        for member in members:
            if not isinstance(member, spaces.Dict) or any(k not in member.spaces for k in needs):
                raise SpaceMismatchError(
                    f"{self}: needs Dict observations (or a Tuple of them) with {list(needs)}, got {space}"
                )
        self._team = isinstance(space, spaces.Tuple)
        self._latest = None

    def reset(self, observation: Any) -> None:
        self._latest = None
        self._potential = self._behind_potential(observation)

    def observation(self, observation: Any) -> Any:
        self._latest = observation
        self._previous_potential, self._potential = self._potential, self._behind_potential(observation)
        return observation

    def _members(self, observation: Any) -> list[Any]:
        return [m for m in observation if m is not None] if self._team else [observation]

    def _behind_potential(self, observation: Any) -> float:
        """``-behind`` times the mean distance of the members to the spot behind the ball (0 when off)."""
        members = self._members(observation) if self.behind else []
        if not members:
            return 0.0
        distances = [_distance_to_spot_behind_ball(m, self.behind_by, self.around) for m in members]
        return -self.behind * sum(distances) / len(members)

    def action_mask(self, mask: Any) -> Any:
        return mask

    def reward(self, reward: Any) -> Any:
        if self._latest is None or isinstance(reward, tuple):
            return reward
        members = self._members(self._latest)
        if not members:
            return reward
        bonus = sum(
            self.ball * float(np.sum(m["stats_vel_to_ball"])) + self.goal * float(np.sum(m["stats_vel_ball_to_goal"]))
            for m in members
        ) / len(members)
        return float(reward) + bonus + (self._potential - self._previous_potential)

    def _arguments(self) -> str:
        behind = [f"behind={self.behind:g}", f"behind_by={self.behind_by:g}"] if self.behind else []
        behind += ["around=True"] if self.behind and self.around else []
        return ", ".join(filter(None, [super()._arguments(), f"ball={self.ball:g}", f"goal={self.goal:g}", *behind]))


def _distance_to_spot_behind_ball(observation: Any, behind_by: float, around: bool = False) -> float:
    """Metres from the walker (the egocentric origin) to the spot ``behind_by`` behind the ball, seen from the goal;
    with ``around``, from the goal's side of the ball by the point ``behind_by`` beside it on the walker's side."""
    ball = np.asarray(observation["ball_ego_position"], dtype=float).reshape(-1)[:2]
    goal = np.asarray(observation["opponent_goal_mid"], dtype=float).reshape(-1)[:2]
    to_goal = goal - ball
    length = float(np.hypot(*to_goal))
    if length == 0.0:
        return float(np.hypot(*ball))
    ahead = to_goal / length
    spot = ball - ahead * behind_by
    if not around or float(ball @ ahead) >= 0.0:  # the walker is level with the ball or behind it
        return float(np.hypot(*spot))
    across = np.array([-ahead[1], ahead[0]])
    side = 1.0 if float(-ball @ across) >= 0.0 else -1.0  # the side of the ball's line the walker is on
    beside = ball + across * (side * behind_by)
    return float(np.hypot(*beside)) + float(np.hypot(*(spot - beside)))


def soccer_team(
    inner: Interface | None = None, *, team_size: int = 2, normalize: bool = False, **features: Any
) -> Interface:
    """One model's view of a whole side: ``ConcatenateTeam(Combine(inner, [member] * team_size))``.

    Each member's raw dict goes through ``RescaleAction(SoccerFeatures(**features))``
    (optionally under ``NormalizeObservation``); :class:`~interfaces.ConcatenateTeam`
    joins the members' vectors into one observation and splits one ``[-1, 1]`` action
    vector into the members' actions, so a single-agent policy drives every teammate.

    Args:
        inner: what ``Combine`` sits on: ``None`` (the raw Tuple) or a team-level
            interface on the raw dicts, such as :class:`SoccerShaping`.
        team_size: players in the side.
        normalize: put each member's features under a running ``NormalizeObservation``.
        **features: options for each member's :class:`SoccerFeatures`.

    Example:
        >>> str(soccer_team(team_size=2, relative=True))
        'ConcatenateTeam(Combine(None, [RescaleAction(SoccerFeatures(relative=True)), RescaleAction(SoccerFeatures(relative=True))]))'
    """
    if isinstance(team_size, bool) or not isinstance(team_size, int) or team_size < 1:
        raise InvalidValueError(f"soccer_team: team_size must be a positive integer, got {team_size!r}")
    members: list[Interface] = []
    for _ in range(team_size):
        member: Interface = SoccerFeatures(**features)
        if normalize:
            from interfaces.history import NormalizeObservation

            member = NormalizeObservation(member)
        members.append(RescaleAction(member))
    return ConcatenateTeam(Combine(inner, members))


def shaped_team(inner: Interface | None = None, *, team_size: int = 2) -> Interface:
    """The team view ``arena train soccer --control team`` learns with (name it in ``--interface``).

    ``soccer_team(SoccerShaping(), team_size=team_size, normalize=True, relative=True)``
    (``inner`` replaces the shaping): relative features, running normalisation per member,
    ``[-1, 1]`` actions, and the ball-statistics shaping on top of the goals.

    Example:
        >>> str(shaped_team(team_size=1)).startswith('ConcatenateTeam(Combine(SoccerShaping(ball=0.001, goal=0.003), [')
        True
    """
    return soccer_team(SoccerShaping() if inner is None else inner, team_size=team_size, normalize=True, relative=True)
