"""The Ray backend: games on a Ray cluster, joined with ``address`` or started locally.

Each Ray actor holds a :class:`GameRunner` (one env, the entrants' agents, built on the node it
runs on; so arena and every entrant's package must be installed on every node). Tasks travel
in chunks, because a Ray call costs far more than a small game; each chunk is a streaming
generator call that yields finished games at once when a game took longer than
``RAY_FLUSH_SECONDS``, and otherwise at least every ``RAY_FLUSH_SECONDS``, and the driver
commits each group as it arrives. A crash loses only the games of the groups in flight, which
a rerun plays again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Sequence

from typing import Any

from arena.tournament.game import GameConfig, GameRunner
from arena.errors import MissingDependencyError
from arena.tournament.runner import ChunkQueue, OnResults, Pending, TournamentError, default_chunk_size
from arena.tournament.schedule import GameTask
from arena.tournament.store import result_row

__all__ = ["run_ray", "GameActor", "RAY_FLUSH_SECONDS"]

# An object per yield costs a Ray actor far more than a pipe write costs a local worker.
RAY_FLUSH_SECONDS = 0.02


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


def run_ray(config: GameConfig, tasks: Sequence[GameTask] | Pending, on_results: OnResults, *,
            workers: int | None = None, address: str | None = None, chunk_size: int | None = None,
            on_start: Callable[[], None] | None = None) -> None:
    """Play ``tasks`` on Ray actors, one CPU each.

    Args:
        workers: the number of actors (default: the cluster's CPUs).
        address: a running cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            ``None`` joins the cluster this process already has, or starts a local one.
        chunk_size: games per Ray call (default: about 8 chunks per actor, at most 4096).

    Raises:
        MissingDependencyError: ray is not installed.
    """
    if not tasks:
        if on_start is not None:
            on_start()
        return
    ray = _import_ray()
    started_here = False
    if not ray.is_initialized():
        options = {"address": address, "include_dashboard": False, "logging_level": logging.WARNING,
                   "log_to_driver": True}
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
        owner = {}  # streaming call -> its actor; two per actor, so none waits for the driver
        for actor in actors:
            for _ in range(2):
                if chunks:
                    owner[actor.play_stream.remote(chunks.popleft(), RAY_FLUSH_SECONDS)] = actor
        while owner:
            ready, _ = ray.wait(list(owner), num_returns=1)
            for stream in ready:
                try:
                    rows = ray.get(next(stream))
                except ray.exceptions.RayError as err:
                    raise TournamentError(
                        f"tournament: a Ray actor failed ({type(err).__name__}: {err}); the finished games "
                        "are saved, run again to resume"
                    ) from err
                except StopIteration:
                    actor = owner.pop(stream)
                    if chunks:
                        owner[actor.play_stream.remote(chunks.popleft(), RAY_FLUSH_SECONDS)] = actor
                    continue
                on_results(rows)
        for actor in actors:
            ray.kill(actor)
    finally:
        if started_here:
            ray.shutdown()
