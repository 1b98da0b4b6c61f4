"""The learner's seat in many games of a batch at once: a Stable-Baselines3 ``VecEnv``, opponents inside.

This module imports Stable-Baselines3 when it is imported (:class:`BatchVecEnv` derives
from SB3's ``VecEnv``); a missing install raises an ImportError naming the ``train`` extra.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.batch import GameBatch, turn_model
from arena.batched_stack import stack_batch_options
from arena.env import AgentID, MultiAgentEnv
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError
from arena.interface import Interface
from arena.registry import make_env
from arena.training.batch_slots import BatchedPlayer, LearnerSlots, plays_in_batches
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


def make_batch(
    env: MultiAgentEnv,
    num_games: int,
    *,
    num_workers: int | None = None,
    source: Any = None,
    options: Any = None,
    batch_options: Mapping[str, Any] | None = None,
) -> GameBatch:
    """``env.make_batch(num_games, **batch_options)``, or with ``num_workers`` given, a worker batch.
    ``batch_options`` are those the learner's stack needs (:func:`arena.batched_stack.stack_batch_options`).

    The worker batch (:func:`arena.worker_batch.batch_of`) plays ``num_games`` copies of the
    single env in ``num_workers`` processes (0: in this process), built from ``source`` (a name or
    factory, with ``options``) where given, else from copies of ``env``; asked for, it is made
    also for an env with a batch of its own (whose batch cannot serve the run).

    Raises:
        TypeError: the env does not offer a batch and no ``num_workers`` was given.
    """
    if num_workers is not None:
        from arena.worker_batch import batch_of

        built = isinstance(source, str) or (callable(source) and not hasattr(source, "possible_agents"))
        spec, env_options = (source, options) if built else (env, None)
        return batch_of(spec, num_games, env_options=env_options, num_workers=num_workers)
    if env.batchable:
        return env.make_batch(num_games, **dict(batch_options or {}))
    raise InvalidTypeError(
        f"BatchVecEnv: {env} has no batched version (no make_batch(num_games) method); give num_workers "
        "to play its games as a worker batch (arena.worker_batch), or train it through arena.training.SingleAgentEnv"
    )


class BatchVecEnv(InProcessVecEnv):
    """The learner's seat in ``num_envs`` games stepped together, the other seats played inside.

    The batched counterpart of :class:`~arena.training.SingleAgentEnv` for games that
    offer a batch (``env.make_batch(n)``: ``TicTacToeBatch``, ``ConnectFourBatch``):
    sub-env ``i`` is the learner's seat in game ``i``, and one :meth:`step` moves the
    learner in every game, then the opponents in every game that waits for them, one
    call per distinct opponent (one network forward for a frozen policy, a few numpy calls
    for random and heuristic players), until the learner is to move everywhere again.
    Episodes that end restart at once (SB3's auto-reset: ``infos[i]["terminal_observation"]``,
    ``dones[i]``).

    The rules are those of :class:`SingleAgentEnv`, and the same tests check both:

    * the learner's seat is drawn every episode from ``seats`` (``shuffle_seats=True``)
      or taken in turn; opponents come from the same specs, agents and
      :class:`~arena.training.OpponentPool` (sampled at every episode start, so
      :meth:`set_opponents` and pool promotions take effect from the next episode on);
    * the learner only sees the board when it is to move (its own observation, through
      its interface); the reward returned sums what reached it since its last action,
      the final one included when an opponent made the last move;
    * :meth:`env_method` ``("action_masks")`` gives the learner's masks (``MaskablePPO``);
    * ``infos[i]["seat"]`` names the learner's seat in the episode the step belongs to (at
      ``dones[i]``, the episode that ended).

    The learner's interface may be any stack: it runs through a
    :class:`~arena.batched_stack.BatchedStack`, so a level written only per game keeps its
    per-episode state per game (:class:`~arena.training.batch_slots.LearnerSlots` gives the
    order of the hooks). At an episode's end the stack observes the game's final observation
    before it settles the final reward, and ``terminal_observation`` is that observation
    through the stack. ``get_attr("interface")`` gives each sub-env's copy of the stack.
    Opponents act in batches (:func:`~arena.training.batch_slots.plays_in_batches`: an agent
    with ``act_batch``, or one behind an interface stack, whose state is kept per game);
    rewards and ``done`` are not delivered to opponents on this path.

    Args:
        env: an arena env with a batch (name, factory or instance, as for SingleAgentEnv).
        num_envs: the number of games.
        opponents: who plays the other seat, as for SingleAgentEnv.
        seats: the seat(s) the learner plays (default: all).
        shuffle_seats: draw the learner's seat at random every episode.
        interface: the learner's interface stack.
        env_kwargs: options for building ``env`` from a name or factory.
        num_workers: play the games as a worker batch of the single env (:mod:`arena.worker_batch`)
            in this many processes (0: in this process), for an env without a batch of its own.

    Raises:
        TypeError: an env without a batch (and no ``num_workers``), opponents that cannot act in batches.
        ValueError: a batch that is not turn-based for two.

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
        num_workers: int | None = None,
    ) -> None:
        self.env: MultiAgentEnv = make_env(env, **dict(env_kwargs or {}))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidValueError(f"BatchVecEnv({self.env}): num_envs must be a positive integer, got {num_envs!r}")
        # an AlternatingBatch here, a SimultaneousBatch in SimultaneousBatchVecEnv (arena.batch)
        if interface is not None and not isinstance(interface, Interface):
            raise InvalidTypeError(
                f"BatchVecEnv({self.env}): interface must be an arena.Interface or None, got {type(interface).__name__}"
            )
        # the batch's raw view as the learner's stack reads it (Pommerman: the planes, ego or not)
        self.batch_options = stack_batch_options(interface)
        self.batch: Any = make_batch(
            self.env,
            int(num_envs),
            num_workers=num_workers,
            source=env,
            options=dict(env_kwargs or {}),
            batch_options=self.batch_options,
        )
        if self._turn_based and (len(self.env.possible_agents) != 2 or turn_model(self.batch) != "alternating"):
            raise InvalidValueError(
                f"BatchVecEnv: {self.batch} is not a two-player batch whose turns alternate; "
                "batch_vec_env() picks the class for a batch"
            )
        self.shuffle_seats = bool(shuffle_seats)
        self.seats = resolve_seats(self.env, seats)
        self._prototype = interface
        interfaces = resolve_interfaces(self.env, self.seats[:1], interface)
        observation_space, action_space = learner_spaces(self.env, self.seats[:1], interfaces)
        self.render_mode = None  # SB3 reads it in __init__; a batch does not render
        games = int(num_envs)
        super().__init__(games * self._seats_per_game(), observation_space, action_space)
        self._learner = LearnerSlots(interface, self.num_envs)
        self._seat_index = np.array([self.env.possible_agents.index(seat) for seat in self.seats])
        self._opponent_slots = games
        self.set_opponents(opponents)
        self._rows = np.arange(games)
        self._seat = np.zeros(games, dtype=np.int64)  # the learner's player index in each game
        self._rotation = np.zeros(games, dtype=np.int64)
        self._opponent = np.zeros(games, dtype=np.int64)  # index into self._agents
        self._agents: list[Agent] = []
        self._players: list[BatchedPlayer] = []
        self._agent_codes: dict[int, int] = {}
        self._fresh = np.zeros(games, dtype=bool)  # opponent seats whose episode starts at their next move
        self._pending = np.zeros(self.num_envs, dtype=np.float64)
        self._obs: Any = None
        discrete = isinstance(action_space, spaces.Discrete)
        if self._turn_based and not discrete:  # a board batch's moves: one mask entry per move
            raise InvalidTypeError(
                f"BatchVecEnv({self.env}): the learner's actions must be Discrete, got {action_space}"
            )
        # a simultaneous game may have continuous actions (soccer): no mask entries then
        entries = int(action_space.n) if isinstance(action_space, spaces.Discrete) else 0
        self._masks = np.ones((self.num_envs, entries), dtype=np.bool_)
        self._actions: np.ndarray | None = None
        self._rng = np.random.default_rng()
        self._started = False
        self._setup_state()

    _turn_based = True

    def _seats_per_game(self) -> int:
        """Sub-envs per game (one: the learner's seat)."""
        return 1

    def _setup_state(self) -> None:
        """Per-game state a subclass adds (called at the end of ``__init__``)."""

    @property
    def interface(self) -> Interface | None:
        """The learner's interface stack as given (each sub-env runs its own copy: :meth:`get_attr`)."""
        return self._prototype

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """As :class:`InProcessVecEnv`; ``"interface"`` gives each sub-env's own copy of the stack."""
        if attr_name == "interface":
            stacks = self._learner.stacks
            return [stacks[i] for i in self._get_indices(indices)]
        return super().get_attr(attr_name, indices)

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Replace the opponents (from each game's next episode on); same forms as the constructor.

        Raises:
            TypeError: an opponent (or pool member) that cannot act for many games at once.
        """
        resolved = resolve_opponents(self.env, opponents, self._opponent_count())
        for slot in resolved:
            for agent in slot if isinstance(slot, OpponentPool) else [slot]:
                if not plays_in_batches(agent):
                    raise InvalidTypeError(
                        f"BatchVecEnv({self.env}): opponent {agent} cannot act for many games at "
                        "once (see arena.Agent.act_batch); train against it with SingleAgentEnv"
                    )
        self.opponents = resolved

    def _opponent_count(self) -> int | None:
        """The opponent seats of a game (``None``: every seat but the learner's)."""
        return None

    def _code(self, agent: Agent) -> int:
        code = self._agent_codes.get(id(agent))
        if code is None:
            stack = agent.interface if isinstance(agent, AgtItfWrapper) else None
            needs = stack_batch_options(stack)
            if any(self.batch_options.get(name) != value for name, value in needs.items()):
                raise InvalidValueError(
                    f"BatchVecEnv({self.env}): opponent {agent} needs the batch made with {needs}, "
                    f"the learner's stack made it with {self.batch_options}"
                )
            code = self._agent_codes[id(agent)] = len(self._agents)
            self._agents.append(agent)  # kept, so that its id stays its own
            # A stack (and an agent that reads the batch) is set up on the env's raw spaces, as on one
            # game: its levels bridge the batch's view. A bare agent acts on the batch's own views.
            seat = self.env.possible_agents[0]
            bridged = stack is not None or agent.acts_on_batch
            space_o = self.env.observation_space(seat) if bridged else self.batch.single_observation_space
            space_a = self.env.action_space(seat) if bridged else self.batch.single_action_space
            if agent.observation_space is not space_o or agent.action_space is not space_a:
                agent.setup(space_o, space_a)
            agent.reset(seed=int(self._rng.integers(2**31 - 1)))  # seeded from this env: reproducible runs
            self._players.append(BatchedPlayer(agent, self._opponent_slots))
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
        self._fresh[games] = True

    def _seats_of(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games and player indices of opponent ``slots`` (here: slot ``g`` is game ``g``'s mover)."""
        return slots, self.batch.to_play[slots]

    def _act(self, code: int, observations: Any, masks: Any, slots: np.ndarray) -> np.ndarray:
        """Opponent ``code``'s actions in its ``slots`` (an episode starts at a slot's first move)."""
        agent = self._agents[code]
        if agent.acts_on_batch:  # a game's scripted player, reading the batch's own state
            self._fresh[slots] = False
            return np.asarray(agent.act_on_batch(self.batch, *self._seats_of(slots)))
        actions = self._players[code].act(observations, masks, slots, self._fresh[slots])
        self._fresh[slots] = False
        return actions

    # ------------------------------------------------------------ VecEnv API
    def reset(self) -> Any:
        """Start every game (seeded by :meth:`seed` when it was called) and play the opponents' first moves."""
        self._begin_reset()
        observations, infos = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        self._deal(self._rows)
        self._started = True
        dones = np.zeros(self.num_envs, dtype=bool)
        finals = np.zeros_like(observations)
        observations, masks = self._play_opponents(observations, infos["action_mask"], infos["to_play"], dones, finals)
        self._obs, masks = self._learner.start(observations, masks)
        self._masks = np.asarray(masks, dtype=bool)
        return self._obs

    def _begin_reset(self) -> None:
        seed = self._seeds[0]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._rotation[:] = 0
        self._reset_seeds()
        self._pending[:] = 0.0
        # each opponent is set up and seeded again when dealt
        self._agents, self._players, self._agent_codes = [], [], {}

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if not self._started or self._obs is None:
            raise ArenaError(f"{self}: step() called before reset()")
        playing = self._seat.copy()  # the seats of this step's episodes (infos name them, as SingleAgentEnv)
        actions = np.asarray(self._learner.action(np.asarray(self._actions).reshape(self.num_envs)))
        observations, rewards, _, truncations, infos = self.batch.step(actions.astype(np.int64, copy=False))
        self._pending += rewards[self._rows, self._seat]
        dones = np.zeros(self.num_envs, dtype=bool)
        cut = np.zeros(self.num_envs, dtype=bool)
        finals = np.zeros_like(observations)
        out = np.zeros(self.num_envs, dtype=np.float64)
        ended = self._rows[infos["episode_over"]]
        self._close(ended, infos["final_observation"], truncations[ended, self._seat[ended]], dones, finals, cut, out)
        observations, masks = self._play_opponents(
            observations, infos["action_mask"], infos["to_play"], dones, finals, cut, out
        )
        alive = ~dones
        out[alive] = self._pending[alive]
        self._pending[alive] = 0.0
        self._obs, masks, reward, terminal = self._learner.step(observations, masks, out, dones, cut, finals[dones])
        self._masks = np.asarray(masks, dtype=bool)
        seats = self.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": seats[s]} for s in playing.tolist()]
        for g, final in zip(np.flatnonzero(dones).tolist(), terminal):
            info_list[g]["terminal_observation"] = final
            info_list[g]["TimeLimit.truncated"] = bool(cut[g])
        return self._obs, reward, dones, info_list

    def _close(self, ended, final_boards, truncated, dones, finals, cut=None, out=None) -> None:
        """Games ``ended`` ended: keep their final boards and the learner's rewards, deal them again."""
        if not len(ended):
            return
        if out is None or cut is None or dones[ended].any():
            raise ArenaError(f"BatchVecEnv({self.env}): an episode ended before the learner was asked to act")
        dones[ended] = True
        finals[ended] = final_boards
        cut[ended] = truncated
        out[ended] = self._pending[ended]
        self._pending[ended] = 0.0
        self._deal(ended)

    def _play_opponents(self, board, masks, to_play, dones, finals, cut=None, out=None):
        while True:
            waiting = np.flatnonzero(to_play != self._seat)
            if not len(waiting):
                return board, masks
            actions = np.empty(len(waiting), dtype=np.int64)
            codes = self._opponent[waiting]
            for code in np.unique(codes).tolist():
                which = codes == code
                games = waiting[which]
                actions[which] = self._act(code, board[games], masks[games], games)
            obs, rewards, _, truncations, infos = self.batch.step(actions, games=waiting)
            rows = np.arange(len(waiting))
            self._pending[waiting] += rewards[rows, self._seat[waiting]]
            board[waiting], masks[waiting], to_play[waiting] = obs, infos["action_mask"], infos["to_play"]
            over = infos["episode_over"]
            cuts = truncations[rows[over], self._seat[waiting[over]]]
            self._close(waiting[over], infos["final_observation"], cuts, dones, finals, cut, out)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, ``(num_envs, n)`` bool."""
        return self._masks

    def close(self) -> None:
        """Close the multi-agent env and the batch (a worker batch ends its workers)."""
        getattr(self.batch, "close", lambda: None)()
        self.env.close()

    def __str__(self) -> str:
        return f"<{type(self).__name__} {self.num_envs} games of {self.env} seats={self.seats}>"

    __repr__ = __str__
