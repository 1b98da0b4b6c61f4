"""A trained agent is one folder: the model, its interface stack, the env it was trained on, versions.

``arena train --out DIR`` writes the folder; :func:`load_trained_agent` (and so
``--agents DIR`` in ``arena tournament`` and ``arena play``) reads it back as an agent that
plays on the raw env. ``agent.json`` in the folder is the manifest:

* ``format`` (``"arena-agent"``) and ``format_version``;
* ``algo`` and ``model`` (the Stable-Baselines3 zip, relative to the folder);
* ``interface``: the learner's stack in arena's interface syntax (or ``null``), and
  ``interface_state``: a JSON file with the statistics of its stateful levels (those with
  ``statistics()`` and ``load_statistics()``, such as ``NormalizeObservation``), by level
  index from the root, loaded frozen;
* ``env`` and ``env_options``, ``seats``, ``timesteps``;
* ``versions`` of Python, arena, gymnasium, Stable-Baselines3, sb3-contrib and torch;
* ``model_sha256``: the SHA-256 of the model file, checked before it is loaded;
* ``command`` and ``seed`` (optional, informative): how the agent was trained, which the agents
  arena ships record (``envs/shipped.py``).

What loading runs: the model file is a Stable-Baselines3 zip, and **SB3 zips hold pickled Python
objects: loading one runs code**, so load only folders from people you trust. arena checks
everything else before it gets there: the manifest's keys and types, that every file it names
lies inside the folder, the model's SHA-256, and that its env and interface names are registered
ones (a ``module:callable`` in a manifest is refused unless ``trust=True``: see
:func:`arena.registry.reading_data`).
"""

from __future__ import annotations

import hashlib
import json
import platform
import warnings
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from arena.agents.base import Agent
from arena.errors import AgentFolderError, ArenaError
from arena.interface import Interface
from arena.registry import make_env, reading_data
from arena.specs.interfaces import build_interface

__all__ = [
    "MANIFEST",
    "FORMAT_VERSION",
    "is_agent_folder",
    "read_manifest",
    "save_trained_agent",
    "load_trained_agent",
    "trained_interface",
    "pool_statistics",
    "model_digest",
    "trained_elsewhere",
    "warn_if_trained_elsewhere",
    "KeepsStatistics",
]

MANIFEST = "agent.json"
_MISSING = object()
FORMAT_VERSION = 1
_STATE = "interface_state.json"


@runtime_checkable
class KeepsStatistics(Protocol):
    """An interface level whose running statistics a trained folder keeps (``interfaces.NormalizeObservation``).

    The folder stores :meth:`statistics` (JSON-able) after training; loading it gives them back
    through :meth:`load_statistics` (applied at setup) and, to play, :meth:`freeze` stops them moving.
    """

    def statistics(self) -> dict[str, Any]: ...

    def load_statistics(self, statistics: dict[str, Any]) -> None: ...

    def freeze(self) -> Any: ...


