"""The Puerto Rico replay page (caylus_env.puerto_rico.viewer), in Python and in a real browser.

In headless Chromium (one browser for the module, found as the Caylus viewer's tests find it:
``tests/viewer/conftest.py``), the page opened from disk logs no error and loads nothing else,
the last step shows each seat's recorded final VP, a decision shows its legal actions and the
action taken by name, the navigation moves between steps, screenshots are not blank, and each
step renders in under 50 ms. In Python: a fixed position draws the golden SVG byte for byte
(``python tests/puerto_rico/golden/regenerate_pr_golden.py`` after an intended change), the
face-down plantation order (hidden, docs/rules/puerto_rico.md 6.8) is nowhere in the page and
changes nothing in the drawing, the page stays under 1 MB, and bad input is refused by name.
"""

from __future__ import annotations

import io
import json
import random
import re
from statistics import median

import numpy as np
import pytest
from PIL import Image

from agents.puerto_rico.registry import make_agent
from caylus_env.puerto_rico.engine import Game, GameConfig, GameRecord, action_to_string
from caylus_env.puerto_rico.engine.game import forfeit_ranks
from caylus_env.puerto_rico.engine.state_dict import InvalidStateError
from caylus_env.puerto_rico.viewer import (
    page_data,
    position_svg,
    replay_page_html,
    write_replay_page,
)
from tests.puerto_rico.golden.regenerate_pr_golden import draw, golden_cases
from tests.viewer import conftest as viewer_fixtures

# The Caylus viewer's browser fixtures (one headless Chromium for the module, a fresh tab that
# fails the test on any console error, the artifacts folder), shared rather than copied.
browser = viewer_fixtures.browser
page = viewer_fixtures.page
artifacts = viewer_fixtures.artifacts

MAX_STEP_MS = 50.0
"""The bound on rendering one step in the browser (the Caylus viewer's)."""
MAX_PAGE_BYTES = 1_000_000
"""The issue's bound on a 5-player expansion game's page."""
FIVE_SEATS = ("shipper", "builder", "random", "shipper", "builder")
CASES = golden_cases()


def play(players: int, expansion: bool, seed: int, max_decisions: int | None = None) -> GameRecord:
    """A whole game between the scripted bots and random (deterministic)."""
    options = {"num_players": players, "expansion": expansion}
    if max_decisions is not None:
        options["max_decisions"] = max_decisions
    game = Game(GameConfig(**options), seed)
    bots = [make_agent(spec) for spec in FIVE_SEATS[:players]]
    for i, bot in enumerate(bots):
        bot.reset(i)
    while not (game.is_terminal() or game.is_truncated()):
        game.apply(bots[game.current_player()].act(game))
    return game.record()


@pytest.fixture(scope="module")
def record_5p() -> GameRecord:
    return play(5, True, 5)


@pytest.fixture(scope="module")
def page_5p(record_5p, tmp_path_factory):
    path = tmp_path_factory.mktemp("pr-viewer") / "five.html"
    assert write_replay_page(record_5p, path, FIVE_SEATS) == path
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


# -- in the browser ----------------------------------------------------------------------------
def test_page_opens_from_disk_with_no_error_and_loads_nothing_else(page, page_5p):
    tab, console = page
    _open(tab, page_5p)
    assert _current(tab) == 0
    assert tab.locator("#title").text_content().startswith("Puerto Rico game: shipper vs ")
    assert tab.locator("#board [data-slot]").count() > 100
    assert console.errors == []
    assert console.requests == [page_5p.as_uri()]


def test_last_step_shows_each_seats_recorded_final_vp(page, page_5p, record_5p, artifacts):
    tab, _ = page
    _open(tab, page_5p)
    first = tab.screenshot(full_page=True)
    tab.keyboard.press("End")
    last_step = len(record_5p.actions)
    assert _current(tab) == last_step
    assert tab.url.endswith(f"#step={last_step}")
    for seat, vp in enumerate(record_5p.final["scores"]):
        shown = tab.locator(f'#board [data-slot="player:{seat}:score"] [data-field="score"]')
        assert shown.text_content() == str(vp), f"seat {seat}"
    assert tab.locator("#decision").text_content() == "Game over: final scoring done"
    assert tab.locator("#legal li").count() == 0
    last = tab.screenshot(full_page=True)
    for name, png in (("pr_viewer_first_step.png", first), ("pr_viewer_last_step.png", last)):
        assert _non_blank(png) > 20.0, name
        (artifacts / name).write_bytes(png)
    assert first != last


