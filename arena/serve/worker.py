"""The process that plays ``arena serve``'s games, watched by the server as tournaments watch theirs.

The game (env, the machine's agents, the person's :class:`~arena.serve.human.BrowserHuman`)
runs in a worker process, so the machine's agents get exactly the tournament's referee
(:mod:`arena.runtime.guard`): each is a :class:`~arena.runtime.guard.GuardedAgent` whose
move is interrupted by the worker's :class:`~arena.runtime.guard.MoveTimer` at the limit,
and whose calls are reported to a :class:`~arena.runtime.guard.SeatWatch` the server reads.
A move that swallows the interrupt runs past its deadline; the server then kills the worker
(after :func:`arena.runtime.runner.grace_seconds`, as a tournament does), charges the seat
a forfeit and starts another worker for the next game. Whatever one game raises ends that
game only: the worker reports it and waits for the next.

Messages on the pipe (server -> worker): ``("play", seed)``, ``("page", message)``,
``("closed",)``, ``None`` (stop). Worker -> server: ``("page", message)`` for the page,
``("step", actions)`` for each step played, ``("end", summary)`` once the game is over.
"""

from __future__ import annotations

import os
import signal
import threading
import traceback
from dataclasses import dataclass
from typing import Any

from arena.errors import AgentError, Forfeit
from arena.play_loop import play
from arena.registry import make_env
from arena.runtime.guard import PHASES, GuardedAgent, MoveTimer, SeatWatch, end_process, orders_from_parent
from arena.runtime.processes import contained, new_tag
from arena.serve.human import BrowserHuman, Channel, idle_action, key_bindings
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec

__all__ = ["GameWorker", "ServeConfig", "worker_main"]


@dataclass(frozen=True)
class ServeConfig:
    """What the worker needs to play any game the server asks for (picklable)."""

    env: EnvSpec
    vs: AgentSpec
    seat: str
    seats: tuple[str, ...]
    render: str | None
    real_time: bool
    fps: float
    move_time_limit: float | None


class _Steps(list):
    """``play``'s record of actions, each also sent to the server as it is played (so that a
    game whose worker is killed keeps its actions so far)."""

    def __init__(self, connection: Any) -> None:
        super().__init__()
        self.connection = connection

    def append(self, actions: Any) -> None:
        super().append(actions)
        self.connection.send(("step", actions))


