"""Text from files and agents never drives the terminal: every terminal view escapes control characters.

A results file's stored texts (outcomes, error and forfeit reasons, seat names, the env's name)
are filled with terminal commands: clear the screen, set the window title, write the clipboard
(OSC 52), the C1 introducer, a carriage return, rich markup. Every command that prints them
(the listing, the step view, ``--verify``, ``--html`` notes, ``arena report``, a resumed
``arena tournament`` and the one-line error) must show them as text, with no control character
reaching stdout or stderr raw.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
from pathlib import Path

import pytest

from arena import RandomAgent
from arena.cli import main
from arena.text import printable
from tests.faults.helpers import copy_results, store_two_games

pytest.importorskip("rich")

#: Clear screen, cursor home, window title, clipboard write, C1 CSI, NEL, a bell, a carriage return and markup.
HOSTILE = "\x1b[2J\x1b[H\x1b]0;owned\x07\x1b]52;c;cHduZWQ=\x1b\\\x9b31m\x85[bold]loud[/bold]\rfake"
#: Any character a terminal obeys (all of C0 but tab and newline, DEL, C1).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class LoudAgent(RandomAgent):
    """An agent whose error message is a string of terminal commands."""

    def act(self, observation, action_mask=None, reward=0.0):
        raise RuntimeError(HOSTILE)


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> Path:
    return store_two_games(tmp_path_factory.mktemp("terminal") / "results.db")


@pytest.fixture
def db(stored, tmp_path) -> Path:
    """A copy whose stored texts are terminal commands (its first game a forfeit of 'b' with that reason)."""
    copy = copy_results(stored, tmp_path / "hostile.db")
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE games SET outcome = ?, error = ?", (HOSTILE, HOSTILE))
        connection.execute("UPDATE games SET forfeit = 'b' WHERE rowid = 1")
        seats = json.dumps({"player_0": "random", "player_1": "b"})
        connection.execute("UPDATE games SET seats = ? WHERE rowid = 1", (seats,))
    return copy


def _assert_shown_not_obeyed(text: str, where: str) -> None:
    raw = sorted(set(RAW.findall(text)))
    assert not raw, f"{where} printed control characters raw: {raw!r}"


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    for stream, text in (("stdout", out.out), ("stderr", out.err)):
        _assert_shown_not_obeyed(text, f"arena {' '.join(argv[:1])} ({stream})")
    return code, out.out + out.err


def test_printable_escapes_every_control_and_keeps_lines():
    assert printable(HOSTILE) == (
        "\\x1b[2J\\x1b[H\\x1b]0;owned\\x07\\x1b]52;c;cHduZWQ=\\x1b\\\\x9b31m\\x85[bold]loud[/bold]\\x0dfake"
    )
    assert printable("a\tb\nc") == "a\tb\nc" and printable(3) == "3"
    assert printable("\u202eevil\u2066") == "\\u202eevil\\u2066"  # bidi overrides reorder what is shown
    assert not RAW.search(printable("".join(map(chr, range(0x100)))))


def test_stored_terminal_commands_are_shown_by_every_terminal_view(db, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per table row, so the text is found whole
    shown = printable(HOSTILE)

    code, text = _run(capsys, "replay", str(db))
    assert code == 0 and shown in text and "[bold]loud[/bold]" in text  # escaped, and markup not read

    monkeypatch.setattr("sys.stdin", io.StringIO("l\nq\n"))  # step view: the last step, then quit
    code, text = _run(capsys, "replay", str(db), "--game", "2")
    assert code == 0 and shown in text and "--- step" in text

    code, text = _run(capsys, "replay", str(db), "--game", "2", "--html", str(tmp_path / "g.html"))
    assert code == 0 and "wrote" in text

    code, text = _run(capsys, "report", str(db), "--bootstrap", "2")
    assert code == 0 and "random" in text

    # Resuming the stored games: the tournament's tables and its forfeit line print the stored reason.
    resumed = ["tournament", "tic_tac_toe", "--agents", "random,b=random", "--games", "2", "--seed", "1"]
    code, text = _run(capsys, *resumed, "--db", str(db), "--workers", "1", "--progress", "none")
    assert code == 0 and "forfeit" in text and "\\x1b]52;c;" in text


def test_a_results_file_mismatch_prints_stored_text_escaped(db, capsys):
    with sqlite3.connect(db) as connection:  # a stored length the replay cannot match: --verify quotes the title
        connection.execute("UPDATE games SET forfeit = NULL, length = length + 1 WHERE rowid = 2")
    code, text = _run(capsys, "replay", str(db), "--verify")
    assert code == 1 and "MISMATCH" in text


def test_an_error_line_quoting_stored_text_is_escaped(db, capsys):
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = ? WHERE key = 'env'", (json.dumps("tic\x1b]52;c;eA==\x07tac"),))
    for argv in (["replay", str(db), "--verify"], ["replay", str(db), "--game", "1"]):
        code, text = _run(capsys, *argv)
        assert code == 2 and "error:" in text and "\\x1b]52;c;eA==\\x07" in text, text
    code, text = _run(capsys, "report", str(db), "--bootstrap", "2")  # a report needs no env: it shows the name
    assert code == 0 and "tic\\x1b]52;c;eA==\\x07tac" in text


def test_an_agents_own_words_are_escaped_live(tmp_path, capsys):
    loud = f"{__name__}:LoudAgent"
    argv = ["tournament", "tic_tac_toe", "--agents", f"random,{loud}", "--games", "2", "--backend", "inline"]
    code, text = _run(capsys, *argv, "--progress", "none", "--db", str(tmp_path / "live.db"))
    assert code == 0 and "forfeit" in text and "\\x1b]52;c;" in text
    code, text = _run(capsys, "play", "tic_tac_toe", "--agents", f"{loud},random", "--seed", "1")
    assert code == 2 and "\\x1b]0;owned" in text  # the one-line error quotes the agent's message


def test_a_folders_manifest_text_in_a_warning_is_escaped():
    import warnings

    import envs
    from arena.training.trained import warn_if_trained_elsewhere

    manifest = {"env": f"pong_2p{HOSTILE}", "env_options": {"ball_spin": 3.0}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_if_trained_elsewhere(Path("runs/x"), manifest, envs.make("pong_2p"))
    (message,) = [str(w.message) for w in caught]
    _assert_shown_not_obeyed(message, "the trained-elsewhere warning")
    assert printable(HOSTILE) in message
