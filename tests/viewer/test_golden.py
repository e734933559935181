"""Golden pictures: the SVG every game's drawing makes of its stored positions, byte for byte.

An accidental change in a drawing (a colour, a size, a label, a slot that moved) fails here and
shows in review as a diff of the golden ``*.svg`` files, one slot a line. After an intended
change: ``python tests/viewer/regenerate_golden.py``, then review and commit the diff. What
each game's picture must show of its position is checked in its own tests (Caylus's below,
Puerto Rico's in ``tests/puerto_rico/test_viewer.py``).
"""

from __future__ import annotations

import json

import pytest

from caylus_env.caylus.engine.state_dict import dict_to_state, state_to_dict
from caylus_env.core.registry import GAME_NAMES
from tests.viewer.regenerate_golden import draw, golden_cases

CASES = golden_cases()
IDS = [f"{game}-{p.stem}" for game, p, _ in CASES]


def test_every_game_has_golden_positions():
    assert {game for game, _, _ in CASES} == set(GAME_NAMES)
    for _, _, svg in CASES:
        assert svg.exists(), f"{svg} is missing: python tests/viewer/regenerate_golden.py"


@pytest.mark.parametrize(("game", "position", "svg"), CASES, ids=IDS)
def test_the_drawing_matches_the_golden_file(game, position, svg):
    drawn = draw(game, position)
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
            + ". If intended: python tests/viewer/regenerate_golden.py, review the diff."
        )


# -- Caylus's picture ----------------------------------------------------------------------------
CAYLUS = [(p, svg) for game, p, svg in CASES if game == "caylus"]


@pytest.mark.parametrize(("position", "svg"), CAYLUS, ids=[p.stem for p, _ in CAYLUS])
def test_the_caylus_golden_position_is_a_real_position_and_drawn(position, svg):
    """The stored position passes the engine's validation and round-trips exactly, so the
    picture is of a game state that can happen; the picture shows its road, castle, favors,
    provost and every seat's prestige."""
    stored = json.loads(position.read_text(encoding="utf-8"))
    d = stored["position"]
    assert state_to_dict(dict_to_state(d)) == d
    text = svg.read_text(encoding="utf-8")
    for slot in ("road:4", "castle:walls", "favors:deniers", "player:3:prestige", "provost"):
        assert f'data-slot="{slot}"' in text
    for seat, p in enumerate(d["players"]):
        assert f'data-seat="{seat}" data-field="prestige">{p["prestige"]}</text>' in text
    owned = [r for r in d["road"] if r["owner"] is not None]
    assert owned and all(
        f'data-space="{r["space"]}" data-building="{r["building"]}"' in text for r in owned
    )


def test_a_bad_caylus_position_is_refused_naming_the_field():
    from caylus_env.caylus.viewer import position_svg
    from caylus_env.core.game import InvalidStateError

    stored = json.loads(CAYLUS[0][0].read_text(encoding="utf-8"))["position"]
    broken = {**stored, "provost": 40}
    with pytest.raises(InvalidStateError, match="provost"):
        position_svg(broken)
    with pytest.raises(ValueError, match="one non-empty name per seat, 4"):
        position_svg(stored, ("castle", "town"))
