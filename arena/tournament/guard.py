"""The referee at each seat: faults become forfeits charged to the entrant that made them.

:class:`GuardedAgent` wraps an entrant's agent for one game. It checks every action against
the seat's action space and mask *before* the env sees it (so a bad action is attributed to
the agent, not reported as an env error), turns any exception the agent raises into an
:class:`arena.errors.Forfeit` (entrant name, reason), and enforces a per-move time limit.

The time limit really interrupts a hung move: in the main thread of the process that runs the
game, ``signal.setitimer(ITIMER_REAL)`` fires ``SIGALRM`` after the limit and the handler raises
:class:`MoveTimeout` inside the agent's code (Python loops and blocking sleeps are interrupted).
A move that cannot be interrupted (a C extension that never returns to Python) is still
charged with a forfeit when it returns late; where no timer can be installed (a thread other
than the main one) only that after-the-fact check applies.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from typing import Any

from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import discrete_index
from arena.errors import Forfeit, InvalidActionError

__all__ = ["MoveTimeout", "GuardedAgent", "MoveTimer"]


class MoveTimeout(BaseException):
    """Raised inside a move that ran past the time limit.

    A ``BaseException`` (like ``KeyboardInterrupt``), so that an agent's own
    ``except Exception`` cannot swallow it.
    """


class MoveTimer:
    """A per-process interval timer that raises :class:`MoveTimeout` in the move it interrupts.

    Usable only from the main thread (``available`` says whether it is); install it once per
    process with :meth:`install` and give the previous handler back with :meth:`uninstall`.
    """

    def __init__(self) -> None:
        self.available = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        self._armed = False
        self._previous: Any = None
        self._installed = False

    def install(self) -> None:
        if self.available and not self._installed:
            self._previous = signal.signal(signal.SIGALRM, self._fire)
            self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            self.disarm()
            signal.signal(signal.SIGALRM, self._previous if self._previous is not None else signal.SIG_DFL)
            self._installed = False

    def _fire(self, signum: int, frame: Any) -> None:
        # A signal that was already pending when the move ended must not hit the env.
        if self._armed:
            self._armed = False
            raise MoveTimeout()

    def arm(self, seconds: float) -> None:
        if self._installed:
            self._armed = True
            signal.setitimer(signal.ITIMER_REAL, seconds)

    def disarm(self) -> None:
        if self._installed:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)


def _describe(err: BaseException) -> str:
    """``Type: message`` plus the innermost frame, so the stored text points at the fault."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    return f"{type(err).__name__}: {err}{where}"


class GuardedAgent(Agent):
    """An entrant's agent under the referee's eye for one seat.

    Args:
        agent: the entrant's agent.
        entrant: the entrant's name, for the forfeit record.
        move_time_limit: seconds per :meth:`act` call, or ``None`` for no limit.
        timer: the process's :class:`MoveTimer` (``None``: check elapsed time only).

    Example:
        >>> import numpy as np
        >>> from arena import RandomAgent
        >>> guard = GuardedAgent(RandomAgent(seed=0), "rnd")
        >>> guard.setup(spaces.Discrete(3), spaces.Discrete(3))
        >>> guard.act(0, np.array([0, 1, 0], dtype=np.int8))
        1
    """

    def __init__(self, agent: Agent, entrant: str, move_time_limit: float | None = None,
                 timer: MoveTimer | None = None) -> None:
        self.agent = agent
        self.entrant = entrant
        self.move_time_limit = move_time_limit
        self.timer = timer
        self._discrete: tuple[int, int] | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        is_discrete = type(action_space) is spaces.Discrete
        self._discrete = (int(action_space.start), int(action_space.n)) if is_discrete else None
        try:
            if self.agent.observation_space is not observation_space or self.agent.action_space is not action_space:
                self.agent.setup(observation_space, action_space)
        except Exception as err:
            raise Forfeit(self.entrant, f"setup() raised {_describe(err)}") from err

    def reset(self, *, seed: int | None = None) -> None:
        try:
            self.agent.reset(seed=seed)
        except Exception as err:
            raise Forfeit(self.entrant, f"reset() raised {_describe(err)}") from err

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        limit = self.move_time_limit
        if limit is None:
            try:
                action = self.agent.act(observation, action_mask, reward)
            except Forfeit as err:  # the agent gave up itself (a person typed q)
                raise Forfeit(self.entrant, err.reason) from err
            except Exception as err:
                raise Forfeit(self.entrant, f"act() raised {_describe(err)}") from err
            self._check(action, action_mask)
            return action
        start = time.perf_counter()
        try:
            if self.timer is not None:
                self.timer.arm(limit)
            try:
                action = self.agent.act(observation, action_mask, reward)
            finally:
                if self.timer is not None:
                    self.timer.disarm()
        except MoveTimeout:
            raise Forfeit(self.entrant, f"exceeded the move time limit of {limit:g} s (interrupted)") from None
        except Forfeit as err:  # the agent gave up itself (a person typed q)
            raise Forfeit(self.entrant, err.reason) from err
        except Exception as err:
            raise Forfeit(self.entrant, f"act() raised {_describe(err)}") from err
        elapsed = time.perf_counter() - start
        if elapsed > limit:
            raise Forfeit(self.entrant, f"exceeded the move time limit of {limit:g} s (took {elapsed:.3f} s)")
        self._check(action, action_mask)
        return action

    def _check(self, action: Any, action_mask: Any) -> None:
        discrete = self._discrete
        if discrete is not None and type(action) is int:  # the common case, checked in a few operations
            index = action - discrete[0]
            if 0 <= index < discrete[1] and (action_mask is None or action_mask[index]):
                return
        space = self.action_space
        try:
            index = discrete_index(space, action)
        except InvalidActionError as err:
            raise Forfeit(self.entrant, f"invalid action: {err}") from None
        if index is None:
            if space is not None and not space.contains(action):
                raise Forfeit(self.entrant, f"invalid action: {action!r} does not lie in {space}")
            return
        if action_mask is not None and not action_mask[index]:
            legal = [int(i) + int(space.start) for i in action_mask.nonzero()[0]]
            raise Forfeit(self.entrant, f"illegal action {action!r}; legal actions were {legal}")

    def done(self, reward: float, info: dict[str, Any]) -> None:
        try:
            self.agent.done(reward, info)
        except Exception as err:
            raise Forfeit(self.entrant, f"done() raised {_describe(err)}") from err

    def __str__(self) -> str:
        return f"GuardedAgent({self.agent}, {self.entrant!r})"
