"""Shared games and the browser of the viewer's tests.

The games are played once per session by the scripted bots (deterministic, seeded). The browser
is Debian's headless Chromium driven by Playwright (``executable_path``: Playwright's own
browser download is never used); ``tests/viewer/ensure_chromium.sh``, run by the README's test
command, installs it when missing. Screenshots and timings go to ``CAYLUS_ARTIFACTS_DIR`` when it
is set (CI can keep them), else to pytest's temporary directory: a test run never writes into
the repository.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.tournament.arena import play_game
from caylus_env.core.record import GameRecord

FIVE_SEATS = ("castle", "town", "economy", "random", "castle")
ENSURE = "sh tests/viewer/ensure_chromium.sh"


@pytest.fixture(scope="session")
def record_5p() -> GameRecord:
    """A whole 5-player game between the scripted bots and random."""
    return play_game(list(FIVE_SEATS), 5, 11, agent_seeds=[1, 2, 3, 4, 5])


@pytest.fixture(scope="session")
def record_2p() -> GameRecord:
    return play_game(["castle", "town"], 2, 3, agent_seeds=[1, 2])


@pytest.fixture(scope="session")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots and measured timings are saved."""
    chosen = os.environ.get("CAYLUS_ARTIFACTS_DIR")
    if chosen:
        path = Path(chosen)
        path.mkdir(parents=True, exist_ok=True)
        return path
    return tmp_path_factory.mktemp("viewer-artifacts")


def chromium_executable() -> str:
    """Debian's chromium (or ``CAYLUS_CHROMIUM``); a clear failure when there is none."""
    chosen = os.environ.get("CAYLUS_CHROMIUM")
    if chosen:
        if not os.access(chosen, os.X_OK):
            pytest.fail(f"CAYLUS_CHROMIUM={chosen} is not an executable file")
        return chosen
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(f"no chromium on PATH: run `{ENSURE}` (the README's test command does)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_executable(), headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


class Console:
    """Everything a page reported as an error: console errors, uncaught exceptions, failed
    requests (a self-contained page makes none)."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("requestfailed", lambda r: self.errors.append(f"request failed: {r.url}"))
        self.requests: list[str] = []
        page.on("request", lambda r: self.requests.append(r.url))


@pytest.fixture
def page(browser: Any) -> Iterator[tuple[Any, Console]]:
    """A fresh page and its error log; the test fails if the page logged an error."""
    context = browser.new_context(viewport={"width": 1600, "height": 1150})
    tab = context.new_page()
    console = Console(tab)
    try:
        yield tab, console
        assert console.errors == [], console.errors
    finally:
        context.close()
