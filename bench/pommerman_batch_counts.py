"""PommermanBatch beside pomcpp2 in instructions, not seconds: counts per game-step under valgrind's cachegrind.

``bench/pommerman_batch.py`` times the two side by side, and its ratios move from run to run and box to
box (docs/performance.md). Counted instructions do not: cachegrind runs the same machine code on a
simulated CPU and counts every instruction, every simulated branch mispredict and every simulated miss of
the first-level data cache (D1) and the last-level one (LL), whatever else the machine runs. This is
what ``perf stat`` would give where the CPU's counters are exposed (on a virtual machine they often are
not). Counts are not speed: a mispredict or a miss costs many instructions' time, so the three are
printed apart.

Each figure is the difference between two runs of one process, one doing ``--calls`` more calls than
the other, so start-up (Python, numba's cache, the warm-up) cancels:

* **pomcpp2** ``State::Step`` (MODE 0: four random moves a step, no observations), per step;
* **the batch** at ``--games`` games, FFA, ``copy=False``, the moves drawn before the runs, in each
  ``--layouts``: ``step`` (``PommermanBatch.step``: the rules, scores, restarts and every view), and
  ``views`` (the four views of every game alone), per game-step; ``step - views`` is the rest;
* with ``--seats one trainer``, ``step`` again with one learner seat's views, and with the trainer's
  two seats of four in fresh arrays (:data:`SEATS`).

Run (valgrind from the OS packages; pomcpp2 from ``../shared/pommerman/pomcpp/setup.sh``)::

    python bench/pommerman_batch_counts.py --pomcpp2 /tmp/pomcpp2/pomcpp2_bench

About 10 minutes on 2 cores: cachegrind runs code about 50 times slower. numba's cache is keyed by
the CPU it compiled for, and valgrind's simulated CPU reports other features, so the batch is compiled
(or loaded) first for this CPU with its name and features fixed (``NUMBA_CPU_NAME``,
``NUMBA_CPU_FEATURES``) and the counted runs load that cache.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

#: The counted batch process: argv part (none, views, step), calls, games, layout, seats (:data:`SEATS`),
#: then this bench's folder (the trainer's seats are ``pommerman_batch.trainer_seats``, as that bench times them).
BATCH_SCRIPT = r"""
import sys
import numpy as np
from envs.pommerman.batch import PommermanBatch
part, calls, games, layout, seats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
one = ("agent_0",) if seats == "one" else None
batch = PommermanBatch(games, "ffa", copy=seats == "trainer", layout=layout, view_agents=one)
if seats == "trainer":  # imported in both runs of a pair: the difference counts the steps alone
    sys.path.insert(0, sys.argv[6])
    from pommerman_batch import trainer_seats
    batch.set_view_seats(trainer_seats(games))
batch.reset(seed=0)
moves = list(np.random.default_rng(0).integers(0, 6, (calls + 20, games, 4)))
for m in moves[:20]:
    batch.step(m)  # games under way, every function loaded
every = np.arange(games)
batch._observe(every)  # the views of every game, as a reset writes them
for m in moves[20:]:
    if part == "step":
        batch.step(m)
    elif part == "views":
        batch._observe(every)
