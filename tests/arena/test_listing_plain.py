"""`arena envs`, `arena agents` and `arena interfaces` print plain text (no reST markup) and speak of arena only."""

from __future__ import annotations

import re
import subprocess
import sys


def test_listings_print_no_restructuredtext_markup():
    for command in (["envs"], ["agents"], ["interfaces", "--plain"]):
        out = subprocess.run(
            [sys.executable, "-m", "arena", *command], capture_output=True, text=True, check=True, timeout=300
        ).stdout
        assert out.strip()
        assert "``" not in out and not re.search(r":(class|func|meth|mod):", out), (command, out)
        # no other toolkit's names: "Arena's step_mul", "Pong-2p", "the Arena toolkit" read as this library's own
        assert not re.search(r"\bArena\b|Pong-2p", out), (command, out)
