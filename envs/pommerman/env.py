"""The Pommerman env: the reference's FFA, Team and Radio competition rules."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.env import MultiAgentEnv
from envs.pommerman import core, render
from envs.pommerman._jit import announce_compiling
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.board import START_POSITIONS, draw_board, seed_stream
from envs.pommerman.observe import GRIDS, advance, observation_space, observe_grids
from envs.pommerman.rules import MODES, PommermanRules
from envs.pommerman.state import State, decode_state, encode_state

__all__ = ["Pommerman", "MODES"]

_GAME_TYPE = {"ffa": 1, "team": 2, "radio": 3}
_GAME_ENV = {"ffa": "pommerman.envs.v0:Pomme", "team": "pommerman.envs.v0:Pomme", "radio": "pommerman.envs.v2:Pomme"}
_AGENTS = ("agent_0", "agent_1", "agent_2", "agent_3")
_INDEX = {name: i for i, name in enumerate(_AGENTS)}
_COUNT = [bin(m).count("1") for m in range(16)]
MAX_CELL_PIXELS = 128  # an 11x11 board of 128-pixel cells is a 1408x1408 image


def _readonly(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


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
        render_mode: ``"ansi"`` (text) or ``"rgb_array"`` (``cell_pixels`` a cell, 2-128).

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

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "pommerman", "render_fps": 10}
    env_name = "pommerman"

    def __init__(
        self, mode: str = "ffa", max_steps: int = 800, render_mode: str | None = None, cell_pixels: int = 16
    ) -> None:
        rules = PommermanRules(mode, max_steps)  # checks the mode and the limit
        if render_mode not in (None, "ansi", "rgb_array"):
            raise ValueError(f"Pommerman: render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if (
            isinstance(cell_pixels, bool)
            or not isinstance(cell_pixels, (int, np.integer))
            or not 2 <= cell_pixels <= MAX_CELL_PIXELS
        ):
            raise ValueError(f"Pommerman: cell_pixels must be an integer in 2..{MAX_CELL_PIXELS}, got {cell_pixels!r}")
        announce_compiling(core.step_into, "the Pommerman rules")
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
        self._grids: np.ndarray | None = None
        self._state = State()
        self._acting: list[str] | None = None
        self._scratch = core.new_scratch()
        self._rng = np.zeros(1, dtype=np.uint64)  # the board stream: SplitMix64, seeded by reset(seed=...)
        self._seeded = False

    def __str__(self) -> str:
        return f"<Pommerman {self.mode}>"

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
            seed_stream(self._rng, np_seed & 0x7FFFFFFFFFFFFFFF)
            self._seeded = True
        elif not self._seeded:
            seed_stream(self._rng, int.from_bytes(os.urandom(8), "little") >> 1)
            self._seeded = True
        state = self._state = State()
        draw_board(self._rng, state.board, state.items)
        for i, (r, c) in enumerate(START_POSITIONS):
            state.agents[i] = (1, r, c, 1, 2, 0)
        return self._begin()

    def load_state(self, state: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
        """Continue from a state dict in the reference trajectory format; returns ``reset``'s pair.

        The living agents act next. Raises ``ValueError`` naming a missing or bad field.
        """
        self._state = decode_state(state, self.mode == "radio")
        return self._begin()

    def state_json(self) -> dict[str, Any]:
        """The current state as a dict in the reference trajectory format (see ``load_state``)."""
        return encode_state(self._state, self.mode == "radio")

    def _begin(self):
        self._alive = alive = self._alive_mask()
        self.agents = [a for i, a in enumerate(_AGENTS) if alive >> i & 1 or self.partial]
        self._acting = acting = [a for i, a in enumerate(_AGENTS) if alive >> i & 1]
        obs = self._observe(acting)
        if self._mask is None:
            return obs, {a: {} for a in acting}
        return obs, {a: {"action_mask": self._mask} for a in acting}

    def _alive_mask(self) -> int:
        return sum(1 << i for i, alive in enumerate(self._state.agents[:, 0].tolist()) if alive)

    def _valid(self, actions: Any, acting: list[str] | None) -> bool:
        """A quick yes for the common case (plain ints for exactly the acting agents)."""
        if acting is None or type(actions) is not dict or len(actions) != len(acting) or self._mask is None:
            return False
        for agent in acting:
            action = actions.get(agent)
            if type(action) is not int or not 0 <= action < 6:
                return False
        return True

    def step(self, actions: Mapping[str, Any]):
        """Resolve one simultaneous step of every living agent.

        Raises ``ResetNeeded`` before ``reset`` or after the end, ``WrongAgentsError`` unless
        the actions name exactly the living agents, ``InvalidActionError`` for an action
        outside the space; a rejected call changes nothing.
        """
        acting = self._acting
        if not self._valid(actions, acting):
            self.check_actions(actions, acting)
        state = self._state
        moves = [0, 0, 0, 0]
        if self.mode == "radio":
            state.radio[:] = 0  # an agent dead at the start of the step sends 0, 0
            for name in acting or ():  # None: check_actions raised ResetNeeded
                i = _INDEX[name]
                action = actions[name]
                moves[i] = int(action[0])
                state.radio[i] = (int(action[1]), int(action[2]))
        else:
            for name in acting or ():
                moves[_INDEX[name]] = int(actions[name])
        state.intended_actions = moves
        before = self._alive
        self._grids = grids = np.empty((4 if self.partial else 1, 5, core.SIZE, core.SIZE), dtype=np.uint8)
        self._alive = alive = advance(
            state.board,
            state.items,
            state.flames,
            state.agents,
            state.bombs,
            state.counts,
            np.array(moves, dtype=np.int64),
            self.max_blast,
            self.partial,
            grids,
            self._scratch,
        )
        state.step_count += 1
        if self.partial:
            return self._end_team(alive)
        return self._end_ffa(alive, before)

    def _end_ffa(self, alive, before):
        n_alive = _COUNT[alive]
        done = n_alive <= 1 or self._state.step_count >= self.max_steps
        if not done and alive == before:
            acting = self._acting or ()  # a step runs only while agents act
            return self._finish(dict.fromkeys(acting, 0.0), dict.fromkeys(acting, False), {}, False)
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
        return self._finish(rewards, terms, infos, done)

    def _end_team(self, alive):
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
        return self._finish(rewards, terms, infos, done)

    def _finish(self, rewards, terms, infos, done):
        truncs = dict.fromkeys(terms, False)
        if done:
            self.agents = []
            self._acting = None
            return {}, rewards, terms, truncs, infos
        alive = self._alive
        if not self.partial and len(self.agents) != _COUNT[alive]:
            self.agents = [a for i, a in enumerate(_AGENTS) if alive >> i & 1]
            self._acting = [a for i, a in enumerate(_AGENTS) if alive >> i & 1]
        elif self.partial and len(self._acting or ()) != _COUNT[alive]:
            self._acting = [a for i, a in enumerate(_AGENTS) if alive >> i & 1]
        acting = self._acting or []
        mask = self._mask
        for a in acting:
            info = infos.get(a)
            if info is None:
                infos[a] = {} if mask is None else {"action_mask": mask}
            elif mask is not None:
                info["action_mask"] = mask
        return self._observe(acting, self._grids), rewards, terms, truncs, infos

    # ------------------------------------------------------------ observations
    def _observe(self, acting: list[str], grids: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
        """The observations of the agents in ``acting`` (``grids``: this step's, when already drawn)."""
        state = self._state
        if grids is None:
            grids = np.empty((4 if self.partial else 1, 5, core.SIZE, core.SIZE), dtype=np.uint8)
            observe_grids(state.board, state.agents, state.bombs, state.flames, state.counts, self.partial, grids)
        grids.flags.writeable = False
        positions = state.agents[:, 1:3].astype(np.int64)
        positions.flags.writeable = False
        rows = state.agents.tolist()
        alive = self._alive_arrays[self._alive]
        step_count = state.step_count
        teammate, enemies, game_type = self._teammate, self._enemies, self.game_type
        radio = self.mode == "radio"
        out = {}
        board = blast = life = moving = flame = None
        for name in acting:
            i = _INDEX[name]
            if self.partial or board is None:
                board, blast, life, moving, flame = grids[i if self.partial else 0]
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
                "position": positions[i],
                "ammo": row[3],
                "blast_strength": row[4],
                "can_kick": row[5],
            }
            if radio:
                obs["message"] = state.radio[(i + 2) % 4].copy()
            out[name] = obs
        return out

    def reference_observations(self) -> list[dict[str, Any]]:
        """All four observations in the reference's own form (lists, codes, ``game_env``)."""
        out = []
        saved, self._alive = self._alive, self._alive_mask()
        observations = self._observe(list(_AGENTS))
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
            return render.text(self._state)
        if self.render_mode == "rgb_array":
            return render.rgb(self._state, self.cell_pixels)
        return None

    @property
    def state(self) -> State:
        """The live state arrays (read them; changing them changes the game)."""
        return self._state
