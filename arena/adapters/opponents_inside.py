"""Fixed opponents played inside a multi-agent env: :class:`OpponentsInside`.

A library that learns every agent it sees (RLlib) can meet scripted, stateful arena agents
(``pommerman_simple``) this way: they sit in the env, the library sees only the other seats.
It is the multi-agent counterpart of :class:`arena.training.SingleAgentEnv`'s opponents.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv, MultiAgentWrapper
from arena.errors import InvalidTypeError, InvalidValueError, ResetNeeded, UnknownAgentError
from arena.registry import make_agent
from arena.seeding import derive_seed

__all__ = ["OpponentsInside"]


class OpponentsInside(MultiAgentWrapper):
    """An arena env whose ``opponents`` seats are played inside by arena agents; the other seats stay outside.

    The opponents follow :func:`arena.play`'s rules: each acts when the env names it (on its raw
    observation and action mask), receives the reward it earned since it last acted, and is told
    its final reward once (``done``). The outside agents keep the env's protocol: their
    observations, rewards, terminations and infos only. When the env asks only opponents to act
    (turns, or the outside side is out of play), they play on within the same ``reset`` or
    ``step`` until an outside agent must act or the episode is over; rewards the outside agents
    earn meanwhile are summed into what that call returns.

    Edge cases: ``reset(seed=s)`` resets opponent ``i`` (its index in the env's
    ``possible_agents``) with ``derive_seed(s, i)``, so an episode repeats with its seed. The
    episode is over when :attr:`agents` is empty, which may be before the env's own end: once
    no outside agent is left the opponents are not played on (their ``done`` is not called;
    the next ``reset`` starts them anew). ``step`` after the end raises :class:`~arena.errors.ResetNeeded`. ``teams`` keep only the outside members (a side played
    wholly inside disappears).

    Args:
        env: the arena env.
        opponents: seat -> an :class:`~arena.Agent` or a registered agent name (built once per
            seat). One agent object given for several seats is copied per seat (agents hold state).

    Raises:
        UnknownAgentError: a seat the env does not have.
        ValueError: no seat left outside.
        TypeError: an opponent that is neither an agent nor a name.

    Example:
        >>> import envs
        >>> env = OpponentsInside(envs.make("tic_tac_toe"), {"player_1": "random"})
        >>> env.possible_agents
        ['player_0']
        >>> observations, infos = env.reset(seed=0)
        >>> sorted(observations), sorted(env.step({"player_0": 4})[0])
        (['player_0'], ['player_0'])
    """

    def __init__(self, env: MultiAgentEnv, opponents: Mapping[AgentID, Agent | str]) -> None:
        super().__init__(env)
        unknown = [seat for seat in opponents if seat not in env.possible_agents]
        if unknown:
            raise UnknownAgentError(
                f"OpponentsInside: opponents name unknown agent {unknown[0]!r}; {env} has {list(env.possible_agents)}"
            )
        self.possible_agents = [a for a in env.possible_agents if a not in opponents]
        if not self.possible_agents:
            raise InvalidValueError(f"OpponentsInside: every seat of {env} is an opponent; leave at least one outside")
        self.opponents: dict[AgentID, Agent] = {}
        for seat, opponent in opponents.items():
            agent = make_agent(opponent) if isinstance(opponent, str) else opponent
            if not isinstance(agent, Agent):
                raise InvalidTypeError(
                    f"OpponentsInside: the opponent for {seat!r} must be an arena.Agent or a registered agent "
                    f"name, got {type(opponent).__name__}"
                )
            if any(agent is other for other in self.opponents.values()):
                agent = copy.deepcopy(agent)  # one object for two seats would mix their state
            agent.setup(env.observation_space(seat), env.action_space(seat))
            self.opponents[seat] = agent
        self._index = {seat: env.possible_agents.index(seat) for seat in self.opponents}
        self.observation_spaces = {a: env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: env.action_space(a) for a in self.possible_agents}
        if env.teams is not None:
            outside = {team: tuple(a for a in ids if a not in opponents) for team, ids in env.teams.items()}
            self.teams = {team: ids for team, ids in outside.items() if ids}
        self.team_outcome = env.team_outcome
        self._waiting: dict[AgentID, tuple[Any, Any]] = {}  # opponent -> (observation, mask) it must act on
        self._owed: dict[AgentID, float] = {}  # opponent -> reward since it last acted
        self._carried: dict[AgentID, float] = {}  # outside agent -> reward earned during reset

    @property
    def agents(self) -> list[AgentID]:  # type: ignore[override]  # read-only: the env's outside agents
        return [a for a in self.env.agents if a not in self.opponents]

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env and the opponents; plays them on until an outside agent must act."""
        observations, infos = self.env.reset(seed=seed, options=options)
        for seat, agent in self.opponents.items():
            agent.reset(seed=None if seed is None else derive_seed(seed, self._index[seat]))
        self._owed = dict.fromkeys(self.opponents, 0.0)
        self._waiting = {}
        observations, rewards, _, _, infos = self._take(observations, {}, {}, {}, infos)
        while not observations and self.agents and self._waiting:
            observations, rewards, _, _, infos = self._play_opponents({}, rewards)
        self._carried = rewards  # earned before their first action: paid with the first step's rewards
        return observations, infos

    def step(self, actions: Mapping[AgentID, Any]):
        """Step with the outside agents' ``actions`` and the opponents' own; see the class docstring."""
        if not self.agents:
            raise ResetNeeded(f"OpponentsInside: step on {self.env} after the episode's end; call reset first")
        carried, self._carried = self._carried, {}
        observations, rewards, terminations, truncations, infos = self._play_opponents(actions, carried)
        while not observations and self.agents and self._waiting:
            more = self._play_opponents({}, rewards)
            observations, rewards = more[0], more[1]
            terminations.update({a: terminations.get(a, False) or v for a, v in more[2].items()})
            truncations.update({a: truncations.get(a, False) or v for a, v in more[3].items()})
            infos.update(more[4])
        return observations, rewards, terminations, truncations, infos

    def _play_opponents(self, actions: Mapping[AgentID, Any], rewards: dict[AgentID, float]):
        """One env step: the given actions with those of the opponents the env asked."""
        merged = dict(actions)
        for seat, (observation, mask) in self._waiting.items():
            merged[seat] = self.opponents[seat].act(observation, mask, reward=self._owed[seat])
            self._owed[seat] = 0.0
        self._waiting = {}
        observations, step_rewards, terminations, truncations, infos = self.env.step(merged)
        totals = dict(rewards)
        for agent, reward in step_rewards.items():
            if agent in self.opponents:
                self._owed[agent] += float(reward)
            else:
                totals[agent] = totals.get(agent, 0.0) + float(reward)
        return self._take(observations, totals, terminations, truncations, infos)

    def _take(self, observations, rewards, terminations, truncations, infos):
        """Keep the opponents' part (what they act on next; their ``done``) and return the outside part."""
        for seat, agent in self.opponents.items():
            if terminations.get(seat) or truncations.get(seat):
                agent.done(self._owed[seat], infos.get(seat) or {})
                self._owed[seat] = 0.0
            if seat in observations:
                self._waiting[seat] = (observations[seat], (infos.get(seat) or {}).get("action_mask"))

        def outside(values: Mapping[AgentID, Any]) -> dict[AgentID, Any]:
            return {a: v for a, v in values.items() if a not in self.opponents}

        return outside(observations), rewards, outside(terminations), outside(truncations), outside(infos)
