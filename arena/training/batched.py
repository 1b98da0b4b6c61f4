"""The learner's seat in many games of a batch at once: a Stable-Baselines3 ``VecEnv``, opponents inside.

This module imports Stable-Baselines3 when it is imported (:class:`BatchVecEnv` derives
from SB3's ``VecEnv``); a missing install raises an ImportError naming the ``train`` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.batch import GameBatch, turn_model
from arena.env import AgentID, MultiAgentEnv
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError
from arena.interface import Interface
from arena.registry import make_env
from arena.training.in_process import InProcessVecEnv
from arena.training.learner_arguments import (
    Opponent,
    learner_spaces,
    resolve_interfaces,
    resolve_opponents,
    resolve_seats,
)
from arena.training.pool import OpponentPool

__all__ = ["BatchVecEnv", "make_batch"]


def make_batch(env: MultiAgentEnv, num_games: int) -> GameBatch:
    """``env.make_batch(num_games)``, with an error naming the env when it has no batch.

    Raises:
        TypeError: the env does not offer a batch (no ``make_batch`` method).
    """
    if not env.batchable:
        raise InvalidTypeError(
            f"BatchVecEnv: {env} has no batched version (no make_batch(num_games) method); "
            "train it through arena.training.SingleAgentEnv"
        )
    return env.make_batch(num_games)


class BatchVecEnv(InProcessVecEnv):
    """The learner's seat in ``num_envs`` games stepped together, the other seats played inside.

    The batched counterpart of :class:`~arena.training.SingleAgentEnv` for games that
    offer a batch (``env.make_batch(n)``: ``TicTacToeBatch``, ``ConnectFourBatch``):
    sub-env ``i`` is the learner's seat in game ``i``, and one :meth:`step` moves the
    learner in every game, then the opponents in every game that waits for them, one
    :meth:`~arena.Agent.act_batch` call per distinct opponent (one network forward for a
    frozen policy, a few numpy calls for random and heuristic players), until the learner
    is to move everywhere again. Episodes that end restart at once (SB3's auto-reset:
    ``infos[i]["terminal_observation"]``, ``dones[i]``).

    The rules are those of :class:`SingleAgentEnv`, and the same tests check both:

    * the learner's seat is drawn every episode from ``seats`` (``shuffle_seats=True``)
      or taken in turn; opponents come from the same specs, agents and
      :class:`~arena.training.OpponentPool` (sampled at every episode start, so
      :meth:`set_opponents` and pool promotions take effect from the next episode on);
    * the learner only sees the board when it is to move (its own observation, through
      its interface); the reward returned sums what reached it since its last action,
      the final one included when an opponent made the last move;
    * :meth:`env_method` ``("action_masks")`` gives the learner's masks (``MaskablePPO``);
    * ``infos[i]["seat"]`` names the learner's seat.

    Opponents must be batchable (:attr:`arena.Agent.batchable`) and interfaces free of
    per-episode state; rewards and ``done`` are not delivered to opponents on this path.

    Args:
        env: an arena env with a batch (name, factory or instance, as for SingleAgentEnv).
        num_envs: the number of games.
        opponents: who plays the other seat, as for SingleAgentEnv.
        seats: the seat(s) the learner plays (default: all).
        shuffle_seats: draw the learner's seat at random every episode.
        interface: the learner's interface (without per-episode state).
        env_kwargs: options for building ``env`` from a name or factory.

    Raises:
        TypeError: an env without a batch, opponents that cannot act in batches.
        ValueError: a stateful interface, a batch that is not turn-based for two.

    Example:
        >>> import numpy as np
        >>> venv = BatchVecEnv("tic_tac_toe", 4, "random", shuffle_seats=True)
        >>> venv.seed(0)
        [0, 1, 2, 3]
        >>> obs = venv.reset()
        >>> obs.shape, np.stack(venv.env_method("action_masks")).shape
        ((4, 3, 3), (4, 9))
    """

    def __init__(
        self,
        env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        num_envs: int,
        opponents: Opponent | Sequence[Opponent] = "random",
        seats: AgentID | Sequence[AgentID] | None = None,
        *,
        shuffle_seats: bool = False,
        interface: Interface | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.env: MultiAgentEnv = make_env(env, **dict(env_kwargs or {}))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidValueError(f"BatchVecEnv({self.env}): num_envs must be a positive integer, got {num_envs!r}")
        # an AlternatingBatch here, a SimultaneousBatch in SimultaneousBatchVecEnv (arena.batch)
        self.batch: Any = make_batch(self.env, int(num_envs))
        if self._turn_based and (len(self.env.possible_agents) != 2 or turn_model(self.batch) != "alternating"):
            raise InvalidValueError(
                f"BatchVecEnv: {self.batch} is not a two-player batch whose turns alternate; "
                "batch_vec_env() picks the class for a batch"
            )
        if interface is not None and not isinstance(interface, Interface):
            raise InvalidTypeError(
                f"BatchVecEnv({self.env}): interface must be an arena.Interface or None, got {type(interface).__name__}"
            )
        self.shuffle_seats = bool(shuffle_seats)
        self.seats = resolve_seats(self.env, seats)
        self.interface = interface
        interfaces = resolve_interfaces(self.env, self.seats[:1], interface)
        observation_space, action_space = learner_spaces(self.env, self.seats[:1], interfaces)
        if interface is not None and interface.stateful:
            raise InvalidValueError(
                f"BatchVecEnv({self.env}): the interface {interface} keeps per-episode state "
                "(a reset hook), which a batch cannot keep per game; use SingleAgentEnv"
            )
        self.render_mode = None  # SB3 reads it in __init__; a batch does not render
        super().__init__(int(num_envs), observation_space, action_space)
        self._seat_index = np.array([self.env.possible_agents.index(seat) for seat in self.seats])
        self._translate_masks = interface is not None and interface.compiled().action_mask is not None
        self._translate_actions = interface is not None and interface.compiled().action is not None
        self.set_opponents(opponents)
        games = self.num_envs
        self._rows = np.arange(games)
        self._seat = np.zeros(games, dtype=np.int64)  # the learner's player index in each game
        self._rotation = np.zeros(games, dtype=np.int64)
        self._opponent = np.zeros(games, dtype=np.int64)  # index into self._agents
        self._agents: list[Agent] = []
        self._agent_codes: dict[int, int] = {}
        self._pending = np.zeros(games, dtype=np.float64)
        self._obs: np.ndarray | None = None
        if not isinstance(action_space, spaces.Discrete):  # a board batch's moves: one mask entry per move
            raise InvalidTypeError(
                f"BatchVecEnv({self.env}): the learner's actions must be Discrete, got {action_space}"
            )
        self._masks = np.ones((games, int(action_space.n)), dtype=np.bool_)
        self._actions: np.ndarray | None = None
        self._rng = np.random.default_rng()
        self._started = False
        self._setup_state()

    _turn_based = True

    def _setup_state(self) -> None:
        """Per-game state a subclass adds (called at the end of ``__init__``)."""

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Replace the opponents (from each game's next episode on); same forms as the constructor.

        Raises:
            TypeError: an opponent (or pool member) that cannot act for many games at once.
        """
        resolved = resolve_opponents(self.env, opponents)
        for slot in resolved:
            for agent in slot if isinstance(slot, OpponentPool) else [slot]:
                if not agent.batchable:
                    raise InvalidTypeError(
                        f"BatchVecEnv({self.env}): opponent {agent} cannot act for many games at "
                        "once (see arena.Agent.act_batch); train against it with SingleAgentEnv"
                    )
        self.opponents = resolved

    def _code(self, agent: Agent) -> int:
        code = self._agent_codes.get(id(agent))
        if code is None:
            code = self._agent_codes[id(agent)] = len(self._agents)
            self._agents.append(agent)  # kept, so that its id stays its own
            space_o, space_a = self.batch.single_observation_space, self.batch.single_action_space
            if agent.observation_space is not space_o or agent.action_space is not space_a:
                agent.setup(space_o, space_a)
            agent.reset(seed=int(self._rng.integers(2**31 - 1)))  # seeded from this env: reproducible runs
        return code

    def _deal(self, games: np.ndarray) -> None:
        """Choose the learner's seat and its opponent in each of ``games`` (new episodes)."""
        if not len(games):
            return
        rng = self._rng
        if self.shuffle_seats:
            self._seat[games] = self._seat_index[rng.integers(len(self.seats), size=len(games))]
        else:
            self._seat[games] = self._seat_index[self._rotation[games] % len(self.seats)]
            self._rotation[games] += 1
        slot = self.opponents[0]
        for g in games.tolist():
            agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
            self._opponent[g] = self._code(agent)

    # ------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        """Start every game (seeded by :meth:`seed` when it was called) and play the opponents' first moves."""
        self._begin_reset()
        observations, infos = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        self._deal(self._rows)
        self._started = True
        observations, masks = self._play_opponents(
            observations, infos["action_mask"], infos["to_play"], np.zeros(self.num_envs, dtype=bool)
        )
        return self._observe(observations, masks)

    def _begin_reset(self) -> None:
        seed = self._seeds[0]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._rotation[:] = 0
        self._reset_seeds()
        self._pending[:] = 0.0
        self._agents, self._agent_codes = [], {}  # each opponent is set up and seeded again when dealt

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if not self._started:
            raise ArenaError(f"{self}: step() called before reset()")
        actions = np.asarray(self._actions).reshape(self.num_envs)
        itf = self.interface
        if self._translate_actions and itf is not None:  # only an interface translates
            actions = np.array([itf.transform_action(int(a)) for a in actions])
        observations, rewards, _, _, infos = self.batch.step(actions.astype(np.int64, copy=False))
        self._pending += rewards[self._rows, self._seat]
        dones = np.zeros(self.num_envs, dtype=bool)
        out = np.zeros(self.num_envs, dtype=np.float32)
        last = self._obs
        if last is None:  # no observation yet: reset() has not run
            raise ArenaError(f"{self}: step() called before reset()")
        self._close(self._rows[infos["episode_over"]], dones, out)
        observations, masks = self._play_opponents(observations, infos["action_mask"], infos["to_play"], dones, out)
        alive = ~dones
        out[alive] = self._pending[alive]
        self._pending[alive] = 0.0
        self._observe(observations, masks)
        seats = self.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": seats[s]} for s in self._seat.tolist()]
        for g in np.flatnonzero(dones).tolist():
            info_list[g]["terminal_observation"] = last[g]  # the last board it saw, as SingleAgentEnv
            info_list[g]["TimeLimit.truncated"] = False
        return self._obs, out, dones, info_list

    def _close(self, ended: np.ndarray, dones: np.ndarray, out: np.ndarray | None) -> None:
        if not len(ended):
            return
        if out is None or dones[ended].any():
            raise ArenaError(f"BatchVecEnv({self.env}): an episode ended before the learner was asked to act")
        dones[ended] = True
        out[ended] = self._pending[ended]
        self._pending[ended] = 0.0
        self._deal(ended)

    def _play_opponents(self, board, masks, to_play, dones, out=None):
        while True:
            waiting = np.flatnonzero(to_play != self._seat)
            if not len(waiting):
                return board, masks
            actions = np.empty(len(waiting), dtype=np.int64)
            codes = self._opponent[waiting]
            for code in np.unique(codes).tolist():
                which = codes == code
                games = waiting[which]
                actions[which] = self._agents[code].act_batch(board[games], masks[games])
            obs, rewards, _, _, infos = self.batch.step(actions, games=waiting)
            self._pending[waiting] += rewards[np.arange(len(waiting)), self._seat[waiting]]
            board[waiting], masks[waiting], to_play[waiting] = obs, infos["action_mask"], infos["to_play"]
            self._close(waiting[infos["episode_over"]], dones, out)

    def _observe(self, board: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Take in the learner's boards and masks (through its interface); returns the observations."""
        itf = self.interface
        observations = board if itf is None else itf.transform_observation_batch(board)
        if self._translate_masks and itf is not None:
            masks = np.stack([itf.transform_action_mask(mask) for mask in masks])
        self._obs, self._masks = observations, masks
        return observations

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, n)`` bool."""
        return self._masks

    def close(self) -> None:
        """Close the multi-agent env."""
        self.env.close()

    def __str__(self) -> str:
        return f"<{type(self).__name__} {self.num_envs} games of {self.env} seats={self.seats}>"

    __repr__ = __str__
