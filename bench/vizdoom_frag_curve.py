"""A ViZDoom learner's frags against the built-in bots, per checkpoint: Arena's Fig. 13 shape.

Each checkpoint folder (oldest first; ``arena train`` in segments, ``--load`` one ``--out`` the
next) plays ``--matches`` matches alone against 3 built-in bots on seeds derived from ``--seed``
(not the training seeds); a scripted agent (``vizdoom_aim``) can stand in for a folder. Every entrant
plays the same matches: ``--env-options``, else the first folder's options, alone against the bots. Per match it records the learner's frags and each bot's
(the env's ``bot_frags``); the table gives the learner's mean frags, the bots' mean and the mean
per-match difference with its 95% interval (Student's t), and the picture draws both over the
steps each checkpoint learned from: its PPO steps plus its DAgger samples (``tools/imitate.py``'s
``--snapshots`` keeps a checkpoint per round).

Run::

    python bench/vizdoom_frag_curve.py runs/doom-1 runs/doom-2 --matches 20 --seed 100 --out doom_frags.png
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

import envs
from arena import play
from arena.agents.base import Agent, ForwardingAgent
from arena.registry import make_agent
from arena.seeding import derive_seed
from arena.training.report import write_csv
from arena.training.trained import load_trained_agent, read_manifest
from envs.vizdoom.recipe import FAST_OPTIONS


class FinalInfo(ForwardingAgent):
    """Plays as ``inner`` and keeps the info of each match's end (the frags)."""

    def __init__(self, inner: Agent) -> None:
        super().__init__(inner)
        self.final: dict[str, Any] = {}

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.final = dict(info)
        super().done(reward, info)


def match_options(entrants: list[str], env_options: dict[str, Any] | None) -> dict[str, Any]:
    """The matches every entrant plays: ``env_options``, else the first folder's, else the fast mode's with the
    labels; always alone (``players=1``) against bots (3 unless the options say)."""
    folders = [Path(entrant) for entrant in entrants if Path(entrant).is_dir()]
    if env_options is not None:
        options = dict(env_options)
    elif folders:
        options = dict(read_manifest(folders[0]).get("env_options") or {})
    else:
        options = dict(FAST_OPTIONS, enemies=True)
    options.update(players=1, bots=options.get("bots") or 3)
    return options


def frags(entrant: str, matches: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One row: ``entrant`` (a folder or an agent name) in ``matches`` matches of ``options``."""
    folder = Path(entrant)
    if folder.is_dir():
        manifest = read_manifest(folder)
        agent, timesteps, samples = load_trained_agent(folder), int(manifest.get("timesteps", 0)), imitated(manifest)
    else:
        agent, timesteps, samples = make_agent(entrant), 0, 0
    env = envs.make("vizdoom_deathmatch", **options)
    player = FinalInfo(agent)
    own, bots = [], []
    try:
        for match in range(matches):
            play(env, [player], seed=derive_seed(seed, match))
            own.append(player.final["frags"])
            bots.append(float(np.mean(player.final["bot_frags"])))
    finally:
        env.close()
    difference = np.asarray(own, float) - np.asarray(bots)
    half = stats.t.ppf(0.975, matches - 1) * difference.std(ddof=1) / math.sqrt(matches) if matches > 1 else math.inf
    return {
        "entrant": entrant,
        "timesteps": timesteps,
        "samples": samples,
        "matches": matches,
        "frags": float(np.mean(own)),
        "bots_mean": float(np.mean(bots)),
        "difference": float(difference.mean()),
        "low": float(difference.mean() - half),
        "high": float(difference.mean() + half),
    }


def imitated(manifest: dict[str, Any]) -> int:
    """The DAgger samples a folder's last ``tools/imitate.py`` run fit it to (0 for a folder never imitated)."""
    record = manifest.get("imitation")
    return int(record.get("samples", 0)) if isinstance(record, dict) else 0


def plot(rows: list[dict[str, Any]], out: Path) -> None:
    """Frags per match over training steps, the learner's and the bots' mean."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    trained = [r for r in rows if r["timesteps"] > 0 or Path(r["entrant"]).is_dir()]
    steps = [(r["timesteps"] + r["samples"]) / 1e6 for r in trained]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.errorbar(
        steps,
        [r["frags"] for r in trained],
        yerr=[[r["difference"] - r["low"] for r in trained], [r["high"] - r["difference"] for r in trained]],
        marker="o",
        capsize=3,
        label="learner (bars: 95% interval of learner - bots)",
    )
    ax.plot(steps, [r["bots_mean"] for r in trained], marker="s", linestyle="--", label="built-in bots' mean")
    for row in rows:
        if row not in trained:
            ax.axhline(row["frags"], color="grey", linewidth=1, linestyle=":", label=f"{row['entrant']}")
    ax.set_xlabel("steps learned from: PPO steps + DAgger samples (millions)")
    ax.set_ylabel("frags per match")
    ax.set_title(f"Alone against 3 bots, {rows[0]['matches']} matches per point")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("entrants", nargs="+", help="checkpoint folders (oldest first) or agent names")
    parser.add_argument("--matches", type=int, default=20, help="matches per entrant")
    parser.add_argument("--seed", type=int, default=100, help="seed of the matches (not a training seed)")
    parser.add_argument("--env-options", type=json.loads, default=None, help="JSON: the matches' options")
    parser.add_argument("--out", type=Path, default=Path("doom_frags.png"), help="the picture")
    parser.add_argument("--csv", type=Path, default=None, help="also write the rows as CSV")
    args = parser.parse_args()
    if args.matches < 2:
        parser.error(f"--matches must be at least 2 (an interval needs two matches), got {args.matches}")
    rows = []
    options = match_options(args.entrants, args.env_options)
    for entrant in args.entrants:
        row = frags(entrant, args.matches, args.seed, options)
        rows.append(row)
        print(
            f"{entrant}: {row['timesteps']:,} steps, {row['samples']:,} DAgger samples, frags {row['frags']:.2f} a match, bots' mean {row['bots_mean']:.2f}, "
            f"difference {row['difference']:+.2f} [{row['low']:+.2f}, {row['high']:+.2f}]",
            flush=True,
        )
    plot(rows, args.out)
    if args.csv:
        write_csv(rows, args.csv)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
