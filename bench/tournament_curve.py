"""The learning curve of a run trained in segments, judged by the tournament that states its bar.

A run's own evaluations (``evaluations.csv``) play few games, so their scores swing by more than
what a segment of training changes. This enters each checkpoint folder in an ``arena tournament``
against one opponent (duplicate, seat-swapped games, the tournament's seed: the command a reader
reruns) and draws the score with its 95% interval against the learner steps of each folder.

Run::

    python bench/tournament_curve.py pommerman --env-options '{"mode": "team"}' \\
        --entrant 'ppo={folder}+{folder}' --opponent 'simple=pommerman_simple+pommerman_simple' \\
        --games 200 --bar 0.6 --out curve.png --csv curve.csv runs/pm_ckpt_1 runs/pm_ckpt_2 runs/pm

Each folder's row is printed as it is played, with the exact tournament command. Rows played
earlier (``--csv`` files of several calls, e.g. one per checkpoint as a run goes on) are drawn
together, without playing again, with ``--from-csv a.csv b.csv``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from arena.training.report import read_csv, write_csv
from arena.training.trained import read_manifest


def tournament_command(args: argparse.Namespace, folder: Path, export: Path | None = None) -> list[str]:
    """The ``arena tournament`` command that plays ``folder`` (through ``--entrant``) against the opponent."""
    entrant = args.entrant.format(folder=folder)
    command = ["arena", "tournament", args.env, "--agents", f"{entrant},{args.opponent}"]
    command += ["--games", str(args.games), "--seed", str(args.seed), "--workers", str(args.workers)]
    if args.env_options != "{}":
        command += ["--env-options", args.env_options]
    if export is not None:
        command += ["--export", str(export), "--progress", "none"]
    return command


def score_row(args: argparse.Namespace, folder: Path) -> dict:
    """Play ``folder``'s tournament; its learner steps, score, interval and W-D-L."""
    with tempfile.TemporaryDirectory() as scratch:
        export = Path(scratch) / "games.json"
        command = tournament_command(args, folder, export)
        subprocess.run([sys.executable, "-m", "arena", *command[1:]], check=True, stdout=subprocess.DEVNULL)
        pairing = json.loads(export.read_text())["pairings"][0]
    row = {"folder": str(folder), "timesteps": int(read_manifest(folder)["timesteps"])}
    row.update({key: pairing[key] for key in ("score", "score_low", "score_high", "wins", "draws", "losses")})
    return row


def plot(rows: list[dict], args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [row["timesteps"] / 1e6 for row in rows]
    scores = [row["score"] for row in rows]
    errors = [
        [s - row["score_low"] for s, row in zip(scores, rows)],
        [row["score_high"] - s for s, row in zip(scores, rows)],
    ]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(steps, scores, yerr=errors, marker="o", capsize=3)
    if args.bar is not None:
        ax.axhline(args.bar, color="grey", linestyle="--", linewidth=1, label=f"the bar ({args.bar})")
        ax.legend(loc="lower right")
    ax.axhline(0.5, color="lightgrey", linewidth=1)
    ax.set_xlabel("learner steps trained (millions)")
    ax.set_ylabel(f"score vs {args.opponent.split('=')[0]}")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"{args.env}: {args.games}-game tournaments (seed {args.seed}), 95% intervals", fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env")
    parser.add_argument("folders", nargs="*", type=Path, help="checkpoint folders, oldest first")
    parser.add_argument("--env-options", default="{}")
    parser.add_argument("--entrant", default="{folder}", help="the entrant spec, {folder} standing for each folder")
    parser.add_argument("--opponent", required=True, help="the other entrant, as --agents takes it")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bar", type=float, default=None, help="draw this score as the bar")
    parser.add_argument("--out", type=Path, default=Path("tournament_curve.png"))
    parser.add_argument("--csv", type=Path, default=None, help="also write the rows here")
    parser.add_argument("--from-csv", type=Path, nargs="+", default=[], help="draw these rows too, not played again")
    args = parser.parse_args()
    if not args.folders and not args.from_csv:
        parser.error("give checkpoint folders to play, or --from-csv rows to draw")
    rows = [row for path in args.from_csv for row in read_csv(path, text=("folder",))]
    for folder in args.folders:
        rows.append(score_row(args, folder))
        row = rows[-1]
        print(
            f"{folder}: {row['timesteps']:,} steps, score {row['score']:.2f} "
            f"[{row['score_low']:.2f}-{row['score_high']:.2f}] ({row['wins']}-{row['draws']}-{row['losses']}): "
            + " ".join(shlex.quote(part) for part in tournament_command(args, folder)),
            flush=True,
        )
    rows.sort(key=lambda row: row["timesteps"])
    plot(rows, args)
    if args.csv is not None:
        write_csv(rows, args.csv)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
