"""The HTML report of ``arena report --html``: one self-contained page, standard library only.

Sections: standings (batch Elo with intervals, score, openskill, Nash weight, alpha-rank), the
pairwise score table, the meta-game note, and every game. Each game row has a link cell filled
by :func:`game_link`: the one place a per-game link (a replay viewer's page) plugs in.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.evaluation.results import result_description
from arena.runtime.game import GameResult

__all__ = ["render_html", "write_html", "game_link", "GameLink"]

#: Signature of a per-game link maker: the game -> an URL (relative to the report) or ``None``.
GameLink = Callable[[GameResult], "str | None"]


def game_link(game: GameResult) -> str | None:
    """The link shown beside ``game`` in the report (``None``: no link).

    This is where a replay viewer hooks in: give :func:`render_html` another ``link`` (a
    function of the game) to point each row at its replay.
    """
    return None


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td.name { text-align: left; }
caption { text-align: left; font-weight: bold; margin-bottom: 0.3em; }
.note { color: #555; max-width: 60em; }
"""


def _num(value: Any, fmt: str) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return format(value, fmt)


def _cell_colour(score: float | None) -> str:
    if score is None:
        return "#eeeeee"
    red, blue = (1 - score), score
    return f"rgb({int(255 - 90 * blue)}, {int(255 - 60 * abs(score - 0.5))}, {int(255 - 90 * red)})"


def render_html(
    report: dict[str, Any], games: Sequence[GameResult] = (), *, link: GameLink = game_link, title: str | None = None
) -> str:
    """The report page as a string.

    Args:
        report: what :func:`arena.tournament.analysis.analyse` returns.
        games: the games to list (with a link cell each).
        link: the per-game link maker (default :func:`game_link`).
        title: the page title (default: the env and the number of games).
    """
    env = report["env"]
    heading = title or f"{env['factory']}: {report['games']} games, {len(report['entrants'])} entrants"
    out = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(heading)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>{html.escape(heading)}</h1>",
        *_introduction(report),
        *_standings(report),
        *_pairwise(report),
        *_members(report),
        *_meta_game_note(report),
        *_games(games, link),
        "</body></html>\n",
    ]
    return "\n".join(out)


def _introduction(report: dict[str, Any]) -> list[str]:
    """What the figures are: the sources, how games were dealt, what ranks them, every interval 95%."""
    e = html.escape
    kind = report.get("result_kind", "ranks")
    anchor = report["anchor"]
    fixed = f"anchored at {e(str(anchor[0]))} = {format(anchor[1], 'g')}" if anchor else "mean 0"
    ranked = (
        f"Ranked by mean return per game (a {kind} env): 95% intervals over duplicate sets. Elo and openskill "
        "rate who won a game, which this env does not rank by, so they are not given."
        if _by_return(report)
        else f"Ranked by {e(result_description(kind))} (a {kind} env): batch Elo, maximum likelihood over all "
        f"games ({fixed}), 95% intervals from {report['bootstrap']} bootstrap resamples of game sets, "
        "at least the likelihood's own; mu: openskill's skill, &plusmn; its 95% interval."
    )
    return [
        f"<p class='note'>Results from {e(str(report['sources']))}. "
        + ("Games came in duplicate sets (one chance seed, seats rotated). " if report["duplicate"] else "")
        + f"{ranked} Every interval and &plusmn; on this page is 95%.</p>"
    ]


def _by_return(report: dict[str, Any]) -> bool:
    return bool(report.get("ranked_by") == "mean_return")


def _standings(report: dict[str, Any]) -> list[str]:
    """The standings table, best first, with the figures the env's result kind ranks by."""
    e = html.escape
    by_return = _by_return(report)
    figures = (
        "<th>return/game</th><th>95% interval</th><th>score</th>"
        if by_return
        else "<th>Elo</th><th>95% interval</th><th>score</th><th>mu &plusmn; 95%</th>"
    )
    out = [
        "<table id='standings'><caption>Standings</caption><tr><th>#</th><th>agent</th>"
        f"{figures}<th>W-D-L</th><th>games</th><th>Nash weight</th><th>Nash score</th><th>alpha-rank</th></tr>"
    ]
    for place, row in enumerate(report["standings"], 1):
        if by_return:
            figure_cells = (
                f"<td>{_num(row['mean_return'], '+.2f')}</td>"
                f"<td>{_num(row['return_low'], '+.2f')} .. {_num(row['return_high'], '+.2f')}</td>"
                f"<td>{_num(row['score'], '.1%')}</td>"
            )
        else:
            half = None if row["mu_high"] is None else row["mu_high"] - row["mu"]
            figure_cells = (
                f"<td>{_num(row['elo'], '+.0f')}</td>"
                f"<td>{_num(row['elo_low'], '+.0f')} .. {_num(row['elo_high'], '+.0f')}</td>"
                f"<td>{_num(row['score'], '.1%')}</td><td>{_num(row['mu'], '.1f')} &plusmn; {_num(half, '.1f')}</td>"
            )
        out.append(
            f"<tr><td>{place}</td><td class='name' title='{e(str(row['factory']))}'>{e(row['name'])}</td>{figure_cells}"
            f"<td>{row['wins']}-{row['draws']}-{row['losses']}</td><td>{row['games']}</td>"
            f"<td>{_num(row['nash_weight'], '.3f')}</td><td>{_num(row['nash_score'], '+.3f')}</td>"
            f"<td>{_num(row['alpha_rank'], '.3f')}</td></tr>"
        )
    out.append("</table>")
    return out


