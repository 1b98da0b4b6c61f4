"""Fixtures for the replay tests: stored tournaments, and a real headless Chromium driven by Playwright.

The browser is Debian's ``chromium-headless-shell`` (``tools/browser-setup.sh`` installs it and
Playwright). Where it is missing the browser tests skip, except under ``CI=true``, where they
fail: a missing set-up step must not pass unseen. The browser process is Playwright's child and
ends with ``browser.close()`` (Playwright stops it by its PID).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM = (
    os.environ.get("CHROMIUM")
    or shutil.which("chromium-headless-shell")
    or shutil.which("chromium")
    or "/usr/bin/chromium-headless-shell"
)


def _missing(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{why}: run `bash tools/browser-setup.sh` first", pytrace=False)
    pytest.skip(f"{why} (bash tools/browser-setup.sh installs it)")


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None:
        _missing("playwright is not installed")
    if not os.access(CHROMIUM, os.X_OK):
        _missing(f"no Chromium at {CHROMIUM}")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()


@pytest.fixture
def console_errors(page):
    """Console errors and uncaught exceptions of ``page``, collected as they come."""
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


@pytest.fixture
def screenshot(tmp_path):
    """Save a page's screenshot; with ``ARENA_SCREENSHOTS=DIR`` also keep it there (docs/images)."""

    def take(page, name: str) -> Path:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        keep = os.environ.get("ARENA_SCREENSHOTS")
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, Path(keep) / path.name)
        return path

    return take
