"""``arena serve`` keeps serving: a reloaded tab, a crashing game, an agent that ignores the move
time limit; Ctrl-C still stops it. Real ``arena serve`` processes where the process's
survival is the point, every one ended by its process group id."""

from __future__ import annotations

import json
import signal
import time

from tests.faults.serving import (
    WAIT,
    connect,
    end,
    group_alive,
    move,
    receive,
    served,
    start_serve,
    wait_for_games,
    your_move,
)


def test_a_tab_closed_mid_game_forfeits_and_the_next_page_gets_a_new_game():
    with served() as server:
        with connect(server.url) as ws:
            first = receive(ws, "hello")
            your_move(ws)
        with connect(server.url) as ws:  # the reloaded tab
            assert receive(ws, "hello")["seed"] != first["seed"]
            view = your_move(ws)
            move(ws, view["legal"][0], view["turn"])
            your_move(ws)
        results = wait_for_games(server, 2)
    assert [r["outcome"] for r in results] == ["you forfeited (closed the page)"] * 2


def test_a_game_that_crashes_ends_alone_and_the_server_plays_on():
    process, url = start_serve("tests.faults.serving:Brittle", "--vs", "random", "--seed", "1")
    try:
        with connect(url) as ws:
            view = your_move(ws)
            move(ws, 4, view["turn"])  # the centre crashes these rules
            over = receive(ws, "end")
            assert over["outcome"].startswith("error: RuntimeError: the rules engine crashed on the centre")
            ws.send(json.dumps({"type": "start"}))
            assert receive(ws, "hello")
            view = your_move(ws)
            move(ws, 0, view["turn"])
            answer = receive(ws, ("view", "end"))  # the machine moved (its random move may crash the rules too)
            assert answer["type"] == "end" or 0 not in (answer["legal"] or [])
        assert process.poll() is None
    finally:
        end(process)
    assert "a game failed: error: RuntimeError" in process.stderr.read()


def test_an_agent_that_ignores_the_move_time_limit_forfeits_and_ctrl_c_still_stops_the_server():
    process, url = start_serve("tic_tac_toe", "--vs", "tests.faults.serving:Stubborn", "--move-time-limit", "0.2")
    try:
        with connect(url) as ws:
            view = your_move(ws)
            move(ws, 0, view["turn"])
            over = receive(ws, "end")
            assert over["outcome"].startswith(
                "player_1 forfeited (exceeded the move time limit of 0.2 s (did not answer the interrupt"
            )
            ws.send(json.dumps({"type": "start"}))  # still answering: a new game, with a new game process
            assert receive(ws, "hello")
            view = your_move(ws)
            move(ws, 0, view["turn"])  # the stubborn agent thinks again: now the user presses Ctrl-C
            process.send_signal(signal.SIGINT)
            process.wait(timeout=WAIT)
        deadline = time.monotonic() + WAIT
        while group_alive(process.pid):  # the game process went with it
            assert time.monotonic() < deadline, "a process of arena serve outlived Ctrl-C"
            time.sleep(0.05)
    finally:
        end(process)
    assert "game over: player_1 forfeited (exceeded the move time limit" in process.stdout.read()