def _pairwise(report: dict[str, Any]) -> list[str]:
    """Row against column: a score rate (or mean return) with its 95% interval and game count."""
    e = html.escape
    by_return = _by_return(report)
    names = report["entrants"]
    versus = {(row["first"], row["second"]): row for row in report["pairwise"]}
    caption = (
        "Mean return per game of row against column (95% interval; games)"
        if by_return
        else "Score rate of row against column (95% Wilson interval; games)"
    )
    out = [
        f"<table id='pairwise'><caption>{caption}</caption><tr><th></th>"
        + "".join(f"<th>{e(n)}</th>" for n in names)
        + "</tr>"
    ]
    table = report["return_table"] if by_return else report["score_table"]
    largest = max((abs(v) for row in table for v in row if v is not None), default=0.0) or 1.0
    for i, name in enumerate(names):
        cells = []
        for j, value in enumerate(table[i]):
            row = versus.get((name, names[j]))
            # the colour follows the figure shown: a score rate, or a return scaled to the largest
            score = value if not by_return or value is None else 0.5 + 0.5 * value / largest
            if i == j or row is None:
                shown = ""
            elif by_return:
                shown = (
                    f"{_num(row['return'], '+.2f')}<br>{_num(row['return_low'], '+.2f')} .. "
                    f"{_num(row['return_high'], '+.2f')}<br>{row['returned']} games"
                )
            else:
                shown = (
                    f"{_num(score, '.0%')}<br>{_num(row['score_low'], '.0%')} .. {_num(row['score_high'], '.0%')}"
                    f"<br>{row['games']} games"
                )
            cells.append(f"<td style='background:{_cell_colour(None if i == j else score)}'>{shown}</td>")
        out.append(f"<tr><th>{e(name)}</th>{''.join(cells)}</tr>")
    out.append("</table>")
    return out


def _members(report: dict[str, Any]) -> list[str]:
    """In a team game: each member's batch Elo inside the teams it played in (nothing otherwise)."""
    e = html.escape
    if not report.get("members"):
        return []
    out = [
        "<table id='members'><caption>Member contributions: batch Elo inside the teams each member "
        "played in</caption><tr><th>member</th><th>Elo</th><th>95% interval</th><th>games</th>"
        "<th>in teams</th></tr>"
    ]
    for row in report["members"]:
        out.append(
            f"<tr><td class='name'>{e(row['label'])}</td><td>{_num(row['elo'], '+.0f')}</td>"
            f"<td>{_num(row['elo_low'], '+.0f')} .. {_num(row['elo_high'], '+.0f')}</td><td>{row['games']}</td>"
            f"<td class='name'>{e(', '.join(row['teams']))}</td></tr>"
        )
    out.append("</table>")
    return out


def _meta_game_note(report: dict[str, Any]) -> list[str]:
    """What Nash averaging and alpha-rank mean here, and which pairs never met."""
    unmet = report["unmet"]
    return [
        "<p class='note'>Nash averaging: the maximum-entropy Nash equilibrium of the meta-game "
        + ("(payoff: mean return per game);" if _by_return(report) else "(payoff: score rate minus 1/2);")
        + " entrants with weight are the unbeaten core, and a cycle among "
        "them (rock, paper, scissors) shows as shared weight. alpha-rank: the stationary mass of the "
        "evolutionary dynamics over entrants."
        + (
            f" Pairs that never met count as even: {html.escape(', '.join(' vs '.join(p) for p in unmet))}."
            if unmet
            else ""
        )
        + "</p>"
    ]


def _games(games: Sequence[GameResult], link: GameLink) -> list[str]:
    """One row per game, with a link to its replay where ``link`` gives one (nothing without games)."""
    e = html.escape
    if not games:
        return []
    out = [
        "<table id='games'><caption>Games</caption><tr><th>lineup</th><th>game</th><th>seed</th>"
        "<th>seats</th><th>outcome</th><th>length</th><th>replay</th></tr>"
    ]
    for game in games:
        url = link(game)
        cell = f"<a href='{e(url)}'>view</a>" if url else ""
        seats = ", ".join(f"{e(seat)}: {e(name)}" for seat, name in game.seats.items())
        out.append(
            f"<tr><td class='name'>{e(game.lineup)}</td><td>{game.index}</td><td>{game.seed}</td>"
            f"<td class='name'>{seats}</td><td class='name'>{e(game.outcome)}</td><td>{game.length}</td>"
            f"<td>{cell}</td></tr>"
        )
    out.append("</table>")
    return out


def write_html(
    path: str | Path, report: dict[str, Any], games: Sequence[GameResult] = (), *, link: GameLink = game_link
) -> Path:
    """Write :func:`render_html` to ``path`` (folders made as needed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(report, games, link=link), encoding="utf-8")
    return path
