"""Find environments and agents by name, entry point or ``"module:callable"`` spec.

arena never imports the bundled ``envs`` package, not even by name: names resolve through the
entry-point groups ``arena.envs`` and ``arena.agents`` (which the bundled envs and
agents, and any third-party package, declare in their packaging), so a source checkout
finds them once installed (``pip install -e .``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from arena.errors import InvalidTypeError, PluginError, UnknownNameError, UntrustedCodeError
from arena.installed import read_while_installed
from arena.suggest import did_you_mean, unknown_keywords
from arena.working_folder import import_module, shadowed_packages

__all__ = [
    "make_env",
    "make_agent",
    "env_names",
    "agent_names",
    "resolve",
    "load_callable",
    "name_clashes",
    "reading_data",
    "reading_trusted",
]


ARENA_DISTRIBUTION = "arena-marl"


def _package(entry_point: metadata.EntryPoint) -> str:
    dist = getattr(entry_point, "dist", None)
    return dist.name if dist is not None else "(unknown package)"


def _is_arena(package: str) -> bool:
    return package.lower().replace("_", "-") == ARENA_DISTRIBUTION


def _scan(group: str) -> tuple[dict[str, metadata.EntryPoint], tuple[str, ...]]:
    """The entry points of ``group`` by name, and a line for each name declared twice.

    arena's own declarations come first, then packages by name: a plugin that takes a name
    arena already has never silently wins, and which of two plugins wins does not depend on
    the order of ``sys.path``; the loser is reported by :func:`name_clashes`. Read again only
    after an install or a change of ``sys.path`` (:func:`~arena.installed.read_while_installed`).
    """
    return read_while_installed(group, lambda: _read_group(group))


def _read_group(group: str) -> tuple[dict[str, metadata.EntryPoint], tuple[str, ...]]:
    found = sorted(
        metadata.entry_points(group=group), key=lambda ep: (not _is_arena(_package(ep)), _package(ep), ep.value)
    )
    chosen: dict[str, metadata.EntryPoint] = {}
    clashes: list[str] = []
    for entry_point in found:
        owner = chosen.get(entry_point.name)
        if owner is None:
            chosen[entry_point.name] = entry_point
        elif (_package(owner), owner.value) != (_package(entry_point), entry_point.value):
            clashes.append(
                f"{group}: package {_package(entry_point)!r} also declares {entry_point.name!r} "
                f"({entry_point.value}); ignored, {_package(owner)!r} keeps it ({owner.value})"
            )
    return chosen, tuple(clashes)


def _entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    return _scan(group)[0]


def name_clashes(kind: str) -> list[str]:
    """Why some declared ``kind`` s (``"env"`` or ``"agent"``) are ignored: their name was taken.

    Example:
        >>> name_clashes("env")
        []
    """
    return list(_scan(f"arena.{kind}s")[1])


def _load_entry(kind: str, entry_point: metadata.EntryPoint) -> Callable[..., Any]:
    """Import a plugin's entry point; anything it raises (``SystemExit`` included) is a PluginError."""
    try:
        return entry_point.load()
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - a plugin's import must not end the program
        raise PluginError(
            f"{kind} {entry_point.name!r} from package {_package(entry_point)!r} failed to import "
            f"{entry_point.value!r}: {type(err).__name__}: {err}{_shadow_note()}"
        ) from None


@dataclass(frozen=True)
class _Reading:
    source: str
    trusted: frozenset[str]
    trust_all: bool = False


_READING: ContextVar[_Reading | None] = ContextVar("arena_reading_data", default=None)


@contextmanager
def reading_data(source: str, trust: bool | Collection[str] = False) -> Iterator[None]:
    """Resolve names found in data (a results file, an agent folder) only through the registry.

    Inside the block, :func:`load_callable` (and so every ``"module:callable"`` an env, agent or
    interface spec names) refuses to import, with a one-line :class:`UntrustedCodeError`, unless
    ``trust`` is ``True`` or lists that name: registered names and entry points still resolve, since
    the user installed them. This is arena's one door between data and code.

    Args:
        source: what the names come from, for the message (``"results file 'a.db'"``).
        trust: ``True`` to import whatever the data names, or the ``module:callable`` names to allow.

    Example:
        >>> with reading_data("results file 'x.db'"):
        ...     load_callable("os:system")
        Traceback (most recent call last):
        ...
        arena.errors.UntrustedCodeError: results file 'x.db' names 'os:system', which is not a registered name: \
arena imports code only from installed entry points or factories you give it; pass --trust to import it \
(only for data from someone you trust)
    """
    token = _READING.set(_Reading(source, frozenset(() if trust is True else trust or ()), trust is True))
    try:
        yield
    finally:
        _READING.reset(token)


