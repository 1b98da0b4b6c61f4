"""Find environments and agents by name, entry point or ``"module:callable"`` spec.

arena never imports the bundled ``envs`` package directly: names resolve through the
entry-point groups ``arena.envs`` and ``arena.agents`` (which the bundled envs and
agents, and any third-party package, declare in their packaging), with the bundled
``envs`` registry looked up by module name as a fallback for source checkouts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache
from importlib import metadata
from typing import Any

from arena.errors import UnknownNameError

__all__ = ["make_env", "make_agent", "env_names", "agent_names", "resolve", "load_callable"]


@lru_cache(maxsize=None)
def _entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=group)}


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``"package.module:attribute"`` and return the attribute.

    Raises:
        UnknownNameError: the module or attribute does not exist.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as err:
        raise UnknownNameError(f"cannot load {spec!r}: {err}") from err
    return target


def _bundled_env_registry() -> dict[str, str]:
    try:
        return dict(importlib.import_module("envs.registry").REGISTRY)
    except ImportError:
        return {}


def env_names() -> list[str]:
    """Env names known through entry points (and the bundled registry), sorted."""
    return sorted(set(_entry_points("arena.envs")) | set(_bundled_env_registry()))


def agent_names() -> list[str]:
    """Agent names known through the ``arena.agents`` entry points, sorted."""
    return sorted(_entry_points("arena.agents"))


def resolve(kind: str, spec: str) -> Callable[..., Any]:
    """The factory for ``spec`` of ``kind`` (``"env"`` or ``"agent"``).

    Raises:
        UnknownNameError: listing the names that exist.
    """
    if ":" in spec:
        return load_callable(spec)
    group = f"arena.{kind}s"
    entry = _entry_points(group).get(spec)
    if entry is not None:
        return entry.load()
    if kind == "env":
        bundled = _bundled_env_registry()
        if spec in bundled:
            return load_callable(bundled[spec])
    known = env_names() if kind == "env" else agent_names()
    raise UnknownNameError(
        f"unknown {kind} {spec!r}; known {kind}s: {', '.join(known) or '(none)'}; "
        "or give 'package.module:callable'"
    )


def make_env(spec: Any, **kwargs: Any) -> Any:
    """Build an env from a name, a ``"module:callable"`` spec, a factory, or return an env as is.

    Example:
        >>> import arena
        >>> arena.make_env("tic_tac_toe").possible_agents
        ['player_0', 'player_1']
    """
    if isinstance(spec, str):
        return resolve("env", spec)(**kwargs)
    if callable(spec) and not hasattr(spec, "possible_agents"):
        return spec(**kwargs)
    return spec


def make_agent(spec: Any, **kwargs: Any) -> Any:
    """Build an agent from a name (``"random"``), a ``"module:callable"`` spec or a factory.

    Example:
        >>> import arena
        >>> type(arena.make_agent("random", seed=1)).__name__
        'RandomAgent'
    """
    if isinstance(spec, str):
        return resolve("agent", spec)(**kwargs)
    if callable(spec) and not hasattr(spec, "act"):
        return spec(**kwargs)
    return spec
