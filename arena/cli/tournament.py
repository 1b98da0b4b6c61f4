"""``arena tournament`` and ``arena demo``: play a tournament with a progress bar, print the tables.

Examples::

    arena tournament tic_tac_toe --agents random,mcts --games 100 --workers 2 --db ttt.sqlite
    arena tournament connect_four --agents 'random,connect_four_heuristic,deep=mcts{"simulations": 400}' \\
        --report c4.png --move-time-limit 2
    arena tournament liars_dice --agents random,mcts,a=random,b=random --mode gauntlet --anchor random=0
    arena tournament connect_four --agents connect_four_heuristic,random --sprt 0,100
    arena tournament tic_tac_toe --agents random,mcts,b=mcts{"simulations":20} --until-separated --budget 400
    arena demo            # the README's demo: connect four, four bundled entrants, two workers

Running the same command again resumes from the ``--db`` file: only missing games are played.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from arena.cli._arguments import env_arguments, progress_arguments
from arena.cli.live import bar_pace, games_bar
from arena.cli.standings import print_result, print_separation
from arena.errors import EntrantBuildError, InvalidValueError, MissingDependencyError
from arena.runtime.store import check_output
from arena.specs.agents import parse_agents
from arena.specs.options import parse_anchor, parse_env_options
from arena.tournament.analysis import DEFAULT_BOOTSTRAP
from arena.tournament.exports import export_result
from arena.tournament.rules import Execution, TournamentRules
from arena.tournament.run import TournamentResult, run_tournament
from arena.tournament.schedule import MODES
from arena.tournament.stopping import Stopping

__all__ = ["register", "run", "run_demo_command", "print_result"]


_PROGRESS_HELP = "auto (default): the live progress on a terminal, nothing when piped; none: no progress"


def _rich() -> Any:
    try:
        import rich.console
        import rich.progress
        import rich.table
    except ImportError as err:
        raise MissingDependencyError(
            f"arena tournament needs rich ({err}); install the extra: pip install 'arena-marl[tournament]'"
        ) from None
    return rich


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="play a tournament: win rates with 95%% intervals, ratings, resumable results",
        description="Play a tournament between agents on one env. Each pairing plays every seat equally often; "
        "game i has a seed derived from --seed, so results do not depend on --workers or --backend. "
        "With --db, rerunning the same command resumes.",
    )
    env_arguments(parser, '{"players": 4}')
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated entrants, each [NAME=]FACTORY[{JSON kwargs}]: a registered agent "
        "(see `arena agents`) or 'package.module:factory', e.g. 'random,deep=mcts{\"simulations\": 400}'. "
        "A trained folder (written by `arena train`) is an agent too. In a team game an entrant "
        "plays a side: one agent in every seat (each seat its own), or a team NAME=MEMBER+MEMBER... "
        "in the side's seat order, e.g. 'duo=random+beat_most_common'. With fewer entrants than "
        "seats (pommerman --agents X,random), they take turns around the table, each seat its "
        "own agent, and an entrant is scored by the mean return of its seats",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default="round-robin",
        help="round-robin (every lineup), head-to-head (one seat each), gauntlet (the first agent against the rest)",
    )
    parser.add_argument(
        "--games",
        type=int,
        default=20,
        help="games per pairing, rounded up so every agent plays every seat equally often (default 20)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes (default 1), or Ray actors with --backend ray (default: the cluster's CPUs)",
    )
    parser.add_argument(
        "--backend",
        choices=("serial", "inline", "processes", "ray"),
        default=None,
        help="where games run: serial (one watched worker process), inline (in this process, for debugging), processes or ray (default: serial for one worker, processes otherwise)",
    )
    parser.add_argument(
        "--start-method",
        choices=("forkserver", "spawn", "fork"),
        default=None,
        help="how worker processes start (default forkserver; fork is faster but can hang when "
        "an entrant's library, such as torch, runs threads); results do not depend on it",
    )
    parser.add_argument("--address", default=None, help="the Ray cluster to join (default: start a local one)")
    parser.add_argument(
        "--db", default=None, help="SQLite results file; rerun the same command to resume (default: in memory)"
    )
    parser.add_argument(
        "--report", default=None, metavar="FILE.png", help="write the score-rate heatmap and rating bars"
    )
    parser.add_argument(
        "--export", default=None, metavar="FILE.csv|FILE.json", help="write every game (JSON: plus the summary)"
    )
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument(
        "--move-time-limit",
        type=float,
        default=None,
        metavar="SEC",
        help="seconds per move (at most 86400); a slower move loses the game by forfeit",
    )
    parser.add_argument("--max-steps", type=int, default=None, help="cut a game after this many env steps")
    parser.add_argument(
        "--seatings",
        choices=("auto", "all", "rotations"),
        default="auto",
        help="seat permutations per lineup: all, the k rotations, or auto (all up to 3 seats)",
    )
    progress_arguments(parser, ("auto", "none"), _PROGRESS_HELP)
    parser.add_argument(
        "--exclude-unbuildable",
        action="store_true",
        help="play without the entrants that cannot be built (listed as excluded) instead of stopping "
        "with exit status 2 before any game; an entrant that fails during games forfeits them either way",
    )
    _add_evaluation_options(parser)
    parser.set_defaults(run=run)
    _register_demo(subparsers)


def _add_evaluation_options(parser: argparse.ArgumentParser) -> None:
    evaluation = parser.add_argument_group("evaluation (see docs/evaluation.md)")
    evaluation.add_argument(
        "--no-duplicate",
        action="store_true",
        help="a seed per game; by default the games of a lineup come in sets that share one chance "
        "seed and rotate the seats (duplicate games)",
    )
    evaluation.add_argument(
        "--sprt",
        default=None,
        metavar="ELO0,ELO1",
        help="two-entrant match that stops when the sequential test of ELO0 against ELO1 (the first "
        "agent's Elo advantage) decides; pentanomial over duplicate pairs",
    )
    evaluation.add_argument("--alpha", type=float, default=0.05, help="SPRT false-positive rate (default 0.05)")
    evaluation.add_argument("--beta", type=float, default=0.05, help="SPRT false-negative rate (default 0.05)")
    evaluation.add_argument(
        "--until-separated",
        action="store_true",
        help="after --games per lineup, keep playing the pairs whose order is uncertain until every "
        "adjacent pair of the standings is separated or --budget runs out",
    )
    evaluation.add_argument(
        "--budget", type=int, default=None, help="most games of an --sprt or --until-separated run (default 1000)"
    )
    evaluation.add_argument(
        "--anchor",
        default=None,
        metavar="NAME=ELO",
        help="fix one entrant's batch Elo, e.g. random=0 (default: ratings average 0)",
    )
    evaluation.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_BOOTSTRAP,
        help=f"bootstrap resamples of game sets for the batch Elo intervals (default {DEFAULT_BOOTSTRAP}, as in "
        "arena report, so the same games show the same intervals; 0: none)",
    )


def _register_demo(subparsers: argparse._SubParsersAction) -> None:
    demo = subparsers.add_parser(
        "demo",
        help="run the demo tournament (connect four: random, heuristic, MCTS, an agent behind an interface)",
        description="A round-robin on connect four between random, the heuristic, MCTS and the heuristic behind a "
        "mirroring interface; writes OUT/results.sqlite and OUT/report.png. Rerunning resumes.",
    )
    demo.add_argument("--out", default="arena-demo", help="output folder (default ./arena-demo)")
    demo.add_argument("--games", type=int, default=24, help="games per pairing (default 24)")
    demo.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    demo.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    progress_arguments(demo, ("auto", "none"), _PROGRESS_HELP)
    demo.set_defaults(run=run_demo_command)


class _ProgressBar:
    """A rich progress bar, started on the first update (after any worker process has forked)."""

    def __init__(self, console: Any, enabled: bool) -> None:
        # Only on a terminal: piped into a log, a progress bar leaves its last frame there.
        self.console, self.enabled = console, enabled and console.is_terminal
        self.bar: Any = None
        self.task: Any = None
        self.start = time.perf_counter()
        self.first_done = 0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            self.first_done = done
            self.bar = games_bar(self.console)
            self.bar.start()
            self.task = self.bar.add_task("games", total=total, completed=done, rate="")
        elapsed = time.perf_counter() - self.start
        self.bar.update(self.task, completed=done, rate=bar_pace(done - self.first_done, elapsed))

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _play(console: Any, progress: str, play: Any) -> TournamentResult:
    bar = _ProgressBar(console, enabled=progress != "none")
    try:
        return play(bar)
    finally:
        bar.stop()


def parse_sprt(text: str | None) -> tuple[float, float] | None:
    """``"ELO0,ELO1"`` as two floats (``None`` stays ``None``).

    Example:
        >>> parse_sprt("0,50")
        (0.0, 50.0)
    """
    if text is None:
        return None
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise InvalidValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise InvalidValueError(f"--sprt: expected ELO0,ELO1 (two numbers, e.g. 0,50), got {text!r}") from None


def run(args: argparse.Namespace) -> int:
    from arena.cli.live import LiveBoard, sprt_line

    rich = _rich()
    console = rich.console.Console()
    options = parse_env_options(args.env_options)
    agents = parse_agents(args.agents)
    # Refuse unwritable outputs now, not after the last game.
    if args.export:
        check_output(args.export, what="--export", suffixes=(".csv", ".json"), db=args.db)
    if args.report:
        check_output(
            args.report,
            what="--report",
            suffixes=(".png", ".pdf", ".svg", ".jpg", ".jpeg", ".webp", ".eps", ".ps", ".tif", ".tiff"),
            db=args.db,
        )
    if args.bootstrap < 0:
        raise InvalidValueError(f"--bootstrap must be a non-negative number of resamples, got {args.bootstrap}")
    sprt, anchor = parse_sprt(args.sprt), parse_anchor(args.anchor)
    board = LiveBoard(console, enabled=args.progress != "none")
    try:
        result = run_tournament(
            rules=TournamentRules.make(
                args.env,
                agents,
                mode=args.mode,
                games=args.games,
                seed=args.seed,
                move_time_limit=args.move_time_limit,
                max_steps=args.max_steps,
                seatings=args.seatings,
                env_kwargs=options,
                duplicate=not args.no_duplicate,
                anchor=anchor,
                exclude_unbuildable=args.exclude_unbuildable,
            ),
            db=args.db,
            progress=board,
            monitor=board.monitor,
            execution=Execution.make(args.backend, args.workers, address=args.address, start_method=args.start_method),
            stopping=Stopping(
                sprt=sprt, alpha=args.alpha, beta=args.beta, until_separated=args.until_separated, budget=args.budget
            ),
        )
    except EntrantBuildError as err:
        raise EntrantBuildError(f"{err} (--exclude-unbuildable plays without it)", err.reasons) from None
    finally:
        board.stop()
    print_result(result, console, bootstrap=args.bootstrap)
    if result.sprt is not None:
        console.print(
            sprt_line(result.sprt_state, result.sprt, result.entrants), soft_wrap=True, markup=False, highlight=False
        )
    print_separation(result, console)
    if args.report:
        from arena.tournament.report import save_report

        console.print(
            f"report: {save_report(result, args.report, bootstrap=args.bootstrap)}",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )
    if args.export:
        export_result(result, args.export, bootstrap=args.bootstrap)
        console.print(
            f"exported {len(result.games)} games to {args.export}", soft_wrap=True, markup=False, highlight=False
        )
    return 0


def run_demo_command(args: argparse.Namespace) -> int:
    from arena.tournament.demo import run_demo

    rich = _rich()
    console = rich.console.Console()
    console.print(
        "[bold]arena demo[/bold]: connect four round-robin between random, the connect four heuristic, "
        "MCTS and the heuristic behind a mirroring interface"
    )
    result = _play(
        console,
        args.progress,
        lambda bar: run_demo(args.out, games=args.games, workers=args.workers, seed=args.seed, progress=bar),
    )
    print_result(result, console)
    console.print(
        f"report: {args.out}/report.png; rerun `arena demo` to resume, or see `arena tournament --help`",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )
    return 0
