"""Agents and an env for the tournament tests, importable by name from worker processes."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from gymnasium import spaces

from arena import Agent, MultiAgentEnv, RandomAgent
from arena.errors import Forfeit

PREFIX = "tests.arena.tournament.helpers"


class CrashingAgent(Agent):
    """Raises on its second move."""

    def reset(self, *, seed: int | None = None) -> None:
        self.moves = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.moves += 1
        if self.moves == 2:
            raise RuntimeError("crashed on purpose")
        return int(np.flatnonzero(action_mask)[0])


class SleepyAgent(RandomAgent):
    """A random agent that sleeps ``delay`` seconds before each move (``delay`` long: a hung agent)."""

    def __init__(self, delay: float = 0.0, seed: int | None = None) -> None:
        super().__init__(seed)
        self.delay = delay

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self.delay:
            time.sleep(self.delay)
        return super().act(observation, action_mask, reward)


class SpinningAgent(Agent):
    """Loops forever in Python and swallows ordinary exceptions on the way."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        while True:
            try:
                sum(range(1000))
            except Exception:
                pass


class IllegalAgent(Agent):
    """Always plays action 0 (tic-tac-toe's first cell), illegal once the cell is taken."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        return 0


class OutOfSpaceAgent(Agent):
    """Plays 42, outside tic-tac-toe's Discrete(9)."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        return 42


def broken_agent(**kwargs: Any) -> Agent:
    """A factory that cannot build its agent."""
    raise FileNotFoundError("no weights at /nowhere/model.zip")


class ConstantAgent(Agent):
    """Always plays ``value``."""

    def __init__(self, value: int = 0) -> None:
        self.value = value

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        return self.value


class HighestNumber(MultiAgentEnv):
    """Three players name a number 0-3 at once; ranks follow the numbers (higher is better).

    Each player's reward is its number, so equal numbers tie.
    """

    def __init__(self, players: int = 3) -> None:
        self.possible_agents = [f"p{i}" for i in range(players)]
        self.agents = []
        self.observation_spaces = {a: spaces.Discrete(1) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(4) for a in self.possible_agents}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        return {a: 0 for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        self.check_actions(actions, self.agents)
        rewards = {a: float(actions[a]) for a in self.agents}
        done = {a: True for a in self.agents}
        self.agents = []
        return {}, rewards, done, {a: False for a in done}, {a: {} for a in done}


class QuittingAgent(Agent):
    """Gives the game up on its first move, as a person typing ``q`` does."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        raise Forfeit("player_0", "typed q")


class MarkupAgent(Agent):
    """Fails with a message that rich would read as markup (a closing tag, a path in brackets)."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        raise RuntimeError("no weights at [/data/x.zip] [/bold]")


def markup_broken_agent(**kwargs: Any) -> Agent:
    """A factory whose failure text holds markup."""
    raise FileNotFoundError("[bold]missing[/bold] [/data/model.zip]")
