"""The README's set-up commands and quickstart cannot rot."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

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
