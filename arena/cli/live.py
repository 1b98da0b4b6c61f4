"""The live display of ``arena tournament``: a progress bar and, for adaptive runs, the evaluation so far.

One :class:`rich.live.Live` holds the games progress bar and a panel that the tournament's
``monitor`` updates after each round: the SPRT's LLR between its bounds, or the standings
(batch Elo) with each adjacent pair's score interval and whether it is separated.
"""

from __future__ import annotations

import math
import time
from typing import Any

from arena.cli._text import plain
from arena.cli.standings import pace_text

__all__ = ["LiveBoard", "sprt_line", "standings_table", "games_bar", "bar_pace"]


def sprt_line(state: Any, test: Any, names: list[str]) -> str:
    """Where the test stands: ``LLR +1.23, between the bounds -2.94 and +2.94, after 14 pairs``
    while it runs; ``LLR +3.07, past the upper bound +2.94, after 20 pairs: H1 accepted, ...``
    once it has decided (the verdict is the one at the first crossing).

    Example:
        >>> from arena.evaluation import SPRT
        >>> test = SPRT(0, 100)
        >>> sprt_line(test.state([0, 1, 3, 6, 10]), test, ["a", "b"]).split(": ", 1)[1]
        'LLR +4.94, past the upper bound +2.94, after 20 pairs: H1 accepted, a is stronger by about 100 Elo or more'
    """
    unit = "pairs" if test.pentanomial else "games"
    if state.llr >= state.upper:
        where = f"past the upper bound {state.upper:+.2f}"
    elif state.llr <= state.lower:
        where = f"past the lower bound {state.lower:+.2f}"
    else:
        where = f"between the bounds {state.lower:+.2f} and {state.upper:+.2f}"
    text = (
        f"SPRT elo0={test.elo0:g} elo1={test.elo1:g} (alpha={test.alpha:g}, beta={test.beta:g}): "
        f"LLR {state.llr:+.2f}, {where}, after {state.units} {unit}"
    )
    if state.verdict == "H1":
        text += f": H1 accepted, {names[0]} is stronger by about {test.elo1:g} Elo or more"
    elif state.verdict == "H0":
        text += f": H0 accepted, {names[0]} is not stronger than {test.elo0:g} Elo"
    return text


def standings_table(result: Any) -> Any:
    """A rich table: place, entrant, the figure the standings rank by (batch Elo, or a ``"return"``
    env's mean return per game), games, and the interval to the next entrant; in an adaptive run
    (``result.separation`` set) also whether each judged pair is separated."""
    import rich.box
    import rich.table

    from arena.tournament.evaluation_inputs import return_estimate

    by_return = result.result_kind == "return"
    if by_return:
        means = {name: return_estimate(result.games, name).mean for name in result.entrants}
        known = {name: mean for name, mean in means.items() if not math.isnan(mean)}
        order = sorted(known, key=lambda name: (-known[name], name)) + sorted(set(means) - set(known))
        figure = {name: "-" if math.isnan(means[name]) else f"{means[name]:+.2f}" for name in order}
        games = {name: sum(1 for g in result.games if g.returns and name in g.returns) for name in order}
    else:
        fit = result.elo()
        order = fit.order()
        figure = {name: f"{fit.ratings[name]:+.0f}" for name in order}
        games = {name: fit.games.get(name, 0) for name in order}
    adaptive = result.separation is not None
    apart = {(a, b): ok for a, b, ok in (result.separation or [])}
    table = rich.table.Table(
        title=f"standings so far ({'mean return per game' if by_return else 'batch Elo'}; "
        "95% interval of the score against the next below)",
        box=rich.box.SIMPLE_HEAD,
        padding=(0, 1),
        title_justify="left",
    )
    for column in (
        "#",
        "agent",
        "return/game" if by_return else "elo",
        "games",
        "vs next: score [95%]",
        *(("separated",) if adaptive else ()),
    ):
        wraps = column == "agent"  # a long name wraps (never cut); the numbers stay whole
        table.add_column(column, justify="left" if wraps else "right", no_wrap=not wraps, overflow="fold")
    for place, name in enumerate(order, 1):
        below = order[place] if place < len(order) else None
        stats = result.pairings.get((name, below)) if below else None
        cell = (
            "-"
            if stats is None or not stats.games
            else f"{stats.score:.0%} [{stats.interval[0]:.0%}-{stats.interval[1]:.0%}]"
        )
        # the pair this row is judged in: with the next below, or (a gauntlet) with the challenger
        pair = (name, below) if (name, below) in apart else next((p for p in apart if p[1] == name), None)
        sep = None if not adaptive else "" if pair is None else "yes" if apart[pair] else "no"
        table.add_row(
            str(place),
            plain(name),
            figure[name],
            str(games[name]),
            cell,
            *(() if sep is None else (sep,)),
        )
    return table


def bar_pace(games: int, seconds: float) -> str:
    """The progress bar's pace (empty until a game has finished)."""
    return pace_text(games, seconds) if games > 0 else ""


def games_bar(console: Any) -> Any:
    """The rich progress bar of games (count, pace, time left) that both progress views show.

    The pace is the task's ``rate`` field (:func:`bar_pace`); the bar stays on screen when it ends.
    """
    from rich import progress

    return progress.Progress(
        progress.TextColumn("[bold]games"),
        progress.BarColumn(),
        progress.MofNCompleteColumn(),
        progress.TextColumn("{task.fields[rate]}"),
        progress.TextColumn("ETA"),
        progress.TimeRemainingColumn(),
        console=console,
        transient=False,
    )


class LiveBoard:
    """Games progress and evaluation status in one live display (usable as ``progress`` and ``monitor``);
    shown only on a terminal, so piped output holds the final tables alone."""

    def __init__(self, console: Any, enabled: bool = True) -> None:
        # Only on a terminal: piped into a log, a live display leaves its last frame there, unended.
        self.console, self.enabled = console, enabled and console.is_terminal
        self.live: Any = None
        self.bar: Any = None
        self.task: Any = None
        self.status: Any = ""
        self.start = time.perf_counter()
        self.first_done = 0

    def _renderable(self) -> Any:
        from rich.console import Group

        return Group(self.bar, self.status) if self.status != "" else Group(self.bar)

    def __call__(self, done: int, total: int) -> None:
        """Progress: ``done`` of ``total`` games (started on the first call, after workers fork)."""
        if not self.enabled:
            return
        if self.live is None:
            from rich.live import Live

            self.first_done = done
            self.bar = games_bar(self.console)
            self.task = self.bar.add_task("games", total=total, completed=done, rate="")
            self.live = Live(self._renderable(), console=self.console, refresh_per_second=4, transient=False)
            self.live.start()
        elapsed = time.perf_counter() - self.start
        self.bar.update(
            self.task, completed=done, total=max(total, done), rate=bar_pace(done - self.first_done, elapsed)
        )

    def monitor(self, result: Any) -> None:
        """Show where the evaluation stands (the tournament calls this after each round)."""
        if result.sprt is not None and result.sprt_state is not None:
            self.status = plain(sprt_line(result.sprt_state, result.sprt, result.entrants))  # no markup in names
        elif result.separation is not None or len(result.entrants) > 2:
            if not any(game.ranks for game in result.games):
                return
            self.status = standings_table(result)
        if self.live is not None:
            self.live.update(self._renderable())

    def stop(self) -> None:
        if self.live is not None:
            self.live.update(self._renderable())
            self.live.stop()
