"""Every game's replay page and the tournament report in a real browser (headless Chromium).

Opened from disk as a user would, for every registered game: no console error and nothing
loaded but the file, the last step shows each seat's recorded final score (on the board and in
the decision panel), a decision shows that decision's legal actions by name and the action
taken, the navigation (buttons, keys, slider, jump list, address fragment, chart) moves between
steps, each step renders in under 50 ms, and the first and last steps' screenshots are not
blank (saved as test artifacts).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from statistics import median

import numpy as np
import pytest
from PIL import Image

from agents.tournament import TournamentSpec, run_tournament
from caylus_env.core.registry import game_spec
from caylus_env.core.viewer import write_replay_page
from tests.viewer.conftest import record_5p

MAX_STEP_MS = 50.0
"""The issue's bound on rendering one step in the browser."""
MIN_STEPS = 150
"""The navigation test steps around step 120 and near step 200 (or the end of a shorter game:
a 5-player game of Caylus 1303 takes under 200 decisions)."""


_PAGES: dict[str, Path] = {}


@pytest.fixture
def page_5p(game, tmp_path_factory) -> Path:
    """The 5-player game's page on disk, written once per game."""
    if game not in _PAGES:
        path = tmp_path_factory.mktemp(f"viewer-{game}") / "five.html"
        assert write_replay_page(record_5p(game), path) == path
        _PAGES[game] = path
    return _PAGES[game]


def record_seats(record) -> tuple[str, ...]:
    """The names the page gives the seats: the match's agents, else ``seat N``."""
    n = record.num_players
    return tuple(f"seat {p}" for p in range(n)) if record.match is None else record.match.agents


def _open(tab, path, step=None):
    tab.goto(path.as_uri() + ("" if step is None else f"#step={step}"))
    tab.wait_for_function("window.caylusViewer !== undefined")


def _current(tab) -> int:
    return tab.evaluate("window.caylusViewer.current()")


def _non_blank(png: bytes) -> float:
    """Standard deviation of the grey levels: 0 for a blank picture."""
    grey = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    return float(grey.std())


def test_page_opens_from_disk_with_no_error_and_loads_nothing_else(game, page, page_5p):
    tab, console = page
    _open(tab, page_5p)
    assert _current(tab) == 0
    assert tab.title().startswith(f"{game_spec(game).title} · ")
    assert tab.locator("#board [data-slot]").count() > 50
    assert console.requests == [page_5p.as_uri()]


def test_last_step_shows_the_recorded_final_scores(game, page, page_5p, artifacts):
    tab, _ = page
    record = record_5p(game)
    spec = game_spec(game)
    _open(tab, page_5p)
    first = tab.screenshot(full_page=True)
    tab.keyboard.press("End")
    last_step = len(record.actions)
    assert _current(tab) == last_step
    assert tab.url.endswith(f"#step={last_step}")
    key = spec.score_key  # every drawing shows a seat's score in its slot player:<seat>:<key>
    context = tab.locator("#decision-context").text_content()
    for seat, score in enumerate(record.final.scores):
        shown = tab.locator(f'#board [data-slot="player:{seat}:{key}"] [data-field="{key}"]')
        assert shown.text_content() == str(score), f"seat {seat}"
        assert f"player {seat} ({record_seats(record)[seat]}): {score} {spec.score_word}" in context
    assert tab.locator("#decision").text_content() == "Game over: final scoring done"
    assert tab.locator("#legal li").count() == 0
    last = tab.screenshot(full_page=True)
    for name, png in (("first_step", first), ("last_step", last)):
        assert _non_blank(png) > 20.0, name
        (artifacts / f"{game}_viewer_{name}.png").write_bytes(png)
    assert first != last


def test_a_decision_shows_its_legal_actions_and_the_action_taken(game, page, page_5p, artifacts):
    tab, _ = page
    record = record_5p(game)
    spec = game_spec(game)
    engine = spec.engine()
    g = engine.Game(engine.GameConfig.from_dict(dict(record.options)), record.seed)
    wanted = None  # a mid-game decision with a few named choices
    for step, action in enumerate(record.actions):
        legal = g.legal_actions()
        if g.round >= 5 and len(legal) >= 3:
            wanted = step, g.decision(), legal, action, g.round
            break
        g.apply(action)
    assert wanted is not None
    step, decision, legal, action, clock = wanted
    _open(tab, page_5p, step)
    assert _current(tab) == step
    name = engine.action_to_string
    assert tab.locator("#legal li").all_text_contents() == [name(a) for a in legal]
    assert tab.locator("#legal li.taken").all_text_contents() == [name(action)]
    assert tab.locator("#legal-count").text_content() == f"({len(legal)})"
    who = f"player {decision.player} ({record_seats(record)[decision.player]})"
    assert tab.locator("#decision").text_content() == f"{decision.kind} for {who}"
    assert tab.locator("#taken").text_content() == f"{name(action)} by {who}"
    header = tab.locator("#board text.header").text_content()
    assert f"{spec.clock_word.capitalize()} {clock} " in header
    assert decision.kind.replace("_", " ") in header.replace("_", " ")
    shot = tab.screenshot(full_page=True)  # the README's pictures of the viewer come from here
    assert _non_blank(shot) > 20.0
    (artifacts / f"{game}_viewer_decision.png").write_bytes(shot)


