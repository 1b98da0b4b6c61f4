"""Interface plugins: the ``arena.interfaces`` entry-point group.

Any installed package can ship interfaces by declaring them in its packaging::

    [options.entry_points]
    arena.interfaces =
        my_interface = my_package.module:MyInterface

arena's own interfaces (the ``interfaces`` package) are declared the same way, so
:func:`interface_registry` lists built-in and third-party interfaces alike, each with
its one-line summary and the distribution it comes from. A plugin that fails to import
or breaks the contract is reported with its package and the reason, and the others keep
working.

The plugin contract:

1. the entry point imports and names an :class:`arena.Interface` subclass;
2. its docstring's first paragraph is its summary (shown by ``arena interfaces``);
3. optionally, a classmethod ``contract_examples()`` yields
   ``(interface, observation_space, action_space)`` triples that
   :func:`arena.testing.check_interface` must accept; ``interface_registry(check=True)``
   (``arena interfaces --check``) runs them.

Example:
    >>> from arena.plugins import interface_registry
    >>> entry = next(e for e in interface_registry() if e.name == "flatten")
    >>> entry.package, entry.summary
    ('arena-marl', 'Flatten any fixed-size observation space into a 1-D Box.')
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Collection
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from arena.errors import InvalidValueError, PluginError, UnknownNameError
from arena.installed import read_while_installed
from arena.interface import Interface

__all__ = ["GROUP", "InterfaceEntry", "interface_registry", "make_interface"]

GROUP = "arena.interfaces"
ARENA_DISTRIBUTION = "arena-marl"


@dataclass(frozen=True)
class InterfaceEntry:
    """One interface found through the ``arena.interfaces`` entry points.

    Attributes:
        name: the entry-point name (what :func:`make_interface` takes).
        package: the distribution that declares it (``"arena-marl"`` for built-ins).
        target: the ``"module:attribute"`` the entry point names.
        summary: the first paragraph of the interface's docstring, as one line ("" when broken).
        interface: the interface class, or ``None`` when it could not be loaded.
        error: why the plugin is broken, or ``None``.
        checked: whether its ``contract_examples()`` passed ``check_interface``.
    """

    name: str
    package: str
    target: str
    summary: str = ""
    interface: type[Interface] | None = None
    error: str | None = None
    checked: bool = False

    @property
    def ok(self) -> bool:
        """Whether the interface loaded and kept the contract."""
        return self.error is None

    @property
    def builtin(self) -> bool:
        """Whether it ships with arena itself."""
        return _normalise(self.package) == _normalise(ARENA_DISTRIBUTION)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def summary_of(obj: object) -> str:
    """The first paragraph of ``obj``'s own docstring as one line of plain text (reST roles and
    literals unwrapped): a summary sentence wrapped over two lines is shown whole.

    Example:
        >>> class Seat:
        ...     '''Seat ``player_0`` beside :class:`~arena.Agent`
        ...     objects.
        ...
        ...     More detail.'''
        >>> summary_of(Seat)
        'Seat player_0 beside Agent objects.'
    """
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")  # its own docstring, not one inherited
    if not doc:
        return ""
    line = " ".join(doc.split("\n\n", 1)[0].split())
    line = re.sub(r":\w+:`~?(?:[\w.]*\.)?([^`]+)`", r"\1", line)  # :class:`~arena.Agent` -> Agent
    return re.sub(r"``(.+?)``", r"\1", line)


def _load(entry_point: metadata.EntryPoint, package: str) -> InterfaceEntry:
    """Import one entry point and check the static part of the contract."""
    base = InterfaceEntry(entry_point.name, package, entry_point.value)
    try:
        target = entry_point.load()
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - any import-time failure (sys.exit too) is reported, not raised
        return _broken(base, f"failed to import {entry_point.value!r}: {type(err).__name__}: {err}")
    if not (inspect.isclass(target) and issubclass(target, Interface)):
        what = f"class {target.__name__}" if inspect.isclass(target) else type(target).__name__
        return _broken(base, f"{entry_point.value!r} is not an arena.Interface subclass (got {what})")
    summary = summary_of(target)
    if not summary:
        return _broken(
            base, f"{target.__name__} has no docstring; its first paragraph is the summary 'arena interfaces' shows"
        )
    return InterfaceEntry(base.name, package, base.target, summary, target)


def _broken(entry: InterfaceEntry, reason: str) -> InterfaceEntry:
    return InterfaceEntry(entry.name, entry.package, entry.target, entry.summary, entry.interface, reason)


def _check(entry: InterfaceEntry, examples: int) -> InterfaceEntry:
    """Run ``check_interface`` on the entry's ``contract_examples()``, if it has any."""
    from arena.testing import check_interface  # the checker pulls in hypothesis when installed

    cls = entry.interface
    if cls is None:  # pragma: no cover - a broken entry is reported before it is checked
        return entry
    try:
        given = cls.contract_examples()
        if given is None:
            return entry
        cases = list(given)
        if not cases:
            raise InvalidValueError("contract_examples() yielded nothing")
        for case in cases:
            interface, observation_space, action_space = case
            check_interface(interface, observation_space, action_space, examples=examples)
    except KeyboardInterrupt:
        raise
    except BaseException as err:  # noqa: BLE001 - a failing plugin is reported on its entry, never raised
        return _broken(entry, f"breaks the contract: {type(err).__name__}: {err}")
    return InterfaceEntry(entry.name, entry.package, entry.target, entry.summary, cls, None, True)


