"""One seat of a multi-agent env as a single-agent ``gymnasium.Env``, opponents inside."""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from arena.actions import discrete_index
from arena.agents.base import Agent
from arena.env import AgentID, HoldsEnv, MultiAgentEnv
from arena.errors import AgentError, ArenaError, InvalidTypeError, InvalidValueError, ResetNeeded, UnknownAgentError
from arena.interface import Interface
from arena.registry import make_env
from arena.seeding import derive_seed
from arena.training.learner_arguments import (
    Opponent,
    learner_spaces,
    opponent_seats,
    resolve_interfaces,
    resolve_opponents,
    resolve_seats,
    resolve_teammates,
    team_members,
)
from arena.training.pool import OpponentPool

__all__ = ["SingleAgentEnv"]

_ILLEGAL_ACTION_MODES = ("raise", "forfeit")


class SingleAgentEnv(HoldsEnv, gymnasium.Env):
    """A learner's seat in a multi-agent env, with the other seats played by opponents.

    This is the bridge to single-agent libraries such as Stable-Baselines3: the learner
    sees one ``gymnasium.Env`` whose observations are its own (never another player's),
    while frozen opponents (any arena agents: random, scripted, saved policies,
    interface-wrapped agents, or an :class:`~arena.training.OpponentPool` of self-play
    snapshots) play the other seats inside.

    * :meth:`reset` deals seats, resets the env and plays the opponents until the
      learner must act.
    * :meth:`step` applies the learner's action (together with the opponents' actions
      when the env is simultaneous), then plays the opponents until the learner must
      act again or its episode ends.
    * The reward returned is everything the env gave the learner since its previous
      action: rewards that arrive during the opponents' turns are summed into the next
      return value, and the final reward arrives at termination even when an opponent
      made the last move. Rewards that arrive before the learner's first action join
      its first step's reward. No reward is returned twice, none is dropped.
    * :meth:`action_masks` returns the learner's current mask as booleans
      (sb3-contrib's ``MaskablePPO`` convention).
    * At the end of an episode the env gives the learner no new observation (it is
      not asked to act), so the last observation it saw is returned again.

    ``reset(seed=s)`` resets the env with ``s`` and re-seeds the opponents with
    ``derive_seed(s, index)`` (index = their seat's position in ``possible_agents``), so the
    episode is the one :func:`arena.play` plays with ``seed=s``; each later plain ``reset()``
    draws its episode seed from this env's ``np_random`` (seeded by ``s``), so the sequence
    replays too. :func:`arena.adapters.gymnasium.to_gymnasium` is this class with one fixed
    seat and fixed opponents.

    Args:
        env: an arena env, a registered name, a ``"module:callable"`` spec or a factory
            (built with :func:`arena.registry.make_env` and ``env_kwargs``).
        opponents: who plays the other seats: one opponent (copied for each seat
            when the game has several), or a sequence of one per other seat. An
            opponent is an :class:`~arena.Agent`, an agent spec for
            :func:`arena.registry.make_agent` (``"random"``), or an
            :class:`~arena.training.OpponentPool` sampled at every reset.
        seats: the seat the learner plays, or several to choose from (default: all).
        teammates: in an env with sides (``env.teams``), who plays the other seats of the
            learner's side: one frozen teammate (copied per seat) or a sequence in the
            side's seat order (learner's seat left out); ``opponents`` then fill only the
            other sides' seats. ``None``: every other seat goes to ``opponents``.
        shuffle_seats: when True the learner's seat is drawn at random from ``seats``
            on every reset and the opponents are dealt to the other seats in random
            order; when False the learner takes ``seats`` in turn (starting over from
            the first whenever ``reset`` is given a seed) and the opponents keep their
            order.
        interface: the learner's :class:`~arena.Interface` stack (one for all seats,
            copied per seat, or a dict keyed by seat); the env's spaces are the
            interface's. Rewards go through it once per returned value.
        illegal_action: ``"raise"`` (the env's error propagates) or ``"forfeit"``: an
            action the learner's mask forbids ends its episode with ``illegal_penalty``
            (for algorithms without masks, and for ``check_env`` tools that step with
            random actions).
        illegal_penalty: the reward added for a forfeit.
        env_kwargs: keyword options for building ``env`` from a name or factory.

    Raises:
        UnknownAgentError: a seat the env does not have.
        SpaceMismatchError: the learner's seats disagree on their (transformed) spaces.
        ValueError, TypeError: opponents of the wrong number or kind, bad options.

    Example:
        >>> import envs
        >>> from arena.training import SingleAgentEnv
        >>> env = SingleAgentEnv(envs.make("tic_tac_toe"), "random", seats="player_1")
        >>> obs, info = env.reset(seed=0)
        >>> info["seat"], int((obs != 0).sum())  # the opponent has already moved
        ('player_1', 1)
        >>> env.action_masks().sum()
        np.int64(8)
    """

    def __init__(
        self,
        env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        opponents: Opponent | Sequence[Opponent] = "random",
        seats: AgentID | Sequence[AgentID] | None = None,
        *,
        teammates: Opponent | Sequence[Opponent] | None = None,
        shuffle_seats: bool = False,
        interface: Interface | Mapping[AgentID, Interface] | None = None,
        illegal_action: str = "raise",
        illegal_penalty: float = -1.0,
        env_kwargs: Mapping[str, Any] | None = None,
    ) -> None:
        self.env: MultiAgentEnv = make_env(env, **dict(env_kwargs or {}))
        if not isinstance(self.env, MultiAgentEnv):
            raise InvalidTypeError(
                f"SingleAgentEnv: env must build an arena.MultiAgentEnv, got {type(self.env).__name__}"
            )
        if illegal_action not in _ILLEGAL_ACTION_MODES:
            raise InvalidValueError(
                f"SingleAgentEnv({self.env}): illegal_action must be one of "
                f"{list(_ILLEGAL_ACTION_MODES)}, got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.shuffle_seats = bool(shuffle_seats)
        self.seats = resolve_seats(self.env, seats)
        self.interface = interface if isinstance(interface, Interface) else None
        self._interfaces = resolve_interfaces(self.env, self.seats, interface)
        self.observation_space, self.action_space = learner_spaces(self.env, self.seats, self._interfaces)
        self.teammates = None if teammates is None else resolve_teammates(self.env, self.seats, teammates)
        self.set_opponents(opponents)
        self.metadata = dict(self.env.metadata)
        self.render_mode = self.env.render_mode
        self._rotation = 0
        self.seat: AgentID | None = None  # the learner's seat in the current episode
        self._cast_action = type(self.action_space) is spaces.Discrete
        self._clear_episode()

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """Replace the opponents (from the next episode on); same forms as the constructor.

        Self-play callbacks call this through ``VecEnv.env_method`` to refresh the
        opponents in every copy of the env.
        """
        seats = None if self.teammates is None else opponent_seats(self.env, self.seats)
        self.opponents = resolve_opponents(self.env, opponents, seats)
        self._copies: dict[tuple[int, int], Agent] = {}

    # ---------------------------------------------------------------- episodes
    def _clear_episode(self) -> None:
        self._playing: dict[AgentID, Agent] = {}
        self._pending: dict[AgentID, float] = {}
        self._finished: set[AgentID] = set()
        self._observations: dict[AgentID, Any] = {}
        self._infos: dict[AgentID, dict[str, Any]] = {}
        self._learner_obs: Any = None
        self._learner_info: dict[str, Any] = {}
        self._mask: np.ndarray | None = None
        self._running = False
        self._terminated = False
        self._truncated = False
        self._starting = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Deal seats, reset the env and play the opponents until the learner must act.

        Args:
            seed: re-seeds this env's ``np_random``, from which every episode's seed is drawn.
            options: passed to the multi-agent env's ``reset`` (e.g. fixed cards in poker).

        Returns:
            ``(observation, info)``: the learner's first observation and its info, with
            ``info["seat"]`` naming the learner's seat this episode.

        Raises:
            ArenaError: the episode ended before the learner was asked to act.
        """
        super().reset(seed=seed)
        self._abandon()
        if seed is not None:
            self._rotation = 0
        # A seeded reset plays the episode arena.play(seed=seed) plays; the next ones draw from np_random.
        episode_seed = int(seed) if seed is not None else int(self.np_random.integers(2**31 - 1))
        self._deal()
        for index, agent_id in enumerate(self.env.possible_agents):
            agent = self._playing.get(agent_id)
            if agent is None:
                continue
            obs_space, act_space = self.env.observation_space(agent_id), self.env.action_space(agent_id)
            if agent.observation_space is not obs_space or agent.action_space is not act_space:
                agent.setup(obs_space, act_space)
            agent.reset(seed=derive_seed(episode_seed, index))
        self._pending = dict.fromkeys(self.env.possible_agents, 0.0)
        self._running = True
        self._starting = True
        observations, infos = self.env.reset(seed=episode_seed, options=options)
        if self._advance(observations, infos):
            self._running = False
            raise ArenaError(
                f"SingleAgentEnv({self.env}): the episode ended before the learner ({self.seat!r}) was asked to act"
            )
        return self._learner_obs, self._learner_info

    def _deal(self) -> None:
        """Choose the learner's seat and seat the opponents around it."""
        rng = self.np_random
        if self.shuffle_seats:
            seat = self.seats[int(rng.integers(len(self.seats)))]
            order = [int(i) for i in rng.permutation(len(self.opponents))]
        else:
            seat = self.seats[self._rotation % len(self.seats)]
            self._rotation += 1
            order = list(range(len(self.opponents)))
        self.seat = seat
        mates: list[AgentID] = []
        if self.teammates is not None:
            mates = [agent_id for agent_id in team_members(self.env, seat) if agent_id != seat]
        others = [agent_id for agent_id in self.env.possible_agents if agent_id != seat and agent_id not in mates]
        seen: set[int] = set()
        self._playing = {}
        dealt = [(self.opponents[slot_index], slot_index, agent_id) for slot_index, agent_id in zip(order, others)]
        dealt += [
            (mate, -1 - index, agent_id) for index, (mate, agent_id) in enumerate(zip(self.teammates or [], mates))
        ]
        for slot, slot_index, agent_id in dealt:
            agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
            if id(agent) in seen:  # one object cannot play two seats: use a cached copy
                agent = self._copies.setdefault((id(agent), slot_index), copy.deepcopy(agent))
            seen.add(id(agent))
            self._playing[agent_id] = agent

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action and play on until it must act again or its episode ends.

        Returns:
            ``(observation, reward, terminated, truncated, info)`` from the learner's
            view; ``reward`` sums everything it received since its previous action.

        Raises:
            ResetNeeded: no episode is running (before ``reset`` or after the end).
            IllegalActionError, InvalidActionError: from the env, for a bad action
                (an action the mask forbids ends the episode instead when
                ``illegal_action="forfeit"``).
            AgentError: an opponent raised.
        """
        if not self._running:
            raise ResetNeeded(
                f"SingleAgentEnv({self.env}): step() called with no episode running; call reset() "
                "first (before the first step, or after the episode ended)"
            )
        if self._cast_action and isinstance(action, (np.integer, np.ndarray)) and np.ndim(action) == 0:
            action = int(action)  # SB3 hands numpy scalars to a Discrete space
        itf = self._interfaces[self._seat]
        raw_action = action if itf is None else itf.transform_action(action)
        if self.illegal_action == "forfeit" and self._forbidden(raw_action):
            return self._forfeit()
        actions = self._opponent_actions(self._observations, self._infos)
        actions[self._seat] = raw_action
        ended = self._advance(*self._step_env(actions))
        reward = self._pending[self._seat]
        self._pending[self._seat] = 0.0
        if itf is not None:
            reward = (
                itf.transform_done(reward, terminated=self._terminated, truncated=self._truncated)
                if ended
                else itf.transform_reward(reward)
            )
        if ended:
            self._end_episode()
            # No new observation comes at the end: the last one again, as a new object (check_env
            # rejects a step that returns the very object an earlier step returned).
            return (
                copy.deepcopy(self._learner_obs),
                float(reward),
                self._terminated,
                self._truncated,
                self._learner_info,
            )
        return self._learner_obs, float(reward), self._terminated, self._truncated, self._learner_info

    @property
    def _seat(self) -> AgentID:
        """The learner's seat in the running episode."""
        if self.seat is None:
            raise ResetNeeded(f"SingleAgentEnv({self.env}): no episode running; call reset() first")
        return self.seat

    def _forbidden(self, raw_action: Any) -> bool:
        mask = self._infos.get(self._seat, {}).get("action_mask")
        if mask is None:
            return False
        index = discrete_index(self.env.action_space(self._seat), raw_action)
        return index is not None and not mask[index]

    def _forfeit(self) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        reward = self._pending[self._seat] + self.illegal_penalty
        self._pending[self._seat] = 0.0
        itf = self._interfaces[self._seat]
        if itf is not None:
            reward = itf.transform_done(reward, terminated=True, truncated=False)
        self._terminated = True
        self._learner_info = {**self._learner_info, "forfeit": True}
        self._end_episode()
        return copy.deepcopy(self._learner_obs), float(reward), True, False, self._learner_info

    def _opponent_actions(
        self, observations: Mapping[AgentID, Any], infos: Mapping[AgentID, Any]
    ) -> dict[AgentID, Any]:
        actions: dict[AgentID, Any] = {}
        for agent_id, observation in observations.items():
            if agent_id == self.seat:
                continue
            agent = self._playing.get(agent_id)
            if agent is None:
                raise UnknownAgentError(f"SingleAgentEnv: {self.env} asked unknown agent {agent_id!r} to act")
            info = infos.get(agent_id)
            reward = self._pending[agent_id]
            self._pending[agent_id] = 0.0
            try:
                actions[agent_id] = agent.act(observation, info.get("action_mask") if info else None, reward)
            except Exception as err:
                raise AgentError(agent_id, err) from err
        return actions

    def _step_env(self, actions: dict[AgentID, Any]) -> tuple[dict, dict]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        pending = self._pending
        for agent_id, reward in rewards.items():
            pending[agent_id] += reward
        for flags, cut in ((terminations, False), (truncations, True)):
            for agent_id, flag in flags.items():
                if flag and agent_id not in self._finished:
                    self._finished.add(agent_id)
                    if agent_id == self.seat:
                        self._terminated, self._truncated = not cut, cut
                        self._learner_info = {**(infos.get(agent_id) or {}), "seat": self.seat}
                    else:
                        self._finish_opponent(agent_id, infos)
        return observations, infos

    def _advance(self, observations: dict[AgentID, Any], infos: dict[AgentID, Any]) -> bool:
        """Play the opponents until the learner must act (False) or its episode is over (True)."""
        while True:
            if self.seat in self._finished:
                return True
            if self.seat in observations:
                self._observations, self._infos = observations, infos
                self._observe(observations[self._seat], infos.get(self.seat) or {})
                return False
            if not observations:
                if self.env.agents:
                    raise ArenaError(
                        f"SingleAgentEnv: {self.env} returned no observations while agents "
                        f"{self.env.agents} are still in the episode"
                    )
                self._terminated = True  # the env ended without flagging the learner
                self._learner_info = {"seat": self.seat}
                return True
            observations, infos = self._step_env(self._opponent_actions(observations, infos))

    def _observe(self, raw_observation: Any, info: dict[str, Any]) -> None:
        itf = self._interfaces[self._seat]
        mask = info.get("action_mask")
        if itf is None:
            self._learner_obs = raw_observation
        else:
            if mask is not None:  # masks first, so an interface may fold the mask into the observation
                mask = itf.transform_action_mask(mask)
            if self._starting:
                self._learner_obs = itf.transform_reset(raw_observation)
            else:
                self._learner_obs = itf.transform_observation(raw_observation)
        self._starting = False
        self._mask = None if mask is None else np.asarray(mask, dtype=bool)
        self._learner_info = (
            {**info, "seat": self.seat} if mask is None else {**info, "action_mask": mask, "seat": self.seat}
        )

    def _finish_opponent(self, agent_id: AgentID, infos: Mapping[AgentID, Any]) -> None:
        agent = self._playing[agent_id]
        reward = self._pending[agent_id]
        self._pending[agent_id] = 0.0
        try:
            agent.done(reward, infos.get(agent_id) or {})
        except Exception as err:
            raise AgentError(agent_id, err) from err

    def _end_episode(self) -> None:
        """Tell every opponent still seated that the episode is over, exactly once."""
        self._running = False
        self._mask = None
        for agent_id in self._playing:
            if agent_id not in self._finished:
                self._finished.add(agent_id)
                self._finish_opponent(agent_id, {})

    def _abandon(self) -> None:
        """Close an episode cut short by ``reset`` (opponents still hear ``done``)."""
        if self._running:
            self._end_episode()
        self._clear_episode()

    # ------------------------------------------------------------------ extras
    @property
    def lineup(self) -> dict[AgentID, Agent]:
        """The agent in each opponent seat for the current episode (empty before ``reset``)."""
        return dict(self._playing)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool array (all True when the env has no mask).

        sb3-contrib's ``MaskablePPO`` calls this before every action (through
        ``VecEnv.env_method``).

        Raises:
            ArenaError: the action space is not Discrete or MultiDiscrete and the env has no mask.
        """
        if self._mask is not None:
            return self._mask
        space = self.action_space
        if isinstance(space, spaces.Discrete):
            return np.ones(int(space.n), dtype=bool)
        if isinstance(space, spaces.MultiDiscrete):
            return np.ones(int(np.asarray(space.nvec).sum()), dtype=bool)
        raise ArenaError(f"SingleAgentEnv({self.env}): no action mask for a {space} action space")

    def __str__(self) -> str:
        return f"<SingleAgentEnv{self.env} seats={self.seats}>"
