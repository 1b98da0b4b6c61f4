"""The README's set-up commands and quickstart cannot rot."""

from __future__ import annotations

import json
import pathlib
import re
import shlex
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_opens_with_the_demo_and_the_test_command():
    blocks = re.findall(r"```(\w*)\n(.*?)\n```", README, flags=re.S)
    assert [lang for lang, _ in blocks[:2]] == ["bash", "bash"]
    demo, tests = (body.strip() for _, body in blocks[:2])
    assert "arena demo" in demo and "\n" not in demo
    assert tests.startswith("pip install torch==2.13.0 && ") and tests.endswith("python -m pytest -q")


def test_ci_runs_exactly_the_readme_test_command():
    command = subprocess.run([sys.executable, str(ROOT / ".ci" / "readme_command.py"), "test"],
                             capture_output=True, text=True, check=True).stdout.strip()
    blocks = re.findall(r"```bash\n(.*?)\n```", README, flags=re.S)
    assert command == blocks[1].strip()
    script = (ROOT / ".ci" / "run").read_text()
    assert "readme_command.py test" in script and "python3 -m venv" in script and "set -euo pipefail" in script


def test_quickstart_runs():
    quickstart = README.split("## Quickstart", 1)[1]
    code = re.search(r"```python\n(.*?)\n```", quickstart, flags=re.S).group(1)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Flatten(EgoBoard())"
    assert lines[1] == "Box(-1.0, 1.0, (9,), float32)"
    assert lines[2] == "RotateBoard(EgoBoard(planes=True), quarter_turns=1)"
    assert re.match(r"(player_[01] wins|draw) \{'player_0': ", lines[3])


def _training_commands() -> list[list[str]]:
    """The `arena` command lines of the README's training block, continuation lines joined."""
    section = README.split("## Training", 1)[1].split("\n## ", 1)[0]
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
            argv += ["--eval-games", "2", "--n-envs", "2", "--no-progress"]
        assert main(argv) == 0, capsys.readouterr().err
        if argv[0] == "tournament":  # the folder is an entrant (a row of the standings), no game forfeited
            rows = [line for line in capsys.readouterr().out.splitlines() if re.match(rf"│ \d+ │ {folder}\s+│", line)]
            assert [row for row in rows if re.search(r"│\s+\d+ │\s+0 │$", row)], rows  # games, forfeits 0
    printed = capsys.readouterr().out
    assert "for 256 timesteps" in printed  # the count went on from the first run
    assert json.loads((tmp_path / folder / "agent.json").read_text())["timesteps"] == 256
