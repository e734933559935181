"""``caylus serve`` in a real browser (Debian's headless Chromium, as the replay page's tests):
for every game, a person plays a whole game against ``random`` by clicking, on the board's
highlighted targets whenever the decision has some and on the list of legal actions otherwise;
the game is saved, its record replays in the engine to the final scores the page shows, its
replay page opens, and no page logs an error."""

from __future__ import annotations

import random
from pathlib import Path

from caylus_env.core.record import load_records, replay
from tests.conftest import warm_kernels
from tests.serve.conftest import make_server
from tests.viewer.conftest import Console

#: States of the page in which it waits for nothing.
SETTLED = "['human', 'over', 'error'].includes(document.body.dataset.state)"


def _settled_after(tab, version: int) -> str:
    tab.wait_for_function(
        f"{SETTLED} && Number(document.body.dataset.version || -1) > {version}", timeout=60_000
    )
    return tab.evaluate("document.body.dataset.state")


def _start(tab, game: str) -> None:
    tab.select_option("#game", game)
    tab.select_option("#players", "2")
    tab.fill("#seed", "7")
    tab.select_option(".seat-kind[data-seat='0']", "human")
    tab.select_option(".seat-kind[data-seat='1']", "agent")
    tab.fill(".seat-agent[data-seat='1']", "random")
    tab.click("#start")


def test_a_person_plays_a_whole_game_by_clicks_against_random(game, browser, tmp_path: Path):
    warm_kernels(game)  # the page's waits measure the page, not numba compiling the game
    server = make_server(tmp_path)
    context = browser.new_context(viewport={"width": 1600, "height": 1150})
    tab = context.new_page()
    console = Console(tab)
    try:
        tab.goto(server.url)
        _start(tab, game)
        state = _settled_after(tab, -1)
        rng = random.Random(1)
        board_clicks = list_clicks = 0
        while state == "human":
            view = tab.evaluate("window.caylusServe.view()")
            legal = view["decision"]["legal"]
            on_board = [entry for entry in legal if entry["target"] is not None]
            if on_board:
                choice = rng.choice(on_board)
                tab.click(f"#targets rect[data-action='{choice['action']}']")
                board_clicks += 1
            else:
                choice = rng.choice(legal)
                tab.click(f"#legal button[data-action='{choice['action']}']")
                list_clicks += 1
            state = _settled_after(tab, view["version"])
        assert state == "over", tab.text_content("#game-error")
        assert board_clicks > 10 and board_clicks > list_clicks, (board_clicks, list_clicks)
        shown = [int(t) for t in tab.locator("#scores td.score").all_text_contents()]
        tab.click("#save")
        link = tab.locator("#replay-link")
        link.wait_for()
        name = link.get_attribute("href").rsplit("/", 1)[1]
        (record,) = load_records(tmp_path / "saved" / name)
        replayed = replay(record)  # the core verifier: every step against the engine
        assert replayed.is_over() and replayed.scores().tolist() == shown
        assert list(record.final.scores) == shown
        assert record.match.agents == ("human", "random")
        assert sum(1 for m in record.actions) == len(replayed.history)
        tab.goto(server.url.rstrip("/") + link.get_attribute("href"))
        tab.wait_for_function("window.caylusViewer !== undefined")
        assert tab.evaluate("window.caylusViewer.steps") == len(record.actions) + 1
        assert console.errors == [], console.errors
    finally:
        context.close()
        server.close()
