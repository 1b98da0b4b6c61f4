"""Interface stacks and opponents over the slots of a batched trainer, each slot keeping its own episode.

:class:`LearnerSlots` runs the learner's stack over the trainer's sub-envs through
:class:`~arena.batched_stack.BatchedStack` (one copy of each per-game level per slot) in the
order :class:`~arena.training.SingleAgentEnv` runs ``transform_*`` on one game.
:class:`BatchedPlayer` lets an opponent act for many slots in one call, also one behind an
interface with per-episode state (a self-play snapshot behind a frame stack): its stack is a
``BatchedStack`` over the seats it may fill. On a worker batch, an opponent that acts one game at a
time but whose copies play a game each (:attr:`arena.Agent.copy_per_game`) plays as one copy per slot.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.batched_stack import BatchedStack, split_rows, stack_rows
from arena.errors import InvalidTypeError
from arena.interface import Interface
from arena.masks import mask_length

__all__ = ["BatchedPlayer", "LearnerSlots", "filtered_mask_length", "plays_in_batches", "plays_per_game_copies"]


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


def plays_per_game_copies(agent: Agent) -> bool:
    """Whether ``agent`` plays on a worker batch as one copy per game slot: it cannot act for many games
    at once (:func:`plays_in_batches`), but it says a deep copy plays a game on its own
    (:attr:`~arena.Agent.copy_per_game`), as ``vizdoom_aim`` does.

    Example:
        >>> from arena import RandomAgent
        >>> from envs.vizdoom.agents import VizdoomAimAgent
        >>> plays_per_game_copies(VizdoomAimAgent()), plays_per_game_copies(RandomAgent())
        (True, False)
    """
    return agent.copy_per_game and not plays_in_batches(agent)


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

    An agent that acts one game at a time but whose copies play a game each
    (:func:`plays_per_game_copies`, on a worker batch) is deep-copied once per slot when the slot
    first needs it; a copy is reset at the start of each of its slot's episodes (seeded from
    ``seed``, the slot and the episode's number), acts with the reward its seat earned since it last
    acted, and hears :meth:`done` when its seat's episode ends (:meth:`finish`), as on one game.

    Args:
        agent: an agent for which :func:`plays_in_batches` holds, set up on the raw spaces, or (with
            ``per_game``) one for which :func:`plays_per_game_copies` holds.
        num_slots: the seats it may fill (slot indices run from 0 to ``num_slots - 1``).
        per_game: play ``agent`` as one copy per slot.
        seed: the root of the copies' episode seeds.

    Raises:
        TypeError: an agent that cannot act for many games at once, nor be copied per game where
            ``per_game`` asks for it, or whose copy fails.

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

    def __init__(self, agent: Agent, num_slots: int, *, per_game: bool = False, seed: int = 0) -> None:
        if not (plays_per_game_copies(agent) if per_game else plays_in_batches(agent)):
            raise InvalidTypeError(
                f"{agent} cannot act for many games at once (see arena.Agent.act_batch)"
                + (" nor be copied for each game (arena.Agent.copy_per_game)" if per_game else "")
                + "; train against it with SingleAgentEnv"
            )
        self.agent = agent
        self.stack: BatchedStack | None = None
        self.inner: BatchedPlayer | None = None
        self.copies: list[Agent | None] | None = [None] * num_slots if per_game else None
        self._seed = int(seed)
        self._episodes = np.zeros(num_slots, dtype=np.int64)  # per slot: episodes started (per_game)
        # a frozen opponent behind an action filter filters on the trainer as in a tournament
        entries = filtered_mask_length(agent.interface if isinstance(agent, AgtItfWrapper) else None)
        self._all_legal = None if entries is None else np.ones((num_slots, entries), dtype=bool)
        if not per_game and not agent.batchable and isinstance(agent, AgtItfWrapper):  # a stateful stack: per slot
            self.stack = BatchedStack(agent.interface, num_slots)
            self.inner = BatchedPlayer(_inner(agent), num_slots)

    def act(self, observations: Any, action_masks: Any, slots: Any, starting: Any, rewards: Any = None) -> np.ndarray:
        """One action per row: ``slots`` names each row's seat, ``starting`` the rows that begin an episode,
        ``rewards`` (read by copies per game only) what each row's seat earned since it last acted."""
        if action_masks is None and self._all_legal is not None:
            action_masks = self._all_legal[: len(slots)]  # read, never written, as LearnerSlots' is
        if self.copies is not None:
            return self._act_per_game(self.copies, observations, action_masks, slots, starting, rewards)
        if self.stack is None or self.inner is None:
            return np.asarray(self.agent.act_batch(observations, action_masks))
        stack = self.stack
        if action_masks is not None and stack.interface.compiled().action_mask is not None:
            model_observations, action_masks = stack.observe(observations, action_masks, starting, slots=slots)
        else:
            model_observations = stack.observation(observations, starting, slots=slots)
        actions = self.inner.act(model_observations, action_masks, slots, starting)
        return np.asarray(stack.action(actions, slots=slots))

    def finish(self, slots: Any, rewards: Any, truncated: Any) -> None:
        """The episodes of ``slots`` ended: each copy hears :meth:`~arena.Agent.done` with its seat's last
        reward (``info["truncated"]`` for a cut episode, as :func:`arena.play` sets it). Batched agents hear nothing.
        """
        if self.copies is None:
            return
        for slot, reward, cut in zip(np.asarray(slots).tolist(), np.asarray(rewards).tolist(), truncated):
            agent = self.copies[slot]
            if agent is not None:
                agent.done(float(reward), {"truncated": True} if cut else {})

    def _copy(self, copies: list[Agent | None], slot: int) -> Agent:
        agent = copies[slot]
        if agent is None:
            try:
                agent = copies[slot] = copy.deepcopy(self.agent)
            except Exception as error:  # an agent that said it copies, holding something that does not
                raise InvalidTypeError(
                    f"{self.agent} says a copy plays a game on its own (copy_per_game), but copying it failed: "
                    f"{type(error).__name__}: {error}; set copy_per_game = False to train against it one game at a time"
                ) from error
        return agent

    def _act_per_game(
        self, copies: list[Agent | None], observations: Any, masks: Any, slots: Any, starting: Any, rewards: Any
    ) -> np.ndarray:
        """Each row's copy acts on its own game (reset first where the row starts an episode)."""
        rows = split_rows(observations)
        mask_rows = [None] * len(rows) if masks is None else list(np.asarray(masks).astype(np.int8))
        actions = []
        for row, slot in enumerate(np.asarray(slots).tolist()):
            agent = self._copy(copies, slot)
            reward = 0.0
            if starting[row]:
                self._episodes[slot] += 1
                episode = np.random.SeedSequence([self._seed, slot, int(self._episodes[slot])])
                agent.reset(seed=int(episode.generate_state(1)[0] >> 1))
            elif rewards is not None:
                reward = float(rewards[row])
            actions.append(agent.act(rows[row], mask_rows[row], reward))
        return stack_rows(actions)


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
