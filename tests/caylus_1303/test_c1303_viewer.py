"""Caylus 1303's drawing (``caylus_env.caylus_1303.viewer``): what its pictures show of a
position, what they never show (prestige while a hidden-prestige game runs, D37), its golden
positions, and the board targets a click on the board plays.

The shared tests of every game's drawing (the replay page, the golden bytes, the board
targets' contract) are in ``tests/viewer/`` and ``tests/conformance/``; these check the
Caylus 1303 picture itself against the engine's state dicts.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from caylus_env.caylus_1303.engine import Game, GameConfig, dict_to_state, state_to_dict
from caylus_env.caylus_1303.engine.constants import CHARACTER_NAMES, SPACE_NAMES
from caylus_env.caylus_1303.viewer import Drawing, board_targets, position_svg
from caylus_env.caylus_1303.viewer.players import HIDDEN
from caylus_env.caylus_1303.viewer.position import slot_names
from caylus_env.core.game import InvalidStateError
from caylus_env.core.viewer import page_data
from caylus_env.core.viewer.targets import target_problems
from caylus_env.core.viewer.theme import SEAT_COLOUR_NAMES

GOLDEN = Path(__file__).resolve().parents[1] / "viewer" / "golden" / "caylus_1303"
PRESTIGE = re.compile(r'data-field="prestige">([^<]*)</text>')


def random_positions(n: int, seed: int, **options):
    """Every position of a game of random legal moves (the game itself, at each decision and
    once at the end)."""
    g = Game(GameConfig(num_players=n, **options), seed)
    rng = random.Random(seed)
    while True:
        yield g
        if g.is_over():
            return
        g.apply(rng.choice(g.legal_actions()))


def slots_of(picture: str) -> dict[str, str]:
    """Each slot's drawing in a standalone picture (one slot a line)."""
    out = {}
    for line in picture.splitlines():
        found = re.match(r'<g data-slot="([^"]+)"[^>]*>(.*)</g>$', line)
        if found:
            out[found.group(1)] = found.group(2)
    return out


def test_a_fresh_game_shows_the_board_characters_and_players():
    g = Game(GameConfig(num_players=4), seed=7)
    d = g.state_dict()
    picture = position_svg(d, ("ann", "bob", "cy", "dee"))
    slots = slots_of(picture)
    assert list(slots) == list(slot_names(4))
    for name in SPACE_NAMES[:-3]:  # the printed buildings and R1..R23
        assert f'data-space="{name}"' in slots[f"space:{name}"]
    for name, space in d["spaces"].items():
        if space["tile"] is not None and not name.startswith("S"):
            assert f'data-tile="{space["tile"]}" data-side="{space["side"]}"' in picture
    for k in (1, 2, 3):
        assert f'data-tile="{d["spaces"][f"S{k}"]["tile"]}"' in slots[f"site:S{k}"]
    assert f'data-provost="{d["provost"]}"' in slots["provost"]
    assert f"Provost after R{d['provost']}" in slots["provost"]
    for seat, name in enumerate(("ann", "bob", "cy", "dee")):
        assert f"player {seat} ({SEAT_COLOUR_NAMES[seat]}) · {name}" in picture
    for name, where in d["characters"].items():
        if where == "out":  # out of play: never drawn (rules 3.3)
            assert slots[f"character:{name}"] == ""
        else:
            assert 'data-holder="board"' in slots[f"character:{name}"]
    for tile in d["wood_supply"]:
        assert f'data-tile="{tile}"' in slots[f"wood:{tile}"]
    assert "Round 1 of 9 · draft" in slots["header"]


