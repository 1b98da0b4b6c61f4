"""The README's set-up commands, and every Python block (run as a script file), command and output of the
README and of the guide pages its sections moved to, cannot rot."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pytest

from tests.doc_blocks import ROOT, missing_modules, python_blocks, run_script

README = (ROOT / "README.md").read_text()
# The site's guide pages that hold what the README once did: their blocks and commands keep the README's rules.
GUIDES = ["games", "ready-interfaces", "interoperability", "tournaments", "training", "teams", "replays"]
PAGES = {"README.md": README, **{f"docs/{name}.md": (ROOT / "docs" / f"{name}.md").read_text() for name in GUIDES}}


def test_readme_opens_with_the_demo_and_the_test_command():
    blocks = re.findall(r"```(\w*)\n(.*?)\n```", README, flags=re.S)
    assert [lang for lang, _ in blocks[:2]] == ["bash", "bash"]
    demo, tests = (body.strip() for _, body in blocks[:2])
    assert "arena demo" in demo and "\n" not in demo
    assert tests.startswith("pip install --no-compile torch==2.13.0 && ") and tests.endswith(
        "python -m pytest -q -n logical --dist loadgroup"
    )


def test_readme_says_where_the_commands_run_and_in_which_python():
    before = README.split("```", 1)[0]  # what a newcomer reads before the first command
    assert "clone this repository, `cd` into the clone" in before
    assert "python3.11 -m venv .venv && . .venv/bin/activate" in before
    import configparser

    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    assert setup["options"]["python_requires"] == ">=3.11"  # as the README's "only Python 3.11" says
    classifiers = setup["metadata"]["classifiers"].split("\n")
    assert "Programming Language :: Python :: 3.11" in classifiers
    assert not [line for line in classifiers if re.fullmatch(r".*Python :: 3\.(\d|10)", line)]


def test_ci_runs_exactly_the_readme_test_command():
    command = subprocess.run(
        [sys.executable, str(ROOT / ".ci" / "readme_command.py"), "test"], capture_output=True, text=True, check=True
    ).stdout.strip()
    blocks = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    assert command == blocks[1].strip()
    script = (ROOT / ".ci" / "run").read_text()
    assert "readme_command.py test" in script and "python3 -m venv" in script and "set -euo pipefail" in script


BLOCKS = [(page, heading, code) for page, text in PAGES.items() for heading, code in python_blocks(text)]


def test_every_python_block_is_collected():
    headings = {page: [heading for where, heading, _ in BLOCKS if where == page] for page in PAGES}
    assert headings["README.md"][0] == "Quickstart"
    assert headings["docs/tournaments.md"] and headings["docs/teams.md"] and headings["docs/games.md"]
    assert 'RLlib (`pip install torch==2.13.0 && pip install ".[rllib]"`)' in headings["docs/interoperability.md"]
    assert len(BLOCKS) == sum(text.count("```python") for text in PAGES.values())


def test_the_readme_links_every_guide_page():
    for name in GUIDES:
        assert f"](docs/{name}.md)" in README, f"README.md does not link docs/{name}.md"


@pytest.mark.parametrize(
    "index",
    range(len(BLOCKS)),
    ids=[f"{i}-{p.split('/')[-1][:-3]}-{h.split(' ')[0]}" for i, (p, h, _) in enumerate(BLOCKS)],
)
def test_readme_python_block_runs_as_a_script_file(index, tmp_path):
    """Each block as a user runs it: saved to a file and run with python, in a fresh folder."""
    page, heading, code = BLOCKS[index]
    missing = missing_modules(code)
    if missing:
        pytest.skip(f"needs {missing} (an extra)")
    result = run_script(code, tmp_path)
    assert result.returncode == 0, f"{page}: the block under '{heading}' failed:\n{result.stderr[-3000:]}"
    if heading == "Quickstart":
        lines = result.stdout.splitlines()
        assert lines[0] == "Flatten(EgoBoard())"
        assert lines[1] == "Box(-1.0, 1.0, (9,), float32)"
        assert lines[2] == "RotateBoard(EgoBoard(planes=True), quarter_turns=1)"
        assert lines[3] == "player_1 wins {'player_0': -1.0, 'player_1': 1.0}"  # the seed fixes it; the comment says so
    for written in tmp_path.iterdir():  # whatever the block writes is ignored by git where the README runs
        if written.name != "block.py":
            assert _ignored(written.name), (
                f"{written.name}, written by the block under '{heading}' of {page}, is not in .gitignore"
            )


def _ignored(path: str) -> bool:
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0


def test_what_the_readme_commands_write_is_in_gitignore():
    text = "\n".join(PAGES.values())
    outputs = re.findall(r"--(?:db|out|report|html|png|json|video|record|export)[ =\n]+([^\s`'\"]+)", text)
    outputs += re.findall(r"\bdb=\"([^\"]+)\"", text) + ["report_replays", "arena-demo/results.sqlite"]
    outputs = sorted({path for path in outputs if path not in ("FILE", "-")})
    assert {"c4.png", "pong.mp4", "game3.html", "ttt.sqlite", "games.csv"} <= set(outputs)
    assert [path for path in outputs if not _ignored(path)] == []


@pytest.mark.parametrize("page", list(PAGES))
def test_replay_video_examples_make_the_file_they_read(page):
    lines = [
        line.split("#")[0].split()
        for lang, block in re.findall(r"^```(\w*)\n(.*?)^```", PAGES[page], flags=re.M | re.S)
        if lang in ("", "bash")
        for line in block.replace("\\\n", " ").splitlines()
        if line.startswith("arena ")
    ]
    for index, words in enumerate(lines):
        if words[:2] == ["arena", "replay"] and "--video" in words:
            source = words[2]
            made = [
                w for earlier in lines[:index] for flag, w in zip(earlier, earlier[1:]) if flag in ("--db", "--record")
            ]
            assert source in made, f"'arena replay {source} --video' reads a file no earlier command writes"


def _training_commands() -> list[list[str]]:
    """The `arena` command lines of the training page's first block, continuation lines joined."""
    section = PAGES["docs/training.md"].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)\n```", section, flags=re.S).group(1)
    lines = block.replace("\\\n", " ").splitlines()
    return [shlex.split(line) for line in lines if line.startswith("arena ")]


def test_readme_training_block_trains_plays_the_folder_and_continues(tmp_path, monkeypatch, capsys):
    """The block as written, only smaller: train -> tournament with the folder as entrant -> continue."""
    pytest.importorskip("sb3_contrib")
    from arena.cli import main

    commands = _training_commands()
    assert [c[:2] for c in commands] == [["arena", "train"], ["arena", "tournament"], ["arena", "train"]]
    assert "--out" in commands[0] and "--load" in commands[2]
    folder = commands[0][commands[0].index("--out") + 1]
    assert commands[2][commands[2].index("--load") + 1] == folder
    assert folder in commands[1][commands[1].index("--agents") + 1].split(",")
    small = {"--timesteps": "128", "--games": "4"}
    monkeypatch.chdir(tmp_path)
    for command in commands:
        argv = [small.get(previous, word) for previous, word in zip([None, *command], command)][1:]
        if argv[0] == "train":
            argv += ["--eval-games", "2", "--n-envs", "2", "--progress", "none"]
        assert main(argv) == 0, capsys.readouterr().err
        if argv[0] == "tournament":  # the folder is an entrant (a row of the standings), no game forfeited
            standings = capsys.readouterr().out
            rows = [line for line in standings.splitlines() if re.match(rf"\s*\d+\s+{folder}\s", line)]
            assert rows and "forfeit" not in standings, standings  # forfeits are shown only when there are some
    printed = capsys.readouterr().out
    assert "for 256 timesteps" in printed  # the count went on from the first run
    assert json.loads((tmp_path / folder / "agent.json").read_text())["timesteps"] == 256
