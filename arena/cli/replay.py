"""``arena replay``: list, step through, verify, film or show the stored games of a results file.

Examples::

    arena replay results.db                          # the stored games, with their numbers
    arena replay results.db --game 3                 # step through game 3 in the terminal
    arena replay results.db --verify                 # replay every game, report any mismatch
    arena replay results.db --game 3 --html g3.html  # a self-contained web page
    arena replay results.db --game 3 --video g3.mp4  # a video (envs that draw pictures)
    arena replay battle.db --game 1 --html b.html --side-view "magent_grid_control(map_size=12)"
    arena replay old_pong.db --verify --env-options '{"ball_spin": 3}'  # stored before a default changed

Exit codes: 0 done, 1 ``--verify`` found games whose replay differs, 2 bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING, Any

from arena.cli._text import plain, trust_argument, trust_value
from arena.errors import ArenaError, InvalidValueError
from arena.specs.envs import EnvSpec
from arena.text import printable

if TYPE_CHECKING:
    from arena.replay.source import StoredGame

__all__ = ["register", "run"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="list, step through, verify, film or show stored games",
        description="Replay the games stored in a results file (arena tournament --db, arena play --record).",
        epilog="keys when stepping: Enter/n next, p previous, NUMBER jump, f first, l last, q quit. "
        "exit codes: 0 done, 1 --verify found mismatches, 2 bad input",
    )
    parser.add_argument("db", help="the results file")
    parser.add_argument(
        "--game", default=None, metavar="ID", help="the game: its number in the listing, or LINEUP#INDEX"
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="replay every stored game and report any whose result differs from the stored one",
    )
    parser.add_argument("--html", default=None, metavar="FILE.html", help="write a self-contained web page of the game")
    parser.add_argument(
        "--video",
        default=None,
        metavar="FILE.mp4|FILE.gif",
        help="write a video of the game (envs that render pictures)",
    )
    parser.add_argument(
        "--side-view",
        default=None,
        metavar="INTERFACE",
        help="with --html in a team env: show each side through this side interface (a registered "
        "interface spec taking a side's Tuple of observations; default: the env's own, "
        "e.g. MAgent2's battlefield map with minimap_mode)",
    )
    parser.add_argument("--fps", type=float, default=None, help="frames a second of the video (default: the env's)")
    parser.add_argument(
        "--env-options",
        default=None,
        metavar="JSON",
        help="keyword options laid over the env's stored ones, for a file stored before a default changed "
        "(pong_2p's ball_spin was 3 until 27 Nov 2026: '{\"ball_spin\": 3}')",
    )
    trust_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.registry import reading_data

    with reading_data(f"results file {args.db!r}", trust_value(args.trust)):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from arena.replay.source import list_games, load_game
    from arena.specs.options import parse_env_options

    options = parse_env_options(args.env_options) if args.env_options is not None else {}
    if args.verify:
        if args.game is not None or args.html or args.video:
            raise InvalidValueError("--verify checks every game; give it without --game, --html or --video")
        return _verify(args.db, trust_value(args.trust), options)
    if args.game is None:
        if args.html or args.video:
            raise InvalidValueError("--html and --video need the game: --game ID (`arena replay DB` lists them)")
        _listing(args.db, list_games(args.db))
        return 0
    if args.fps is not None and not args.fps > 0:
        raise InvalidValueError(f"--fps must be a positive number, got {args.fps}")
    if args.side_view is not None and not args.html:
        raise InvalidValueError("--side-view is drawn on the --html page: give --html FILE.html too")
    game = _with_options(load_game(args.db, args.game, trust=trust_value(args.trust)), options)
    if args.html or args.video:
        if args.html:
            from arena.replay.html import write_html

            print(printable(f"wrote {write_html(game, args.html, args.side_view)}"))
            for note in game.notes:
                print(printable(f"note: {note}"))
        if args.video:
            from arena.replay.video import write_video

            print(printable(f"wrote {write_video(game, args.video, args.fps)}"))
        return 0
    from arena.replay.terminal import step_through

    step_through(game)
    return 0


def _listing(db: str, games: list) -> None:
    """The stored games, one seat per line; a long name wraps, never cut (who sat where must show).
    The lineup key, which ``--game`` also takes, is left out when the terminal is too narrow for it."""
    from rich.console import Console

    console = Console()
    table = _games_table(games, with_lineup=True)
    if console.measure(table, options=console.options.update_width(10_000)).maximum > console.width:
        table = _games_table(games, with_lineup=False)
    console.print(plain(f"{db}: {len(games)} stored games"), soft_wrap=True)  # a long path stays one line
    console.print(table)


def _games_table(games: list, with_lineup: bool) -> Any:
    import rich.box
    from rich.table import Table

    table = Table(box=rich.box.SIMPLE_HEAD, padding=(0, 1))
    table.add_column("game", no_wrap=True)
    table.add_column("seats", overflow="fold")
    table.add_column("outcome", overflow="fold")
    for column in ("steps", "seed", "replay"):
        table.add_column(column, no_wrap=True)
    if with_lineup:
        table.add_column("lineup#index", overflow="fold")
    for game_id, result, has_actions in games:
        table.add_row(
            str(game_id),
            plain("\n".join(f"{seat}={name}" for seat, name in result.seats.items())),
            plain(result.outcome),
            str(result.length),
            str(result.seed),
            "yes" if has_actions else "no",
            *([plain(f"{result.lineup}#{result.index}")] if with_lineup else []),
        )
    return table


def _with_options(game: StoredGame, options: dict[str, Any]) -> StoredGame:
    """``game`` with ``options`` laid over its env's stored keyword options (itself when there are none)."""
    return dataclasses.replace(game, env=EnvSpec.coerce(game.env, options)) if options else game


