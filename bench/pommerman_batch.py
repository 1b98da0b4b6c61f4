"""PommermanBatch beside pomcpp2 (C++) and the reference, in one run: steps per CPU-second, interleaved.

Measured, each ``--rounds`` times in turn (so load drifting on a shared machine hits every
side alike), medians printed with their ratios, and each batch shape's ratio to pomcpp2's
``State::Step`` taken within each round, its median and quartiles (:func:`paired_ratios`):

* **pomcpp2** (``../shared/pommerman/pomcpp/setup.sh`` builds it): MODE 0, bare
  ``State::Step`` with 4 random moves (no observations); MODE 1, ``Environment::Step`` with 4
  ``RandomAgent`` (a C++ observation per living agent). Resets inside the timing;
* **PommermanBatch** (FFA) at ``--games`` games, random actions drawn in numpy inside the timing
  (one draw per 1,024 game-steps: :func:`random_moves` says why; the cost of one draw per call is
  printed apart), resets inside the timing: steps (one game, one step) per CPU-second of this process, single
  thread, in three shapes: every view's planes into the batch's own buffers (``copy=False``),
  every view's planes into fresh arrays (``copy=True``, the default), and one learner seat's
  planes into the batch's buffers (``view_agents=("agent_0",)``, ``copy=False``: a trainer's
  batch whose opponents read the state), and the trainer's shape (two seats of four, fresh arrays);
  then the same with ``layout="codes"`` (248 bytes a view in place of 2,662), and codes unpacked to
  planes in numpy every step (``codes_to_planes``: what a user reading planes pays in all);
* the first shape with ``threads=2`` (``numba.prange`` over both cores): wall-clock steps/s;
* the **single env** in a user's loop with seeded resets (``reset(seed=k)`` every game,
  a dict of random ints per step) beside the **reference** (playground) doing the same
  (``--reference-python``; ``../shared/pommerman/reference/setup.sh`` builds it);
* **PommermanSimpleBatch**: 4 ``pommerman_simple`` agents in 256 games, decisions per
  CPU-second (the batch steps between decisions, outside the timing).

Run::

    python bench/pommerman_batch.py --pomcpp2 /tmp/pomcpp2/pomcpp2_bench \\
        --reference-python /tmp/pommerman-reference/bin/python

It prints its machine first (:func:`machine.describe`: the CPU model and the L2 of CPU 0) and, with the
batch, the views one call writes at each game count beside that L2 (:func:`views_lines`): on the
machines measured, the batch's ratio to pomcpp2 falls once they outgrow it (docs/performance.md).

``--batch-mode team --ego`` times the batch as the team recipe trains on it (FFA without ego by default).
``--parts single`` times only the single env beside the reference; ``--baseline DIR`` also times the
single env and the batch of another checkout in the same rounds (``git archive COMMIT envs arena | tar -x -C DIR``),
the batch in the shapes of ``--baseline-shapes`` (``copy=False`` by default).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from machine import cache_bytes, describe

from envs.pommerman.agents import PommermanSimpleBatch
from envs.pommerman.batch import PommermanBatch
from envs.pommerman.codes import code_length, codes_to_planes
from envs.pommerman.core import SIZE
from envs.pommerman.planes import num_planes

REFERENCE_SCRIPT = r"""
import json, random, sys, time, warnings
warnings.filterwarnings("ignore")
import numpy as np
import pommerman
steps, seed = int(sys.argv[1]), int(sys.argv[2])
agents = [pommerman.agents.RandomAgent() for _ in range(4)]
env = pommerman.make("PommeFFACompetition-v0", agents)
rng = random.Random(seed)
start = time.process_time()
game = seed * 100000
env.seed(game)
obs, n = env.reset(), 0
while n < steps:
    obs, _, done, _ = env.step([rng.randrange(6) for _ in range(4)])
    n += 1
    if done:
        game += 1
        env.seed(game)  # a seeded reset per game, as on arena's side
        obs = env.reset()
print(json.dumps(n / (time.process_time() - start)))
"""


#: This checkout (the folder holding bench/, envs/ and arena/).
HERE_CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SINGLE_SCRIPT = r"""
import json, sys, time
import numpy as np
import envs
steps, seed = int(sys.argv[1]), int(sys.argv[2])