def test_a_decision_shows_its_legal_actions_and_the_action_taken(
    page, page_5p, record_5p, artifacts
):
    tab, _ = page
    game = Game(GameConfig.from_dict(dict(record_5p.options)), record_5p.seed)
    wanted = None  # a mid-game build or loading turn with a few named choices
    for step, action in enumerate(record_5p.actions):
        legal = game.legal_actions()
        if game.round >= 5 and game.decision().kind in ("build", "load") and len(legal) >= 3:
            wanted = step, game.decision(), legal, action
            break
        game.apply(action)
    assert wanted is not None
    step, decision, legal, action = wanted
    _open(tab, page_5p, step)
    assert _current(tab) == step
    assert tab.locator("#legal li").all_text_contents() == [action_to_string(a) for a in legal]
    assert tab.locator("#legal li.taken").all_text_contents() == [action_to_string(action)]
    assert tab.locator("#legal-count").text_content() == f"({len(legal)})"
    who = f"player {decision.player} ({FIVE_SEATS[decision.player]})"
    assert tab.locator("#decision").text_content() == f"{decision.kind} for {who}"
    assert tab.locator("#taken").text_content() == f"{action_to_string(action)} by {who}"
    header = tab.locator("#board text.header").text_content()
    assert f"Round {game.round} " in header and decision.kind in header
    frame = tab.locator(f'#board [data-slot="player:{decision.player}:status"] rect')
    assert frame.count() >= 1  # the seat asked is framed
    shot = tab.screenshot(full_page=True)
    assert _non_blank(shot) > 20.0
    (artifacts / "pr_viewer_decision.png").write_bytes(shot)


def test_navigation_keys_buttons_slider_jumps_and_address(page, page_5p, record_5p):
    tab, _ = page
    last = len(record_5p.actions)
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
    tab.locator("#slider").fill("200")
    assert _current(tab) == 200
    tab.keyboard.press("ArrowRight")  # the focused slider steps once, not twice
    assert _current(tab) == 201
    options = tab.locator("#jump option")
    labels = options.all_text_contents()
    target = next(i for i, label in enumerate(labels) if label.startswith("round 5 "))
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
    assert len(forward) == len(record_5p.actions)
    summary = {
        "steps": len(forward) + 1,
        "forward_median_ms": median(forward),
        "forward_max_ms": max(forward),
        "jump_median_ms": median(jumps),
        "jump_max_ms": max(jumps),
        "retimed": timings["retimed"],
    }
    (artifacts / "pr_render_timings.json").write_text(json.dumps(summary))
    print(f"Puerto Rico viewer render per step: {summary}")
    assert max(forward + jumps) < MAX_STEP_MS, summary


# -- the drawing -------------------------------------------------------------------------------
def test_there_are_golden_positions():
    assert [p.name for p, _ in CASES] == ["position_4p_expansion.json"]
    for _, svg in CASES:
        assert svg.exists(), f"{svg} is missing: python {svg.parent}/regenerate_pr_golden.py"


@pytest.mark.parametrize(("position", "svg"), CASES, ids=[p.stem for p, _ in CASES])
def test_the_drawing_matches_the_golden_file(position, svg):
    drawn = draw(position)
    stored = svg.read_text(encoding="utf-8")
    if drawn != stored:
        changed = [
            f"line {i + 1}: {a[:160]!r} -> {b[:160]!r}"
            for i, (a, b) in enumerate(zip(stored.splitlines(), drawn.splitlines(), strict=False))
            if a != b
        ]
        pytest.fail(
            f"the viewer draws {svg.name} differently ({len(changed)} slot lines differ, "
            f"{len(stored.splitlines())} -> {len(drawn.splitlines())} lines): "
            + "; ".join(changed[:3])
            + ". If intended: python tests/puerto_rico/golden/regenerate_pr_golden.py, "
            "review the diff."
        )


