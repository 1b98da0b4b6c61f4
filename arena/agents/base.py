"""The agent contract and the random reference agent."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from arena.seeding import SplitMix64, next_uniform

__all__ = ["Agent", "ForwardingAgent", "RandomAgent"]


class Agent:
    """Something that acts in an environment: a policy, a script, a person.

    The play loop calls :meth:`setup` once with the spaces the agent will see (raw env
    spaces, or ``Tuple`` spaces for a team agent), :meth:`reset` at the start of each
    episode, :meth:`act` whenever the env asks the agent to act, and :meth:`done`
    exactly once when the episode ends for it.

    Example:
        >>> class AlwaysFirstLegal(Agent):
        ...     def act(self, observation, action_mask=None, reward=0.0):
        ...         return 0 if action_mask is None else int(action_mask.argmax())
    """

    observation_space: spaces.Space | None = None
    action_space: spaces.Space | None = None
    #: Whether a deep copy of this agent, once set up, plays a game on its own: all its per-game
    #: state lies in its attributes (no process, socket or shared resource). A batched trainer on a
    #: worker batch then plays such an agent that cannot :meth:`act_batch` as one copy per game
    #: slot, each reset, acting with its rewards and told :meth:`done` as on one game
    #: (``vizdoom_aim``, which keeps a clock per game). False: it trains one game at a time.
    copy_per_game: bool = False

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        """Receive the spaces this agent will observe and act in."""
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self, *, seed: int | None = None) -> None:
        """Start an episode; a given ``seed`` re-seeds any randomness the agent has."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        """Choose an action.

        Args:
            observation: this agent's observation (never another agent's private one).
            action_mask: int8 array, 1 for legal actions, or ``None`` when the env has no mask.
            reward: the reward earned since this agent last acted (0.0 on its first turn).
        """
        raise NotImplementedError(f"{type(self).__name__} must implement act()")

    def done(self, reward: float, info: dict[str, Any]) -> None:
        """The episode ended for this agent; ``reward`` is what it earned since it last acted.

        ``info`` is the env's final info for the agent; :func:`arena.play` adds
        ``"truncated": True`` when the episode was cut rather than terminated.
        """

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """Choose actions for many games at once (batched trainers call it, one call per step).

        Only an agent whose :meth:`act` keeps nothing from one call to the next can play
        many games at once; such agents override this (``RandomAgent``, ``SB3Agent``, the
        connect-four heuristic, ``AgtItfWrapper`` around them) and :attr:`batchable` is then
        True. Rewards and :meth:`done` are not delivered on this path.

        Args:
            observations: one observation per game, stacked on axis 0.
            action_masks: ``(games, n)`` bool/int8 masks, or ``None``.

        Returns:
            One action per game, an integer array.

        Raises:
            NotImplementedError: the agent cannot act for many games at once.
        """
        raise NotImplementedError(
            f"{self}: cannot act for many games at once (no act_batch); play it "
            "through the single-env path (arena.training.SingleAgentEnv)"
        )

    @property
    def batchable(self) -> bool:
        """Whether :meth:`act_batch` works for this agent."""
        return type(self).act_batch is not Agent.act_batch

    def act_on_batch(self, batch: Any, games: np.ndarray, players: np.ndarray) -> np.ndarray:
        """Choose the actions of players ``players`` in games ``games`` of ``batch``, read from the batch itself.

        For a game's own scripted player that decides from more than the views the batch hands
        out (its compiled state, each seat's memory), as ``pommerman_simple`` does on
        :class:`~envs.pommerman.batch.PommermanBatch`: a batched trainer calls it once a step for
        every seat the agent fills, before stepping the batch, in place of :meth:`act_batch`.
        Only agents that override it can (:attr:`acts_on_batch`).

        Args:
            batch: the :class:`arena.batch.GameBatch` being played.
            games: the game index of each seat.
            players: the player index of each seat (as long as ``games``).

        Returns:
            One action per seat, in the frame the batch's ``step`` reads.

        Raises:
            NotImplementedError: the agent does not read batches.
        """
        raise NotImplementedError(f"{self}: does not act from a batch's state (no act_on_batch)")

    @property
    def acts_on_batch(self) -> bool:
        """Whether :meth:`act_on_batch` works for this agent."""
        return type(self).act_on_batch is not Agent.act_on_batch

    def __str__(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return str(self)


def _rows(observations: Any) -> int:
    """The number of games in stacked observations (a ``Dict``/``Tuple`` space's are dicts/tuples of arrays)."""
    while isinstance(observations, (dict, tuple)):
        observations = next(iter(observations.values())) if isinstance(observations, dict) else observations[0]
    return len(observations)


#: Masks of at most this many actions have their legal actions remembered (see ``_small_mask_legal``).
_SMALL_MASK = 64
#: Legal actions by mask bytes: board and card games meet the same few masks again and again.
_LEGAL_BY_MASK: dict[bytes, tuple[int, ...]] = {}


def _small_mask_legal(mask: np.ndarray) -> tuple[int, ...]:
    """The legal actions of a 1-D mask of one-byte items (int8, uint8, bool) of at most ``_SMALL_MASK`` actions.

    A dictionary look-up by the mask's bytes costs a third of ``nonzero`` and needs no numpy
    scalar to read an action. Bytes are the key only for one-byte items, where a nonzero byte is
    a nonzero item; the memo is emptied when it grows past 4,096 masks.

    Example:
        >>> _small_mask_legal(np.array([0, 1, 1, 0], dtype=np.int8))
        (1, 2)
    """
    key = mask.tobytes()
    legal = _LEGAL_BY_MASK.get(key)
    if legal is None:
        if len(_LEGAL_BY_MASK) >= 4096:
            _LEGAL_BY_MASK.clear()
        legal = _LEGAL_BY_MASK[key] = tuple(mask.nonzero()[0].tolist())
    return legal


class ForwardingAgent(Agent):
    """An agent that plays exactly as ``inner`` does: the base of one that watches or changes a call.

    Every hook goes to ``inner``; a subclass overrides the one it watches (as Gymnasium's wrappers
    override one method) and calls ``super()`` for the play itself.

    Example:
        >>> class CountTurns(ForwardingAgent):
        ...     turns = 0
        ...     def act(self, observation, action_mask=None, reward=0.0):
        ...         self.turns += 1
        ...         return super().act(observation, action_mask, reward)
        >>> counted = CountTurns(RandomAgent(seed=0))
        >>> counted.setup(spaces.Discrete(3), spaces.Discrete(2))
        >>> _ = counted.act(0), counted.act(1)
        >>> counted.turns, str(counted)
        (2, 'CountTurns(RandomAgent)')
    """

    def __init__(self, inner: Agent) -> None:
        self.inner = inner

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self.inner.setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        self.inner.reset(seed=seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        return self.inner.act(observation, action_mask, reward)

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.inner.done(reward, info)

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.inner})"


class RandomAgent(Agent):
    """Uniformly random legal actions; seeded, and fast on Discrete spaces.

    It draws from a :class:`~arena.seeding.SplitMix64` generator, which re-seeds in a
    fraction of a microsecond: the play loop re-seeds every agent every game. Small masks'
    legal actions are remembered by the mask's bytes (board games meet the same masks often).

    Args:
        seed: seeds the agent's own generator (``reset(seed=...)`` re-seeds it).

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = RandomAgent(seed=0)
        >>> agent.setup(spaces.Discrete(3), spaces.Discrete(3))
        >>> agent.act(0, np.array([0, 0, 1], dtype=np.int8))
        2
    """

    def __init__(self, seed: int | None = None) -> None:
        self._rng = SplitMix64(seed)
        self._stream = self._rng.stream  # act() draws with next_uniform on it: one call less a move
        self._space: spaces.Space | None = None
        self._n: int | None = None
        self._start = 0

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        self._n, self._start = None, 0
        if type(action_space) is spaces.Discrete:  # the exact class: a subclass may sample its own way
            self._n, self._start = int(action_space.n), int(action_space.start)
        else:
            # A private copy, so that sampling does not disturb anyone else's space RNG.
            self._space = copy.deepcopy(action_space)
            self._space.seed(self._rng.getrandbits32())

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            if self._space is not None:
                self._space.seed(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        n = self._n
        if n is None:
            if self._space is None:
                raise RuntimeError("RandomAgent.act() called before setup()")
            return self._space.sample(mask=action_mask)
        if action_mask is None:
            return self._start + int(next_uniform(self._stream) * n)
        if type(action_mask) is np.ndarray and action_mask.ndim == 1:
            if action_mask.itemsize == 1 and len(action_mask) <= _SMALL_MASK:
                small = _LEGAL_BY_MASK.get(action_mask.tobytes()) or _small_mask_legal(action_mask)
                if not small:
                    raise InvalidValueError("RandomAgent: the action mask allows no action")
                return self._start + small[int(next_uniform(self._stream) * len(small))]
            legal = action_mask.nonzero()[0]  # several times faster than np.flatnonzero
        else:
            legal = np.flatnonzero(action_mask)
        count = len(legal)
        if not count:
            raise InvalidValueError("RandomAgent: the action mask allows no action")
        # item(): a plain int straight from the array, without a numpy scalar in between
        return self._start + legal.item(int(next_uniform(self._stream) * count))

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """A uniformly random legal action per game, one draw per game, stacked on axis 0.

        Discrete spaces draw from the agent's own generator; other spaces (a Box of forces, a
        MultiDiscrete) sample their private copy once per game, with that game's mask if given.

        Example:
            >>> agent = RandomAgent(seed=0)
            >>> agent.setup(spaces.Discrete(3), spaces.Discrete(3))
            >>> agent.act_batch(np.zeros(2), np.array([[0, 0, 1], [1, 0, 0]])).tolist()
            [2, 0]
            >>> agent.setup(spaces.Discrete(3), spaces.Box(-1, 1, (2,)))
            >>> agent.act_batch(np.zeros(4)).shape
            (4, 2)
        """
        games = _rows(observations)
        if self._n is None:
            if self._space is None:
                raise RuntimeError("RandomAgent.act_batch() called before setup()")
            space = self._space
            if action_masks is None:
                return np.stack([np.asarray(space.sample()) for _ in range(games)])
            return np.stack([np.asarray(space.sample(mask=mask)) for mask in action_masks])
        draws = np.array([self._rng.random() for _ in range(games)])
        if action_masks is None:
            return self._start + (draws * self._n).astype(np.int64)
        masks = np.asarray(action_masks, dtype=bool)
        counts = masks.sum(axis=1)
        if not counts.all():
            raise InvalidValueError(
                f"RandomAgent: the action mask of game {int(np.flatnonzero(counts == 0)[0])} allows no action"
            )
        picks = (draws * counts).astype(np.int64)  # the picks-th legal action of each game
        return self._start + (np.cumsum(masks, axis=1) <= picks[:, None]).sum(axis=1)
