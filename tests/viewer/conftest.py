"""Shared games and the browser of the viewer's tests, for every registered game.

The games are played once per session by each game's scripted bots and ``random``
(deterministic, seeded), through the one agent registry: a 5-player game with the game's last
option set (its richest variant) and a 2-player game with the rules as printed. The browser is
Debian's headless Chromium driven by Playwright (``executable_path``: Playwright's own browser
download is never used); ``tests/viewer/ensure_chromium.sh``, run by the README's test command,
installs it when missing. Screenshots and timings go to ``CAYLUS_ARTIFACTS_DIR`` when it is set
(CI can keep them), else to pytest's temporary directory: a test run never writes into the
repository.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from agents.registry import make_agent
from caylus_env.core.record import GameRecord
from caylus_env.core.registry import GAME_NAMES, game_spec

ENSURE = "sh tests/viewer/ensure_chromium.sh"


def bot_seats(game: str, num_players: int) -> tuple[str, ...]:
    """The game's scripted bots and ``random`` around a table of ``num_players``."""
    bots = [b.head for b in game_spec(game).module("bots").BOTS.values() if b.scripted is not None]
    return tuple((bots + ["random"] + bots * num_players)[:num_players])


def play(
    game: str,
    seats: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    max_decisions: int | None = None,
) -> GameRecord:
    """A game of ``seats`` (agent specs) from setup ``seed``, to its end or to
    ``max_decisions`` decisions (an unfinished record); agent ``k`` is reset with seed ``k``."""
    spec = game_spec(game)
    g = spec.new_game(spec.config(len(seats), **dict(options or {})), seed)
    agents = [make_agent(s, game) for s in seats]
    for k, agent in enumerate(agents):
        agent.reset(k)
    while not g.is_over() and (max_decisions is None or len(g.history) < max_decisions):
        g.apply(agents[g.current_player()].act(g))
    return g.record()


@cache
def record_5p(game: str) -> GameRecord:
    """A whole 5-player game between the scripted bots and random, the game's last option
    set."""
    options = list(game_spec(game).option_sets.values())[-1]
    return play(game, bot_seats(game, 5), 11, options)


@cache
def record_2p(game: str) -> GameRecord:
    """A whole 2-player game between two scripted bots, the rules as printed."""
    return play(game, bot_seats(game, 2), 3)


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> str:
    """Every registered game, in turn."""
    return request.param


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
