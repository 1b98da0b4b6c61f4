"""Reference agents, and the :class:`Agent` contract they follow."""

from arena.agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
