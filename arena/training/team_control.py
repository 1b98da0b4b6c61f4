"""Training in team games: a model for a whole side, and side-sized opponents for it.

``arena train --control team`` learns one model for every seat of a side, on
:class:`arena.GroupTeams` (one agent per side, Tuple spaces): the model's interface is
``ConcatenateTeam(Combine(None, [member stack] * seats))`` and every other side is played
by :func:`side_agent` (one frozen agent per seat, grouped). ``--teammate`` needs nothing
here: :class:`~arena.training.SingleAgentEnv` seats the teammates itself.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import InvalidValueError
from arena.interface import Combine, Interface
from arena.plugins import make_interface
from arena.registry import make_agent
from arena.specs.interfaces import build_interface

__all__ = ["team_stack", "side_agent"]


def team_stack(member_interface: Interface | str | Mapping[str, Any] | None, seats: int) -> Interface:
    """The interface of a model that controls a side of ``seats`` seats.

    Each seat gets its own copy of ``member_interface`` (specs as
    :func:`~arena.training.build_interface` reads them, or ``None`` for raw), and the
    registered ``concatenate_team`` interface joins them into one observation vector and
    one (Multi)Discrete or Box action.

    Raises:
        ValueError: ``seats`` is not a positive integer.

    Example:
        >>> str(team_stack(None, 2))
        'ConcatenateTeam(Combine(None, [Interface(), Interface()]))'
    """
    if not isinstance(seats, int) or isinstance(seats, bool) or seats < 1:
        raise InvalidValueError(f"team_stack: seats must be a positive integer, got {seats!r}")
    if isinstance(member_interface, Interface):  # interfaces hold per-seat state: a copy per seat
        members: list[Interface | None] = [copy.deepcopy(member_interface) for _ in range(seats)]
    else:
        members = [build_interface(member_interface) for _ in range(seats)]
    return make_interface("concatenate_team", Combine(None, members))


def side_agent(agent: Agent | str, seats: int) -> Agent:
    """One agent per seat of a side, grouped as one team agent (Tuple spaces).

    The opponent of a side model on :class:`arena.GroupTeams`: ``agent`` (a spec is built
    once per seat) plays each seat on the raw observations.

    Example:
        >>> str(side_agent("random", 2))
        'AgtItfWrapper([RandomAgent, RandomAgent], Combine(None, [Interface(), Interface()]))'
    """
    if isinstance(agent, Agent):
        members = [agent] + [copy.deepcopy(agent) for _ in range(seats - 1)]
    else:
        members = [make_agent(agent) for _ in range(seats)]
    return AgtItfWrapper(members, Combine(None, [None] * seats))
