"""setup.cfg: the adapters' extras exist, and ``all`` holds every feature extra's packages."""

from __future__ import annotations

import configparser
from pathlib import Path

SETUP_CFG = Path(__file__).resolve().parents[3] / "setup.cfg"


def _extras() -> dict[str, set[str]]:
    parser = configparser.ConfigParser()
    parser.read(SETUP_CFG, encoding="utf-8")
    section = parser["options.extras_require"]
    return {name: {line.strip() for line in value.splitlines() if line.strip()} for name, value in section.items()}


def test_adapter_extras_name_their_libraries() -> None:
    extras = _extras()
    assert any(req.startswith("pettingzoo") for req in extras["pettingzoo"])
    assert any(req.startswith("open-spiel") for req in extras["openspiel"])
    assert any(req.startswith("ray[rllib]") for req in extras["rllib"])
    assert any(req.startswith("torch") for req in extras["rllib"])


def test_all_extra_lists_every_other_extras_packages() -> None:
    extras = _extras()
    everything = extras.pop("all")
    # The developers' tools, not features: the README's test command installs ".[test,all,docs]".
    extras.pop("test", None)
    extras.pop("docs", None)
    missing = {name: sorted(reqs - everything) for name, reqs in extras.items() if reqs - everything}
    assert not missing, f"setup.cfg: add these to the 'all' extra: {missing}"
