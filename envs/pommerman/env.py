"""The Pommerman env: the reference's FFA, Team and Radio competition rules."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.env import LegendEntry, MultiAgentEnv
from arena.errors import InvalidValueError
from envs.pommerman import core, render
from envs.pommerman._jit import compile_once
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.core import SIZE
from envs.pommerman.observe import GRIDS, advance, deal, new_work, observation_space, observe_state
from envs.pommerman.rules import MODES, PommermanRules
from envs.pommerman.state import State, decode_state, encode_state, packed_state

__all__ = ["Pommerman", "MODES"]

_GAME_TYPE = {"ffa": 1, "team": 2, "radio": 3}
_GAME_ENV = {"ffa": "pommerman.envs.v0:Pomme", "team": "pommerman.envs.v0:Pomme", "radio": "pommerman.envs.v2:Pomme"}
_AGENTS = ("agent_0", "agent_1", "agent_2", "agent_3")
_COUNT = [bin(m).count("1") for m in range(16)]
#: ``_SLOTS[alive]``: (name, index) of the agents in the alive bit mask, in order.
_SLOTS = [tuple((a, i) for i, a in enumerate(_AGENTS) if m >> i & 1) for m in range(16)]
#: Whether the game is decided when the agents of a bit mask are alive (FFA: one or none; teams: one side).
_DECIDED_FFA = [n <= 1 for n in _COUNT]
_DECIDED_TEAM = [n <= 1 or m in (0b0101, 0b1010) for m, n in enumerate(_COUNT)]
MAX_CELL_PIXELS = 128  # an 11x11 board of 128-pixel cells is a 1408x1408 image


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


#: ``_POSITIONS[r][c]``: the read-only ``position`` array of cell (r, c), shared by every observation.
_POSITIONS = tuple(tuple(_readonly(np.array([r, c], dtype=np.int64)) for c in range(SIZE)) for r in range(SIZE))


class Pommerman(MultiAgentEnv):
    """Four bombers on an 11x11 board: the Pommerman reference rules, fast.

    Faithful to the reference implementation (playground, ``PommeFFACompetition-v0``,
    ``PommeTeamCompetition-v0``, ``PommeRadioCompetition-v2``): the same board
    distribution at reset and, step for step, the same state, rewards, end and
    observations (a test replays every step of the reference trajectories).

    * **Agents** ``agent_0`` .. ``agent_3`` (the reference's ids 0-3) start in the
      corners (top left, bottom left, bottom right, top right); everyone alive acts every
      step, at once. In ``"team"`` and ``"radio"`` modes the teams are
      ``(agent_0, agent_2)`` and ``(agent_1, agent_3)`` (:attr:`teams`).
    * **Action**: ``Discrete(6)``: 0 stop, 1 up, 2 down, 3 left, 4 right, 5 lay a bomb.
      Radio mode: ``MultiDiscrete([6, 8, 8])``, the move and two words for the teammate.
      All actions are always legal (``action_mask`` is all ones; none in radio mode), as in
      the reference.
    * **Observation**: the reference's per-agent dict as a ``Dict`` space
      (:func:`~envs.pommerman.observe.observation_space`): ``board`` and the bomb and
      flame grids, ``position``, ``ammo``, ``blast_strength``, ``can_kick``,
      ``teammate``, ``enemies``, ``alive`` (a flag per agent), ``game_type``,
      ``step_count`` and, in radio mode, ``message``. Team and radio modes fog every
      cell more than 4 rows or columns away. Grids are shared read-only arrays.
    * **End and rewards**: FFA: an agent that dies gets -1 and leaves at once; the last
      one alive gets +1; if the last agents die together, or 800 steps pass, everyone
      left gets -1 (a tie). Team/radio: a dead agent stops acting but stays in
      ``agents`` until its side's outcome is known; then all four get +1 (winning side)
      or -1 (losing side, or everyone on a tie: all dead, or the step limit). The
      reference's ``info`` (``result``, ``winners``) is in every agent's final info.

    Args:
        mode: ``"ffa"``, ``"team"`` or ``"radio"``.
        max_steps: the step limit (800 in the reference), at most 1,000,000.
        render_mode: ``"ansi"`` (text) or ``"rgb_array"`` (``cell_pixels`` a cell, 2-128; numbers on
            bombs and agents show from 10 pixels a cell). :meth:`render_legend` is the picture's key.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman", mode="team")
        >>> obs, infos = env.reset(seed=0)
        >>> sorted(obs), obs["agent_0"]["position"].tolist(), env.teams["team_0"]
        (['agent_0', 'agent_1', 'agent_2', 'agent_3'], [1, 1], ('agent_0', 'agent_2'))
        >>> obs, rewards, terms, truncs, infos = env.step({a: 0 for a in obs})
        >>> int(obs["agent_0"]["step_count"])
        1
    """

    training_options = frozenset({"max_steps"})  # the length of an episode
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "pommerman", "render_fps": 10}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "outcome"  # win, draw or loss
    env_name = "pommerman"

    def __init__(
        self, mode: str = "ffa", max_steps: int = 800, render_mode: str | None = None, cell_pixels: int = 32
    ) -> None:
        rules = PommermanRules(mode, max_steps)  # checks the mode and the limit
        if render_mode not in (None, "ansi", "rgb_array"):
            raise InvalidValueError(f"Pommerman: render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if (
            isinstance(cell_pixels, bool)
            or not isinstance(cell_pixels, (int, np.integer))
            or not 2 <= cell_pixels <= MAX_CELL_PIXELS
        ):
            raise InvalidValueError(
                f"Pommerman: cell_pixels must be an integer in 2..{MAX_CELL_PIXELS}, got {cell_pixels!r}"
            )
        compile_once(advance, "the Pommerman rules", lambda: _warm_up(mode), expect="about half a minute on two cores")
        self.mode = mode
        self.max_steps = rules.max_steps
        self.render_mode = render_mode
        self.cell_pixels = int(cell_pixels)
        self.partial = rules.partial
        self.perfect_information = not self.partial  # team modes fog the far side of the board
        self.max_blast = rules.max_blast
        self.game_type = _GAME_TYPE[mode]
        self.game_env = _GAME_ENV[mode]
        self.teams = rules.teams
        self.possible_agents = list(_AGENTS)
        self.agents = []
        observation = observation_space(mode, self.max_steps)
        action = rules.action
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        # radio actions are MultiDiscrete: no mask (a mask is one flag per discrete action)
        self._mask = None if mode == "radio" else _readonly(np.ones(6, dtype=np.int8))
        if self.partial:
            teammate = [core.AGENT_0 + (i + 2) % 4 for i in range(4)]
            enemies = [
                [core.AGENT_0 + j for j in range(4) if j not in (i, (i + 2) % 4)] + [core.AGENT_DUMMY] for i in range(4)
            ]
        else:
            teammate = [core.AGENT_DUMMY] * 4
            enemies = [[core.AGENT_0 + j for j in range(4) if j != i] for i in range(4)]
        self._teammate = teammate
        self._enemies = [_readonly(np.array(e, dtype=np.int64)) for e in enemies]
        self._alive_arrays = [_readonly(np.array([m >> i & 1 for i in range(4)], dtype=np.int8)) for m in range(16)]
        self._alive = 0
        self._decided = _DECIDED_TEAM if self.partial else _DECIDED_FFA
        self._grid_shape = (20 if self.partial else 5, SIZE, SIZE)  # each view's five grids
        self._blast_code = self.max_blast << 12  # advance() reads the blast cap above the four actions
        self._state, self._buffer = packed_state()  # the state's arrays are views of one buffer
        self._work = new_work()
        self._acting: list[str] | None = None
        self._slots: tuple[tuple[str, int], ...] = ()
        self._zeros: dict[str, float] = {}
        self._falses: dict[str, bool] = {}
        self._rng = np.zeros(1, dtype=np.uint64)  # the board stream: SplitMix64, seeded by reset(seed=...)
        self._seeded = False

    def __str__(self) -> str:
        return f"<Pommerman {self.mode}>"

    def __setstate__(self, state: dict[str, Any]) -> None:
        # deep copies and pickles copy the state's arrays apart from the buffer they view: bind them again
        self.__dict__.update(state)
        self._state, self._buffer = packed_state(self._state)

    # ----------------------------------------------------------------- episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Draw a new board (the reference's distribution) and return all four observations.

        The board comes from the env's own stream: ``reset(seed=s)`` restarts it from ``s``,
        ``reset()`` draws the stream's next board (from fresh entropy the first time), so a
        :class:`~envs.pommerman.batch.PommermanBatch` game seeded with ``s`` plays the same boards.
        """
        super().reset(seed=seed)
        np_seed = self._np_seed  # the seed as super().reset() kept it: an int, whatever integer type came
        if seed is not None and np_seed is not None:
            start = np_seed & 0x7FFFFFFFFFFFFFFF
        elif not self._seeded:
            start = int.from_bytes(os.urandom(8), "little") >> 1
        else:
            start = -1  # the stream goes on
        self._seeded = True
        self._state, self._buffer = packed_state()  # a fresh state: one held from the last game stays as it was
        grids = np.empty(self._grid_shape, np.uint8)
        deal(self._buffer, self._rng, start, grids)
        return self._begin(grids)

    def load_state(self, state: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Continue from a state dict in the reference trajectory format; returns ``reset``'s pair.

        The living agents act next. Raises ``ValueError`` naming a missing or bad field, or a state the
        rules never reach (flames the board does not show, a bomb on flames).
        """
        self._state, self._buffer = packed_state(decode_state(state, self.mode == "radio"))
        return self._begin()

    def state_json(self) -> dict[str, Any]:
        """The current state as a dict in the reference trajectory format (see ``load_state``)."""
        return encode_state(self._state, self.mode == "radio")

    def _begin(self, grids: np.ndarray | None = None):
        """``reset``'s pair for the state in ``self._state`` (``grids``: its grids, when already drawn)."""
        if grids is None:
            grids = np.empty(self._grid_shape, np.uint8)
            observe_state(self._buffer, grids)
        self._alive = alive = self._alive_mask()
        self.agents = [a for i, a in enumerate(_AGENTS) if alive >> i & 1 or self.partial]
        self._set_acting(alive)
        return self._observe(grids), self._infos()

    def _alive_mask(self) -> int:
        return sum(1 << i for i, alive in enumerate(self._state.agents[:, 0].tolist()) if alive)

    def _set_acting(self, alive: int) -> None:
        """The agents of the bit mask ``alive`` act next; the zero rewards and flags of a quiet step follow."""
        self._slots = _SLOTS[alive]
        self._acting = acting = [name for name, _ in self._slots]
        everyone = _AGENTS if self.partial else acting  # team modes report all four every step
        self._zeros = dict.fromkeys(everyone, 0.0)
        self._falses = dict.fromkeys(everyone, False)

    def _infos(self) -> dict[str, dict[str, Any]]:
        """A fresh info dict for each acting agent (its action mask, outside radio mode)."""
        mask = self._mask
        if mask is None:
            return {a: {} for a in self._acting or ()}
        return {a: {"action_mask": mask} for a in self._acting or ()}

    def _plain_moves(self, actions: Any) -> list[int] | None:
        """The four moves when ``actions`` is the common case (plain ints for exactly the acting agents), else None."""
        slots = self._slots
        if self._acting is None or type(actions) is not dict or len(actions) != len(slots) or self._mask is None:
            return None
        moves = [0, 0, 0, 0]
        for name, i in slots:
            action = actions.get(name)
            if type(action) is not int or not 0 <= action < 6:
                return None
            moves[i] = action
        return moves

    def _moves(self, actions: Mapping[str, Any]) -> list[int]:
        """The four moves of checked ``actions`` (any integer types); radio words go into the state."""
        moves = [0, 0, 0, 0]
        if self.mode == "radio":
            radio = self._state.radio
            radio[:] = 0  # an agent dead at the start of the step sends 0, 0
            for name, i in self._slots:
                action = actions[name]
                moves[i] = int(action[0])
                radio[i] = (int(action[1]), int(action[2]))
        else:
            for name, i in self._slots:
                moves[i] = int(actions[name])
        return moves

    def step(self, actions: Mapping[str, Any]):
        """Resolve one simultaneous step of every living agent.

        Raises ``ResetNeeded`` before ``reset`` or after the end, ``WrongAgentsError`` unless
        the actions name exactly the living agents, ``InvalidActionError`` for an action
        outside the space; a rejected call changes nothing.
        """
        moves = self._plain_moves(actions)
        if moves is None:
            self.check_actions(actions, self._acting)
            moves = self._moves(actions)
        state = self._state
        state.intended_actions = moves
        before = self._alive
        grids = np.empty(self._grid_shape, np.uint8)  # fresh: last step's observations keep theirs
        code = self._blast_code | moves[0] | moves[1] << 3 | moves[2] << 6 | moves[3] << 9
        self._alive = alive = advance(self._buffer, self._work, code, grids)
        state.step_count += 1
        if alive == before and not self._decided[alive] and state.step_count < self.max_steps:
            # nobody fell and the game goes on (most steps): every acting agent gets 0 and acts again
            return self._observe(grids), self._zeros.copy(), self._falses.copy(), self._falses.copy(), self._infos()
        if self.partial:
            return self._end_team(alive, grids)
        return self._end_ffa(alive, before, grids)

    def _end_ffa(self, alive, before, grids):
        n_alive = _COUNT[alive]
        done = n_alive <= 1 or self._state.step_count >= self.max_steps
        rewards, terms, infos = {}, {}, {}
        for i, name in enumerate(_AGENTS):
            if before >> i & 1 and not alive >> i & 1:
                rewards[name], terms[name] = -1.0, True
            elif alive >> i & 1:
                if not done:
                    rewards[name], terms[name] = 0.0, False
                else:
                    rewards[name], terms[name] = (1.0 if n_alive == 1 else -1.0), True
        if done:
            result = {"result": "Win", "winners": [alive.bit_length() - 1]} if n_alive == 1 else {"result": "Tie"}
            infos = {name: dict(result) for name in terms}
        return self._finish(rewards, terms, infos, done, grids)

    def _end_team(self, alive, grids):
        ids = [i for i in range(4) if alive >> i & 1]
        over = self._state.step_count >= self.max_steps
        done = len(ids) <= 1 or ids in ([0, 2], [1, 3]) or over
        if ids in ([0, 2], [0], [2]):
            values = (1.0, -1.0, 1.0, -1.0)
        elif ids in ([1, 3], [1], [3]):
            values = (-1.0, 1.0, -1.0, 1.0)
        elif over or not ids:
            values = (-1.0,) * 4
        else:
            values = (0.0,) * 4
        rewards = dict(zip(_AGENTS, values))
        terms = dict.fromkeys(_AGENTS, done)
        infos = {}
        if done:
            winners = [i for i in range(4) if values[i] == 1.0]
            result = {"result": "Win", "winners": winners} if winners else {"result": "Tie"}
            infos = {name: dict(result) for name in _AGENTS}
        return self._finish(rewards, terms, infos, done, grids)

    def _finish(self, rewards, terms, infos, done, grids):
        truncs = dict.fromkeys(terms, False)
        if done:
            self.agents = []
            self._acting = None
            return {}, rewards, terms, truncs, infos
        alive = self._alive
        if len(self._acting or ()) != _COUNT[alive]:  # someone fell
            self._set_acting(alive)
            if not self.partial:  # in FFA the fallen leave at once
                self.agents = list(self._acting or ())
        mask = self._mask
        for a in self._acting or ():
            info = infos.get(a)
            if info is None:
                infos[a] = {} if mask is None else {"action_mask": mask}
            elif mask is not None:
                info["action_mask"] = mask
        return self._observe(grids), rewards, terms, truncs, infos

    # ------------------------------------------------------------ observations
    def _observe(
        self, grids: np.ndarray, slots: tuple[tuple[str, int], ...] | None = None
    ) -> dict[str, dict[str, Any]]:
        """The observations of the acting agents (``slots``: others) from this step's ``grids`` (5 or 20 planes)."""
        state = self._state
        grids.setflags(write=False)  # the grids are shared: FFA's by all four, each view's by its own keys
        rows = state.agents.tolist()
        alive = self._alive_arrays[self._alive]
        step_count = state.step_count
        teammate, enemies, game_type, partial = self._teammate, self._enemies, self.game_type, self.partial
        radio = state.radio if self.mode == "radio" else None
        if not partial:
            board, blast, life, moving, flame = grids[0], grids[1], grids[2], grids[3], grids[4]
        out = {}
        for name, i in self._slots if slots is None else slots:
            if partial:
                k = 5 * i
                board, blast, life, moving, flame = grids[k], grids[k + 1], grids[k + 2], grids[k + 3], grids[k + 4]
            row = rows[i]
            # one dict literal per agent, keys in the order they always had
            obs = {
                "teammate": teammate[i],
                "enemies": enemies[i],
                "game_type": game_type,
                "board": board,
                "bomb_blast_strength": blast,
                "bomb_life": life,
                "bomb_moving_direction": moving,
                "flame_life": flame,
                "alive": alive,
                "step_count": step_count,
                "position": _POSITIONS[row[1]][row[2]],
                "ammo": row[3],
                "blast_strength": row[4],
                "can_kick": row[5],
            }
            if radio is not None:
                obs["message"] = radio[(i + 2) % 4].copy()
            out[name] = obs
        return out

    def reference_observations(self) -> list[dict[str, Any]]:
        """All four observations in the reference's own form (lists, codes, ``game_env``)."""
        out = []
        saved, self._alive = self._alive, self._alive_mask()
        grids = np.empty(self._grid_shape, np.uint8)
        observe_state(self._buffer, grids)
        observations = self._observe(grids, _SLOTS[15])
        self._alive = saved
        for obs in observations.values():
            ref = {key: obs[key].tolist() for key in GRIDS}
            ref.update(
                position=obs["position"].tolist(),
                ammo=obs["ammo"],
                blast_strength=obs["blast_strength"],
                can_kick=bool(obs["can_kick"]),
                teammate=obs["teammate"],
                enemies=obs["enemies"].tolist(),
                alive=[core.AGENT_0 + i for i in np.flatnonzero(obs["alive"])],
                game_type=obs["game_type"],
                game_env=self.game_env,
                step_count=obs["step_count"],
            )
            if "message" in obs:
                ref["message"] = obs["message"].tolist()
            out.append(ref)
        return out

    def make_batch(self, num_games: int, **options: Any) -> PommermanBatch:
        """A :class:`~envs.pommerman.batch.PommermanBatch` of ``num_games`` games with this env's mode and limit.

        ``options`` are the batch's own (``ego``, ``copy``, ``threads``).
        """
        return PommermanBatch(num_games, self.mode, max_steps=self.max_steps, **options)

    def action_names(self, agent: str) -> list[str]:
        """``["stop", "up", "down", "left", "right", "bomb"]`` (in radio mode, the move's names)."""
        self.action_space(agent)
        return ["stop", "up", "down", "left", "right", "bomb"]

    # --------------------------------------------------------------- rendering
    def render(self) -> str | np.ndarray | None:
        """The board as text (``"ansi"``) or an RGB image (``"rgb_array"``)."""
        if self.render_mode == "ansi":
            return render.text(self._state, self.teams)
        if self.render_mode == "rgb_array":
            return render.rgb(self._state, self.cell_pixels)
        return None

    def render_legend(self) -> list[LegendEntry]:
        """What the picture shows: walls, bombs (with their timers), flames, power-ups, and each agent's colour."""
        return [
            LegendEntry(label, picture, label if code >= core.AGENT_0 else None)
            for code, label, picture in render.legend(self.cell_pixels)
        ]

    @property
    def state(self) -> State:
        """The live state arrays (read them; changing them changes the game)."""
        return self._state


def _warm_up(mode: str) -> None:
    """A few steps of a scratch game: numba compiles the rules and the observations here, once."""
    env = Pommerman(mode, max_steps=10)
    observations, _ = env.reset(seed=0)
    for _ in range(3):
        if not observations:
            break
        observations, *_ = env.step({agent: _stop(env.action_space(agent)) for agent in observations})
    env.close()


def _stop(space: Any) -> Any:
    """The action "stop" (and the words 0, 0 on the radio)."""
    return np.zeros(space.shape, np.int64) if space.shape else 0
