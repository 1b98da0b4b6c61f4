"""Start a trained-agent folder from another folder's weights where the two networks share their layers.

For a model whose spaces grew: the Pommerman radio team (24 planes, a move and two words) started from
the team agent (22 planes, a move). Every weight of the target folder's policy takes the source's
weight of the same name; where the target's is larger (more input planes, more action logits), the
source's values fill its leading part and the rest is zero, so the new inputs start ignored and the
new logits start equal (the words uniform). Buffers, the tensors named neither ``weight`` nor ``bias``,
are computed from the spaces (``PlanesCNN``'s plane scales), so they keep the target's values; but the
statistics normalisation layers learn (``running_mean``, ``running_var``) come from the source where
they fit, the rest of them the target's. The optimizer's state is dropped (its moments were the
target's own), so ``arena train --load`` goes on with a fresh optimizer. The manifest records where
the weights came from (``warm_start``: the source folder's name, its model's SHA-256 and its steps).

Usage::

    arena train pommerman --env-options '{"mode": "radio"}' --timesteps 4096 --seed 5 --self-play off --out rws
    python tools/warm_start.py envs/pommerman_trained/pommerman_team_ppo rws
    arena train pommerman --load rws --timesteps 500000 --seed 105 --self-play off
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from arena.agent_manifest import check_digest, read_manifest
from arena.errors import AgentFolderError
from arena.training.trained import replace_weights

_PARAMETER_ENDINGS = (".weight", ".bias")
_LEARNED_BUFFER_ENDINGS = (".running_mean", ".running_var")  # batch norm's statistics: learned, as weights are


def grown(source: Mapping[str, torch.Tensor], target: Mapping[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The target's tensors, each taken from the source's of the same name as far as it fits.

    Args:
        source: the trained weights, by name.
        target: the weights of the network to start, by name (their shapes are kept).

    Returns:
        A tensor for every name of ``target``.

    Raises:
        AgentFolderError: a name of ``target`` the source lacks, or a source tensor larger than the
            target's in some dimension, or of another number of dimensions.

    Example:
        >>> grown({"head.weight": torch.ones(2, 3)}, {"head.weight": torch.full((4, 3), 5.0)})["head.weight"][:, 0]
        tensor([1., 1., 0., 0.])
    """
    missing = sorted(set(target) - set(source))
    if missing:
        raise AgentFolderError(
            f"warm start: the source has no weights named {missing[:3]} (it has {sorted(source)[:6]})"
        )
    result = {}
    for name, into in target.items():
        weights = source[name]
        learned_buffer = name.endswith(_LEARNED_BUFFER_ENDINGS)
        if not (learned_buffer or name.endswith(_PARAMETER_ENDINGS)):  # a buffer made from the spaces: the target's
            result[name] = into.clone()
            continue
        if tuple(weights.shape) == tuple(into.shape):
            result[name] = weights.clone()
            continue
        if weights.dim() != into.dim() or any(s > t for s, t in zip(weights.shape, into.shape)):
            raise AgentFolderError(
                f"warm start: {name} is {tuple(weights.shape)} in the source and {tuple(into.shape)} in the target; "
                "expected the source's to fit inside the target's"
            )
        started = into.clone() if learned_buffer else torch.zeros_like(into)
        started[tuple(slice(0, size) for size in weights.shape)] = weights
        result[name] = started
    return result


def warm_start(source: Path, target: Path) -> Path:
    """Replace the weights of the trained folder ``target`` by :func:`grown` ones from ``source``.

    Returns:
        The new weights file in ``target``.
    """
    source_manifest, manifest = read_manifest(source), read_manifest(target)
    for folder, read in ((source, source_manifest), (target, manifest)):
        if read["format_version"] < 2:
            raise AgentFolderError(
                f"{folder} is a format-1 folder: python -m arena.training.convert {folder} --trust first"
            )
    source_file = check_digest(source.resolve(), source_manifest["model"], source_manifest.get("model_sha256"))
    target_file = check_digest(target.resolve(), manifest["model"], manifest.get("model_sha256"))
    tensors = grown(load_file(str(source_file)), load_file(str(target_file)))
    name = replace_weights(
        target,
        manifest,
        lambda path: save_file(
            {key: tensors[key].contiguous() for key in sorted(tensors)}, str(path), metadata={"format": "pt"}
        ),
        record={
            "warm_start": {
                "from": source.resolve().name,
                "model_sha256": source_manifest.get("model_sha256"),
                "timesteps": source_manifest.get("timesteps"),
            }
        },
    )
    written = target / name
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the trained folder whose weights start the target")
    parser.add_argument("target", type=Path, help="a folder arena train --out wrote for the new spaces")
    args = parser.parse_args()
    written = warm_start(args.source, args.target)
    print(f"{args.target}: weights from {args.source} ({written.name}); go on with arena train --load {args.target}")


if __name__ == "__main__":
    main()
