"""The batch contract: what :meth:`arena.MultiAgentEnv.make_batch` returns.

A batch plays ``num_games`` games of one env side by side over arrays, the games on axis 0.
It follows Gymnasium 1.x's ``VectorEnv`` where that fits a multi-agent game
(``single_observation_space``, ``single_action_space``, same-step auto-reset) and declares
what differs between games: whose turn it is (:data:`TurnModel`). ``docs/architecture.md``
("The batch contract") states the contract with its edge cases;
:func:`arena.testing.check_batch` checks a batch keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol, get_args, runtime_checkable

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError

__all__ = [
    "AlternatingBatch",
    "GameBatch",
    "SimultaneousBatch",
    "TurnModel",
    "TURN_MODELS",
    "num_actions",
    "turn_model",
]

#: How the agents of one game take turns in a batch:
#:
#: * ``"alternating"``: one agent moves per step (board games). ``step`` takes one action per
#:   game, ``(num_games, *action_shape)``, for the agent ``infos["to_play"]`` names (its index in
#:   ``possible_agents``); ``infos["action_mask"]`` is that agent's ``(num_games, n)`` bool mask.
#: * ``"simultaneous"``: every agent in play moves at once (real-time games). ``step`` takes
#:   ``(num_games, len(possible_agents), *action_shape)``; ``infos["live"]`` is the
#:   ``(num_games, len(possible_agents))`` bool mask of the agents that act next.
#: * ``"sides"``: sides of many units (MAgent-style), each side acting for all its units at once.
#:   No bundled batch has this model yet; it is reserved so that one can declare it.
TurnModel = Literal["alternating", "simultaneous", "sides"]
TURN_MODELS: tuple[str, ...] = get_args(TurnModel)


@runtime_checkable
class GameBatch(Protocol):
    """``num_games`` games of one env, stepped together over arrays (the contract of ``make_batch``).

    * ``reset(seed=s)`` starts every game; game ``g`` gets ``arena.seeding.derive_seed(s, g)``
      (or ``s[g]`` for a sequence of one seed per game), so game ``g`` plays what the single
      env plays after ``reset(seed=derive_seed(s, g))`` followed by plain ``reset()`` calls,
      given the same actions. Returns ``(observations, infos)``.
    * ``step(actions)`` returns ``(observations, rewards, terminations, truncations, infos)``.
      Rewards are float32 and the flags bool, ``(num_games, len(possible_agents))``, zero and
      False for agents the single env did not name. Observations lie in
      ``single_observation_space`` per game (alternating) or per game and agent (zero for an
      agent not in play).
    * Auto-reset is Gymnasium's ``SAME_STEP`` mode: a game that ends restarts inside the same
      ``step``, so what comes back for it already belongs to its next episode;
      ``infos["episode_over"]`` ``(num_games,)`` marks those games and
      ``infos["final_observation"]`` holds their last observations, in game order (one row per
      ended game; Gymnasium 0.29's name, where Gymnasium 1.x says ``final_obs``).
    * ``turns`` declares the :data:`TurnModel`, which fixes the action shape and the masks in
      ``infos`` (``to_play`` and ``action_mask``, or ``live``).

    Every agent of a bundled batch shares one observation and one action space, as
    ``single_observation_space`` and ``single_action_space`` say.

    Example:
        >>> import envs
        >>> batch = envs.make("tic_tac_toe").make_batch(4)
        >>> isinstance(batch, GameBatch), batch.turns, batch.num_games
        (True, 'alternating', 4)
    """

    #: Whose turn it is in a game (:data:`TurnModel`).
    turns: TurnModel

    @property
    def num_games(self) -> int:
        """The number of games, axis 0 of every array."""
        ...

    @property
    def possible_agents(self) -> Sequence[str]:
        """The single env's ``possible_agents``, in the order of the agent axis."""
        ...

    @property
    def single_observation_space(self) -> spaces.Space[Any]:
        """One agent's observation in one game."""
        ...

    @property
    def single_action_space(self) -> spaces.Space[Any]:
        """One agent's action in one game."""
        ...

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game; see the class docstring."""
        ...

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game; see the class docstring."""
        ...


@runtime_checkable
class AlternatingBatch(GameBatch, Protocol):
    """A batch whose turns alternate (``turns == "alternating"``): what it adds to :class:`GameBatch`.

    ``step(actions, games=idx)`` moves only the games ``idx`` (distinct indices; ``actions`` has
    ``len(idx)`` entries) and every returned array covers those games, in that order. The
    simultaneous batches have no such argument: every game steps.
    """

    @property
    def to_play(self) -> np.ndarray:
        """``(num_games,)``: the index in ``possible_agents`` of the agent to move next."""
        ...

    @property
    def action_mask(self) -> np.ndarray:
        """``(num_games, n)`` bool: the legal actions of the agent to move next."""
        ...

    def step(
        self, actions: Any, games: Any = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every game, or only ``games``."""
        ...


@runtime_checkable
class SimultaneousBatch(GameBatch, Protocol):
    """A batch where every agent in play moves at once (``turns == "simultaneous"``): what it adds.

    ``restart(games)`` abandons ``games`` and starts each one's next episode now (a trainer
    whose learner is out ends the game for it), returning their new observations.

    A batch whose views are costly may also offer ``set_view_seats(mask)`` (``(num_games, agents)``
    bool: the views written from the next step on, the others zero) and ``observe(games)`` (write
    and return the views of ``games`` now); ``BatchVecEnv`` then asks for the views it reads.
    """

    @property
    def live(self) -> np.ndarray:
        """``(num_games, len(possible_agents))`` bool: the agents that act next."""
        ...

    def restart(self, games: Any) -> np.ndarray:
        """Start the next episode of ``games`` now; returns their observations."""
        ...


def turn_model(batch: Any) -> TurnModel:
    """The turn model ``batch`` declares (its ``turns``).

    Raises:
        TypeError: ``batch`` declares none, or one that is not a :data:`TurnModel`.

    Example:
        >>> import envs
        >>> turn_model(envs.make("snake").make_batch(2))
        'simultaneous'
    """
    turns = getattr(type(batch), "turns", None)
    if turns not in TURN_MODELS:
        raise InvalidTypeError(
            f"{batch!r} must declare its turn model as a class attribute turns, one of {TURN_MODELS}; "
            f"got {turns!r} (see arena.batch.GameBatch)"
        )
    return turns


def num_actions(batch: GameBatch) -> int | None:
    """The number of discrete actions of one agent, or ``None`` where the action space is not discrete.

    Example:
        >>> import envs
        >>> num_actions(envs.make("connect_four").make_batch(1))
        7
    """
    space = batch.single_action_space
    return int(space.n) if isinstance(space, spaces.Discrete) else None
