"""The spec languages: agents, envs and interface stacks described as text or JSON.

One package for every way arena names a thing so that any process can build it:

* :mod:`arena.specs.agents`: entrants (:class:`AgentSpec`: ``[NAME=]FACTORY[{JSON}]``, teams
  ``A+B``, trained folders).
* :mod:`arena.specs.envs`: envs (:class:`EnvSpec`: a factory and its JSON keyword arguments).
* :mod:`arena.specs.factories`: what both share (a callable named ``module:qualname``, plain JSON
  keyword arguments).
* :mod:`arena.specs.interfaces`: interface stacks (``flatten(ego_board(planes=true))``).
* :mod:`arena.specs.split`: the one brace-aware splitter of comma and ``+`` lists.
* :mod:`arena.specs.options`: the one parser of ``--env-options`` (and other JSON options).

Example:
    >>> from arena.specs import AgentSpec, build_interface
    >>> AgentSpec.parse('deep=mcts{"simulations": 4}').kwargs
    {'simulations': 4}
    >>> str(build_interface("flatten(ego_board)"))
    'Flatten(EgoBoard())'
"""

from __future__ import annotations

from arena.specs.agents import (
    TEAM_FACTORY,
    AgentSpec,
    agent_version,
    behind_interface,
    entrant_specs,
    parse_agents,
    wants_env,
)
from arena.specs.envs import EnvSpec
from arena.specs.factories import callable_spec
from arena.specs.interfaces import (
    InterfaceSpec,
    build_interface,
    interface_options,
    options_text,
    parse_interface_spec,
)
from arena.specs.options import parse_env_options, parse_json_object
from arena.specs.split import split_outside_braces, split_words

__all__ = [
    "AgentSpec",
    "EnvSpec",
    "TEAM_FACTORY",
    "parse_agents",
    "agent_version",
    "callable_spec",
    "behind_interface",
    "wants_env",
    "entrant_specs",
    "InterfaceSpec",
    "build_interface",
    "interface_options",
    "options_text",
    "parse_interface_spec",
    "parse_env_options",
    "parse_json_object",
    "split_outside_braces",
    "split_words",
]
