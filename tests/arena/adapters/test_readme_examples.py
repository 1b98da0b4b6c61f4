"""The README's "Interoperability" section has an example for every library (tests/test_readme.py runs
every README block as a script file)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"
# The libraries each subsection needs (CI installs every extra, so none is skipped there).
NEEDS = {"PettingZoo": ["pettingzoo"], "OpenSpiel": ["pyspiel"], "RLlib": ["ray.rllib", "torch"], "Gymnasium": []}


def _examples() -> list[tuple[str, int, str]]:
    """``(subsection, index, code)`` for every ```python block under ``## Interoperability``."""
    text = README.read_text(encoding="utf-8")
    match = re.search(r"^## Interoperability\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    if match is None:
        return []
    examples = []
    for part in re.split(r"^### ", match.group(1), flags=re.M)[1:]:
        title = part.split(maxsplit=1)[0]
        for index, code in enumerate(re.findall(r"^```python\n(.*?)^```", part, flags=re.M | re.S)):
            examples.append((title, index, code))
    return examples


EXAMPLES = _examples()


def test_every_library_has_an_example() -> None:
    assert sorted({title for title, _, _ in EXAMPLES}) == sorted(NEEDS)
