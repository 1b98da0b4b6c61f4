"""Draw docs/images/layers.svg, the map of arena's layers: ``python docs/images/layers.py``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after choosing the file-only backend
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

# Bottom to top: each layer imports only the layers under it.
LAYERS = [
    (
        "foundations",
        "#e8e8e8",
        [
            "errors.py\nevery ArenaError",
            "seeding.py",
            "masks.py",
            "text.py,\natomic.py",
            "suggest.py,\nworking_folder.py",
        ],
    ),
    (
        "contracts",
        "#dbe9f6",
        [
            "env.py, actions.py\nMultiAgentEnv,\ncapabilities",
            "interface.py\nInterface, Combine",
            "stack.py\nhook loops",
            "batch.py\nGameBatch",
            "agents/\nAgent, scripted",
        ],
    ),
    (
        "composition",
        "#dff0d8",
        [
            "wrappers.py,\nagent_wrapper.py\nEnv/AgtItfWrapper",
            "teams.py\nTeam,\nGroupTeams",
            "batched_stack.py\nBatchedStack",
            "play_loop.py\nplay, Episode",
            "registry.py,\nplugins.py",
            "testing/\ncheckers",
        ],
    ),
    (
        "jobs",
        "#fcf3cf",
        [
            "specs/\nspec languages",
            "evaluation/\nratings maths",
            "runtime/\none game\nunder guard",
            "tournament/\nmany games",
            "training/",
            "replay/",
            "adapters/",
        ],
    ),
    ("front doors", "#f8d7da", ["cli/\nthe arena command", "serve/\nplay in the browser"]),
]
#: Beside arena, the three layers above it, lowest first: each imports arena and the ones under it.
UPPER = [
    ("envs/", "games, batches,\nscripted agents"),
    ("interfaces/", "levels; a game's own\nlevels import its env"),
    ("recipes and\nshipped agents", "recipe.py, shipped.py,\n<game>_trained/ in envs/"),
]
WIDTH, HEIGHT, GAP = 10.0, 1.05, 0.25


def draw(path: Path) -> None:
    fig, ax = plt.subplots(figsize=(13, 6.6))
    for row, (name, colour, boxes) in enumerate(LAYERS):
        y = row * (HEIGHT + GAP)
        ax.add_patch(
            FancyBboxPatch((0, y), WIDTH, HEIGHT, boxstyle="round,pad=0.02", facecolor=colour, edgecolor="#888888")
        )
        ax.text(-0.15, y + HEIGHT / 2, name, ha="right", va="center", fontsize=11, fontweight="bold")
        step = WIDTH / len(boxes)
        for i, label in enumerate(boxes):
            ax.add_patch(
                FancyBboxPatch(
                    (i * step + 0.08, y + 0.12),
                    step - 0.16,
                    HEIGHT - 0.24,
                    boxstyle="round,pad=0.02",
                    facecolor="white",
                    edgecolor="#aaaaaa",
                )
            )
            ax.text(i * step + step / 2, y + HEIGHT / 2, label, ha="center", va="center", fontsize=8.5)
    top = len(LAYERS) * (HEIGHT + GAP) - GAP
    ax.annotate(
        "",
        xy=(WIDTH + 0.25, 0),
        xytext=(WIDTH + 0.25, top),
        arrowprops={"arrowstyle": "->", "color": "#555555", "lw": 1.5},
    )
    ax.text(WIDTH + 0.35, top / 2, "imports point down", rotation=90, va="center", fontsize=9, color="#555555")
    for row, (label, note) in enumerate(UPPER):
        y = 0.1 + row * 2.0
        ax.add_patch(
            FancyBboxPatch(
                (WIDTH + 1.0, y), 2.6, 1.5, boxstyle="round,pad=0.02", facecolor="#e5dbf3", edgecolor="#888888"
            )
        )
        ax.text(WIDTH + 2.3, y + 1.05, label, ha="center", va="center", fontsize=10.5, fontweight="bold")
        ax.text(WIDTH + 2.3, y + 0.42, note, ha="center", va="center", fontsize=8.5)
        ax.add_patch(
            FancyArrowPatch(
                (WIDTH + 1.0, y + 0.3), (WIDTH, y + 0.3), arrowstyle="->", mutation_scale=14, color="#6a4c93"
            )
        )
        if row:  # each imports the one under it
            ax.add_patch(
                FancyArrowPatch(
                    (WIDTH + 2.3, y), (WIDTH + 2.3, y - 0.5), arrowstyle="->", mutation_scale=14, color="#6a4c93"
                )
            )
    ax.text(
        WIDTH + 2.3,
        top + 0.1,
        "arena finds them by name\n(entry points, specs):\nnothing imports upward",
        ha="center",
        va="top",
        fontsize=8.5,
        style="italic",
    )
    ax.text(
        WIDTH / 2,
        -0.45,
        "gymnasium spaces, numpy (the core needs nothing else; the rest is imported where it is used)",
        ha="center",
        fontsize=9,
        color="#555555",
    )
    ax.set_xlim(-1.6, WIDTH + 3.8)
    ax.set_ylim(-0.7, top + 0.2)
    ax.axis("off")
    plt.rcParams["svg.hashsalt"] = "arena-layers"  # stable ids: the file changes only when the drawing does
    fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})


if __name__ == "__main__":
    draw(Path(__file__).with_suffix(".svg"))
