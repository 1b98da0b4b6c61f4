"""arena: composable interfaces, head-to-head evaluation and training for multi-agent RL.

The core needs only gymnasium and numpy:

* :class:`MultiAgentEnv` — the env protocol (observations hold exactly the agents to act);
* :class:`Interface`, :class:`Combine` — stackable per-agent transformations;
* :class:`EnvItfWrapper`, :class:`AgtItfWrapper` — interfaces on the env or on the agent;
* :class:`Agent`, :class:`RandomAgent`, :class:`Team`, :func:`play` — agents, sides and the play loop;
* :mod:`arena.testing` — the public checkers (imported with ``arena``: ``arena.testing.check_env(env)``).
"""

from arena import testing  # the checkers, as numpy.testing: after `import arena`, arena.testing works
from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent, RandomAgent
from arena.env import MultiAgentEnv, MultiAgentWrapper
from arena.errors import (
    AgentError,
    ArenaError,
    ContractViolation,
    IllegalActionError,
    InterfaceError,
    InvalidActionError,
    InvalidTypeError,
    InvalidValueError,
    MaskTranslationError,
    PluginError,
    ResetNeeded,
    SpaceMismatchError,
    UnknownAgentError,
    UnknownNameError,
    WrongAgentsError,
)
from arena.interface import Combine, Interface
from arena.play_loop import Episode, play
from arena.plugins import interface_registry
from arena.registry import agent_names, env_names, make_agent, make_env
from arena.teams import GroupTeams, Team
from arena.wrappers import EnvItfWrapper, GymEnvItfWrapper, MultiAgentEnvItfWrapper

__version__ = "0.2.0"

__all__ = [
    "Agent",
    "AgentError",
    "AgtItfWrapper",
    "ArenaError",
    "Combine",
    "ContractViolation",
    "EnvItfWrapper",
    "Episode",
    "GroupTeams",
    "GymEnvItfWrapper",
    "IllegalActionError",
    "Interface",
    "InterfaceError",
    "InvalidActionError",
    "InvalidTypeError",
    "InvalidValueError",
    "MaskTranslationError",
    "MultiAgentEnv",
    "MultiAgentEnvItfWrapper",
    "MultiAgentWrapper",
    "PluginError",
    "RandomAgent",
    "ResetNeeded",
    "SpaceMismatchError",
    "Team",
    "UnknownAgentError",
    "UnknownNameError",
    "WrongAgentsError",
    "agent_names",
    "env_names",
    "interface_registry",
    "make_agent",
    "make_env",
    "play",
    "testing",
]
