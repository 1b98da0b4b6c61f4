"""The referee at each seat: faults become forfeits charged to the entrant that made them.

:class:`GuardedAgent` wraps an entrant's agent for one game. It checks every action against
the seat's action space and mask *before* the env sees it (so a bad action is attributed to
the agent, not reported as an env error), turns any exception the agent raises into an
:class:`arena.errors.Forfeit` (entrant name, reason), and enforces a per-move time limit.
The agent is handed its own copies of the observation, the mask and the final info (numpy
arrays, and dicts, tuples and lists of them), and the action is checked against the env's own
mask: an agent that writes on what it was given changes neither the referee's check nor an env
that reuses its arrays.

The time limit really interrupts a hung move: in the main thread of the process that runs the
game, ``signal.setitimer(ITIMER_REAL)`` fires ``SIGALRM`` after the limit and the handler raises
:class:`MoveTimeout` inside the agent's code (Python loops and blocking sleeps are interrupted).
A move that cannot be interrupted this way (an agent that swallows the interrupt, or C code
that never returns to Python) is ended from outside: a guard in a worker process reports each
call into the agent to a :class:`SeatWatch` (which entrant, which call, the move's deadline) in
memory the tournament's process reads, and that process kills the worker once the deadline
has passed by a grace period, charges the move with a forfeit and starts another worker
(:mod:`arena.runtime.runner`). The same record lets the tournament charge an entrant that
ends its worker itself (``os._exit``, a segfault) with a forfeit.

``SystemExit`` and ``KeyboardInterrupt`` raised by an agent are forfeits too; a real Ctrl-C
(see :func:`user_interrupted`) still stops the tournament.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import numpy as np
from gymnasium import spaces

from arena.actions import discrete_index
from arena.agents.base import Agent
from arena.errors import Forfeit, InvalidActionError, InvalidValueError, MoveTimeout
from arena.runtime.processes import end_tree

__all__ = [
    "GuardedAgent",
    "MoveTimer",
    "SeatWatch",
    "PHASES",
    "MAX_MOVE_TIME_LIMIT",
    "check_move_time_limit",
    "user_interrupted",
    "orders_from_parent",
    "end_process",
]

# The longest move time limit: far past any move worth waiting for, and far inside the range of
# every platform's interval timer (``setitimer`` overflows near 2**31 seconds).
MAX_MOVE_TIME_LIMIT = 86_400.0

# What an entrant was asked to do, as a :class:`SeatWatch` records it (index = code).
PHASES = ("", "setup", "reset", "act", "done", "build")

_user_interrupt = False


def user_interrupted(value: bool | None = None) -> bool:
    """Whether the person running the tournament pressed Ctrl-C (``value`` sets it).

    The serial backend's SIGINT handler sets it, so that a ``KeyboardInterrupt`` an agent raises
    itself is told apart from the user's and costs only that agent's game.
    """
    global _user_interrupt
    if value is not None:
        _user_interrupt = value
    return _user_interrupt


class SeatWatch:
    """Where a worker's games stand, in shared memory its parent reads: one entrant's view.

    ``state`` is a ``multiprocessing`` double array ``[game, entrant, phase, deadline]``: the
    position of the game in the worker's chunk (the runner writes it), the entrant's index, the
    :data:`PHASES` code of the call in progress and the ``time.monotonic()`` deadline of a move
    (0: none). Writing four doubles costs far less than the call it brackets.
    """

    __slots__ = ("state", "entrant")

    def __init__(self, state: Any, entrant: int) -> None:
        self.state = state
        self.entrant = entrant

    def begin(self, phase: int, limit: float | None = None) -> None:
        state = self.state
        state[3] = 0.0 if limit is None else time.monotonic() + limit
        state[1] = self.entrant
        state[2] = phase

    def end(self) -> None:
        state = self.state
        state[2] = 0
        state[1] = -1
        state[3] = 0.0

    @staticmethod
    def shared_record(context: Any) -> Any:
        """A new record for one worker process, in memory shared with its parent (nothing called yet)."""
        return context.RawArray("d", [-1.0, -1.0, 0.0, 0.0])

    @staticmethod
    def overdue(state: Any, now: float, grace: float) -> bool:
        """Whether the move a record watches is past its deadline by ``grace`` seconds (the parent asks)."""
        deadline = state[3]
        return deadline > 0 and now > deadline + grace


def check_move_time_limit(limit: Any, name: str = "move_time_limit") -> float | None:
    """``limit`` as seconds (``None``: no limit), or a ``ValueError`` naming ``name`` and the range.

    Example:
        >>> check_move_time_limit(2), check_move_time_limit(None)
        (2.0, None)
        >>> check_move_time_limit(1e10)
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: move_time_limit must be a number of seconds greater than 0 and at most 86400 (one day), got 10000000000.0
    """
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 0 < limit <= MAX_MOVE_TIME_LIMIT:
        raise InvalidValueError(
            f"{name} must be a number of seconds greater than 0 and at most {MAX_MOVE_TIME_LIMIT:.0f} (one day), "
            f"got {limit!r}"
        )
    return float(limit)


def _private(value: Any) -> Any:
    """A copy of what the env handed out, for an agent to keep or write on: numpy arrays, and
    dicts, tuples and lists of them (other values are immutable or the env's own business)."""
    kind = type(value)
    if kind is np.ndarray:
        return value.copy()
    if kind is dict:
        return {key: _private(item) for key, item in value.items()}
    if kind is tuple or kind is list:
        return kind(_private(item) for item in value)
    return value


def orders_from_parent(connection: Any, parent_pid: int) -> Iterator[Any]:
    """What a worker process's parent sends it, one message at a time, until the parent sends
    ``None`` or dies (checked every second: the worker then stops quietly instead of lingering)."""
    while True:
        while not connection.poll(1.0):
            if os.getppid() != parent_pid:
                return
        order = connection.recv()
        if order is None:
            return
        yield order


def end_process(process: Any, tag: str | None = None) -> None:
    """End a worker process by its PID if it still runs, with every process it started (those
    under it, and those carrying its ``tag``: see :mod:`arena.runtime.processes`), and reap it."""
    end_tree(process.pid if process.is_alive() else None, tag)
    process.join(timeout=5)


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
        watch: reports each call to the tournament's process (``None``: in-process play).

    Example:
        >>> import numpy as np
        >>> from arena import RandomAgent
        >>> guard = GuardedAgent(RandomAgent(seed=0), "rnd")
        >>> guard.setup(spaces.Discrete(3), spaces.Discrete(3))
        >>> guard.act(0, np.array([0, 1, 0], dtype=np.int8))
        1
    """

    def __init__(
        self,
        agent: Agent,
        entrant: str,
        move_time_limit: float | None = None,
        timer: MoveTimer | None = None,
        watch: SeatWatch | None = None,
    ) -> None:
        self.agent = agent
        self.entrant = entrant
        self.move_time_limit = check_move_time_limit(move_time_limit)
        self.timer = timer
        self.watch = watch
        self._discrete: tuple[int, int] | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._discrete = None
        if type(action_space) is spaces.Discrete:
            self._discrete = (int(action_space.start), int(action_space.n))
        if self.agent.observation_space is observation_space and self.agent.action_space is action_space:
            return
        self._watched(1, "setup()", self.agent.setup, observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        self._watched(2, "reset()", self.agent.reset, seed=seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        # The agent gets copies; the check below reads the env's own mask (one array each: inline).
        given_observation = observation.copy() if type(observation) is np.ndarray else _private(observation)
        given_mask = action_mask.copy() if type(action_mask) is np.ndarray else _private(action_mask)
        limit = self.move_time_limit
        if limit is None and self.watch is None:
            try:
                action = self.agent.act(given_observation, given_mask, reward)
            except BaseException as err:
                self._raise_fault("act()", err)
            self._check(action, action_mask)
            return action
        watch, timer = self.watch, self.timer if limit is not None else None
        start = time.perf_counter()
        try:
            if watch is not None:
                watch.begin(3, limit)
            if timer is not None and limit is not None:
                timer.arm(limit)
            try:
                action = self.agent.act(given_observation, given_mask, reward)
            finally:
                if timer is not None:
                    timer.disarm()
                if watch is not None:
                    watch.end()
        except MoveTimeout:
            raise Forfeit(self.entrant, f"exceeded the move time limit of {limit:g} s (interrupted)") from None
        except BaseException as err:
            self._raise_fault("act()", err)
        if limit is not None:
            elapsed = time.perf_counter() - start
            if elapsed > limit:
                raise Forfeit(self.entrant, f"exceeded the move time limit of {limit:g} s (took {elapsed:.3f} s)")
        self._check(action, action_mask)
        return action

    def _watched(self, phase: int, call: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` under the watch as ``PHASES[phase]``; what it raises
        becomes the entrant's forfeit where it is the agent's fault."""
        if self.watch is not None:
            self.watch.begin(phase)
        try:
            return function(*args, **kwargs)
        except BaseException as err:
            self._raise_fault(call, err)
        finally:
            if self.watch is not None:
                self.watch.end()

    def _raise_fault(self, call: str, err: BaseException) -> NoReturn:
        """Raise the forfeit for ``err`` raised by the agent's ``call``, or ``err`` itself."""
        fault = self._fault(call, err)
        if fault is err:
            raise err
        raise fault from err

    def _fault(self, call: str, err: BaseException) -> BaseException:
        """The forfeit for an exception the agent raised, or ``err`` itself when it is not the agent's."""
        if isinstance(err, Forfeit):  # the agent gave up itself (a person typed q)
            return Forfeit(self.entrant, err.reason)
        if isinstance(err, KeyboardInterrupt) and user_interrupted():
            return err  # the user's Ctrl-C stops the tournament
        if isinstance(err, (Exception, SystemExit, KeyboardInterrupt)):
            return Forfeit(self.entrant, f"{call} raised {_describe(err)}")
        return err  # MoveTimeout outside a move, GeneratorExit: not the agent's fault

    def _check(self, action: Any, action_mask: Any) -> None:
        discrete = self._discrete
        if discrete is not None and type(action) is int:  # the common case, checked in a few operations
            offset = action - discrete[0]
            if 0 <= offset < discrete[1] and (action_mask is None or action_mask[offset]):
                return
        space = self.action_space
        if space is None:  # never set up: nothing to check against
            return
        try:
            index = discrete_index(space, action)
        except InvalidActionError as err:
            raise Forfeit(self.entrant, f"invalid action: {err}") from None
        if index is None:
            if not space.contains(action):
                raise Forfeit(self.entrant, f"invalid action: {action!r} does not lie in {space}")
            return
        if action_mask is not None and not action_mask[index]:
            start = int(space.start) if isinstance(space, spaces.Discrete) else 0
            legal = [int(i) + start for i in action_mask.nonzero()[0]]
            raise Forfeit(self.entrant, f"illegal action {action!r}; legal actions were {legal}")

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self._watched(4, "done()", self.agent.done, reward, _private(info))

    def __str__(self) -> str:
        return f"GuardedAgent({self.agent}, {self.entrant!r})"
