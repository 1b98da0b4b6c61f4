"""No message kills ``arena serve``, and only the page whose turn it is moves, on the board it saw.

A real WebSocket client on 127.0.0.1 sends what a broken or hostile page could.
"""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from websockets.exceptions import ConnectionClosed

from arena.replay import load_games
from tests.faults.serving import WAIT, connect, move, receive, served, wait_for_games, your_move


def test_wrong_typed_and_malformed_messages_get_an_error_and_the_game_goes_on(tmp_path):
    with served(record=tmp_path / "games.db") as server, connect(server.url) as ws:
        view = your_move(ws)
        assert view["legal"] == list(range(9)) and isinstance(view["turn"], int)
        turn = view["turn"]
        bad = [json.dumps({"type": "move", "action": value, "turn": turn}) for value in (True, 1.5, "4", [4], None, {})]
        bad += [
            json.dumps({"type": "move", "action": 4, "turn": turn, "pad": "x" * 2000}),  # oversized
            "not json",
            "[1]",
            "4",
            "null",
            "[" * 900 + "]" * 900,
            "[" * 500 + "]" * 500,
            json.dumps({"type": "quit"}),
            json.dumps({"type": "move", "action": 4, "turn": "anything"}),
            json.dumps({"type": "key", "action": 1.5}),
            json.dumps({"type": "move", "action": 99, "turn": turn}),  # well formed, not legal
            json.dumps({"type": "move", "action": 4, "turn": turn + 1}),
        ]  # a board it was not shown
        for text in bad:
            ws.send(text)
            assert receive(ws, ("error", "view", "end"))["type"] == "error", text
        ws.send(b"\x00binary")
        assert receive(ws, ("error", "view", "end"))["type"] == "error"
        move(ws, 4, turn)
        after = your_move(ws)  # the game went on: the machine answered, the page moves again
        assert 4 not in after["legal"] and after["turn"] != turn
        ws.close()
        wait_for_games(server, 1)
    assert load_games(tmp_path / "games.db")[0].steps[0] == {"player_0": 4}  # played once, as sent last


def test_a_move_sent_before_the_game_began_is_refused_not_played_later(tmp_path):
    with served(record=tmp_path / "games.db") as server:
        with connect(server.url) as ws:
            for guess in (0, 1, 2):  # sent at once, before the page saw any board
                move(ws, 4, guess)
            view = your_move(ws)
            assert 4 in view["legal"]
            move(ws, 0, view["turn"])
            your_move(ws)  # the move counted: the machine has answered
        # The page closed: that seat forfeits, and the game is stored with its moves so far.
        assert wait_for_games(server, 1)[0]["outcome"] == "you forfeited (closed the page)"
    game = load_games(tmp_path / "games.db")[0]
    assert game.steps[0] == {"player_0": 0} and game.result.forfeit == "human@player_0"


def test_only_the_page_whose_game_it_is_moves(tmp_path):
    with served(record=tmp_path / "games.db") as server, connect(server.url) as first:
        view = your_move(first)
        with connect(server.url) as second:  # another tab, in line behind the first
            assert "another game" in receive(second, "wait")["text"]
            move(second, 4, view["turn"])  # even with the first page's turn number
            assert "no game of yours" in receive(second, "error")["text"]
            move(first, 0, view["turn"])
            assert 0 not in your_move(first)["legal"]
        first.close()
        wait_for_games(server, 1)
    game = load_games(tmp_path / "games.db")[0]
    assert game.steps[0] == {"player_0": 0}


def test_a_frame_past_the_limit_closes_only_that_page_and_the_server_serves_the_next():
    with served() as server:
        with connect(server.url) as ws:
            your_move(ws)
            ws.send(json.dumps({"type": "move", "pad": "x" * 100_000}))
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(100):
                    ws.recv(timeout=60)
            assert closed.value.rcvd.code == 1009  # message too big
        with connect(server.url) as ws:  # the next page gets a new game
            assert receive(ws, "hello")
            your_move(ws)
        assert wait_for_games(server, 1)[0]["outcome"] == "you forfeited (closed the page)"


def test_open_pages_are_capped_and_the_line_keeps_only_open_ones():
    from arena.serve.server import MAX_PAGES

    with served() as server, contextlib.ExitStack() as stack:
        # One at a time: pages connecting at once may be registered in any order.
        pages = [stack.enter_context(connect(server.url))]
        receive(pages[0], "hello")
        for _ in range(MAX_PAGES - 1):
            pages.append(stack.enter_context(connect(server.url)))
            receive(pages[-1], "wait")  # registered and in line
        with connect(server.url) as extra:
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(10):
                    extra.recv(timeout=60)
            assert closed.value.rcvd.code == 1013  # try again later
        for page in pages[1:]:  # they leave while in line
            page.close()
        deadline = time.monotonic() + WAIT
        while len(server._pages) > 1:  # the server has seen them go
            assert time.monotonic() < deadline
            time.sleep(0.02)
        with connect(server.url) as late:  # room again; the line forgot the closed pages
            assert "another game" in receive(late, "wait")["text"]
            assert len(server._line) <= 2
