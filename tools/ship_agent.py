"""Copy a trained-agent folder into the package as a shipped agent (``envs/<game>_trained/<name>/``).

The shipped folder keeps what playing needs: the policy's weights (safetensors) and interface
statistics, with the manifest's SHA-256 of each, and the hyperparameters, but not the optimizer's
state (it matters only to go on training, and doubles the folder: a shipped agent keeps its
weights "a few MB at most"; ``arena train --load`` on a copy goes on with a fresh optimizer).
The manifest gets the command and the seed that trained it. The run's ``recipe.json``,
``evaluations.csv`` and ``learning_curve.png``, and ``tools/imitate.py``'s ``imitation.csv`` and
``imitation.png`` where it has them, are copied as they are. A format-1 run folder (an
SB3 zip) is converted first (``python -m arena.training.convert RUN --trust``). Registering the
name (``envs/shipped.py`` and the ``arena.agents`` entry points) stays a change you make by hand.

Usage::

    python tools/ship_agent.py runs/magent_a envs/magent_trained/magent_army_ppo \\
        --command "arena train magent_battle --timesteps 12000000 --seed 0 --out runs/magent_a" --seed 0
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from arena.atomic import write_atomic
from arena.errors import AgentFolderError
from arena.training.trained import MANIFEST, check_digest, read_manifest

_COPIED = ("recipe.json", "evaluations.csv", "learning_curve.png", "imitation.csv", "imitation.png")


def ship(run: Path, target: Path, command: str, seed: int) -> Path:
    """Write the shipped folder ``target`` from the trained folder ``run``; returns ``target``."""
    manifest = read_manifest(run)
    if manifest["format_version"] < 2:
        raise AgentFolderError(f"{run} is a format-1 folder: python -m arena.training.convert {run} --trust first")
    target.mkdir(parents=True, exist_ok=True)
    for key in ("model", "interface_state"):
        if manifest.get(key):
            source = check_digest(run.resolve(), manifest[key], manifest.get(f"{key}_sha256"), key)
            shutil.copyfile(source, target / manifest[key])
    for name in _COPIED:
        if (run / name).is_file():
            shutil.copyfile(run / name, target / name)
    if isinstance(manifest.get("training"), dict):  # hyperparameters kept; --load goes on with a fresh optimizer
        manifest["training"] = {"algo_options": manifest["training"].get("algo_options"), "optimizer": None}
    manifest.pop("sb3_model", None)
    manifest.pop("sb3_model_sha256", None)
    manifest["command"], manifest["seed"] = command, int(seed)
    write_atomic(target / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="the folder arena train --out wrote")
    parser.add_argument("target", type=Path, help="the package folder, e.g. envs/magent_trained/NAME")
    parser.add_argument("--command", required=True, help="the command that trained it")
    parser.add_argument("--seed", type=int, required=True, help="the seed in that command")
    args = parser.parse_args()
    folder = ship(args.run, args.target, args.command, args.seed)
    size = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    print(f"shipped {args.run} as {folder} ({size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
