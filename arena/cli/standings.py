"""The result tables of ``arena tournament`` and ``arena report``, drawn from one analysis.

Both commands print what :func:`arena.tournament.analysis.analyse` returns, so a figure has one
label and one meaning wherever it appears: every ``x ± h`` and every ``low .. high`` is a 95%
interval, every table says what it ranks by (the env's result kind) and how many games stand
behind each figure, and where two figures order entrants differently a note says why.
"""

from __future__ import annotations

import math
from typing import Any

from arena.cli._text import plain
from arena.evaluation.results import result_description

__all__ = [
    "members_table",
    "meta_game_table",
    "members_text",
    "metric_notes",
    "pace_text",
    "print_members",
    "print_pairs",
    "print_result",
    "print_separation",
    "standings_table",
]


def _table(title: str) -> Any:
    """A table that fits 80 columns: no vertical rules, one space between columns."""
    import rich.box
    import rich.table

    return rich.table.Table(
        title=title,
        box=rich.box.SIMPLE_HEAD,
        padding=(0, 1),
        collapse_padding=True,
        pad_edge=False,
        title_justify="left",
    )


def _fmt(value: Any, spec: str) -> str:
    """``value`` formatted, or ``-`` where there is none (no game, or not defined for the env)."""
    return "-" if value is None or (isinstance(value, float) and not math.isfinite(value)) else format(value, spec)


def _interval(low: Any, high: Any, spec: str) -> str:
    return "-" if low is None or high is None else f"{_fmt(low, spec)} .. {_fmt(high, spec)}"


def _plus_minus(value: Any, low: Any, high: Any, spec: str) -> str:
    """``value ± half-width`` of its 95% interval (``value ± -`` where the interval is unknown)."""
    if value is None:
        return "-"
    return f"{_fmt(value, spec)} ± {_fmt(None if high is None else high - value, spec.lstrip('+'))}"


def pace_text(games: int, seconds: float) -> str:
    """How fast games went, readable at any speed: games a second, or seconds a game when slower
    than one a second (``0.0 games/s`` says nothing about a game that takes a minute).

    Example:
        >>> pace_text(120, 10.0), pace_text(10, 81.0), pace_text(0, 5.0)
        ('12.0 games/s', '8.1 s/game', 'no game played')
    """
    if games <= 0 or seconds <= 0:
        return "no game played"
    rate = games / seconds
    return f"{rate:,.1f} games/s" if rate >= 1 else f"{seconds / games:,.1f} s/game"


def standings_title(report: dict[str, Any], teams: bool = False) -> str:
    """What the standings rank by: the env's result kind, and (by Elo) the fit's anchor."""
    kind = report["result_kind"]
    what = "team standings" if teams else "standings"
    if report["ranked_by"] == "mean_return":
        return (
            f"{what} by mean return per game ({kind} env; 95% interval over duplicate sets). "
            "score: games won (split pots half), which this env does not rank by; Elo and "
            "openskill rate wins, so they are not given"
        )
    anchor = report["anchor"]
    fixed = f"anchored at {anchor[0]} = {anchor[1]:g}" if anchor else "mean 0"
    return (
        f"{what} by {result_description(kind)} ({kind} env): batch Elo over all games, {fixed}; "
        "mu: openskill; every interval and ± is 95%"
    )


def standings_table(report: dict[str, Any], *, teams: bool = False) -> Any:
    """The standings of an :func:`~arena.tournament.analysis.analyse` report as a rich table."""
    by_return = report["ranked_by"] == "mean_return"
    table = _table(standings_title(report, teams))
    forfeits = any(row["forfeits"] for row in report["standings"])
    columns = ["#", "team" if teams else "agent"]
    if by_return:
        columns += ["return/game", "95% interval", "score"]
    else:
        columns += ["elo", "95% interval", "score", "mu ± 95%"]
    columns += ["games", *(("forfeits",) if forfeits else ())]
    for column in columns:
        left = column in ("agent", "team")  # a long name wraps (never cut); the numbers stay whole
        table.add_column(column, justify="left" if left else "right", no_wrap=not left, overflow="fold")
    for place, row in enumerate(report["standings"], 1):
        if by_return:
            figures = [
                _fmt(row["mean_return"], "+.2f"),
                _interval(row["return_low"], row["return_high"], "+.2f"),
                _fmt(row["score"], ".0%"),
            ]
        else:
            figures = [
                _fmt(row["elo"], "+.0f"),
                _interval(row["elo_low"], row["elo_high"], "+.0f"),
                _fmt(row["score"], ".0%"),
                _plus_minus(row["mu"], row["mu_low"], row["mu_high"], ".1f"),
            ]
        table.add_row(
            str(place),
            plain(row["name"]),
            *figures,
            str(row["games"]),
            *((str(row["forfeits"]),) if forfeits else ()),
        )
    return table


