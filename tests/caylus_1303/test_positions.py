"""The Caylus 1303 position builder (``caylus_env/caylus_1303/positions.py``): descriptions fill
the supplies, the Camp and the houses from the component totals, start each phase where a
scenario test needs it, and are refused with a ``PositionError`` naming the field."""

from __future__ import annotations

import re

import numpy as np
import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine import kernels
from caylus_env.caylus_1303.engine.state_dict import dict_to_state
from caylus_env.core.positions import PositionError, play_out


def _ok(g) -> None:
    assert int(kernels.check_invariants(g.state)) == 0
    assert np.array_equal(dict_to_state(g.state_dict()), g.state)


def test_public_api_matches_the_contract():
    import caylus_env.core.positions as core

    assert P.play is core.play and P.legal_names is core.legal_names
    assert P.build(3).state_dict() == P.start(P.position(3)).state_dict()


def test_players_buildings_residences_and_monuments_are_accounted():
    d = P.build_dict(
        3,
        players={
            0: {"buildings": ["wooden_farm", "gold_mine"], "residences": ["R2", "R5"],
                "monuments": ["statue"], "hand": 4, "pp": 17},
            2: {"resources": {"gold": 2}, "characters": ["thief"]},
        },
    )  # fmt: skip
    sp = d["spaces"]
    assert (sp["R10"]["tile"], sp["R10"]["owner"], sp["R10"]["side"]) == (
        "wooden_farm", 0, "construction",
    )  # fmt: skip
    assert sp["R11"]["tile"] == "gold_mine"
    assert sp["R2"]["tile"] == "statue" and sp["R2"]["owner"] == 0
    assert sp["R5"]["side"] == "residence"
    assert d["players"][0]["houses"] == 9 - 2 - 2
    assert d["players"][0]["camp"] == 15 - 4
    assert "wooden_farm" not in d["wood_supply"] and "statue" not in d["monument_supply"]
    assert d["players"][2]["resources"] == {
        "food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 2,
    }  # fmt: skip
    assert d["characters"]["thief"] == 2
    assert list(d["characters"].values()).count("out") == 12 - 3 - 3
    assert d["phase"] == "planning" and d["pending"] == []
    g = P.start(d)
    _ok(g)


def test_a_building_the_seed_pre_built_is_moved_aside():
    seeded = P.position(2)
    r9, s2 = seeded["spaces"]["R9"]["tile"], seeded["spaces"]["S2"]["tile"]
    d = P.build_dict(2, players=[{"buildings": [r9, s2]}])
    assert d["spaces"]["R9"]["tile"] not in (r9, s2, "stonemason")
    assert d["spaces"]["S2"]["tile"] not in (r9, s2)
    assert d["spaces"]["R10"]["tile"] == r9 and d["spaces"]["R11"]["tile"] == s2
    _ok(P.start(d))


def test_road_and_site_buildings_override_the_seed():
    d = P.build_dict(
        2,
        road={"R1": "guild_4", "R9": "tailor", "R14": "church", "R12": ["jeweler", 1]},
        site_buildings={"S1": "farm", "S3": "foundry"},
    )
    sp = d["spaces"]
    assert [sp[s]["tile"] for s in ("R1", "R9", "R14", "S1", "S3")] == [
        "guild_4", "tailor", "church", "farm", "foundry",
    ]  # fmt: skip
    assert sp["R12"]["owner"] == 1 and sp["R10"]["tile"] is None
    tiles = [sp[s]["tile"] for s in ("S1", *[f"R{k}" for k in range(1, 9)])]
    assert sorted(tiles) == sorted(
        ["farm", "farm", "market", "market", "quarry", "sawmill", "guild_3", "guild_4",
         "starting_carpenter"]
    )  # fmt: skip
    _ok(P.start(d))


def test_activation_at_a_building_checks_its_effect():
    g = P.build(
        3,
        phase="activation",
        at="R11",
        provost=12,
        players={0: {"buildings": ["wooden_farm", "stone_farm"]}, 1: {"hand": 5}},
        workers={"R11": 1},
    )
    assert g.decision().kind == "effect" and g.decision().player == 1
    assert g.decision().args == {"space": "R11"}
    before = g.state_dict()
    assert before["players"][0]["resources"]["food"] == 1 + 1  # the owner's bonus (D19)
    P.play(g, "option:1")
    after = g.state_dict()["players"][1]["resources"]
    assert (after["food"], after["cloth"]) == (1 + 2, 1)


def test_a_worker_past_the_provost_does_nothing():
    g = P.build(2, phase="activation", at="R10", provost=9,
                players=[{"buildings": ["wooden_farm"]}], workers={"R10": 0})  # fmt: skip
    assert g.state_dict()["phase"] != "activation" or g.decision().kind != "effect"
    assert g.state_dict()["players"][0]["resources"]["food"] == 1


def test_delivery_with_site_workers_asks_slots_in_order():
    g = P.build(
        3,
        phase="delivery",
        site=[2, 0],
        players={
            0: {"resources": {"food": 2, "wood": 2, "stone": 2}},
            2: {"resources": {"food": 1, "wood": 1, "cloth": 1}},
        },
    )
    assert g.decision().kind == "deliver" and g.decision().player == 2
    P.play(g, "bundle:food+wood+cloth")  # his only bundle: his next "deliver" is automatic
    assert g.state_dict()["players"][2]["pp"] == 5
    assert g.decision().kind == "deliver" and g.decision().player == 0


