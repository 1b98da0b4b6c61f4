"""Results files are data, never code: hostile and broken files through the real CLI.

Every test tampers with a copy of a real results file the way an attacker or a damaged disk
would, then runs ``arena replay`` / ``arena report`` as a user does. The promises: a name in a
file imports nothing unless ``--trust``; every broken file is one line on stderr and exit 2,
the same for every command; reading never changes a byte; stored text is shown, never obeyed.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sqlite3
import tracemalloc
import zlib
from pathlib import Path

import pytest

from arena.cli import main
from arena.errors import ArenaError
from arena.replay.source import load_game
from arena.tournament import run_tournament
from tests.faults.helpers import run_cli

READERS = {
    "report": lambda db: ["report", str(db), "--bootstrap", "2"],
    "replay listing": lambda db: ["replay", str(db)],
    "replay --verify": lambda db: ["replay", str(db), "--verify"],
    "replay --html": lambda db: ["replay", str(db), "--game", "1", "--html", str(Path(db).with_suffix(".html"))],
}


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """Two small tic-tac-toe results files of the same base name, with other seeds."""
    folder = tmp_path_factory.mktemp("stored")
    paths = []
    for seed, sub in ((1, "x"), (2, "y")):
        (folder / sub).mkdir()
        path = folder / sub / "results.db"
        run_tournament("tic_tac_toe", ["random", "b=random"], games=2, db=path, workers=1, seed=seed)
        paths.append(path)
    return paths


@pytest.fixture
def db(stored, tmp_path):
    """A fresh copy of a results file to tamper with."""
    copy = tmp_path / "copy.db"
    with sqlite3.connect(stored[0]) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    return copy


def tamper(path: Path, *statements: str, args: tuple = ()) -> None:
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement, args if "?" in statement else ())


def one_line_error(capsys, command: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"arena {command}: error: "), err
    return err


def test_names_in_a_file_import_nothing_unless_trusted(db, tmp_path, monkeypatch):
    marker = tmp_path / "imported"
    monkeypatch.setenv("ARENA_TEST_MARKER", str(marker))
    tamper(
        db,
        "UPDATE meta SET value = '\"tests.faults.marker:make_env\"' WHERE key = 'env'",
        "UPDATE entrants SET factory = 'tests.faults.marker:make_agent' WHERE name = 'b'",
    )
    for args in (
        ["replay", str(db), "--verify"],
        ["replay", str(db), "--game", "1", "--html", str(tmp_path / "g.html")],
    ):
        done = run_cli(*args)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert "names 'tests.faults.marker:make_env', which is not a registered name" in done.stderr
        assert "pass --trust" in done.stderr
    assert run_cli("report", str(db), "--bootstrap", "2").returncode == 0  # a report needs no code at all
    assert not marker.exists()
    trusted = run_cli("replay", str(db), "--verify", "--trust", "tests.faults.marker:make_env")
    assert trusted.returncode == 0 and "0 mismatches" in trusted.stdout, trusted.stderr
    assert marker.exists()


def test_a_replay_page_needs_no_entrant_code(db, tmp_path, capsys):
    tamper(db, "UPDATE entrants SET factory = 'nowhere_installed.bots:Bot' WHERE name = 'b'")
    page = tmp_path / "g.html"
    assert main(["replay", str(db), "--game", "1", "--html", str(page)]) == 0
    assert page.is_file() and "nowhere_installed.bots:Bot" in capsys.readouterr().out  # a note says why no eye view


def test_a_decompression_bomb_stops_early(db):
    bomb = zlib.compress(bytes(96 * 2**20), 9)  # 96 MB of zeros in ~100 kB
    tamper(db, "UPDATE replays SET actions = ?", args=(bomb,))
    tracemalloc.start()
    try:
        with pytest.raises(ArenaError, match="the stored actions unpack to more than"):
            load_game(db, 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 80 * 2**20


BROKEN = {
    "deep JSON": ("UPDATE games SET seats = ?", ("[" * 100_000 + "]" * 100_000,), "nested too deeply"),
    "seats of another type": ("UPDATE games SET seats = X'2a'", (), "column 'seats' must be JSON text"),
    "a length that is text": ("UPDATE games SET length = 'long'", (), "column 'length' must be an integer"),
    "a rank that is text": (
        """UPDATE games SET ranks = '{"random": "first", "b": 2}'""",
        (),
        "column 'ranks' must be a JSON object of entrant -> rank",
    ),
    "a rank that is NaN": ("""UPDATE games SET ranks = '{"random": NaN, "b": 2}'""", (), "not a finite number"),
    "a missing column": ("ALTER TABLE games DROP COLUMN outcome", (), "(columns missing: outcome)"),
    "a newer schema": ("PRAGMA user_version = 99", (), "has schema version 99"),
    "rules of another schema": ("UPDATE meta SET value = '7' WHERE key = 'schema'", (), "rules in schema '7'"),
}


@pytest.mark.parametrize("damage", sorted(BROKEN))
def test_a_broken_file_is_one_line_for_every_reader(db, damage, capsys):
    statement, args, expected = BROKEN[damage]
    tamper(db, statement, args=args)
    for reader, command in READERS.items():
        assert main(command(db)) == 2, reader
        err = one_line_error(capsys, command(db)[0])
        assert expected in err, (reader, err)


def test_a_game_number_past_any_file_is_refused(db, capsys):
    assert main(["replay", str(db), "--game", "99999999999999999999"]) == 2
    assert "has no game '99999999999999999999'" in one_line_error(capsys, "replay")
    assert main(["replay", str(db), "--game", "x#99999999999999999999"]) == 2
    one_line_error(capsys, "replay")


def test_stored_text_is_shown_not_read_as_markup(db, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # rich wraps cells to the terminal: one line per row here
    text = "[/bold] cannot open [/data/x.zip] :smile:"
    tamper(db, "UPDATE games SET outcome = ?, error = ?", args=(text, text))
    tamper(db, "UPDATE meta SET value = ? WHERE key = 'env'", args=(json.dumps("tic_tac_toe[/bold]"),))
    assert main(["replay", str(db)]) == 0
    assert "[/bold] cannot open [/data/x.zip] :smile:" in capsys.readouterr().out.replace("\n", "")
    assert main(["report", str(db), "--bootstrap", "2"]) == 0
    assert "tic_tac_toe[/bold]" in capsys.readouterr().out


def _files(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())}


def test_reading_never_writes_and_works_on_a_read_only_file(stored, tmp_path, capsys):
    folder = tmp_path / "shared"
    folder.mkdir()
    db = folder / "results.db"
    shutil.copyfile(stored[0], db)  # a WAL-mode file, as a tournament leaves it
    before = _files(folder)
    db.chmod(0o444)
    folder.chmod(0o555)
    try:
        out = tmp_path / "out"
        out.mkdir()
        for command in (
            ["report", str(db), "--bootstrap", "2", "--json", str(out / "r.json")],
            ["replay", str(db)],
            ["replay", str(db), "--verify"],
            ["replay", str(db), "--game", "1", "--html", str(out / "g.html")],
        ):
            assert main(command) == 0, capsys.readouterr().err
        assert _files(folder) == before
    finally:
        folder.chmod(0o755)
        db.chmod(0o644)


def _report_json(capsys, *paths) -> dict:
    capsys.readouterr()
    assert main(["report", *map(str, paths), "--bootstrap", "2", "--json", "-"]) == 0
    return json.loads(capsys.readouterr().out, parse_constant=lambda name: pytest.fail(f"report --json wrote {name}"))


def test_a_file_given_twice_counts_once(stored, capsys):
    once = _report_json(capsys, stored[0])["games"]
    again = stored[0].parent / ".." / stored[0].parent.name / stored[0].name
    assert _report_json(capsys, stored[0], stored[0], again)["games"] == once


def test_pooled_files_of_one_base_name_link_to_their_own_games(stored, tmp_path, capsys):
    page = tmp_path / "report.html"
    assert main(["report", *map(str, stored), "--bootstrap", "2", "--html", str(page), "--replay-pages"]) == 0
    rows = re.findall(
        r"<tr><td class='name'>[^<]*</td><td>\d+</td><td>(\d+)</td>.*?<a href='([^']+)'>view</a>", page.read_text()
    )
    assert len(rows) == 2 * len(list(run_rows(stored[0])))
    for seed, link in rows:
        linked = (page.parent / link).read_text()
        assert f"seed {seed}:" in re.search(r"<title>([^<]*)</title>", linked).group(1)


def run_rows(path: Path) -> list:
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT rowid FROM games").fetchall()


def test_stored_text_never_breaks_the_replay_page(db, tmp_path):
    tamper(db, "UPDATE games SET outcome = ?", args=("draw <!--<script>alert(1)</script>",))
    page = tmp_path / "g.html"
    assert main(["replay", str(db), "--game", "1", "--html", str(page)]) == 0
    data = re.search(r"<script>const GAME = (.*?);</script>", page.read_text(), re.S).group(1)
    assert "<" not in data and json.loads(data)["outcome"] == "draw <!--<script>alert(1)</script>"


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_an_anchor_is_a_finite_number(stored, value, capsys):
    assert main(["report", str(stored[0]), "--anchor", f"random={value}"]) == 2
    assert "the rating must be a finite number" in one_line_error(capsys, "report")
