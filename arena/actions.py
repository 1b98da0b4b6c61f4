"""Checking the actions a ``step`` receives: the helpers env authors call and callers share.

:class:`ActionChecks` gives :class:`arena.MultiAgentEnv` its :meth:`~ActionChecks.check_actions`
(every edge case of the contract, with errors that name the agent) and
:meth:`~ActionChecks.turn_action` (the fast path of turn-based envs); :func:`discrete_index`
and :func:`action_int` read one discrete action of any integer kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import (
    ArenaError,
    IllegalActionError,
    InvalidActionError,
    ResetNeeded,
    WrongAgentsError,
)

__all__ = ["ActionChecks", "action_int", "discrete_index"]

_INTEGER_TYPES = (int, np.integer)


def action_int(action: Any) -> int | None:
    """``action`` as a plain ``int`` when it is an integer of any kind, else ``None``.

    Accepts ``int`` and its subclasses (``IntEnum`` members), numpy integer scalars and 0-d
    integer arrays; refuses ``bool``. Envs call it off their ``type(action) is int`` fast path.

    Example:
        >>> import enum
        >>> action_int(enum.IntEnum("Move", "UP DOWN").DOWN), action_int(np.int8(3)), action_int(True)
        (2, 3, None)
    """
    if isinstance(action, int):
        return None if isinstance(action, bool) else int(action)
    if isinstance(action, (np.integer, np.ndarray)) and np.ndim(action) == 0 and np.asarray(action).dtype.kind in "iu":
        return int(action)
    return None


def discrete_index(space: spaces.Space, action: Any) -> int | None:
    """Return ``action - space.start`` when ``space`` is Discrete.

    Returns ``None`` when ``space`` is not Discrete (the caller falls back to
    ``space.contains``). Raises :class:`InvalidActionError` for a Discrete action that
    is not an integer in range. Faster than ``Discrete.contains`` on the hot path.
    """
    if type(space) is not spaces.Discrete:
        return None
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if not isinstance(action, _INTEGER_TYPES) or isinstance(action, bool):
        raise InvalidActionError(f"action must be an integer in {space}, got {action!r}")
    index = int(action) - int(space.start)
    if not 0 <= index < int(space.n):
        raise InvalidActionError(f"action must lie in {space}, got {action!r}")
    return index


class ActionChecks:
    """The action checks of :class:`arena.MultiAgentEnv` (one of its bases): an env's ``step``
    calls them on what it received; they read the env's ``action_spaces``."""

    action_spaces: dict[str, spaces.Space]

    def check_actions(
        self,
        actions: Mapping[str, Any],
        acting: Iterable[str] | None,
        masks: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        """Validate ``actions`` for the agents in ``acting`` (helper for ``step``).

        Args:
            actions: what ``step`` received.
            acting: the agents asked to act (keys of the last observations), or ``None``
                when no episode is running.
            masks: the current action mask per agent, when the env has masks.

        Raises:
            ResetNeeded, WrongAgentsError, InvalidActionError, IllegalActionError.
        """
        if acting is None:
            raise ResetNeeded(
                f"{self}: step() called with no episode running; call reset() first "
                "(before the first step, or after the episode ended)"
            )
        if not isinstance(actions, Mapping):
            raise WrongAgentsError(
                f"{self}: step() expects a dict of actions keyed by agent id, got {type(actions).__name__}"
            )
        expected = acting if isinstance(acting, (list, tuple)) else list(acting)
        if len(actions) != len(expected) or any(a not in actions for a in expected):
            raise WrongAgentsError(
                f"{self}: step() expected actions for exactly {sorted(expected)} "
                f"(the agents in the last observations), got {sorted(map(str, actions))}"
            )
        for agent in expected:
            action = actions[agent]
            space = self.action_spaces[agent]
            try:
                index = discrete_index(space, action)
            except InvalidActionError as err:
                raise InvalidActionError(f"{self}: action for {agent!r}: {err}") from None
            if index is None:
                if not space.contains(action):
                    raise InvalidActionError(f"{self}: action for {agent!r} must lie in {space}, got {action!r}")
                continue
            if masks is not None:
                mask = masks.get(agent)
                if mask is not None and not mask[index]:
                    raise IllegalActionError(
                        f"{self}: action {action!r} for {agent!r} is illegal now; "
                        f"legal actions: {np.flatnonzero(mask).tolist()}"
                    )

    def turn_action(
        self,
        actions: Mapping[str, Any],
        acting: tuple[str, ...] | None,
        mask: np.ndarray,
        *,
        enforce_mask: bool = True,
    ) -> int:
        """The one mover's discrete action of a turn-based ``step``, as a plain ``int``.

        The fast path of turn-based envs: a dict holding exactly the mover's action, an integer
        of any kind (see :func:`action_int`) in ``range(len(mask))``, legal under ``mask``.
        Anything else goes to :meth:`check_actions`, whose error says what was wrong.

        Args:
            actions: what ``step`` received.
            acting: the one-agent tuple of the agent asked to act, or ``None`` when no episode
                is running.
            mask: the mover's current action mask (nonzero = legal).
            enforce_mask: ``False`` accepts any in-range action (envs that penalise illegal
                moves instead of refusing them).

        Raises:
            ResetNeeded, WrongAgentsError, InvalidActionError, IllegalActionError: as
            :meth:`check_actions` does.
        """
        if acting is not None and (type(actions) is dict or isinstance(actions, Mapping)) and len(actions) == 1:
            action = actions.get(acting[0])
            if type(action) is not int:
                action = action_int(action)  # numpy integers, IntEnum members; None for anything else
            if action is not None and 0 <= action < len(mask) and (mask[action] or not enforce_mask):
                return action
        self.check_actions(actions, acting, {acting[0]: mask} if acting and enforce_mask else None)
        raise ArenaError(f"{self}: could not apply {actions!r}")  # check_actions always raises here