def test_stewardship_builds_a_monument_on_a_residence():
    g = P.build(
        2,
        phase="stewardship",
        round=4,
        players=[{"residences": ["R3"], "resources": {"gold": 1, "stone": 2}}],
    )
    assert g.decision().kind == "monument"
    assert "monument:statue" in P.legal_names(g)
    P.play(g, "monument:statue")
    d = g.state_dict()
    assert d["spaces"]["R3"]["tile"] == "statue" and d["players"][0]["pp"] == 7
    _ok(g)
    assert np.array_equal(dict_to_state(d), g.state)
    play_out(g, 1)
    assert g.is_over()


def test_planning_with_a_bridge_and_helpers():
    d = P.build_dict(3, bridge=[1], first_player=1, players={0: {"characters": ["journeyman"]}})
    P.worker(d, 2, "R1")
    P.worker(d, 0, "R1")
    P.give_character(d, 2, "early_riser")
    assert d["spaces"]["R1"]["workers"] == [2, 0] and d["characters"]["early_riser"] == 2
    d["characters_used"] = ["journeyman"]
    d["turn"] = 2
    g = P.start(d)
    assert g.decision().kind == "plan" and g.decision().player == 2
    _ok(g)
    e = P.position(3)
    P.construct(e, 1, "manor")
    P.road(e, "R12", "church", 2)
    P.start_delivery(e)
    g = P.start(e)
    assert g.state_dict()["spaces"]["R10"]["owner"] == 1
    assert g.phase in ("delivery", "stewardship", "planning")


BAD = [
    ({"gems": 1}, "description: unknown field 'gems'"),
    ({"players": [{"gold": 1}]}, "players[0]: unknown field 'gold'"),
    ({"players": [{"buildings": ["castle"]}]}, "players[0].buildings='castle'"),
    ({"players": [{"buildings": ["manor", "manor"]}]}, "a name is listed twice"),
    ({"players": [{"buildings": ["manor"]}, {"buildings": ["manor"]}]}, "manor tiles: 2 placed"),
    ({"players": [{"residences": ["R12"]}]}, "players[0].residences='R12'"),
    ({"players": [{"monuments": ["statue"]}]}, "need as many residences"),
    ({"players": [{"hand": 16}]}, "players[0].hand=16"),
    ({"players": [{"hand": 0}], "workers": {"R1": 0}}, "players[0].hand: no worker left"),
    ({"players": [{"resources": {"gems": 1}}]}, "players[0].resources key='gems'"),
    ({"players": [{"pp": True}]}, "players[0].pp must be a whole number"),
    ({"players": {5: {}}}, "players key=5"),
    ({"players": [{"characters": ["thief"]}, {"characters": ["thief"]}]}, "held by player 0"),
    ({"round": 10}, "round=10"),
    ({"phase": "lunch"}, "phase='lunch'"),
    ({"at": "R3"}, "at: only with phase='activation'"),
    ({"phase": "activation", "at": "S1"}, "at='S1'"),
    ({"road": {"R12": "manor"}}, "road.R12: a constructed building is [tile, seat]"),
    ({"road": {"R1": "farm", "R2": "farm", "R3": "farm"}}, "farm starting tiles: 3 placed"),
    ({"road": {"R9": "stonemason"}}, "road.R9='stonemason'"),
    ({"site_buildings": {"S2": "church"}}, "site_buildings.S2='church'"),
    ({"workers": {"S1": 0}}, "workers='S1'"),
    ({"workers": {"R1": [0, 0]}}, "room for one worker of each of two players"),
    ({"site": [0, 0]}, "site: player 0 has a worker there already"),
    ({"bridge": [0, 0]}, "bridge: a seat is listed twice"),
    ({"phase": "delivery", "bridge": [0]}, "bridge: every seat passed before delivery"),
    ({"board_characters": ["thief"]}, "board_characters: 1 available and 0 held"),
    ({"options": {"jewel": True}}, "options: unknown field 'jewel'"),
    ({"options": {"hide_opponent_pp": 1}}, "options:"),
]


@pytest.mark.parametrize(("description", "message"), BAD)
def test_bad_descriptions_are_refused_naming_the_field(description, message):
    with pytest.raises(PositionError, match=re.escape(message)):
        P.build(2, **description)


def test_positions_the_rules_forbid_are_refused_by_the_engine():
    from caylus_env.core.errors import InvalidStateError

    with pytest.raises(InvalidStateError, match=re.escape("spaces.fairground.workers")):
        P.build(2, phase="activation", at="R2", workers={"fairground": 0})
    with pytest.raises(InvalidStateError, match="site"):
        P.build(2, phase="stewardship", site=[0])


def test_a_planning_position_with_a_turn_asks_that_seat_next():
    """``turn`` is the seat asked next in Planning (rules 4.1), also before anybody passed:
    the position is then past the Early Riser's placement (D25)."""
    g = P.build(3, turn=2)
    assert g.decision().kind == "plan" and g.decision().player == 2