def test_every_space_shows_its_owner_mark_and_workers_and_the_panels_their_counts():
    """Over a whole random game: each space's drawing names its tile, side, owner, the
    Lawyer's mark and its workers in placing order (two with the Journeyman, D26); the bridge
    its pass houses in order; the site its workers; each panel the seat's counts."""
    drawing = Drawing({"num_players": 3, "hide_opponent_pp": False}, ("a", "b", "c"))
    seen = {"two workers": 0, "mark": 0, "owner": 0}
    for step, g in enumerate(random_positions(3, 6)):
        if step % 3:
            continue
        d = g.state_dict()
        slots = dict(zip(drawing.slots, drawing.draw(d, g.scores().tolist()), strict=True))
        for name, space in d["spaces"].items():
            if name.startswith("S"):
                continue
            drawn = slots[f"space:{name}"]
            workers = [w for w in space["workers"] if w is not None]
            assert f'data-workers="{" ".join(map(str, workers))}"' in drawn, (step, name)
            owner, mark = space["owner"], space["mark"]
            assert f'data-owner="{"" if owner is None else owner}"' in drawn
            assert f'data-mark="{"" if mark is None else mark}"' in drawn
            seen["two workers"] += len(workers) == 2
            seen["mark"] += mark is not None
            seen["owner"] += owner is not None
        assert f'data-order="{" ".join(map(str, d["bridge"]))}"' in slots["bridge"]
        assert f'data-slots="{" ".join(map(str, d["site"]))}"' in slots["site"]
        for seat, p in enumerate(d["players"]):
            for field in ("hand", "camp", "houses"):
                assert f'data-field="{field}">{p[field]}</text>' in slots[f"player:{seat}:{field}"]
            for r, count in p["resources"].items():
                assert f'data-field="{r}">{count}</text>' in slots[f"player:{seat}:{r}"]
            held = [c for c in CHARACTER_NAMES if d["characters"][c] == seat]
            assert f'data-characters="{" ".join(held)}"' in slots[f"player:{seat}:characters"]
    assert seen["two workers"] and seen["mark"] and seen["owner"], seen


@pytest.mark.parametrize("n", [2, 5])
def test_hidden_prestige_is_never_drawn_before_the_end(n):
    """With ``hide_opponent_pp`` no panel shows a prestige total while the game runs (D37: a
    picture has no viewpoint); once it is over, the final scores."""
    drawing = Drawing({"num_players": n, "hide_opponent_pp": True}, [f"s{p}" for p in range(n)])
    for g in random_positions(n, 3, hide_opponent_pp=True):
        shown = PRESTIGE.findall("".join(drawing.draw(g.state_dict(), g.scores().tolist())))
        if g.is_over():
            assert shown == [str(s) for s in g.scores().tolist()]
        else:
            assert shown == [HIDDEN] * n, (g.round, g.phase)


def test_prestige_is_drawn_when_not_hidden_and_final_scores_at_the_end():
    drawing = Drawing({"num_players": 2, "hide_opponent_pp": False}, ("a", "b"))
    for g in random_positions(2, 4):
        d = g.state_dict()
        shown = PRESTIGE.findall("".join(drawing.draw(d, g.scores().tolist())))
        wanted = g.scores().tolist() if g.is_over() else [p["pp"] for p in d["players"]]
        assert shown == [str(v) for v in wanted]


def test_the_replay_page_drawings_of_a_hidden_prestige_game_show_no_prestige():
    """Every drawing the replay page stores for a hidden-prestige game: no prestige total but
    the final scores of its last step (D37)."""
    g = next(g for g in random_positions(3, 9, hide_opponent_pp=True) if len(g.history) == 120)
    data = page_data(g.record())
    shown = {v for piece in data["pieces"] for v in PRESTIGE.findall(piece)}
    assert shown == {HIDDEN}


def test_board_targets_map_placements_site_and_pass_in_planning():
    g = next(g for g in random_positions(4, 5) if g.phase == "planning")
    d, legal = g.state_dict(), g.legal_actions()
    targets = board_targets(d, legal)
    names = {g.action_to_string(a): targets.get(a) for a in legal}
    places = [n for n in names if n.startswith("place:")]
    assert places and all(names[n] == f"space:{n.split(':')[1]}" for n in places)
    if "site" in names:
        assert names["site"] == "site"
    assert names["pass"] == "bridge"
    drawing = Drawing(d["options"], ("a", "b", "c", "d"))
    assert target_problems(drawing, d, legal, targets) == []


def test_board_targets_map_the_draft_to_the_characters():
    g = Game(GameConfig(num_players=3), seed=7)
    targets = board_targets(g.state_dict(), g.legal_actions())
    assert {g.action_to_string(a): s for a, s in targets.items()} == {
        f"character:{c}": f"character:{c}"
        for c in (g.action_to_string(a).split(":")[1] for a in g.legal_actions())
    }


