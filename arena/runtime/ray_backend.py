"""The Ray backend: games on a Ray cluster, joined with ``address`` or started locally.

Each Ray actor holds a :class:`GameRunner` (one env, the entrants' agents, built on the node it
runs on; so arena and every entrant's package must be installed on every node). Tasks travel
in chunks, because a Ray call costs far more than a small game; each chunk is a streaming
generator call that yields finished games at once when a game took longer than
``RAY_FLUSH_SECONDS``, and otherwise at least every ``RAY_FLUSH_SECONDS``, and the driver
commits each group as it arrives. A crash loses only the games of the groups in flight, which
a rerun plays again.

An actor that dies (an entrant called ``os._exit`` or crashed the interpreter) is replaced, and
the game it was playing is played again on this machine in one watched worker process
(:func:`~arena.runtime.runner.run_serial`): games are deterministic given their task, so the
crash happens again there, where the watch charges the entrant that was being called a
forfeit, exactly as the local backends store it. The rest of the dead actor's games go to the
other actors. What is not covered on Ray: a move that ignores ``move_time_limit`` (swallows the
interrupt, or hangs in C code) holds its actor until it returns.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.errors import MissingDependencyError, TournamentError
from arena.runtime.game import GameConfig, GameRunner, GameTask
from arena.runtime.runner import ChunkQueue, OnResults, Pending, Row, default_chunk_size, run_serial
from arena.runtime.store import result_row

__all__ = ["run_ray", "GameActor", "RAY_FLUSH_SECONDS"]

# An object per yield costs a Ray actor far more than a pipe write costs a local worker.
RAY_FLUSH_SECONDS = 0.02

# Actor deaths that replaying the game here did not explain (the game played normally) before
# the run stops: the cluster, not an entrant, is failing.
UNEXPLAINED_DEATHS = 3


def _import_ray():
    try:
        import ray
    except ImportError as err:
        raise MissingDependencyError(
            f"the Ray backend needs ray ({err}); install the extra: pip install 'arena-marl[ray]'"
        ) from None
    return ray


class GameActor:
    """A Ray actor that plays chunks of games with its own :class:`GameRunner`."""

    def __init__(self, config: GameConfig) -> None:
        self.runner = GameRunner(config).start()

    def play_stream(self, tasks: list[GameTask], flush_seconds: float) -> Iterator[list[tuple[Any, ...]]]:
        """Play ``tasks``, yielding result rows in groups as they finish."""
        rows: list[tuple[Any, ...]] = []
        flushed = time.perf_counter()
        for task in tasks:
            rows.append(result_row(self.runner.play(task)))
            now = time.perf_counter()
            if now - flushed >= flush_seconds:
                yield rows
                rows, flushed = [], now
        if rows:
            yield rows

    def timer_available(self) -> bool:
        return self.runner.timer.available


class _Stream:
    """One streaming call in flight: its actor, its chunk, the games already received."""

    def __init__(self, actor: Any, chunk: list[GameTask], order: int) -> None:
        self.actor, self.chunk, self.order = actor, chunk, order
        self.returned: set[tuple[str, int]] = set()

    def receive(self, rows: list[Row]) -> list[Row]:
        self.returned.update((row[0], row[1]) for row in rows)
        return rows

    def left(self) -> list[GameTask]:
        return [task for task in self.chunk if (task.lineup, task.index) not in self.returned]


def run_ray(
    config: GameConfig,
    tasks: Sequence[GameTask] | Pending,
    on_results: OnResults,
    *,
    workers: int | None = None,
    address: str | None = None,
    chunk_size: int | None = None,
    on_start: Callable[[], None] | None = None,
    start_method: str | None = None,
) -> None:
    """Play ``tasks`` on Ray actors, one CPU each.

    Args:
        workers: the number of actors (default: the cluster's CPUs).
        address: a running cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            ``None`` joins the cluster this process already has, or starts a local one.
        chunk_size: games per Ray call (default: about 8 chunks per actor, at most 4096).
        start_method: how the local worker that replays a dead actor's game starts.

    Raises:
        MissingDependencyError: ray is not installed.
        TournamentError: the cluster cannot be reached, or actors keep dying on games that play
            normally on this machine; the games already committed stay.
    """
    if not tasks:
        if on_start is not None:
            on_start()
        return
    ray = _import_ray()
    started_here = False
    if not ray.is_initialized():
        options = {
            "address": address,
            "include_dashboard": False,
            "logging_level": logging.WARNING,
            "log_to_driver": True,
        }
        if address is None and workers is not None:
            options["num_cpus"] = workers
        try:
            ray.init(**options)
        except (ConnectionError, RuntimeError, ValueError) as err:
            where = f"join the Ray cluster at {address!r}" if address else "start a local Ray cluster"
            raise TournamentError(f"tournament: could not {where}: {type(err).__name__}: {err}") from err
        started_here = True
    try:
        count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = chunk_size or default_chunk_size(len(tasks), count, most=4096)
        chunks = ChunkQueue(tasks, size)
        remote_actor = ray.remote(num_cpus=1)(GameActor)
        actors = [remote_actor.remote(config) for _ in range(min(count, -(-len(tasks) // size)))]
        ray.get([actor.timer_available.remote() for actor in actors])  # wait until every actor runs
        if on_start is not None:
            on_start()
        owner: dict[Any, _Stream] = {}  # streaming call -> its record; two per actor, so none waits
        submitted = 0

        def submit(actor: Any) -> None:
            nonlocal submitted
            chunk = chunks.popleft()
            owner[actor.play_stream.remote(chunk, RAY_FLUSH_SECONDS)] = _Stream(actor, chunk, submitted)
            submitted += 1

        for actor in actors:
            for _ in range(2):
                if chunks:
                    submit(actor)
        unexplained = 0
        while owner:
            ready, _ = ray.wait(list(owner), num_returns=1)
            for stream in ready:
                record = owner.get(stream)
                if record is None:
                    continue  # ended with its actor's failure, earlier in this round
                try:
                    rows = ray.get(next(stream))
                except StopIteration:
                    del owner[stream]
                    if chunks:
                        submit(record.actor)
                    continue
                except ray.exceptions.RayError as err:
                    actors.remove(record.actor)
                    if not _replay_lost_game(ray, record.actor, owner, chunks, config, on_results, start_method):
                        unexplained += 1
                        if unexplained >= UNEXPLAINED_DEATHS:
                            raise TournamentError(
                                f"tournament: Ray actors keep failing on games that play normally here "
                                f"({type(err).__name__}: {err}); the finished games are saved, run again to resume"
                            ) from err
                    if chunks:
                        replacement = remote_actor.remote(config)
                        actors.append(replacement)
                        for _ in range(2):
                            if chunks:
                                submit(replacement)
                    continue
                on_results(record.receive(rows))
        for actor in actors:
            ray.kill(actor)
    finally:
        if started_here:
            ray.shutdown()


def _replay_lost_game(
    ray: Any,
    actor: Any,
    owner: dict[Any, _Stream],
    chunks: ChunkQueue,
    config: GameConfig,
    on_results: OnResults,
    start_method: str | None,
) -> bool:
    """After ``actor`` failed: keep what its calls had finished, play the game it was on here
    in a watched worker (which stores the forfeit of the entrant that ends it), and give its
    other games back to ``chunks``. Returns whether the replay explained the failure (the game
    ended in a forfeit or an error here too)."""
    streams = sorted(
        (stream for stream, record in owner.items() if record.actor is actor), key=lambda stream: owner[stream].order
    )
    left: list[GameTask] = []
    for stream in streams:
        record = owner.pop(stream)
        while ray.wait([stream], timeout=10)[0]:  # rows the actor yielded before it failed
            try:
                on_results(record.receive(ray.get(next(stream))))
            except (StopIteration, ray.exceptions.RayError):
                break
        left.extend(record.left())
    try:
        ray.kill(actor)
    except Exception:  # already gone
        pass
    if not left:
        return False
    # An actor plays its calls in order, so the first game not returned is the one it was on.
    lost, rest = left[0], left[1:]
    if rest:
        chunks.appendleft(rest)
    replayed: list[Row] = []

    def keep(rows: list[Row]) -> None:
        replayed.extend(rows)
        on_results(rows)

    run_serial(config, [lost], keep, start_method=start_method)
    return any(row[8] is not None or row[9] is not None for row in replayed)  # forfeit, error
