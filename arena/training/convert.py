"""Format-1 trained-agent folders (a Stable-Baselines3 zip) read under trust, and converted.

An SB3 zip keeps its model's Python objects as pickles, so loading one runs code from the file:
arena reads one only when the user says they trust it (``load_trained_agent(..., trust=True)``,
or this module's command line with ``--trust``). :func:`convert_folder` loads it once that way
and writes the folder again in format 2 (weights as safetensors, the rest as JSON), which loads
without running anything from the folder.

The spaces come from the env and the interface stack: a zip that lacks its spaces loads and
converts as well as one that has them, whose spaces must be the same.

Usage::

    python -m arena.training.convert runs/c4 --trust
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from arena.errors import AgentFolderError, ArenaError
from arena.training.sb3_zip import model_from_sb3_zip

__all__ = ["convert_folder", "main"]


def convert_folder(
    folder: str | Path, *, keep_zip: bool = False, training_state: bool = True, optimizer_state: bool = True
) -> Path:
    """Rewrite a format-1 folder (SB3 zip) in format 2; return the manifest's path.

    **Loads the zip, which runs the pickled code it holds**: call it only on folders you trust.
    The manifest keeps its env, interface, seats, steps, versions, command and seed; the
    interface statistics are carried over; the zip is removed unless ``keep_zip``;
    ``training_state`` and ``optimizer_state`` as :func:`~arena.training.trained.save_trained_agent`.

    Raises:
        AgentFolderError: not a format-1 folder, or one that does not load.
    """
    from arena.registry import make_env
    from arena.teams import GroupTeams
    from arena.training.policy_agent import algorithm_class, as_sb3_sees
    from arena.training.team_control import team_stack
    from arena.training.trained import check_digest, read_manifest, save_trained_agent, trained_interface

    folder = Path(folder).resolve()
    manifest = read_manifest(folder)
    if manifest["format_version"] != 1:
        raise AgentFolderError(f"trained agent {str(folder)!r} is already format {manifest['format_version']}")
    zip_file = check_digest(folder, manifest["model"], manifest.get("model_sha256"))
    stack = trained_interface(folder, manifest, frozen=False, trust=True)
    env = make_env(manifest["env"], **dict(manifest.get("env_options") or {}))
    team_size = manifest.get("team_size")
    member_stack = stack
    if team_size is not None:
        env, stack = GroupTeams(env), team_stack(stack, team_size)
    try:
        seat = (manifest.get("seats") or list(env.possible_agents))[0]
        raw = (env.observation_space(seat), env.action_space(seat))
        observation_space, action_space = raw
        if stack is not None:
            stack.setup(*raw)
            observation_space, action_space = stack.observation_space, stack.action_space
    finally:
        env.close()
    model = model_from_sb3_zip(
        zip_file, algorithm_class(manifest["algo"]), as_sb3_sees(observation_space), action_space, "cpu"
    )
    kept: dict[str, Any] = {
        key: manifest[key] for key in ("versions", "timesteps", "command", "seed") if key in manifest
    }
    return save_trained_agent(
        folder,
        model,
        algo=manifest["algo"],
        env=manifest["env"],
        env_options=manifest.get("env_options") or {},
        interface=manifest.get("interface"),
        trained_stack=member_stack if team_size is None else None,
        seats=manifest.get("seats"),
        team_size=team_size,
        training_state=training_state,
        optimizer_state=optimizer_state,
        sb3_zip=keep_zip,
        details=kept,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.training.convert",
        description="Rewrite format-1 trained-agent folders (a Stable-Baselines3 zip, which runs pickled code "
        "when loaded) as format 2 (safetensors weights and JSON), which loads without running anything.",
    )
    parser.add_argument("folders", nargs="+", type=Path, help="the folders to convert")
    parser.add_argument(
        "--trust", action="store_true", help="required: converting loads the zip, which runs the code it holds"
    )
    parser.add_argument("--keep-zip", action="store_true", help="keep SB3's model.zip beside the new files")
    parser.add_argument(
        "--play-only", action="store_true", help="leave out the optimizer state (the folder plays, cannot --load)"
    )
    args = parser.parse_args(argv)
    if not args.trust:
        print(
            "convert: converting loads each folder's Stable-Baselines3 zip, which runs the pickled code it holds; "
            "pass --trust if you trust whoever made these folders",
            file=sys.stderr,
        )
        return 2
    for folder in args.folders:
        try:
            manifest = convert_folder(folder, keep_zip=args.keep_zip, training_state=not args.play_only)
        except ArenaError as err:
            print(f"convert: {err}", file=sys.stderr)
            return 1
        print(f"converted {folder} ({manifest.name} format 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
