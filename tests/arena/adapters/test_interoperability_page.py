"""The interoperability page (docs/interoperability.md) has an example for every library (tests/test_readme.py
runs every block of it as a script file)."""

from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[3] / "docs" / "interoperability.md"
# The libraries each subsection needs (CI installs every extra, so none is skipped there).
NEEDS = {"PettingZoo": ["pettingzoo"], "OpenSpiel": ["pyspiel"], "RLlib": ["ray.rllib", "torch"], "Gymnasium": []}


def _examples() -> list[tuple[str, int, str]]:
    """``(section, index, code)`` for every ```python block of the page, under its ``## LIBRARY`` heading."""
    examples = []
    for part in re.split(r"^## ", PAGE.read_text(encoding="utf-8"), flags=re.M)[1:]:
        title = part.split(maxsplit=1)[0]
        for index, code in enumerate(re.findall(r"^```python\n(.*?)^```", part, flags=re.M | re.S)):
            examples.append((title, index, code))
    return examples


EXAMPLES = _examples()


def test_every_library_has_an_example() -> None:
    assert sorted({title for title, _, _ in EXAMPLES}) == sorted(NEEDS)
