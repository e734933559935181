"""Scenario tests of rules 4.4 b and D4: a monument replaces a residence of its builder's own,
**the one he chooses**. After ``monument:<name>`` (paid, out of the supply) a player holding
two or more residences is asked ``residence:R<k>`` (the MONUMENT decision's ``placing``
argument, ``decisions.SCHEMA``); with one, the monument goes there and nothing more is asked.
The engine used to take the lowest-numbered residence by itself (``ADDED_CHOICES`` replays the
records of that engine with it, tests/test_records.py)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine import (
    ADDED_CHOICES,
    BLOCKS,
    NUM_ACTIONS,
    RULES,
    Game,
    IllegalActionError,
    InvalidStateError,
    action_to_string,
    kernels,
)
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import ARCHITECT_BONUS, BASE_INCOME, RESIDENCE_INCOME
from caylus_env.caylus_1303.engine.headroom import STATE_MAX, room
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.engine.state_dict import dict_to_state
from caylus_env.caylus_1303.engine.tiles import KIND_OF, TILES

RICH = {"food": 5, "wood": 6, "stone": 6, "cloth": 5, "gold": 6}
GARDEN_WORKERS = TILES[KIND_OF["garden"]].income["workers"]


def _pp(name: str) -> int:
    return TILES[KIND_OF[name]].pp


def _stewardship(n: int = 2, **players: dict) -> Game:
    """Stewardship's monument step of seat 0 (the first player) with ``players``' entries."""
    return P.build(
        n, phase="stewardship", first_player=0, players={int(k[1:]): v for k, v in players.items()}
    )


def test_d4_the_residence_choice_is_the_players_in_the_rules_table():
    rule = RULES["monument_rules"].value
    assert rule["residence_choice"] == "player" and rule["per_residence"] == 1
    (choice,) = ADDED_CHOICES
    assert (choice.block, choice.since) == ("RESIDENCE", "0.3.0")
    start, size = BLOCKS["RESIDENCE"]  # appended last, in Road order: the old answer first
    assert start + size == NUM_ACTIONS
    assert [action_to_string(start + i) for i in range(size)] == [
        f"residence:R{k}" for k in range(1, 9)
    ]


def test_d4_the_player_with_residences_on_r3_and_r7_puts_the_garden_on_r7_his_choice():
    g = _stewardship(p0={"residences": ["R3", "R7"], "resources": RICH, "hand": 0})
    r3 = g.state_dict()["spaces"]["R3"]["tile"]
    P.play(g, "monument:garden")
    d = g.decision()
    assert (d.kind, d.player, d.args) == ("monument", 0, {"placing": "garden"})
    assert P.legal_names(g) == ["residence:R3", "residence:R7"]
    mid = g.state_dict()
    assert "garden" not in mid["monument_supply"]  # paid and taken, not yet on the Road
    assert mid["spaces"]["R7"]["side"] == "residence" and mid["players"][0]["pp"] == 0
    P.play(g, "residence:R7")
    s = g.state_dict()["spaces"]
    assert (s["R7"]["tile"], s["R7"]["side"], s["R7"]["owner"]) == ("garden", "construction", 0)
    assert (s["R3"]["tile"], s["R3"]["side"], s["R3"]["owner"]) == (r3, "residence", 0)
    assert g.state_dict()["players"][0]["pp"] == _pp("garden")
    P.play(g, "decline")  # his turn ends; seat 1 has no residence: income next (D5, D35)
    assert g.state_dict()["players"][0]["hand"] == (
        BASE_INCOME[2] + RESIDENCE_INCOME * 1 + GARDEN_WORKERS
    )


def test_d4_the_residences_offered_are_exactly_his_own():
    """Another player's residence, a starting building with no house and a monument of his
    own already built are not offered."""
    g = _stewardship(
        p0={"residences": ["R2", "R5", "R8"], "monuments": {"R5": "statue"}, "resources": RICH},
        p1={"residences": ["R4"]},
    )
    P.play(g, "monument:granary")
    assert P.legal_names(g) == ["residence:R2", "residence:R8"]
    assert P.legal_names(g) == [
        g.action_to_string(a) for a in Game.legal_actions_at(g.state_dict())
    ]


def test_d4_with_one_residence_nothing_more_is_asked():
    g = _stewardship(
        p0={"residences": ["R6"], "resources": RICH}, p1={"residences": ["R2"], "resources": RICH}
    )
    P.play(g, "monument:garden")
    d = g.state_dict()
    assert d["spaces"]["R6"]["tile"] == "garden" and d["decisions"] == 1
    # no residence left: his turn ends by itself, and seat 1 (one residence) is asked next
    assert (g.decision().kind, g.decision().player, g.decision().args) == ("monument", 1, {})
    P.play(g, "decline")
    assert g.state_dict()["round"] == 2 and g.history == [
        g.string_to_action("monument:garden"),
        g.string_to_action("decline"),
    ]


def test_d29_the_architect_bonus_and_the_theatres_favor_come_with_the_placement():
    """rules 4.4 b, D4, D29: the prestige (+1 with the Architect) and the Theatre's Favor,
    resolved at once, come when the monument takes its residence."""
    g = _stewardship(
        3,
        p0={"residences": ["R2", "R6"], "resources": RICH, "characters": ["architect"]},
        p1={"characters": ["thief"]},
    )
    P.play(g, "monument:theatre")
    assert g.state_dict()["players"][0]["pp"] == 0 and g.decision().args == {"placing": "theatre"}
    P.play(g, "residence:R6")
    assert g.state_dict()["players"][0]["pp"] == _pp("theatre") + ARCHITECT_BONUS
    assert (g.decision().kind, g.decision().player) == ("favor", 0)
    P.play(g, "steal:thief")
    assert g.state_dict()["characters"]["thief"] == 0
    assert g.decision().kind == "monument" and g.decision().player == 0
    P.play(g, "monument:statue")  # his last residence: no question
    assert g.state_dict()["spaces"]["R2"]["tile"] == "statue"


@pytest.mark.parametrize("name", ["residence:R5", "residence:R1", "monument:statue", "decline"])
def test_d4_an_illegal_residence_is_refused_and_changes_nothing(name):
    g = _stewardship(p0={"residences": ["R3", "R7"], "resources": RICH}, p1={"residences": ["R5"]})
    P.play(g, "monument:garden")
    before, history = g.state.copy(), list(g.history)
    with pytest.raises(IllegalActionError, match=re.escape(name)):
        P.play(g, name)
    assert np.array_equal(g.state, before) and g.history == history


def test_the_builder_puts_a_monument_on_the_residence_named():
    """``monuments`` as ``{space: monument}``: a residence on R3 and the Garden on R4 (the
    position the issue's scenario needed a state-dict swap for)."""
    d = P.build_dict(3, players={1: {"residences": ["R3", "R4"], "monuments": {"R4": "garden"}}})
    s = d["spaces"]
    assert (s["R4"]["tile"], s["R4"]["owner"], s["R4"]["side"]) == ("garden", 1, "construction")
    assert (s["R3"]["owner"], s["R3"]["side"]) == (1, "residence")
    assert "garden" not in d["monument_supply"] and d["players"][1]["houses"] == 9 - 2
    g = P.start(d)
    assert int(kernels.check_invariants(g.state)) == 0
    assert np.array_equal(dict_to_state(g.state_dict()), g.state)
    with pytest.raises(P.PositionError, match=re.escape("players[1].monuments.R5: not one of")):
        P.build_dict(3, players={1: {"residences": ["R3"], "monuments": {"R5": "garden"}}})


def test_the_builder_sets_up_the_residence_question_pending():
    """The seed-0 setup of 2 players has seat 1 first: his monument turn is the first (D4)."""
    g = P.build(
        2,
        phase="stewardship",
        players={1: {"residences": ["R1", "R8"]}},
        pending=[{"kind": "monument", "player": 1, "placing": "mansion"}],
    )
    d = g.state_dict()
    assert d["first_player"] == 1 and (d["stage"], d["cursor"]) == (1, 1)
    assert "mansion" not in d["monument_supply"]
    assert P.legal_names(g) == ["residence:R1", "residence:R8"]
    assert P.describe(g) == {
        "phase": "stewardship",
        "players": {1: {"residences": ["R1", "R8"]}},
        "pending": [{"kind": "monument", "player": 1, "placing": "mansion"}],
    }


def _placing(**changes) -> dict:
    d = P.build_dict(
        2,
        phase="stewardship",
        players={1: {"residences": ["R1", "R8"]}},
        pending=[{"kind": "monument", "player": 1, "placing": "mansion"}],
    )
    d.update(changes)
    return d


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"monument_supply": list(P.MONUMENT_NAMES)}, "a tile is missing, doubled"),
        (
            {"pending": [{"kind": "monument", "player": 1, "placing": "mansion"},
                         {"kind": "favor", "player": 1}]},
            "the residence a monument replaces is asked alone",
        ),
        ({"pending": [{"kind": "monument", "player": 1, "placing": "gem"}]}, "placing: 'gem'"),
    ],
)  # fmt: skip
def test_a_residence_question_the_engine_could_not_ask_is_refused(edit, message):
    with pytest.raises(InvalidStateError, match=re.escape(message)):
        dict_to_state(_placing(**edit))


