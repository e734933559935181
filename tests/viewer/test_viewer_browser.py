"""The replay page and the tournament report in a real browser (headless Chromium).

Opened from disk as a user would: no console error, the last step shows each seat's recorded
final prestige, a decision shows that decision's legal actions by name, the navigation (buttons,
keys, slider, jump list, address fragment) moves between steps, each step renders in under
50 ms, and the first and last steps' screenshots are not blank (saved as test artifacts).
"""

from __future__ import annotations

import io
import json
from statistics import median

import numpy as np
import pytest
from PIL import Image

from agents.tournament import TournamentSpec, run_tournament
from caylus_env.caylus.engine import Game, GameConfig, action_to_string
from caylus_env.caylus.viewer import write_replay_html

MAX_STEP_MS = 50.0
"""The issue's bound on rendering one step in the browser."""


@pytest.fixture(scope="module")
def page_5p(record_5p, tmp_path_factory):
    path = tmp_path_factory.mktemp("viewer") / "five.html"
    write_replay_html(record_5p, path)
    return path


def _open(tab, path, step=None):
    tab.goto(path.as_uri() + ("" if step is None else f"#step={step}"))
    tab.wait_for_function("window.caylusViewer !== undefined")


def _current(tab) -> int:
    return tab.evaluate("window.caylusViewer.current()")


def _non_blank(png: bytes) -> float:
    """Standard deviation of the grey levels: 0 for a blank picture."""
    grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    return float(grey.std())


def test_last_step_shows_the_recorded_final_prestige(page, page_5p, record_5p, artifacts):
    tab, _ = page
    _open(tab, page_5p)
    assert _current(tab) == 0
    first = tab.screenshot(full_page=True)
    tab.keyboard.press("End")
    last_step = len(record_5p.actions)
    assert _current(tab) == last_step
    assert tab.url.endswith(f"#step={last_step}")
    for seat, prestige in enumerate(record_5p.final.prestige):
        shown = tab.locator(f'#board [data-field="prestige"][data-seat="{seat}"]')
        assert shown.text_content() == str(prestige), f"seat {seat}"
    assert tab.locator("#decision").text_content() == "Game over: final scoring done"
    assert tab.locator("#legal li").count() == 0
    last = tab.screenshot(full_page=True)
    for name, png in (("viewer_first_step.png", first), ("viewer_last_step.png", last)):
        assert _non_blank(png) > 20.0, name
        (artifacts / name).write_bytes(png)
    assert first != last


def test_a_decision_shows_its_legal_actions_and_the_action_taken(
    page, page_5p, record_5p, artifacts
):
    tab, _ = page
    game = Game(GameConfig.from_dict(dict(record_5p.options)), record_5p.seed)
    wanted = None  # a mid-game decision with a few named choices
    for step, action in enumerate(record_5p.actions):
        if game.turn >= 8 and game.decision().kind in ("build", "favor_row", "market"):
            wanted = step, game.decision(), game.legal_actions(), action, game.current_player()
            break
        game.apply(action)
    assert wanted is not None
    step, decision, legal, action, player = wanted
    _open(tab, page_5p, step)
    assert _current(tab) == step
    items = tab.locator("#legal li")
    assert items.all_text_contents() == [action_to_string(a) for a in legal]
    assert tab.locator("#legal li.taken").all_text_contents() == [action_to_string(action)]
    assert tab.locator("#legal-count").text_content() == f"({len(legal)})"
    assert (
        tab.locator("#decision").text_content().startswith(f"{decision.kind} for player {player} (")
    )
    assert tab.locator("#taken").text_content().startswith(action_to_string(action) + " by ")
    header = tab.locator("#board text.header").text_content()
    assert f"Turn {game.turn}" in header and decision.kind in header
    shot = tab.screenshot(full_page=True)  # the README's picture of the viewer comes from here
    assert _non_blank(shot) > 20.0
    (artifacts / "viewer_decision.png").write_bytes(shot)


