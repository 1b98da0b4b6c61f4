"""A Pommerman replay page has a key: which colour is which agent, entrant and side, and what each thing is."""

from __future__ import annotations

import pytest

from arena.replay import load_game
from arena.replay.html import game_data, write_html
from arena.tournament import Execution, TournamentRules, run_tournament

# played in this process: a worker process would import the env's and agents' modules again
INLINE = Execution.make("inline")


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    db = tmp_path_factory.mktemp("pommerman_page") / "pm.db"
    entrants = ['reds=behind_interface{"agent": "random", "interface": "pommerman_features"}', "greens=random"]
    run_tournament(
        rules=TournamentRules.make("pommerman", entrants, games=1, max_steps=30, env_kwargs={"mode": "team"}, seed=4),
        db=db,
        execution=INLINE,
    )
    return load_game(db, 1)


def test_the_page_data_has_the_boards_key_with_agents_entrants_and_sides(game):
    data = game_data(game)
    labels = [entry["label"] for entry in data["legend"]]
    seated = game.result.seats
    expected = [f"{seat}, side team_{int(seat[-1]) % 2}: {seated[seat]}" for seat in sorted(seated)]
    assert [label for label in labels if label.startswith("agent_")] == expected
    assert {"flames", "power-up: kick", "bomb (its number: steps until it explodes)"} <= set(labels)
    assert all(entry["img"]["w"] == entry["img"]["h"] == 32 for entry in data["legend"])


def test_a_game_without_a_key_has_none(tmp_path):
    db = tmp_path / "ttt.db"
    run_tournament("tic_tac_toe", ["random", "b=random"], games=1, db=db, execution=INLINE)
    game = load_game(db, 1)
    assert game_data(game)["legend"] == []
    assert 'id="legend"' not in write_html(game, tmp_path / "ttt.html").read_text()


def test_the_key_is_drawn_beside_the_board(game, page, console_errors, tmp_path, screenshot):
    html = write_html(game, tmp_path / "pm.html")
    page.goto(html.as_uri())
    page.wait_for_function("document.getElementById('board').dataset.step === '0'")
    page.wait_for_function("document.querySelectorAll('.legend-item').length === 12")
    texts = page.locator(".legend-item").all_text_contents()
    seated = game.result.seats
    assert [t for t in texts if t.startswith("agent_")] == [
        f"{seat}, side team_{int(seat[-1]) % 2}: {seated[seat]}" for seat in sorted(seated)
    ]
    # Each sample is drawn (not a blank canvas): count the distinct colours of the first agent's sample.
    colours = page.evaluate(
        "(() => { const c = document.querySelectorAll('.legend-sample')[8];"
        " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; const seen = new Set();"
        " for (let i = 0; i < d.length; i += 4) seen.add(d[i] * 65536 + d[i + 1] * 256 + d[i + 2]);"
        " return seen.size; })()"
    )
    assert colours >= 3  # ground, outline, the agent's colour (and its number)
    step = int(page.get_attribute("#slider", "max")) - 1  # bombs and flames by now (docs/replays.md's picture)
    page.locator("#slider").fill(str(step))
    page.wait_for_function(f"document.getElementById('board').dataset.step === '{step}'")
    screenshot(page, "replay_eye_pommerman")
    assert console_errors == []