def test_board_targets_of_every_decision_kind_are_drawn_and_legal():
    """Over random games: every target is legal and drawn (``target_problems``), and the
    Lawyer's marks, constructions, Provost moves and Favors find their places."""
    heads: dict[str, int] = {}
    for n, seed in ((2, 1), (5, 2), (4, 58)):
        drawing = Drawing({"num_players": n, "hide_opponent_pp": False}, ["x"] * n)
        for g in random_positions(n, seed):
            if g.is_over():
                break
            d, legal = g.state_dict(), g.legal_actions()
            targets = board_targets(d, legal)
            assert target_problems(drawing, d, legal, targets) == []
            for a in targets:
                head = g.action_to_string(a).split(":")[0]
                heads[head] = heads.get(head, 0) + 1
    for head in ("place", "site", "pass", "character", "construct", "provost", "mark"):
        assert heads.get(head), (head, heads)


# -- the golden positions -------------------------------------------------------------------
CASES = sorted(GOLDEN.glob("*.json"))


@pytest.mark.parametrize("position", CASES, ids=[p.stem for p in CASES])
def test_the_golden_positions_are_real_positions_and_drawn(position):
    """The stored positions pass the engine's validation and round-trip exactly; their pictures
    show the Road, the Provost, the spaces' owners, and prestige only where allowed (D37)."""
    stored = json.loads(position.read_text(encoding="utf-8"))
    d = stored["position"]
    assert state_to_dict(dict_to_state(d)) == d
    text = position.with_suffix(".svg").read_text(encoding="utf-8")
    for slot in ("space:R4", "space:fairground", "provost", "bridge", "site", "player:1:prestige"):
        assert f'data-slot="{slot}"' in text
    owned = [(k, s) for k, s in d["spaces"].items() if s["owner"] is not None and k[0] == "R"]
    assert owned and all(f'data-space="{k}" data-tile="{s["tile"]}"' in text for k, s in owned)
    shown = PRESTIGE.findall(text)
    if d["options"]["hide_opponent_pp"]:
        assert shown == [HIDDEN] * len(d["players"])
    else:
        assert shown == [str(p["pp"]) for p in d["players"]]


def test_the_golden_positions_cover_hidden_prestige_and_residences():
    positions = [json.loads(p.read_text(encoding="utf-8"))["position"] for p in CASES]
    assert {d["options"]["hide_opponent_pp"] for d in positions} == {False, True}
    sides = {s["side"] for d in positions for s in d["spaces"].values()}
    assert "residence" in sides


def test_a_bad_position_is_refused_naming_the_field():
    d = Game(GameConfig(num_players=2), seed=1).state_dict()
    with pytest.raises(InvalidStateError, match="provost"):
        position_svg({**d, "provost": 99})
    with pytest.raises(ValueError, match="one non-empty name per seat, 2"):
        position_svg(d, ("only one",))


def test_the_replay_page_charts_no_prestige_before_the_end_of_a_hidden_prestige_game(monkeypatch):
    """The page's score chart (drawn from every step's scores) gets zeros at every step but the
    last, whose final scores are public (D37); without the option it gets the real scores."""
    from caylus_env.core.viewer import page as page_module

    charted = []
    real = page_module.score_chart
    monkeypatch.setattr(
        page_module,
        "score_chart",
        lambda rows, *a, **k: charted.append(rows) or real(rows, *a, **k),
    )
    for hide in (True, False):
        g = Game(GameConfig(num_players=3, hide_opponent_pp=hide), seed=4)
        rng = random.Random(4)
        while not g.is_over():
            g.apply(rng.choice(g.legal_actions()))
        html = page_module.replay_page_html(g.record())
        rows = charted.pop()
        assert rows[-1] == g.scores().tolist() and "<svg" in html
        if hide:
            assert all(row == [0, 0, 0] for row in rows[:-1])
        else:
            assert any(row != [0, 0, 0] for row in rows[:-1])


def test_caylus_serve_sends_no_score_of_a_hidden_prestige_game_before_its_end(tmp_path):
    """``caylus serve``'s view of a game with hidden prestige carries no scores until it is
    over (D37); the same game without the option shows them."""
    from tests.serve.conftest import Client, make_server

    server = make_server(tmp_path)
    try:
        client = Client(server)
        for hide in (True, False):
            view = client.new(
                "caylus_1303", ["constructor", "deliverer"], options={"hide_opponent_pp": hide}
            )
            assert (view["scores"] is None) == hide
            view = client.settled(view)
            assert view["over"] and view["scores"] is not None
    finally:
        server.close()
