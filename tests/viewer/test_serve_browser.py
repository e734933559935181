"""``caylus serve`` in a real browser (Debian's headless Chromium, as the replay page's tests),
judged as a player meets it: for every game, a person plays a whole game by clicking (on the
board's highlighted targets whenever the decision has some, on the list of legal actions
otherwise) against the opponent the page proposes, the game's best shipped network; every
action the page lists reads in the game's words (no engine id), every agent move shows its
value estimate and its move probabilities, the end is said in words; the game is saved, its
record replays in the engine to the final scores the page shows, its replay page opens, and
no page logs an error. A search agent's move shows its visit shares; the rules link opens the
game's rules; the option sets and options are explained; Puerto Rico's supplies stay inside
their box."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

from PIL import Image

from agents.policy import best_shipped
from caylus_env.core.record import load_records, replay
from caylus_env.core.registry import game_spec
from caylus_env.puerto_rico.viewer import Drawing as PuertoRicoDrawing
from caylus_env.puerto_rico.viewer import board as pr_board
from tests.conftest import warm_kernels
from tests.serve.conftest import make_server
from tests.viewer.conftest import Console

ROOT = Path(__file__).resolve().parents[2]

#: States of the page in which it waits for nothing.
SETTLED = "['human', 'over', 'error'].includes(document.body.dataset.state)"
#: What an engine id looks like in a text (``option:1``, ``road:9``, ``food+wood``, ``a_b``).
ENGINE_ID = re.compile(r"\w:\w|\w\+\w|_")
#: The page's lines for an agent's value estimate and its move shares.
VALUE_LINE = re.compile(
    r"^its value estimate [+-]\d\.\d\d: chance of (winning|finishing ahead of an opponent) "
    r"about \d{1,3}%$"
)
SHARE_LINE = re.compile(r"^\d+\.\d%: \S")
VISIT_LINE = re.compile(r"^\d+ visits \(\d+\.\d%\): \S")


def _settled_after(tab, version: int) -> str:
    tab.wait_for_function(
        f"{SETTLED} && Number(document.body.dataset.version || -1) > {version}", timeout=60_000
    )
    return tab.evaluate("document.body.dataset.state")


def _start(tab, game: str, agent: str | None = None, seed: str = "7") -> None:
    """A 2-player game: a person in seat 0, seat 1 the page's proposal (or ``agent``)."""
    tab.select_option("#game", game)
    tab.select_option("#players", "2")
    tab.fill("#seed", seed)
    tab.select_option(".seat-kind[data-seat='0']", "human")
    tab.select_option(".seat-kind[data-seat='1']", "agent")
    if agent is not None:
        tab.fill(".seat-agent[data-seat='1']", agent)
    tab.click("#start")


def _listed(tab) -> list[str]:
    return tab.evaluate(
        "Array.from(document.querySelectorAll('#legal button')).map(b => b.textContent)"
    )


def _agent_lines(tab) -> list[dict]:
    """Each agent move the page lists: its value line and its share lines."""
    return tab.evaluate(
        """Array.from(document.querySelectorAll('#recent li.move')).map(li => ({
            text: li.firstChild.textContent,
            value: li.querySelector('.value') ? li.querySelector('.value').textContent : null,
            shares: Array.from(li.querySelectorAll('.top ol li')).map(x => x.textContent)
        }))"""
    )


def test_a_person_plays_a_whole_game_in_words_against_the_default_opponent(
    game, browser, tmp_path: Path
):
    warm_kernels(game)  # the page's waits measure the page, not numba compiling the game
    default = best_shipped(game)
    server = make_server(tmp_path)
    context = browser.new_context(viewport={"width": 1600, "height": 1150})
    tab = context.new_page()
    console = Console(tab)
    try:
        tab.goto(server.url)
        tab.select_option("#game", game)
        assert tab.input_value(".seat-agent[data-seat='1']") == default
        _start(tab, game)
        state = _settled_after(tab, -1)
        rng = random.Random(1)
        board_clicks = list_clicks = agent_moves = 0
        while state == "human":
            view = tab.evaluate("window.caylusServe.view()")
            legal = view["decision"]["legal"]
            assert _listed(tab) == [e["words"] for e in legal]
            assert not any(ENGINE_ID.search(e["words"]) for e in legal), legal
            assert not ENGINE_ID.search(tab.text_content("#decision")), view["decision"]
            for line in _agent_lines(tab):
                if line["text"].startswith("player 1"):
                    agent_moves += 1
                    assert not ENGINE_ID.search(line["text"]), line
                    assert VALUE_LINE.match(line["value"] or ""), line
                    assert line["shares"] and all(SHARE_LINE.match(s) for s in line["shares"])
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
        assert agent_moves > 10
        status = tab.text_content("#status")
        assert re.match(
            r"^Game over: player \d \((human|[\w:.-]+)\) (wins|.* tie for first)", status
        )
        assert tab.text_content("#decision") == status
        assert "terminated" not in tab.inner_text("body")
        shown = [int(t) for t in tab.locator("#scores td.score").all_text_contents()]
        tab.click("#save")
        link = tab.locator("#replay-link")
        link.wait_for()
        name = link.get_attribute("href").rsplit("/", 1)[1]
        (record,) = load_records(tmp_path / "saved" / name)
        replayed = replay(record)  # the core verifier: every step against the engine
        assert replayed.is_over() and replayed.scores().tolist() == shown
        assert list(record.final.scores) == shown
        assert record.match.agents == ("human", default)
        assert sum(1 for m in record.actions) == len(replayed.history)
        tab.goto(server.url.rstrip("/") + link.get_attribute("href"))
        tab.wait_for_function("window.caylusViewer !== undefined")
        assert tab.evaluate("window.caylusViewer.steps") == len(record.actions) + 1
        assert console.errors == [], console.errors
    finally:
        context.close()
        server.close()