@pytest.mark.parametrize(("position", "svg"), CASES, ids=[p.stem for p, _ in CASES])
def test_the_golden_picture_shows_the_position(position, svg):
    """The stored position is a real one (it loads and round-trips) and the picture shows its
    numbers, buildings with their colonists, ships, role takers and governor."""
    stored = json.loads(position.read_text(encoding="utf-8"))
    d = stored["position"]
    assert Game.from_state_dict(d).state_dict() == d
    text = svg.read_text(encoding="utf-8")
    for seat, p in enumerate(d["players"]):
        for field in ("money", "vp", "san_juan"):
            assert f'data-field="{field}">{p[field]}</text>' in text, (seat, field)
        for name, colonists in p["buildings"].items():
            assert f'data-building="{name}" data-colonists="{colonists}"' in text
    for k, ship in enumerate(d["ships"]):
        assert f"{ship['capacity']} places" in text
        if ship["good"] is not None:
            assert f"{ship['load']} {ship['good']}" in text, k
    for role, seat in stored["takers"].items():
        assert f"taken by player {seat}" in text, role
    governor = d["governor"]
    status = re.search(rf'data-slot="player:{governor}:status"[^>]*>(.*)</g>', text).group(1)
    assert "governor" in status
    assert f"face down: {len(d['plantation_stack'])}" in text


def test_the_drawing_does_not_depend_on_the_face_down_order():
    """Hidden information (rules 6.8): shuffling the face-down plantations and moving the
    generator that reshuffles them changes nothing in the picture."""
    d = json.loads(CASES[0][0].read_text(encoding="utf-8"))["position"]
    other = json.loads(json.dumps(d))
    random.Random(1).shuffle(other["plantation_stack"])
    other["rng"] = [(d["rng"][0] + 7) % 32768, d["rng"][1]]
    assert other["plantation_stack"] != d["plantation_stack"]
    assert position_svg(other) == position_svg(d)


def test_the_face_down_order_is_nowhere_in_the_page(record_5p):
    """No run of six face-down tiles (the stack at the start, and after every step) appears in
    the page, however it would be spelled; the page holds no state dict either."""
    html = replay_page_html(record_5p)
    assert "plantation_stack" not in html and '"rng"' not in html
    game = Game(GameConfig.from_dict(dict(record_5p.options)), record_5p.seed)
    stacks = {tuple(game.state_dict()["plantation_stack"])}
    for action in record_5p.actions:
        game.apply(action)
        stacks.add(tuple(game.state_dict()["plantation_stack"]))
    run = 6  # five kinds: a run of six repeats one, so no list of distinct goods can match it
    checked = 0
    for stack in stacks:
        for order in (stack, stack[::-1]):
            for i in range(len(order) - run + 1):
                window = order[i : i + run]
                for sep in ('","', ",", ", ", " ", "</text>"):
                    assert sep.join(window) not in html, (window, sep)
                checked += 1
    assert checked > 50


def test_a_5_player_expansion_page_stays_under_1_mb(record_5p):
    size = len(replay_page_html(record_5p, FIVE_SEATS).encode("utf-8"))
    print(f"5-player expansion page: {size} bytes for {len(record_5p.actions) + 1} steps")
    assert size < MAX_PAGE_BYTES


def test_a_picked_role_names_its_taker_until_the_round_ends(record_5p):
    data = page_data(record_5p)
    slot = data["slots"].index("role:captain")
    piece = data["frames"][0][slot]
    shown = [data["pieces"][piece]]  # the captain card's drawing at every step
    for frame in data["frames"][1:]:
        piece = dict(zip(frame[::2], frame[1::2], strict=True)).get(slot, piece)
        shown.append(data["pieces"][piece])
    captain = data["names"].index("role:captain")
    step = data["action"].index(captain)
    assert "available" in shown[step]
    assert f"taken by player {data['actor'][step]}" in shown[step + 1]
    freed = next(s for s in range(step + 1, len(shown)) if "taken" not in shown[s])
    assert data["round"][freed] == data["round"][step] + 1  # freed as the round ends


