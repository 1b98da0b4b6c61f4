"""The replay page and the play page in a real headless Chromium (see conftest.py)."""

from __future__ import annotations

import re
import threading
import time

import pytest

from arena import RandomAgent
from arena.replay import load_game, load_games, verify_game
from arena.replay.html import write_html
from arena.serve import GameServer
from arena.specs.envs import EnvSpec
from arena.tournament import Execution, TournamentRules, run_tournament

EGO = 'ego=behind_interface{"agent": "random", "interface": "ego_board", "interface_kwargs": {"planes": true}}'
CANVAS_SUM = (
    "Array.from(document.getElementById('board').getContext('2d')"
    ".getImageData(0, 0, 480, 400).data).reduce((a, b, i) => (a + b * (i % 7 + 1)) % 1000000007, 0)"
)


# played in this process: a worker process would import the env's and agents' modules again
INLINE = Execution.make("inline")


def _page_of(tmp_path, env, entrants, max_steps=None):
    db = tmp_path / f"{env}.db"
    run_tournament(rules=TournamentRules.make(env, entrants, games=2, max_steps=max_steps), db=db, execution=INLINE)
    return write_html(load_game(db, 1), tmp_path / f"{env}.html")


def _at_step(page, step: int) -> None:
    page.wait_for_function(f"document.getElementById('board').dataset.step === '{step}'")


def test_replay_page_slider_canvas_and_eye_view(page, console_errors, tmp_path, screenshot):
    html = _page_of(tmp_path, "tic_tac_toe", ["random", EGO])
    assert "http" not in html.read_text().replace("http://www.w3.org", "")  # self-contained: no network
    page.goto(html.as_uri())
    _at_step(page, 0)
    empty = page.evaluate(CANVAS_SUM)
    last = int(page.get_attribute("#slider", "max"))
    page.locator("#slider").fill(str(last))
    _at_step(page, last)
    assert page.text_content("#step") == f"{last} / {last}"
    assert page.evaluate(CANVAS_SUM) != empty  # the board has marks now
    page.click("#prev")
    _at_step(page, last - 1)
    # The agent's-eye view: find a step where the entrant behind interfaces acts.
    page.locator("#slider").fill("0")
    _at_step(page, 0)
    if "does not act" in page.text_content("#eye-info"):
        page.click("#next")
        _at_step(page, 1)
    assert "in its own space" in page.text_content("#eye-info")
    assert page.locator(".eye-plane").count() >= 2  # the ego board's planes, drawn as small images
    rows = page.locator("#panel-body tr")
    assert rows.count() == 2 and "r" in page.text_content("#panel-body")
    screenshot(page, "replay_tic_tac_toe")
    page.click("#play")
    _at_step(page, last)
    assert page.text_content("#play") == "Play"  # it stopped at the end
    assert console_errors == []


def test_replay_page_of_a_picture_game(page, console_errors, tmp_path, screenshot):
    html = _page_of(tmp_path, "pong_2p", ["r0=random", "pong_ai"], max_steps=40)
    page.goto(html.as_uri())
    _at_step(page, 0)
    first = page.evaluate(CANVAS_SUM)
    page.select_option("#speed", "30")
    page.click("#play")
    _at_step(page, 40)
    assert page.evaluate(CANVAS_SUM) != first  # ball and paddles moved
    screenshot(page, "replay_pong_2p")
    assert console_errors == []


def _serve(tmp_path, env, games=1, **kwargs):
    server = GameServer(
        EnvSpec(env), kwargs.pop("vs", "random"), port=0, seed=5, record=tmp_path / f"{env}.db", **kwargs
    ).start()
    results: list = []
    thread = threading.Thread(target=lambda: results.extend(server.run_games(games)), daemon=True)
    thread.start()
    return server, thread, results


def _finish(server, thread):
    thread.join(timeout=60)
    server.stop()
    assert not thread.is_alive(), "the game thread did not end"


def test_a_person_plays_tic_tac_toe_by_clicks(page, console_errors, tmp_path, screenshot):
    server, thread, results = _serve(tmp_path, "tic_tac_toe", vs='mcts{"simulations": 10}')
    try:
        page.goto(server.url)
        clicks = 0
        while page.get_attribute("body", "data-over") != "1":
            page.wait_for_selector("button.move, body[data-over='1']")
            if page.get_attribute("body", "data-over") == "1":
                break
            if clicks == 1:
                screenshot(page, "serve_tic_tac_toe")
            if clicks == 0:  # the first move by a click on the board's cell
                name = page.locator("button.move").first.text_content()  # e.g. "r0c0"
                row, col = int(name[1]), int(name[3])
                first_move = 3 * row + col
                grid = page.wait_for_function("document.getElementById('board').arenaGrid").json_value()
                box = page.locator("#board").bounding_box()
                page.mouse.click(
                    box["x"] + grid["x0"] + (col + 0.5) * grid["cell"],
                    box["y"] + grid["y0"] + (row + 0.5) * grid["cell"],
                )
                page.wait_for_selector("#status:has-text('waiting'), button.move >> nth=0")
            else:
                page.locator("button.move").first.click()
            clicks += 1
        assert page.text_content("#status").startswith("Game over: ")
    finally:
        _finish(server, thread)
    assert clicks >= 3 and results[0]["outcome"] in ("you win", "player_1 wins", "draw")
    game = load_games(tmp_path / "tic_tac_toe.db")[0]
    assert game.result.seats["player_0"] == "human@player_0" and verify_game(game) is None
    assert game.steps[0] == {"player_0": first_move}  # the board click played the cell's action
    assert console_errors == []


