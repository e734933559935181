"""Puerto Rico's drawing (caylus_env.puerto_rico.viewer): its golden picture and its hidden
information.

The golden position (drawn byte for byte in ``tests/viewer/test_golden.py``) is a real
one and its picture shows its numbers, buildings, ships and role takers; the face-down plantation order (hidden,
docs/rules/puerto_rico.md 6.8) changes nothing in the drawing and is nowhere in the replay page;
a picked role names its taker until the round ends; VP counted on paper show as such. What every
game's page must do (navigation, final scores, legal actions, render time, size, escaping,
forfeits, truncation, loaded positions) is tested once for all games in ``tests/viewer/``.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from caylus_env.core.viewer import page_data, replay_page_html
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.state_dict import InvalidStateError
from caylus_env.puerto_rico.viewer import position_svg
from tests.viewer.conftest import record_5p
from tests.viewer.regenerate_golden import golden_cases

GAME = "puerto_rico"
CASES = [(position, svg) for _, position, svg in golden_cases(GAME)]


# -- the drawing -------------------------------------------------------------------------------
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


def test_the_face_down_order_is_nowhere_in_the_page():
    record = record_5p(GAME)
    """No run of six face-down tiles (the stack at the start, and after every step) appears in
    the page, however it would be spelled; the page holds no state dict either."""
    html = replay_page_html(record)
    assert "plantation_stack" not in html and '"rng"' not in html
    assert record.options["expansion"]
    game = Game(GameConfig.from_dict(dict(record.options)), record.seed)
    stacks = {tuple(game.state_dict()["plantation_stack"])}
    for action in record.actions:
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


def test_a_picked_role_names_its_taker_until_the_round_ends():
    data = page_data(record_5p(GAME))
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


def test_a_bad_position_is_refused_naming_the_field():
    d = json.loads(CASES[0][0].read_text(encoding="utf-8"))["position"]
    with pytest.raises(InvalidStateError, match="governor"):
        position_svg({**d, "governor": 9})
    with pytest.raises(ValueError, match="one non-empty name per seat, 4"):
        position_svg(d, ("a", "b"))


def test_vp_counted_on_paper_after_the_last_chip_show_as_zero_chips_and_paper_vp():
    """Rules 6.7: the engine's chip supply goes below 0 by the VP counted on paper."""
    from caylus_env.puerto_rico.viewer.board import supplies

    d = Game(GameConfig(num_players=3), seed=1).state_dict()
    assert "VP chips left: 75" in supplies({**d, "vp_supply": 75})
    drawn = supplies({**d, "vp_supply": -6})
    assert ">VP chips left: 0<" in drawn and ">and 6 VP on paper<" in drawn and "-6" not in drawn