def _verify_in(built: dict[tuple[str, str], Any], game: StoredGame) -> str | None:
    """Verify ``game`` on the env that ``built`` keeps for its env and options (built on first use): a
    tournament's worker plays its games on one env too, each reset with its game's seed.

    A soccer env takes about half a second to build and a game of the suite's a fifth of that. After a
    mismatch or a failed replay the env may be mid-game or broken: the next game gets a new one.
    """
    from arena.replay.engine import build_env, verify_game

    key = (game.env.factory, json.dumps(game.env.kwargs, sort_keys=True))
    if key not in built:
        try:
            built[key] = build_env(game)
        except Exception:  # verify_game builds it again and reports the failure in its words
            return verify_game(game)
    problem = verify_game(game, env=built[key])
    if problem is not None:
        built.pop(key).close()
    return problem


def _verify(db: str, trust: bool | frozenset[str], options: dict[str, Any]) -> int:
    from arena.env import factory_metadata
    from arena.registry import resolve
    from arena.replay.source import load_games

    games = [_with_options(game, options) for game in load_games(db, trust=trust)]
    if not games:
        raise ArenaError(f"replay --verify: {db} has no stored games")
    factory = games[0].env.factory
    if factory_metadata(resolve("env", factory)).get("reproducible", True) is False:
        raise ArenaError(
            f"replay --verify: {factory} declares that its episodes do not follow from seed and "
            f"actions (metadata['reproducible'] is False): the games of {db} can be watched, not verified"
        )
    checked = unreplayable = forfeits = 0
    mismatches = []
    built: dict[tuple[str, str], Any] = {}
    try:
        for game in games:
            if game.steps is None:
                unreplayable += 1
                continue
            problem = _verify_in(built, game)
            checked += 1
            forfeits += game.result.forfeit is not None
            if problem is not None:
                mismatches.append((game, problem))
    finally:
        for env in built.values():
            env.close()
    if not checked:
        raise ArenaError(
            f"replay --verify: none of the {len(games)} games of {db} has stored actions "
            "(env errors, or a file older than action storage): nothing to verify"
        )
    for game, problem in mismatches:
        print(printable(f"MISMATCH {game.title}: {problem}"))
    notes = []
    if forfeits:
        notes.append(f"{forfeits} forfeited, replayed up to the forfeit")
    if unreplayable:
        notes.append(f"{unreplayable} without stored actions (env errors or older files), not replayed")
    extra = f" ({'; '.join(notes)})" if notes else ""
    print(printable(f"verified {checked} games of {db}: {len(mismatches)} mismatches{extra}"))
    sys.stdout.flush()
    return 1 if mismatches else 0