def interface_registry(*, check: bool | Collection[str] = False, examples: int = 10) -> list[InterfaceEntry]:
    """Every interface declared in the ``arena.interfaces`` entry points, sorted by name.

    Built-in interfaces come first when two packages declare the same name; the later
    declaration is reported as broken (names must be unique). Nothing a plugin does at
    import time escapes: it is reported on its entry.

    The unchecked listing is read again only after an install or a change of ``sys.path``
    (:func:`~arena.installed.read_while_installed`): building a stack asks for it once per named
    interface.

    Args:
        check: also run :func:`arena.testing.check_interface` on each interface's
            ``contract_examples()`` (entries without examples are listed unchecked); a collection
            of names checks only those (each built-in takes about a second to check).
        examples: generated examples per rule when checking.

    Returns:
        One :class:`InterfaceEntry` per declared name; ``entry.ok`` tells working from broken.
    """
    if isinstance(check, str):  # one name, not its letters
        check = {check}
    if check is not False:
        return _read_registry(check, examples)
    return list(read_while_installed(GROUP, lambda: _read_registry(False, examples)))


def _read_registry(check: bool | Collection[str], examples: int) -> list[InterfaceEntry]:
    """:func:`interface_registry`, read from the installed distributions' metadata."""
    found: list[tuple[metadata.EntryPoint, str]] = []
    for entry_point in metadata.entry_points(group=GROUP):
        dist = getattr(entry_point, "dist", None)
        found.append((entry_point, dist.name if dist is not None else "(unknown package)"))
    # Built-ins first, then by package, so a clash always blames the newcomer.
    found.sort(key=lambda item: (_normalise(item[1]) != _normalise(ARENA_DISTRIBUTION), item[1], item[0].name))
    entries: dict[str, InterfaceEntry] = {}
    clashes: list[InterfaceEntry] = []
    for entry_point, package in found:
        if entry_point.name in entries:
            owner = entries[entry_point.name]
            if owner.package == package and owner.target == entry_point.value:
                continue  # the same distribution seen twice on sys.path
            clashes.append(
                InterfaceEntry(
                    entry_point.name,
                    package,
                    entry_point.value,
                    error=f"name {entry_point.name!r} is already taken by package {owner.package!r} ({owner.target})",
                )
            )
            continue
        entry = _load(entry_point, package)
        asked = check is True or (not isinstance(check, bool) and entry_point.name in check)
        if asked and entry.ok:
            entry = _check(entry, examples)
        entries[entry_point.name] = entry
    return sorted([*entries.values(), *clashes], key=lambda e: (e.name, not e.ok))


def make_interface(name: str, *args: Any, **kwargs: Any) -> Interface:
    """Build the interface registered as ``name`` with the given arguments.

    Raises:
        UnknownNameError: no interface has that name (the message lists those that do).
        PluginError: the plugin behind ``name`` is broken (the message says why).

    Example:
        >>> from arena.plugins import make_interface
        >>> str(make_interface("frame_stack", frames=2))
        'FrameStack(frames=2)'
    """
    entries = [e for e in interface_registry() if e.name == name]
    working = [e.interface for e in entries if e.ok and e.interface is not None]
    if working:
        return working[0](*args, **kwargs)
    if entries:
        entry = entries[0]
        raise PluginError(f"interface {name!r} from package {entry.package!r} is broken: {entry.error}")
    known = ", ".join(e.name for e in interface_registry() if e.ok) or "(none)"
    raise UnknownNameError(f"unknown interface {name!r}; known interfaces: {known}")