def reading_trusted() -> bool:
    """Whether the data being read is trusted whole (inside ``reading_data(..., trust=True)``, as
    ``arena replay --trust`` reads): a reader that could run code from the data (a format-1 agent
    folder's pickle) may then do so.

    Example:
        >>> with reading_data("results file 'x.db'", trust=True):
        ...     reading_trusted()
        True
        >>> reading_trusted()
        False
    """
    reading = _READING.get()
    return reading is not None and reading.trust_all


def load_callable(spec: str) -> Callable[..., Any]:
    """Import ``"package.module:attribute"`` and return the attribute.

    A module that is not installed is looked for in the working folder, last, as ``python -m``
    would find it (see :mod:`arena.working_folder`), but only for names the user gave: never
    inside :func:`reading_data`, trusted or not.

    Raises:
        UnknownNameError: the module or attribute does not exist.
        UntrustedCodeError: inside :func:`reading_data`, a name the user did not trust.
    """
    reading = _READING.get()
    if reading is not None and not reading.trust_all and spec not in reading.trusted:
        raise UntrustedCodeError(
            f"{reading.source} names {spec!r}, which is not a registered name: arena imports code only from "
            "installed entry points or factories you give it; pass --trust to import it (only for data from "
            "someone you trust)"
        )
    return _import(spec, from_working_folder=reading is None)


def _import(spec: str, from_working_folder: bool = False) -> Callable[..., Any]:
    module_name, _, attribute = spec.partition(":")
    try:
        target: Any = import_module(module_name, from_working_folder)
        for part in attribute.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as err:
        raise UnknownNameError(f"cannot load {spec!r}: {err}{_shadow_note()}") from err
    return target


def _shadow_note() -> str:
    """Why arena's own packages may fail to import: a folder of the same name hides them."""
    return "".join(f"; {problem}" for problem in shadowed_packages())


def env_names() -> list[str]:
    """Env names known through the ``arena.envs`` entry points, sorted."""
    return sorted(_entry_points("arena.envs"))


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
        return _load_entry(kind, entry)
    known = env_names() if kind == "env" else agent_names()
    hint = did_you_mean(spec, known)
    raise UnknownNameError(
        f"unknown {kind} {spec!r}; "
        + (f"{hint} (`arena {kind}s` lists them all)" if hint else f"known {kind}s: {', '.join(known) or '(none)'}")
        + "; or give 'package.module:callable'"
    )


def make_env(spec: Any, **kwargs: Any) -> Any:
    """Build an env from a name, a ``"module:callable"`` spec, a factory, or return an env as is.

    Example:
        >>> import arena
        >>> arena.make_env("tic_tac_toe").possible_agents
        ['player_0', 'player_1']
    """
    if isinstance(spec, str):
        return _call(resolve("env", spec), kwargs, f"env {spec!r}")
    if callable(spec) and not hasattr(spec, "possible_agents"):
        return _call(spec, kwargs, f"env {getattr(spec, '__name__', spec)!r}")
    return spec


def make_agent(spec: Any, **kwargs: Any) -> Any:
    """Build an agent from a name (``"random"``), a ``"module:callable"`` spec or a factory.

    Example:
        >>> import arena
        >>> type(arena.make_agent("random", seed=1)).__name__
        'RandomAgent'
    """
    if isinstance(spec, str):
        return _call(resolve("agent", spec), kwargs, f"agent {spec!r}")
    if callable(spec) and not hasattr(spec, "act"):
        return _call(spec, kwargs, f"agent {getattr(spec, '__name__', spec)!r}")
    return spec


def _call(factory: Callable[..., Any], kwargs: dict[str, Any], what: str) -> Any:
    """``factory(**kwargs)``, with an option the factory does not take named first as the user's mistake
    (:class:`InvalidTypeError`), so that a ``TypeError`` from inside the factory stays a bug with its traceback."""
    problem = unknown_keywords(factory, kwargs, what)
    if problem is not None:
        raise InvalidTypeError(problem)
    return factory(**kwargs)
