"""CHANGELOG.md: Keep a Changelog's layout, and its newest release is the package's version."""

from __future__ import annotations

import configparser
import datetime
import re
from pathlib import Path

import arena

ROOT = Path(__file__).resolve().parents[1]
HEADING = re.compile(r"^## \[(?P<version>[^\]]+)\](?: - (?P<date>\d{4}-\d{2}-\d{2}))?$", re.M)
KINDS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def _releases() -> list[tuple[str, str | None]]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [(m["version"], m["date"]) for m in HEADING.finditer(text)]


def test_the_newest_release_is_the_package_version() -> None:
    releases = _releases()
    assert releases[0] == ("Unreleased", None), "the changelog opens with an Unreleased section"
    newest = releases[1][0]
    assert newest == arena.__version__, f"CHANGELOG.md's newest release is {newest}, arena is {arena.__version__}"


def test_setup_cfg_reads_the_version_from_the_package() -> None:
    # one source of truth: a version written in setup.cfg as well could drift from arena.__version__
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    assert config["metadata"]["version"] == "attr: arena.__version__"


def test_releases_are_dated_newest_first_with_versions_that_grow() -> None:
    released = _releases()[1:]
    dates = [datetime.date.fromisoformat(date) for _, date in released if date]
    assert len(dates) == len(released), f"every release has its date: {released}"
    versions = [tuple(int(part) for part in version.split(".")) for version, _ in released]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert dates == sorted(dates, reverse=True)


def test_sections_use_keep_a_changelog_s_kinds() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    kinds = set(re.findall(r"^### (.+)$", text, flags=re.M))
    assert kinds and kinds <= KINDS, f"unknown kinds of change: {sorted(kinds - KINDS)}"
