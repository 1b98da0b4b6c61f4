"""Stable-Baselines3 callbacks that evaluate the learner during training, one job each.

Composed as SB3 composes ``EvalCallback`` with ``StopTrainingOnRewardThreshold``: an
:class:`EvaluationCallback` plays the evaluation games and keeps the records; the callbacks it is
given as ``callback_after_eval`` (one, or a ``CallbackList`` run in its order) act on each new
record through ``self.parent``:

* :class:`~arena.training.promotion.PromotionCallback` — self-play: snapshots the learner into the
  opponent pool when its score against the pool is high enough (place it first: it adds the
  ``window_score`` and ``promoted`` entries the others see);
* :class:`EvaluationLogCallback` — the records to SB3's logger, a CSV file and (``verbose``) stdout;
* :class:`OnEvaluationCallback` — calls a function with each record (a progress display's status);
* :class:`StopTrainingOnRecord` — stops training when a condition on the record holds.

The progress bar and lines are in :mod:`arena.training.progress`. This module imports
Stable-Baselines3 when it is imported; a missing install raises an ImportError naming the
``train`` extra.

Example:
    >>> import envs
    >>> from sb3_contrib import MaskablePPO
    >>> from stable_baselines3.common.callbacks import CallbackList
    >>> from arena import RandomAgent
    >>> from arena.training import OpponentPool, SingleAgentEnv
    >>> from arena.training.promotion import PromotionCallback
    >>> pool = OpponentPool([RandomAgent(seed=0)])
    >>> model = MaskablePPO("MlpPolicy", SingleAgentEnv("tic_tac_toe", pool, shuffle_seats=True),
    ...                     n_steps=64, batch_size=32, n_epochs=1, seed=0)
    >>> after = CallbackList([PromotionCallback(pool, promote_at=0.0), EvaluationLogCallback()])
    >>> evaluation = EvaluationCallback("tic_tac_toe", "random", pool, eval_every=64, eval_games=4,
    ...                                 callback_after_eval=after)
    >>> _ = model.learn(128, callback=evaluation)
    >>> len(pool) > 1, [record["timesteps"] for record in evaluation.records]
    (True, [0, 64, 128])
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.registry import make_agent
from arena.tournament.stats import wilson_interval
from arena.training.evaluation_games import EvaluationGames
from arena.training.policy_agent import require_sb3
from arena.training.pool import OpponentPool
from arena.training.report import write_csv

require_sb3()
from stable_baselines3.common.callbacks import BaseCallback, EventCallback  # noqa: E402

from arena.errors import InvalidTypeError, InvalidValueError

__all__ = [
    "AfterEvaluationCallback",
    "EvaluationCallback",
    "EvaluationLogCallback",
    "OnEvaluationCallback",
    "StopTrainingOnRecord",
]


class EvaluationCallback(EventCallback):
    """Evaluate the learner every ``eval_every`` timesteps against fixed references (and a pool); keep the records.

    The learner plays ``eval_games`` seeded games against each reference (the learning curve) at
    the start of training, every ``eval_every`` timesteps, and at the end of a run that went its
    course (not one that a callback or Ctrl-C stopped early), where it plays ``final_games``.
    Given the pool the training envs sample from, it also plays ``eval_games`` against the pool.

    Each evaluation becomes a record (a dict: ``timesteps``, ``wall_s`` and ``cpu_s`` (this
    process's CPU time) since training started, then per reference ``<name>_win_rate``,
    ``<name>_draw_rate``, ``<name>_score``, ``<name>_games`` and the 95% Wilson interval of the win
    rate, ``<name>_win_low`` and ``<name>_win_high``, then with a pool ``pool_score``,
    ``pool_games`` and ``pool_size``) appended to :attr:`records`; then ``callback_after_eval``
    runs, and a False from it stops training. The end's ``final_games``, when the run evaluated
    at that very step already, revise that record's reference entries and run
    ``callback_after_eval`` on it again.

    Args:
        env: the multi-agent env to evaluate on (name, factory or instance not used by the training
            envs), or the :class:`~arena.training.evaluation_games.EvaluationGames` that also say who
            plays beside the learner, behind which interface and how the games are played.
        references: fixed agents for the learning curve: one agent or spec (``"random"``), or a dict
            of name to agent/spec; the first is the main one.
        pool: the :class:`~arena.training.pool.OpponentPool` the training envs sample from, or
            ``None``: references only.
        eval_every: timesteps between evaluations.
        eval_games: games per evaluation against each reference and against the pool.
        final_games: games against each reference at the end of training (the figure a run reports);
            default ``eval_games``.
        history: the records of the run this one continues (``arena train --load``): they start
            :attr:`records`, time counts on from their last, and no evaluation is repeated at the
            timestep they end at.
        callback_after_eval: called (its ``on_step``) after each evaluation, with this callback as
            its ``parent``.
        verbose: SB3's verbosity.

    Attributes:
        records: every evaluation record, the continued run's first.
        last_pool_score: the :class:`~arena.training.matches.Score` against the pool at the latest
            evaluation (``None`` without a pool).
        games: the :class:`~arena.training.evaluation_games.EvaluationGames` played.
    """

    def __init__(
        self,
        env: EvaluationGames | MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        references: Agent | str | Mapping[str, Agent | str] = "random",
        pool: OpponentPool | None = None,
        *,
        eval_every: int = 10_000,
        eval_games: int = 50,
        final_games: int | None = None,
        history: Sequence[Mapping[str, Any]] = (),
        callback_after_eval: BaseCallback | None = None,
        verbose: int = 0,
    ) -> None:
        super().__init__(callback_after_eval, verbose)
        if eval_every < 1 or eval_games < 1:
            raise InvalidValueError(
                "EvaluationCallback: eval_every and eval_games must be at least 1, "
                f"got {eval_every!r} and {eval_games!r}"
            )
        if final_games is not None and (isinstance(final_games, bool) or final_games < 1):
            raise InvalidValueError(f"EvaluationCallback: final_games must be at least 1 or None, got {final_games!r}")
        if pool is not None and not isinstance(pool, OpponentPool):
            raise InvalidTypeError(
                f"EvaluationCallback: pool must be an OpponentPool or None, got {type(pool).__name__}"
            )
        named = dict(references) if isinstance(references, Mapping) else {str(references): references}
        if not named:
            raise InvalidValueError("EvaluationCallback: needs at least one reference agent")
        self.games = env if isinstance(env, EvaluationGames) else EvaluationGames(env)
        self.references = {name: make_agent(agent) for name, agent in named.items()}
        self.pool = pool
        self.eval_every = int(eval_every)
        self.eval_games = int(eval_games)
        self.final_games = int(final_games) if final_games is not None else self.eval_games
        self.records: list[dict[str, Any]] = [dict(record) for record in history]
        self.last_pool_score: Any = None
        # A continued run counts its time on from the records it continues.
        self._wall_offset = float(self.records[-1].get("wall_s", 0.0)) if self.records else 0.0
        self._cpu_offset = float(self.records[-1].get("cpu_s", 0.0)) if self.records else 0.0
        self._last_eval = -1
        self._started = 0.0
        self._cpu_started = 0.0
        self._stop = False
        self._total: int | None = None

    @property
    def learner(self) -> Agent | None:
        """The learner as an arena agent (once training has started)."""
        return self.games.learner

    # ------------------------------------------------------------------ SB3 hooks
    def _init_callback(self) -> None:
        self.games.bind(self.model, self.training_env)

    def _on_training_start(self) -> None:
        super()._on_training_start()  # the callbacks after evaluation first (a continued run's snapshots rejoin)
        self._total = self.locals.get("total_timesteps")  # learn()'s, counted on from a loaded model's
        self._started = time.perf_counter()
        self._cpu_started = time.process_time()
        if self._last_eval < 0:
            if self.records and self.records[-1].get("timesteps") == self.num_timesteps:
                self._last_eval = self.num_timesteps  # a continued run: evaluated at this count already
            else:
                self.evaluate()

    def _on_step(self) -> bool:
        if self.num_timesteps - self._last_eval >= self.eval_every:
            self.evaluate()
        return not self._stop

    def _on_training_end(self) -> None:
        # The last evaluation is of a run that went its course: not of one a callback or Ctrl-C cut short.
        finished = self._total is None or self.num_timesteps >= self._total
        if self._stop or not finished:
            return
        if self.num_timesteps > self._last_eval:
            self.evaluate(games=self.final_games)
        elif self.final_games != self.eval_games and self.records:
            # Evaluated at this very step with eval_games: the figure the run reports gets final_games.
            self.records[-1].update(self._against_references(self.final_games))
            self._after_evaluation()

    # -------------------------------------------------------------- the work
    def evaluate(self, games: int | None = None) -> dict[str, Any]:
        """Evaluate now with ``games`` against each reference (default ``eval_games``); returns the record.

        The pool always gets ``eval_games`` (what a promotion window counts in)."""
        record: dict[str, Any] = {
            "timesteps": int(self.num_timesteps),
            "wall_s": round(self._wall_offset + time.perf_counter() - self._started, 2),
            "cpu_s": round(self._cpu_offset + time.process_time() - self._cpu_started, 2),
        }
        record.update(self._against_references(games))
        self.last_pool_score = None
        if self.pool is not None:
            score = self.games.play(self.pool, self.eval_games, self.games.seed + 1 + len(self.records))
            self.last_pool_score = score
            record.update(pool_score=score.score, pool_games=score.games, pool_size=len(self.pool))
        self.records.append(record)
        self._last_eval = self.num_timesteps
        self._after_evaluation()
        return record

    def _after_evaluation(self) -> None:
        if not self._on_event():
            self._stop = True

    def _against_references(self, games: int | None) -> dict[str, Any]:
        """The record's entries of ``games`` against each reference: rates, counts, the win rate's interval."""
        entries: dict[str, Any] = {}
        for name, reference in self.references.items():
            score = self.games.play(reference, self.eval_games if games is None else games, self.games.seed)
            low, high = wilson_interval(score.wins, score.games)
            entries[f"{name}_win_rate"] = score.win_rate
            entries[f"{name}_draw_rate"] = score.draws / score.games
            entries[f"{name}_score"] = score.score
            entries[f"{name}_games"] = score.games
            entries[f"{name}_win_low"] = round(low, 4)
            entries[f"{name}_win_high"] = round(high, 4)
        return entries


class AfterEvaluationCallback(BaseCallback):
    """The base of the callbacks an :class:`EvaluationCallback` runs after each evaluation.

    Subclasses act in ``_on_step`` on :attr:`record`, the newest of :attr:`evaluation`'s records.
    """

    @property
    def evaluation(self) -> EvaluationCallback:
        """The evaluation callback this one runs after.

        Raises:
            TypeError: the callback is not an EvaluationCallback's ``callback_after_eval``.
        """
        if not isinstance(self.parent, EvaluationCallback):
            raise InvalidTypeError(
                f"{type(self).__name__}: runs after an EvaluationCallback's evaluations; pass it as its "
                f"callback_after_eval, got parent {type(self.parent).__name__}"
            )
        return self.parent

    @property
    def record(self) -> dict[str, Any]:
        """The newest evaluation record (its entries so far)."""
        return self.evaluation.records[-1]


class EvaluationLogCallback(AfterEvaluationCallback):
    """Log each evaluation record to SB3's logger (under ``arena/``), rewrite a CSV file, print it when verbose.

    Args:
        csv_path: a CSV file rewritten with all records after each evaluation (``None``: none).
        verbose: 1 prints each record as ``key=value`` pairs.
    """

    def __init__(self, csv_path: str | Path | None = None, verbose: int = 0) -> None:
        super().__init__(verbose)
        self.csv_path = None if csv_path is None else Path(csv_path)

    def _on_step(self) -> bool:
        record = self.record
        for key, value in record.items():
            if key != "timesteps":
                self.logger.record(f"arena/{key}", value)
        if self.csv_path is not None:
            write_csv(self.evaluation.records, self.csv_path)
        if self.verbose:
            print(" ".join(f"{key}={value}" for key, value in record.items()))
        return True


class OnEvaluationCallback(AfterEvaluationCallback):
    """Call ``function`` with each evaluation record (e.g. to show it on a progress display).

    Args:
        function: called with the record; what it returns is ignored.
    """

    def __init__(self, function: Callable[[dict[str, Any]], object]) -> None:
        super().__init__(0)
        self.function = function

    def _on_step(self) -> bool:
        self.function(self.record)
        return True


class StopTrainingOnRecord(AfterEvaluationCallback):
    """Stop training after the evaluation whose record meets ``condition`` (as SB3's
    ``StopTrainingOnRewardThreshold`` does with a reward); the end-of-run evaluation is then not played.

    Args:
        condition: called with each record; True stops training.
        verbose: 1 prints why training stopped.
    """

    def __init__(self, condition: Callable[[dict[str, Any]], bool], verbose: int = 0) -> None:
        super().__init__(verbose)
        self.condition = condition

    def _on_step(self) -> bool:
        record = self.record
        if not self.condition(record):
            return True
        if self.verbose:
            print(f"stopping training: the evaluation at {record['timesteps']} timesteps meets the condition")
        return False