"""

#: The views' shapes ``--seats`` offers: every seat's views (``copy=False``); one learner seat's
#: (``view_agents=("agent_0",)``, ``copy=False``); the trainer's, two seats of four in fresh arrays
#: (``set_view_seats``, ``copy=True``), as ``bench/pommerman_batch.py`` times them.
SEATS = ("every", "one", "trainer")

#: cachegrind's summary lines: the name it prints, the name printed here.
COUNTED = {
    "I   refs": "instructions",
    "Mispredicts": "mispredicts",
    "D1  misses": "D1 misses",
    "LLd misses": "LL misses",
}


def parse_summary(text: str) -> dict[str, int]:
    """The totals of cachegrind's summary (its stderr): instructions, mispredicts, D1 and LL data misses.

    Example:
        >>> parse_summary("==7== I   refs:      3,391,004\\n==7== D1  misses:  16,093  (13,598 rd + 2,495 wr)")
        {'instructions': 3391004, 'D1 misses': 16093}
    """
    counts = {}
    for line in text.splitlines():
        for label, name in COUNTED.items():
            found = re.match(rf"==\d+== {re.escape(label)}:\s+([\d,]+)", line)
            if found:
                counts[name] = int(found.group(1).replace(",", ""))
    return counts


def counted(command: list[str], env: dict[str, str]) -> dict[str, int]:
    """cachegrind's totals for one run of ``command``."""
    cachegrind = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        "--branch-sim=yes",
        "--cachegrind-out-file=/dev/null",
    ]
    done = subprocess.run(cachegrind + command, env=env, capture_output=True, text=True)
    counts = parse_summary(done.stderr)
    if done.returncode != 0 or "instructions" not in counts:
        raise RuntimeError(f"cachegrind run {command} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return counts


def per_unit(low: dict[str, int], high: dict[str, int], units: int) -> dict[str, float]:
    """The counts of ``units`` more game-steps (the two runs' difference), per game-step."""
    return {name: (high[name] - low[name]) / units for name in high}


def fixed_cpu_env(cpu: str | None = None) -> dict[str, str]:
    """This process's environment with numba's CPU name and features fixed (see the docstring).

    ``cpu``: an LLVM CPU name to compile for, with that CPU's own features (``haswell``: AVX2, which
    valgrind runs; it stops at AVX-512); default this CPU's name and features.
    """
    import llvmlite.binding as llvm

    return {
        **os.environ,
        "NUMBA_CPU_NAME": cpu or llvm.get_host_cpu_name(),
        "NUMBA_CPU_FEATURES": "" if cpu else llvm.get_host_cpu_features().flatten(),
        "PYTHONHASHSEED": "0",  # the two runs of a pair allocate alike
        "OMP_NUM_THREADS": "1",
    }


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pomcpp2", default=os.environ.get("POMCPP2_BENCH", "/tmp/pomcpp2/pomcpp2_bench"))
    parser.add_argument("--games", type=int, nargs="+", default=[64, 1024])
    parser.add_argument("--layouts", nargs="+", choices=("codes", "planes"), default=["codes", "planes"])
    parser.add_argument("--calls", type=int, default=30, help="calls counted at each size (default 30)")
    parser.add_argument("--steps", type=int, default=100_000, help="pomcpp2 steps counted (default 100,000)")
    parser.add_argument(
        "--seats",
        nargs="+",
        choices=SEATS,
        default=["every"],
        help="the views' shapes: every seat's (with the views alone), one seat's, the trainer's (default: every)",
    )
    parser.add_argument(
        "--cpu",
        help="compile the batch for this LLVM CPU (e.g. haswell) in place of this one: valgrind stops "
        "at the AVX-512 instructions numba emits for a CPU that has them",
    )
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (the OS package 'valgrind')")
    env = fixed_cpu_env(args.cpu)
    results: dict[str, dict[str, float]] = {}
    if os.path.exists(args.pomcpp2):
        low = counted([args.pomcpp2, "1000", "0", "1"], env)
        high = counted([args.pomcpp2, str(1000 + args.steps), "0", "1"], env)
        results["pomcpp2 State::Step"] = per_unit(low, high, args.steps)
    else:
        print(f"pomcpp2 not found at {args.pomcpp2}: counting the batch alone", file=sys.stderr)
    python = [sys.executable, "-c", BATCH_SCRIPT]
    here = os.path.dirname(os.path.abspath(__file__))
    for layout in args.layouts:
        subprocess.run(python + ["none", "1", "4", layout, "every", here], env=env, check=True)  # numba's cache
        for seats in args.seats:
            for games in args.games:
                shape = [str(args.calls), str(games), layout, seats, here]
                low = counted(python + ["none", *shape], env)
                name = f"batch {games} {layout}" if seats == "every" else f"batch {games} {layout} {seats} seat(s)"
                for part in ("step", "views") if seats == "every" else ("step",):
                    high = counted(python + [part, *shape], env)
                    results[f"{name} {part}"] = per_unit(low, high, args.calls * games)
    names = list(COUNTED.values())
    print(f"{'per step (one game, one step)':<32}" + "".join(f"{name:>14}" for name in names))
    for what, counts in results.items():
        print(f"{what:<32}" + "".join(f"{counts[name]:>14,.1f}" for name in names))
    if "pomcpp2 State::Step" in results:
        anchor = results["pomcpp2 State::Step"]["instructions"]
        for what, counts in results.items():
            if what.endswith(" step"):
                print(f"instructions, {what} / pomcpp2 State::Step: {counts['instructions'] / anchor:.2f}x")
    return results


if __name__ == "__main__":
    main()
