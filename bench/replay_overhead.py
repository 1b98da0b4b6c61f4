"""What storing every game's actions costs a tournament, and how fast games replay.

Plays the same seeded games of a bundled env with random agents three ways in one run: plain
``arena.play``; ``arena.play`` recording the actions and packing them as the tournament worker
does (``encode_actions``); and replaying the packed games from the actions alone (what
``arena replay --verify`` does per game). Prints microseconds per game and the ratios.

    python bench/replay_overhead.py --env tic_tac_toe --games 1000 --rounds 5
"""

from __future__ import annotations

import argparse
import time

from arena import RandomAgent, play
from arena.registry import make_env
from arena.runtime.actions import decode_actions, encode_actions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="tic_tac_toe")
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--max-steps", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds; the best of each method counts")
    args = parser.parse_args()
    env = make_env(args.env)
    agents = [RandomAgent() for _ in env.possible_agents]
    seeds = range(args.games)

    def plain() -> None:
        for seed in seeds:
            play(env, agents, seed=seed, max_steps=args.max_steps)

    blobs: list[bytes] = []

    def recorded() -> None:
        blobs.clear()
        for seed in seeds:
            steps: list = []
            play(env, agents, seed=seed, max_steps=args.max_steps, record=steps)
            blobs.append(encode_actions(env.possible_agents, steps))

    def replayed() -> None:
        for seed, blob in zip(seeds, blobs):
            env.reset(seed=seed)
            for actions in decode_actions(blob):
                env.step(actions)

    # Interleaved rounds, best of each: a busy machine slows rounds, not one method.
    best = {"play": float("inf"), "record": float("inf"), "replay": float("inf")}
    for _ in range(args.rounds):
        for name, run in (("play", plain), ("record", recorded), ("replay", replayed)):
            start = time.perf_counter()
            run()
            best[name] = min(best[name], (time.perf_counter() - start) / args.games)
    plain_s, recorded_s, replayed_s = best["play"], best["record"], best["replay"]
    size = sum(map(len, blobs)) / len(blobs)
    print(
        f"{args.env}, {args.games} games, best of {args.rounds} rounds: play {plain_s * 1e6:.1f} us/game, "
        f"play+record+pack {recorded_s * 1e6:.1f} us/game ({recorded_s / plain_s:.2f}x), replay from stored actions "
        f"{replayed_s * 1e6:.1f} us/game ({replayed_s / plain_s:.2f}x of play); {size:.0f} bytes/game stored"
    )


if __name__ == "__main__":
    main()
