"""The statistics of a trained agent's stateful interface levels: kept in its folder, loaded frozen.

A level that keeps running statistics (``interfaces.NormalizeObservation``: the
:class:`KeepsStatistics` protocol) would show the model other numbers than it learned on if it
started afresh: a trained folder stores them (``interface_state`` in the manifest, JSON by level
index from the root), pooled over the copies that several training envs kept, and
:func:`trained_interface` loads them back into the folder's stack.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from arena.agent_manifest import inside, read_manifest
from arena.errors import AgentFolderError, ArenaError
from arena.interface import Interface
from arena.registry import reading_data
from arena.specs.interfaces import build_interface

__all__ = ["KeepsStatistics", "stack_statistics", "pool_statistics", "trained_interface"]


@runtime_checkable
class KeepsStatistics(Protocol):
    """An interface level whose running statistics a trained folder keeps (``interfaces.NormalizeObservation``).

    The folder stores :meth:`statistics` (JSON-able) after training; loading it gives them back
    through :meth:`load_statistics` (applied at setup) and, to play, :meth:`freeze` stops them moving.
    """

    def statistics(self) -> dict[str, Any]: ...

    def load_statistics(self, statistics: dict[str, Any]) -> None: ...

    def freeze(self) -> Any: ...


def stack_statistics(stacks: Interface | Sequence[Interface] | None) -> dict[str, dict[str, Any]]:
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
    path = inside(folder, name, "interface_state")
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise AgentFolderError(
            f"trained agent {str(folder)!r}: {name} is not readable JSON ({type(err).__name__})"
        ) from None
    if not isinstance(state, dict) or not all(isinstance(value, dict) for value in state.values()):
        raise AgentFolderError(f"trained agent {str(folder)!r}: {name} must map level indices to statistics")
    return state
