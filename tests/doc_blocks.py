"""The Python blocks of the README and the documentation pages, run as a user runs them.

``tests/test_readme.py`` runs every ```python block of the README and of the site's guide pages as a
script file of its own; ``tests/test_docs_site.py`` runs each tutorial's blocks one after the other as
one script (a tutorial builds on its earlier blocks).
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def python_blocks(text: str) -> list[tuple[str, str]]:
    """``(section heading, code)`` for every ```python block of a Markdown text, in order.

    The heading is the nearest ``##`` or ``###`` heading above the block (``"top"`` before any).
    """
    blocks, heading = [], "top"
    for match in re.finditer(r"^(#{2,3} [^\n]*)$|^```python\n(.*?)\n```", text, flags=re.M | re.S):
        if match.group(1):
            heading = match.group(1).lstrip("# ").strip()
        else:
            blocks.append((heading, match.group(2)))
    return blocks


def missing_modules(code: str) -> list[str]:
    """The top-level modules the code imports that are not installed (a missing extra skips it)."""
    names = re.findall(r"^\s*(?:from|import) ([\w.]+)", code, flags=re.M)
    return [name for name in names if importlib.util.find_spec(name.split(".")[0]) is None]


def run_script(code: str, folder: pathlib.Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """Save ``code`` as ``block.py`` in ``folder`` and run it there with this Python, the checkout first."""
    script = folder / "block.py"
    script.write_text(code + "\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=folder, env=env, timeout=timeout
    )
