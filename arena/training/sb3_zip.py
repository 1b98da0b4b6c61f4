"""Reading a Stable-Baselines3 zip, for the format-1 folders the user trusts.

An SB3 zip keeps its model's Python objects as pickles: :func:`model_from_sb3_zip` runs them.
It is called only behind trust (``load_trained_agent(..., trust=True)`` and
:mod:`arena.training.convert`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.errors import AgentFolderError, SpaceMismatchError

__all__ = ["model_from_sb3_zip"]


def model_from_sb3_zip(
    path: Path, algo_class: type[Any], observation_space: Any, action_space: Any, device: str
) -> Any:
    """The model in an SB3 zip (SB3's own ``load``; the spaces the caller gives stand in for those
    the zip lacks, and must equal those it has). **Runs the pickled code the zip holds.**

    Raises:
        AgentFolderError: a zip SB3 cannot read, or spaces that are not the zip's.
    """
    from stable_baselines3.common.save_util import load_from_zip_file

    spaces = {"observation_space": observation_space, "action_space": action_space}
    try:
        data, params, _ = load_from_zip_file(str(path), device=device)
    except (ValueError, OSError, KeyError) as err:
        raise AgentFolderError(f"{str(path)!r} is not a Stable-Baselines3 zip arena can read ({err})") from None
    if data is None or params is None:
        raise AgentFolderError(f"{str(path)!r} is not a Stable-Baselines3 zip (no model data or parameters)")
    for key, space in spaces.items():
        if data.setdefault(key, space) != space:
            raise SpaceMismatchError(
                f"{str(path)!r}: the policy was trained on {key.split('_')[0]}s {data[key]}, got {space}"
            )
    if isinstance(data.get("policy_kwargs"), dict):
        data["policy_kwargs"].pop("device", None)
    model = algo_class(policy=data["policy_class"], env=None, device=device, _init_setup_model=False)
    model.__dict__.update(data)
    model._setup_model()
    try:
        model.set_parameters(params, exact_match=True, device=device)
    except (RuntimeError, ValueError) as err:
        first = " ".join(str(err).split())[:300]
        raise AgentFolderError(f"{str(path)!r}: its weights do not fit the env's spaces ({first})") from None
    return model
