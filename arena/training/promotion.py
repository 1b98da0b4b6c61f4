"""Self-play promotion: a Stable-Baselines3 callback that snapshots the learner into the opponent pool.

:class:`PromotionCallback` runs after each evaluation of an
:class:`~arena.training.callbacks.EvaluationCallback` that plays against the same pool (its
``callback_after_eval``); a run without self-play builds none.

This module imports Stable-Baselines3 when it is imported; a missing install raises an ImportError
naming the ``train`` extra.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import InvalidTypeError, InvalidValueError
from arena.training.callbacks import AfterEvaluationCallback
from arena.training.policy_agent import SB3Agent, freeze
from arena.training.pool import OpponentPool

__all__ = ["PromotionCallback"]


class PromotionCallback(AfterEvaluationCallback):
    """Promote a frozen snapshot of the learner into the pool when it scores well enough against the pool.

    Promotion is win-rate gated: once the learner's score (wins plus half the draws, per game)
    against the pool over the last ``window`` games reaches ``promote_at``, a frozen snapshot of it
    (``snapshot@<timesteps>``) joins the pool, the window starts over, and the training envs
    receive the pool again (through ``env_method("set_opponents")``, so subprocess envs are
    refreshed too). ``promote_at=0`` promotes at every evaluation once the window is full (periodic
    snapshots). The evaluation training starts with fills the window but never promotes: the
    learner has not trained yet.

    Each evaluation's record gets ``window_score`` (the gate's score), ``pool_size`` (after any
    promotion) and ``promoted`` (1 or 0).

    Args:
        pool: the pool the parent :class:`~arena.training.callbacks.EvaluationCallback` plays against.
        promote_at: the window's score that promotes the learner, in [0, 1].
        window: the number of most recent games against the pool the gate looks at (default: the
            evaluation's ``eval_games``); games from several evaluations add up until a promotion
            empties it.
        snapshot_deterministic: whether snapshots play their most likely action (default: they
            sample, which keeps the opponents varied). Snapshots are seeded from the evaluation's seed.
        snapshots: ``(name, policy state dict)`` pairs of a continued run's snapshots
            (:meth:`snapshot_states`), added to the pool when training starts.
        verbose: 1 prints each promotion.

    Attributes:
        promotions: the timesteps at which the learner joined the pool in this run.

    Example:
        >>> from arena import RandomAgent
        >>> PromotionCallback(OpponentPool([RandomAgent()]), promote_at=0.55).promote_at
        0.55
    """

    def __init__(
        self,
        pool: OpponentPool,
        promote_at: float = 0.6,
        *,
        window: int | None = None,
        snapshot_deterministic: bool = False,
        snapshots: Sequence[tuple[str, Mapping[str, Any]]] = (),
        verbose: int = 0,
    ) -> None:
        super().__init__(verbose)
        if not isinstance(pool, OpponentPool):
            raise InvalidTypeError(f"PromotionCallback: pool must be an OpponentPool, got {type(pool).__name__}")
        if isinstance(promote_at, bool) or not isinstance(promote_at, (int, float)) or not 0.0 <= promote_at <= 1.0:
            raise InvalidValueError(f"PromotionCallback: promote_at must lie in [0, 1], got {promote_at!r}")
        if window is not None and (isinstance(window, bool) or window < 1):
            raise InvalidValueError(f"PromotionCallback: window must be at least 1 or None, got {window!r}")
        self.pool = pool
        self.promote_at = float(promote_at)
        self.snapshot_deterministic = snapshot_deterministic
        self.promotions: list[int] = []
        self.window: deque[float] | None = None
        self._window_size = window
        self._snapshots = list(snapshots)
        self._first = 0
        self._handled: dict[str, Any] | None = None

    def _on_training_start(self) -> None:
        evaluation = self.evaluation
        if evaluation.pool is not self.pool:
            raise InvalidValueError(
                "PromotionCallback: its EvaluationCallback must play against the same pool (give it as their pool)"
            )
        self._first = int(self.num_timesteps)
        if self.window is None:
            self.window = deque(maxlen=self._window_size or evaluation.eval_games)
        for name, state in self._snapshots:  # a continued run's pool: its snapshots, in their order
            policy = freeze(self.model.policy)
            policy.load_state_dict(state)
            self.pool.add(self._snapshot(policy, name), name=name)
        if self._snapshots:
            self._snapshots = []
            self.training_env.env_method("set_opponents", self.pool)

    def _on_step(self) -> bool:
        evaluation, record = self.evaluation, self.record
        score = evaluation.last_pool_score
        if record is self._handled or score is None or self.window is None:
            return True  # the same record again (the end's final_games), or no games against the pool
        self._handled = record
        self.window.extend(score.outcomes)
        gate = sum(self.window) / len(self.window)
        promoted = self.num_timesteps > self._first and len(self.window) == self.window.maxlen
        promoted = promoted and gate >= self.promote_at
        if promoted:
            self.promote()
        del record["pool_size"]  # entered again after window_score and any promotion: the CSV's column order
        record.update(window_score=gate, pool_size=len(self.pool), promoted=int(promoted))
        return True

    def _snapshot(self, policy: Any, name: str) -> Agent:
        snapshot = SB3Agent(
            policy,
            deterministic=self.snapshot_deterministic,
            seed=self.evaluation.games.seed + len(self.pool),
            name=name,
        )
        return self.evaluation.games.behind_interface(snapshot)

    def promote(self) -> Agent:
        """Snapshot the learner into the pool now and hand the pool to every training env."""
        name = f"snapshot@{self.num_timesteps}"
        agent = self._snapshot(freeze(self.model.policy), name)
        self.pool.add(agent, name=name)
        if self.window is not None:
            self.window.clear()
        self.promotions.append(int(self.num_timesteps))
        self.training_env.env_method("set_opponents", self.pool)
        if self.verbose:
            print(f"promoted {name} into the pool ({len(self.pool)} members)")
        return agent

    def snapshot_states(self) -> list[tuple[str, dict[str, Any]]]:
        """The pool's snapshots of the learner as ``(name, policy state dict)``, oldest first
        (to store with a trained folder and hand back as ``snapshots`` when training goes on)."""
        found = []
        for name, member in zip(self.pool.names, self.pool.members):
            inner = member.agent if isinstance(member, AgtItfWrapper) else member
            if name.startswith("snapshot@") and isinstance(inner, SB3Agent):
                found.append((name, inner.policy.state_dict()))
        return found