def rate(steps, seed):
    env = envs.make("pommerman", mode="ffa")
    moves = np.random.default_rng(seed).integers(0, 6, (steps, 4)).tolist()
    index = {a: int(a[-1]) for a in env.possible_agents}
    game = seed * 100000
    start = time.process_time()
    obs, _ = env.reset(seed=game)
    for n in range(steps):
        row = moves[n]
        obs, _, _, _, _ = env.step({a: row[index[a]] for a in obs})
        if not obs:
            game += 1
            obs, _ = env.reset(seed=game)
    return steps / (time.process_time() - start)

rate(200, 0)  # numba's disk cache loaded (or compiled) outside the timing
print(json.dumps(rate(steps, seed)))
"""


BATCH_SCRIPT = r"""
import json, sys, time
import numpy as np
from envs.pommerman.batch import PommermanBatch
games, steps, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
mode, ego = ("ffa", "team")[int(sys.argv[4])], bool(int(sys.argv[5]))
copy, codes = bool(int(sys.argv[6])), bool(int(sys.argv[7]))
shape = {"copy": copy, **({"layout": "codes"} if codes else {})}  # a checkout before the codes: no layout

def rate(games, steps, seed):
    batch = PommermanBatch(games, mode, ego=ego, **shape)
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)
    calls = max(10, steps // games)
    block = max(1, 1024 // games)  # one numpy draw per 1,024 game-steps, as in batch_rate
    cpu = time.process_time()
    for first in range(0, calls, block):
        for moves in rng.integers(0, 6, (min(block, calls - first), games, 4)):
            batch.step(moves)
    return calls * games / (time.process_time() - cpu)

rate(8, 80, 0)  # numba's disk cache loaded (or compiled) outside the timing
print(json.dumps(rate(games, steps, seed)))
"""


def pomcpp2_rate(binary: str, steps: int, mode: int, seed: int) -> float:
    out = subprocess.run([binary, str(steps), str(mode), str(seed)], check=True, capture_output=True, text=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1])["cpu"])


def reference_rate(python: str, steps: int, seed: int) -> float:
    out = subprocess.run(
        [python, "-c", REFERENCE_SCRIPT, str(steps), str(seed)], check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip().splitlines()[-1])


#: The modes ``--batch-mode`` takes (radio's actions carry words: not timed here).
BATCH_MODES = ("ffa", "team")


#: The batch's shapes timed: (label, ``copy``, ``view_agents``, the trainer's seats, ``layout``, unpacked).
#: The trainer's: the learner's side (two seats of four, agents 0 and 2 in even games, 1 and 3 in odd
#: ones) viewed (``set_view_seats``), its opponents reading the state, in fresh arrays (as
#: ``BatchVecEnv`` with ``team=True`` and ``pommerman_simple`` opponents makes and asks it).
#: Unpacked: the views read (every view, or the trainer's seats) turned into planes by ``codes_to_planes``
#: after each step, as ``pommerman_batch_codes`` does under a stack reading planes.
SHAPES = (
    ("copy=False", False, None, False, "planes", False),
    ("copy=True", True, None, False, "planes", False),
    ("one seat", False, ("agent_0",), False, "planes", False),
    ("trainer", True, None, True, "planes", False),
    ("codes copy=False", False, None, False, "codes", False),
    ("codes copy=True", True, None, False, "codes", False),
    ("codes one seat", False, ("agent_0",), False, "codes", False),
    ("codes trainer", True, None, True, "codes", False),
    ("codes+unpack copy=False", False, None, False, "codes", True),
    ("codes+unpack trainer", True, None, True, "codes", True),
)

#: The shapes ``--baseline-shapes`` offers: (copy, codes layout), as in :data:`SHAPES`.
BASELINE_SHAPES = {
    "copy=False": (False, False),
    "copy=True": (True, False),
    "codes copy=False": (False, True),
    "codes copy=True": (True, True),
}


def baseline_name(games: int, label: str) -> str:
    """The baseline's figure for shape ``label`` (the first shape keeps its older, shorter name)."""
    return f"baseline batch {games} (cpu)" if label == "copy=False" else f"baseline batch {games} {label} (cpu)"


def views_bytes(games: int, mode: str, layout: str) -> int:
    """The bytes of every view one ``step`` call writes: games x 4 seats x one view (planes or codes).

    Beside the core's L2 it says where the batch's ratio falls (docs/performance.md): pomcpp2
    steps one game in a few hundred bytes, the batch writes this much a call.

    Example:
        >>> views_bytes(256, "ffa", "codes"), views_bytes(256, "ffa", "planes")
        (625664, 2725888)
    """
    one_view = code_length(mode) if layout == "codes" else num_planes(mode) * SIZE * SIZE
    return games * 4 * one_view


def views_lines(games_counts: list[int], mode: str, l2: int | None) -> list[str]:
    """A line per game count: the views a call writes in each layout, beside the L2 of CPU 0."""
    l2_text = "L2 size unknown" if l2 is None else f"L2 {l2 / 2**20:.2f} MiB"
    lines = []
    for games in games_counts:
        sizes = {layout: views_bytes(games, mode, layout) for layout in ("planes", "codes")}
        fits = ", ".join(
            f"{layout} {size / 2**20:.2f} MiB{'' if l2 is None else (' (fits)' if size <= l2 else ' (over)')}"
            for layout, size in sizes.items()
        )
        lines.append(f"views a call at {games} games: {fits}; {l2_text}")
    return lines


def trainer_seats(games: int) -> np.ndarray:
    """The seats a team trainer views in ``games`` games: one side per game, the sides alternating."""
    seats = np.zeros((games, 4), dtype=bool)
    seats[0::2, [0, 2]] = True
    seats[1::2, [1, 3]] = True
    return seats


def batch_rate(
    games: int,
    steps: int,
    seed: int,
    threads: int = 1,
    mode: str = "ffa",
    ego: bool = False,
    copy: bool = False,
    view_agents: tuple[str, ...] | None = None,
    trainer: bool = False,
    layout: str = "planes",
    unpack: bool = False,
) -> tuple[float, float]:
    """(steps per CPU-second, steps per wall second) of a PommermanBatch with random actions.

    ``unpack``: the views read (every view, or the trainer's seats) turned into planes after each step.
    """
    batch = PommermanBatch(games, mode, ego=ego, copy=copy, threads=threads, view_agents=view_agents, layout=layout)
    seats = trainer_seats(games) if trainer else np.ones((games, 4), dtype=bool)
    if trainer:
        batch.set_view_seats(seats)
    rng = np.random.default_rng(seed)
    batch.reset(seed=seed)
    calls = max(10, steps // games)
    cpu, wall = time.process_time(), time.perf_counter()
    for moves in random_moves(rng, games, calls):
        views = batch.step(moves)[0]
        if unpack:
            codes_to_planes(views[seats] if trainer else views)
    return calls * games / (time.process_time() - cpu), calls * games / (time.perf_counter() - wall)


#: Game-steps of random moves per numpy draw (:func:`random_moves`).
DRAW_BLOCK = 1024


def random_moves(rng: np.random.Generator, games: int, calls: int) -> Iterator[np.ndarray]:
    """``calls`` arrays of ``(games, 4)`` random moves, drawn ``DRAW_BLOCK`` game-steps at a time.

    One ``rng.integers`` call costs some 8 us before its first number on this box (numpy 2.4), as much
    as 10 pomcpp2 steps: drawn per call of 64 games it would add 0.12 us a game-step that is numpy's,
    where pomcpp2 draws its moves from a C++ generator for a few ns each. Drawn in blocks, both sides pay
    about the per-number cost of their generator. :func:`draw_cost` times the per-call draw apart.
    """
    block = max(1, DRAW_BLOCK // games)
    for first in range(0, calls, block):
        yield from rng.integers(0, 6, (min(block, calls - first), games, 4))


def draw_cost(games: int, calls: int, seed: int) -> float:
    """Microseconds a game-step of one ``rng.integers(0, 6, (games, 4))`` per call (a loop drawing per step)."""
    rng = np.random.default_rng(seed)
    start = time.process_time()
    for _ in range(calls):
        rng.integers(0, 6, (games, 4))
    return (time.process_time() - start) / calls / games * 1e6


def checkout_rate(checkout: str, script: str, *numbers: int) -> float:
    """What ``script`` (SINGLE_SCRIPT or BATCH_SCRIPT) prints, run on the ``envs`` and ``arena`` of ``checkout``
    (a ``--baseline``, or this one: :data:`HERE_CHECKOUT`)."""
    checkout = os.path.abspath(checkout)
    script += "import envs\nassert envs.__file__.startswith(sys.argv[-1]), envs.__file__\n"
    out = subprocess.run(  # run in the checkout: ``-c`` puts the working folder first on the import path
        [sys.executable, "-c", script, *map(str, numbers), checkout],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": checkout},
        cwd=checkout,
    )
    return float(out.stdout.strip().splitlines()[-1])


def simple_rate(games: int, calls: int, seed: int) -> float:
    """Decisions per CPU-second of 4 batched pommerman_simple agents in every game."""
    batch = PommermanBatch(games, "ffa", copy=False)
    batch.reset(seed=seed)
    simple = PommermanSimpleBatch(batch, seed=seed)
    decisions, spent = 0, 0.0
    for _ in range(calls):
        decisions += int(batch._live.sum())
        start = time.process_time()
        moves = simple.act()
        spent += time.process_time() - start
        batch.step(moves)
    return decisions / spent


def breakdown(games: int, calls: int, seed: int) -> dict[str, float]:
    """Microseconds per game-step of each part: the rules alone, the views alone, the whole compiled
    call, ``step()`` (with its checks and numba's dispatch), the compiled call without the views
    (the games go on and restart), and one board draw."""
    from envs.pommerman import batch_core, batch_views
    from envs.pommerman._jit import njit_unreferenced as njit
    from envs.pommerman.board import draw_board
    from envs.pommerman.core import step_into

    rows_of = batch_core._cell_rows  # the batch's own (11, 11) grids -> rows of 121 cells

    # the blast cap (10) is an argument: a constant would be typed as a literal, and step_into compiled again
    # for it (about 10 s) where the single env's compile (an int64) serves
    @njit
    def rules(boards, items, flames, agents, bombs, counts, actions, cap, work):
        s = batch_core._scratch(work, 0)
        board_rows, item_rows, flame_rows = rows_of(boards), rows_of(items), rows_of(flames)
        for g in range(boards.shape[0]):
            step_into(board_rows[g], item_rows[g], flame_rows[g], agents[g], bombs[g], counts[g], actions[g], cap, s)

    @njit
    def unobserved(
        boards, items, flames, agents, bombs, counts, steps, rngs, radio, actions, rewards, terms, live, over, cap, work
    ):
        s = batch_core._scratch(work, 0)
        board_rows, item_rows, flame_rows = rows_of(boards), rows_of(items), rows_of(flames)
        for g in range(boards.shape[0]):
            before = batch_views.alive_bits(agents, g)
            after = step_into(
                board_rows[g], item_rows[g], flame_rows[g], agents[g], bombs[g], counts[g], actions[g], cap, s
            )
            steps[g] += 1
            over[g] = batch_core._score(before, after, steps[g], 800, False, rewards[g], terms[g])
            for a in range(4):
                live[g, a] = (after >> a & 1) != 0
            if over[g]:
                batch_core._reset_game(
                    board_rows[g], item_rows[g], flame_rows[g], agents[g], counts[g], radio[g], rngs[g], work[13][0]
                )
                steps[g] = 0
                live[g, :] = True

    batch = PommermanBatch(games, "ffa", copy=False)
    batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(20):  # games under way
        batch.step(rng.integers(0, 6, (games, 4)))
    b = batch
    state = (b._boards, b._items, b._flames, b._agents, b._bombs, b._counts)
    actions = [rng.integers(0, 6, (games, 4)) for _ in range(calls)]
    copies = [tuple(a.copy() for a in state) for _ in range(calls)]
    parts: dict[str, float] = {}
    every_game = np.arange(games)
    view_rows = b._obs.reshape(games, 4, -1)  # the compiled code's views: one flat row each

    def timed(name, function):
        function(0)
        start = time.process_time()
        for k in range(calls):
            function(k)
        parts[name] = (time.process_time() - start) / calls / games * 1e6

    timed("rules", lambda k: rules(*copies[k], actions[k], 10, b._work))
    timed(
        "views",
        lambda k: batch_core.observe_games(
            every_game,
            *(b._boards, b._flames, b._agents, b._bombs, b._counts, b._steps, b._radio),
            *(False, False, False, np.full(games, 15, np.uint8), 800, b._live, b._work, view_rows, False),
        ),
    )
    timed(
        "compiled call",
        lambda k: batch_core.batch_step(
            b._boards,
            b._items,
            b._flames,
            b._agents,
            b._bombs,
            b._counts,
            b._steps,
            b._rngs,
            b._radio,
            b._last,
            actions[k],
            b._no_words,
            False,
            False,
            False,
            b._seats,  # every seat's views, per game
            10,
            800,
            False,  # the views into the batch's own (not fresh) rows
            view_rows,
            b._rewards,
            b._terms,
            b._live,
            b._acted,
            b._over,
            b._final.reshape(games, 4, -1),
            b._work,
        ),
    )
    timed("step()", lambda k: b.step(actions[k]))
    game = (b._boards, b._items, b._flames, b._agents, b._bombs, b._counts, b._steps, b._rngs, b._radio)
    timed(
        "rules, scores and restarts, no views (games going on)",
        lambda k: unobserved(*game, actions[k], b._rewards, b._terms, b._live, b._over, 10, b._work),
    )
    board, items, stream = np.zeros((11, 11), np.uint8), np.zeros((11, 11), np.uint8), np.zeros(1, np.uint64)
    draw_board(stream, board, items)
    start = time.process_time()
    for _ in range(2000):
        draw_board(stream, board, items)
    parts["one board draw"] = (time.process_time() - start) / 2000 * 1e6
    return parts


def paired_ratios(runs: dict[str, list[float]], anchor: str) -> dict[str, tuple[float, float, float]]:
    """Each batch rate over ``anchor``'s of the same round: (median, lower quartile, upper quartile).

    A round's figures are timed within a minute of each other, so a ratio within a round cancels
    what drifts between rounds (the box's load, the host's clock), which the ratio of two medians
    does not; the quartiles say how far the rounds still spread.

    Example:
        >>> paired_ratios({"pomcpp2": [1.0, 2.0, 1.0], "batch 4 x (cpu)": [1.1, 2.4, 0.9]}, "pomcpp2")
        {'batch 4 x (cpu) / pomcpp2': (1.1, 1.0, 1.15)}
    """
    if anchor not in runs:
        return {}
    spreads = {}
    for name, values in runs.items():
        if name.startswith("batch ") and name.endswith("(cpu)"):
            ratios = [value / base for value, base in zip(values, runs[anchor])]
            low, _, high = statistics.quantiles(ratios, n=4, method="inclusive") if len(ratios) > 1 else ratios * 3
            spreads[f"{name} / {anchor}"] = (statistics.median(ratios), low, high)
    return spreads


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pomcpp2", default=os.environ.get("POMCPP2_BENCH", "/tmp/pomcpp2/pomcpp2_bench"))
    parser.add_argument("--reference-python", default=os.environ.get("POMMERMAN_REFERENCE_PYTHON"))
    parser.add_argument("--games", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--steps", type=int, default=300_000, help="game steps per batch measurement")
    parser.add_argument("--single-steps", type=int, default=20_000)
    parser.add_argument("--reference-steps", type=int, default=3_000)
    parser.add_argument("--rounds", type=int, default=3)
    parts = ("pomcpp2", "batch", "single", "simple")
    parser.add_argument("--parts", nargs="+", choices=parts, default=list(parts), help="what to time (default: all)")
    parser.add_argument(
        "--baseline", help="a checkout whose single env and batch (FFA, one thread) are timed beside this one's"
    )
    parser.add_argument(
        "--baseline-shapes",
        nargs="+",
        choices=list(BASELINE_SHAPES),
        default=["copy=False"],
        help="the batch's shapes the baseline is timed in (default: copy=False; codes need a checkout with them)",
    )
    parser.add_argument("--breakdown", action="store_true", help="also time the parts of a step (256 games)")
    parser.add_argument("--batch-mode", choices=BATCH_MODES, default="ffa", help="the batch's mode (default: ffa)")
    parser.add_argument("--ego", action="store_true", help="the batch's ego views (as the team recipe trains)")
    parser.add_argument(
        "--thread-divisor",
        type=int,
        default=10,
        help="the threads=2 runs take this many times fewer steps (a loaded box starves them)",
    )
    parser.add_argument("--no-threads", action="store_true", help="skip the threads=2 runs (they take a second core)")
    args = parser.parse_args(argv)
    print(describe(), flush=True)
    have_pomcpp2 = "pomcpp2" in args.parts and os.path.exists(args.pomcpp2)
    if args.baseline and not os.path.isdir(os.path.join(args.baseline, "envs")):
        parser.error(f"--baseline must be a folder holding envs/ and arena/, got {args.baseline!r}")
    # compile (numba caches on disk) outside the timing
    if "batch" in args.parts:
        batch_rate(8, 80, 0, 1, args.batch_mode, args.ego)
        if not args.no_threads:
            batch_rate(8, 80, 0, 2, args.batch_mode, args.ego)
    if "simple" in args.parts:
        simple_rate(8, 3, 0)
    runs: dict[str, list[float]] = {}

    def record(name: str, value: float) -> None:
        runs.setdefault(name, []).append(value)

    for round_ in range(args.rounds):
        if have_pomcpp2:
            record("pomcpp2 State::Step", pomcpp2_rate(args.pomcpp2, 4 * args.steps, 0, round_ + 1))
            record("pomcpp2 Environment", pomcpp2_rate(args.pomcpp2, 4 * args.steps, 1, round_ + 1))
        for games in args.games if "batch" in args.parts else ():
            flavour = (args.batch_mode, args.ego)
            for label, *shape in SHAPES:
                rate = batch_rate(games, args.steps, round_, 1, *flavour, *shape)[0]
                record(f"batch {games} {label} (cpu)", rate)
            record(f"us per game-step: numpy draw per call of {games}", draw_cost(games, 2000, round_))
            for label in args.baseline_shapes if args.baseline else ():
                copy, codes = BASELINE_SHAPES[label]
                mode_code = BATCH_MODES.index(args.batch_mode)
                numbers = (games, args.steps, round_, mode_code, int(args.ego), int(copy), int(codes))
                record(baseline_name(games, label), checkout_rate(args.baseline, BATCH_SCRIPT, *numbers))
            if not args.no_threads:
                record(
                    f"batch {games} threads=2 (wall)",
                    batch_rate(games, args.steps // args.thread_divisor, round_, 2, *flavour)[1],
                )
        if "single" in args.parts:
            # the loop of SINGLE_SCRIPT, in a process of this checkout as in the baseline's: one copy, timed alike
            record("single env, seeded resets", checkout_rate(HERE_CHECKOUT, SINGLE_SCRIPT, args.single_steps, round_))
            if args.baseline:
                record(
                    "baseline single env, seeded resets",
                    checkout_rate(args.baseline, SINGLE_SCRIPT, args.single_steps, round_),
                )
            if args.reference_python:
                record("reference, seeded resets", reference_rate(args.reference_python, args.reference_steps, round_))
        if "simple" in args.parts:
            record("simple4 batch decisions (cpu)", simple_rate(256, 40, round_))
        if args.breakdown:
            for part, value in breakdown(256, 40, round_).items():
                record(f"us per game-step: {part}", value)
    medians = {name: statistics.median(values) for name, values in runs.items()}
    width = max(map(len, medians))
    for name, value in medians.items():
        if name.startswith("us per"):
            print(f"{name:{width}s} {value:12.2f}      runs {[round(v, 2) for v in runs[name]]}")
        else:
            print(f"{name:{width}s} {value:12,.0f} /s   runs {[round(v) for v in runs[name]]}")
    ratios = {}
    for games in args.games if "batch" in args.parts else ():
        for label in args.baseline_shapes if args.baseline else ():
            ratios[f"batch {games} {label} / baseline"] = (
                medians[f"batch {games} {label} (cpu)"] / medians[baseline_name(games, label)]
            )
        for anchor in ("pomcpp2 State::Step", "pomcpp2 Environment"):
            for label, *_ in SHAPES:
                if anchor in medians:
                    rate = medians[f"batch {games} {label} (cpu)"]
                    ratios[f"batch {games} {label} / {anchor}"] = rate / medians[anchor]
        if "pomcpp2 State::Step" in medians and f"batch {games} threads=2 (wall)" in medians:
            ratios[f"batch {games} threads=2 wall / {'pomcpp2 State::Step'} cpu"] = (
                medians[f"batch {games} threads=2 (wall)"] / medians["pomcpp2 State::Step"]
            )
    if "reference, seeded resets" in medians:
        for side in ("single env", "baseline single env"):
            if f"{side}, seeded resets" in medians:
                ratios[f"{side} / reference (seeded resets)"] = (
                    medians[f"{side}, seeded resets"] / medians["reference, seeded resets"]
                )
    if "baseline single env, seeded resets" in medians:
        ratios["single env / baseline single env"] = (
            medians["single env, seeded resets"] / medians["baseline single env, seeded resets"]
        )
    for name, value in ratios.items():
        print(f"ratio {name}: {value:.2f}x")
    if "batch" in args.parts:
        print("\n".join(views_lines(args.games, args.batch_mode, cache_bytes(2))))
    spreads = paired_ratios(runs, "pomcpp2 State::Step")
    for name, (median, low, high) in spreads.items():
        print(f"paired ratio {name}: median {median:.2f}x, quartiles {low:.2f}-{high:.2f}x")
    summary = {
        **medians,
        **{f"ratio {k}": v for k, v in ratios.items()},
        **{f"paired ratio {k}": v for k, v in spreads.items()},
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main(sys.argv[1:])
