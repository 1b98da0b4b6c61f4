"""The side view of the replay page: a whole side of a team env through one side interface (MAgent2's
battlefield map through GridControl), in the data, on the command line and in a real headless Chromium."""

from __future__ import annotations

import base64
import zlib

import numpy as np
import pytest

pytest.importorskip("magent2")

from arena.cli import main  # noqa: E402
from arena.replay import load_game  # noqa: E402
from arena.replay.html import game_data, write_html  # noqa: E402
from arena.tournament import Execution, TournamentRules, run_tournament  # noqa: E402

BATTLE = {"map_size": 12, "max_steps": 20, "minimap_mode": True}  # 2 soldiers a side
PLANES = ["walls", "own presence", "own HP", "enemy presence", "enemy HP"]


@pytest.fixture(scope="module")
def battle_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("battle") / "battle.db"
    run_tournament(
        rules=TournamentRules.make("magent_battle", ["magent_attack_nearest", "random"], games=1, env_kwargs=BATTLE),
        db=db,
        execution=Execution.make("inline"),
    )
    return db


def _planes(part: dict) -> np.ndarray:
    grey = np.frombuffer(zlib.decompress(base64.b64decode(part["z"])), np.uint8)
    return grey.reshape(part["n"], part["h"], part["w"])


def test_each_side_is_its_battlefield_map(battle_db):
    data = game_data(load_game(battle_db, 1))  # the env's own side view: minimap_mode gives the grid
    assert data["side_view"] == "GridControl(map_size=12)" and data["sides"] == {"red": 2, "blue": 2}
    start = data["frames"][0]["sides"]
    for side in ("red", "blue"):
        [part] = start[side]["parts"]
        assert part["names"] == PLANES and (part["n"], part["h"], part["w"]) == (5, 12, 12)
        planes = _planes(part)
        assert (planes[1] > 0).sum() == start[side]["acting"] == 2  # own soldiers, one cell each
        assert planes[0].any()  # the walls around the map, as the soldiers see them
    red, blue = (_planes(start[s]["parts"][0]) for s in ("red", "blue"))
    assert not np.array_equal(red[1], blue[1])  # each side sees its own soldiers as "own"


def test_the_command_line_names_a_side_view_and_bad_ones_are_refused(battle_db, tmp_path, capsys):
    page = tmp_path / "b.html"
    assert (
        main(
            [
                "replay",
                str(battle_db),
                "--game",
                "1",
                "--html",
                str(page),
                "--side-view",
                "magent_grid_control(map_size=12)",
            ]
        )
        == 0
    )
    assert 'id="side-name"' in page.read_text() and "red (2 seats)" in page.read_text()
    assert main(["replay", str(battle_db), "--game", "1", "--side-view", "magent_grid_control"]) == 2
    assert "--side-view is drawn on the --html page" in capsys.readouterr().err
    assert (
        main(
            [
                "replay",
                str(battle_db),
                "--game",
                "1",
                "--html",
                str(page),
                "--side-view",
                "magent_grid_control(flatten, map_size=12)",
            ]
        )
        == 2
    )
    assert "side view 'magent_grid_control(flatten, map_size=12)' for side 'red'" in capsys.readouterr().err

    plain = tmp_path / "plain.db"  # without position planes the env has no side view, and the grid does not fit
    run_tournament(
        rules=TournamentRules.make(
            "magent_battle",
            ["magent_attack_nearest", "random"],
            games=1,
            env_kwargs={**BATTLE, "minimap_mode": False, "max_steps": 3},
        ),
        db=plain,
        execution=Execution.make("inline"),
    )
    assert game_data(load_game(plain, 1))["side_view"] is None
    assert (
        main(
            [
                "replay",
                str(plain),
                "--game",
                "1",
                "--html",
                str(page),
                "--side-view",
                "magent_grid_control(map_size=12)",
            ]
        )
        == 2
    )
    assert "make the env with minimap_mode=True" in capsys.readouterr().err

    duel = tmp_path / "duel.db"
    run_tournament("tic_tac_toe", ["random", "again=random"], games=1, db=duel, execution=Execution.make("inline"))
    assert main(["replay", str(duel), "--game", "1", "--html", str(page), "--side-view", "flatten"]) == 2
    assert "needs an env with sides (teams)" in capsys.readouterr().err


SHADED = """c => { const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
  for (let i = 0; i < d.length; i += 4) if (d[i] < 180 && d[i + 1] > d[i] + 40) n++; return n; }"""


def test_the_page_draws_a_side_as_a_grid_of_planes(battle_db, page, console_errors, tmp_path, screenshot):
    page.goto(write_html(load_game(battle_db, 1), tmp_path / "battle.html").as_uri())
    page.wait_for_function("document.getElementById('board').dataset.step === '0'")
    captions = page.eval_on_selector_all(".side .eye-board figcaption", "fs => fs.map(f => f.textContent)")
    assert captions == PLANES
    assert "red through GridControl(map_size=12): 2 of 2 members acting" in page.text_content("#side-info")
    boards = page.eval_on_selector_all(".side .eye-board canvas", f"cs => cs.map({SHADED})")
    assert boards[1] > 0 and boards[2] > 0  # own soldiers and their HP shaded on the map
    for width, height in page.eval_on_selector_all(".side .eye-board canvas", "cs => cs.map(c => [c.width, c.height])"):
        assert width >= 12 * 8 and height >= 12 * 8  # 12 x 12 cells big enough to see
    page.select_option("#side-name", "blue")
    page.wait_for_function("document.getElementById('side-info').textContent.startsWith('blue through')")
    page.click("#next")
    page.wait_for_function("document.getElementById('board').dataset.step === '1'")
    assert page.locator(".side .eye-board").count() == 5
    screenshot(page, "magent_side_view")
    assert console_errors == []
