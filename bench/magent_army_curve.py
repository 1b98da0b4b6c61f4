"""The learning curve of an army trained in segments: each checkpoint folder against a scripted army.

``arena train magent_battle`` evaluates during training on its training battles (cut at the
recipe's 300 steps); this plays each saved checkpoint in full-length battles (MAgent2's 1,000
steps, the tournament's) with :func:`arena.training.matches.match_sides` (each side's agent acts
for all its soldiers at once), seats alternating, and draws the score per checkpoint.

Run::

    python bench/magent_army_curve.py runs/army_ckpt_1 runs/army_ckpt_2 runs/army --battles 10 --out curve.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import envs
from arena.registry import make_agent
from arena.training.matches import match_sides
from arena.training.report import write_csv
from arena.training.trained import load_trained_agent, read_manifest


def curve(folders: list[Path], opponent: str, battles: int, seed: int, env_options: dict) -> list[dict]:
    """One row per folder: its timesteps and its score, wins and draws against ``opponent``."""
    env = envs.make("magent_battle", **env_options)
    rows = []
    for folder in folders:
        score = match_sides(env, load_trained_agent(folder), make_agent(opponent), battles, seed=seed)
        timesteps = int(read_manifest(folder)["timesteps"])
        rows.append({"folder": str(folder), "timesteps": timesteps, "score": score.score, "wins": score.wins})
        rows[-1]["draws"] = score.draws
        print(f"{folder}: {timesteps:,} steps, score {score.score:.2f} ({score.wins}-{score.draws}-{score.losses})")
    return rows


def plot(rows: list[dict], opponent: str, battles: int, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([r["timesteps"] / 1e6 for r in rows], [r["score"] for r in rows], marker="o")
    ax.axhline(0.7, color="grey", linestyle="--", linewidth=1, label="the bar (0.7)")
    ax.set_xlabel("soldier-steps trained (millions)")
    ax.set_ylabel(f"score vs {opponent}")
    ax.set_ylim(-0.05, 1.05)
    ax.set_title(f"{battles} full battles (1,000 steps) per checkpoint, seats alternating")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="checkpoint folders, oldest first")
    parser.add_argument("--opponent", default="magent_attack_nearest")
    parser.add_argument("--battles", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("magent_army_curve.png"))
    parser.add_argument("--csv", type=Path, default=None, help="also write the rows here")
    parser.add_argument("--env-options", default="{}", help="JSON options of the battles (default: MAgent2's own)")
    args = parser.parse_args()
    rows = curve(args.folders, args.opponent, args.battles, args.seed, json.loads(args.env_options))
    plot(rows, args.opponent, args.battles, args.out)
    if args.csv is not None:
        write_csv(rows, args.csv)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
