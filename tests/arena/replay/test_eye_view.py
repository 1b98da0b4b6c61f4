"""The agent's-eye view draws readable pictures in a real headless Chromium (see conftest.py): planes
as a grid of small boards, vectors as a labelled bar chart, long vectors as a board of rows."""

from __future__ import annotations

import numpy as np

from arena.replay import load_game
from arena.replay.html import write_html
from arena.replay.pack import pack_observation
from arena.tournament import Execution, run_tournament

# played in this process: a worker process would import the env's and agents' modules again
INLINE = Execution.make("inline")


def _eye_page(page, tmp_path, env: str, interface: str) -> None:
    """Open the replay page of a game where an entrant behind ``interface`` acts, at a step where it acts."""
    entrant = f'seen=behind_interface{{"agent": "random", "interface": "{interface}"}}'
    db = tmp_path / f"{env}.db"
    run_tournament(env, ["random", entrant], games=2, db=db, execution=INLINE)
    page.goto(write_html(load_game(db, 1), tmp_path / f"{env}.html").as_uri())
    page.wait_for_function("document.getElementById('board').dataset.step === '0'")
    if "does not act" in page.text_content("#eye-info"):
        page.click("#next")
        page.wait_for_function("document.getElementById('board').dataset.step === '1'")
    assert "in its own space" in page.text_content("#eye-info")


def _canvas_sizes(page, selector: str) -> list[list[int]]:
    return page.eval_on_selector_all(selector, "cs => cs.map(c => [c.width, c.height])")


TEAL_PIXELS = """c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] < 120 && d[i + 1] > 120) n++; return n; }"""


def test_planes_are_a_grid_of_small_boards(page, console_errors, tmp_path, screenshot):
    _eye_page(page, tmp_path, "tic_tac_toe", "ego_board(planes=true)")
    captions = page.eval_on_selector_all(".eye-board figcaption", "fs => fs.map(f => f.textContent)")
    assert captions == ["plane 0", "plane 1"]  # the mover's and the other's marks, one board each
    for width, height in _canvas_sizes(page, ".eye-board canvas"):
        assert width >= 3 * 20 and height >= 3 * 20  # 3 x 3 cells big enough to read, not a strip
    marked = page.eval_on_selector_all(".eye-board canvas", f"cs => cs.map({TEAL_PIXELS})")
    assert sum(marked) > 0  # the mark the opponent has made shows as a shaded cell
    assert page.locator(".eye-legend").count() == 1
    screenshot(page, "eye_planes")
    assert console_errors == []


def test_a_vector_is_a_labelled_bar_chart(page, console_errors, tmp_path, screenshot):
    _eye_page(page, tmp_path, "kuhn_poker", "flatten")
    titles = page.eval_on_selector_all(".eye-bars", "cs => cs.map(c => c.title)")
    assert len(titles) == 1 and titles[0].splitlines()[0].startswith("[0] ") and len(titles[0].splitlines()) == 13
    [[width, height]] = _canvas_sizes(page, ".eye-bars")
    assert width >= 13 * 16 and height >= 80  # a bar and its index label per entry, a value axis
    screenshot(page, "eye_bars")
    assert console_errors == []


def test_a_long_vector_is_wrapped_into_rows(page, console_errors, tmp_path):
    parts = pack_observation(np.zeros(84))  # connect four's two planes, flattened: past the bar chart's size
    assert parts[0]["kind"] == "planes" and (parts[0]["h"], parts[0]["w"]) == (1, 84)
    _eye_page(page, tmp_path, "connect_four", "flatten(ego_board(planes=true))")
    assert page.eval_on_selector_all(".eye-board figcaption", "fs => fs.map(f => f.textContent)") == [
        "entries 0-83, 32 a row"
    ]
    [[width, height]] = _canvas_sizes(page, ".eye-board canvas")
    assert height >= 3 * 9 and width >= 32 * 9  # three rows of 32 cells, not an 84 x 1 strip
    assert console_errors == []


def test_channel_first_planes_stay_boards():
    """(17, 11, 11) is 17 boards of 11 x 11 (Pommerman's planes), an (84, 84, 3) picture three channels."""
    planes = pack_observation(np.zeros((17, 11, 11)))[0]
    assert (planes["n"], planes["h"], planes["w"]) == (17, 11, 11)
    picture = pack_observation(np.zeros((84, 84, 3)))[0]
    assert (picture["n"], picture["h"], picture["w"]) == (3, 84, 84)
