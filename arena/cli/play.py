"""``arena play ENV --agents a,b --seed S``: play one game and print the result."""

from __future__ import annotations

import argparse
import json

from arena.play import play
from arena.registry import make_agent, make_env

__all__ = ["register"]


def _parse_options(text: str | None) -> dict:
    if not text:
        return {}
    options = json.loads(text)
    if not isinstance(options, dict):
        raise ValueError(f"--env-options must be a JSON object, got {text!r}")
    return options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("play", help="play one game and print the result")
    parser.add_argument("env", help="env name (see `arena envs`) or 'package.module:factory'")
    parser.add_argument("--agents", default=None,
                        help="comma-separated agent names or 'module:factory' specs, one per seat (default: random for all)")
    parser.add_argument("--seed", type=int, default=None, help="seed for the env and the agents")
    parser.add_argument("--env-options", default=None, help='JSON keyword options for the env, e.g. \'{"rounds": 5}\'')
    parser.add_argument("--render", action="store_true", help="print the final position when the env renders as text")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    options = _parse_options(args.env_options)
    if args.render:
        options.setdefault("render_mode", "ansi")
    env = make_env(args.env, **options)
    seats = list(env.possible_agents)
    names = [name.strip() for name in args.agents.split(",")] if args.agents else ["random"] * len(seats)
    if len(names) != len(seats):
        raise ValueError(f"{env} has {len(seats)} seats {seats}, got {len(names)} agents: {names}")
    agents = {seat: make_agent(name) for seat, name in zip(seats, names)}
    episode = play(env, agents, seed=args.seed)
    if args.render:
        text = env.render()
        if isinstance(text, str):
            print(text, end="" if text.endswith("\n") else "\n")
    for seat, name in zip(seats, names):
        print(f"{seat} ({name}): return {episode.returns[seat]:+g}, rank {episode.ranks[seat]}")
    print(f"result: {episode.outcome} after {episode.length} steps (seed {args.seed})")
    return 0