def meta_game_table(report: dict[str, Any]) -> Any:
    """Nash averaging and alpha-rank of the meta-game, in the standings' order."""
    table = _table(
        f"meta-game of the {report['meta_game']} table: Nash weight and score (maximum-entropy Nash "
        "equilibrium), alpha-rank mass"
    )
    for column in ("#", "agent", "nash weight", "nash score", "alpha-rank"):
        wraps = column == "agent"  # a long name wraps (never cut); the numbers stay whole
        table.add_column(column, justify="left" if wraps else "right", no_wrap=not wraps, overflow="fold")
    for place, row in enumerate(report["standings"], 1):
        table.add_row(
            str(place),
            plain(row["name"]),
            _fmt(row["nash_weight"], ".3f"),
            _fmt(row["nash_score"], "+.3f"),
            _fmt(row["alpha_rank"], ".3f"),
        )
    return table


def metric_notes(report: dict[str, Any]) -> list[str]:
    """Where two figures of the standings order a pair of entrants differently, why.

    For a ``"return"`` env: an entrant that wins more games but less per game (poker: many small
    pots against a few big ones). Otherwise: openskill, rated game by game (so it depends on the
    order of the games), against the batch Elo fitted to all games at once.
    """
    rows = report["standings"]
    notes = []
    for upper, lower in zip(rows, rows[1:]):
        if report["ranked_by"] == "mean_return":
            if upper["score"] is not None and lower["score"] is not None and upper["score"] < lower["score"]:
                notes.append(
                    f"{lower['name']} won more games ({lower['score']:.0%} against {upper['score']:.0%}), "
                    f"{upper['name']} more per game ({_fmt(upper['mean_return'], '+.2f')} against "
                    f"{_fmt(lower['mean_return'], '+.2f')}): this env's result is the return, so the "
                    "standings follow the mean return"
                )
        elif upper["mu"] is not None and lower["mu"] is not None and upper["mu"] < lower["mu"]:
            notes.append(
                f"openskill puts {lower['name']} above {upper['name']} (mu {lower['mu']:.1f} against "
                f"{upper['mu']:.1f}): it rates game by game, so it depends on their order; the standings "
                "follow the batch Elo, fitted to all games at once"
                + (" (their intervals overlap)" if _overlap(upper, lower) else "")
            )
    return notes


def _overlap(upper: dict[str, Any], lower: dict[str, Any]) -> bool:
    if upper["elo_low"] is None or lower["elo_high"] is None:
        return True
    return bool(upper["elo_low"] <= lower["elo_high"])


def members_text(spec: Any) -> str:
    """An entrant's members, one line each in the side's seat order (a repeat counted: ``random x2``);
    a plain entrant in a team game plays every seat of its side, each seat its own agent.

    Example:
        >>> from arena.specs.agents import AgentSpec
        >>> print(members_text(AgentSpec.parse("duo=random+random+beat_most_common")))
        random x2
        beat_most_common
        >>> members_text(AgentSpec.parse("random"))
        'random in every seat'
    """
    if not spec.members:
        return f"{spec.label()} in every seat"
    lines: list[list[Any]] = []
    for member in spec.members:
        text = member.label()  # a trained folder by its name
        if lines and lines[-1][0] == text:
            lines[-1][1] += 1
        else:
            lines.append([text, 1])
    shared = " (one policy)" if spec.shared else ""
    return "\n".join(text + (f" x{count}" if count > 1 else "") for text, count in lines) + shared


def print_members(result: Any, report: dict[str, Any], console: Any) -> None:
    """A team game's sides (their members by seat) and each member's batch Elo inside its teams."""
    names = result.entrants
    console.print("members of each team, in the seat order of its side:", markup=False, highlight=False)
    for name in names:
        lines = members_text(result.specs[name]).split("\n")
        console.print(
            plain(f"  {name}: {lines[0]}" + "".join(f"\n  {' ' * len(name)}  {line}" for line in lines[1:])),
            soft_wrap=True,
            highlight=False,
        )
    console.print()
    if report["members"] and any(result.specs[name].members for name in names):
        console.print(members_table(report))  # with one member per team it would repeat the standings


def members_table(report: dict[str, Any]) -> Any:
    """Each member's batch Elo inside the teams it played in, as a rich table."""
    contributions = _table(
        "member contributions: batch Elo inside the teams each member played in (a side's strength is "
        "its seats' mean, so a team of one member in every seat rates that member as the team); 95%"
    )
    for column in ("member", "elo", "95% interval", "games", "in teams"):
        left = column in ("member", "in teams")
        contributions.add_column(column, justify="left" if left else "right", no_wrap=not left, overflow="fold")
    for row in report["members"]:
        contributions.add_row(
            plain(row["label"]),
            _fmt(row["elo"], "+.0f"),
            _interval(row["elo_low"], row["elo_high"], "+.0f"),
            str(row["games"]),
            plain("\n".join(row["teams"])),
        )
    return contributions


