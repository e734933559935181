"""Scenario tests of the expansion's timing rule: a building's effect is judged when it is
used, never when the role is picked (rules 7.2, 7.4 of ``docs/rules/puerto_rico.md``).

A guest colonist moved onto a building at the start of a phase, before a loading turn or
before storage works at once, so the library's doubling, the lighthouse's captain doubloon,
the storehouse's and the warehouses' keeping count it. Each test is named after the rule it
checks; positions are built with ``caylus_env.puerto_rico.positions``.
"""

from __future__ import annotations

from caylus_env.puerto_rico.engine.constants import GOOD_NAMES as GOODS
from caylus_env.puerto_rico.positions import (
    act,
    building,
    drafted,
    fresh,
    game,
    goods,
    money,
    start_role,
    tile,
)


def _guest_owner(n=3, guests=1, **buildings):
    """Seat 0 (the governor, first to pick) with ``guests`` colonists on his guest house and
    the given buildings, unoccupied unless a count is given."""
    d = fresh(n, expansion=True)
    building(d, 0, "guest_house", guests)
    for name, workers in buildings.items():
        building(d, 0, name, workers)
    return d


def test_guest_moved_onto_the_library_at_the_phase_start_doubles_the_traders_privilege():
    # The expansion's own example: he picks the trader, then moves his guest to the library.
    d = _guest_owner(library=0)
    goods(d, 0, "corn", 1)
    g = game(d)
    act(g, "role:trader")
    assert g.decision().kind == "guest_house" and g.current_player() == 0
    act(g, "place:library")
    act(g, "sell:corn")  # corn 0 + trader 1, doubled by the library: 2
    assert g.state_dict()["players"][0]["money"] == 2 + 2


def test_guest_moved_onto_the_library_doubles_the_builders_privilege():
    d = _guest_owner(library=0)
    money(d, 0, 2)
    drafted(d, "hospice")
    g = game(d)
    act(g, "role:builder", "place:library", "build:hospice")  # 4 - 2
    assert g.state_dict()["players"][0]["money"] == 2 + 2 - 2


def test_guest_moved_onto_the_library_gives_the_settler_a_second_tile():
    d = _guest_owner(library=0)
    g = game(d)
    act(g, "role:settler", "place:library", "settle:quarry", "decline", "decline")
    assert g.decision().kind == "settle" and g.decision().args == {"library_extra": 1}


def test_guest_moved_onto_the_library_gives_the_craftsman_a_second_barrel():
    d = _guest_owner(library=0)
    tile(d, 0, "corn", 1, worked=1)  # with the starting one: 1 corn
    g = game(d)
    act(g, "role:craftsman", "place:library", "craft:corn")
    assert g.decision().kind == "craft_privilege"  # the library's second barrel
    act(g, "craft:corn")
    assert g.state_dict()["players"][0]["goods"]["corn"] == 1 + 2


def test_guest_moved_onto_the_library_before_the_first_loading_doubles_the_captains_vp():
    d = _guest_owner(library=0)
    goods(d, 0, "corn", 2)
    g = game(d)
    act(g, "role:captain")
    act(g, "decline")  # the phase start's guest turn: not yet
    assert g.decision().kind == "guest_house"  # before his loading turn: now
    act(g, "place:library", "load:corn:ship1")
    assert g.state_dict()["players"][0]["vp"] == 2 + 2  # 2 barrels + privilege 1 doubled


def test_library_unoccupied_when_the_privilege_is_used_does_not_double_it():
    d = _guest_owner(library=0)
    goods(d, 0, "corn", 1)
    g = game(d)
    act(g, "role:trader", "decline", "sell:corn")
    assert g.state_dict()["players"][0]["money"] == 2 + 1


def test_guest_moved_onto_the_lighthouse_before_the_first_loading_pays_the_captains_doubloon():
    d = _guest_owner(lighthouse=0)
    goods(d, 0, "corn", 2)
    g = game(d)
    act(g, "role:captain", "decline", "place:lighthouse", "load:corn:ship1")
    assert g.phase == "role_selection"
    assert g.state_dict()["players"][0]["money"] == 2 + 1 + 1  # the shipment, the captain


def test_guest_moved_onto_the_storehouse_before_storage_keeps_three_more_barrels():
    # The expansion's own example: at the end of the captain phase he moves a guest to his
    # storehouse and keeps 3 more barrels at once.
    d = _guest_owner(storehouse=0)
    goods(d, 0, "corn", 2)
    goods(d, 0, "sugar", 2)
    d["ships"] = [
        {"capacity": c, "good": x, "load": c}
        for c, x in zip([4, 5, 6], ["indigo", "tobacco", "coffee"], strict=True)
    ]
    for x, c in zip(["indigo", "tobacco", "coffee"], [4, 5, 6], strict=True):
        d["goods_supply"][x] -= c
    start_role(d, "captain", 1)
    g = game(d)
    act(g, "decline")  # the captain phase's start; nobody can load
    assert g.phase == "captain_storage" and g.decision().kind == "guest_house"
    act(g, "decline")  # the storage's start
    assert g.decision().kind == "guest_house"  # right before his storage decisions
    act(g, "place:storehouse", "keep:corn", "keep:corn", "keep:sugar", "keep:sugar")
    assert g.state_dict()["players"][0]["goods"] == {**{k: 0 for k in GOODS}, "corn": 2, "sugar": 2}


def test_guest_moved_onto_a_warehouse_before_storage_keeps_a_whole_kind():
    d = _guest_owner(small_warehouse=0)
    goods(d, 0, "corn", 3)
    goods(d, 0, "sugar", 1)
    d["ships"] = [
        {"capacity": c, "good": x, "load": c}
        for c, x in zip([4, 5, 6], ["indigo", "tobacco", "coffee"], strict=True)
    ]
    for x, c in zip(["indigo", "tobacco", "coffee"], [4, 5, 6], strict=True):
        d["goods_supply"][x] -= c
    start_role(d, "captain", 1)
    g = game(d)
    act(g, "decline", "decline")  # the captain phase's start, the storage's start
    assert g.phase == "captain_storage" and g.decision().kind == "guest_house"
    act(g, "place:small_warehouse")  # right before his storage decisions
    assert g.decision().kind == "store_kind"
    act(g, "keep:corn", "keep:sugar")
    assert g.state_dict()["players"][0]["goods"] == {**{k: 0 for k in GOODS}, "corn": 3, "sugar": 1}
