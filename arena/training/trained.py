"""A trained agent is one folder: weights as tensors, everything else as JSON, no pickle.

``arena train --out`` writes the folder; :func:`load_trained_agent` (and so ``--agents DIR`` in
``arena tournament`` and ``arena play``) reads it back as an agent that plays on the raw env.
``agent.json`` in the folder is the manifest:

* ``format`` (``"arena-agent"``) and ``format_version`` (2; version 1 folders hold an SB3 zip);
* ``algo``, and ``policy``: the policy's class (SB3's alias such as ``"MlpPolicy"``, or
  ``{"$class": "module:Class"}``) and its constructor arguments as JSON
  (:mod:`arena.training.weights`);
* ``model``: the policy's weights, a safetensors file named by its content
  (``model-<first 12 hex digits of its SHA-256>.safetensors``), and ``model_sha256``;
* ``interface``: the learner's stack in arena's interface syntax (or ``null``), and
  ``interface_state``: a JSON file with the statistics of its stateful levels (those with
  ``statistics()`` and ``load_statistics()``, such as ``NormalizeObservation``), by level
  index from the root, loaded frozen (``interface_state_sha256``);
* ``env`` and ``env_options``, ``seats``, ``team_size``, ``timesteps``;
* ``training`` (to continue with ``arena train --load``): ``algo_options`` (the algorithm's
  hyperparameters), ``optimizer`` (its tensors, a safetensors file), ``optimizer_sha256`` and
  ``optimizer_groups`` (its parameter groups); ``null`` in a folder meant only to play;
* ``sb3_model`` and ``sb3_model_sha256`` (optional): SB3's own ``model.zip``, written on request
  for other tools, never read by arena;
* ``versions`` of Python, arena, gymnasium, Stable-Baselines3, sb3-contrib and torch;
* ``command`` and ``seed`` (optional, informative): how the agent was trained, which the agents
  arena ships record (``envs/shipped.py``);
* ``warm_start`` (optional, informative): the folder whose weights started this one
  (``tools/warm_start.py``: ``from``, its ``model_sha256`` and ``timesteps``), kept by ``--load``;
* ``imitation`` (optional, informative): the scripted agent whose actions the policy learned first
  (``tools/imitate.py``: ``teacher``, ``opponent``, ``games``, ``seed``, ``rounds``, ``samples`` and
  each round's ``scores``), kept by ``--load``.

The spaces are not stored: the policy is built for the spaces the env and the interface stack
give, as in training. Loading runs no code from the folder: the manifest's keys and types are
checked, every file it names must lie inside the folder and have the SHA-256 it records, env and
interface names resolve through the registry (a ``module:callable`` is refused unless
``trust=True``: :func:`arena.registry.reading_data`), and classes the policy names only from
torch, SB3 or arena's plugins. A version-1 folder (an SB3 zip, whose pickles run code when
loaded) is refused unless ``trust=True``; ``python -m arena.training.convert DIR --trust``
converts one.

Saving is atomic: each file is written to a temporary file, flushed and renamed into place, with
the manifest last; weights are named by their content, so a folder saved into again (``--load``)
keeps its previous files until the new manifest is in place. A kill at any moment leaves the old
agent or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import warnings
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.agent_manifest import (
    FORMAT_VERSION,
    MANIFEST,
    check_digest,
    is_agent_folder,
    model_digest,
    named_files,
    read_manifest,
)
from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.atomic import TEMP_SUFFIX, finish_temporary, fsync_folder, write_atomic
from arena.env import match_options_of
from arena.errors import AgentFolderError, ArenaError, SpaceMismatchError, UntrustedCodeError
from arena.interface import Interface
from arena.registry import make_env, reading_data, reading_trusted
from arena.text import printable
from arena.training.interface_state import (
    KeepsStatistics,
    pool_statistics,
    stack_statistics,
    trained_interface,
)

__all__ = [
    "MANIFEST",
    "FORMAT_VERSION",
    "is_agent_folder",
    "read_manifest",
    "save_trained_agent",
    "store_content_named",
    "replace_weights",
    "load_trained_agent",
    "restore_model",
    "trained_interface",
    "pool_statistics",
    "model_digest",
    "check_digest",
    "trained_elsewhere",
    "warn_if_trained_elsewhere",
    "KeepsStatistics",
]

_MISSING = object()
#: The names :func:`save_trained_agent` gives files by their content (``model-<12 hex>.safetensors``).
_CONTENT_NAMED = re.compile(r"(model|optimizer)-[0-9a-f]{12}\.safetensors|interface_state-[0-9a-f]{12}\.json")


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("arena-marl", "gymnasium", "stable-baselines3", "sb3-contrib", "torch", "safetensors"):
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
    training_state: bool = True,
    optimizer_state: bool = True,
    sb3_zip: bool = False,
    details: Mapping[str, Any] | None = None,
) -> Path:
    """Write the model and its manifest into ``folder`` atomically; return the manifest's path.

    Weights go to safetensors files named by their content and everything else to JSON, each
    written to a temporary file, flushed and renamed into place; the manifest comes last, then
    the files the previous manifest named and this one does not are removed, with any content-named
    file no manifest names (left by a save that was killed before its manifest). A kill at any
    moment leaves a folder that loads: the previous agent or this one. Safe to call again and
    again on one folder (periodic checkpoints, ``arena train --load``).

    Args:
        folder: the output folder (created if needed).
        model: the Stable-Baselines3 model.
        algo: the algorithm name (:data:`arena.training.ALGORITHMS`).
        env: the env name or ``"module:callable"``; ``env_options`` its options.
        interface: the learner's stack in arena's interface syntax, or ``None``.
        trained_stack: the stack as trained (its statistics are kept, frozen on load); or the
            copies of it that several training envs kept, whose running statistics are pooled
            (mean, variance and count combined as if one stack had seen every observation).
        seats: the seats the learner played.
        team_size: for a model of a whole side (``arena train --control team``): the side's
            seats; ``interface`` is then each member's stack (recorded as ``team_size``).
        training_state: keep the hyperparameters and the optimizer's state, to go on training
            (``False``: a folder only to play, about a third of the size).
        optimizer_state: with ``training_state``, keep the optimizer's state too (``False``: the
            hyperparameters alone; training goes on with a fresh optimizer, as the shipped agents do).
        sb3_zip: also write SB3's own ``model.zip`` (for tools that read it; loading it runs
            pickled code, so arena never does).
        details: more manifest keys to record (``command``, ``seed``, ``versions``, ``timesteps``).

    Raises:
        ValueError: a policy argument JSON cannot hold (such as a function); nothing is written.

    Example::

        save_trained_agent("runs/c4", model, algo="maskable-ppo", env="connect_four", env_options={},
                           interface=None)
    """
    from arena.training.weights import (
        algo_options_of,
        describe_spaces,
        policy_description,
        save_optimizer,
        save_policy_weights,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    description = policy_description(model.policy, type(model))  # before any file: a ValueError writes nothing
    previous = named_files(folder)
    for partial in folder.glob(f".*{TEMP_SUFFIX}"):
        partial.unlink(missing_ok=True)  # left by a save that was killed
    model_name, model_sha = store_content_named(
        folder, "model", ".safetensors", lambda path: save_policy_weights(model.policy, path)
    )
    manifest: dict[str, Any] = {
        "format": "arena-agent",
        "format_version": FORMAT_VERSION,
        "algo": algo,
        "policy": description,
        "spaces": describe_spaces(model.policy.observation_space, model.policy.action_space),
        "model": model_name,
        "model_sha256": model_sha,
        "interface": interface,
        "interface_state": None,
        "env": env,
        "env_options": dict(env_options),
        "seats": list(seats) if seats else None,
        "timesteps": int(model.num_timesteps),
        "versions": _versions(),
        "training": None,
    }
    statistics = stack_statistics(trained_stack)
    if statistics:
        text = json.dumps(statistics) + "\n"
        name, sha = store_content_named(
            folder, "interface_state", ".json", lambda path: path.write_text(text, encoding="utf-8")
        )
        manifest["interface_state"], manifest["interface_state_sha256"] = name, sha
    if training_state:
        manifest["training"] = {"algo_options": algo_options_of(model), "optimizer": None}
    if training_state and optimizer_state:
        groups: list[Any] = []

        def optimizer(path: Path) -> None:
            groups.extend(save_optimizer(model.policy.optimizer, path))

        name, sha = store_content_named(folder, "optimizer", ".safetensors", optimizer)
        manifest["training"].update(optimizer=name, optimizer_sha256=sha, optimizer_groups=groups)
    if sb3_zip:
        write_atomic(folder / "model.zip", lambda path: model.save(str(path)))
        manifest["sb3_model"], manifest["sb3_model_sha256"] = "model.zip", model_digest(folder / "model.zip")
    if team_size is not None:
        manifest["team_size"] = int(team_size)
    manifest.update(details or {})
    path = write_atomic(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    kept = named_files(folder)
    stale = {path.name for path in folder.iterdir() if _CONTENT_NAMED.fullmatch(path.name)}
    for name in (previous | stale) - kept:
        (folder / name).unlink(missing_ok=True)
    return path


def store_content_named(folder: Path, stem: str, suffix: str, write: Any) -> tuple[str, str]:
    """Write a file through ``write(path)`` under a name of its content, atomically.

    The file is written to a temporary name, flushed, named ``stem-<12 hex of its SHA-256>suffix``
    by renaming, and the folder synced; a failure removes the temporary file.

    Args:
        folder: the trained folder.
        stem: the name's start (``"model"``, ``"optimizer"``, ``"interface_state"``).
        suffix: the name's end (``".safetensors"``, ``".json"``).
        write: called once with the temporary path to write.

    Returns:
        The file's name in ``folder`` and its SHA-256.
    """
    temporary = folder / f".{stem}{suffix}.{os.getpid()}{TEMP_SUFFIX}"
    try:
        write(temporary)
        finish_temporary(temporary)
        digest = model_digest(temporary)
        name = f"{stem}-{digest[:12]}{suffix}"
        os.replace(temporary, folder / name)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_folder(folder)
    return name, digest


def replace_weights(
    folder: Path,
    manifest: dict[str, Any],
    write_model: Any,
    *,
    statistics: Mapping[str, Any] | None = None,
    record: Mapping[str, Any] | None = None,
) -> str:
    """Give a trained folder new weights (and interface statistics) made outside ``arena train``.

    The tools that start a folder from elsewhere (``tools/warm_start.py``, ``tools/imitate.py``) call
    it: the new files are written content-named (:func:`store_content_named`), the optimizer's state
    is dropped (its moments belonged to the old weights; ``--load`` goes on with a fresh one), the
    manifest gets ``record``'s keys and is written last, and only then are the files it no longer
    names removed, so a kill at any moment leaves a folder that loads.

    Args:
        folder: the trained folder; ``manifest`` its manifest, as read.
        write_model: called with a path to write the safetensors weights to.
        statistics: the stack's statistics by level index (``None``: the folder's stay).
        record: more manifest keys (``warm_start``, ``imitation``).

    Returns:
        The new weights file's name.
    """
    old_files = [manifest["model"], (manifest.get("training") or {}).get("optimizer")]
    manifest["model"], manifest["model_sha256"] = store_content_named(folder, "model", ".safetensors", write_model)
    if statistics:
        old_files.append(manifest.get("interface_state"))
        text = json.dumps(statistics) + "\n"
        manifest["interface_state"], manifest["interface_state_sha256"] = store_content_named(
            folder, "interface_state", ".json", lambda path: path.write_text(text, encoding="utf-8")
        )
    if isinstance(manifest.get("training"), dict):
        manifest["training"] = {"algo_options": manifest["training"].get("algo_options"), "optimizer": None}
    manifest.update(record or {})
    write_atomic(folder / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    for name in old_files:  # after the manifest: a kill before it leaves the folder as it was
        if name and name not in (manifest["model"], manifest.get("interface_state")):
            (folder / name).unlink(missing_ok=True)
    return manifest["model"]


def _as_recorded(value: Any) -> Any:
    """``value`` as the manifest's JSON holds it: a tuple (ViZDoom's ``game_variables``) reads back as a list."""
    if isinstance(value, (tuple, list)):
        return [_as_recorded(item) for item in value]
    return value


def trained_elsewhere(manifest: Mapping[str, Any], env: Any) -> list[str]:
    """The options a trained agent recorded that ``env`` holds with another value, as ``"name=trained (here: value)"``.

    Only options the env keeps as an attribute of the same name are compared, and not its
    :attr:`~arena.env.MultiAgentEnv.training_options` (an episode's length, reward terms); the
    recorded options are first mapped to those of the match they enter
    (:meth:`~arena.env.MultiAgentEnv.match_options`: ViZDoom's lone player against bots, to the 2-player match).

    Example:
        >>> import envs
        >>> trained_elsewhere({"env_options": {"ball_spin": 3.0, "rounds": 5}}, envs.make("pong_2p"))
        ['ball_spin=3.0 (here: 6.0)']
    """
    game = getattr(env, "unwrapped", env)
    free: frozenset[str] = getattr(game, "training_options", frozenset())
    differences = []
    for name, trained in sorted(match_options_of(game, dict(manifest.get("env_options") or {})).items()):
        here = getattr(game, name, _MISSING) if name not in free and not name.startswith("_") else _MISSING
        if here is not _MISSING and not callable(here) and _as_recorded(here) != trained:
            differences.append(f"{name}={trained!r} (here: {here!r})")
    return differences


def warn_if_trained_elsewhere(folder: Path, manifest: Mapping[str, Any], env: Any) -> None:
    """Warn (``UserWarning``) when ``env`` differs from the game the agent in ``folder`` was trained on."""
    differences = trained_elsewhere(manifest, env)
    if differences:
        warnings.warn(
            printable(  # a manifest is data: its text is shown on stderr, never obeyed
                f"trained agent {folder.name!r} was trained on {manifest.get('env')} with options this env does "
                f"not have: {', '.join(differences)}; it plays, but not the game it learned"
            ),
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
    """The agent in a folder written by ``arena train``: its policy behind its interface stack.

    The policy is built for the spaces the env's first learner seat gives through the stack, and
    its weights are checked against it, so a folder loaded for the wrong env or without its
    interface fails here with one line rather than forfeiting games later.

    Args:
        path: the folder.
        env: the env the agent will play in (default: built from the manifest).
        deterministic: take the most likely legal action instead of sampling.
        device: the torch device to load onto.
        seed: seeds the agent's sampling.
        name: the name shown in tournaments (default: the folder's name).
        trust: let the manifest's env and interface names import ``module:callable`` code (else
            only registered names resolve), and load a version-1 folder, whose SB3 zip runs the
            pickled code it holds: only for folders from people you trust. Also true inside
            ``reading_data(..., trust=True)`` (``arena replay --trust`` on a file naming the folder).
        interface: the stack the folder must have (its manifest's ``interface``). A folder given
            as an entrant records it (see :meth:`arena.specs.AgentSpec.parse`), so that a replay
            shows what the model saw from registered names alone; a folder whose stack changed
            since is refused here.

    Raises:
        AgentFolderError: not a trained-agent folder, a broken manifest, a file whose SHA-256 is
            not the manifest's (the text says whether a save was interrupted), weights that do not
            fit the spaces, or a version-1 folder without ``trust``.
        UntrustedCodeError: the manifest names a ``module:callable`` and ``trust`` is false.
        ArenaError: the agent does not fit the env's seat.

    Example::

        agent = load_trained_agent("runs/c4")
    """
    from arena.training.policy_agent import SB3Agent

    folder = Path(path).resolve()
    manifest = read_manifest(folder)
    if interface is not None and interface != manifest.get("interface"):
        raise AgentFolderError(
            f"trained agent {str(folder)!r}: recorded behind {interface!r}, but its {MANIFEST} now names "
            f"{manifest.get('interface')!r}: the folder changed since; not loaded"
        )
    where = f"trained agent {str(folder)!r}"
    trust = trust or reading_trusted()  # a reader told to trust the file that names this folder
    if manifest["format_version"] < 2 and not trust:
        raise AgentFolderError(
            f"{where} is a format-1 folder: its {manifest['model']} is a Stable-Baselines3 zip, and loading one "
            "runs the pickled code it holds; if you trust whoever made it, convert it once (python -m "
            f"arena.training.convert {shlex.quote(str(folder))} --trust) or load it with trust=True (as an entrant: "
            f'arena.training:load_trained_agent{{"path": {json.dumps(str(folder))}, "trust": true}})'
        )
    stack = trained_interface(folder, manifest, trust=trust)
    model_file = check_digest(folder, manifest["model"], manifest.get("model_sha256"))
    if env is None:
        with reading_data(f"agent folder {str(folder)!r}", trust):
            probe = make_env(manifest["env"], **dict(manifest.get("env_options") or {}))
    else:
        probe = env
        warn_if_trained_elsewhere(folder, manifest, env)
    team_size = manifest.get("team_size")
    if team_size is not None:  # a model of a whole side: one agent per side, Tuple spaces
        from arena.teams import GroupTeams
        from arena.training.team_control import team_stack

        probe, stack = GroupTeams(probe), team_stack(stack, team_size)
    try:
        seat = (manifest.get("seats") or list(probe.possible_agents))[0]
        raw = (probe.observation_space(seat), probe.action_space(seat))
        try:
            policy = _policy(folder, manifest, model_file, stack, raw, device, trust)
            agent = SB3Agent(policy, deterministic=deterministic, seed=seed, name=name or folder.name)
            player = agent if stack is None else AgtItfWrapper(agent, stack)
            player.setup(*raw)
        except (AgentFolderError, UntrustedCodeError):
            raise
        except ArenaError as err:
            raise ArenaError(f"{where} does not fit {probe} seat {seat!r}: {err}") from None
    finally:
        if env is None:
            probe.close()
    return player


def _policy(
    folder: Path,
    manifest: Mapping[str, Any],
    model_file: Path,
    stack: Interface | None,
    raw: Any,
    device: str,
    trust: bool,
) -> Any:
    """The folder's SB3 policy, built for the spaces ``stack`` makes of the raw ones."""
    from arena.training.policy_agent import algorithm_class, as_sb3_sees

    if stack is not None:
        stack.setup(*raw)
        observation_space, action_space = stack.observation_space, stack.action_space
    else:
        observation_space, action_space = raw
    where = f"trained agent {str(folder)!r}"
    algo_class = algorithm_class(manifest["algo"])
    if manifest["format_version"] < 2:  # trusted: SB3's zip, with the spaces from the env
        from arena.training.sb3_zip import model_from_sb3_zip

        model = model_from_sb3_zip(model_file, algo_class, as_sb3_sees(observation_space), action_space, device)
        return model.policy
    from arena.training.weights import build_policy, describe_spaces, load_policy_weights

    trained, here = manifest.get("spaces"), describe_spaces(as_sb3_sees(observation_space), action_space)
    if isinstance(trained, dict) and trained.get("sha256") != here["sha256"]:
        raise SpaceMismatchError(
            f"the policy was trained on observations {trained.get('observation')} and actions {trained.get('action')}, "
            f"got {here['observation']} and {here['action']} (its interface is {manifest.get('interface')!r})"
        )
    with reading_data(f"agent folder {str(folder)!r}", trust):
        policy = build_policy(manifest["policy"], algo_class, as_sb3_sees(observation_space), action_space, where)
    load_policy_weights(policy, model_file, device, where)
    return policy


def restore_model(folder: str | Path, env: Any, *, device: str = "cpu", seed: int | None = None, **changes: Any) -> Any:
    """The folder's model, ready to go on training on ``env`` (a vectorised env): its policy's
    weights, optimizer state (a fresh optimizer where the folder keeps none, as a shipped agent),
    hyperparameters (``changes`` laid over them) and step count.

    Raises:
        AgentFolderError: as :func:`load_trained_agent`, or a folder saved only to play
            (``"training": null``) or of format 1 (convert it first).
    """
    from arena.training.policy_agent import algorithm_class
    from arena.training.weights import load_optimizer, load_policy_weights, training_model

    folder = Path(folder).resolve()
    manifest = read_manifest(folder)
    where = f"trained agent {str(folder)!r}"
    training = manifest.get("training")
    if manifest["format_version"] < 2:
        raise AgentFolderError(
            f"{where} is a format-1 folder (a Stable-Baselines3 zip); convert it first: "
            f"python -m arena.training.convert {shlex.quote(str(folder))} --trust"
        )
    if not isinstance(training, dict):
        raise AgentFolderError(f"{where} was saved to play only (no optimizer state); train a new folder from it")
    model_file = check_digest(folder, manifest["model"], manifest.get("model_sha256"))
    optimizer = training.get("optimizer")
    optimizer_file = optimizer and check_digest(folder, optimizer, training.get("optimizer_sha256"), "optimizer")
    algo_class = algorithm_class(manifest["algo"])
    with reading_data(f"agent folder {str(folder)!r}", False):
        model = training_model(algo_class, manifest["policy"], training, env, device, seed, changes, where)
    load_policy_weights(model.policy, model_file, device, where)
    if optimizer_file:  # else a fresh optimizer (a folder shipped without its optimizer's state)
        load_optimizer(model.policy.optimizer, optimizer_file, training.get("optimizer_groups"), where)
    model.num_timesteps = int(manifest.get("timesteps") or 0)
    return model
