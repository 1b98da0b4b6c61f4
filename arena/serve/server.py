"""``arena serve``: a person plays any bundled game in the browser against any agent.

One port on 127.0.0.1 serves the page (``GET /``) and its websocket (``/ws``), with the
``websockets`` library (its threaded API): the page sends clicks and keys, the game pushes each
new view, which real-time games need. Games run one at a time in the thread that calls
:meth:`GameServer.run_games` (the main thread in the CLI, where the agents' move-time limit can
interrupt a move); the page's drawing code is the replay viewer's (:mod:`arena.replay.html`).
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from http import HTTPStatus
from pathlib import Path
from typing import Any

from gymnasium import spaces

from arena.agents.human import is_real_time
from arena.errors import AgentError, Forfeit, SpaceMismatchError
from arena.play_loop import play
from arena.registry import make_env
from arena.replay.html import page_shell, view_mode
from arena.serve.human import BrowserHuman, Channel, idle_action, key_bindings
from arena.specs.agents import AgentSpec, EnvSpec
from arena.tournament.guard import GuardedAgent, MoveTimer

__all__ = ["GameServer", "GameRecord"]

_BODY = """<h1 id="title">arena</h1>
<div class="sub" id="cast"></div>
<div class="main"><div>
<canvas id="board" width="480" height="400" tabindex="0"></canvas>
<div class="status" id="status">connecting…</div>
<div class="actions" id="actions"></div>
<div class="sub" id="help"></div>
<button id="again" hidden>New game</button>
</div><div><pre id="private" class="sub"></pre><div id="score" class="sub"></div></div></div>"""


class GameRecord(dict):
    """What a served game gave: ``outcome``, ``returns``, ``seed`` and, with ``--record``, ``game``."""


class GameServer:
    """Serves one env to people in the browser, one game at a time.

    Args:
        env: the env spec (name or ``"module:factory"`` and keyword options).
        vs: the agent spec for every seat the person does not play (a name, ``'module:factory'``
            with JSON keyword arguments, or a trained agent folder where that is supported).
        seat: the seat the person plays.
        port: the port on 127.0.0.1 (0: any free port; :attr:`url` says which).
        seed: the seed of the first game (later games draw new ones); ``None`` draws one.
        move_time_limit: seconds an agent may think per move (over it, it forfeits).
        record: a results file that stores each finished game (``arena replay`` shows them).
        fps: ticks a second for real-time games (default: the env's own ``render_fps``, at most 15).
    """

    def __init__(self, env: EnvSpec, vs: str = "random", *, seat: str | None = None, port: int = 0,
                 seed: int | None = None, move_time_limit: float | None = None, record: str | Path | None = None,
                 fps: float | None = None) -> None:
        try:
            import websockets.sync.server as ws_server
        except ImportError:
            raise ImportError("arena serve needs websockets: pip install 'arena-marl[serve]'") from None
        self.env_spec = env
        probe = make_env(env.factory, **env.kwargs)
        self.seats = list(probe.possible_agents)
        self.real_time = is_real_time(probe)
        self.render = view_mode(list((getattr(probe, "metadata", None) or {}).get("render_modes", ())))
        self.name = getattr(probe, "name", env.factory)
        default_fps = (getattr(probe, "metadata", None) or {}).get("render_fps") or 10
        self.fps = float(fps or min(float(default_fps), 15.0))
        if seat is not None and seat not in self.seats and seat.isdigit() and int(seat) < len(self.seats):
            seat = self.seats[int(seat)]
        self.seat = seat if seat is not None else self.seats[0]
        if self.seat not in self.seats:
            probe.close()
            raise ValueError(f"arena serve: {self.name} has no seat {self.seat!r}; seats: {', '.join(self.seats)}")
        space = probe.action_space(self.seat)
        if not isinstance(space, spaces.Discrete):
            probe.close()
            raise SpaceMismatchError(f"arena serve: a person plays {self.name} by picking one of a Discrete set of "
                                     f"actions, but seat {self.seat} acts in {space}")
        probe.close()
        self.vs = AgentSpec.parse(vs if "=" in vs.partition("{")[0] else f"opponent={vs}")
        self.seed = seed
        self.move_time_limit = move_time_limit
        self.record = record
        if record is not None:
            from arena.replay.record import check_record_file

            check_record_file(record, env)
        self.results: list[GameRecord] = []
        self._sessions: queue.Queue[Channel] = queue.Queue()
        self._stopping = threading.Event()
        self._server = ws_server.serve(self._handler, "127.0.0.1", port, process_request=self._http)
        self.port = self._server.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self._thread = threading.Thread(target=self._server.serve_forever, name="arena-serve", daemon=True)
        self._page = page_shell(f"arena: {self.name}", _BODY, ["viewer.js"], extra_script=_play_js())

    # ------------------------------------------------------------------ web side
    def start(self) -> GameServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Close the server and every page's connection, and wait for its thread."""
        self._stopping.set()
        self._sessions.put(None)  # type: ignore[arg-type]
        self._server.shutdown()
        self._thread.join(timeout=10)

    def _http(self, connection: Any, request: Any) -> Any:
        if request.path == "/ws":
            return None
        if request.path != "/":
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        response = connection.respond(HTTPStatus.OK, self._page)
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "text/html; charset=utf-8"
        return response

    def _handler(self, connection: Any) -> None:
        lock = threading.Lock()

        def send(message: dict[str, Any]) -> None:
            with lock:
                try:
                    connection.send(json.dumps(message, allow_nan=False))
                except Exception:  # the page went away; the game hears it through the channel
                    channel.close()

        channel = Channel(send)
        self._sessions.put(channel)
        try:
            for text in connection:
                message = json.loads(text)
                kind = message.get("type")
                if kind == "key":
                    action = message.get("action")
                    channel.held = action if isinstance(action, int) else None
                elif kind in ("move", "start", "ready"):
                    channel.inbox.put(message)
        except Exception:
            pass
        finally:
            channel.close()

    # ------------------------------------------------------------------ games
    def run_games(self, games: int | None = None, on_game: Any = None) -> list[GameRecord]:
        """Play games with the pages that connect, in this thread, until ``games`` were played or :meth:`stop`.

        ``on_game(record)`` is called after each game.
        """
        timer = MoveTimer()
        if self.move_time_limit is not None:
            timer.install()
        try:
            played = 0
            while games is None or played < games:
                channel = self._sessions.get()
                if channel is None or self._stopping.is_set():
                    break
                while not channel.closed and (games is None or played < games):
                    self.results.append(self._play_one(channel, timer))
                    played += 1
                    if on_game is not None:
                        on_game(self.results[-1])
                    if games is not None and played >= games:
                        break
                    message = channel.inbox.get()  # "start" for a new game, or "closed"
                    if message.get("type") != "start":
                        break
        finally:
            timer.uninstall()
        return self.results

    def _play_one(self, channel: Channel, timer: MoveTimer) -> GameRecord:
        seed = self.seed if self.seed is not None and not self.results else random.SystemRandom().randrange(2**31)
        env = make_env(self.env_spec.factory, **self.env_spec.kwargs, **({"render_mode": self.render} if self.render else {}))
        human = BrowserHuman(channel, env, self.seat, real_time=self.real_time, fps=self.fps)
        agents: dict[str, Any] = {}
        specs = {}
        for seat in self.seats:
            if seat == self.seat:
                agents[seat] = human
                specs[seat] = AgentSpec(seat, "human")
            else:
                spec = AgentSpec(seat, self.vs.factory, self.vs.kwargs)
                agents[seat] = GuardedAgent(spec.build(env), seat, self.move_time_limit, timer)
                specs[seat] = spec
        try:
            human.setup(env.observation_space(self.seat), env.action_space(self.seat))
            human_names = human.names
            names = {seat: ("you" if seat == self.seat else self.vs.describe()) for seat in self.seats}
            channel.send({"type": "hello", "env": self.name, "seat": self.seat, "cast": names, "seed": seed,
                          "real_time": self.real_time, "fps": self.fps, "actions": human_names,
                          "keys": key_bindings(human_names), "idle": idle_action(human_names)})
            return self._run(env, agents, specs, seed, human, channel)
        finally:
            env.close()

    def _run(self, env: Any, agents: dict[str, Any], specs: dict[str, AgentSpec], seed: int, human: BrowserHuman,
             channel: Channel) -> GameRecord:
        steps: list[dict[str, Any]] = []
        start = time.perf_counter()
        episode = fault = None
        try:
            episode = play(env, agents, seed=seed, record=steps)
        except AgentError as err:
            if not isinstance(err.original, Forfeit):
                raise
            fault = err
        record = GameRecord(seed=seed, steps=len(steps))
        if episode is not None:
            winners = ["you" if seat == self.seat else seat for seat in episode.winners]
            outcome = "draw" if not winners else "you win" if winners == ["you"] else \
                f"{', '.join(winners)} {'wins' if len(winners) == 1 else 'win'}"
            record.update(outcome=outcome, returns=episode.returns)
        else:
            loser = "you" if fault.agent_id == self.seat else str(fault.agent_id)  # type: ignore[union-attr]
            why = getattr(fault.original, "reason", fault.original)  # type: ignore[union-attr]
            record.update(outcome=f"{loser} forfeited ({why})", returns=None)
        if self.record is not None:
            from arena.replay.record import record_game

            forfeit = None if fault is None else str(fault.agent_id)
            reason = None if fault is None else str(fault.original)
            record["game"] = record_game(self.record, self.env_spec, specs, seed, steps, episode, forfeit=forfeit,
                                         reason=reason, seconds=time.perf_counter() - start)
        if not channel.closed:
            final = human.view(None, None, "game over")
            final.update(type="end", outcome=record["outcome"], returns=record.get("returns"), game=record.get("game"))
            channel.send(final)
        return record


def _play_js() -> str:
    from importlib import resources

    return resources.files("arena.serve").joinpath("static", "play.js").read_text(encoding="utf-8")
