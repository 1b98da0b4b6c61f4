"""MAgent2's battle grids (``magent2``'s gridworld engine and its PettingZoo games) as arena envs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.env import MultiAgentEnv
from arena.errors import ArenaError, InvalidValueError
from envs.magent._engine import magent_game

__all__ = ["MAgentBattle", "MAgentCombinedArms"]

_MAX_MAP = 200  # 1,600 soldiers a side: far past what a step budget (and the renderer) can handle
_INT_TYPES = frozenset({int, np.int64, np.int32, np.int16, np.int8, np.uint8, np.uint16, np.uint32, np.uint64})


def _check_options(
    where: str,
    map_size: Any,
    minimum: int,
    max_steps: Any,
    rewards: dict[str, Any],
    minimap_mode: Any,
    render_mode: Any,
) -> None:
    for name, value, low, high in (("map_size", map_size, minimum, _MAX_MAP), ("max_steps", max_steps, 1, 10**9)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
            raise InvalidValueError(f"{where}: {name} must be an integer from {low} to {high}, got {value!r}")
    for name, value in rewards.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not np.isfinite(value):
            raise InvalidValueError(f"{where}: {name} must be a finite number, got {value!r}")
    if not isinstance(minimap_mode, (bool, np.bool_)):
        raise InvalidValueError(f"{where}: minimap_mode must be True or False, got {minimap_mode!r}")
    if render_mode not in (None, "rgb_array"):
        raise InvalidValueError(f"{where}: render_mode must be None or 'rgb_array', got {render_mode!r}")


class MAgentBattle(MultiAgentEnv):
    """MAgent2's ``battle``: two armies on a square grid, every soldier for itself, 81 a side on 45x45.

    Built on the ``magent2`` package (the ``magent`` extra): its C++ gridworld engine, its game
    configuration and starting map (``magent2.environments.battle_v4``) and its renderer; arena
    steps the engine directly, a side at a time, as MAgent2's own parallel env does.

    **Players**: ``red_0 ... red_{n-1}`` and ``blue_0 ... blue_{n-1}`` (n = 81 on the default map;
    about ``0.04 * map_size**2``), the two sides in :attr:`teams` (``"red"`` starts on the left).
    Every live soldier acts at every step (simultaneous moves). A soldier killed in a step
    *terminates* at that step and leaves ``agents`` (it gets its last rewards, the death penalty
    included, then). All of one side dead ends the battle (every survivor terminates); reaching
    ``max_steps`` *truncates* the survivors.

    **Observation** per soldier: MAgent2's view, ``Box(0, 2, (13, 13, channels), float32)``
    centred on it (``view[row, col]`` is the cell ``col - 6`` right and ``row - 6`` down): walls,
    own side's presence and HP, the enemy's presence and HP (5 channels); ``minimap_mode`` adds
    each side's density minimap after its HP and the soldier's position (``x / map_size``,
    ``y / map_size``) as two constant planes (9 channels). See :mod:`envs.magent.layout`.

    **Action** per soldier: ``Discrete(21)``: 13 moves (the cells within 2, row by row; 6 stays
    put) then 8 attacks (the cells around it, row by row). Every action is legal (no mask).

    **Rewards** as MAgent2 gives them, per soldier: 5 for a kill, ``attack_opponent_reward``
    for hitting an enemy, ``attack_penalty`` per attack, ``step_reward`` per step,
    ``dead_penalty`` on dying. Soldiers earn their own rewards (``team_outcome = "individual"``);
    the **side's outcome** is the number of its soldiers alive at the end (:meth:`team_scores`):
    more alive wins, equal is a draw.

    **Determinism**: ``reset(seed=s)`` seeds the engine from ``s``; the same seed and actions
    give the same battle. Copies and pickles rebuild the engine and replay the battle's engine
    seed and actions, so they continue exactly. ``render_mode="rgb_array"`` returns MAgent2's own picture of the map.

    Args:
        map_size: the square map's side (12 to 200); the armies grow with it.
        max_steps: the battle's length limit (MAgent2's ``max_cycles``).
        minimap_mode: MAgent2's minimap and position planes in the observation.
        step_reward, dead_penalty, attack_penalty, attack_opponent_reward: MAgent2's reward options.
        render_mode: ``None`` or ``"rgb_array"``.

    Raises:
        ValueError: an option out of range.
        MissingDependencyError: magent2 is not installed (the ``magent`` extra).

    Example:
        >>> env = MAgentBattle(map_size=12, max_steps=5)
        >>> {side: len(ids) for side, ids in env.teams.items()}
        {'red': 2, 'blue': 2}
        >>> obs, infos = env.reset(seed=0)
        >>> obs["red_0"].shape, env.action_space("red_0")
        ((13, 13, 5), Discrete(21))
        >>> env.team_scores()
        {'red': 2, 'blue': 2}
    """

    # an episode's length and MAgent2's reward terms
    training_options = frozenset(
        {"max_steps", "step_reward", "dead_penalty", "attack_penalty", "attack_opponent_reward"}
    )
    metadata = {"render_modes": ["rgb_array"], "name": "magent_battle", "render_fps": 5}
    simultaneous = True  # every agent in play acts at every step
    env_name = "magent_battle"
    team_outcome = "individual"
    result_kind = "outcome"  # the side with more soldiers alive wins; the shaped rewards do not decide it
    _GAME, _MIN_MAP = "battle_v4", 12
    #: MAgent2's group names, per side.
    _SIDES: dict[str, tuple[str, ...]] = {"red": ("red",), "blue": ("blue",)}

    def __init__(
        self,
        map_size: int = 45,
        max_steps: int = 1000,
        minimap_mode: bool = False,
        step_reward: float = -0.005,
        dead_penalty: float = -0.1,
        attack_penalty: float = -0.1,
        attack_opponent_reward: float = 0.2,
        render_mode: str | None = None,
    ) -> None:
        rewards = {
            "step_reward": step_reward,
            "dead_penalty": dead_penalty,
            "attack_penalty": attack_penalty,
            "attack_opponent_reward": attack_opponent_reward,
        }
        _check_options(type(self).__name__, map_size, self._MIN_MAP, max_steps, rewards, minimap_mode, render_mode)
        self.map_size, self.max_steps, self.minimap_mode = int(map_size), int(max_steps), bool(minimap_mode)
        self.render_mode = render_mode
        self.options = {
            "map_size": self.map_size,
            "max_steps": self.max_steps,
            "minimap_mode": self.minimap_mode,
            **{k: float(v) for k, v in rewards.items()},
        }
        self._build()
        self.possible_agents = list(self._game.possible_agents)  # engine id i is possible_agents[i]
        self._names = np.array(self.possible_agents, dtype=object)
        self.observation_spaces = {a: self._game.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: self._game.action_space(a) for a in self.possible_agents}
        self._groups = [self._names[self._engine.get_agent_id(h)][0].rsplit("_", 1)[0] for h in self._handles]
        self._side_of_group = [next(s for s, groups in self._SIDES.items() if g in groups) for g in self._groups]
        teams = {
            side: tuple(a for a in self.possible_agents if a.rsplit("_", 1)[0] in groups)
            for side, groups in self._SIDES.items()
        }
        self.teams = teams
        self._sides: dict[str, tuple[str, ...]] = teams
        self._actions_n = [int(self._engine.get_action_space(h)[0]) for h in self._handles]
        self.agents = []
        self._acting: list[str] | None = None
        self._ids: list[np.ndarray] = []
        self._steps, self._started = 0, False
        self._episode_seed = 0
        self._history: list[list[np.ndarray]] = []  # this battle's joint actions, for copies
        self._alive: dict[str, float] = dict.fromkeys(teams, 0)

    def _build(self) -> None:
        # MAgent2's PettingZoo env builds the engine, its configuration and the map; arena steps the engine.
        self._game = magent_game(self._GAME).parallel_env(
            map_size=self.map_size,
            max_cycles=self.max_steps,
            minimap_mode=self.minimap_mode,
            extra_features=False,
            render_mode=self.render_mode,
            **self.options_rewards(),
        )
        self._engine, self._handles = self._game.env, list(self._game.handles)

    def options_rewards(self) -> dict[str, float]:
        """The reward options as MAgent2 takes them."""
        keys = ("step_reward", "dead_penalty", "attack_penalty", "attack_opponent_reward")
        return {key: self.options[key] for key in keys}

    def __str__(self) -> str:
        sizes = "v".join(str(len(ids)) for ids in self._sides.values())
        return f"<{type(self).__name__} {sizes} on {self.map_size}x{self.map_size}>"

    # ---------------------------------------------------------------- episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a battle: both armies in their starting squares, full HP.

        Returns:
            ``(observations, infos)`` for every soldier.
        """
        super().reset(seed=seed)
        self._episode_seed, self._history = int(self.np_random.integers(2**31 - 1)), []
        self._start_engine()
        self._steps, self._started = 0, True
        self._ids = [self._engine.get_agent_id(h) for h in self._handles]
        observations = self._observe()
        self._count_alive()
        self.agents = list(observations)
        self._acting = self.agents
        return observations, {agent: {} for agent in observations}

    def step(self, actions: Mapping[str, Any]):
        """Every live soldier moves or attacks at once; the engine resolves the step.

        Edge cases: ``step`` before ``reset`` or after the battle ended raises ``ResetNeeded``;
        actions for other than exactly the live soldiers raise ``WrongAgentsError``; an action
        outside ``Discrete(n)`` raises ``InvalidActionError``; a rejected call changes nothing.
        After the last step ``observations`` is empty and every soldier has left.
        """
        joint = self._joint_actions(actions)
        self._history.append(joint)
        engine = self._engine
        for handle, acts in zip(self._handles, joint):
            engine.set_action(handle, acts)
        engine.step()  # its "done" means a unit group is gone (combined arms); arena's battle ends with a side
        self._steps += 1
        rewards: dict[str, float] = {}
        terminations: dict[str, bool] = {}
        alive_now = []
        for handle, ids in zip(self._handles, self._ids):
            names = self._names[ids].tolist()
            alive = engine.get_alive(handle)
            alive_now.append(alive)
            rewards.update(zip(names, engine.get_reward(handle).tolist()))
            terminations.update(zip(names, (~alive).tolist()))
        observations = self._observe(alive_now)  # the survivors (the dead are cleared below)
        engine.clear_dead()
        self._ids = [ids[alive] for ids, alive in zip(self._ids, alive_now)]  # clear_dead keeps the order
        self._count_alive()
        over = 0 in self._alive.values()
        cut = not over and self._steps >= self.max_steps
        truncations = dict.fromkeys(terminations, False)
        if over or cut:
            (truncations if cut else terminations).update(dict.fromkeys(observations, True))
            observations = {}
        self.agents = list(observations)
        self._acting = self.agents if observations else None
        return observations, rewards, terminations, truncations, {agent: {} for agent in terminations}

    def _joint_actions(self, actions: Mapping[str, Any]) -> list[np.ndarray]:
        """Each group's actions in engine order, validated (the fast path checks types and ranges in bulk)."""
        acting = self._acting
        if acting is not None and type(actions) is dict and len(actions) == len(acting):
            try:
                values = [actions[name] for name in acting]
            except KeyError:
                values = None
            if values is not None and set(map(type, values)) <= _INT_TYPES:
                joint, start = [], 0
                for ids, n in zip(self._ids, self._actions_n):
                    group = np.array(values[start : start + len(ids)], dtype=np.int64)
                    start += len(ids)
                    if group.size and not (0 <= group.min() and group.max() < n):
                        break
                    joint.append(group.astype(np.int32))
                else:
                    return joint
        self.check_actions(actions, acting)  # raises, saying what was wrong (or passes 0-d arrays, IntEnums)
        values = [int(actions[name]) for name in acting or ()]  # None: check_actions raised ResetNeeded
        joint, start = [], 0
        for ids in self._ids:
            joint.append(np.array(values[start : start + len(ids)], dtype=np.int32))
            start += len(ids)
        return joint

    def _observe(self, alive_now: list[np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """The live soldiers' views; ``alive_now``: each group's alive flags over ``self._ids`` (all alive: ``None``)."""
        observations: dict[str, np.ndarray] = {}
        for index, (handle, ids) in enumerate(zip(self._handles, self._ids)):
            if not len(ids):
                continue
            view, features = self._engine.get_observation(handle)
            alive = None if alive_now is None else alive_now[index]
            if alive is not None and alive.all():
                alive = None
            if self.minimap_mode:  # MAgent2's layout: the position features as two constant planes
                planes = np.broadcast_to(features[:, None, None, -2:], (*view.shape[:3], 2))
                views = np.concatenate([view, planes], axis=-1)
                views = views if alive is None else views[alive]
            else:  # a copy: the engine reuses its buffer at the next step
                views = np.array(view) if alive is None else view[alive]
            names = self._names[ids if alive is None else ids[alive]].tolist()
            observations.update(zip(names, views))
        return observations

    def _count_alive(self) -> None:
        alive: dict[str, float] = dict.fromkeys(self._sides, 0)
        for ids, side in zip(self._ids, self._side_of_group):
            alive[side] += len(ids)
        self._alive = alive

    def _start_engine(self) -> None:
        engine = self._engine
        engine.set_seed(self._episode_seed)
        engine.reset()
        self._game.generate_map()

    # ---------------------------------------------------------------- copies
    def __getstate__(self) -> dict[str, Any]:
        # The engine is C++ behind ctypes pointers: a copy rebuilds it and replays this battle's
        # engine seed and actions (the engine is deterministic given them).
        return {key: value for key, value in self.__dict__.items() if key not in ("_game", "_engine", "_handles")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._history = list(self._history)
        self._build()
        if not self._started:
            return
        engine = self._engine
        self._start_engine()
        for joint in self._history:
            for handle, acts in zip(self._handles, joint):
                engine.set_action(handle, acts)
            engine.step()
            engine.clear_dead()
        self._ids = [engine.get_agent_id(h) for h in self._handles]

    def team_scores(self) -> dict[str, float]:
        """Soldiers alive per side: the side's outcome (more alive wins; equal is a draw)."""
        return dict(self._alive)

    @property
    def steps(self) -> int:
        """Steps played in the current (or last) battle."""
        return self._steps

    def side_view(self) -> str | None:
        """The replay page's view of a side: grid-wise control's battlefield map (own and enemy
        positions and HP as planes), which needs the soldiers' position planes (``minimap_mode``)."""
        return f"magent_grid_control(map_size={self.map_size})" if self.minimap_mode else None

    def positions(self) -> dict[str, np.ndarray]:
        """Where each live soldier stands: agent id -> ``(x, y)`` cell (read from the engine)."""
        where: dict[str, np.ndarray] = {}
        for handle in self._handles:
            ids = self._engine.get_agent_id(handle)
            where.update(zip(self._names[ids].tolist(), self._engine.get_pos(handle).copy()))
        return where

    def render(self) -> np.ndarray | None:
        """MAgent2's picture of the map (``render_mode="rgb_array"``), ``None`` when unset.

        Raises:
            ArenaError: before the first reset.
        """
        if self.render_mode is None:
            return None
        if not self._started:
            raise ArenaError(f"{self}: render() needs a reset() first (no battle yet)")
        return self._game.render()

    def close(self) -> None:
        """Close MAgent2's renderer (safe to call more than once; the env can be reset again)."""
        self._game.close()


class MAgentCombinedArms(MAgentBattle):
    """MAgent2's ``combined_arms``: each side has melee and ranged units (a heterogeneous team).

    As :class:`MAgentBattle` (sides, rewards, outcome, seeding, rendering), on MAgent2's
    ``combined_arms_v6`` game: on the default 45x45 map each side has 45 melee units
    (``redmelee_i``: 10 HP, speed 1, attack range 1) and 36 ranged units (``redranged_i``: 3 HP,
    speed 2, range 2); ``teams["red"]`` lists the red melee units, then the red ranged ones.

    **Observation** per unit: ``Box(0, 2, (13, 13, 9), float32)``: walls, then its own group,
    then the three other groups (presence and HP each); :mod:`envs.magent.layout` says which is
    the ally and which the enemy, per unit type.

    **Action** per unit: melee ``Discrete(9)`` (5 moves then 4 attacks), ranged
    ``Discrete(25)`` (13 moves then 12 attacks).
    Attacks can hurt one's own side (they earn nothing). MAgent2's own env stops when one unit
    group is gone; arena's battle goes on until a whole side is (or ``max_steps``).

    Example:
        >>> env = MAgentCombinedArms(map_size=16, max_steps=5)
        >>> env.teams["red"]
        ('redmelee_0', 'redmelee_1', 'redmelee_2', 'redranged_0', 'redranged_1', 'redranged_2')
        >>> env.action_space("redmelee_0"), env.action_space("redranged_0")
        (Discrete(9), Discrete(25))
    """

    metadata = {"render_modes": ["rgb_array"], "name": "magent_combined_arms", "render_fps": 5}
    env_name = "magent_combined_arms"
    _GAME, _MIN_MAP = "combined_arms_v6", 16
    _SIDES = {"red": ("redmelee", "redranged"), "blue": ("bluemelee", "blueranged")}