def test_navigation_keys_buttons_slider_jumps_and_address(page, page_5p, record_5p):
    tab, _ = page
    _open(tab, page_5p, 120)
    assert _current(tab) == 120
    tab.keyboard.press("ArrowRight")
    assert _current(tab) == 121 and tab.url.endswith("#step=121")
    tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("ArrowLeft")
    assert _current(tab) == 119
    tab.click("#next")
    assert _current(tab) == 120
    tab.keyboard.press("Home")
    assert _current(tab) == 0 and tab.locator("#prev").is_disabled()
    tab.click("#last")
    assert _current(tab) == len(record_5p.actions) and tab.locator("#next").is_disabled()
    tab.click("#first")
    assert _current(tab) == 0
    tab.locator("#slider").fill("200")
    assert _current(tab) == 200
    tab.keyboard.press("ArrowRight")  # the focused slider steps once, not twice
    assert _current(tab) == 201
    options = tab.locator("#jump option")
    labels = options.all_text_contents()
    target = next(i for i, label in enumerate(labels) if label.startswith("turn 5 "))
    tab.select_option("#jump", index=target)
    step = int(options.nth(target).get_attribute("value"))
    assert _current(tab) == step and step > 0
    tab.keyboard.press("PageDown")
    assert _current(tab) == int(options.nth(target + 1).get_attribute("value"))
    tab.evaluate("location.hash = '#step=42'")
    tab.wait_for_function("window.caylusViewer.current() === 42")
    assert tab.locator("#slider").input_value() == "42"


def test_every_step_renders_in_under_50_ms(page, page_5p, record_5p, artifacts):
    """Each step is timed from the step before it (stepping forward) and from the far end of
    the game (a jump: every slot changes), style and layout included; each time is the best of
    3 tries, so that another process taking the CPU for a moment is not counted."""
    tab, console = page
    _open(tab, page_5p)
    timings = tab.evaluate(
        """() => {
          const viewer = window.caylusViewer;
          const last = viewer.steps - 1;
          const time = (from, to) => {
            let best = Infinity;
            for (let i = 0; i < 3; i++) {
              viewer.show(from);
              document.body.getBoundingClientRect();
              const start = performance.now();
              viewer.show(to);
              document.body.getBoundingClientRect();  // style and layout included
              best = Math.min(best, performance.now() - start);
            }
            return best;
          };
          const forward = [];
          const jumps = [];
          for (let k = 1; k <= last; k++) { forward.push(time(k - 1, k)); }
          for (let k = 0; k <= last; k += 25) { jumps.push(time(last - k, k)); }
          return {forward: forward, jumps: jumps};
        }"""
    )
    forward, jumps = timings["forward"], timings["jumps"]
    assert len(forward) == len(record_5p.actions)
    summary = {
        "steps": len(forward) + 1,
        "forward_median_ms": median(forward),
        "forward_max_ms": max(forward),
        "jump_median_ms": median(jumps),
        "jump_max_ms": max(jumps),
    }
    (artifacts / "render_timings.json").write_text(json.dumps(summary))
    print(f"viewer render per step: {summary}")
    assert max(forward + jumps) < MAX_STEP_MS, summary
    assert console.requests == [tab.url.split("#")[0]]  # the file itself, nothing else


def test_chart_click_moves_to_that_step(page, page_5p, record_5p):
    tab, _ = page
    _open(tab, page_5p)
    chart = tab.locator("#timeline")
    box = chart.bounding_box()
    x0 = int(chart.get_attribute("data-x0"))
    width = int(chart.get_attribute("data-width"))
    scale = box["width"] / 1200
    tab.mouse.click(box["x"] + (x0 + width / 2) * scale, box["y"] + box["height"] / 2)
    middle = len(record_5p.actions) / 2
    assert abs(_current(tab) - middle) <= 2
    cursor = tab.locator("#cursor")
    assert abs(int(cursor.get_attribute("x1")) - (x0 + width // 2)) <= 4


@pytest.mark.usefixtures("private_registry")
def test_tournament_report_opens_and_links_its_game_pages(page, tmp_path, artifacts):
    spec = TournamentSpec(
        agents=("random", "test-crash"),
        players=2,
        games=4,
        seed=3,
        plugins=("agents.tournament.testing",),
    )
    out = tmp_path / "run"
    run_tournament(spec, out, workers=1, progress=False, n_boot=0)
    tab, console = page
    tab.goto((out / "report.html").as_uri())
    assert tab.locator("h1").text_content() == "Tournament: random vs test-crash"
    links = tab.locator("#games ~ table a").evaluate_all("links => links.map(a => a.href)")
    assert links and all((out / link.rsplit("/", 1)[1]).exists() for link in links)
    assert tab.locator("img").count() == 2  # the ratings and head-to-head plots, embedded
    assert tab.locator("img").evaluate_all(
        "images => images.every(i => i.complete && i.naturalWidth > 0)"
    )
    (artifacts / "report.png").write_bytes(tab.screenshot(full_page=True))
    tab.click("#games ~ table a >> nth=0")
    tab.wait_for_function("window.caylusViewer !== undefined")
    assert tab.locator("#title").text_content().startswith("game ")
    assert all(url.startswith("file://") for url in console.requests)
