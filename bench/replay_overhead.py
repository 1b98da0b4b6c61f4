"""What storing every game's actions costs a tournament, and how fast games replay.

Plays the same seeded games of a bundled env with random agents three ways in one run: plain
``arena.play``; ``arena.play`` recording the actions and packing them as the tournament worker
does (``encode_actions``); and replaying the packed games from the actions alone (what
``arena replay --verify`` does per game). Prints microseconds per game and the ratios.

    python bench/replay_overhead.py --env tic_tac_toe --games 3000
"""

from __future__ import annotations

import argparse
import time

from arena import RandomAgent, play
from arena.registry import make_env
from arena.tournament.actions import decode_actions, encode_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="tic_tac_toe")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--max-steps", type=int, default=500)
    args = parser.parse_args()
    env = make_env(args.env)
    agents = [RandomAgent() for _ in env.possible_agents]
    seeds = range(args.games)

    start = time.perf_counter()
    for seed in seeds:
        play(env, agents, seed=seed, max_steps=args.max_steps)
    plain = (time.perf_counter() - start) / args.games

    blobs = []
    start = time.perf_counter()
    for seed in seeds:
        steps: list = []
        play(env, agents, seed=seed, max_steps=args.max_steps, record=steps)
        blobs.append(encode_actions(env.possible_agents, steps))
    recorded = (time.perf_counter() - start) / args.games

    start = time.perf_counter()
    for seed, blob in zip(seeds, blobs):
        env.reset(seed=seed)
        for actions in decode_actions(blob):
            env.step(actions)
    replayed = (time.perf_counter() - start) / args.games

    size = sum(map(len, blobs)) / len(blobs)
    print(f"{args.env}, {args.games} games: play {plain * 1e6:.1f} us/game, play+record+pack {recorded * 1e6:.1f} us/game "
          f"({recorded / plain:.2f}x), replay from stored actions {replayed * 1e6:.1f} us/game "
          f"({replayed / plain:.2f}x of play); {size:.0f} bytes/game stored")


if __name__ == "__main__":
    main()
