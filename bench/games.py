"""Random-vs-random full games per second: arena's bundled games beside PettingZoo and OpenSpiel.

Every library plays the same games with uniformly random legal moves, chosen the same
way (a seeded ``random.Random`` over the legal actions), for a fixed budget of CPU time (one core):

* arena: :func:`arena.play` with two :class:`~arena.RandomAgent` on ``envs.make(name)``,
  a fresh seed per game;
* PettingZoo: the AEC loop over ``tictactoe_v3.env()`` / ``connect_four_v3.env()``
  (its default wrappers), ``env.last()``, legal moves from the observation's action mask;
* OpenSpiel: ``pyspiel.load_game(name)``, ``new_initial_state()``, ``legal_actions()``,
  ``apply_action()`` until the state is terminal (a Python loop over its C++ core).

PettingZoo and OpenSpiel are measured when installed, and skipped with a note otherwise.
The ratios printed are arena's games/s over each peer's. Run::

    python bench/games.py --seconds 2 --repeat 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
from machine import describe

import envs
from arena import RandomAgent, play

GAMES = {"tic_tac_toe": ("tictactoe_v3", "tic_tac_toe"), "connect_four": ("connect_four_v3", "connect_four")}


def arena_runner(name: str) -> Callable[[int], None]:
    env = envs.make(name)
    agents = [RandomAgent(), RandomAgent()]

    def one_game(seed: int) -> None:
        play(env, agents, seed=seed)

    return one_game


def pettingzoo_runner(module: str) -> Callable[[int], None] | None:
    try:
        from pettingzoo import classic
    except ImportError:
        return None
    env = getattr(classic, module).env()
    rng = random.Random(0)

    def one_game(seed: int) -> None:
        env.reset(seed=seed)
        rng.seed(seed)
        for _agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)

    return one_game


def openspiel_runner(game_name: str) -> Callable[[int], None] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(game_name)
    rng = random.Random(0)

    def one_game(seed: int) -> None:
        rng.seed(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.random() * len(legal))])

    return one_game


def games_per_second(one_game: Callable[[int], None], seconds: float) -> float:
    """Games finished per CPU-second of this process in about ``seconds`` of CPU time.

    CPU time, not wall time: on a shared machine the other jobs' load then slows neither side
    (each runs on one core), and the ratio is what one core gives each library.
    """
    games, start = 0, time.process_time()
    deadline = start + seconds
    while True:
        one_game(games)
        games += 1
        if games % 16 == 0 and time.process_time() >= deadline:
            break
    return games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU-time budget of one measurement")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds; each measures every library once, in turn, so that load "
        "changes on the machine hit all of them (medians are shown)",
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    args = parser.parse_args(argv)
    print(describe(), flush=True)
    print(f"{'game':<14}{'library':<12}{'games/CPU-s':>12}{'arena x':>10}")
    for name in args.games:
        pettingzoo_module, openspiel_name = GAMES[name]
        runners = {
            "arena": arena_runner(name),
            "pettingzoo": pettingzoo_runner(pettingzoo_module),
            "openspiel": openspiel_runner(openspiel_name),
        }
        rates: dict[str, list[float]] = {library: [] for library, runner in runners.items() if runner}
        for _ in range(args.repeat):
            for library in rates:
                runner = runners[library]
                if runner is not None:  # rates holds only the installed libraries
                    rates[library].append(games_per_second(runner, args.seconds))
        for library, runner in runners.items():
            if runner is None:
                print(f"{name:<14}{library:<12}{'not installed':>12}")
                continue
            # The ratio is the median of per-round ratios: each compares runs made close in time.
            ratio = statistics.median(ours / theirs for ours, theirs in zip(rates["arena"], rates[library]))
            print(f"{name:<14}{library:<12}{statistics.median(rates[library]):>12,.0f}{ratio:>10.2f}")


if __name__ == "__main__":
    main()
