"""One self-contained HTML page for a stored game: canvas, controls, step panel, agent's-eye view,
and the side view of a team env (:mod:`arena.replay.side_views`).

The page needs no network: its script, style and the game (views, actions, rewards, masks, and
the observations entrants behind interfaces saw) are inlined. Views are the env's own render:
pictures (``rgb_array``) where the env draws them, else its text render drawn as a board.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from arena.env import MultiAgentEnv, has_hidden_information
from arena.replay.engine import Frame, action_names, build_env, render_modes, replay
from arena.replay.pack import describe_action, pack_observation, pack_view
from arena.replay.side_views import SideViews, side_view_spec
from arena.replay.source import StoredGame

__all__ = ["replay_page", "write_html", "static_text", "view_mode", "page_shell", "write_replay_pages"]


def static_text(name: str) -> str:
    """A file of ``arena/replay/static`` (the browser code shared by the replay and play pages)."""
    return resources.files("arena.replay").joinpath("static", name).read_text(encoding="utf-8")


def view_mode(modes: list[str]) -> str | None:
    """The render mode to draw a game with: pictures first, else text, else none.

    Example:
        >>> view_mode(["ansi", "rgb_array"]), view_mode(["ansi"]), view_mode([])
        ('rgb_array', 'ansi', None)
    """
    for mode in ("rgb_array", "ansi"):
        if mode in modes:
            return mode
    return None


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` in the text at all (they are
    written as ``\\u003c`` ...), so no stored text (``</script>``, ``<!--``, ``<script``) can end or
    re-enter the element.

    Example:
        >>> script_json({"a": "</script><!--<script>"})
        '{"a":"\\\\u003c/script\\\\u003e\\\\u003c!--\\\\u003cscript\\\\u003e"}'
    """
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_shell(
    title: str,
    body: str,
    scripts: list[str],
    data: dict[str, Any] | None = None,
    data_name: str = "GAME",
    extra_script: str = "",
) -> str:
    """A complete page: style and scripts inlined, ``data`` as a global constant (no network).

    ``scripts`` are files of ``arena/replay/static``; ``extra_script`` is script text that goes last.
    """
    sources = [static_text(name) for name in scripts] + ([extra_script] if extra_script else [])
    inline = "".join(f"<script>\n{source}\n</script>\n" for source in sources)
    preset = "" if data is None else f"<script>const {data_name} = {script_json(data)};</script>\n"
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8">\n<title>{html.escape(title)}</title>\n'
        f'<link rel="icon" href="data:,">\n<style>\n{static_text("viewer.css")}</style>\n</head>\n<body>\n'
        f"{body}\n{preset}{inline}</body></html>\n"
    )


def _private(env: Any) -> Any:
    """``observation_text(agent, obs)`` of an env with hidden information (cards, dice), else ``None``."""
    return env.unwrapped.observation_text if has_hidden_information(env) else None


def _frame_data(frame: Frame, names: dict[str, list[str] | None], private: Any = None) -> dict[str, Any]:
    masks = {}
    for agent, mask in frame.masks.items():
        labels = names.get(agent)
        legal = [int(i) for i in mask.nonzero()[0]] if mask.ndim == 1 else []
        masks[agent] = [labels[i] if labels and i < len(labels) else str(i) for i in legal]
    eye = {
        seat: {
            "parts": pack_observation(view.observation, view.space),
            # None: the model was not loaded (a trained folder without --trust), its interfaces' view only
            "action": None if view.matches is None else describe_action(view.action),
            "raw": None if view.matches is None else describe_action(view.raw_action, names.get(seat)),
            "matches": view.matches,
        }
        for seat, view in frame.eye.items()
    }
    return {
        "step": frame.step,
        "view": pack_view(frame.view),
        "rewards": {a: round(r, 6) for a, r in frame.rewards.items()},
        "returns": {a: round(r, 6) for a, r in frame.returns.items()},
        "acting": frame.acting,
        "masks": masks,
        "actions": {a: describe_action(act, names.get(a)) for a, act in frame.actions.items()},
        "ended": frame.ended,
        "eye": eye,
        "sees": {}
        if private is None
        else {a: str(text) for a, o in frame.observations.items() if (text := private(a, o)) is not None},
    }


def legend_data(env: MultiAgentEnv, seats: dict[str, str]) -> list[dict[str, Any]]:
    """The key to the env's pictures (:meth:`~arena.MultiAgentEnv.render_legend`) as page data:
    ``{"label", "img"}`` each, an agent's label followed by its side and entrant ("agent_0, side
    team_0: ppo")."""
    entries = env.unwrapped.render_legend() or []
    side = {agent: team for team, members in (env.teams or {}).items() for agent in members}
    shown = []
    for entry in entries:
        label = entry.label
        if entry.agent is not None:
            label += f", side {side[entry.agent]}" if entry.agent in side else ""
            label += f": {seats[entry.agent]}" if entry.agent in seats else ""
        view = pack_view(entry.picture)
        shown.append({"label": label, "img": None if view is None else view["img"]})
    return shown