def test_navigation_keys_buttons_slider_jumps_and_address(game, page, page_5p):
    tab, _ = page
    last = len(record_5p(game).actions)
    assert last >= MIN_STEPS
    _open(tab, page_5p, 120)
    assert _current(tab) == 120
    tab.keyboard.press("ArrowRight")
    assert _current(tab) == 121 and tab.url.endswith("#step=121")
    tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("ArrowLeft")
    assert _current(tab) == 119
    tab.click("#next")
    assert _current(tab) == 120
    tab.click("#prev")
    assert _current(tab) == 119
    tab.keyboard.press("Home")
    assert _current(tab) == 0 and tab.locator("#prev").is_disabled()
    tab.click("#last")
    assert _current(tab) == last and tab.locator("#next").is_disabled()
    tab.click("#first")
    assert _current(tab) == 0
    far = min(200, last - 2)
    tab.locator("#slider").fill(str(far))
    assert _current(tab) == far
    tab.keyboard.press("ArrowRight")  # the focused slider steps once, not twice
    assert _current(tab) == far + 1
    options = tab.locator("#jump option")
    labels = options.all_text_contents()
    clock = game_spec(game).clock_word
    target = next(i for i, label in enumerate(labels) if label.startswith(f"{clock} 5 "))
    tab.select_option("#jump", index=target)
    step = int(options.nth(target).get_attribute("value"))
    assert _current(tab) == step and step > 0
    tab.keyboard.press("PageDown")
    assert _current(tab) == int(options.nth(target + 1).get_attribute("value"))
    tab.evaluate("location.hash = '#step=42'")
    tab.wait_for_function("window.caylusViewer.current() === 42")
    assert tab.locator("#slider").input_value() == "42"


def test_chart_click_moves_to_that_step(game, page, page_5p):
    tab, _ = page
    _open(tab, page_5p)
    chart = tab.locator("#timeline")
    box = chart.bounding_box()
    x0 = int(chart.get_attribute("data-x0"))
    width = int(chart.get_attribute("data-width"))
    scale = box["width"] / 1200
    tab.mouse.click(box["x"] + (x0 + width / 2) * scale, box["y"] + box["height"] / 2)
    middle = len(record_5p(game).actions) / 2
    assert abs(_current(tab) - middle) <= 2
    cursor = tab.locator("#cursor")
    assert abs(int(cursor.get_attribute("x1")) - (x0 + width // 2)) <= 4


def test_every_step_renders_in_under_50_ms(game, page, page_5p, artifacts):
    """Each step is timed from the step before it (stepping forward) and from the far end of
    the game (a jump: most slots change), style and layout included; each time is the best of
    3 tries, and a step over the bound is timed again a little later (up to 5 times), so that
    another process taking the shared CPU for a moment is not counted."""
    tab, _ = page
    _open(tab, page_5p)
    timings = tab.evaluate(
        """async (bound) => {
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
          const pause = () => new Promise((done) => setTimeout(done, 50));
          const forward = [];
          const jumps = [];
          for (let k = 1; k <= last; k++) { forward.push([k - 1, k, time(k - 1, k)]); }
          for (let k = 0; k <= last; k += 25) { jumps.push([last - k, k, time(last - k, k)]); }
          let retimed = 0;
          for (let again = 0; again < 5; again++) {
            const slow = forward.concat(jumps).filter((t) => t[2] >= bound);
            for (const t of slow) { await pause(); t[2] = Math.min(t[2], time(t[0], t[1])); }
            retimed += slow.length;
          }
          return {forward: forward.map((t) => t[2]), jumps: jumps.map((t) => t[2]), retimed};
        }""",
        MAX_STEP_MS,
    )
    forward, jumps = timings["forward"], timings["jumps"]
    assert len(forward) == len(record_5p(game).actions)
    summary = {
        "steps": len(forward) + 1,
        "forward_median_ms": median(forward),
        "forward_max_ms": max(forward),
        "jump_median_ms": median(jumps),
        "jump_max_ms": max(jumps),
        "retimed": timings["retimed"],
    }
    (artifacts / f"{game}_render_timings.json").write_text(json.dumps(summary))
    print(f"{game} viewer render per step: {summary}")
    assert max(forward + jumps) < MAX_STEP_MS, summary


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
