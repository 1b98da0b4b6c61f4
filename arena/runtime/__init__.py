"""Playing one game under guard: the code a tournament's workers, ``arena serve`` and replays share.

A :class:`~arena.runtime.game.GameRunner` plays a :class:`~arena.runtime.game.GameTask` with
every agent behind a :class:`~arena.runtime.guard.GuardedAgent` (faults become forfeits) and
returns a :class:`~arena.runtime.game.GameResult`; the results file stores it. Nothing here
knows how many games are played or in which order: that is :mod:`arena.tournament`'s job.

Modules: :mod:`~arena.runtime.game` (one game), :mod:`~arena.runtime.guard` (forfeits, move
timer), :mod:`~arena.runtime.processes` (a worker's processes end with it),
:mod:`~arena.runtime.runner` and :mod:`~arena.runtime.ray_backend` (workers that play tasks),
:mod:`~arena.runtime.actions` (joint actions packed), :mod:`~arena.runtime.store` (the results
file, written), :mod:`~arena.runtime.schema` (what a results file is),
:mod:`~arena.runtime.reading` (a results file, read-only).

Example:
    >>> from arena.runtime import GameConfig, GameRunner, GameTask
    >>> from arena.specs import AgentSpec, EnvSpec
    >>> config = GameConfig(EnvSpec("tic_tac_toe"), (AgentSpec("a", "random"), AgentSpec("b", "random")))
    >>> runner = GameRunner(config).start()
    >>> result = runner.play(GameTask("a|b", 0, seed=1, seats=("a", "b")))
    >>> runner.stop()
    >>> result.length > 0
    True
"""

from arena.runtime.game import GameConfig, GameResult, GameRunner, GameTask
from arena.runtime.store import ResultStore

__all__ = ["GameConfig", "GameResult", "GameRunner", "GameTask", "ResultStore"]