def game_data(game: StoredGame, side_view: str | None = None) -> dict[str, Any]:
    """Everything the replay page shows of ``game``, as plain JSON data.

    ``side_view``: the side interface spec of the side view (default: the env's own,
    :meth:`arena.MultiAgentEnv.side_view`; see :mod:`arena.replay.side_views`).
    """
    with game.reading():
        mode = view_mode(render_modes(game.env))
    env = build_env(game, mode)
    sides: SideViews | None = None
    legend: list[dict[str, Any]] = []
    try:
        names = {agent: action_names(env, agent) for agent in env.possible_agents}
        private = _private(env)
        frames = []
        for frame in replay(game, render=mode, eye=True, env=env):
            frames.append(_frame_data(frame, names, private))
            if frame.step == 0:  # the env is reset now: its spaces and sides are known
                legend = legend_data(env, game.result.seats) if mode == "rgb_array" else []
                with game.reading():
                    chosen = side_view_spec(env, side_view)
                    sides = None if chosen is None else SideViews(env, chosen)
            if sides is not None:
                frames[-1]["sides"] = sides.frame(frame.observations)
        agents = list(env.possible_agents)
    finally:
        env.close()
    stacks = {}
    for seat, name in game.result.seats.items():
        spec = game.entrants.get(name)
        if spec is not None and any(seat in f["eye"] for f in frames):
            stacks[seat] = spec.label()
    result = game.result
    return {
        "title": game.title,
        "env": game.env.factory,
        "agents": agents,
        "seats": result.seats,
        "outcome": result.outcome,
        "returns": result.returns,
        "eye_seats": stacks,
        "frames": frames,
        "notes": list(game.notes),
        "legend": legend,
        "side_view": None if sides is None else sides.label,
        "sides": {} if sides is None else {side: len(ids) for side, ids in sides.members.items()},
    }


def _side_panel(data: dict[str, Any]) -> str:
    """The side view's box: a side picker, what is shown, and the boards (drawn by replay.js)."""
    if data["side_view"] is None:
        return ""
    options = "".join(
        f'<option value="{html.escape(side)}">{html.escape(side)} ({count} seats)</option>'
        for side, count in data["sides"].items()
    )
    return (
        f'<div class="eye side"><h2>Side view <select id="side-name">{options}</select></h2>'
        '<div id="side-info" class="sub"></div><div id="side-parts"></div></div>'
    )


def replay_page(game: StoredGame, side_view: str | None = None) -> str:
    """The HTML text of the replay page of ``game`` (``side_view``: see :func:`game_data`)."""
    data = game_data(game, side_view)
    eye = ""
    if data["eye_seats"]:
        options = "".join(
            f'<option value="{html.escape(seat)}">{html.escape(seat)} '
            f"({html.escape(game.result.seats[seat])}: {html.escape(spec)})</option>"
            for seat, spec in data["eye_seats"].items()
        )
        eye = (
            f'<div class="eye"><h2>Agent\'s-eye view <select id="eye-seat">{options}</select></h2>'
            '<div id="eye-info" class="sub"></div><div id="eye-parts"></div></div>'
        )
    sees = "<th>sees (hidden from the others)</th>" if any(f["sees"] for f in data["frames"]) else ""
    eye += _side_panel(data)
    eye += "".join(f'<div class="sub">{html.escape(note)}</div>' for note in data["notes"])
    legend = '<div id="legend" class="legend" aria-label="key to the board"></div>\n' if data["legend"] else ""
    body = f"""<h1>{html.escape(data["title"])}</h1>
<div class="sub">result: {html.escape(data["outcome"])}; returns: {html.escape(json.dumps(data["returns"]))}</div>
<div class="main"><div>
<canvas id="board" width="480" height="400"></canvas>
<div class="controls"><button id="prev" title="previous step (left arrow)">&#9664;</button>
<button id="play">Play</button><button id="next" title="next step (right arrow)">&#9654;</button>
<input id="slider" type="range" min="0" value="0" step="1" aria-label="step">
<span>step <span id="step"></span></span>
<label>speed <select id="speed"><option value="1">1/s</option><option value="4" selected>4/s</option>
<option value="10">10/s</option><option value="30">30/s</option></select></label></div>
{legend}</div><div><table><thead><tr><th>agent</th><th>action here</th><th>reward</th><th>return</th>
<th>legal actions</th>{sees}<th></th></tr></thead><tbody id="panel-body"></tbody></table></div></div>
{eye}"""
    return page_shell(data["title"], body, ["viewer.js", "replay.js"], data)


def write_html(game: StoredGame, path: str | Path, side_view: str | None = None) -> Path:
    """Write the replay page of ``game`` to ``path``; returns the path (``side_view``: see :func:`game_data`)."""
    path = Path(path)
    path.write_text(replay_page(game, side_view), encoding="utf-8")
    return path


def write_replay_pages(
    dbs: Sequence[str | Path], folder: str | Path, *, trust: bool | frozenset[str] = False
) -> dict[tuple[str, int], Path]:
    """Write the replay page of every replayable game of the results files ``dbs`` into ``folder``.

    Returns ``(file as given, game number)`` -> page. Files of one base name (``a/results.db``,
    ``b/results.db``) get pages of their own (the second is prefixed with its place in ``dbs``);
    a file given twice is written once.
    """
    import os

    from arena.replay.source import load_games

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    pages: dict[tuple[str, int], Path] = {}
    seen: set[str] = set()
    stems: set[str] = set()
    for place, db in enumerate(dbs):
        real = os.path.realpath(db)
        if real in seen:
            continue
        seen.add(real)
        stem = Path(db).stem if Path(db).stem not in stems else f"{place}_{Path(db).stem}"
        stems.add(stem)
        for game in load_games(db, trust=trust):
            if game.steps is None:
                continue
            name = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{stem}_game{game.id}")
            pages[(str(db), game.id)] = write_html(game, folder / f"{name}.html")
    return pages
