"""Golden pictures: the SVG the viewer draws for stored positions, byte for byte.

An accidental change in the drawing (a colour, a size, a label, a slot that moved) fails here
and shows in review as a diff of ``tests/viewer/golden/*.svg``, one slot a line. After an
intended change: ``python tests/viewer/regenerate_golden.py``, then review and commit the diff.
"""

from __future__ import annotations

import json

import pytest

from caylus_env.caylus.engine.state_dict import dict_to_state, state_to_dict
from tests.viewer.regenerate_golden import draw, golden_cases

CASES = golden_cases()


def test_there_are_golden_positions():
    assert [p.name for p, _ in CASES] == ["position_4p.json"]
    for _, svg in CASES:
        assert svg.exists(), f"{svg} is missing: python tests/viewer/regenerate_golden.py"


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
            + ". If intended: python tests/viewer/regenerate_golden.py, review the diff."
        )


@pytest.mark.parametrize(("position", "svg"), CASES, ids=[p.stem for p, _ in CASES])
def test_the_golden_position_is_a_real_position(position, svg):
    """The stored position passes the engine's validation and round-trips exactly, so the
    picture is of a game state that can happen."""
    stored = json.loads(position.read_text(encoding="utf-8"))
    d = stored["position"]
    assert state_to_dict(dict_to_state(d)) == d
    text = svg.read_text(encoding="utf-8")
    # What the picture must show of this mid-game position.
    for slot in ("road:4", "castle:walls", "favors:deniers", "player:3:prestige", "provost"):
        assert f'data-slot="{slot}"' in text
    for seat, p in enumerate(d["players"]):
        assert f'data-seat="{seat}" data-field="prestige">{p["prestige"]}</text>' in text
    owned = [r for r in d["road"] if r["owner"] is not None]
    assert owned and all(
        f'data-space="{r["space"]}" data-building="{r["building"]}"' in text for r in owned
    )


def test_a_bad_position_is_refused_naming_the_field():
    from caylus_env.caylus.engine.validate import InvalidStateError
    from caylus_env.caylus.viewer import position_svg

    stored = json.loads(CASES[0][0].read_text(encoding="utf-8"))["position"]
    broken = {**stored, "provost": 40}
    with pytest.raises(InvalidStateError, match="provost"):
        position_svg(broken)
    with pytest.raises(ValueError, match="one name per seat, 4"):
        position_svg(stored, ("castle", "town"))
