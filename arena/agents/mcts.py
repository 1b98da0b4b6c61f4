"""Monte Carlo tree search (UCT) for perfect-information, turn-based environments.

:class:`MCTSAgent` plans on copies of the env it plays in. An env can be planned on when it
keeps this small protocol (the bundled ``tic_tac_toe`` and ``connect_four`` do):

* ``perfect_information = True``, a class attribute that declares that every agent's
  observation shows the whole state and that a state and the actions taken decide the
  next state (no hidden cards, no chance). Envs that do not declare it, or declare it
  False (poker, liar's dice, simultaneous rock-paper-scissors), are refused.
* ``acting_agents``, a property: the agents that must act next (the keys of the last
  observations), empty when no episode runs. It must name exactly one agent whenever
  the planner is asked to move (turn-based play).
* ``clone()``, a method returning an independent copy of the env with the episode in
  progress. Without it, the env is copied with :func:`copy.deepcopy`.
* ``Discrete`` action spaces, with legal actions in ``infos[agent]["action_mask"]``
  (without a mask every action counts as legal).
"""

from __future__ import annotations

import copy
import math
import random
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.errors import ArenaError

__all__ = ["MCTSAgent", "check_plannable"]


def check_plannable(env: Any, who: str = "MCTSAgent") -> None:
    """Raise unless ``env`` keeps the planning protocol in this module's docstring.

    Raises:
        ArenaError: naming ``who``, the env, and the missing piece.

    Example:
        >>> import envs
        >>> check_plannable(envs.make("connect_four"))
        >>> check_plannable(envs.make("kuhn_poker"))
        Traceback (most recent call last):
        ...
        arena.errors.ArenaError: MCTSAgent cannot plan on <KuhnPoker>: it declares perfect_information = False ...
    """
    if not isinstance(env, MultiAgentEnv):
        raise ArenaError(f"{who} needs the arena.MultiAgentEnv it plays in, got {type(env).__name__}")
    declared = getattr(env, "perfect_information", None)
    if declared is not True:
        state = "does not declare perfect_information" if declared is None \
            else f"declares perfect_information = {declared!r}"
        raise ArenaError(
            f"{who} cannot plan on {env}: it {state} (hidden information, chance or simultaneous "
            "moves); MCTS needs a turn-based, deterministic env that every agent sees whole, "
            "see arena.agents.mcts")
    if not hasattr(env, "acting_agents"):
        raise ArenaError(f"{who} cannot plan on {env}: it has no 'acting_agents' property naming "
                         "the agents that must act next; see arena.agents.mcts")
    for agent in env.possible_agents:
        space = env.action_space(agent)
        if type(space) is not spaces.Discrete:
            raise ArenaError(f"{who} cannot plan on {env}: the action space of {agent!r} must be "
                             f"Discrete, got {space}")


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


