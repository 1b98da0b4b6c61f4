"""``arena report``: standings, pairwise table, ratings, Nash weights and plots from stored results.

Examples::

    arena report ttt.sqlite
    arena report run1.sqlite run2.sqlite --anchor random=0 --json report.json --html report.html --png report.png

Several files of tournaments on the same env are pooled into one rating list; no game is played.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from arena.cli._text import plain
from arena.errors import InvalidValueError

__all__ = ["register", "run", "print_report", "finite_json"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="rebuild standings, ratings, Nash weights and plots from tournament results files",
        description="Read one or more tournament results files (--db) of the same env, pool their games and report "
        "standings with batch Elo and bootstrap intervals, the pairwise table, Nash averaging and "
        "alpha-rank. Plays no game.",
    )
    parser.add_argument("db", nargs="+", help="results files (SQLite, from arena tournament --db)")
    parser.add_argument("--json", default=None, metavar="FILE", help="write the report as JSON ('-': to stdout)")
    parser.add_argument("--html", default=None, metavar="FILE", help="write an HTML page (standings, tables, games)")
    parser.add_argument(
        "--replay-pages",
        action="store_true",
        help="with --html: write each stored game's replay page into a folder beside the report "
        "(FILE_replays/) and link every game row to it (one page per game: slow for big files)",
    )
    parser.add_argument("--png", default=None, metavar="FILE", help="write the heatmap, ratings and meta-game plot")
    parser.add_argument("--anchor", default=None, metavar="NAME=ELO", help="fix one entrant's Elo, e.g. random=0")
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="bootstrap resamples for the Elo intervals (default 200, as in arena tournament)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from arena.registry import reading_data

    # A report builds nothing from the files; should anything try, names resolve through the registry only.
    with reading_data(f"results file {args.db[0]!r}" if len(args.db) == 1 else "the results files"):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from arena.cli.tournament import _rich
    from arena.specs.options import parse_anchor
    from arena.tournament.analysis import analyse, load_results

    if args.bootstrap < 0:
        raise InvalidValueError(f"--bootstrap must be a non-negative number of resamples, got {args.bootstrap}")
    origins: dict[int, tuple[str, int]] = {}
    result = load_results(args.db, anchor=parse_anchor(args.anchor), origins=origins)
    report = finite_json(analyse(result, bootstrap=args.bootstrap, seed=args.seed))
    if args.json == "-":
        print(json.dumps(report, indent=1, allow_nan=False))
        return 0
    rich = _rich()
    console = rich.console.Console()
    print_report(report, console)
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(report, handle, indent=1, allow_nan=False)
        console.print(plain(f"json: {args.json}"), soft_wrap=True)
    if args.replay_pages and not args.html:
        raise InvalidValueError("--replay-pages links the games of the --html page: give --html FILE too")
    if args.html:
        from arena.tournament.html_report import game_link, write_html

        link = game_link
        if args.replay_pages:
            link = _replay_links(sorted({path for path, _ in origins.values()}, key=args.db.index), args.html, origins)
        console.print(plain(f"html: {write_html(args.html, report, result.games, link=link)}"), soft_wrap=True)
    if args.png:
        from arena.tournament.report import save_evaluation_png

        console.print(plain(f"png: {save_evaluation_png(report, args.png)}"), soft_wrap=True)
    return 0


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float (NaN, infinities) as ``None``: strict JSON.

    Example:
        >>> finite_json({"elo": float("nan"), "rows": [1.5, float("inf")]})
        {'elo': None, 'rows': [1.5, None]}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_json(item) for item in value]
    return value


def _replay_links(dbs: list[str], html: str, origins: dict[int, tuple[str, int]]) -> Any:
    """Write every game's replay page beside the report; the link maker of its game rows
    (each row links by the file and game number it came from, so files of one base name stay apart)."""
    from pathlib import Path

    from arena.replay.html import write_replay_pages

    report = Path(html)
    folder = report.with_name(f"{report.stem}_replays")
    pages = write_replay_pages(dbs, folder)

    def link(game: Any) -> str | None:
        page = pages.get(origins.get(id(game), ("", -1)))
        return None if page is None else f"{folder.name}/{page.name}"

    return link


def print_report(report: dict[str, Any], console: Any) -> None:
    """The standings (with Nash weights and alpha-rank), the pairwise table and where the figures
    disagree: the tables ``arena tournament`` prints, from the same analysis."""
    from arena.cli.standings import members_table, meta_game_table, metric_notes, print_pairs, standings_table

    console.print(
        plain(f"{report['env']['factory']}: {report['games']} games from {report['sources']}"), soft_wrap=True
    )
    console.print(standings_table(report))
    if report["members"]:
        console.print(members_table(report))
    print_pairs(report, console)
    console.print(meta_game_table(report))
    for note in metric_notes(report):
        console.print(plain(note), soft_wrap=True)
    if report["unmet"]:
        console.print(
            plain(f"never met (even in the meta-game): {', '.join(' vs '.join(p) for p in report['unmet'])}"),
            soft_wrap=True,
        )
