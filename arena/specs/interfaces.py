"""One text form for interface stacks, wherever an interface can be named.

Train, play, tournament entrants, :func:`arena.specs.agents.behind_interface` and
Python helpers all read the same spelling: a registered interface name (``arena
interfaces`` lists them) or ``package.module:Class``, with options in parentheses and
the inner interface as the first positional argument, like the Python that builds it::

    flatten(ego_board(planes=true))
    rotate_board(ego_board, quarter_turns=1, mirror=false)
    frame_stack(flatten, frames=4)

Option values are JSON (``true``, ``3``, ``"text"``, ``[1, 2]``, ``{"a": 1}``; Python's
``True``/``False``/``None`` work too) or interface stacks (an option that takes
interfaces, such as ``Combine``'s members, takes a stack or a list of stacks). The JSON
equivalent nests objects: ``{"interface": "flatten", "inner": {"interface": "ego_board",
"options": {"planes": true}}}``.

A stack's ``str()`` reads back too (class names are accepted beside registered names).

Example:
    >>> stack = build_interface("flatten(ego_board(planes=true))")
    >>> str(stack)
    'Flatten(EgoBoard(planes=True))'
    >>> str(build_interface(str(stack)))
    'Flatten(EgoBoard(planes=True))'
    >>> parse_interface_spec('{"interface": "flatten", "inner": "ego_board"}').text()
    'flatten(ego_board)'
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.errors import InterfaceSpecError, InvalidTypeError, UnknownNameError
from arena.interface import Interface

__all__ = ["InterfaceSpec", "parse_interface_spec", "build_interface", "interface_options", "options_text"]

_NAME = re.compile(r"[A-Za-z_][\w.]*(?::[A-Za-z_][\w.]*)?")
MAX_DEPTH = 100  # interfaces nested in one stack (a real stack has a handful)
MAX_SPEC_TEXT = 100_000  # characters of one spec
_KEYWORDS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}


@dataclass(frozen=True)
class InterfaceSpec:
    """A parsed interface stack: a name, its options and the inner stack.

    Attributes:
        name: a registered interface name or ``"package.module:Class"``.
        options: keyword options (JSON values, or specs for options that take interfaces).
        inner: the stack underneath, or ``None`` at the raw root.
    """

    name: str
    options: dict[str, Any] = field(default_factory=dict)
    inner: InterfaceSpec | None = None

    def build(self) -> Interface:
        """Build the stack, innermost first.

        Raises:
            UnknownNameError: an unknown interface name (the message lists the known ones).
            InterfaceSpecError: an option the interface does not take (the message lists those it does).
        """
        cls = _resolve(self.name)
        accepted = interface_options(cls)
        unknown = [key for key in self.options if key not in accepted]
        if unknown:
            valid = ", ".join(accepted) or "(none)"
            raise InterfaceSpecError(f"interface {self.name!r} has no option {unknown[0]!r}; its options: {valid}")
        options = {key: _map_specs(value, InterfaceSpec.build) for key, value in self.options.items()}
        inner = None if self.inner is None else self.inner.build()
        built = cls(inner, **options)
        if not isinstance(built, Interface):
            raise InvalidTypeError(f"interface spec {self.name!r} built {type(built).__name__}, not an arena.Interface")
        return built

    def text(self) -> str:
        """The spec in the text form (what :func:`parse_interface_spec` reads back)."""
        arguments = [] if self.inner is None else [self.inner.text()]
        arguments += [f"{key}={_value_text(value)}" for key, value in self.options.items()]
        return f"{self.name}({', '.join(arguments)})" if arguments else self.name

    def to_json(self) -> dict[str, Any]:
        """The spec as the JSON object form."""
        out: dict[str, Any] = {"interface": self.name}
        if self.options:
            out["options"] = {key: _map_specs(value, InterfaceSpec.to_json) for key, value in self.options.items()}
        if self.inner is not None:
            out["inner"] = self.inner.to_json()
        return out

    def __str__(self) -> str:
        return self.text()


def interface_options(cls: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The keyword options an interface class takes (its constructor's parameters but ``inner``).

    Example:
        >>> from arena import Interface
        >>> list(interface_options(Interface))
        []
    """
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return {}
    return {
        name: p
        for name, p in parameters.items()
        if name not in ("self", "inner") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


def options_text(cls: type | None) -> str:
    """The options of an interface class as ``arena interfaces`` lists them (defaults shown).

    Example:
        >>> from interfaces import FrameStack
        >>> options_text(FrameStack)
        'frames=4'
    """
    if cls is None:
        return ""
    shown = []
    for name, parameter in interface_options(cls).items():
        if parameter.default is inspect.Parameter.empty:
            shown.append(f"{name} (required)")
        elif callable(parameter.default):
            shown.append(f"{name}={getattr(parameter.default, '__name__', parameter.default)}")
        else:
            shown.append(
                f"{name}={_value_text(parameter.default) if _is_json(parameter.default) else parameter.default}"
            )
    return ", ".join(shown)


def _is_json(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def parse_interface_spec(spec: str | Mapping[str, Any] | InterfaceSpec) -> InterfaceSpec:
    """Parse the text form (or the JSON form, as text or as a dict).

    Raises:
        InterfaceSpecError: the text does not parse; the message shows where.
    """
    if isinstance(spec, InterfaceSpec):
        return spec
    if isinstance(spec, Mapping):
        return _from_json(spec)
    if not isinstance(spec, str):
        raise InvalidTypeError(f"an interface spec must be text or a JSON object, got {type(spec).__name__}")
    text = spec.strip()
    if len(text) > MAX_SPEC_TEXT:
        raise InterfaceSpecError(
            f"interface spec of {len(text):,} characters: at most {MAX_SPEC_TEXT:,} are read (starts {text[:40]!r})"
        )
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            raise InterfaceSpecError(f"interface spec {_short(spec)}: invalid JSON ({err})") from None
        except RecursionError:
            raise InterfaceSpecError(f"interface spec {_short(spec)}: JSON nested too deeply") from None
        return _from_json(value)
    parser = _Parser(text)
    result = parser.stack()
    parser.end()
    return result


def build_interface(spec: Interface | str | Mapping[str, Any] | InterfaceSpec | None) -> Interface | None:
    """An interface stack from an instance (returned as is), ``None``, or a spec in the text or JSON form.

    Example:
        >>> str(build_interface("frame_stack(flatten, frames=2)"))
        'FrameStack(Flatten(), frames=2)'
    """
    if spec is None or isinstance(spec, Interface):
        return spec
    return parse_interface_spec(spec).build()


# ---------------------------------------------------------------- resolution
def _resolve(name: str) -> Callable[..., Any]:
    if ":" in name:
        from arena.registry import load_callable

        return load_callable(name)
    from arena.plugins import interface_registry, make_interface

    working = [(e.name, e.interface) for e in interface_registry() if e.ok and e.interface is not None]
    # A registered name, or the class name that str() shows (so a stack's str() reads back).
    found = [cls for key, cls in working if key == name] or [cls for _, cls in working if cls.__name__ == name]
    if found:
        return found[0]
    make_interface(name)  # raises UnknownNameError or PluginError with the registry's message
    raise UnknownNameError(f"unknown interface {name!r}")  # pragma: no cover - make_interface raised


def _map_specs(value: Any, convert: Callable[[InterfaceSpec], Any]) -> Any:
    """``value`` (an option's value) with each interface spec in it, alone or in lists at any
    depth, replaced by ``convert(spec)``: built, or in the JSON form."""
    if isinstance(value, InterfaceSpec):
        return convert(value)
    if isinstance(value, list):
        return [_map_specs(v, convert) for v in value]
    return value


def _value_text(value: Any) -> str:
    if isinstance(value, InterfaceSpec):
        return value.text()
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return json.dumps(value)


def _short(value: Any, limit: int = 80) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _too_deep(where: Any) -> InterfaceSpecError:
    return InterfaceSpecError(
        f"interface spec {_short(where)}: more than {MAX_DEPTH} interfaces or values nested in one another"
    )


def _from_json(value: Any, depth: int = 0) -> InterfaceSpec:
    if depth > MAX_DEPTH:
        raise _too_deep(value)
    if isinstance(value, str):
        return parse_interface_spec(value)
    if not isinstance(value, Mapping) or not isinstance(value.get("interface"), str):
        raise InterfaceSpecError(f'an interface spec object needs an "interface" name, got {_short(value)}')
    extra = set(value) - {"interface", "options", "inner"}
    if extra:
        raise InterfaceSpecError(
            f'interface spec {_short(value)}: unknown keys {sorted(extra)}; expected "interface", "options" and "inner"'
        )
    options = value.get("options") or {}
    if not isinstance(options, Mapping):
        raise InterfaceSpecError(f'interface spec {_short(value)}: "options" must be an object')
    inner = value.get("inner")
    options = {key: _option_from_json(v, depth + 1) for key, v in options.items()}
    return InterfaceSpec(value["interface"], options, None if inner is None else _from_json(inner, depth + 1))


def _option_from_json(value: Any, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise _too_deep(value)
    if isinstance(value, Mapping) and isinstance(value.get("interface"), str):
        return _from_json(value, depth)
    if isinstance(value, list):
        return [_option_from_json(v, depth + 1) for v in value]
    return value


class _Parser:
    """Recursive descent over ``name(inner, key=value, ...)``."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.depth = text, 0, 0

    def fail(self, expected: str) -> InterfaceSpecError:
        found = self.text[self.pos : self.pos + 12] or "the end"
        return InterfaceSpecError(
            f"interface spec {_short(self.text)}: expected {expected} at position {self.pos}, found {found!r}"
        )

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _too_deep(self.text)

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def end(self) -> None:
        if self.peek():
            raise self.fail("the end of the spec")

    def name(self) -> str:
        self.skip()
        match = _NAME.match(self.text, self.pos)
        if not match:
            raise self.fail("an interface name")
        self.pos = match.end()
        return match.group()

    def stack(self) -> InterfaceSpec:
        self.enter()
        spec = self._stack()
        self.depth -= 1
        return spec

    def _stack(self) -> InterfaceSpec:
        name = self.name()
        inner, options = None, {}
        if self.peek() == "(":
            self.pos += 1
            first = True
            while self.peek() != ")":
                if not first:
                    if self.peek() != ",":
                        raise self.fail("',' or ')'")
                    self.pos += 1
                start = self.pos
                key = self._keyword()
                if key is None:
                    if not first or inner is not None:
                        self.pos = start
                        raise self.fail("key=value (only the first argument may be the inner interface)")
                    inner = self.stack()
                else:
                    if key in options:
                        raise InterfaceSpecError(f"interface spec {self.text!r}: option {key!r} given twice")
                    options[key] = self.value()
                first = False
            self.pos += 1
        return InterfaceSpec(name, options, inner)

    def _keyword(self) -> str | None:
        """``key=`` at the current position (consumed), or ``None`` (nothing consumed)."""
        self.skip()
        match = re.compile(r"([A-Za-z_]\w*)\s*=(?!=)").match(self.text, self.pos)
        if not match:
            return None
        self.pos = match.end()
        return match.group(1)

    def value(self) -> Any:
        char = self.peek()
        if char == "[":
            self.pos += 1
            items: list[Any] = []
            self.enter()
            while self.peek() != "]":
                if items:
                    if self.peek() != ",":
                        raise self.fail("',' or ']'")
                    self.pos += 1
                items.append(self.value())
            self.pos += 1
            self.depth -= 1
            return items
        match = re.compile(r"[A-Za-z_]\w*").match(self.text, self.pos)
        if match and match.group() in _KEYWORDS and not self.text[match.end() :].lstrip().startswith(("(", ":")):
            self.pos = match.end()
            return _KEYWORDS[match.group()]
        if match:
            return self.stack()
        try:
            value, end = json.JSONDecoder().raw_decode(self.text, self.pos)
        except json.JSONDecodeError:
            raise self.fail("a JSON value or an interface") from None
        except RecursionError:
            raise _too_deep(self.text) from None
        self.pos = end
        return value
