"""Monte Carlo tree search for turn-based environments, with or without hidden information.

:class:`MCTSAgent` plans on copies of the env it plays in. An env can be planned on when it
keeps this small protocol (every bundled turn-based game does):

* Either ``perfect_information = True``, a class attribute that declares that every agent's
  observation shows the whole state and that a state and the actions taken decide the
  next state (``tic_tac_toe``, ``connect_four``): the agent runs plain UCT on copies of
  the env (:meth:`arena.MultiAgentEnv.clone`, an independent copy of the env with the
  episode in progress: :func:`copy.deepcopy` unless the env has a cheaper copy).
* Or :meth:`arena.MultiAgentEnv.sample_hidden_state` (``kuhn_poker``, ``leduc_poker``,
  ``liars_dice``): the agent runs information-set MCTS (Cowling, Powley and Whitehouse,
  2012, as OpenSpiel's IS-MCTS does it): each playout starts from a fresh
  *determinization*, a copy of the game whose hidden part (others' cards and dice, the
  deck, future chance) the env redraws from what the searching agent's observation
  shows, and the statistics are kept per information set, keyed by the mover and the
  observation it gets. The agent never reads the env's hidden state: only its own
  observation, the public ``acting_agents`` and the copies the sampler hands out.
* ``acting_agents``, a property: the agents that must act next (the keys of the last
  observations), empty when no episode runs. It must name exactly one agent whenever
  the planner is asked to move (turn-based play).
* ``Discrete`` action spaces, with legal actions in ``infos[agent]["action_mask"]``
  (without a mask every action counts as legal).

Envs with neither (simultaneous rock-paper-scissors, real-time games) are refused.
"""

from __future__ import annotations

import math
import random
from typing import Any, Protocol, cast

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.errors import ArenaError, InvalidValueError

__all__ = ["MCTSAgent", "check_plannable", "has_hidden_state_sampler"]


def has_hidden_state_sampler(env: Any) -> bool:
    """Whether ``env`` overrides :meth:`arena.MultiAgentEnv.sample_hidden_state`.

    Example:
        >>> import envs
        >>> has_hidden_state_sampler(envs.make("leduc_poker")), has_hidden_state_sampler(envs.make("connect_four"))
        (True, False)
    """
    method = getattr(type(env), "sample_hidden_state", None)
    return method is not None and method is not MultiAgentEnv.sample_hidden_state


def check_plannable(env: Any, who: str = "MCTSAgent") -> None:
    """Raise unless ``env`` keeps the planning protocol in this module's docstring.

    Raises:
        ArenaError: naming ``who``, the env, and the missing piece.

    Example:
        >>> import envs
        >>> check_plannable(envs.make("connect_four"))
        >>> check_plannable(envs.make("kuhn_poker"))  # hidden cards, but a sampler of them
        >>> check_plannable(envs.make("rock_paper_scissors"))
        Traceback (most recent call last):
        ...
        arena.errors.ArenaError: MCTSAgent cannot plan on <RockPaperScissors>: it does not declare perfect_information ...
    """
    if not isinstance(env, MultiAgentEnv):
        raise ArenaError(f"{who} needs the arena.MultiAgentEnv it plays in, got {type(env).__name__}")
    declared = env.perfect_information
    if declared is not True and not has_hidden_state_sampler(env):
        state = (
            "does not declare perfect_information"
            if declared is None
            else f"declares perfect_information = {declared!r}"
        )
        raise ArenaError(
            f"{who} cannot plan on {env}: it {state} and has no sample_hidden_state (hidden information "
            "without a sampler, or simultaneous moves); MCTS needs a turn-based env that every agent sees "
            "whole, or one that can sample what an agent cannot see, see arena.agents.mcts"
        )
    if not hasattr(env, "acting_agents"):
        raise ArenaError(
            f"{who} cannot plan on {env}: it has no 'acting_agents' property naming "
            "the agents that must act next; see arena.agents.mcts"
        )
    for agent in env.possible_agents:
        space = env.action_space(agent)
        if type(space) is not spaces.Discrete:
            raise ArenaError(f"{who} cannot plan on {env}: the action space of {agent!r} must be Discrete, got {space}")


class _TurnBased(Protocol):
    """What :func:`check_plannable` makes sure of beyond the env protocol: who must act next."""

    @property
    def acting_agents(self) -> tuple[str, ...]: ...


def _action_space(env: MultiAgentEnv, agent: str) -> spaces.Discrete:
    """``agent``'s action space, Discrete as :func:`check_plannable` made sure."""
    space = env.action_space(agent)
    if not isinstance(space, spaces.Discrete):
        raise ArenaError(f"MCTSAgent: the action space of {agent!r} on {env} must be Discrete, got {space}")
    return space


