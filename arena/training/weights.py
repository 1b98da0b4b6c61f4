"""A Stable-Baselines3 model as tensors and JSON: what a trained-agent folder keeps, with no pickle.

A policy is its class (SB3's alias, ``"MlpPolicy"``, or ``{"$class": "module:Class"}``), its
constructor arguments as JSON (classes such as ``activation_fn`` or a features extractor written
``{"$class": "module:Class"}``) and its weights in a safetensors file. The spaces are not stored:
the loader takes them from the env and the interface stack, as the model saw them in training.
To go on training, the folder also keeps the optimizer's tensors (another safetensors file), its
parameter groups and the algorithm's hyperparameters as JSON.

Reading runs no code from the folder: safetensors holds only tensors, and every class a JSON
entry names is imported only from torch, Stable-Baselines3, sb3-contrib or a package that
declares arena entry points (code the user installed), and must be a torch module or optimizer;
any other name needs the user's trust (:func:`arena.registry.reading_data`).

This module imports torch and safetensors when it is imported (the ``train`` extra).
"""

from __future__ import annotations

import hashlib
import inspect
import math
import warnings
from collections.abc import Mapping
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from arena.errors import AgentFolderError, InvalidValueError
from arena.registry import load_callable

try:
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import load_file, load_model, save_file
except ImportError as err:  # pragma: no cover - the train extra brings both
    raise ImportError(
        f"trained-agent folders need torch and safetensors ({err}); install the 'train' extra: "
        "pip install 'arena-marl[train]'"
    ) from err

__all__ = [
    "policy_description",
    "algo_options_of",
    "build_policy",
    "PlayOnlyOptimizer",
    "training_model",
    "save_policy_weights",
    "load_policy_weights",
    "save_optimizer",
    "load_optimizer",
    "describe_spaces",
    "CLASS_KEY",
]

#: The JSON key that names a class: ``{"$class": "torch.nn.modules.activation:Tanh"}``.
CLASS_KEY = "$class"
_LIBRARIES = frozenset({"torch", "stable_baselines3", "sb3_contrib"})
# Constructor arguments that are not hyperparameters: the run's env, logging, the device, the seed.
_NOT_HYPERPARAMETERS = frozenset(
    {
        "self",
        "policy",
        "env",
        "policy_kwargs",
        "verbose",
        "seed",
        "device",
        "tensorboard_log",
        "stats_window_size",
        "_init_setup_model",
        "rollout_buffer_class",
        "rollout_buffer_kwargs",
        "replay_buffer_class",
        "replay_buffer_kwargs",
    }
)
_SPACES = ("observation_space", "action_space", "lr_schedule")
# What SB3 raises for constructor arguments it cannot use (SB3 checks some with assert).
_BUILD_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, AssertionError, RuntimeError)


def _class_name(value: type) -> str:
    return f"{value.__module__}:{value.__qualname__}"


