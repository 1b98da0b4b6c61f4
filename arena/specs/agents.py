"""Entrants described by name, so that any worker process (or Ray node) can build them.

An entrant is an :class:`AgentSpec`: a display name, a factory (a registered agent name such
as ``"random"``, or ``"package.module:callable"``) and JSON-serialisable keyword arguments.
Specs, not agent objects, travel to workers; each worker builds its own agents.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import InvalidTypeError, InvalidValueError
from arena.registry import resolve
from arena.specs.factories import callable_spec, plain_json_kwargs
from arena.specs.interfaces import InterfaceSpec, build_interface, parse_interface_spec
from arena.specs.split import split_outside_braces
from arena.suggest import unknown_keywords

__all__ = [
    "AgentSpec",
    "TEAM_FACTORY",
    "parse_agents",
    "agent_version",
    "behind_interface",
    "wants_env",
    "entrant_specs",
]

_NAME = re.compile(r"^[A-Za-z0-9_.\-+#@/ ]+$")
_FACTORY = re.compile(r"^[\w.\-]+(:[\w.]+)?$")


TEAM_FACTORY = "team"  # the factory recorded for a team entrant (its members are in kwargs)
TRAINED_FACTORY = "arena.training:load_trained_agent"  # a folder written by `arena train`
MAX_SPEC_TEXT = 100_000  # characters of one agent spec: a spec is a line, never a data file


def _short(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _json_kwargs(text: str, whole: str) -> dict[str, Any]:
    """The ``{JSON}`` keyword arguments after a factory, with one-line errors however they are broken."""
    try:
        kwargs = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidValueError(
            f"agent {_short(whole)}: the keyword arguments after the name must be a JSON object ({err})"
        ) from None
    except RecursionError:
        raise InvalidValueError(
            f"agent {_short(whole)}: the keyword arguments are nested too deeply (a few hundred levels at most)"
        ) from None
    if not isinstance(kwargs, dict):
        raise InvalidValueError(
            f"agent {_short(whole)}: the keyword arguments must be a JSON object, got {_short(text)}"
        )
    return kwargs


def _looks_like_path(text: str) -> bool:
    return "/" in text or "\\" in text or text.startswith(("~", "."))


def _agent_folder(text: str) -> bool:
    """Whether ``text`` names a folder written by ``arena train`` (never raises on odd text)."""
    if not text or not _looks_like_path(text) and ":" in text:
        return False
    from arena.agent_manifest import is_agent_folder

    try:
        return is_agent_folder(text)
    except (OSError, ValueError):  # a name too long for the file system, or with a NUL
        return False


def _folder_stack(path: Path) -> dict[str, Any]:
    """``{"interface": SPEC}``: the interface stack of the agent folder at ``path``, recorded with the entrant.

    A results file then holds, in registered names, what the entrant's model saw, so a replay
    rebuilds its agent's-eye view without loading the folder (its model file is code);
    :func:`~arena.training.trained.load_trained_agent` checks the folder still has that stack.
    A model of a whole side (``team_size``) or a folder without a stack records nothing.
    """
    from arena.agent_manifest import read_manifest

    manifest = read_manifest(path)
    spec = manifest.get("interface")
    return {"interface": spec} if isinstance(spec, str) and spec and manifest.get("team_size") is None else {}


def _no_folder(text: str) -> str:
    """Why ``text``, which looks like a path, is no agent."""
    from arena.agent_manifest import MANIFEST

    try:
        is_folder = Path(text).is_dir()
    except (OSError, ValueError):
        is_folder = False
    if is_folder:
        return (
            f"{text!r} is a folder without {MANIFEST}: not an agent folder (expected what 'arena train --out' writes)"
        )
    return f"no such agent folder: {text}"


def _member_name(factory: str, kwargs: Mapping[str, Any]) -> str:
    """The name a member gets from its factory: a folder's name, a class's name, a registered name."""
    if factory == TRAINED_FACTORY and isinstance(kwargs.get("path"), str):
        return Path(kwargs["path"]).name or factory
    return factory.rpartition(":")[2] or factory


def _parse_member(text: str) -> AgentSpec:
    """A team member from ``[NAME=]FACTORY[{JSON}]``: a member ``module:Class`` is named ``Class``."""
    head = text.partition("{")[0]
    if "=" in head or ":" not in head:
        return AgentSpec.parse(text)
    return AgentSpec.parse(f"{head.rpartition(':')[2].strip()}={text.strip()}")


def _recorded_member(team: str, member: Any) -> AgentSpec:
    """A member of a team entrant as a results file records it (``{"factory", "kwargs"}``)."""
    if not isinstance(member, Mapping) or not isinstance(member.get("factory"), str):
        raise InvalidValueError(
            f'AgentSpec {team!r}: a recorded member must be {{"factory": NAME, "kwargs": {{...}}}}, '
            f"got {_short(repr(member))}"
        )
    kwargs = member.get("kwargs") or {}
    if not isinstance(kwargs, Mapping):
        raise InvalidValueError(
            f"AgentSpec {team!r}: member {member['factory']!r} has kwargs {_short(repr(kwargs))}, not a JSON object"
        )
    return AgentSpec(_member_name(member["factory"], kwargs), member["factory"], dict(kwargs))


@dataclass(frozen=True)
class AgentSpec:
    """A named entrant of a tournament: how to build the agent, anywhere.

    In a team game (an env with ``teams``) an entrant plays a whole side. A plain spec then
    means that agent in every seat of the side (one built agent per seat); a *team entrant*
    lists ``members``, one per seat of the side in seat order, each its own spec (any
    factory, e.g. a model behind its interface stack beside a scripted bot).

    Args:
        name: the entrant's display name, unique in a tournament (also its key in the results).
        factory: a registered agent name (``arena agents`` lists them) or ``"package.module:callable"``;
            leave it out for a team entrant.
        kwargs: keyword arguments for the factory (JSON-serialisable, stored with the results).
            ``"interface"`` (arena's interface syntax) puts the agent behind that stack, unless
            the factory takes an ``interface`` parameter itself (then it receives it).
        members: a team entrant's members (specs or ``[NAME=]FACTORY[{JSON}]`` strings).
        shared: a team entrant whose equal members are one policy object (parameter sharing:
            built once, asked for each of their seats; it must keep no per-seat state). With a
            single member, that one object plays every seat of a side of any size.

    Example:
        >>> spec = AgentSpec("rnd", "random", {"seed": 1})
        >>> type(spec.build()).__name__
        'RandomAgent'
        >>> AgentSpec.parse('strong=random{"seed": 3}')
        AgentSpec(name='strong', factory='random', kwargs={'seed': 3}, members=(), shared=False)
        >>> duo = AgentSpec.parse('duo=random+beat_most_common')
        >>> [member.factory for member in duo.members], duo.describe()
        (['random', 'beat_most_common'], 'random+beat_most_common')
    """

    name: str
    factory: str = ""
    kwargs: dict[str, Any] = field(default_factory=dict)
    members: tuple[AgentSpec, ...] = ()
    shared: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name) or self.name != self.name.strip():
            raise InvalidValueError(
                f"AgentSpec: an entrant name must be letters, digits, spaces or _.-+#@/ "
                f"(no '|', ',' or '='), got {self.name!r}"
            )
        if self.members or self.factory == TEAM_FACTORY:
            self._init_team()
            return
        if self.shared:
            raise InvalidValueError(f"AgentSpec {self.name!r}: shared=True is for a team entrant with members")
        if not isinstance(self.factory, str):
            raise InvalidTypeError(
                f"AgentSpec {self.name!r}: factory must be a string, got {type(self.factory).__name__}"
            )
        if not _FACTORY.match(self.factory):
            raise InvalidValueError(
                f"AgentSpec {self.name!r}: factory must be a registered agent name or 'package.module:callable' "
                f"(keyword arguments go in {{JSON}} after it), got {self.factory!r}"
            )
        object.__setattr__(self, "kwargs", plain_json_kwargs(self.kwargs, f"AgentSpec {self.name!r}"))

    def _init_team(self) -> None:
        members: Any = self.members
        if not members:  # the recorded form: factory "team", members in kwargs
            recorded = self.kwargs.get("members") if isinstance(self.kwargs, Mapping) else None
            if not isinstance(recorded, list) or not recorded:
                raise InvalidValueError(f"AgentSpec {self.name!r}: a team entrant needs members, got {self.kwargs!r}")
            members = [_recorded_member(self.name, m) for m in recorded]
            object.__setattr__(self, "shared", bool(self.kwargs.get("shared", False)))
        elif self.factory not in ("", TEAM_FACTORY) or self.kwargs:
            raise InvalidValueError(
                f"AgentSpec {self.name!r}: a team entrant is described by its members; give no factory "
                f"or kwargs beside them, got {self.factory!r} {self.kwargs!r}"
            )
        if isinstance(members, (str, AgentSpec)) or not isinstance(members, Sequence):
            raise InvalidTypeError(f"AgentSpec {self.name!r}: members must be a list of specs, got {members!r}")
        built = []
        for member in members:
            member = _parse_member(member) if isinstance(member, str) else member
            if not isinstance(member, AgentSpec):
                raise InvalidTypeError(
                    f"AgentSpec {self.name!r}: a member must be an AgentSpec or a "
                    f"'FACTORY[{{JSON}}]' string, got {type(member).__name__}"
                )
            if member.members:
                raise InvalidValueError(
                    f"AgentSpec {self.name!r}: member {member.name!r} is a team itself; members are single agents"
                )
            built.append(member)
        recorded_form: dict[str, Any] = {"members": [{"factory": m.factory, "kwargs": m.kwargs} for m in built]}
        if self.shared:
            recorded_form["shared"] = True
        object.__setattr__(self, "members", tuple(built))
        object.__setattr__(self, "factory", TEAM_FACTORY)
        object.__setattr__(self, "kwargs", recorded_form)

    @property
    def is_team(self) -> bool:
        """Whether this entrant lists members (a team entrant)."""
        return bool(self.members)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Parse ``[NAME=]FACTORY[{JSON kwargs}]``, e.g. ``mcts``, ``deep=mcts{"simulations": 400}``,
        or a team entrant ``[NAME=]MEMBER+MEMBER...`` (members in seat order of the side).

        ``FACTORY`` may also be a folder written by ``arena train`` (``runs/c4``): the trained
        agent, named after the folder unless ``NAME=`` is given.

        Raises:
            ValueError: the kwargs are not a JSON object, or a member is empty.
        """
        if not isinstance(text, str):
            raise InvalidTypeError(f"agent spec must be text, got {type(text).__name__}")
        if len(text) > MAX_SPEC_TEXT:
            raise InvalidValueError(
                f"agent spec of {len(text):,} characters: at most {MAX_SPEC_TEXT:,} are read (starts {text[:40]!r})"
            )
        text = whole = text.strip()
        name = None
        head, brace, tail = text.partition("{")
        folder = (head.partition("=")[2] if "=" in head else head).strip()
        if _agent_folder(folder):
            # A folder written by `arena train`: the trained agent, named after the folder.
            path = Path(folder).resolve()
            kwargs = _json_kwargs(brace + tail, whole) if brace else {}
            return cls(
                head.partition("=")[0].strip() if "=" in head else path.name,
                TRAINED_FACTORY,
                {"path": str(path), **_folder_stack(path), **kwargs},
            )
        if "=" in head:
            name, _, text = text.partition("=")
            name = name.strip()
        parts = split_outside_braces(text, "+")
        if len(parts) > 1:
            if any(not part.strip() for part in parts):
                raise InvalidValueError(
                    f"agent {_short(whole)}: a team entrant is MEMBER+MEMBER..., got an empty member"
                )
            members = tuple(_parse_member(part) for part in parts)
            return cls(name or "+".join(m.name for m in members), members=members)
        head, brace, tail = text.partition("{")
        factory = head.strip()
        kwargs = _json_kwargs(brace + tail, whole) if brace else {}
        if not factory:
            raise InvalidValueError(f"agent {_short(whole)}: expected [NAME=]FACTORY[{{JSON kwargs}}], got no factory")
        if _looks_like_path(factory):
            raise InvalidValueError(_no_folder(factory))
        return cls(name or _member_name(factory, kwargs), factory, kwargs)  # 'module:Class' is named 'Class'

    @classmethod
    def coerce(cls, entry: Any, name: str | None = None) -> AgentSpec:
        """An :class:`AgentSpec` from a spec, a string (see :meth:`parse`) or an importable factory."""
        if isinstance(entry, AgentSpec):
            if name is None or name == entry.name:
                return entry
            if entry.members:
                return cls(name, members=entry.members, shared=entry.shared)
            return cls(name, entry.factory, entry.kwargs)
        if isinstance(entry, str):
            spec = cls.parse(entry)
            return spec if name is None else cls.coerce(spec, name)
        if isinstance(entry, Agent):
            raise InvalidTypeError(
                f"tournament: entrant {name or entry!s} is an agent object; give a factory instead "
                "(a registered name, 'package.module:callable', or an importable function) so that "
                "every worker can build its own copy"
            )
        if callable(entry):
            factory = callable_spec(entry, f"entrant {name or entry!r}")
            return cls(name or str(getattr(entry, "__name__", factory)), factory)
        raise InvalidTypeError(
            f"tournament: an entrant must be an AgentSpec, a string or a factory, got {type(entry).__name__}"
        )

    def build(self, env: Any = None) -> Agent:
        """Build the agent (any worker can do this).

        Args:
            env: the env the agent will play in. A factory with a parameter named ``env``
                (a planner such as :class:`arena.agents.mcts.MCTSAgent`) receives it, unless
                the spec's kwargs set it.

        Raises:
            TypeError: the factory returned something that is not an :class:`arena.Agent`, or
                this is a team entrant (see :meth:`build_side`).
        """
        if self.members:
            raise InvalidTypeError(
                f"entrant {self.name!r} is a team of {len(self.members)} members; build it with build_side()"
            )
        factory = resolve("agent", self.factory)
        kwargs = dict(self.kwargs)
        interface = None
        if "interface" in kwargs and not _takes(factory, "interface"):
            interface = build_interface(kwargs.pop("interface"))
        if env is not None and "env" not in kwargs and wants_env(factory):
            kwargs["env"] = env
        problem = unknown_keywords(factory, kwargs, f"agent {self.factory!r}")
        if problem is not None:  # a typo in an option is named before the factory runs
            raise InvalidTypeError(problem)
        agent = factory(**kwargs)
        if not isinstance(agent, Agent):
            raise InvalidTypeError(
                f"entrant {self.name!r}: factory {self.factory!r} returned {type(agent).__name__}, not an arena.Agent"
            )
        return agent if interface is None else AgtItfWrapper(agent, interface)

    def side_members(self, seats: int) -> list[AgentSpec]:
        """The member spec for each of a side's ``seats`` seats, in seat order.

        Raises:
            ValueError: a team entrant of several members for a side of another size.
        """
        if not self.members:
            return [self] * seats
        if len(self.members) == 1:
            return list(self.members) * seats
        if len(self.members) != seats:
            shown = self.label() if len(self.label()) <= 80 else self.label()[:80] + "…"
            raise InvalidValueError(
                f"entrant {_short(self.name)} has {len(self.members)} members ({shown}), "
                f"but a side it plays has {seats} seats"
            )
        return list(self.members)

    def build_side(self, seats: int, env: Any = None) -> list[Agent]:
        """Build the agents for a side of ``seats`` seats, in seat order.

        A plain spec builds one agent per seat; a team entrant builds its members, once per
        distinct member when ``shared`` (then one object serves several seats).
        """
        built: dict[str, Agent] = {}
        agents = []
        for member in self.side_members(seats):
            key = member.describe()
            if self.shared and key in built:
                agents.append(built[key])
                continue
            agent = member.build(env)
            built.setdefault(key, agent)
            agents.append(agent)
        return agents

    def describe(self) -> str:
        """``factory`` or ``factory{kwargs}`` as the CLI accepts it (``a+b`` for a team entrant)."""
        if self.members:
            return "+".join(member.describe() for member in self.members)
        return self.factory + (json.dumps(self.kwargs, sort_keys=True) if self.kwargs else "")

    @property
    def folder(self) -> str | None:
        """The trained-agent folder this entrant loads, or ``None``."""
        path = self.kwargs.get("path") if self.factory == TRAINED_FACTORY else None
        return path if isinstance(path, str) else None

    def label(self) -> str:
        """What tables and pages show: :meth:`describe`, with a trained folder as its name
        (``c4``; :attr:`folder` holds the path, for the details).

        Example:
            >>> AgentSpec("duo", members=("random", 'arena.training:load_trained_agent{"path": "/r/c4"}')).label()
            'random+c4'
        """
        if self.members:
            return "+".join(member.label() for member in self.members)
        if self.folder is not None:  # the recorded stack is the folder's own: not an option of the entrant
            extra = {key: value for key, value in self.kwargs.items() if key not in ("path", "interface")}
            return (Path(self.folder).name or self.folder) + (json.dumps(extra, sort_keys=True) if extra else "")
        return self.describe()


def parse_agents(text: str) -> list[AgentSpec]:
    """Split a comma-separated ``--agents`` value (commas inside ``{...}`` stay) into specs.

    Example:
        >>> [s.name for s in parse_agents('random,deep=random{"seed": 1, "x": 2}')]
        ['random', 'deep']
    """
    items = split_outside_braces(text, ",")
    specs = [AgentSpec.parse(item) for item in items if item.strip()]
    if not specs:
        raise InvalidValueError(f"--agents: expected comma-separated agents, got {text!r}")
    return specs


def _takes(factory: Callable[..., Any], parameter: str) -> bool:
    try:
        return parameter in inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return False


def wants_env(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` takes a parameter named ``env`` (planners need the env they play in)."""
    return _takes(factory, "env")


def behind_interface(
    agent: str,
    interface: Any,
    *,
    agent_kwargs: Mapping[str, Any] | None = None,
    interface_kwargs: Mapping[str, Any] | None = None,
    env: Any = None,
) -> AgtItfWrapper:
    """An agent behind an interface, both given by name: a tournament entrant built from plain data.

    Any entrant can also carry ``"interface"`` in its keyword arguments
    (``connect_four_heuristic{"interface": "rotate_board(mirror=true)"}``); this function is
    the same thing as a factory of its own.

    Args:
        agent: a registered agent name or ``"package.module:callable"``; it sees the model spaces.
        interface: an interface stack in arena's interface syntax (:mod:`arena.specs.interfaces`),
            e.g. ``"rotate_board(quarter_turns=0, mirror=true)"``, or its JSON object form.
        agent_kwargs: keyword arguments for the agent factory.
        interface_kwargs: options added to the outermost interface of the stack.
        env: the env played in, passed on to an agent factory that takes ``env``.

    Example:
        >>> from arena.specs.agents import behind_interface
        >>> str(behind_interface("random", "rotate_board(ego_board, quarter_turns=1)"))
        'AgtItfWrapper(RandomAgent, RotateBoard(EgoBoard(), quarter_turns=1))'
    """
    factory = resolve("agent", agent)
    kwargs = dict(agent_kwargs or {})
    if env is not None and "env" not in kwargs and wants_env(factory):
        kwargs["env"] = env
    inner = factory(**kwargs)
    spec = parse_interface_spec(interface)
    if interface_kwargs:
        spec = InterfaceSpec(spec.name, {**spec.options, **interface_kwargs}, spec.inner)
    return AgtItfWrapper(inner, spec.build())


@lru_cache(maxsize=None)
def _top_level_names() -> dict[str, str]:
    """Top-level module -> distribution, from each distribution's small ``top_level.txt``."""
    names: dict[str, str] = {}
    for dist in metadata.distributions():
        for module in (dist.read_text("top_level.txt") or "").split():
            names.setdefault(module, dist.metadata["Name"])
    return names


@lru_cache(maxsize=None)
def _distribution_of(top_module: str) -> str | None:
    """``"name version"`` of the distribution that installs ``top_module``, or ``None``.

    Cheap lookups first: ``packages_distributions()`` reads every installed file list
    (most of a second with large packages installed), so it is only the last resort.
    """
    candidates = [top_module, top_module.replace("_", "-")]
    if top_module in _top_level_names():
        candidates.insert(0, _top_level_names()[top_module])
    for name in candidates:
        try:
            return f"{metadata.metadata(name)['Name']} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    for name in metadata.packages_distributions().get(top_module) or []:
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def _package_of(obj: object) -> str:
    top = type(obj).__module__.split(".")[0]
    package = _distribution_of(top)
    if package is None:
        module = sys.modules.get(top)
        package = f"{top} {getattr(module, '__version__', 'unversioned')}"
    return package


def agent_version(agent: Agent) -> str:
    """What identifies the code of ``agent``: its ``version`` attribute, or what it is and the
    versions of the packages its code comes from (for an :class:`AgtItfWrapper`, the inner
    agents' and the interfaces' packages too).

    Example:
        >>> from arena import RandomAgent
        >>> agent_version(RandomAgent()).startswith("RandomAgent (arena-marl ")
        True
    """
    own = getattr(agent, "version", None)
    if isinstance(own, str) and own:
        return own
    parts: list[object] = [agent]
    if isinstance(agent, AgtItfWrapper):
        members = agent.agent if isinstance(agent.agent, Sequence) else [agent.agent]
        parts += [*members, *agent.interface.levels()]
    packages = list(dict.fromkeys(_package_of(part) for part in parts))
    return f"{agent} ({', '.join(packages)})"


def entrant_specs(agents: Mapping[str, Any] | Sequence[Any]) -> list[AgentSpec]:
    """Entrants from a mapping ``{name: spec}``, a sequence of specs or an ``--agents`` string.

    Raises:
        ValueError: two entrants share a name.
    """
    if isinstance(agents, Mapping):
        specs = [AgentSpec.coerce(entry, str(name)) for name, entry in agents.items()]
    elif isinstance(agents, Sequence) and not isinstance(agents, str):
        specs = [AgentSpec.coerce(entry) for entry in agents]
    elif isinstance(agents, str):
        specs = parse_agents(agents)
    else:
        raise InvalidTypeError(f"tournament: agents must be a list or a dict of entrants, got {type(agents).__name__}")
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise InvalidValueError(
                f"tournament: two entrants are named {spec.name!r}; name them apart, e.g. "
                f"'{spec.name}_2={spec.describe()}'"
            )
        seen.add(spec.name)
    return specs
