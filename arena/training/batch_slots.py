"""Interface stacks and opponents over the slots of a batched trainer, each slot keeping its own episode.

:class:`LearnerSlots` runs the learner's stack over the trainer's sub-envs through
:class:`~arena.batched_stack.BatchedStack` (one copy of each per-game level per slot) in the
order :class:`~arena.training.SingleAgentEnv` runs ``transform_*`` on one game.
:class:`BatchedPlayer` lets an opponent act for many slots in one call, also one behind an
interface with per-episode state (a self-play snapshot behind a frame stack): its stack is a
``BatchedStack`` over the seats it may fill.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.batched_stack import BatchedStack, split_rows
from arena.errors import InvalidTypeError
from arena.interface import Interface
from arena.masks import mask_length

__all__ = ["BatchedPlayer", "LearnerSlots", "filtered_mask_length", "plays_in_batches"]


def plays_in_batches(agent: Agent) -> bool:
    """Whether ``agent`` can act for many games at once on a batched trainer: it has
    :meth:`~arena.Agent.act_batch` or :meth:`~arena.Agent.act_on_batch` (it reads the batch itself),
    or it is one such agent behind an interface stack (whose per-episode state the trainer keeps per slot).

    Example:
        >>> from arena import AgtItfWrapper, RandomAgent
        >>> from interfaces import FrameStack
        >>> plays_in_batches(AgtItfWrapper(RandomAgent(), FrameStack(frames=2)))
        True
    """
    if agent.batchable or agent.acts_on_batch:
        return True
    inner = agent.agent if isinstance(agent, AgtItfWrapper) else None
    return isinstance(inner, Agent) and plays_in_batches(inner)


def filtered_mask_length(interface: Interface | None) -> int | None:
    """The flags of an all-legal raw mask for ``interface`` to filter where a batch sends no masks, or ``None``.

    A batch without masks (Pommerman's) still gets a stack's filter when every level with a mask hook
    translates masks (``pommerman_safe_moves`` puts its filter there, radio's 6 + 8 + 8 flags included):
    the stack then filters an all-legal mask, as it does the single env's all-ones mask. A stack that
    cannot translate masks, or a raw action space with no mask layout, keeps none.
    """
    compiled = None if interface is None else interface.compiled().action_mask
    raw_space = None if interface is None else interface.raw_action_space
    entries = mask_length(raw_space) if raw_space is not None else None  # Discrete or MultiDiscrete
    if compiled and entries and all("action_mask" in level.overridden_hooks for level, _hook in compiled):
        return entries
    return None


def _inner(agent: AgtItfWrapper) -> Agent:
    inner = agent.agent
    if not isinstance(inner, Agent):  # a team wrapper: plays_in_batches refused it
        raise InvalidTypeError(f"{agent}: a team cannot act for many games at once")
    return inner


class BatchedPlayer:
    """One opponent acting for many slots in one call, per-episode state kept per slot.

    Args:
        agent: an agent for which :func:`plays_in_batches` holds, set up on the raw spaces.
        num_slots: the seats it may fill (slot indices run from 0 to ``num_slots - 1``).

    Raises:
        TypeError: an agent that cannot act for many games at once.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> from arena import AgtItfWrapper, RandomAgent
        >>> from interfaces import FrameStack
        >>> agent = AgtItfWrapper(RandomAgent(seed=0), FrameStack(frames=2))
        >>> agent.setup(spaces.Box(0, 1, (2,)), spaces.Discrete(3))
        >>> player = BatchedPlayer(agent, 4)
        >>> player.act(np.zeros((2, 2), np.float32), None, slots=[1, 3], starting=[True, True]).shape
        (2,)
    """

    def __init__(self, agent: Agent, num_slots: int) -> None:
        if not plays_in_batches(agent):
            raise InvalidTypeError(
                f"{agent} cannot act for many games at once (see arena.Agent.act_batch); "
                "train against it with SingleAgentEnv"
            )
        self.agent = agent
        self.stack: BatchedStack | None = None
        self.inner: BatchedPlayer | None = None
        # a frozen opponent behind an action filter filters on the trainer as in a tournament
        entries = filtered_mask_length(agent.interface if isinstance(agent, AgtItfWrapper) else None)
        self._all_legal = None if entries is None else np.ones((num_slots, entries), dtype=bool)
        if not agent.batchable and isinstance(agent, AgtItfWrapper):  # a stateful stack: kept per slot
            self.stack = BatchedStack(agent.interface, num_slots)
            self.inner = BatchedPlayer(_inner(agent), num_slots)

    def act(self, observations: Any, action_masks: Any, slots: Any, starting: Any) -> np.ndarray:
        """One action per row: ``slots`` names each row's seat, ``starting`` the rows that begin an episode."""
        if action_masks is None and self._all_legal is not None:
            action_masks = self._all_legal[: len(slots)]  # read, never written, as LearnerSlots' is
        if self.stack is None or self.inner is None:
            return np.asarray(self.agent.act_batch(observations, action_masks))
        stack = self.stack
        if action_masks is not None and stack.interface.compiled().action_mask is not None:
            model_observations, action_masks = stack.observe(observations, action_masks, starting, slots=slots)
        else:
            model_observations = stack.observation(observations, starting, slots=slots)
        actions = self.inner.act(model_observations, action_masks, slots, starting)
        return np.asarray(stack.action(actions, slots=slots))


class LearnerSlots:
    """The learner's stack over ``num_slots`` sub-envs (``interface=None``: raw observations and rewards).

    Per slot, in :class:`~arena.training.SingleAgentEnv`'s order: the mask and the observation
    that the learner acts on (:meth:`BatchedStack.observe`: before the observation for a level whose
    mask hook is written per game, after it for one written over arrays), then the reward; at an
    episode's end the final observation (so a level that reads
    observations settles on it), then the final reward (``done``), then the next episode's mask
    and first observation (``reset``). Where SingleAgentEnv's env sends no final observation
    (the multi-agent contract sends observations only to agents that act next), the batch has one
    (``final_observation``), and this is the only difference between the two paths.
    """

    def __init__(self, interface: Interface | None, num_slots: int) -> None:
        self.stack = None if interface is None else BatchedStack(interface, num_slots)
        self.num_slots = num_slots
        entries = filtered_mask_length(interface)  # a batch without masks: the filter's all-legal mask
        self._all_legal = None if entries is None else np.ones((num_slots, entries), dtype=bool)

    def _observe(self, raw_observations: Any, raw_masks: Any, starting: np.ndarray) -> tuple[Any, Any]:
        """Every slot's next observation and mask through the stack (:meth:`BatchedStack.observe`)."""
        stack = self.stack
        if stack is None:
            return raw_observations, raw_masks
        if raw_masks is None:
            if self._all_legal is None:
                return stack.observation(raw_observations, starting), None
            raw_masks = self._all_legal
        if stack.interface.compiled().action_mask is None:
            return stack.observation(raw_observations, starting), raw_masks
        return stack.observe(raw_observations, raw_masks, starting)

    @property
    def stacks(self) -> list[Interface | None]:
        """Each slot's copy of the stack (``None`` without an interface)."""
        return [None] * self.num_slots if self.stack is None else self.stack.stacks

    def start(self, raw_observations: Any, raw_masks: Any) -> tuple[Any, Any]:
        """Every slot's first observation: ``(observations, masks)`` (masks ``None`` for ``None``)."""
        if self.stack is None:
            return raw_observations, raw_masks
        return self._observe(raw_observations, raw_masks, np.ones(self.num_slots, dtype=bool))

    def action(self, actions: Any) -> Any:
        """Every slot's model action -> its raw action."""
        return actions if self.stack is None else self.stack.action(actions)

    def step(
        self,
        raw_observations: Any,
        raw_masks: Any,
        raw_rewards: np.ndarray,
        done: np.ndarray,
        truncated: np.ndarray,
        final_observations: Any,
        *,
        starting: np.ndarray | None = None,
        idle: np.ndarray | None = None,
    ) -> tuple[Any, Any, np.ndarray, list[Any]]:
        """One step of every slot: ``(observations, masks, rewards, terminal observations)``.

        Args:
            raw_observations: every slot's next raw observation (the next episode's first where ``done``).
            raw_masks: every slot's raw mask for that observation (``None``: a batch without masks).
            raw_rewards: every slot's reward since its last action.
            done: the slots whose episode ended in this step.
            truncated: of those, the ones cut rather than terminated.
            final_observations: the raw final observations of the ``done`` slots, in slot order.
            starting: the slots whose next observation starts an episode (default: ``done``; a
                member that left its game earlier starts the next game without being done again).
            idle: slots out of play, not ``done``: they earn 0 without the stack's reward hook.
        """
        ended = np.flatnonzero(done)
        starting = done if starting is None else starting
        if self.stack is None:
            rewards = np.asarray(raw_rewards, dtype=np.float32)
            if idle is not None:
                rewards = np.where(idle, 0.0, rewards).astype(np.float32)
            return raw_observations, raw_masks, rewards, split_rows(final_observations) if len(ended) else []
        stack = self.stack
        rewards = np.empty(self.num_slots, dtype=np.float64)
        terminal: list[Any] = []
        if len(ended):
            terminal = split_rows(stack.observation(final_observations, slots=ended))
            cut = np.asarray(truncated, dtype=bool)[ended]
            rewards[ended] = stack.reward(raw_rewards[ended], terminated=~cut, truncated=cut, slots=ended)
        observations, masks = self._observe(raw_observations, raw_masks, starting)
        going = np.flatnonzero(~done if idle is None else ~done & ~idle)
        if len(going) == self.num_slots:
            rewards = stack.reward(raw_rewards)
        elif len(going):
            rewards[going] = stack.reward(raw_rewards[going], slots=going)
        if idle is not None:
            rewards[idle] = 0.0
        return observations, masks, rewards.astype(np.float32), terminal