def test_names_are_escaped_in_the_page():
    record = play(2, False, 1, max_decisions=30)
    html = replay_page_html(record, ("<b>bold</b>", "</script><script>alert(1)"))
    assert html.count("</script>") == 2  # the data and the script: nothing ends them early
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html


def test_a_truncated_game_says_so_at_its_last_step():
    record = play(3, False, 1, max_decisions=60)
    assert record.final["end"] == "truncated"
    data = page_data(record)
    assert data["texts"][data["decision"][-1]].startswith("Truncated")
    assert data["legal"][-1] == -1 and data["action"][-1] == -1


def test_bad_input_is_refused_by_name(record_5p, tmp_path):
    with pytest.raises(ValueError, match="one non-empty name per seat, 5"):
        replay_page_html(record_5p, ("shipper", "builder"))
    broken = GameRecord.from_dict({**record_5p.to_dict(), "actions": [*record_5p.actions[:-1], 0]})
    path = tmp_path / "broken.html"
    with pytest.raises(ValueError, match="record step"):
        write_replay_page(broken, path)
    assert not path.exists()
    with pytest.raises(ValueError, match="not 'puerto_rico'"):
        replay_page_html({**record_5p.to_dict(), "game": "caylus"})
    with pytest.raises(ValueError, match="Puerto Rico GameRecord or its dict"):
        replay_page_html([1, 2, 3])
    d = json.loads(CASES[0][0].read_text(encoding="utf-8"))["position"]
    with pytest.raises(InvalidStateError, match="governor"):
        position_svg({**d, "governor": 9})
    with pytest.raises(ValueError, match="one non-empty name per seat, 4"):
        position_svg(d, ("a", "b"))


def test_a_forfeit_names_the_seat_and_its_reason_at_the_last_step():
    game = Game(GameConfig(num_players=3), 2)
    for _ in range(40):
        game.apply(game.legal_actions()[0])
    partial = game.record().to_dict()
    ranks = forfeit_ranks(game.ranks().tolist(), 1)
    forfeited = {
        **partial,
        "final": {"end": "forfeit", "scores": game.scores().tolist(), "ranks": ranks},
        "match": {
            "game_id": 7,
            "block": 0,
            "agents": ["random", "crash", "shipper"],
            "agent_seeds": [1, 2, 3],
            "forfeits": [None, "timeout", None],
        },
    }
    data = page_data(forfeited)
    assert data["title"].startswith("game 7: random vs crash vs shipper (3 players")
    assert data["texts"][data["decision"][-1]] == "Forfeit: player 1 (crash) forfeited (timeout)"
    context = data["texts"][data["context"][-1]]
    assert context.startswith("player 0 (random): ") and " for player " in context


def test_a_record_from_a_loaded_position_replays_from_it():
    start = Game(GameConfig(num_players=2, expansion=True, draft="random"), 3)
    for _ in range(10):
        start.apply(start.legal_actions()[-1])
    game = Game.from_state_dict(start.state_dict())
    for _ in range(30):
        game.apply(game.legal_actions()[0])
    record = game.record()
    assert record.seed is None and record.start_state is not None
    data = page_data(record, ("a", "b"))
    assert data["title"] == "Puerto Rico game: a vs b (2 players, expansion, loaded position)"
    assert len(data["frames"]) == 31 and data["round"][0] == start.round


def test_vp_counted_on_paper_after_the_last_chip_show_as_zero_chips_and_paper_vp():
    """Rules 6.7: the engine's chip supply goes below 0 by the VP counted on paper."""
    from caylus_env.puerto_rico.viewer.board import supplies

    d = Game(GameConfig(num_players=3), seed=1).state_dict()
    assert "VP chips left: 75" in supplies({**d, "vp_supply": 75})
    drawn = supplies({**d, "vp_supply": -6})
    assert "VP chips left: 0 (6 on paper)" in drawn and "-6" not in drawn
