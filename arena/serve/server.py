"""``arena serve``: a person plays any bundled game in the browser against any agent.

One port on 127.0.0.1 serves the page (``GET /``) and its websocket (``/ws``), with the
``websockets`` library (its threaded API): the page sends clicks and keys, the game pushes each
new view, which real-time games need. Only the server's own page gets in (``Host``, ``Origin``
and the token of the printed address: :mod:`arena.serve.doors`), and each message is checked
before it goes anywhere. Games run one at a time in a watched worker process
(:mod:`arena.serve.worker`) where the machine's agents play under the tournament's referee and
move-time limit; the thread that calls :meth:`GameServer.run_games` relays between the page and
that process, kills it when a move ignores the limit, and never stops for one game's fault.
The page's drawing code is the replay viewer's (:mod:`arena.replay.html`).
"""

from __future__ import annotations

import collections
import json
import random
import sys
import threading
import time
from http import HTTPStatus
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any

from gymnasium import spaces

from arena.env import is_real_time
from arena.errors import InvalidValueError, MessageError, SpaceMismatchError
from arena.play_loop import outcome_text
from arena.registry import make_env
from arena.replay.html import page_shell, view_mode
from arena.runtime.guard import check_move_time_limit
from arena.runtime.processes import ending_what_starts
from arena.runtime.runner import grace_seconds, start_context
from arena.serve.doors import (
    MAX_FRAME_BYTES,
    MAX_OPENING,
    OPEN_TIMEOUT,
    Doors,
    OpeningBound,
    no_sniffing,
    read_message,
    server_token,
)
from arena.serve.worker import GameWorker, ServeConfig
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.text import printable

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

