"""How the learner plays its evaluation games during training: the env, its interface, a teammate, the way.

:class:`EvaluationGames` is what :class:`~arena.training.callbacks.EvaluationCallback` plays with and
:class:`~arena.training.promotion.PromotionCallback` snapshots through: it turns the model being trained
into an arena agent behind the learner's interface, and plays it against an opponent (an agent or an
:class:`~arena.training.pool.OpponentPool`) in the one of three ways that fits: a whole side at a time
(:func:`~arena.training.matches.match_sides`), all games at once in the env's batch
(:func:`~arena.training.matches.match_batch`) or one by one (:func:`~arena.training.matches.match`).

This module imports Stable-Baselines3 when it is imported (through
:mod:`arena.training.policy_agent`); a missing install raises an ImportError naming the ``train`` extra.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.errors import InvalidTypeError
from arena.interface import Interface
from arena.registry import make_agent, make_env
from arena.training.matches import Score, can_match_batch, match, match_batch, match_sides
from arena.training.policy_agent import SB3Agent
from arena.training.pool import OpponentPool

__all__ = ["FROM_TRAINING_ENV", "EvaluationGames"]

#: The default ``interface`` of :class:`EvaluationGames`: read the training env's ``interface`` attribute.
FROM_TRAINING_ENV: Any = object()

# Batched moves stack the learner's observations into one array: not for Dict or Tuple ones.
_STACKABLE = (spaces.Box, spaces.Discrete, spaces.MultiBinary, spaces.MultiDiscrete)


class EvaluationGames:
    """The learner's seeded evaluation games against an opponent, played the way that fits.

    :meth:`bind` (called by the callback that owns these games when training starts) makes
    :attr:`learner`: the model's policy, acting deterministically, behind a copy of the learner's
    interface. :meth:`play` then plays it against an agent or a pool: the whole side at a time when
    ``sides``, in one batch where the env's batch can serve (``batched=None``) or always
    (``batched=True``), else one game at a time with :func:`arena.play`.

    Args:
        env: the multi-agent env to evaluate on (a fresh one: name, factory or instance not used by
            the training envs).
        teammate: in an env with sides, the frozen agent (or spec) that plays beside the learner, as
            in training; the learner's side is judged.
        interface: the learner's interface (default: the training env's ``interface`` attribute);
            the learner and its snapshots play behind a copy of it; ``None``: the raw spaces.
        sides: the learner plays every member of its side and each opponent the other side (the side
            path's evaluation).
        batched: play each match's games at once in the env's batch (the same seeded games and pool
            draws, one forward of the learner per move); ``None`` (default) does so wherever the batch
            can serve (:func:`~arena.training.matches.can_match_batch`, and the learner's observations
            are arrays, not dicts); ``False`` plays them one by one.
        seed: the seed evaluation games count from (the same games at every evaluation).

    Example:
        >>> games = EvaluationGames("tic_tac_toe", interface=None, seed=3)
        >>> games.seed, games.sides
        (3, False)
    """

    def __init__(
        self,
        env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        *,
        teammate: Agent | str | None = None,
        interface: Interface | None | Any = FROM_TRAINING_ENV,
        sides: bool = False,
        batched: bool | None = None,
        seed: int = 0,
    ) -> None:
        if interface is not FROM_TRAINING_ENV and interface is not None and not isinstance(interface, Interface):
            raise InvalidTypeError(
                f"EvaluationGames: interface must be an arena.Interface or None, got {type(interface).__name__}"
            )
        self.env = make_env(env)
        self.teammate = None if teammate is None else make_agent(teammate)
        self.interface = interface
        self.sides = bool(sides)
        self.batched = batched
        self.seed = int(seed)
        self.learner: Agent | None = None
        self._stackable = False

    def bind(self, model: Any, training_env: Any) -> None:
        """Make :attr:`learner` from ``model``'s policy (the interface read from ``training_env`` if not given).

        Raises:
            TypeError: the training env's ``interface`` attribute is not an arena.Interface or None.
        """
        if self.interface is FROM_TRAINING_ENV:
            interface = training_env.get_attr("interface", indices=[0])[0]
            if interface is not None and not isinstance(interface, Interface):
                raise InvalidTypeError(
                    "EvaluationGames: the training env's interface must be an arena.Interface or None, "
                    f"got {type(interface).__name__}"
                )
            self.interface = interface
        self.learner = self.behind_interface(SB3Agent(model.policy, deterministic=True, name="learner"))
        self._stackable = isinstance(model.observation_space, _STACKABLE)

    def behind_interface(self, agent: Agent) -> Agent:
        """``agent`` behind a copy of the learner's interface (as it is, without one)."""
        if not isinstance(self.interface, Interface):  # None: the learner plays on the raw spaces
            return agent
        return AgtItfWrapper(agent, copy.deepcopy(self.interface))

    def play(self, opponent: Agent | OpponentPool, games: int, seed: int) -> Score:
        """The learner's ``games`` seeded games against ``opponent``.

        Raises:
            RuntimeError: called before :meth:`bind`.
        """
        if self.learner is None:
            raise RuntimeError("EvaluationGames: bind(model, training_env) makes the learner before games are played")
        if self.sides:  # the side path's learner plays a whole side
            return match_sides(self.env, self.learner, opponent, games, seed=seed)
        if self.batched or (
            self.batched is None
            and self._stackable
            and can_match_batch(self.env, self.learner, opponent, self.teammate)
        ):
            return match_batch(self.env, self.learner, opponent, games, seed=seed)
        return match(self.env, self.learner, opponent, games, seed=seed, teammate=self.teammate)
