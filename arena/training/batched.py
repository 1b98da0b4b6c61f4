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
from arena.masks import mask_length
from arena.registry import make_agent, make_env
from arena.training.alternating_turns import AlternatingTurns
from arena.training.batch_slots import BatchedPlayer, LearnerSlots, plays_in_batches, plays_per_game_copies
from arena.training.in_process import InProcessVecEnv
from arena.training.learner_arguments import (
    Opponent,
    learner_spaces,
    resolve_interfaces,
    resolve_opponents,
    resolve_seats,
)
from arena.training.pool import OpponentPool
from arena.training.simultaneous_turns import SimultaneousTurns

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
    """The learner's seat (or side) in ``num_games`` games stepped together, the other seats played inside.

    The batched counterpart of :class:`~arena.training.SingleAgentEnv` for every game that offers a
    batch (``env.make_batch(n)``) and, with ``num_workers``, for a worker batch of single envs
    (:mod:`arena.worker_batch`). The batch's declared turns (:func:`arena.batch.turn_model`) say how
    a step goes:

    * ``"alternating"`` (``TicTacToeBatch``, ``ConnectFourBatch``; two players): one :meth:`step`
      moves the learner in every game, then the opponents in every game that waits for them, one
      call per distinct opponent, until the learner is to move everywhere again. The reward sums
      what reached the learner since its last action, the final one included when an opponent
      made the last move;
    * ``"simultaneous"`` or ``"sides"`` (``SnakeBatch``, ``PommermanBatch``, Pong-2p, MAgent2, worker
      batches): every live player moves at once; the learner fills its seats and every opponent
      seat gets its action from one batched call per distinct opponent. Rewards are each seat's
      own, each step. A game the learner's seats have all left ends for the learner and restarts
      at once (``batch.restart``); with several opponent slots, ``shuffle_seats`` also deals them to
      the other seats in random order. A batch that writes only the views read (``set_view_seats``
      and ``observe``: ``PommermanBatch``) is asked for the learner's seats and those of opponents
      acting on views.

    The rules are those of :class:`SingleAgentEnv`, and the same tests check both: the learner's
    seat is drawn every episode from ``seats`` (``shuffle_seats=True``) or taken in turn; opponents
    come from the same specs, agents and :class:`~arena.training.OpponentPool` (sampled at every
    episode start, so :meth:`set_opponents` and pool promotions take effect from the next episode
    on); opponents act in batches (:func:`~arena.training.batch_slots.plays_in_batches`) and get no
    rewards or ``done``, except on a simultaneous worker batch an opponent that acts one game at a time
    but whose copies play a game each (:attr:`arena.Agent.copy_per_game`, ``vizdoom_aim``): it plays
    as one copy per seat slot, reset at each episode's start, acting with its seat's rewards and told
    ``done`` at its end, as on one game. The learner's interface may be any stack, run through a
    :class:`~arena.batched_stack.BatchedStack` (a level written only per game keeps its state per
    game slot); ``get_attr("interface")`` gives each sub-env's copy.

    Edge cases, as SB3 expects them:

    * **auto-reset**: an episode that ends restarts at once; ``dones[i]`` is set and the returned
      observation is the new episode's first;
    * **terminal_observation**: ``infos[i]["terminal_observation"]`` is the final observation
      through the stack (which sees it before it settles the final reward), with
      ``infos[i]["TimeLimit.truncated"]``; ``infos[i]["seat"]`` names the learner's seat in the
      episode the step belongs to (at ``dones[i]``, the one that ended);
    * **masks**: :meth:`action_masks` (and ``env_method("action_masks")``, for ``MaskablePPO``)
      gives the learner's legal actions; all True for a batch without masks, no entries for
      actions that are not ``Discrete`` (soccer);
    * **member_done** (team mode): a member that leaves the game (killed in a MAgent2 battle) is
      done at that step, its last view as ``terminal_observation``; until its game ends its slot
      sees zeros, earns nothing, its actions are ignored, and it is not done again at the game's
      end (PettingZoo's "black death"). Without it, a member out of play sees and earns what the
      batch gives it until its side's episode ends.

    With ``team=True`` (a batch where all move at once) the learner plays every seat of its side in
    each game (parameter sharing, ``env.teams`` gives the sides): sub-env ``k`` is member ``k % S``
    of the learner's side in game ``k // S`` (``num_envs = games x S``), each with its own copy of
    the stack. The side is taken in turn (or drawn) among the sides holding one of ``seats``. One
    opponent (an agent, a spec or a pool) plays the whole other side, drawn once per game and
    acting for all its seats in one call; a sequence gives one per other seat.

    Args:
        env: an arena env (name, factory or instance, as for SingleAgentEnv).
        num_envs: the number of games.
        opponents: who plays the other seats, as for SingleAgentEnv.
        seats: the seat(s) the learner plays (default: all).
        shuffle_seats: draw the learner's seat (side) at random every episode.
        interface: the learner's interface stack.
        env_kwargs: options for building ``env`` from a name or factory.
        num_workers: play the games as a worker batch of the single env in this many processes
            (0: in this process), for an env without a batch of its own.
        team: the learner plays every seat of its side (see above).
        member_done: a member's episode ends when it leaves the game (team mode).
        team_spirit: the share of each member's reward that is the mean over its side's members
            that acted in that step, in [0, 1] (team mode; OpenAI Five's name).

    Attributes:
        turns: the batch's declared turn model (``"alternating"``, ``"simultaneous"`` or ``"sides"``).
        sides: the player indices of each side the learner may play (one seat each but in team mode).

    Raises:
        TypeError: an env without a batch (and no ``num_workers``), opponents that cannot act in
            batches (nor, on a simultaneous worker batch, be copied per game), an alternating batch
            whose actions are not ``Discrete``.
        ValueError: an alternating batch not for two players; ``team``, ``member_done`` or
            ``team_spirit`` for an alternating batch; ``team=True`` without equal sides;
            ``member_done`` or a nonzero ``team_spirit`` without ``team=True``; a ``team_spirit``
            outside [0, 1].

    Example:
        A board game, the learner's seat drawn each episode:

        >>> import numpy as np
        >>> venv = BatchVecEnv("tic_tac_toe", 4, "random", shuffle_seats=True)
        >>> venv.seed(0)
        [0, 1, 2, 3]
        >>> obs = venv.reset()
        >>> obs.shape, np.stack(venv.env_method("action_masks")).shape
        ((4, 3, 3), (4, 9))

        Pommerman's teams, one policy for both bombers of a side (two games, four sub-envs):

        >>> venv = BatchVecEnv("pommerman", 2, "random", team=True, env_kwargs={"mode": "team", "max_steps": 10})
        >>> venv.num_envs, venv.reset().shape[0]
        (4, 4)
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
        team: bool = False,
        member_done: bool = False,
        team_spirit: float = 0.0,
    ) -> None:
        self.env: MultiAgentEnv = make_env(env, **dict(env_kwargs or {}))
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise InvalidValueError(f"BatchVecEnv({self.env}): num_envs must be a positive integer, got {num_envs!r}")
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
        self.turns = turn_model(self.batch)
        self.shuffle_seats = bool(shuffle_seats)
        self.seats = resolve_seats(self.env, seats)
        self._prototype = interface
        interfaces = resolve_interfaces(self.env, self.seats[:1], interface)
        observation_space, action_space = learner_spaces(self.env, self.seats[:1], interfaces)
        if self.turns == "alternating":
            self._check_alternating(action_space, team, member_done, team_spirit)
        self.team, self.member_done, self.team_spirit = _team_options(team, member_done, team_spirit)
        self.sides = self._learner_sides()
        self.render_mode = None  # SB3 reads it in __init__; a batch does not render
        games = int(num_envs)
        super().__init__(games * len(self.sides[0]), observation_space, action_space)
        self._learner = LearnerSlots(interface, self.num_envs)
        # MaskablePPO's layout (MultiDiscrete: the components' flags one after the other); a simultaneous
        # game may have continuous actions (soccer): no mask entries then
        entries = mask_length(action_space) or 0
        self._masks = np.ones((self.num_envs, entries), dtype=np.bool_)
        self._rows = np.arange(games)
        self._rotation = np.zeros(games, dtype=np.int64)
        self._turns = AlternatingTurns(self) if self.turns == "alternating" else SimultaneousTurns(self)
        self._fresh = np.zeros(self._turns.opponent_slots, dtype=bool)  # opponent slots starting an episode
        self._agents: list[Agent] = []
        self._players: list[BatchedPlayer] = []
        self._agent_codes: dict[int, int] = {}
        self._obs: Any = None
        self._actions: np.ndarray | None = None
        self._rng = np.random.default_rng()
        self._started = False
        self.set_opponents(opponents)

    def _check_alternating(self, action_space: spaces.Space, team: bool, member_done: bool, spirit: float) -> None:
        """An alternating batch: two players, ``Discrete`` moves, no side to share."""
        if len(self.env.possible_agents) != 2:
            raise InvalidValueError(
                f"BatchVecEnv: {self.batch} declares turns='alternating' for "
                f"{len(self.env.possible_agents)} players; it plays alternating batches for two"
            )
        if team or member_done or spirit:
            raise InvalidValueError(
                f"BatchVecEnv({self.env}): team, member_done and team_spirit are about a side whose members "
                f"move at once; {self.batch} declares turns='alternating'"
            )
        if not isinstance(action_space, spaces.Discrete):  # a board batch's moves: one mask entry per move
            raise InvalidTypeError(
                f"BatchVecEnv({self.env}): the learner's actions must be Discrete, got {action_space}"
            )

    def _learner_sides(self) -> list[tuple[int, ...]]:
        """The learner's possible sides as player indices: one seat each, or in team mode ``env.teams``' sides."""
        index = {agent: i for i, agent in enumerate(self.env.possible_agents)}
        if not self.team:
            return [(index[seat],) for seat in self.seats]
        teams = self.env.teams or {}
        sides = [tuple(index[a] for a in members) for members in teams.values()]
        if not sides or len({len(side) for side in sides}) != 1:
            raise InvalidValueError(
                f"BatchVecEnv({self.env}): team=True needs an env whose sides (env.teams) all have "
                f"the same number of seats, got {teams or 'no sides'}"
            )
        wanted = {index[seat] for seat in self.seats}
        return [side for side in sides if wanted & set(side)]

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
        In team mode, one opponent given once plays the whole other side.

        Raises:
            TypeError: an opponent (or pool member) that cannot act for many games at once (nor, on a
                simultaneous worker batch, be copied per game: :attr:`arena.Agent.copy_per_game`).
        """
        count = len(self.env.possible_agents) - len(self.sides[0]) if self.team else None
        if self.team and isinstance(opponents, (Agent, OpponentPool, str)):
            one = make_agent(opponents) if isinstance(opponents, str) else opponents
            opponents = [one] * (count or 0)
        resolved = resolve_opponents(self.env, opponents, count)
        for slot in resolved:
            for agent in slot if isinstance(slot, OpponentPool) else [slot]:
                if not (plays_in_batches(agent) or (self.copies_per_game and plays_per_game_copies(agent))):
                    raise InvalidTypeError(
                        f"BatchVecEnv({self.env}): opponent {agent} cannot act for many games at "
                        "once (see arena.Agent.act_batch)"
                        + (", nor be copied per game (arena.Agent.copy_per_game)" if self.copies_per_game else "")
                        + "; train against it with SingleAgentEnv"
                    )
        self.opponents = resolved

    @property
    def copies_per_game(self) -> bool:
        """Whether opponents that act one game at a time may play as one copy per slot: a simultaneous
        worker batch, whose games are single envs showing every seat the env's own observations."""
        from arena.worker_batch import WorkerBatch

        return self.turns == "simultaneous" and isinstance(self.batch, WorkerBatch)

    def _code(self, agent: Agent) -> int:
        """``agent``'s index among the opponents dealt since the last reset (set up and seeded at its first deal)."""
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
            per_game = plays_per_game_copies(agent)  # one copy per slot, each reset per episode from this seed
            seed = int(self._rng.integers(2**31 - 1)) if per_game else 0
            self._players.append(BatchedPlayer(agent, self._turns.opponent_slots, per_game=per_game, seed=seed))
        return code

    def _act(self, code: int, observations: Any, masks: Any, slots: np.ndarray, rewards: Any = None) -> np.ndarray:
        """Opponent ``code``'s actions in its ``slots`` (an episode starts at a slot's first move); ``rewards``,
        what each slot's seat earned since it last acted, reach an opponent that plays as copies per game."""
        agent = self._agents[code]
        if agent.acts_on_batch:  # a game's scripted player, reading the batch's own state
            self._fresh[slots] = False
            return np.asarray(agent.act_on_batch(self.batch, *self._turns.seats_of(slots)))
        actions = self._players[code].act(observations, masks, slots, self._fresh[slots], rewards)
        self._fresh[slots] = False
        return actions

    # ------------------------------------------------------------ VecEnv API
    def reset(self) -> Any:
        """Start every game (seeded by :meth:`seed` when it was called) and play the opponents' first moves."""
        seed = self._seeds[0]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._rotation[:] = 0
        self._reset_seeds()
        # each opponent is set up and seeded again when dealt
        self._agents, self._players, self._agent_codes = [], [], {}
        self._obs, self._masks = self._turns.reset()
        self._started = True
        return self._obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if not self._started or self._obs is None:
            raise ArenaError(f"{self}: step() called before reset()")
        self._obs, self._masks, reward, dones, infos = self._turns.step(np.asarray(self._actions))
        return self._obs, reward, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every sub-env, ``(num_envs, n)`` bool."""
        return self._masks

    def close(self) -> None:
        """Close the multi-agent env and the batch (a worker batch ends its workers)."""
        getattr(self.batch, "close", lambda: None)()
        self.env.close()

    def __str__(self) -> str:
        return f"<{type(self).__name__} {self.num_envs} games of {self.env} seats={self.seats}>"

    __repr__ = __str__


def _team_options(team: bool, member_done: bool, team_spirit: float) -> tuple[bool, bool, float]:
    """``team``, ``member_done`` and ``team_spirit`` checked against each other."""
    spirit = team_spirit
    if isinstance(spirit, bool) or not isinstance(spirit, (int, float)) or not 0 <= spirit <= 1:
        raise InvalidValueError(f"BatchVecEnv: team_spirit must be a number in [0, 1], got {team_spirit!r}")
    if (member_done or spirit) and not team:
        raise InvalidValueError(
            "BatchVecEnv: member_done and team_spirit are about the members of the learner's side: they need team=True"
        )
    return bool(team), bool(member_done), float(spirit)
