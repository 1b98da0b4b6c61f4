"""Stable-Baselines3 callbacks: self-play (evaluate, promote, log), a rich progress bar, progress lines.

This module imports Stable-Baselines3 when it is imported (its classes derive from
SB3's ``BaseCallback``); a missing install raises an ImportError naming the ``train``
extra.
"""

from __future__ import annotations

import copy
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.interface import Interface
from arena.registry import make_agent, make_env
from arena.tournament.stats import wilson_interval
from arena.training.matches import can_match_batch, match, match_batch, match_sides
from arena.training.policy_agent import SB3Agent, freeze, require_sb3
from arena.training.pool import OpponentPool
from arena.training.report import write_csv

require_sb3()
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

__all__ = ["SelfPlayCallback", "RichProgressCallback", "ProgressLinesCallback"]

_FROM_ENV = object()  # sentinel: read the learner's interface from the training env


class SelfPlayCallback(BaseCallback):
    """Evaluate the learner during training, promote it into the opponent pool, log both.

    Every ``eval_every`` timesteps (and at the start, and at the end of a run that was not
    stopped early: by ``stop_when``, another callback or Ctrl-C) the
    learner plays ``eval_games`` seeded games with :func:`arena.play` against each fixed
    reference agent (for the learning curve) and against opponents drawn from the
    pool. Promotion is win-rate gated: once the learner's score (wins plus half the
    draws, per game) against the pool over the last ``window`` games reaches
    ``promote_at``, a frozen snapshot of it joins the pool, the window starts over, and
    the training envs receive the pool again (through ``env_method("set_opponents")``,
    so subprocess envs are refreshed too). ``promote_at=0`` promotes at every
    evaluation (periodic snapshots); ``promote_at=None`` never promotes.

    Each evaluation becomes a record (a dict: ``timesteps``, ``wall_s`` and ``cpu_s``
    (this process's CPU time) since training started, then per reference
    ``<name>_win_rate``, ``<name>_draw_rate``, ``<name>_score``, ``<name>_games`` and the 95%
    Wilson interval of the win rate, ``<name>_win_low`` and ``<name>_win_high``, then
    ``pool_score``, ``pool_games``, ``window_score``, ``pool_size`` and ``promoted``) in
    :attr:`records`, is logged to the SB3 logger under ``arena/``, and is appended to
    ``csv_path`` when given.

    Args:
        env: the multi-agent env to evaluate on (a fresh one: name, factory or instance
            not used by the training envs).
        pool: the :class:`OpponentPool` the training envs sample from, or ``None`` for
            evaluation only.
        references: fixed agents for the learning curve: one agent or spec
            (``"random"``), or a dict of name to agent/spec; the first is the main one.
        teammate: in an env with sides, the frozen agent (or spec) that plays beside the
            learner in evaluation games, as in training; the learner's side is judged.
        eval_every: timesteps between evaluations.
        eval_games: games per evaluation against each reference and against the pool.
        final_games: games against each reference at the end of training (the figure a run
            reports: ``arena train`` plays its recipe's full ``eval_games`` there however short
            the run); default ``eval_games``.
        promote_at: the score against the pool that promotes the learner.
        window: the number of most recent games against the pool that the gate looks
            at (default ``eval_games``); games from several evaluations add up until
            a promotion empties it.
        interface: the learner's interface (default: the training env's ``interface``
            attribute); evaluation and snapshots play behind a copy of it.
        snapshot_deterministic: whether snapshots play their most likely action
            (default: they sample, which keeps the opponents varied).
        seed: seeds the evaluation games (the same games at every evaluation).
        csv_path: a CSV file rewritten with all records after each evaluation.
        stop_when: called with each record; returning True stops training.
        on_evaluation: called with each record (e.g. to update a progress display).
        batched: play the evaluation games of each match at once in the env's batch
            (:func:`~arena.training.matches.match_batch`: the same seeded games and
            pool draws, one forward of the learner per move for all games); ``None``
            (default) does so wherever the batch can serve (see
            :func:`~arena.training.matches.can_match_batch`; and the learner's
            observations are arrays, not dicts), ``False`` plays them one by one with
            :func:`arena.play`.
        sides: the learner plays every member of its side and each opponent the other side
            (:func:`~arena.training.matches.match_sides`): the side path's evaluation.
        history: the records of the run this one continues (``arena train --load``): they
            start :attr:`records` (and so the CSV), time counts on from their last, and no
            evaluation is repeated at the timestep they end at.
        snapshots: ``(name, policy state dict)`` pairs of the continued run's self-play
            snapshots (:meth:`snapshot_states`), added to ``pool`` when training starts.

    Example:
        >>> import envs
        >>> from sb3_contrib import MaskablePPO
        >>> from arena import RandomAgent
        >>> from arena.training import OpponentPool, SingleAgentEnv
        >>> pool = OpponentPool([RandomAgent(seed=0)])
        >>> model = MaskablePPO("MlpPolicy", SingleAgentEnv("tic_tac_toe", pool, shuffle_seats=True),
        ...                     n_steps=64, batch_size=32, n_epochs=1, seed=0)
        >>> callback = SelfPlayCallback("tic_tac_toe", pool, eval_every=64, eval_games=4, promote_at=0.0)
        >>> _ = model.learn(128, callback=callback)
        >>> len(pool) > 1
        True
    """

    def __init__(
        self,
        env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        pool: OpponentPool | None = None,
        references: Agent | str | Mapping[str, Agent | str] = "random",
        *,
        teammate: Agent | str | None = None,
        eval_every: int = 10_000,
        eval_games: int = 50,
        final_games: int | None = None,
        promote_at: float | None = 0.6,
        window: int | None = None,
        interface: Interface | None | object = _FROM_ENV,
        snapshot_deterministic: bool = False,
        seed: int = 0,
        csv_path: str | Path | None = None,
        stop_when: Callable[[dict[str, Any]], bool] | None = None,
        on_evaluation: Callable[[dict[str, Any]], None] | None = None,
        batched: bool | None = None,
        sides: bool = False,
        history: Sequence[Mapping[str, Any]] = (),
        snapshots: Sequence[tuple[str, Mapping[str, Any]]] = (),
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        if eval_every < 1 or eval_games < 1:
            raise ValueError(
                f"SelfPlayCallback: eval_every and eval_games must be at least 1, got {eval_every!r} and {eval_games!r}"
            )
        if final_games is not None and (isinstance(final_games, bool) or final_games < 1):
            raise ValueError(f"SelfPlayCallback: final_games must be at least 1 or None, got {final_games!r}")
        if promote_at is not None and not 0.0 <= promote_at <= 1.0:
            raise ValueError(f"SelfPlayCallback: promote_at must lie in [0, 1] or be None, got {promote_at!r}")
        if pool is not None and not isinstance(pool, OpponentPool):
            raise TypeError(f"SelfPlayCallback: pool must be an OpponentPool or None, got {type(pool).__name__}")
        self.env = make_env(env)
        self.pool = pool
        if isinstance(references, Mapping):
            named = dict(references)
        else:
            named = {str(references): references}
        if not named:
            raise ValueError("SelfPlayCallback: needs at least one reference agent")
        self.references = {name: make_agent(agent) for name, agent in named.items()}
        self.teammate = None if teammate is None else make_agent(teammate)
        self.eval_every = int(eval_every)
        self.eval_games = int(eval_games)
        self.final_games = int(final_games) if final_games is not None else self.eval_games
        self.promote_at = promote_at
        self.window: deque[float] = deque(maxlen=int(window or eval_games))
        self._interface = interface
        self.snapshot_deterministic = snapshot_deterministic
        self.seed = seed
        self.csv_path = None if csv_path is None else Path(csv_path)
        self.stop_when = stop_when
        self.on_evaluation = on_evaluation
        self.batched = batched
        self.sides = bool(sides)
        self.records: list[dict[str, Any]] = [dict(record) for record in history]
        # A continued run counts its time on from the records it continues.
        self._wall_offset = float(self.records[-1].get("wall_s", 0.0)) if self.records else 0.0
        self._cpu_offset = float(self.records[-1].get("cpu_s", 0.0)) if self.records else 0.0
        self._snapshots = list(snapshots)
        if self._snapshots and pool is None:
            raise ValueError("SelfPlayCallback: snapshots need a pool to join")
        self.promotions: list[int] = []
        self._last_eval = -1
        self._started = 0.0
        self._cpu_started = 0.0
        self._stop = False
        self._total: int | None = None

    # ------------------------------------------------------------------ SB3 hooks
    def _init_callback(self) -> None:
        if self._interface is _FROM_ENV:
            self._interface = self.training_env.get_attr("interface", indices=[0])[0]
        if self._interface is not None and not isinstance(self._interface, Interface):
            raise TypeError(
                f"SelfPlayCallback: interface must be an arena.Interface or None, got {type(self._interface).__name__}"
            )
        self.learner = self._behind_interface(SB3Agent(self.model.policy, deterministic=True, name="learner"))
        # Batched moves stack the learner's observations into one array: not for Dict or Tuple ones.
        self._stackable = isinstance(
            self.model.observation_space, (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)
        )
        if self._snapshots and self.pool is not None:
            for name, state in self._snapshots:  # a continued run's pool: its snapshots, in their order
                policy = freeze(self.model.policy)
                policy.load_state_dict(state)
                snapshot = SB3Agent(
                    policy, deterministic=self.snapshot_deterministic, seed=self.seed + len(self.pool), name=name
                )
                self.pool.add(self._behind_interface(snapshot), name=name)
            self._snapshots = []
            self.training_env.env_method("set_opponents", self.pool)

    def _on_training_start(self) -> None:
        self._total = self.locals.get("total_timesteps")  # learn()'s, counted on from a loaded model's
        self._started = time.perf_counter()
        self._cpu_started = time.process_time()
        if self._last_eval < 0:
            if self.records and self.records[-1].get("timesteps") == self.num_timesteps:
                self._last_eval = self.num_timesteps  # a continued run: evaluated at this count already
            else:
                self.evaluate(promote=False)

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
            self._publish(self.records[-1])

    def _against_references(self, games: int | None) -> dict[str, Any]:
        """The record's entries of ``games`` against each reference: rates, counts, the win rate's interval."""
        entries: dict[str, Any] = {}
        for name, reference in self.references.items():
            score = self._match(reference, self.seed, games)
            low, high = wilson_interval(score.wins, score.games)
            entries[f"{name}_win_rate"] = score.win_rate
            entries[f"{name}_draw_rate"] = score.draws / score.games
            entries[f"{name}_score"] = score.score
            entries[f"{name}_games"] = score.games
            entries[f"{name}_win_low"] = round(low, 4)
            entries[f"{name}_win_high"] = round(high, 4)
        return entries

    def _publish(self, record: dict[str, Any]) -> None:
        """Log ``record``, rewrite the CSV and tell ``on_evaluation``."""
        for key, value in record.items():
            if key != "timesteps":
                self.logger.record(f"arena/{key}", value)
        if self.csv_path is not None:
            write_csv(self.records, self.csv_path)
        if self.verbose:
            print(" ".join(f"{key}={value}" for key, value in record.items()))
        if self.on_evaluation is not None:
            self.on_evaluation(record)

    # -------------------------------------------------------------- the work
    def _behind_interface(self, agent: Agent) -> Agent:
        if not isinstance(self._interface, Interface):  # None: the learner plays on the raw spaces
            return agent
        return AgtItfWrapper(agent, copy.deepcopy(self._interface))

    def _match(self, opponent: Agent | OpponentPool, seed: int, games: int | None = None):
        """The learner's ``games`` (default ``eval_games``) against ``opponent``: in one batch where it
        can, else one by one."""
        games = self.eval_games if games is None else games
        if self.sides:  # the side path's learner plays a whole side
            return match_sides(self.env, self.learner, opponent, games, seed=seed)
        if self.batched or (
            self.batched is None
            and self._stackable
            and can_match_batch(self.env, self.learner, opponent, self.teammate)
        ):
            return match_batch(self.env, self.learner, opponent, games, seed=seed)
        return match(self.env, self.learner, opponent, games, seed=seed, teammate=self.teammate)

    def evaluate(self, promote: bool = True, games: int | None = None) -> dict[str, Any]:
        """Evaluate now, promote when the gate opens, record and log; returns the record.

        ``games`` against each reference (default ``eval_games``); the pool always gets ``eval_games``,
        which the promotion window counts in."""
        record: dict[str, Any] = {
            "timesteps": int(self.num_timesteps),
            "wall_s": round(self._wall_offset + time.perf_counter() - self._started, 2),
            "cpu_s": round(self._cpu_offset + time.process_time() - self._cpu_started, 2),
        }
        record.update(self._against_references(games))
        promoted = False
        if self.pool is not None:
            score = self._match(self.pool, self.seed + 1 + len(self.records))
            self.window.extend(score.outcomes)
            gate = sum(self.window) / len(self.window)
            record["pool_score"] = score.score
            record["pool_games"] = score.games
            record["window_score"] = gate
            if (
                promote
                and self.promote_at is not None
                and len(self.window) == self.window.maxlen
                and gate >= self.promote_at
            ):
                self.promote()
                promoted = True
            record["pool_size"] = len(self.pool)
        record["promoted"] = int(promoted)
        self.records.append(record)
        self._last_eval = self.num_timesteps
        self._publish(record)
        if self.stop_when is not None and self.stop_when(record):
            self._stop = True
        return record

    def snapshot_states(self) -> list[tuple[str, dict[str, Any]]]:
        """The pool's snapshots of the learner as ``(name, policy state dict)``, oldest first
        (to store with a trained folder and hand back as ``snapshots`` when training goes on)."""
        found = []
        for name, member in zip(self.pool.names, self.pool.members) if self.pool is not None else ():
            inner = member.agent if isinstance(member, AgtItfWrapper) else member
            if name.startswith("snapshot@") and isinstance(inner, SB3Agent):
                found.append((name, inner.policy.state_dict()))
        return found

    def promote(self) -> Agent:
        """Snapshot the learner into the pool and hand the pool to every training env."""
        if self.pool is None:
            raise ValueError("SelfPlayCallback: promote() needs a pool")
        name = f"snapshot@{self.num_timesteps}"
        snapshot = SB3Agent(
            freeze(self.model.policy),
            deterministic=self.snapshot_deterministic,
            seed=self.seed + len(self.pool),
            name=name,
        )
        agent = self._behind_interface(snapshot)
        self.pool.add(agent, name=name)
        self.window.clear()
        self.promotions.append(int(self.num_timesteps))
        self.training_env.env_method("set_opponents", self.pool)
        return agent


class RichProgressCallback(BaseCallback):
    """A rich progress bar over timesteps, with a status line the caller can update.

    Args:
        total_timesteps: the length of the bar.
        description: the text before the bar.
        console: a ``rich.console.Console`` to draw on (default: stderr).

    Raises:
        ImportError: rich is missing (names the extra to install).
    """

    def __init__(self, total_timesteps: int, description: str = "training", console: Any = None) -> None:
        super().__init__(0)
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError as err:
            raise ImportError(
                f"RichProgressCallback needs rich ({err}); install the 'train' extra: pip install 'arena-marl[train]'"
            ) from err
        self.total_timesteps = int(total_timesteps)
        self.description = description
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("steps"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[status]}"),
            console=console if console is not None else Console(stderr=True),
            transient=False,
        )
        self._task: Any = None

    def set_status(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. the latest win rate)."""
        if self._task is not None:
            self.progress.update(self._task, status=text)

    def _on_training_start(self) -> None:
        self.progress.start()
        self._task = self.progress.add_task(self.description, total=self.total_timesteps, status="")

    def _on_step(self) -> bool:
        self.progress.update(self._task, completed=min(self.num_timesteps, self.total_timesteps))
        return True

    def _on_training_end(self) -> None:
        self.progress.update(self._task, completed=min(self.num_timesteps, self.total_timesteps))
        self.progress.stop()


class ProgressLinesCallback(BaseCallback):
    """Plain progress lines for logs: steps, rate, eta and the last evaluation, every ``every`` seconds.

    For output that is not a terminal (a log file, a pipe, CI), where a progress bar shows
    nothing until the end. A line is printed when training starts, after each evaluation
    (:meth:`set_status`), at the end, and at least every ``every`` seconds in between: a
    background thread keeps the cadence while SB3 updates the network or the evaluation
    games run, so a log shows the run is alive. Each line is flushed at once.

    Args:
        total_timesteps: the timesteps this run trains.
        description: the text that starts each line (``"train pommerman"``).
        every: seconds between lines at most.
        stream: where to print (default: stderr).

    Example:
        >>> import io
        >>> lines = ProgressLinesCallback(1000, "train tic_tac_toe", stream=io.StringIO())
        >>> lines.line(steps=250, elapsed=5.0)
        'train tic_tac_toe: 250/1,000 steps (25%), 50 steps/s, eta 15s'
    """

    def __init__(
        self, total_timesteps: int, description: str = "training", every: float = 30.0, stream: TextIO | None = None
    ) -> None:
        super().__init__(0)
        if not every > 0:
            raise ValueError(f"ProgressLinesCallback: every must be a positive number of seconds, got {every!r}")
        self.total_timesteps = int(total_timesteps)
        self.description = description
        self.every = float(every)
        self.stream = stream
        self.status = ""
        self._first = 0
        self._steps = 0
        self._started = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def line(self, steps: int, elapsed: float) -> str:
        """The progress line after ``steps`` of this run's timesteps in ``elapsed`` seconds."""
        rate = steps / elapsed if elapsed > 0 else 0.0
        eta = (self.total_timesteps - steps) / rate if rate > 0 else None
        share = steps / self.total_timesteps if self.total_timesteps else 1.0
        text = (
            f"{self.description}: {steps:,}/{self.total_timesteps:,} steps ({share:.0%}), {rate:,.0f} steps/s, "
            f"eta {_duration(eta) if eta is not None else '?'}"
        )
        return f"{text}, {self.status}" if self.status else text

    def set_status(self, text: str) -> None:
        """Record the last evaluation and print a line with it now."""
        with self._lock:
            self.status = text
        self._print()

    def _print(self) -> None:
        with self._lock:
            text = self.line(self._steps, time.perf_counter() - self._started)
        print(text, file=self.stream if self.stream is not None else sys.stderr, flush=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            self._print()

    def _on_training_start(self) -> None:
        self._first = int(self.num_timesteps)
        self._started = time.perf_counter()
        self._stop.clear()
        self._print()
        self._thread = threading.Thread(target=self._beat, name="arena-progress-lines", daemon=True)
        self._thread.start()

    def _on_step(self) -> bool:
        self._steps = min(int(self.num_timesteps) - self._first, self.total_timesteps)
        return True

    def _on_training_end(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._print()


def _duration(seconds: float) -> str:
    """``"15s"``, ``"4m05s"``, ``"2h03m"``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