class _Node:
    """A state in the search tree; value sums are from the view of the agent that moved into it."""

    __slots__ = ("mover", "untried", "children", "visits", "value", "action")

    def __init__(self, mover: str | None, legal: list[int], action: int, rng: random.Random) -> None:
        self.mover = mover  # the agent to act here, None at the end of the episode
        rng.shuffle(legal)
        self.untried = legal
        self.children: list[_Node] = []
        self.visits = 0
        self.value = 0.0
        self.action = action


class _InfoSet:
    """Statistics of one information set: visits and summed returns per action (of its mover)."""

    __slots__ = ("visits", "counts", "values")

    def __init__(self) -> None:
        self.visits = 0
        self.counts: dict[int, int] = {}
        self.values: dict[int, float] = {}


class MCTSAgent(Agent):
    """Monte Carlo tree search with random playouts, planning on copies of the env it plays in.

    On a perfect-information env each :meth:`act` copies the env (with :meth:`clone` if the
    env has a cheaper one than :func:`copy.deepcopy`), runs ``simulations`` playouts from the current
    state, and plays the most visited move: a playout walks down the tree by UCB1 (value in
    rewards summed to the end of the episode, from the view of the agent to move), adds one
    new state, then plays uniformly random legal moves to the end. On an env that samples
    its hidden state (poker, dice) each playout starts from a new determinization and walks
    a tree of information sets instead (see the module docstring). Works for any number of
    players. See the module docstring for what an env must support.

    Args:
        env: the env this agent plays in: the very object given to :func:`arena.play`,
            so that at each turn it holds the current state.
        simulations: playouts per move (the search budget).
        exploration: the UCB1 exploration constant (about the spread of the returns).
        seed: seeds the agent's own generators (``reset(seed=...)`` re-seeds them).

    Raises:
        ArenaError: ``env`` does not keep the planning protocol (checked when built),
            or is not turn-based when asked to move.

    Example:
        >>> import envs
        >>> from arena import RandomAgent, play
        >>> env = envs.make("tic_tac_toe")
        >>> episode = play(env, [MCTSAgent(env, simulations=50, seed=0), RandomAgent()], seed=1)
        >>> episode.length >= 5
        True
        >>> poker = envs.make("leduc_poker")  # hidden cards: information-set search
        >>> episode = play(poker, [MCTSAgent(poker, simulations=20, seed=0), RandomAgent()], seed=1)
        >>> sorted(episode.returns)
        ['player_0', 'player_1']
    """

    def __init__(
        self, env: MultiAgentEnv, simulations: int = 200, exploration: float = 1.4, seed: int | None = None
    ) -> None:
        check_plannable(env)
        if not isinstance(simulations, (int, np.integer)) or isinstance(simulations, bool) or simulations < 1:
            raise InvalidValueError(f"MCTSAgent: simulations must be a positive integer, got {simulations!r}")
        if not isinstance(exploration, (int, float)) or exploration < 0:
            raise InvalidValueError(f"MCTSAgent: exploration must be a number >= 0, got {exploration!r}")
        self.env = env
        self.simulations = int(simulations)
        self.exploration = float(exploration)
        self._rng = random.Random(seed)
        self._np_rng = np.random.default_rng(seed)  # the determinizations' draws
        self._copy = env.clone
        #: True when the agent searches information sets (the env samples its hidden state).
        self.information_sets = env.perfect_information is not True

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            self._np_rng = np.random.default_rng(seed)

    def __str__(self) -> str:
        return f"MCTSAgent(simulations={self.simulations})"

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        acting = tuple(cast(_TurnBased, self.env).acting_agents)  # check_plannable made sure it has them
        if len(acting) != 1:
            raise ArenaError(
                f"MCTSAgent: {self.env} must have exactly one agent to act when the "
                f"agent is asked to move (turn-based play), got {list(acting)}"
            )
        legal = self._legal(_action_space(self.env, acting[0]), action_mask)
        if len(legal) == 1:
            return legal[0]
        if self.information_sets:
            return self._search_information_sets(acting[0], observation, legal)
        root = _Node(acting[0], legal, -1, self._rng)
        for _ in range(self.simulations):
            self._simulate(root)
        return max(root.children, key=lambda child: child.visits).action

    # ------------------------------------------------------- information sets
    def _search_information_sets(self, agent: str, observation: Any, legal: list[int]) -> int:
        """IS-MCTS from ``agent``'s view: one determinization per playout, statistics per information set."""
        if not self.env.observation_space(agent).contains(observation):
            raise ArenaError(
                f"MCTSAgent: on {self.env} (hidden information) it needs the raw observation of {agent!r} "
                "to sample the hidden state; play it without an interface in front"
            )
        tree: dict[tuple[str, bytes], _InfoSet] = {}
        root_key = (agent, _key(observation))
        for _ in range(self.simulations):
            world = self.env.sample_hidden_state(agent, observation, self._np_rng)
            self._playout(world, tree, agent, root_key, legal)
        root = tree[root_key]
        return max(legal, key=lambda action: (root.counts.get(action, 0), root.values.get(action, 0.0)))

    def _playout(
        self,
        world: MultiAgentEnv,
        tree: dict[tuple[str, bytes], _InfoSet],
        mover: str,
        key: tuple[str, bytes],
        legal: list[int],
    ) -> None:
        """One playout on ``world``: down the known information sets by UCB1, one new one, random to the end."""
        rng, c = self._rng, self.exploration
        path: list[tuple[_InfoSet, int, str, dict[str, float]]] = []  # (set, action, mover, rewards of that step)
        observations: dict[str, Any] = {}
        infos: dict[str, Any] = {}
        while True:
            node = tree.get(key)
            if node is None:
                node = tree[key] = _InfoSet()
                if path:  # a new information set below the root: its playout is random from here
                    break
            untried = [action for action in legal if action not in node.counts]
            if untried:
                action = untried[rng.randrange(len(untried))]
            else:
                scale = c * math.sqrt(math.log(node.visits))
                action = max(legal, key=lambda a: node.values[a] / node.counts[a] + scale / math.sqrt(node.counts[a]))
            observations, rewards, _, _, infos = world.step({mover: action})
            path.append((node, action, mover, rewards))
            if not observations:
                break
            mover, legal = self._turn(world, observations, infos)
            key = (mover, _key(observations[mover]))
        later = self._random_playout(world, observations, infos)
        for info_set, action, who, rewards in reversed(path):  # back up: each mover's rewards from its edge on
            for name, value in rewards.items():
                later[name] = later.get(name, 0.0) + value
            info_set.visits += 1
            info_set.counts[action] = info_set.counts.get(action, 0) + 1
            info_set.values[action] = info_set.values.get(action, 0.0) + later.get(who, 0.0)

    def _random_playout(self, env: MultiAgentEnv, observations: dict, infos: dict) -> dict[str, float]:
        """Uniformly random legal moves to the end; the rewards each agent got on the way."""
        rng, totals = self._rng, dict[str, float]()
        while observations:
            if len(observations) != 1:
                raise ArenaError(f"MCTSAgent: {self.env} is not turn-based: agents {sorted(observations)} act at once")
            mover = next(iter(observations))
            mask = infos[mover].get("action_mask")
            space = _action_space(env, mover)
            if mask is None:
                action = int(space.start) + rng.randrange(int(space.n))
            else:
                allowed = np.flatnonzero(mask)
                action = int(space.start) + int(allowed[rng.randrange(len(allowed))])
            observations, rewards, _, _, infos = env.step({mover: action})
            for agent, value in rewards.items():
                totals[agent] = totals.get(agent, 0.0) + value
        return totals

    # ------------------------------------------------------ perfect information
    @staticmethod
    def _legal(space: spaces.Discrete, mask: Any) -> list[int]:
        """The legal actions (``space.start`` included) that ``mask`` allows."""
        start = int(space.start)
        indices = range(int(space.n)) if mask is None else np.flatnonzero(mask).tolist()
        return [start + index for index in indices] if start else list(indices)

    def _simulate(self, root: _Node) -> None:
        env = self._copy()
        rng, log, c = self._rng, math.log, self.exploration
        node, path, step_rewards = root, [root], []
        while node.mover is not None and not node.untried:  # select
            parent, scale = node.mover, c * math.sqrt(log(node.visits))
            node = max(node.children, key=lambda ch: ch.value / ch.visits + scale / math.sqrt(ch.visits))
            observations, rewards, _, _, infos = env.step({parent: node.action})
            step_rewards.append(rewards)
            path.append(node)
        if node.mover is not None:  # expand
            action = node.untried.pop()
            observations, rewards, _, _, infos = env.step({node.mover: action})
            step_rewards.append(rewards)
            next_mover, next_legal = self._turn(env, observations, infos) if observations else (None, [])
            child = _Node(next_mover, next_legal, action, rng)
            node.children.append(child)
            path.append(child)
            node = child
        # play out at random from the new leaf
        totals = self._random_playout(env, observations, infos) if node.mover is not None else {}
        for index in range(len(path) - 1, 0, -1):  # back up: rewards from this edge to the end
            for agent, value in step_rewards[index - 1].items():
                totals[agent] = totals.get(agent, 0.0) + value
            child = path[index]
            child.visits += 1
            moved = path[index - 1].mover  # the agent that chose this edge (a node with children has one)
            child.value += totals.get(moved, 0.0) if moved is not None else 0.0
        root.visits += 1

    def _turn(self, env: MultiAgentEnv, observations: dict, infos: dict) -> tuple[str, list[int]]:
        """The one agent that must act in ``observations`` (not empty) and its legal actions."""
        if len(observations) != 1:
            raise ArenaError(f"MCTSAgent: {self.env} is not turn-based: agents {sorted(observations)} act at once")
        mover = next(iter(observations))
        return mover, self._legal(_action_space(env, mover), infos[mover].get("action_mask"))


def _key(observation: Any) -> bytes:
    """An information set's key: the bytes of the observation its mover gets there."""
    return np.ascontiguousarray(observation).tobytes()