def test_a_search_agents_moves_show_its_visit_shares_and_value(browser, tmp_path: Path):
    warm_kernels("caylus")
    server = make_server(tmp_path)
    context = browser.new_context(viewport={"width": 1600, "height": 1150})
    tab = context.new_page()
    console = Console(tab)
    try:
        tab.goto(server.url)
        _start(tab, "caylus", agent="puct:8", seed="3")
        state = _settled_after(tab, -1)
        lines = []
        while state == "human" and not lines:
            lines = [x for x in _agent_lines(tab) if x["text"].startswith("player 1")]
            if not lines:
                view = tab.evaluate("window.caylusServe.view()")
                tab.click(f"#legal button[data-action='{view['decision']['legal'][0]['action']}']")
                state = _settled_after(tab, view["version"])
        assert lines, state
        for line in lines:
            assert VALUE_LINE.match(line["value"] or ""), line
            assert line["shares"] and all(VISIT_LINE.match(s) for s in line["shares"]), line
        assert "its search's root visits:" in tab.text_content("#recent")
        assert console.errors == [], console.errors
    finally:
        context.close()
        server.close()


def test_the_rules_link_opens_the_games_rules_in_the_page_and_in_a_game(
    game, browser, tmp_path: Path
):
    warm_kernels(game)
    server = make_server(tmp_path)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    console = Console(tab)
    try:
        tab.goto(server.url)
        tab.select_option("#game", game)
        title = game_spec(game).title
        assert tab.text_content("#rules-link") == f"Rules of {title}"
        _start(tab, game, agent="random")
        _settled_after(tab, -1)
        with context.expect_page() as opened:
            tab.click("#rules-link")
        rules = opened.value
        rules.wait_for_load_state()
        assert rules.url == server.url + f"rules/{game}"
        heading = rules.text_content("h1")
        assert heading and heading.strip() == (
            Path(game_spec(game).rules_doc).read_text().splitlines()[0].removeprefix("# ")
        )
        assert rules.locator("table").count() > 0  # the rules' tables render as tables
        first_link = rules.locator("a[href^='#']").first
        target = first_link.get_attribute("href")
        first_link.click()
        assert rules.evaluate(f"document.getElementById({target[1:]!r}) !== null")
        assert console.errors == [], console.errors
    finally:
        context.close()
        server.close()


def test_the_option_sets_and_options_are_explained_in_words(game, browser, tmp_path: Path):
    server = make_server(tmp_path)
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    try:
        tab.goto(server.url)
        tab.select_option("#game", game)
        spec = game_spec(game)
        assert tab.text_content("#option-set-words").startswith("the rules as printed")
        docs = tab.locator("#options .option-doc").all_text_contents()
        assert len(docs) == len(spec.options()) and all(docs)
        for name, options in spec.option_sets.items():
            tab.select_option("#option-set", name)
            said = tab.text_content("#option-set-words")
            for key in options:
                assert key.replace("_", " ") in said, (name, said)
        labels = tab.locator("#options label").all_text_contents()
        assert not any("_" in label.split(":")[0] for label in labels), labels
    finally:
        context.close()
        server.close()


def test_puerto_ricos_supplies_stay_inside_their_box_off_the_face_up_plantations(browser):
    """The supplies box (VP chips left, quarries, face-down tiles) at every count the game
    reaches, chips on paper included (rules 6.7): each line ends inside the box, left of the
    face-up plantations beside it, and the lines do not overlap."""
    spec = game_spec("puerto_rico")
    d = spec.new_game(spec.config(5), 1).state_dict()
    drawing = PuertoRicoDrawing(d["options"], tuple(f"seat {k}" for k in range(5)))
    x, width = pr_board.BOXES["supplies"]
    face_up_x = pr_board.BOXES["face_up"][0]
    tab = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        for chips in (122, 7, 0, -1, -57, -1234):
            d["vp_supply"] = chips
            tab.set_content(drawing.picture(d, [0] * 5))
            boxes = tab.evaluate(
                """(() => { const o = document.querySelector('svg').getBoundingClientRect();
                   return Array.from(document.querySelectorAll('[data-slot="supplies"] text'))
                     .map(t => { const b = t.getBoundingClientRect();
                                 return [t.textContent, b.left - o.left, b.right - o.left,
                                         b.top - o.top, b.bottom - o.top]; }); })()"""
            )
            assert boxes, "no supplies text drawn"
            for text, left, right, _, _ in boxes:
                assert x < left and right < x + width - 2 < face_up_x, (chips, text, right)
            rows = sorted((top, bottom) for _, _, _, top, bottom in boxes)
            assert all(b[0] >= a[1] - 1 for a, b in itertools.pairwise(rows)), rows
    finally:
        tab.close()


def test_the_docs_screenshots_are_taken_by_the_script_the_docs_name(browser, tmp_path: Path):
    """``tests/viewer/serve_screenshot.py`` takes every picture it names (the docs show them
    as written by it): each at its width, not blank, and shown by a page of the docs."""
    from tests.viewer import serve_screenshot

    warm_kernels("caylus", "puerto_rico")
    written = serve_screenshot.take(tmp_path, browser)
    docs = " ".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for (name, (width, _), saved_width), path in zip(serve_screenshot.SHOTS, written, strict=True):
        assert path == tmp_path / name and (ROOT / "docs" / "images" / name).is_file()
        image = Image.open(path).convert("RGB")
        assert image.width == (saved_width or width)
        colours = image.resize((64, 64)).getcolors(64 * 64) or []
        assert len(colours) > 20, f"{name} looks blank"
        assert f"images/{name}" in docs, f"no page of the docs shows {name}"