def worker_main(config: ServeConfig, connection: Any, state: Any) -> None:
    """Play the games the server asks for until it says stop or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides what Ctrl-C means
    parent = os.getppid()
    timer = MoveTimer()
    if config.move_time_limit is not None:
        timer.install()
    try:
        for order in orders_from_parent(connection, parent):
            if order[0] != "play":
                continue  # what the last page said after its game ended
            connection.send(("end", _play_one(config, connection, state, timer, order[1])))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return
    finally:
        timer.uninstall()


def _play_one(config: ServeConfig, connection: Any, state: Any, timer: MoveTimer, seed: int) -> dict[str, Any]:
    """One game; returns its summary (``episode``, or ``forfeit`` and ``reason``, or ``error``)."""
    channel = Channel(connection)
    env = None
    summary: dict[str, Any] = {"episode": None, "forfeit": None, "reason": None, "error": None, "view": None}
    try:
        env = make_env(
            config.env.factory, **config.env.kwargs, **({"render_mode": config.render} if config.render else {})
        )
        human = BrowserHuman(channel, env, config.seat, real_time=config.real_time, fps=config.fps)
        try:
            _play(config, env, human, channel, state, timer, seed, summary)
        except AgentError as err:
            if not isinstance(err.original, Forfeit):
                raise
            summary.update(forfeit=str(err.agent_id), reason=str(err.original.reason))
        except Forfeit as err:  # building, setup() and reset() are not wrapped by play()
            summary.update(forfeit=err.entrant, reason=str(err.reason))
        if not channel.closed:
            summary["view"] = human.view(None, None, "game over")
    except (EOFError, BrokenPipeError, ConnectionResetError):
        raise
    except Exception as err:  # the env (or arena) failed: this game ends, the next one starts afresh
        frames = traceback.extract_tb(err.__traceback__)
        where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
        summary["error"] = f"{type(err).__name__}: {err}{where}"
    finally:
        if env is not None:
            try:
                env.close()
            except Exception:  # a game that ended badly may leave an env that cannot close cleanly
                pass
    return summary


def _play(
    config: ServeConfig,
    env: Any,
    human: BrowserHuman,
    channel: Channel,
    state: Any,
    timer: MoveTimer,
    seed: int,
    summary: dict[str, Any],
) -> None:
    """Build the machine's guarded agents, greet the page and play the episode into ``summary``."""
    agents: dict[str, Any] = {}
    for index, seat in enumerate(config.seats):
        if seat == config.seat:
            agents[seat] = human
            continue
        watch = SeatWatch(state, index)
        watch.begin(5)
        try:
            agent = AgentSpec(seat, config.vs.factory, config.vs.kwargs).build(env)
        except (Exception, SystemExit, KeyboardInterrupt) as err:
            raise Forfeit(seat, f"could not be built: {type(err).__name__}: {err}") from err
        finally:
            watch.end()
        agents[seat] = GuardedAgent(agent, seat, config.move_time_limit, timer, watch)
    human.setup(env.observation_space(config.seat), env.action_space(config.seat))
    cast = {seat: ("you" if seat == config.seat else config.vs.label()) for seat in config.seats}
    channel.send(
        {
            "type": "hello",
            "env": getattr(env, "name", config.env.factory),
            "seat": config.seat,
            "cast": cast,
            "seed": seed,
            "real_time": config.real_time,
            "fps": config.fps,
            "actions": human.names,
            "keys": key_bindings(human.names),
            "idle": idle_action(human.names),
        }
    )
    summary["episode"] = play(env, agents, seed=seed, record=_Steps(channel.connection))


class GameWorker:
    """The server's handle on its game process: start it, relay to it, watch it, end it by PID.

    Args:
        context: a ``multiprocessing`` context (:func:`arena.runtime.runner.start_context`).
        config: what the games need.
    """

    def __init__(self, context: Any, config: ServeConfig) -> None:
        self.config = config
        self.state = SeatWatch.shared_record(context)
        self.connection, child = context.Pipe()
        self.tag = new_tag()  # marks the processes its games start, which end with it
        self.process = context.Process(
            target=contained,
            args=(self.tag, worker_main, config, child, self.state),
            daemon=True,
            name="arena-serve-game",
        )
        self.process.start()
        child.close()
        self._lock = threading.Lock()

    def send(self, item: Any) -> bool:
        """Send ``item`` to the game; False when the worker is gone (or stuck with a full pipe)."""
        if not self._lock.acquire(timeout=1.0):  # a page's relay is blocked on a worker that reads nothing
            return False
        try:
            self.connection.send(item)
            return True
        except (OSError, ValueError):
            return False
        finally:
            self._lock.release()

    def overdue(self, now: float, grace: float) -> bool:
        """Whether a watched move is past its deadline by ``grace`` seconds."""
        return SeatWatch.overdue(self.state, now, grace)

    def seat_in_call(self) -> tuple[str | None, str]:
        """The machine's seat being called now (or ``None``) and the call's phase name."""
        index, phase = int(self.state[1]), int(self.state[2])
        seat = self.config.seats[index] if 0 <= index < len(self.config.seats) else None
        return seat, PHASES[phase] if 0 <= phase < len(PHASES) else ""

    def alive(self) -> bool:
        return self.process.is_alive()

    def stop(self, *, kill: bool = False) -> None:
        """Ask the worker to stop (``kill``: do not ask), then end it by its PID if it has not."""
        if self.process.is_alive() and not kill:
            self.send(None)
            self.process.join(timeout=0.25)
        end_process(self.process, self.tag)
        self.connection.close()
