"""The Ray backend: games on a Ray cluster, joined with ``address`` or started locally.

Each Ray actor holds a :class:`GameRunner` (one env, the entrants' agents, built on the node it
runs on; so arena and every entrant's package must be installed on every node). Tasks travel
in chunks, because a Ray call costs far more than a small game; a chunk's games are committed
together when it comes back, so a crash can lose at most the chunks in flight, which a rerun
plays again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from typing import Any

from arena.tournament.game import GameConfig, GameRunner
from arena.errors import MissingDependencyError
from arena.tournament.runner import OnResults, chunked, default_chunk_size
from arena.tournament.schedule import GameTask
from arena.tournament.store import result_row

__all__ = ["run_ray", "GameActor"]


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

    def play_many(self, tasks: list[GameTask]) -> list[tuple[Any, ...]]:
        return [result_row(self.runner.play(task)) for task in tasks]

    def timer_available(self) -> bool:
        return self.runner.timer.available


def run_ray(config: GameConfig, tasks: Sequence[GameTask], on_results: OnResults, *,
            workers: int | None = None, address: str | None = None, chunk_size: int | None = None,
            on_start: Callable[[], None] | None = None) -> None:
    """Play ``tasks`` on Ray actors, one CPU each.

    Args:
        workers: the number of actors (default: the cluster's CPUs).
        address: a running cluster (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``);
            ``None`` joins the cluster this process already has, or starts a local one.
        chunk_size: games per Ray call (default: about 4 chunks per actor, at most 2048).

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
        ray.init(**options)
        started_here = True
    try:
        count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = chunk_size or default_chunk_size(len(tasks), count, most=2048) * 2
        chunks = chunked(tasks, size)
        chunks.reverse()
        remote_actor = ray.remote(num_cpus=1)(GameActor)
        actors = [remote_actor.remote(config) for _ in range(min(count, len(chunks)))]
        if on_start is not None:
            on_start()
        owner = {}
        for actor in actors:
            for _ in range(2):  # keep each actor busy while its last chunk travels back
                if chunks:
                    owner[actor.play_many.remote(chunks.pop())] = actor
        while owner:
            ready, _ = ray.wait(list(owner), num_returns=1)
            for ref in ready:
                actor = owner.pop(ref)
                on_results(ray.get(ref))
                if chunks:
                    owner[actor.play_many.remote(chunks.pop())] = actor
        for actor in actors:
            ray.kill(actor)
    finally:
        if started_here:
            ray.shutdown()
