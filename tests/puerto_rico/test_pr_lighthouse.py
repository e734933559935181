"""Scenario tests of the lighthouse (rules 7.2 of ``docs/rules/puerto_rico.md``): +1 doubloon
on each of its owner's shipments, and +1 to an owner who is the captain, shipping or not,
paid on the captain's first loading turn of the phase, as the rulebook's example pays it.

Each test is named after the rule it checks; positions are built with
``caylus_env.puerto_rico.positions``. With 3 players every seat starts with 2 doubloons.
"""

from __future__ import annotations

from caylus_env.puerto_rico.positions import act, build

EXPANSION = {"expansion": True}
START_MONEY = 2  # 3 players (rules 1.2)


def _vp_money(g, seat=0):
    p = g.state_dict()["players"][seat]
    return p["vp"], p["money"]


def test_rulebook_example_captain_shipping_two_corn_on_his_first_turn_takes_3_vp_and_2_doubloons():
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        players={
            0: {"goods": {"corn": 2}, "buildings": {"lighthouse": 1}},
            1: {"goods": {"indigo": 1}},
        },
    )
    # His first loading turn: nothing paid yet.
    assert g.decision().kind == "load" and g.current_player() == 0
    assert _vp_money(g) == (0, START_MONEY)
    act(g, "load:corn:ship1")
    # 2 barrels + 1 for being the captain; 1 doubloon for the lighthouse, 1 for the captain.
    assert _vp_money(g) == (3, START_MONEY + 2)
    assert g.decision().kind == "load" and g.current_player() == 1
    act(g, "load:indigo:ship2")  # another player's shipment pays the captain nothing
    assert _vp_money(g) == (3, START_MONEY + 2)
    # He cannot load again; nobody can: the phase ends with nothing more for him.
    assert g.phase == "role_selection"
    assert _vp_money(g) == (3, START_MONEY + 2)
    assert _vp_money(g, 1) == (1, START_MONEY)


def test_captain_who_cannot_load_takes_the_lighthouse_doubloon_on_his_first_turn():
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        players={0: {"buildings": {"lighthouse": 1}}, 1: {"goods": {"corn": 1}}},
    )
    # His first turn passed over (no barrel): the doubloon is his before seat 1 loads.
    assert g.decision().kind == "load" and g.current_player() == 1
    assert _vp_money(g) == (0, START_MONEY + 1)
    act(g, "load:corn:ship1")
    assert g.phase == "role_selection"
    assert _vp_money(g) == (0, START_MONEY + 1)


def test_captain_who_passes_his_first_turn_takes_the_lighthouse_doubloon():
    # Every cargo ship is full of other goods: only his wharf could take his corn; he passes.
    full = [("indigo", 4), ("sugar", 5), ("tobacco", 6)]
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        ships=full,
        players={0: {"goods": {"corn": 1}, "buildings": {"lighthouse": 1, "wharf": 1}}},
    )
    assert g.decision().kind == "load" and g.current_player() == 0
    assert _vp_money(g) == (0, START_MONEY)
    act(g, "decline")
    assert _vp_money(g) == (0, START_MONEY + 1)


def test_lighthouse_manned_by_the_guest_house_at_the_start_of_the_phase_pays_the_captain():
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        players={
            0: {"goods": {"corn": 2}, "buildings": {"guest_house": 1, "lighthouse": 0}},
            1: {"goods": {"indigo": 1}},
        },
    )
    assert g.decision().kind == "guest_house" and g.current_player() == 0
    act(g, "place:lighthouse")  # the phase's start (rules 7.4)
    assert g.decision().kind == "load" and _vp_money(g) == (0, START_MONEY)
    act(g, "load:corn:ship1")
    assert _vp_money(g) == (3, START_MONEY + 2)
    assert g.current_player() == 1
    act(g, "load:indigo:ship2")
    assert g.phase == "role_selection"
    assert _vp_money(g) == (3, START_MONEY + 2)


def test_lighthouse_manned_after_the_captains_first_turn_pays_only_its_shipments():
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        players={
            0: {
                "goods": {"corn": 2, "indigo": 1},
                "buildings": {"guest_house": 1, "lighthouse": 0},
            }
        },
    )
    act(g, "decline")  # the phase's start: the guest stays
    assert g.decision().kind == "guest_house"  # right before his first loading turn
    act(g, "decline", "load:corn:ship1")  # an unmanned lighthouse: no doubloon at all
    assert _vp_money(g) == (3, START_MONEY)
    assert g.decision().kind == "guest_house" and g.current_player() == 0  # his next turn
    act(g, "place:lighthouse", "load:indigo:ship2")  # the shipment's doubloon only
    assert _vp_money(g) == (4, START_MONEY + 1)
    assert g.phase == "role_selection"
    assert _vp_money(g) == (4, START_MONEY + 1)


def test_lighthouse_owner_who_is_not_the_captain_takes_only_the_shipping_doubloon():
    g = build(
        3,
        options=EXPANSION,
        role="captain",
        players={
            0: {"goods": {"corn": 1}},
            1: {"goods": {"sugar": 2}, "buildings": {"lighthouse": 1}},
        },
    )
    act(g, "load:corn:ship1")
    assert g.current_player() == 1 and _vp_money(g, 1) == (0, START_MONEY)
    act(g, "load:sugar:ship2")
    assert _vp_money(g, 1) == (2, START_MONEY + 1)
    assert g.phase == "role_selection"
    assert _vp_money(g, 1) == (2, START_MONEY + 1)
    assert _vp_money(g, 0) == (2, START_MONEY)
