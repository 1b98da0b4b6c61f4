"""What the command line prints: its version, whole summaries, piped output without the live
display, names that wrap rather than being cut at 80 columns, and ``arena interfaces --check NAMES``."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import arena
from arena.cli import main
from tests.faults.helpers import ROOT, run_cli


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out == f"arena {arena.__version__}\n"


def test_import_arena_brings_the_checkers():
    script = "import arena, envs; arena.testing.check_env(envs.make('rock_paper_scissors')); print('ok')"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.stdout == "ok\n", result.stderr


@pytest.mark.parametrize("kind", ["envs", "agents"])
def test_every_summary_is_a_whole_sentence(kind, capsys):
    assert main([kind]) == 0
    lines = capsys.readouterr().out.splitlines()
    summaries = [line.split(None, 1)[1] for line in lines if not line.startswith(("or give", "name clash"))]
    assert summaries and all(summary.endswith((".", ")")) for summary in summaries), summaries
    assert not any(re.search(r"\b(\w+) \1\b", summary) for summary in summaries)  # "for players players"


def test_piped_output_has_the_tables_alone():
    """No progress bar or live standings in a log, and every table title starts its own line."""
    result = run_cli("tournament", "tic_tac_toe", "--agents", "random,b=random,c=random", "--games", "2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "standings so far" not in result.stdout and not any(line.startswith("games ") for line in lines)
    for title in ("standings by ", "score rate of row"):
        assert sum(line.startswith(title) for line in lines) == 1, title
        assert sum(title in line for line in lines) == 1, title


LONG = "a_very_long_entrant_name_that_goes_on_and_on_forever"


def test_long_names_wrap_whole_at_80_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    agents = f"random,{LONG}=random,another_rather_long_name_for_an_entrant=random"
    assert main(["tournament", "tic_tac_toe", "--agents", agents, "--games", "2", "--progress", "none"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith(" ")]  # table rows (sentences wrap in the terminal)
    assert "…" not in out and max(len(line.rstrip()) for line in rows) <= 80
    assert all(_column(out, title, "agent").count(LONG) == 1 for title in ("standings by ", "score rate of row"))
    assert len(re.findall(r"\d+\.\d ± \d+\.\d", out)) == 3  # the numbers stay whole
    assert len(re.findall(r"[+-]\d+ \.\. [+-]\d+", out)) == 3
    assert len(re.findall(r"\d+-\d+-\d+ [+-]\d\.\d\d", out)) == 6


def _column(out: str, title: str, header: str) -> str:
    """The text of a column of single-word cells under ``title``, wrapped pieces joined (names hold no spaces)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if title in line)
    head = next(i for i in range(start, len(lines)) if re.search(rf"\b{header}\b", lines[i]))
    left = lines[head].index(header)
    pieces = []
    for line in lines[head + 2 :]:
        if not line.strip():
            break
        if len(line) > left and line[left] != " ":
            pieces.append(line[left:].split()[0])
    return "".join(pieces)


def test_the_replay_list_shows_who_sat_where_at_80_columns(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite"
    agents = f"random,{LONG}=random"
    assert (
        main(["tournament", "tic_tac_toe", "--agents", agents, "--games", "2", "--progress", "none", "--db", str(db)])
        == 0
    )
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["replay", str(db)]) == 0
    out = capsys.readouterr().out
    title, *table = out.splitlines()
    assert title == f"{db}: 2 stored games"  # one line, however long the path
    assert "…" not in out and max(len(line.rstrip()) for line in table) <= 80
    seats = _column(out, "r.sqlite", "seats")
    assert seats.count(f"player_0={LONG}") == 1 and seats.count(f"player_1={LONG}") == 1
    assert seats.count("player_0=random") == 1 and seats.count("player_1=random") == 1
    monkeypatch.setenv("COLUMNS", "300")  # room for the lineup key too
    assert main(["replay", str(db)]) == 0
    assert f"{LONG}|random#0" in capsys.readouterr().out


def test_check_only_the_named_interfaces(capsys):
    assert main(["interfaces", "--check", "flatten,frame_stack", "--plain"]) == 0
    captured = capsys.readouterr()
    status = {line.split()[0]: line.split()[2] for line in captured.out.splitlines()[1:-1] if line.strip()}
    assert status["flatten"] == status["frame_stack"] == "checked"
    assert status["ego_board"] == "not"  # "not checked": it was not asked for
    assert captured.err == ""


def test_check_a_name_that_is_not_there(capsys):
    assert main(["interfaces", "--check", "flaten"]) == 2
    assert capsys.readouterr().err == (
        "arena interfaces: error: --check: no interface is named 'flaten'; did you mean 'flatten'?\n"
    )
