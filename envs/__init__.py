"""Bundled multi-agent environments for arena.

Example:
    >>> import envs
    >>> env = envs.make("tic_tac_toe")
    >>> env.possible_agents
    ['player_0', 'player_1']
"""

from envs.registry import REGISTRY, make, names

__all__ = ["REGISTRY", "make", "names"]