def _to_json(value: Any, where: str) -> Any:
    """``value`` as JSON data: classes as ``{"$class": ...}``, tuples as lists; anything else refused."""
    if isinstance(value, type):
        return {CLASS_KEY: _class_name(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidValueError(f"{where} is {value!r}, which JSON cannot hold")
        return value
    if isinstance(value, (list, tuple)):
        return [_to_json(item, f"{where}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        return {key: _to_json(item, f"{where}[{key!r}]") for key, item in value.items()}
    raise InvalidValueError(f"{where} is a {type(value).__name__}, which a trained folder cannot store as JSON")


@lru_cache(maxsize=1)
def _installed_roots() -> frozenset[str]:
    """The top-level packages whose classes a folder may name: SB3's, torch's, and those of every
    package that declares arena entry points (arena itself, plugins): code the user installed."""
    roots = set(_LIBRARIES)
    for distribution in metadata.distributions():
        for entry_point in distribution.entry_points:
            if entry_point.group.startswith("arena."):
                roots.add(entry_point.value.split(":")[0].split(".")[0].strip())
    return frozenset(roots)


def _from_json(value: Any, where: str) -> Any:
    """JSON data back to constructor arguments: ``{"$class": ...}`` resolved (see :func:`resolve_class`)."""
    if isinstance(value, dict):
        if set(value) == {CLASS_KEY}:
            return resolve_class(value[CLASS_KEY], where)
        return {key: _from_json(item, f"{where}[{key!r}]") for key, item in value.items()}
    if isinstance(value, list):
        return [_from_json(item, f"{where}[{index}]") for index, item in enumerate(value)]
    return value


def resolve_class(name: Any, where: str) -> type:
    """The class a folder names, imported only from an installed library or arena plugin.

    Raises:
        AgentFolderError: not ``"module:Class"`` text, not a class, or not a torch module or optimizer.
        UntrustedCodeError: a module outside torch, SB3 and arena's plugins, unless trusted.
    """
    if not isinstance(name, str) or ":" not in name:
        raise AgentFolderError(f"{where} must name a class as 'module:Class', got {name!r}")
    root = name.split(":")[0].split(".")[0]
    found = load_callable(name) if root not in _installed_roots() else _import_installed(name, where)
    if not (isinstance(found, type) and issubclass(found, (torch.nn.Module, torch.optim.Optimizer))):
        raise AgentFolderError(f"{where} names {name!r}, which is not a torch module or optimizer class")
    return found


def _import_installed(name: str, where: str) -> Any:
    from arena.registry import _import

    try:
        return _import(name)
    except Exception as err:  # noqa: BLE001 - an unknown name is a broken folder, said in one line
        raise AgentFolderError(f"{where} names {name!r}, which cannot be imported ({err})") from None


def policy_description(policy: Any, algo_class: type[Any]) -> dict[str, Any]:
    """The policy's class and constructor arguments as JSON (spaces and learning-rate schedule left out).

    Raises:
        ValueError: an argument JSON cannot hold (the folder then cannot be written).
    """
    aliases = getattr(algo_class, "policy_aliases", {})
    alias = next((name for name, cls in aliases.items() if cls is type(policy)), None)
    arguments = {key: value for key, value in policy._get_constructor_parameters().items() if key not in _SPACES}
    return {
        "class": alias or {CLASS_KEY: _class_name(type(policy))},
        "kwargs": _to_json(arguments, "the policy's argument"),
    }


def algo_options_of(model: Any) -> dict[str, Any]:
    """The model's hyperparameters as JSON, as its algorithm's constructor takes them back.

    Schedules (``learning_rate``, ``clip_range``) are kept as their value at the model's current
    progress, with a warning when they were not constant; values JSON cannot hold are left out.
    """
    options: dict[str, Any] = {}
    progress = float(getattr(model, "_current_progress_remaining", 1.0))
    for name in inspect.signature(type(model).__init__).parameters:
        if name in _NOT_HYPERPARAMETERS or not hasattr(model, name):
            continue
        value = getattr(model, name)
        if callable(value):
            start, now = float(value(1.0)), float(value(progress))
            if start != now:
                warnings.warn(
                    f"{name} is a schedule; the folder keeps its current value {now} (training on continues with it)",
                    UserWarning,
                    stacklevel=3,
                )
            value = now
        elif name == "train_freq" and hasattr(value, "unit"):  # DQN's TrainFreq(frequency, unit)
            value = [int(value.frequency), str(value.unit.value)]
        elif name == "target_update_interval":  # DQN divides it by the number of envs when it builds
            value = int(value) * int(getattr(model, "n_envs", 1) or 1)
        try:
            options[name] = _to_json(value, name)
        except ValueError:
            continue
    return options


class PlayOnlyOptimizer:
    """The optimizer of a policy built to act (:func:`build_policy`): it holds nothing and cannot step.

    An SB3 policy builds its optimizer with its layers, and torch's first optimizer in a process
    imports ``torch._dynamo`` (about 2.5 s of CPU): with this one, a process that only plays (a
    tournament's worker) never does. :func:`training_model` builds the real one.

    Example:
        >>> from envs.shipped import shipped_folder
        >>> from arena.training import load_trained_agent
        >>> type(load_trained_agent(shipped_folder("pong_ppo")).agent.policy.optimizer).__name__
        'PlayOnlyOptimizer'
    """

    def __init__(self, params: Any, **options: Any) -> None:
        self.param_groups: list[dict[str, Any]] = []

    def zero_grad(self, set_to_none: bool = True) -> None:
        self.step()

    def step(self, closure: Any = None) -> None:
        raise InvalidValueError(
            "this policy was loaded to play (load_trained_agent): it has no optimizer; "
            "arena.training.trained.restore_model loads a folder to train on"
        )


def build_policy(
    description: Mapping[str, Any], algo_class: type[Any], observation_space: Any, action_space: Any, where: str
) -> Any:
    """The policy a description gives, built for the spaces the env and interface stack give, to act:
    its optimizer is a :class:`PlayOnlyOptimizer`.

    Raises:
        AgentFolderError: an unknown policy alias, a class that is not an SB3 policy, or
            arguments the class does not take.
    """
    policy_class = _policy_class(description, algo_class, where)
    arguments = {**_policy_arguments(description, where), "optimizer_class": PlayOnlyOptimizer}
    try:
        policy = policy_class(observation_space, action_space, lambda _: 0.0, **arguments)
    except _BUILD_ERRORS as err:  # arguments from data that the class cannot take, in one line
        raise AgentFolderError(
            f"{where}: policy {policy_class.__name__} does not take its stored arguments ({err})"
        ) from None
    policy.set_training_mode(False)
    return policy


def _policy_class(description: Mapping[str, Any], algo_class: type[Any], where: str) -> type[Any]:
    from stable_baselines3.common.policies import BasePolicy

    named = description.get("class")
    if isinstance(named, str):
        aliases = getattr(algo_class, "policy_aliases", {})
        if named not in aliases:
            raise AgentFolderError(
                f"{where}: policy {named!r} is not one of {algo_class.__name__}'s ({', '.join(aliases)})"
            )
        policy_class = aliases[named]
    elif isinstance(named, dict):
        policy_class = _from_json(named, f"{where}: policy class")
    else:
        raise AgentFolderError(f"{where}: policy class must be an alias or {{{CLASS_KEY!r}: ...}}, got {named!r}")
    if not issubclass(policy_class, BasePolicy):
        raise AgentFolderError(f"{where}: policy class {_class_name(policy_class)} is not a Stable-Baselines3 policy")
    return policy_class


def _policy_arguments(description: Mapping[str, Any], where: str) -> dict[str, Any]:
    kwargs = description.get("kwargs") or {}
    if not isinstance(kwargs, dict):
        raise AgentFolderError(f"{where}: policy kwargs must be an object, got {type(kwargs).__name__}")
    return dict(_from_json(kwargs, f"{where}: policy argument"))


def training_model(
    algo_class: type[Any],
    description: Mapping[str, Any],
    training: Mapping[str, Any],
    env: Any,
    device: str,
    seed: int | None,
    changes: Mapping[str, Any],
    where: str,
) -> Any:
    """A fresh model of the stored policy and hyperparameters (``changes`` laid over them) on ``env``;
    its weights and optimizer state are loaded next.

    Raises:
        AgentFolderError: stored hyperparameters or policy arguments the algorithm does not take.
    """
    options = training.get("algo_options") or {}
    if not isinstance(options, dict):
        raise AgentFolderError(f"{where}: training.algo_options must be an object, got {type(options).__name__}")
    taken = inspect.signature(algo_class.__init__).parameters
    # Only hyperparameters, as plain JSON: a folder chooses no log folder, buffer class or policy here.
    refused = sorted(
        name
        for name, value in options.items()
        if name not in taken or name in _NOT_HYPERPARAMETERS or isinstance(value, dict)
    )
    if refused:
        raise AgentFolderError(
            f"{where}: training.algo_options holds {', '.join(map(repr, refused))}, which are not "
            f"{algo_class.__name__}'s hyperparameters"
        )
    options = {**options, **changes}
    if isinstance(options.get("train_freq"), list):
        options["train_freq"] = tuple(options["train_freq"])
    arguments = _policy_arguments(description, where)
    if "use_sde" in taken:  # the algorithm passes its own use_sde to the policy
        arguments.pop("use_sde", None)
    try:
        return algo_class(
            _policy_class(description, algo_class, where),
            env,
            device=device,
            seed=seed,
            verbose=0,
            policy_kwargs=arguments,
            **options,
        )
    except _BUILD_ERRORS as err:  # arguments from data that the class cannot take, in one line
        raise AgentFolderError(
            f"{where}: {algo_class.__name__} does not take the stored hyperparameters ({err})"
        ) from None


def save_policy_weights(policy: Any, path: Path) -> None:
    """Write the policy's weights to a safetensors file, a tensor shared between modules once (under
    its first name in sorted order, so the same weights give the same bytes, and the same file name)."""
    state = policy.state_dict()
    tensors, seen = {}, set()
    for key in sorted(state):
        tensor = state[key]
        identity = (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape))
        if identity not in seen:
            seen.add(identity)
            tensors[key] = tensor.detach().cpu().contiguous()
    save_file(tensors, str(path), metadata={"format": "pt"})


def load_policy_weights(policy: Any, path: Path, device: str, where: str) -> None:
    """Load weights into ``policy``, checking names and shapes first.

    Raises:
        AgentFolderError: not a safetensors file, or weights that do not fit the policy (one line:
            the first few names or shapes that differ).
    """
    try:
        stored = load_file(str(path), device="cpu")
    except (SafetensorError, OSError, ValueError) as err:
        raise AgentFolderError(f"{where}: {path.name} is not a readable safetensors file ({err})") from None
    expected = policy.state_dict()
    wrong = [
        f"{key} {tuple(tensor.shape)} (expected {tuple(expected[key].shape)})"
        for key, tensor in stored.items()
        if key in expected and tuple(tensor.shape) != tuple(expected[key].shape)
    ]
    unknown = sorted(set(stored) - set(expected))
    if wrong or unknown:
        detail = "; ".join([*wrong[:3], *(f"no weight {key!r} in the policy" for key in unknown[:3])])
        raise AgentFolderError(f"{where}: {path.name} does not fit the policy built for these spaces: {detail}")
    try:
        load_model(policy, str(path), strict=True, device=device)
    except RuntimeError as err:
        first = str(err).strip().splitlines()
        raise AgentFolderError(
            f"{where}: {path.name} does not fit the policy built for these spaces: {' '.join(first)[:300]}"
        ) from None
    policy.to(device)


def save_optimizer(optimizer: Any, path: Path) -> list[dict[str, Any]]:
    """Write the optimizer's tensors to a safetensors file; return its parameter groups as JSON."""
    state = optimizer.state_dict()
    tensors: dict[str, Any] = {}
    for index, values in state["state"].items():
        for name, value in values.items():
            tensor = value if isinstance(value, torch.Tensor) else torch.tensor(value)
            tensors[f"{index}.{name}"] = tensor.detach().cpu().contiguous().clone()
    save_file(tensors, str(path))
    return [_to_json(group, "the optimizer's parameter group") for group in state["param_groups"]]


def load_optimizer(optimizer: Any, path: Path, groups: Any, where: str) -> None:
    """Load an optimizer's state written by :func:`save_optimizer`.

    Raises:
        AgentFolderError: unreadable tensors, or groups that do not fit the optimizer.
    """
    try:
        tensors = load_file(str(path), device="cpu")
    except (SafetensorError, OSError, ValueError) as err:
        raise AgentFolderError(f"{where}: {path.name} is not a readable safetensors file ({err})") from None
    state: dict[int, dict[str, Any]] = {}
    for key, tensor in tensors.items():
        index, _, name = key.partition(".")
        if not index.isdigit() or not name:
            raise AgentFolderError(f"{where}: {path.name} holds {key!r}, not an optimizer state entry")
        state.setdefault(int(index), {})[name] = tensor
    try:
        optimizer.load_state_dict({"state": state, "param_groups": groups})
    except (ValueError, KeyError, TypeError) as err:
        raise AgentFolderError(f"{where}: the stored optimizer state does not fit the model ({err})") from None


def describe_spaces(observation_space: Any, action_space: Any) -> dict[str, str]:
    """The policy's spaces as JSON: their text (for messages) and a SHA-256 of every bound, shape
    and type in them, so a folder loaded behind another interface is caught though its weights'
    shapes would fit (a flattened 3x3 board and a 9-vector)."""
    digest = hashlib.sha256()
    for space in (observation_space, action_space):
        _fingerprint(space, digest)
    return {"observation": str(observation_space), "action": str(action_space), "sha256": digest.hexdigest()}


def _fingerprint(space: Any, digest: Any) -> None:
    from gymnasium import spaces

    digest.update(type(space).__name__.encode() + b"(")
    if isinstance(space, spaces.Box):
        digest.update(repr((space.shape, str(space.dtype))).encode())
        digest.update(space.low.tobytes() + space.high.tobytes())
    elif isinstance(space, (spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        for attribute in ("n", "nvec", "start"):
            if hasattr(space, attribute):
                digest.update(attribute.encode() + repr(getattr(space, attribute)).encode())
    elif isinstance(space, spaces.Dict):
        for key, part in space.spaces.items():
            digest.update(repr(key).encode())
            _fingerprint(part, digest)
    elif isinstance(space, spaces.Tuple):
        for part in space.spaces:
            _fingerprint(part, digest)
    else:
        digest.update(repr(space).encode())
    digest.update(b")")