class MCTSAgent(Agent):
    """UCT search with random playouts, planning on copies of the env it plays in.

    Each :meth:`act` copies the env (with :meth:`clone` if the env has one, else
    :func:`copy.deepcopy`), runs ``simulations`` playouts from the current state, and
    plays the most visited move. A playout walks down the tree by UCB1 (value in
    rewards summed to the end of the episode, from the view of the agent to move),
    adds one new state, then plays uniformly random legal moves to the end. Works for
    any number of players. See the module docstring for what an env must support.

    Args:
        env: the env this agent plays in: the very object given to :func:`arena.play`,
            so that at each turn it holds the current state.
        simulations: playouts per move (the search budget).
        exploration: the UCB1 exploration constant (about the spread of the returns).
        seed: seeds the agent's own generator (``reset(seed=...)`` re-seeds it).

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
    """

    def __init__(self, env: MultiAgentEnv, simulations: int = 200, exploration: float = 1.4,
                 seed: int | None = None) -> None:
        check_plannable(env)
        if not isinstance(simulations, (int, np.integer)) or isinstance(simulations, bool) or simulations < 1:
            raise ValueError(f"MCTSAgent: simulations must be a positive integer, got {simulations!r}")
        if not isinstance(exploration, (int, float)) or exploration < 0:
            raise ValueError(f"MCTSAgent: exploration must be a number >= 0, got {exploration!r}")
        self.env = env
        self.simulations = int(simulations)
        self.exploration = float(exploration)
        self._rng = random.Random(seed)
        self._copy = getattr(env, "clone", None) or (lambda: copy.deepcopy(env))

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)

    def __str__(self) -> str:
        return f"MCTSAgent(simulations={self.simulations})"

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        acting = tuple(self.env.acting_agents)
        if len(acting) != 1:
            raise ArenaError(f"MCTSAgent: {self.env} must have exactly one agent to act when the "
                             f"agent is asked to move (turn-based play), got {list(acting)}")
        space = self.env.action_space(acting[0])
        legal = self._legal(space, action_mask)
        if len(legal) == 1:
            return legal[0]
        root = _Node(acting[0], legal, -1, self._rng)
        for _ in range(self.simulations):
            self._simulate(root)
        return max(root.children, key=lambda child: child.visits).action

    @staticmethod
    def _legal(space: spaces.Discrete, mask: Any) -> list[int]:
        """The legal actions (``space.start`` included) that ``mask`` allows."""
        start = int(space.start)
        indices = range(space.n) if mask is None else np.flatnonzero(mask).tolist()
        return [start + index for index in indices] if start else list(indices)

    def _simulate(self, root: _Node) -> None:
        env = self._copy()
        rng, log, c = self._rng, math.log, self.exploration
        node, path, step_rewards = root, [root], []
        while node.mover is not None and not node.untried:  # select
            scale = c * math.sqrt(log(node.visits))
            node = max(node.children,
                       key=lambda ch: ch.value / ch.visits + scale / math.sqrt(ch.visits))
            observations, rewards, _, _, infos = env.step({path[-1].mover: node.action})
            step_rewards.append(rewards)
            path.append(node)
        if node.mover is not None:  # expand
            action = node.untried.pop()
            observations, rewards, _, _, infos = env.step({node.mover: action})
            step_rewards.append(rewards)
            child = _Node(*self._turn(env, observations, infos), action, rng)
            node.children.append(child)
            path.append(child)
            node = child
        totals: dict[str, float] = {}
        if node.mover is not None:  # play out at random
            while observations:
                mover = next(iter(observations))
                if len(observations) != 1:
                    raise ArenaError(f"MCTSAgent: {self.env} is not turn-based: agents "
                                     f"{sorted(observations)} act at once")
                mask = infos[mover].get("action_mask")
                space = env.action_space(mover)
                if mask is None:
                    action = int(space.start) + rng.randrange(space.n)
                else:
                    legal = np.flatnonzero(mask)
                    action = int(space.start) + int(legal[rng.randrange(len(legal))])
                observations, rewards, _, _, infos = env.step({mover: action})
                for agent, value in rewards.items():
                    totals[agent] = totals.get(agent, 0.0) + value
        for index in range(len(path) - 1, 0, -1):  # back up: rewards from this edge to the end
            for agent, value in step_rewards[index - 1].items():
                totals[agent] = totals.get(agent, 0.0) + value
            child = path[index]
            child.visits += 1
            child.value += totals.get(path[index - 1].mover, 0.0)
        root.visits += 1

    def _turn(self, env: MultiAgentEnv, observations: dict, infos: dict) -> tuple[str | None, list[int]]:
        if not observations:
            return None, []
        if len(observations) != 1:
            raise ArenaError(f"MCTSAgent: {self.env} is not turn-based: agents {sorted(observations)} act at once")
        mover = next(iter(observations))
        space = env.action_space(mover)
        return mover, self._legal(space, infos[mover].get("action_mask"))