MAX_PAGES = 8  # open pages at once (each holds a thread and a small buffer); more are turned away
_HEADERS = {  # the page is not framed by other sites, and its address (with the token) is not passed on
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class GameRecord(dict):
    """What a served game gave: ``outcome``, ``returns``, ``seed`` and, with ``--record``, ``game``."""


class _Page:
    """The server's end of one open page: its websocket, and where its messages go now."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.lock = threading.Lock()
        self.closed = False
        self.queued = False  # waiting in line for a game
        self.sink: Any = None  # while its game runs: relays a message to the game's process

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            if self.closed:
                return
            try:
                self.connection.send(json.dumps(message, allow_nan=False))
            except Exception:  # the page went away; its handler tells the game
                self.closed = True


class GameServer:
    """Serves one env to people in the browser, one game at a time.

    Everything is checked here, before the server listens: the env, the seat, the ``vs`` agent
    (built once, as a tournament builds its entrants), the results file.

    Args:
        env: the env spec (name or ``"module:factory"`` and keyword options).
        vs: the agent spec for every seat the person does not play (a name, ``'module:factory'``
            with JSON keyword arguments, or a trained agent folder where that is supported).
        seat: the seat the person plays.
        port: the port on 127.0.0.1 (0: any free port; :attr:`url` says which).
        seed: the seed of the first game (later games draw new ones); ``None`` draws one.
        move_time_limit: seconds an agent may think per move (over it, it forfeits), at most one day.
        record: a results file that stores each finished game (``arena replay`` shows them).
        fps: ticks a second for real-time games (default: the env's own ``render_fps``, at most 15).
        token: the secret of the page's address (default: a fresh random one; see :mod:`arena.serve.doors`).

    Raises:
        ValueError: no such seat; a move time limit not in (0, 86400]; ``vs`` is a team, or cannot be built (its error in the text).
        arena.registry.UnknownNameError: an unknown env or agent name.
        SpaceMismatchError: the person's seat does not act in a Discrete space.
    """

    def __init__(
        self,
        env: EnvSpec,
        vs: str = "random",
        *,
        seat: str | None = None,
        port: int = 0,
        seed: int | None = None,
        move_time_limit: float | None = None,
        record: str | Path | None = None,
        fps: float | None = None,
        token: str | None = None,
    ) -> None:
        try:
            import websockets.sync.server as ws_server
        except ImportError:
            raise ImportError("arena serve needs websockets: pip install 'arena-marl[serve]'") from None
        self.env_spec = env
        token = server_token(token)
        move_time_limit = check_move_time_limit(move_time_limit, "arena serve: move_time_limit")
        probe = make_env(env.factory, **env.kwargs)
        try:
            self._check(probe, seat, vs, fps)
        finally:
            probe.close()
        self.seed = seed
        self.move_time_limit = move_time_limit
        self.record = record
        if record is not None:
            from arena.replay.record import check_record_file

            check_record_file(record, env)
        self.results: list[GameRecord] = []
        self._line: collections.deque[_Page] = collections.deque()  # pages waiting for a game, in order
        self._line_changed = threading.Condition()
        self._pages: set[_Page] = set()
        self._pages_lock = threading.Lock()
        self._stopping = threading.Event()
        self._playing: _Page | None = None
        self._worker: GameWorker | None = None
        self._config = ServeConfig(
            env, self.vs, self.seat, tuple(self.seats), self.render, self.real_time, self.fps, move_time_limit
        )
        try:
            self._server = ws_server.serve(
                self._handler,
                "127.0.0.1",
                port,
                process_request=self._http,
                max_size=MAX_FRAME_BYTES,
                max_queue=4,
                compression=None,
                server_header=None,  # no banner naming the software and its version
                open_timeout=OPEN_TIMEOUT,
                process_response=no_sniffing,
            )
        except OSError as err:
            raise InvalidValueError(f"arena serve: cannot listen on 127.0.0.1:{port}: {err.strerror or err}") from None
        self._opening = OpeningBound(self._server, MAX_OPENING)
        self.port = self._server.socket.getsockname()[1]
        self._doors = Doors(self.port, token)
        self.token = self._doors.token
        self.url = self._doors.url
        self._thread = threading.Thread(target=self._server.serve_forever, name="arena-serve", daemon=True)
        self._page = page_shell(f"arena: {self.name}", _BODY, ["viewer.js"], extra_script=_play_js())

    def _check(self, probe: Any, seat: str | None, vs: str, fps: float | None) -> None:
        """Check the seat and build ``vs`` once on ``probe`` (so that a bad option fails now)."""
        self.seats = list(probe.possible_agents)
        self.real_time = is_real_time(probe)
        self.render = view_mode(list((getattr(probe, "metadata", None) or {}).get("render_modes", ())))
        self.name = getattr(probe, "name", self.env_spec.factory)
        default_fps = (getattr(probe, "metadata", None) or {}).get("render_fps") or 10
        self.fps = float(fps or min(float(default_fps), 15.0))
        if seat is not None and seat not in self.seats and seat.isdigit() and int(seat) < len(self.seats):
            seat = self.seats[int(seat)]
        self.seat = seat if seat is not None else self.seats[0]
        if self.seat not in self.seats:
            raise InvalidValueError(
                f"arena serve: {self.name} has no seat {self.seat!r}; seats: {', '.join(self.seats)}"
            )
        space = probe.action_space(self.seat)
        if not isinstance(space, spaces.Discrete):
            raise SpaceMismatchError(
                f"arena serve: a person plays {self.name} by picking one of a Discrete set of "
                f"actions, but seat {self.seat} acts in {space}"
            )
        self.vs = AgentSpec.parse(vs if "=" in vs.partition("{")[0] else f"opponent={vs}")
        if self.vs.is_team:
            raise InvalidValueError(f"arena serve: --vs names one agent for every other seat, got the team {vs!r}")
        from arena.registry import UnknownNameError

        try:
            with ending_what_starts():  # built to check it: what it starts ends here
                AgentSpec(self.vs.name, self.vs.factory, self.vs.kwargs).build(probe)
        except UnknownNameError:
            raise
        except Exception as err:
            raise InvalidValueError(
                f"arena serve: the agent {vs!r} could not be built: {type(err).__name__}: {err}"
            ) from err

    # ------------------------------------------------------------------ web side
    def start(self) -> GameServer:
        """Start answering pages and the game process."""
        self._thread.start()
        self._worker = GameWorker(start_context(), self._config)
        return self

    def stop(self) -> None:
        """Close the server and every page's connection, wait for its thread, end the game process."""
        self._stopping.set()
        with self._line_changed:
            self._line_changed.notify_all()
        self._server.shutdown()
        self._thread.join(timeout=10)
        if self._worker is not None:
            self._worker.stop()

    def _http(self, connection: Any, request: Any) -> Any:
        headers = {name: request.headers.get_all(name) for name in ("Host", "Origin")}
        why = self._doors.refusal(request.path, headers)
        if why is not None:
            return connection.respond(HTTPStatus.FORBIDDEN, f"forbidden: {why}\n")
        path = request.path.partition("?")[0]
        if path == "/ws":
            return None
        if path != "/":
            return connection.respond(HTTPStatus.NOT_FOUND, "not found\n")
        response = connection.respond(HTTPStatus.OK, self._page)
        del response.headers["Content-Type"]
        response.headers["Content-Type"] = "text/html; charset=utf-8"
        for name, value in _HEADERS.items():
            response.headers[name] = value
        return response

    def _handler(self, connection: Any) -> None:
        self._opening.passed()
        page = _Page(connection)
        with self._pages_lock:
            if len(self._pages) >= MAX_PAGES:
                connection.close(1013, f"arena serve: at most {MAX_PAGES} pages at once")
                return
            self._pages.add(page)
        try:
            self._enqueue(page)
            for text in connection:
                try:
                    message = read_message(text)
                except MessageError as err:
                    page.send({"type": "error", "text": f"refused: {err}"})
                    continue
                sink = page.sink
                if message["type"] == "start":
                    if sink is None:
                        self._enqueue(page)
                elif sink is not None:
                    sink(("page", message))
                else:
                    page.send({"type": "error", "text": "refused: no game of yours is being played now"})
        except Exception:  # the connection broke: as if the page closed
            pass
        finally:
            with page.lock:
                page.closed = True
                sink = page.sink
            if sink is not None:
                sink(("closed",))
            with self._pages_lock:
                self._pages.discard(page)

    def _enqueue(self, page: _Page) -> None:
        """Put ``page`` in line for a game (once)."""
        with page.lock:
            if page.queued or page.closed:
                return
            page.queued = True
        with self._line_changed:  # pages that left while in line go (the line stays as short as the open pages)
            for gone in [waiting for waiting in self._line if waiting.closed]:
                self._line.remove(gone)
            # A game claimed (from the moment its page left the line) or a page ahead: this one waits.
            ahead = self._playing is not None or bool(self._line)
        if ahead:  # said before the page is in line, so never after its game began
            page.send({"type": "wait", "text": "another game is being played; yours starts when it ends"})
        with self._line_changed:
            self._line.append(page)
            self._line_changed.notify_all()

    # ------------------------------------------------------------------ games
    def run_games(self, games: int | None = None, on_game: Any = None) -> list[GameRecord]:
        """Play games with the pages that connect, in line, until ``games`` were played or :meth:`stop`.

        A page gets a game when it connects and when it asks for another; a page that closes
        during its game forfeits it, and the next page in line plays. ``on_game(record)`` is
        called after each game. One game's failure (the env's, an agent's, a full disk) ends
        that game only.
        """
        played = 0
        while games is None or played < games:
            page = self._next_page()
            if page is None:
                break
            with page.lock:
                page.queued = False
                closed = page.closed
            if closed:
                self._playing = None
                continue
            try:
                record = self._play_one(page)
            except Exception as err:  # arena's own failure in this game: report it, serve the next
                record = GameRecord(seed=None, steps=0, outcome=f"error: {type(err).__name__}: {err}", returns=None)
                page.send({"type": "end", "view": None, "outcome": record["outcome"], "returns": None})
            finally:
                self._playing = None
            self.results.append(record)
            played += 1
            if record["outcome"].startswith("error"):
                print(printable(f"arena serve: a game failed: {record['outcome']}"), file=sys.stderr, flush=True)
            if on_game is not None:
                on_game(record)
        return self.results

    def _next_page(self) -> _Page | None:
        """The first page in line (waiting for one), claimed for a game (``_playing``) as it leaves the
        line, or ``None`` once the server stops."""
        with self._line_changed:
            while not self._line and not self._stopping.is_set():
                self._line_changed.wait(timeout=1.0)
            if self._stopping.is_set():
                return None
            self._playing = self._line.popleft()
            return self._playing

    def _play_one(self, page: _Page) -> GameRecord:
        seed = self.seed if self.seed is not None and not self.results else random.SystemRandom().randrange(2**31)
        worker = self._worker
        if worker is None or not worker.alive():
            if worker is not None:
                worker.stop()
            worker = self._worker = GameWorker(start_context(), self._config)
        steps: list[dict[str, Any]] = []
        start = time.perf_counter()
        with page.lock:
            page.sink = worker.send if not page.closed else None
            closed = page.closed
        self._playing = page
        try:
            worker.send(("play", seed))
            if closed:
                worker.send(("closed",))
            summary = self._watch(worker, page, steps)
        finally:
            with page.lock:
                page.sink = None
            self._playing = None
        return self._finish(page, summary, seed, steps, time.perf_counter() - start)

    def _watch(self, worker: GameWorker, page: _Page, steps: list[dict[str, Any]]) -> dict[str, Any]:
        """Relay the game's messages to the page until it ends; end the worker if a move ignores
        the time limit or the worker dies. Returns the game's summary."""
        limit = self.move_time_limit
        grace = grace_seconds(limit) if limit is not None else 0.0
        while True:
            wait([worker.connection, worker.process.sentinel], timeout=0.25)
            try:
                while worker.connection.poll():
                    kind, *payload = worker.connection.recv()
                    if kind == "page":
                        page.send(payload[0])
                    elif kind == "step":
                        steps.append(payload[0])
                    elif kind == "end":
                        return payload[0]
            except (EOFError, OSError):
                pass
            now = time.monotonic()
            if limit is not None and worker.alive() and worker.overdue(now, grace):
                late = now - (worker.state[3] - limit)
                seat, _ = worker.seat_in_call()
                worker.stop(kill=True)  # kill first, then charge: the record cannot change any more
                return {
                    "forfeit": seat,
                    "reason": f"exceeded the move time limit of {limit:g} s (did not answer the "
                    f"interrupt; its game process was killed after {late:.1f} s)",
                }
            if not worker.alive():
                seat, phase = worker.seat_in_call()
                worker.stop()
                code = worker.process.exitcode
                if seat is not None:
                    return {
                        "forfeit": seat,
                        "reason": f"ended the game process during {phase or 'the game'}() (exit code {code})",
                    }
                return {"error": f"the game process died (exit code {code})"}

    def _finish(
        self, page: _Page, summary: dict[str, Any], seed: int, steps: list[dict[str, Any]], seconds: float
    ) -> GameRecord:
        """The game's record from the worker's ``summary``: stored with ``--record``, shown on the page."""
        record = GameRecord(seed=seed, steps=len(steps), returns=None)
        episode = summary.get("episode")
        if summary.get("error"):
            record["outcome"] = f"error: {summary['error']}"
        elif episode is not None:
            winners = ["you" if seat == self.seat else seat for seat in episode.winners]
            record["outcome"] = "you win" if winners == ["you"] else outcome_text(winners)
            record["returns"] = {seat: float(value) for seat, value in episode.returns.items()}
        else:
            loser = "you" if summary["forfeit"] == self.seat else str(summary["forfeit"])
            record["outcome"] = f"{loser} forfeited ({summary['reason']})"
        if self.record is not None and not summary.get("error"):
            from arena.replay.record import record_game

            specs = {
                seat: AgentSpec(seat, "human")
                if seat == self.seat
                else AgentSpec(seat, self.vs.factory, self.vs.kwargs)
                for seat in self.seats
            }
            try:
                record["game"] = record_game(
                    self.record,
                    self.env_spec,
                    specs,
                    seed,
                    steps,
                    episode,
                    forfeit=summary.get("forfeit"),
                    reason=summary.get("reason"),
                    seconds=seconds,
                )
            except Exception as err:  # the game was played; say why it is not stored, and go on
                record["outcome"] += f" (not recorded: {type(err).__name__}: {err})"
        final = dict(summary.get("view") or {"view": None})
        final.update(type="end", outcome=record["outcome"], returns=record.get("returns"), game=record.get("game"))
        page.send(final)
        return record


def _play_js() -> str:
    from importlib import resources

    return resources.files("arena.serve").joinpath("static", "play.js").read_text(encoding="utf-8")
