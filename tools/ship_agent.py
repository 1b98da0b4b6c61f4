"""Copy a trained-agent folder into the package as a shipped agent (``envs/<game>_trained/<name>/``).

The model is saved again without the optimiser's running moments (they matter only to go on
training, and double the file: a shipped agent keeps its weights "a few MB at most"); the
manifest gets the new file's SHA-256, the command and the seed that trained it. The run's
``recipe.json``, ``evaluations.csv`` and ``learning_curve.png`` are copied as they are.
Registering the name (``envs/shipped.py`` and the ``arena.agents`` entry points) stays a change
you make by hand.

Usage::

    python tools/ship_agent.py runs/magent_a envs/magent_trained/magent_army_ppo \\
        --command "arena train magent_battle --timesteps 12000000 --seed 0 --out runs/magent_a" --seed 0
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
from pathlib import Path

from arena.training.policy_agent import algorithm_class
from arena.training.trained import read_manifest

_COPIED = ("recipe.json", "evaluations.csv", "learning_curve.png")


def ship(run: Path, target: Path, command: str, seed: int) -> Path:
    """Write the shipped folder ``target`` from the trained folder ``run``; returns ``target``."""
    manifest = read_manifest(run)
    algo = algorithm_class(manifest["algo"])
    model = algo.load(str(run / manifest["model"]), device="cpu")
    policy = model.policy
    policy.optimizer = type(policy.optimizer)(policy.parameters(), **policy.optimizer.defaults)
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        saved = Path(scratch) / "model.zip"
        model.save(str(saved))
        shutil.copyfile(saved, target / "model.zip")
    for name in _COPIED:
        if (run / name).is_file():
            shutil.copyfile(run / name, target / name)
    manifest["model"] = "model.zip"
    manifest["model_sha256"] = hashlib.sha256((target / "model.zip").read_bytes()).hexdigest()
    manifest["command"], manifest["seed"] = command, int(seed)
    (target / "agent.json").write_text(json.dumps(manifest, indent=2) + "\n")
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