def is_agent_folder(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding an ``agent.json`` manifest."""
    path = Path(path)
    return path.is_dir() and (path / MANIFEST).is_file()


_MAX_MANIFEST_BYTES = 1_000_000  # a manifest is a few hundred bytes
# key -> (the JSON types it may have, whether it must be there)
_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "format": ((str,), True),
    "format_version": ((int,), True),
    "algo": ((str,), True),
    "model": ((str,), True),
    "env": ((str,), True),
    "interface": ((str, type(None)), False),
    "interface_state": ((str, type(None)), False),
    "env_options": ((dict, type(None)), False),
    "seats": ((list, type(None)), False),
    "team_size": ((int, type(None)), False),
    "model_sha256": ((str, type(None)), False),
    "timesteps": ((int, type(None)), False),
    "versions": ((dict, type(None)), False),
    # what a shipped agent's docs promise: the command and seed that trained it (informative only)
    "command": ((str, type(None)), False),
    "seed": ((int, type(None)), False),
}


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of a trained-agent folder, checked key by key.

    Raises:
        AgentFolderError: no such folder, no manifest, not an arena agent, a newer format, a key
            missing or of the wrong type, or a file it names that is missing or outside the folder.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise AgentFolderError(
            f"no such agent folder: {path}"
            if not folder.exists()
            else f"trained agent: {str(folder)!r} is not a folder (expected what 'arena train --out' wrote)"
        )
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise AgentFolderError(
            f"trained agent: {str(folder)!r} has no {MANIFEST} (expected what 'arena train --out' wrote)"
        )
    if manifest_path.stat().st_size > _MAX_MANIFEST_BYTES:
        raise AgentFolderError(
            f"trained agent: {str(manifest_path)!r} is over {_MAX_MANIFEST_BYTES:,} bytes: not a manifest"
        )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise AgentFolderError(f"trained agent: {str(manifest_path)!r} is not valid JSON ({err})") from None
    except RecursionError:
        raise AgentFolderError(f"trained agent: {str(manifest_path)!r} is JSON nested too deeply") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "arena-agent":
        raise AgentFolderError(
            f'trained agent: {str(manifest_path)!r} is not an arena agent manifest (expected "format": "arena-agent")'
        )
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise AgentFolderError(
            f"trained agent: {str(manifest_path)!r} has format_version {version!r}; this arena "
            f"reads up to {FORMAT_VERSION} (upgrade arena)"
        )
    for key, (kinds, required) in _KEYS.items():
        if key not in manifest:
            if required:
                raise AgentFolderError(f"trained agent {str(folder)!r}: {MANIFEST} has no {key!r}")
        elif not isinstance(manifest[key], kinds) or isinstance(manifest[key], bool):
            expected = " or ".join("null" if kind is type(None) else _JSON_NAMES[kind] for kind in kinds)
            raise AgentFolderError(
                f"trained agent {str(folder)!r}: {MANIFEST} key {key!r} must be {expected}, "
                f"got {type(manifest[key]).__name__}"
            )
    _inside(folder, manifest["model"], "model")
    if manifest.get("interface_state"):
        _inside(folder, manifest["interface_state"], "interface_state")
    return manifest


_JSON_NAMES = {str: "text", int: "an integer", dict: "an object", list: "a list"}


def _inside(folder: Path, name: str, key: str) -> Path:
    """The file ``name`` of the manifest's ``key``, which must be a file inside ``folder``."""
    candidate = Path(name)
    where = f"trained agent {str(folder)!r}: {MANIFEST} key {key!r}"
    if candidate.is_absolute() or not name.strip():
        raise AgentFolderError(f"{where} must name a file inside the folder, got {name!r}")
    root = folder.resolve()
    try:
        target = (folder / candidate).resolve()
    except (OSError, ValueError) as err:
        raise AgentFolderError(f"{where} names {name!r}, which cannot be resolved ({err})") from None
    if not target.is_relative_to(root):
        raise AgentFolderError(f"{where} names {name!r}, which lies outside the folder")
    if target.is_dir():
        raise AgentFolderError(f"{where} names {name!r}, which is a folder, not a file")
    if not target.is_file():
        raise AgentFolderError(f"{where} names {name!r}, which is not in the folder")
    return target


def model_digest(path: str | Path) -> str:
    """The SHA-256 (hex) of a model file, as a manifest records it."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("arena-marl", "gymnasium", "stable-baselines3", "sb3-contrib", "torch"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def save_trained_agent(
    folder: str | Path,
    model: Any,
    *,
    algo: str,
    env: str,
    env_options: Mapping[str, Any],
    interface: str | None,
    trained_stack: Interface | Sequence[Interface] | None = None,
    seats: Sequence[str] | None = None,
    team_size: int | None = None,
) -> Path:
    """Write the model and its manifest into ``folder``; return the manifest's path.

    Args:
        folder: the output folder (created if needed).
        model: the Stable-Baselines3 model (saved with its optimizer state and timestep count).
        algo: the algorithm name (:data:`arena.training.ALGORITHMS`).
        env: the env name or ``"module:callable"``; ``env_options`` its options.
        interface: the learner's stack in arena's interface syntax, or ``None``.
        trained_stack: the stack as trained (its statistics are kept, frozen on load); or the
            copies of it that several training envs kept, whose running statistics are pooled
            (mean, variance and count combined as if one stack had seen every observation).
        seats: the seats the learner played.
        team_size: for a model of a whole side (``arena train --control team``): the side's
            seats; ``interface`` is then each member's stack (recorded as ``team_size``).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(str(folder / "model.zip"))
    digest = model_digest(folder / "model.zip")
    state = None
    statistics = _statistics(trained_stack)
    if statistics:
        (folder / _STATE).write_text(json.dumps(statistics) + "\n")
        state = _STATE
    manifest = {
        "format": "arena-agent",
        "format_version": FORMAT_VERSION,
        "algo": algo,
        "model": "model.zip",
        "interface": interface,
        "interface_state": state,
        "env": env,
        "env_options": dict(env_options),
        "seats": list(seats) if seats else None,
        "timesteps": int(model.num_timesteps),
        "versions": _versions(),
        "model_sha256": digest,
    }
    if team_size is not None:
        manifest["team_size"] = int(team_size)
    path = folder / MANIFEST
    path.write_text(json.dumps(manifest, indent=2) + "\n")
    return path


def _statistics(stacks: Interface | Sequence[Interface] | None) -> dict[str, dict[str, Any]]:
    """Level index (root 0) -> JSON statistics, for the levels that keep running statistics,
    pooled over the copies of one stack that several training envs kept."""
    if stacks is None:
        return {}
    copies = [stacks] if isinstance(stacks, Interface) else [stack for stack in stacks if stack is not None]
    copies = list({id(stack): stack for stack in copies}.values())  # a batch hands out one stack per game
    if not copies:
        return {}
    found = {}
    for index, level in enumerate(copies[0].levels()):
        if isinstance(level, KeepsStatistics):
            pooled = pool_statistics([copy.levels()[index].statistics() for copy in copies])
            found[str(index)] = {key: np.asarray(value).tolist() for key, value in pooled.items()}
    return found


def pool_statistics(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Running statistics ``{"mean", "var", "count"}`` of several streams combined into those of
    one stream that saw every observation (Chan et al.'s parallel update); statistics of any
    other form cannot be combined, and the first is kept.

    Example:
        >>> import numpy as np
        >>> a, b = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0])
        >>> part = lambda x: {"mean": x.mean(), "var": x.var(), "count": float(len(x))}
        >>> pooled = pool_statistics([part(a), part(b)])
        >>> both = np.concatenate([a, b])
        >>> bool(np.isclose(pooled["mean"], both.mean()) and np.isclose(pooled["var"], both.var())), pooled["count"]
        (True, 5.0)
    """
    if len(parts) == 1 or any(set(part) != {"mean", "var", "count"} for part in parts):
        return dict(parts[0])
    counts = np.array([float(part["count"]) for part in parts])
    means = [np.asarray(part["mean"], dtype=np.float64) for part in parts]
    total = counts.sum()
    mean = sum(count * m for count, m in zip(counts, means)) / total
    spread = sum(
        count * (np.asarray(part["var"], dtype=np.float64) + (m - mean) ** 2)
        for count, part, m in zip(counts, parts, means)
    )
    return {"mean": mean, "var": spread / total, "count": float(total)}


def trained_interface(
    folder: str | Path, manifest: Mapping[str, Any] | None = None, *, frozen: bool = True, trust: bool = False
) -> Interface | None:
    """The folder's interface stack, built from its spec, with the trained statistics loaded.

    Args:
        folder: a folder written by ``arena train``.
        manifest: its manifest, when already read.
        frozen: freeze the statistics (to play, the default); ``False`` keeps them updating, to
            continue training (``arena train --load``).
        trust: let the manifest's interface spec import ``module:Class`` names (else only
            registered interfaces are built).

    Raises:
        ArenaError: the stored statistics do not fit the stack in the manifest.
    """
    folder = Path(folder)
    manifest = manifest or read_manifest(folder)
    spec = manifest.get("interface")
    with reading_data(f"agent folder {str(folder)!r}", trust):
        stack = build_interface(spec) if spec else None
    state = manifest.get("interface_state")
    if stack is None or not state:
        return stack
    levels = stack.levels()
    for index, statistics in _state(folder, state).items():
        level = levels[int(index)] if index.isdigit() and int(index) < len(levels) else None
        if not isinstance(level, KeepsStatistics):
            raise ArenaError(
                f"trained agent {str(folder)!r}: {state} has statistics for level {index}, which {stack} does not keep"
            )
        level.load_statistics(statistics)  # applied at setup
        if frozen:
            level.freeze()  # evaluation sees the statistics the model was trained with
    return stack


def _state(folder: Path, name: str) -> dict[str, Any]:
    """The interface statistics file, checked to be a JSON object of level index -> statistics."""
    path = _inside(folder, name, "interface_state")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise AgentFolderError(
            f"trained agent {str(folder)!r}: {name} is not readable JSON ({type(err).__name__})"
        ) from None
    if not isinstance(state, dict) or not all(isinstance(value, dict) for value in state.values()):
        raise AgentFolderError(f"trained agent {str(folder)!r}: {name} must map level indices to statistics")
    return state


def trained_elsewhere(manifest: Mapping[str, Any], env: Any) -> list[str]:
    """The options a trained agent recorded that ``env`` holds with another value, as ``"name=trained (here: value)"``.

    Only options the env keeps as an attribute of the same name are compared, and not its
    :attr:`~arena.env.MultiAgentEnv.training_options` (an episode's length, reward terms).

    Example:
        >>> import envs
        >>> trained_elsewhere({"env_options": {"ball_spin": 3.0, "rounds": 5}}, envs.make("pong_2p"))
        ['ball_spin=3.0 (here: 6.0)']
    """
    game = getattr(env, "unwrapped", env)
    free: frozenset[str] = getattr(game, "training_options", frozenset())
    differences = []
    for name, trained in sorted(dict(manifest.get("env_options") or {}).items()):
        here = getattr(game, name, _MISSING) if name not in free and not name.startswith("_") else _MISSING
        if here is not _MISSING and not callable(here) and here != trained:
            differences.append(f"{name}={trained!r} (here: {here!r})")
    return differences


def warn_if_trained_elsewhere(folder: Path, manifest: Mapping[str, Any], env: Any) -> None:
    """Warn (``UserWarning``) when ``env`` differs from the game the agent in ``folder`` was trained on."""
    differences = trained_elsewhere(manifest, env)
    if differences:
        warnings.warn(
            f"trained agent {folder.name!r} was trained on {manifest.get('env')} with options this env does not "
            f"have: {', '.join(differences)}; it plays, but not the game it learned",
            UserWarning,
            stacklevel=3,
        )


def load_trained_agent(
    path: str | Path,
    *,
    env: Any = None,
    deterministic: bool = True,
    device: str = "cpu",
    seed: int | None = None,
    name: str | None = None,
    trust: bool = False,
    interface: str | None = None,
) -> Agent:
    """The agent in a folder written by ``arena train``: its model behind its interface stack.

    The model's spaces are checked against the stack on the env's first learner seat at
    once, so a model without its interface fails here with a clear error rather than
    forfeiting games later.

    Args:
        path: the folder.
        env: the env the agent will play in (default: built from the manifest).
        deterministic, device, seed: as for :func:`arena.training.load_sb3_agent`.
        name: the name shown in tournaments (default: the folder's name).
        trust: let the manifest's env and interface names import ``module:callable`` code (else
            only registered names resolve). The model file itself is a pickle whatever this says:
            load folders only from people you trust.
        interface: the stack the folder must have (its manifest's ``interface``). A folder given
            as an entrant records it (see :meth:`arena.specs.AgentSpec.parse`), so that a replay
            shows what the model saw from registered names alone; a folder whose stack changed
            since is refused here.

    Raises:
        AgentFolderError: not a trained-agent folder, a broken manifest, or a model file whose
            SHA-256 is not the manifest's.
        UntrustedCodeError: the manifest names a ``module:callable`` and ``trust`` is false.
        ArenaError: the model and the stack disagree on spaces.

    Example::

        agent = load_trained_agent("runs/c4")
    """
    from arena.training.policy_agent import load_sb3_agent

    folder = Path(path).resolve()
    manifest = read_manifest(folder)
    if interface is not None and interface != manifest.get("interface"):
        raise AgentFolderError(
            f"trained agent {str(folder)!r}: recorded behind {interface!r}, but its {MANIFEST} now names "
            f"{manifest.get('interface')!r}: the folder changed since; not loaded"
        )
    stack = trained_interface(folder, manifest, trust=trust)
    team_size = manifest.get("team_size")
    model = _inside(folder, manifest["model"], "model")
    expected = manifest.get("model_sha256")
    if expected is not None and model_digest(model) != expected.lower():
        raise AgentFolderError(
            f"trained agent {str(folder)!r}: {manifest['model']} does not have the SHA-256 its "
            f"manifest records ({expected[:16]}…): the model file was changed or replaced; "
            "not loaded"
        )
    agent = load_sb3_agent(
        model,
        algo=manifest["algo"],
        interface=stack,
        deterministic=deterministic,
        device=device,
        seed=seed,
        name=name or folder.name,
        team_size=team_size,
    )
    if env is None:
        with reading_data(f"agent folder {str(folder)!r}", trust):
            probe = make_env(manifest["env"], **dict(manifest.get("env_options") or {}))
    else:
        probe = env
        warn_if_trained_elsewhere(folder, manifest, env)
    if team_size is not None:  # a model of a whole side: one agent per side, Tuple spaces
        from arena.sides import GroupTeams

        probe = GroupTeams(probe)
    try:
        seats = manifest.get("seats") or list(probe.possible_agents)
        seat = seats[0]
        try:
            agent.setup(probe.observation_space(seat), probe.action_space(seat))
        except ArenaError as err:
            raise ArenaError(f"trained agent {str(folder)!r} does not fit {probe} seat {seat!r}: {err}") from None
    finally:
        if env is None:
            probe.close()
    return agent