def test_a_person_plays_snake_with_the_keyboard(page, console_errors, tmp_path, screenshot):
    server, thread, results = _serve(tmp_path, "snake", fps=20)
    try:
        page.goto(server.url)
        page.wait_for_selector("#help:has-text('Keys')")
        page.keyboard.down("ArrowLeft")  # turning left all the time: the snake circles or hits something
        page.wait_for_timeout(300)
        screenshot(page, "serve_snake")
        page.keyboard.up("ArrowLeft")
        page.wait_for_selector("body[data-over='1']", timeout=60_000)
    finally:
        _finish(server, thread)
    game = load_games(tmp_path / "snake.db")[0]
    assert any(step.get("snake_0") == 0 for step in game.steps)  # 0 is "left": the held key was played
    assert verify_game(game) is None
    assert console_errors == []


def test_closing_the_tab_ends_the_game_as_a_forfeit(browser, tmp_path):
    server, thread, results = _serve(tmp_path, "connect_four")
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("button.move")
        context.close()
    finally:
        _finish(server, thread)
    assert results[0]["outcome"] == "you forfeited (closed the page)"
    game = load_games(tmp_path / "connect_four.db")[0]
    assert game.result.forfeit == "human@player_0" and verify_game(game) is None


def test_reloading_the_tab_mid_game_forfeits_it_and_the_page_gets_a_new_game(browser, tmp_path):
    server, thread, results = _serve(tmp_path, "connect_four", games=2)
    try:
        context = browser.new_context()
        page = context.new_page()
        page.set_default_timeout(20_000)
        page.goto(server.url)  # the printed address, token included
        page.wait_for_selector("button.move")
        page.reload()
        page.wait_for_selector("button.move")  # a new game asks for a move
        assert page.text_content("#status") == "your move" and "seed" in page.text_content("#title")
        page.locator("button.move").first.click()
        page.wait_for_selector("#status:has-text('waiting'), button.move >> nth=0")
        context.close()
    finally:
        _finish(server, thread)
    assert [r["outcome"] for r in results] == ["you forfeited (closed the page)"] * 2
    assert [len(game.steps) for game in load_games(tmp_path / "connect_four.db")][0] == 0


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"seat": "player_9"}, "tic_tac_toe has no seat 'player_9'; seats: player_0, player_1"),
    ],
)
def test_serve_errors(bad, message):
    with pytest.raises(ValueError, match=message):
        GameServer(EnvSpec("tic_tac_toe"), "random", port=0, **bad)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--port", "70000"], "--port must be 0 (any free port) to 65535, got 70000"),
        (["--seat", "player_7"], "tic_tac_toe has no seat 'player_7'"),
        (
            ["--move-time-limit", "0"],
            "--move-time-limit must be a number of seconds greater than 0 and at most 86400 (one day), got 0.0",
        ),
        (["--env-options", "[1]"], "--env-options must be a JSON object, got '[1]'"),
    ],
)
def test_serve_cli_bad_input(argv, message, capsys):
    from arena.cli import main

    assert main(["serve", "tic_tac_toe", *argv]) == 2
    assert message in capsys.readouterr().err


def test_serve_cli_serves_the_page_on_a_free_port(tmp_path):
    import subprocess
    import sys
    import urllib.request

    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", "rock_paper_scissors", "--port", "0", "--games", "1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline()
        url = re.search(r"at (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", line).group(1)
        page = urllib.request.urlopen(url, timeout=10).read().decode()
        assert '<canvas id="board"' in page and "ArenaView" in page
    finally:
        process.kill()  # by its PID
        process.wait(timeout=10)


class SlowAgent(RandomAgent):
    """Thinks too long: the served game's move-time limit must charge it a forfeit."""

    def act(self, observation, action_mask=None, reward=0.0):
        time.sleep(0.3)
        return super().act(observation, action_mask, reward)


def test_the_agents_move_time_limit_applies(page, console_errors, tmp_path):
    server, thread, results = _serve(
        tmp_path, "tic_tac_toe", vs="tests.arena.replay.test_browser:SlowAgent", move_time_limit=0.05
    )
    try:
        page.goto(server.url)
        page.locator("button.move").first.click()
        page.wait_for_selector("body[data-over='1']")
        assert "player_1 forfeited" in page.text_content("#status")
    finally:
        _finish(server, thread)
    assert results[0]["outcome"].startswith("player_1 forfeited (") and "time limit" in results[0]["outcome"]
    assert (
        load_games(tmp_path / "tic_tac_toe.db")[0].result.forfeit
        == "tests.arena.replay.test_browser.SlowAgent@player_1"
    )
    assert console_errors == []


class SteeringEnv:
    """Just enough of an env with a continuous action space for GameServer to inspect."""

    possible_agents = ["driver", "other"]
    metadata: dict = {}

    @property
    def unwrapped(self):
        return self

    def action_space(self, agent):
        from gymnasium import spaces

        return spaces.Box(-1.0, 1.0, (2,))

    def close(self):
        pass


def test_serve_refuses_a_seat_a_person_cannot_play():
    from arena.errors import SpaceMismatchError

    with pytest.raises(
        SpaceMismatchError,
        match=r"a person plays tests.arena.replay.test_browser:SteeringEnv by picking "
        r"one of a Discrete set of actions, but seat driver acts in Box\(-1.0, 1.0",
    ):
        GameServer(EnvSpec("tests.arena.replay.test_browser:SteeringEnv"), "random", port=0)