def test_the_residence_question_of_a_player_with_one_residence_is_refused():
    d = _placing()
    d["spaces"]["R8"].update(side="setup", owner=None)
    d["players"][1]["houses"] += 1
    with pytest.raises(InvalidStateError, match=r"pending: .* two or more \(D4\); seat 1 has 1"):
        dict_to_state(d)


def test_the_room_left_counts_the_monument_whose_residence_is_asked():
    """The loader's headroom (``engine/headroom.py``): the monument paid for and not yet
    placed still gives its prestige and asks its questions, so the room a count has left
    never shrinks from its choice to its placement."""
    g = _stewardship(
        p0={"residences": ["R3", "R7"], "resources": RICH, "characters": ["architect"]}
    )

    def slack(s) -> tuple[int, int]:
        r = room(s)
        return (
            STATE_MAX - int(s[L.DECISIONS]) - r.decisions,
            STATE_MAX - int(s[pf(0, L.P_PP)]) - r.pp[0],
        )

    before = np.array(slack(g.state))
    P.play(g, "monument:cathedral")
    asked = np.array(slack(g.state))
    P.play(g, "residence:R3")
    after = np.array(slack(g.state))
    assert (before <= asked).all() and (asked <= after).all()
    assert after[1] == asked[1]  # the placement's prestige was counted while it was asked
