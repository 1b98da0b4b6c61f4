"""MuJoCo soccer (dm_control's ``locomotion.soccer``) as an arena env: two teams, continuous control."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import MultiAgentEnv
from arena.errors import ArenaError, InvalidValueError
from envs.soccer._dm import WALKERS, load_dm_soccer

__all__ = ["Soccer", "ACTION_NAMES"]

#: BoxHead's actions, in order: drive forwards/backwards, turn, kick.
ACTION_NAMES = ("roll", "steer", "kick")
_MAX_TEAM_SIZE = 3


_MIN_RENDER_HEIGHT, _MAX_RENDER_HEIGHT = 48, 2160  # pictures are 4/3 as wide: up to 2880 x 2160


def _check_number(where: str, name: str, value: Any, *, integer: bool = False) -> None:
    kinds = (int, np.integer) if integer else (int, float, np.integer, np.floating)
    if isinstance(value, bool) or not isinstance(value, kinds) or not value > 0 or not np.isfinite(value):
        raise InvalidValueError(
            f"{where}: {name} must be a positive {'integer' if integer else 'number'}, got {value!r}"
        )


class Soccer(MultiAgentEnv):
    """Team soccer on DeepMind Control's MuJoCo pitch (``dm_control.locomotion.soccer``).

    **Players**: ``home_0 ... home_{n-1}`` and ``away_0 ... away_{n-1}`` for ``team_size``
    n (1-3), declared as two teams in :attr:`teams` (``{"home": (...), "away": (...)}``).
    Every player acts at every step (simultaneous moves); a step is 0.025 s of game time
    (5 physics steps of 5 ms), so the default 45 s match lasts at most 1,800 steps. The
    home team (blue) attacks towards +x, the away team (red) towards -x. The pitch size
    is drawn at random at every reset (dm_control's ``RandomizedPitch``); players and
    ball start at random places.

    **Observation** per player: the feature dict dm_control gives that player, as a
    ``Dict`` of float64 ``Box`` es (keys sorted, the batch dimension dropped): its own body
    (``body_height``, ``joints_pos``, ``joints_vel``, ``prev_action``, ``sensors_*``,
    ``world_zaxis``, ``end_effectors_pos``), the ball in its own frame (``ball_ego_*``),
    each teammate and opponent in its own frame (``teammate_i_*``, ``opponent_i_*``), goal
    and field corners in its own frame (``team_goal_*``, ``opponent_goal_*``,
    ``field_*``) and dm_control's ``stats_*`` diagnostics (velocity to the ball, the
    score, ...; the boolean ``stats_teammate_spread_out`` as 0.0/1.0). Bounds are
    infinite except for ``prev_action`` (the action bounds).

    **Action** per player: the walker's continuous controls as ``Box(-1, 1, (3,),
    float64)`` for the default BoxHead walker: ``roll`` (drive forwards > 0, backwards
    < 0), ``steer`` (turn) and ``kick``; other walkers (``"ant"``, ``"humanoid"``) have
    their actuators' bounds and sizes. Actions outside the box are rejected.

    **Rewards** as dm_control gives them: when a goal is scored, +1 to every player of
    the scoring side and -1 to every player of the other; 0 otherwise. With
    ``terminate_on_goal`` (default) a goal ends the episode (every player
    *terminates*); otherwise play restarts from new random positions and goes on.
    Reaching ``time_limit`` *truncates* every player (dm_control's discount stays 1).

    **Determinism**: ``reset(seed=s)`` draws the pitch size, the starting positions and
    the throw-ins from ``s``; the same seed and the same actions give the same episode
    (bit for bit on one machine and MuJoCo build). Copies and pickles replay the current
    episode's seed and actions into a fresh dm_control env, so they continue exactly.

    **Rendering**: ``render_mode="rgb_array"`` draws the pitch from above with numpy
    and Pillow (pitch, goals in team colours, players as team-coloured discs with a
    heading tick, the ball), ``render_height`` x ``4/3 * render_height`` pixels at any
    pitch size; it needs no OpenGL and costs about a millisecond.
    ``render_mode="camera"`` is MuJoCo's own top-down camera, which needs OpenGL
    (``MUJOCO_GL=egl`` or ``osmesa`` set before dm_control is first imported).

    ``infos[agent]`` holds ``"score"``: ``(home goals, away goals)`` so far and ``"time"``
    (game seconds elapsed).

    Args:
        team_size: players per side, 1 to 3.
        time_limit: the match length in game seconds (45, dm_control's default).
        walker: ``"boxhead"`` (default), ``"ant"`` or ``"humanoid"`` (the humanoid needs
            dm_control's motion-capture assets).
        terminate_on_goal: whether a goal ends the episode.
        disable_walker_contacts: players pass through each other when True.
        field_box: a wall that keeps the ball on the pitch (dm_control's
            ``enable_field_box``); without it a ball that leaves is thrown in.
        render_mode: ``None``, ``"rgb_array"`` or ``"camera"``.
        render_height: height in pixels of rendered pictures.

    Raises:
        ValueError: an option out of range.
        MissingDependencyError: dm_control is not installed (the ``soccer`` extra).

    Example:
        >>> env = Soccer(team_size=1, time_limit=0.5)
        >>> env.teams
        {'home': ('home_0',), 'away': ('away_0',)}
        >>> obs, infos = env.reset(seed=0)
        >>> env.action_space("home_0")
        Box(-1.0, 1.0, (3,), float64)
        >>> obs["home_0"]["ball_ego_position"].shape
        (3,)
    """

    training_options = frozenset({"time_limit"})  # the length of an episode
    metadata = {"render_modes": ["rgb_array", "camera"], "name": "soccer", "render_fps": 40, "real_time": True}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "outcome"  # win, draw or loss
    env_name = "soccer"

    def __init__(
        self,
        team_size: int = 2,
        time_limit: float = 45.0,
        walker: str = "boxhead",
        terminate_on_goal: bool = True,
        disable_walker_contacts: bool = False,
        field_box: bool = False,
        render_mode: str | None = None,
        render_height: int = 240,
    ) -> None:
        where = "Soccer"
        _check_number(where, "team_size", team_size, integer=True)
        if team_size > _MAX_TEAM_SIZE:
            raise InvalidValueError(f"{where}: team_size must be 1 to {_MAX_TEAM_SIZE}, got {team_size!r}")
        _check_number(where, "time_limit", time_limit)
        if walker not in WALKERS:
            raise InvalidValueError(f"{where}: walker must be one of {sorted(WALKERS)}, got {walker!r}")
        for name, value in (
            ("terminate_on_goal", terminate_on_goal),
            ("disable_walker_contacts", disable_walker_contacts),
            ("field_box", field_box),
        ):
            if not isinstance(value, (bool, np.bool_)):
                raise InvalidValueError(f"{where}: {name} must be True or False, got {value!r}")
        if render_mode not in (None, "rgb_array", "camera"):
            raise InvalidValueError(f"{where}: render_mode must be None, 'rgb_array' or 'camera', got {render_mode!r}")
        _check_number(where, "render_height", render_height, integer=True)
        if not _MIN_RENDER_HEIGHT <= render_height <= _MAX_RENDER_HEIGHT:  # checked before any picture is allocated
            raise InvalidValueError(
                f"{where}: render_height must be {_MIN_RENDER_HEIGHT} to {_MAX_RENDER_HEIGHT} pixels, "
                f"got {render_height!r}"
            )
        self.options: dict[str, Any] = {
            "team_size": int(team_size),
            "time_limit": float(time_limit),
            "walker": walker,
            "terminate_on_goal": bool(terminate_on_goal),
            "disable_walker_contacts": bool(disable_walker_contacts),
            "field_box": bool(field_box),
        }
        self.team_size, self.time_limit, self.walker = int(team_size), float(time_limit), walker
        self.terminate_on_goal = bool(terminate_on_goal)
        self.render_mode, self.render_height = render_mode, int(render_height)
        self._dm = load_dm_soccer(**self.options)
        home = tuple(f"home_{i}" for i in range(self.team_size))
        away = tuple(f"away_{i}" for i in range(self.team_size))
        self.teams: dict[str, tuple[str, ...]] | None = {"home": home, "away": away}
        self.possible_agents = [*home, *away]  # dm_control's player order
        self.agents = []
        self.observation_spaces, self.action_spaces = {}, {}
        self._bool_keys: list[list[str]] = []
        self._keys: list[list[str]] = []  # each agent's observation keys, in the order of its Dict
        for agent, obs_spec, act_spec in zip(self.possible_agents, self._dm.observation_spec(), self._dm.action_spec()):
            low, high = np.asarray(act_spec.minimum, np.float64), np.asarray(act_spec.maximum, np.float64)
            action_space = spaces.Box(
                np.broadcast_to(low, act_spec.shape), np.broadcast_to(high, act_spec.shape), act_spec.shape, np.float64
            )
            boxes: dict[str, spaces.Space] = {}
            bool_keys: list[str] = []
            for key, spec in obs_spec.items():
                # dm_control's observation buffer adds a leading 1; a scalar stays a 1-vector (SB3's
                # check_env and RLlib want arrays, and a 0-d Box breaks SB3's bounds check)
                shape = tuple(spec.shape[1:]) or (1,)
                if key == "prev_action":
                    boxes[key] = spaces.Box(
                        action_space.low.reshape(shape), action_space.high.reshape(shape), shape, np.float64
                    )
                elif spec.dtype == np.bool_:
                    bool_keys.append(key)
                    boxes[key] = spaces.Box(0.0, 1.0, shape, np.float64)
                else:
                    boxes[key] = spaces.Box(-np.inf, np.inf, shape, np.float64)
            observation_space = spaces.Dict(boxes)
            self.observation_spaces[agent] = observation_space
            self.action_spaces[agent] = action_space
            self._bool_keys.append(bool_keys)
            self._keys.append(list(observation_space.spaces))  # the Dict's order (it sorts the keys)
        self._acting: list[str] | None = None
        self._episode_seed: int | None = None
        self._actions: list[list[np.ndarray]] = []  # this episode's actions, for copies (see __getstate__)
        self._score = [0, 0]
        self._steps = 0

    def __str__(self) -> str:
        return f"<Soccer {self.team_size}v{self.team_size}>"

    # ---------------------------------------------------------------- episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a match: new pitch size, players and ball at random places, score 0-0.

        Returns:
            ``(observations, infos)`` for every player.
        """
        super().reset(seed=seed)
        self._start(int(self.np_random.integers(2**31 - 1)))
        timestep = self._dm.reset()
        return self._observe(timestep.observation), self._infos()

    def _start(self, episode_seed: int) -> None:
        self._episode_seed = episode_seed
        self._dm.random_state.seed(episode_seed)
        self._actions = []
        self._score = [0, 0]
        self._steps = 0
        self.agents = list(self.possible_agents)
        self._acting = self.agents

    def step(self, actions: Mapping[str, Any]):
        """Apply every player's action for one control step (0.025 s).

        Edge cases: ``step`` before ``reset`` or after the end raises ``ResetNeeded``;
        actions for other than all players raise ``WrongAgentsError``; an action outside
        the player's ``Box`` (NaN included) raises ``InvalidActionError`` and changes
        nothing. After the last step (goal or time limit) ``observations`` is empty.
        """
        self.check_actions(actions, self._acting)
        joint = [np.asarray(actions[agent], dtype=np.float64) for agent in self.possible_agents]
        self._actions.append(joint)
        return self._apply(joint)

    def _apply(self, joint: list[np.ndarray]):
        timestep = self._dm.step(joint)
        self._steps += 1
        rewards = {}
        for agent, reward in zip(self.possible_agents, timestep.reward):
            rewards[agent] = float(reward)
        first = rewards[self.possible_agents[0]]
        if first:
            self._score[0 if first > 0 else 1] += 1
        if not timestep.last():
            flags = dict.fromkeys(self.possible_agents, False)
            return self._observe(timestep.observation), rewards, flags, dict(flags), self._infos()
        goal = float(timestep.discount) == 0.0  # dm_control: 0 after a goal, 1 at the time limit
        terminations = dict.fromkeys(self.possible_agents, goal)
        truncations = dict.fromkeys(self.possible_agents, not goal)
        infos = self._infos()
        self.agents, self._acting = [], None
        return {}, rewards, terminations, truncations, infos

    # -------------------------------------------------------------- observing
    def _observe(self, raw: list[dict[str, np.ndarray]]) -> dict[str, dict[str, np.ndarray]]:
        observations = {}
        for agent, features, keys, bool_keys in zip(self.possible_agents, raw, self._keys, self._bool_keys):
            observation = {}
            for key in keys:
                value = features[key][0]
                observation[key] = value if value.ndim else features[key].reshape(1)
            for key in bool_keys:
                observation[key] = observation[key].astype(np.float64)
            observations[agent] = observation
        return observations

    def _infos(self) -> dict[str, dict[str, Any]]:
        score, time = tuple(self._score), round(self._steps * self._dm.control_timestep(), 6)
        return {agent: {"score": score, "time": time} for agent in self.possible_agents}

    @property
    def score(self) -> tuple[int, int]:
        """``(home goals, away goals)`` in the current (or last) episode."""
        home, away = self._score
        return home, away

    @property
    def dm_env(self) -> Any:
        """The underlying dm_control ``composer.Environment`` (read it; stepping it desynchronises arena)."""
        return self._dm

    def positions(self) -> dict[str, Any]:
        """Where everything is now, in metres on the pitch (x towards the away goal).

        Returns:
            ``{"pitch": (half length, half width), "goal": (half depth, half width),
            "ball": (x, y), "players": [(x, y, heading radians), ...]}`` (players in
            ``possible_agents`` order).
        """
        from envs.soccer.render import positions

        return positions(self._dm)

    def render(self) -> np.ndarray | None:
        """The picture for ``render_mode`` (``None`` when unset); see the class docstring.

        Raises:
            ArenaError: before the first reset, or ``"camera"`` without a working OpenGL backend (the message says what to set).
        """
        if self.render_mode is None:
            return None
        if self._episode_seed is None:
            raise ArenaError(f"{self}: render() needs a reset() first (nothing is on the pitch yet)")
        from envs.soccer.render import render_camera, render_top_down

        if self.render_mode == "camera":
            return render_camera(self._dm, self.render_height, where=str(self))
        return render_top_down(self.positions(), self.team_size, height=self.render_height)

    def close(self) -> None:
        """Release MuJoCo's physics (safe to call more than once; the env can be reset again)."""
        # dm_control frees its physics when the env is garbage-collected; nothing to end here.

    # ---------------------------------------------------------------- copies
    def __getstate__(self) -> dict[str, Any]:
        # dm_control's env holds weak references and MuJoCo pointers and cannot be pickled;
        # a copy is rebuilt from the options and replays this episode's seed and actions.
        state = {key: value for key, value in self.__dict__.items() if key != "_dm"}
        state["_actions"] = [list(joint) for joint in self._actions]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._dm = load_dm_soccer(**self.options)
        if self._episode_seed is None:
            return
        self._dm.random_state.seed(self._episode_seed)
        self._dm.reset()
        for joint in self._actions:
            self._dm.step(joint)
