"""Checks and defaults for :class:`~arena.training.SingleAgentEnv`: seats, interfaces, opponents."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv
from arena.errors import InvalidTypeError, InvalidValueError, SpaceMismatchError, UnknownAgentError
from arena.interface import Interface
from arena.registry import make_agent
from arena.training.pool import OpponentPool

__all__ = [
    "resolve_seats",
    "resolve_interfaces",
    "learner_spaces",
    "resolve_opponents",
    "resolve_teammates",
    "opponent_seats",
    "team_members",
    "Opponent",
]

Opponent = Agent | OpponentPool | str


def resolve_seats(env: MultiAgentEnv, seats: AgentID | Sequence[AgentID] | None) -> list[AgentID]:
    """The learner's seats as a list (``None``: every seat), checked against ``env``.

    Raises:
        UnknownAgentError: a seat the env does not have.
        ValueError: repeated seats.
        TypeError: ``seats`` of the wrong kind.
    """
    possible = list(env.possible_agents)
    if seats is None:
        chosen = list(possible)
    elif isinstance(seats, str):
        chosen = [seats]
    elif isinstance(seats, Sequence) and seats:
        chosen = list(seats)
    else:
        raise InvalidTypeError(
            f"SingleAgentEnv({env}): seats must be an agent id, a non-empty "
            f"sequence of agent ids or None, got {seats!r}"
        )
    for seat in chosen:
        if seat not in possible:
            raise UnknownAgentError(f"SingleAgentEnv: {env} has no seat {seat!r}; expected one of {possible}")
    if len(set(chosen)) != len(chosen):
        raise InvalidValueError(f"SingleAgentEnv({env}): seats repeat an agent id: {chosen}")
    return chosen


def resolve_interfaces(env: MultiAgentEnv, seats: list[AgentID], interface: Any) -> dict[AgentID, Interface | None]:
    """One interface (or ``None``) per learner seat, each set up on that seat's raw spaces.

    A single interface serves the first seat and deep copies serve the others: interfaces
    hold per-episode state and their own spaces.
    """
    if interface is None:
        return dict.fromkeys(seats)
    chosen: dict[AgentID, Interface | None]
    if isinstance(interface, Interface):
        chosen = {seat: interface if i == 0 else copy.deepcopy(interface) for i, seat in enumerate(seats)}
    elif isinstance(interface, Mapping):
        missing = [seat for seat in seats if seat not in interface]
        if missing:
            raise InvalidValueError(f"SingleAgentEnv({env}): interface dict has no entry for seats {missing}")
        chosen = {seat: interface[seat] for seat in seats}
    else:
        raise InvalidTypeError(
            f"SingleAgentEnv({env}): interface must be an arena.Interface, a dict keyed "
            f"by seat or None, got {type(interface).__name__}"
        )
    for seat, itf in chosen.items():
        if itf is None:
            continue
        if not isinstance(itf, Interface):
            raise InvalidTypeError(
                f"SingleAgentEnv({env}): interface for {seat!r} must be an arena.Interface, got {type(itf).__name__}"
            )
        itf.setup(env.observation_space(seat), env.action_space(seat))
    return chosen


def learner_spaces(
    env: MultiAgentEnv, seats: list[AgentID], interfaces: Mapping[AgentID, Interface | None]
) -> tuple[spaces.Space, spaces.Space]:
    """The learner's (observation, action) spaces, which every seat must share.

    Raises:
        SpaceMismatchError: naming two seats whose (transformed) spaces differ.
    """
    found = []
    for seat in seats:
        itf = interfaces[seat]
        if itf is None:
            found.append((env.observation_space(seat), env.action_space(seat)))
        else:
            found.append((itf.observation_space, itf.action_space))
    for seat, pair in zip(seats[1:], found[1:]):
        if pair[0] != found[0][0] or pair[1] != found[0][1]:
            raise SpaceMismatchError(
                f"SingleAgentEnv({env}): the learner's seats must share spaces; {seats[0]!r} has "
                f"{found[0][0]} / {found[0][1]} but {seat!r} has {pair[0]} / {pair[1]}"
            )
    return found[0]


def team_members(env: MultiAgentEnv, seat: AgentID) -> tuple[AgentID, ...]:
    """The agent ids of ``seat``'s side, in seat order (``(seat,)`` in an env without sides)."""
    for ids in (env.teams or {}).values():
        if seat in ids:
            return tuple(ids)
    return (seat,)


def opponent_seats(env: MultiAgentEnv, seats: list[AgentID]) -> int:
    """How many seats the opponents fill when teammates fill the learner's side.

    Raises:
        ValueError: the learner's seats lie in sides of different sizes.
    """
    sizes = {len(team_members(env, seat)) for seat in seats}
    if len(sizes) != 1:
        raise InvalidValueError(
            f"SingleAgentEnv({env}): with teammates, the learner's seats {seats} must lie in sides of "
            f"one size, got sizes {sorted(sizes)}; choose seats with seats=..."
        )
    return len(env.possible_agents) - sizes.pop()


def resolve_teammates(
    env: MultiAgentEnv, seats: list[AgentID], teammates: Opponent | Sequence[Opponent]
) -> list[Agent | OpponentPool]:
    """One frozen teammate per other seat of the learner's side (agent specs are built).

    Raises:
        ValueError: ``env`` has no sides, or a sequence of the wrong length.
        TypeError: anything that is not an agent, an agent spec or a pool.
    """
    if not env.teams:
        raise InvalidValueError(f"SingleAgentEnv({env}): teammates need an env with sides, but its teams is None")
    count = len(env.possible_agents) - opponent_seats(env, seats) - 1
    return resolve_opponents(env, teammates, count, what="teammate")


def resolve_opponents(
    env: MultiAgentEnv, opponents: Opponent | Sequence[Opponent], count: int | None = None, *, what: str = "opponent"
) -> list[Agent | OpponentPool]:
    """One opponent (agent or pool) per other seat; agent specs are built, one agent per seat.

    Args:
        env: the env.
        opponents: one opponent for every seat, or a sequence of one per seat.
        count: the seats to fill (default: every seat but the learner's).
        what: ``"opponent"`` or ``"teammate"``, for messages.

    Raises:
        ValueError: a sequence of the wrong length.
        TypeError: anything that is not an agent, an agent spec or a pool.
    """
    others = len(env.possible_agents) - 1 if count is None else count
    if isinstance(opponents, (Agent, OpponentPool, str)):
        slots = [opponents] * others
    elif isinstance(opponents, Sequence):
        slots = list(opponents)
        if len(slots) != others:
            raise InvalidValueError(
                f"SingleAgentEnv({env}): {others} other seats need {others} {what}s, got {len(slots)}"
            )
    else:
        raise InvalidTypeError(
            f"SingleAgentEnv({env}): {what}s must be an arena.Agent, an agent spec, an "
            f"OpponentPool or a sequence of them, got {type(opponents).__name__}"
        )
    resolved: list[Agent | OpponentPool] = []
    for slot in slots:
        if isinstance(slot, str):
            slot = make_agent(slot)  # a fresh agent per seat
        if not isinstance(slot, (Agent, OpponentPool)):
            raise InvalidTypeError(
                f"SingleAgentEnv({env}): {'an' if what == 'opponent' else 'a'} {what} must be an arena.Agent, an agent spec "
                f"or an OpponentPool, got {type(slot).__name__}"
            )
        resolved.append(slot)
    return resolved