def print_pairs(report: dict[str, Any], console: Any) -> None:
    """The pairwise table, its columns numbered by the rows' places so that long names do not widen it.

    By the env's result kind: score rate with its Wilson interval, W-D-L and the row's mean return
    (marked ``*`` where the returns order the pair the other way: the rewards are not the result);
    or, for a ``"return"`` env, the row's mean return per game ± 95% and the games behind it.
    """
    names = report["entrants"]
    by_return = report["ranked_by"] == "mean_return"
    versus = {(row["first"], row["second"]): row for row in report["pairwise"]}
    title = (
        "mean return per game of row against column ± 95% (over duplicate sets); games with returns"
        if by_return
        else "score rate of row against column, % [95% Wilson interval]; W-D-L, mean return of row"
    )
    pairs = _table(title)
    pairs.add_column("#", no_wrap=True, justify="right")
    pairs.add_column("agent", overflow="fold")  # the names wrap first: rich narrows the widest column first
    for number in range(1, len(names) + 1):
        pairs.add_column(str(number), justify="center", overflow="fold")
    disagree = False
    for number, a in enumerate(names, 1):
        cells = []
        for b in names:
            row = versus.get((a, b))
            if a == b or row is None or not row["games"]:
                cells.append("-")
            elif by_return:
                shown = _plus_minus(row["return"], row["return_low"], row["return_high"], "+.2f")
                cells.append(f"{shown}\n{row['returned']} games")
            else:
                mine = (row["mean_return"] or {}).get(a)
                theirs = (row["mean_return"] or {}).get(b)
                mark = ""
                if mine is not None and theirs is not None and (mine - theirs) * (row["score"] - 0.5) < 0:
                    mark, disagree = "*", True
                returns = "" if mine is None else f" {mine:+.2f}{mark}"
                cells.append(
                    f"{row['score']:.0%} [{100 * row['score_low']:.0f}-{100 * row['score_high']:.0f}]\n"
                    f"{row['wins']}-{row['draws']}-{row['losses']}{returns}"
                )
        pairs.add_row(str(number), plain(a), *cells)
    console.print(pairs)
    if disagree:
        kind = report["result_kind"]
        console.print(
            f"* the mean returns order this pair the other way: the env's result is its {kind} "
            f"({result_description(kind)}), and its rewards (the return) do not decide it "
            "(shaped rewards, or scores such as soldiers alive)",
            soft_wrap=True,
            markup=False,
            highlight=False,
        )


def print_result(result: Any, console: Any, bootstrap: int = 200) -> None:
    """Print exclusions, forfeits, the standings, the members of team entrants, the pairwise table
    and where the figures disagree, within 80 columns."""
    from arena.tournament.analysis import analyse

    _print_faults(result, console)
    report = analyse(result, bootstrap=bootstrap)
    if result.entrants:
        console.print(standings_table(report, teams=bool(result.teams)))
        if result.teams:
            print_members(result, report, console)
        print_pairs(report, console)
        for note in metric_notes(report):
            console.print(plain(note), soft_wrap=True)
        if result.anchor is not None and report["ranked_by"] == "mean_return":
            console.print(
                plain(
                    f"--anchor {result.anchor[0]}={result.anchor[1]:g} is not used: it fixes a batch Elo, and this env is ranked by mean return"
                ),
                soft_wrap=True,
            )
    errors = len(result.errors)
    resumed = max(0, len(result.games) - result.played)
    pace = f" at {pace_text(result.played, result.seconds - result.startup)}" if result.played else ""
    console.print(
        f"{len(result.games)} of {result.scheduled} games stored ({result.played} played now{pace}, {resumed} resumed)"
        + (f"; {errors} games failed in the env" if errors else "")
        + ("; no game finished, so there is nothing to rate" if result.games and errors == len(result.games) else "")
        + ("" if result.db == ":memory:" else f"; results in {result.db}"),
        soft_wrap=True,
        markup=False,
        highlight=False,
    )


def print_separation(result: Any, console: Any) -> None:
    """After an adaptive run, whether every adjacent pair of the standings is separated."""
    if result.separation is None:
        return
    open_pairs = [f"{a} vs {b}" for a, b, apart in result.separation if not apart]
    console.print(
        "every pair is separated" if not open_pairs else f"not separated within the budget: {', '.join(open_pairs)}",
        soft_wrap=True,
        markup=False,
        highlight=False,
    )


def _print_faults(result: Any, console: Any) -> None:
    """Exclusions and forfeits, one line per kind (their texts escaped: they come from agents)."""
    from arena.cli._text import escape

    for name, reason in result.excluded.items():
        console.print(f"[red]excluded[/red] {escape(name)}: {escape(reason)}", soft_wrap=True, highlight=False)
    reasons: dict[tuple[str, str], int] = {}
    for game in result.forfeits:
        key = (game.forfeit or "?", (game.error or "").split(" (at ")[0].split("; ")[0])  # one line per kind
        reasons[key] = reasons.get(key, 0) + 1
    for (name, reason), count in sorted(reasons.items()):
        console.print(
            f"[yellow]forfeit[/yellow] {escape(name)} x{count}: {escape(reason)}", soft_wrap=True, highlight=False
        )
