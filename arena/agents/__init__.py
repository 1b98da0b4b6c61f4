"""Reference agents, and the :class:`Agent` contract they follow."""

from arena.agents.base import Agent, RandomAgent
from arena.agents.human import HumanAgent
from arena.agents.mcts import MCTSAgent

__all__ = ["Agent", "HumanAgent", "MCTSAgent", "RandomAgent"]
