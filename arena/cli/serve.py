"""``arena serve``: play a game in the browser against an agent.

Examples::

    arena serve tic_tac_toe --vs mcts                 # open the printed address, click to move
    arena serve pong_2p --vs pong_ai --port 8000      # arrow keys, at the game's tick
    arena serve connect_four --vs connect_four_heuristic --seat player_1 --record games.db

The server listens on 127.0.0.1 only, answers only its own page (the printed address carries a
secret token; ``Host`` and ``Origin`` must name the server), plays one game at a time, and stops
with Ctrl-C. Every option, ``--vs`` included, is checked before it listens.
"""

from __future__ import annotations

import argparse

from arena.cli._arguments import env_arguments
from arena.errors import InvalidValueError
from arena.text import printable

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="play a game in the browser against an agent (a local web server)",
        description="Start a local web server (127.0.0.1) where a person plays ENV in the browser against agents: "
        "clicks for turn-based games, the keyboard at a fixed tick for real-time games.",
    )
    env_arguments(parser)
    parser.add_argument(
        "--vs",
        default="random",
        metavar="AGENT",
        help="the agent for the other seats: a name, 'module:factory' (with JSON keyword "
        "arguments), or a trained folder written by `arena train` (e.g. runs/c4); default: random",
    )
    parser.add_argument(
        "--seat", default=None, help="the seat the person plays (an agent id or its number; default: the first)"
    )
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (0: any free port; default 8000)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the first game (default: drawn)")
    parser.add_argument(
        "--move-time-limit",
        type=float,
        default=5.0,
        help="seconds the agent may take per move (at most 86400), over it forfeits (default 5)",
    )
    parser.add_argument("--record", default=None, metavar="FILE", help="store every game in this results file")
    parser.add_argument(
        "--fps", type=float, default=None, help="ticks a second of real-time games (default: the env's, at most 15)"
    )
    parser.add_argument(
        "--games", type=int, default=None, help="stop after this many games (default: serve until Ctrl-C)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.runtime.guard import check_move_time_limit
    from arena.serve.server import GameServer
    from arena.specs.envs import EnvSpec
    from arena.specs.options import parse_env_options

    options = parse_env_options(args.env_options)
    if not 0 <= args.port <= 65535:
        raise InvalidValueError(f"--port must be 0 (any free port) to 65535, got {args.port}")
    check_move_time_limit(args.move_time_limit, "--move-time-limit")
    if args.fps is not None and not args.fps > 0:
        raise InvalidValueError(f"--fps must be a positive number, got {args.fps}")
    if args.games is not None and args.games < 1:
        raise InvalidValueError(f"--games must be at least 1, got {args.games}")
    server = GameServer(
        EnvSpec(args.env, options),
        args.vs,
        seat=args.seat,
        port=args.port,
        seed=args.seed,
        move_time_limit=args.move_time_limit,
        record=args.record,
        fps=args.fps,
    )
    server.start()
    print(
        f"arena serve: {server.name} at {server.url} (you play {server.seat} against {args.vs}); open this address "
        "(its token lets only you in); Ctrl-C stops",
        flush=True,
    )

    def report(record: dict) -> None:
        print(
            printable(f"game over: {record['outcome']}")
            + (f" (recorded as game {record['game']})" if "game" in record else ""),
            flush=True,
        )

    try:
        server.run_games(args.games, on_game=report)
    finally:
        server.stop()
    return 0
