"""Scenario tests of the Puerto Rico rules, each named after the rule it checks.

Positions are built from state dicts (``caylus_env.puerto_rico.positions``); section numbers are those of
``docs/rules/puerto_rico.md``.
"""

from __future__ import annotations

import pytest

from caylus_env.puerto_rico.engine import Game, GameConfig, IllegalActionError
from caylus_env.puerto_rico.positions import (
    act,
    build,
    building,
    colonists,
    fresh,
    game,
    goods,
    legal_names,
    money,
    start_role,
    tile,
    vp,
)

# -- 1.2, 1.3 setup -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "doubloons", "ships", "supply", "ship", "chips", "quarries", "roles"),
    [
        (2, 3, [4, 6], 40, 2, 65, 5, 7),
        (3, 2, [4, 5, 6], 55, 3, 75, 8, 6),
        (4, 3, [5, 6, 7], 75, 4, 100, 8, 7),
        (5, 4, [6, 7, 8], 95, 5, 122, 8, 8),
    ],
)
def test_setup_by_player_count(n, doubloons, ships, supply, ship, chips, quarries, roles):
    d = fresh(n)
    assert [p["money"] for p in d["players"]] == [doubloons] * n
    assert [s["capacity"] for s in d["ships"]] == ships
    assert (d["colonist_supply"], d["colonist_ship"]) == (supply, ship)
    assert d["vp_supply"] == chips and d["quarry_supply"] == quarries
    assert sum(r["in_game"] for r in d["roles"].values()) == roles
    assert sum(d["face_up"].values()) == n + 1
    starting = {2: "IC", 3: "IIC", 4: "IICC", 5: "IIICC"}[n]
    for p, letter in enumerate(starting):
        kind = "indigo" if letter == "I" else "corn"
        assert d["players"][p]["island"][kind] == 1 and sum(d["players"][p]["island"].values()) == 1


def test_two_player_setup_removes_three_plantations_per_kind_after_the_starting_tiles():
    d = fresh(2)
    left = {k: d["face_up"][k] + d["plantation_stack"].count(k) for k in d["face_up"]}
    assert left == {"corn": 10 - 1 - 3, "indigo": 12 - 1 - 3, "sugar": 8, "tobacco": 6, "coffee": 5}
    assert d["goods_supply"] == {"corn": 8, "indigo": 9, "sugar": 9, "tobacco": 7, "coffee": 7}
    assert d["building_supply"]["small_indigo_plant"] == 2
    assert d["building_supply"]["wharf"] == 1 and d["building_supply"]["city_hall"] == 1


def test_two_player_rounds_alternate_three_picks_each_from_the_governor():
    g = Game(GameConfig(num_players=2), seed=3)
    pickers = []
    while g.round == 1:
        if g.decision().kind == "role":
            pickers.append(g.current_player())
        g.apply(g.legal_actions()[0])
    assert pickers == [0, 1, 0, 1, 0, 1]
    d = g.state_dict()
    assert d["governor"] == 1
    assert sum(r["doubloons"] for r in d["roles"].values()) == 1  # the one card left


# -- 3.1, 3.2, 4.8 roles and doubloons ------------------------------------------------------


def test_prospector_gives_one_doubloon_and_the_card_doubloons():
    g = build(4, role_doubloons={"prospector_1": 2})
    act(g, "role:prospector_1")
    assert g.state_dict()["players"][0]["money"] == 3 + 2 + 1


def test_end_of_round_puts_a_doubloon_on_each_unpicked_role_and_passes_the_governor():
    g = Game(GameConfig(num_players=3), seed=1)
    while g.round == 1:
        g.apply(g.legal_actions()[0])
    d = g.state_dict()
    assert d["governor"] == 1 and d["picks"] == 0
    left = [r for r, v in d["roles"].items() if v["in_game"] and v["doubloons"] == 1]
    assert len(left) == 6 - 3


# -- 4.1 settler ----------------------------------------------------------------------------


def test_settler_privilege_quarry_only_for_the_settler():
    d = fresh(3)
    start_role(d, "settler", 0)
    g = game(d)
    assert "settle:quarry" in legal_names(g)
    act(g, "settle:quarry")
    assert g.current_player() == 1 and "settle:quarry" not in legal_names(g)
    assert g.state_dict()["players"][0]["island"]["quarry"] == 1


def test_settler_construction_hut_gives_a_quarry_to_another_player():
    d = fresh(3)
    building(d, 1, "construction_hut")
    start_role(d, "settler", 0)
    g = game(d)
    act(g, "decline")
    assert "settle:quarry" in legal_names(g)


def test_settler_hacienda_draws_before_the_face_up_choice():
    d = fresh(3)
    building(d, 0, "hacienda")
    top = d["plantation_stack"][-1]
    start_role(d, "settler", 0)
    g = game(d)
    assert g.decision().kind == "hacienda"
    act(g, "accept")
    assert g.decision().kind == "settle" and g.current_player() == 0
    assert g.state_dict()["players"][0]["island"][top] >= 1


def test_settler_hospice_puts_a_colonist_on_the_new_tile():
    d = fresh(3)
    building(d, 0, "hospice")
    kind = next(k for k, v in d["face_up"].items() if v)
    start_role(d, "settler", 0)
    g = game(d)
    supply = d["colonist_supply"]
    act(g, f"settle:{kind}")
    assert g.decision().kind == "hospice"
    act(g, "accept")
    p0 = g.state_dict()["players"][0]
    assert p0["worked"][kind] == 1 and g.state_dict()["colonist_supply"] == supply - 1


def test_settler_face_up_tiles_are_discarded_and_renewed():
    d = fresh(3)
    start_role(d, "settler", 0)
    g = game(d)
    for _ in range(3):
        act(g, "decline")
    after = g.state_dict()
    assert sum(after["discards"].values()) == 4 and sum(after["face_up"].values()) == 4


def test_settler_full_island_takes_nothing():
    d = fresh(3)
    tile(d, 0, "quarry", 8)
    tile(d, 0, "coffee", 3)
    start_role(d, "settler", 0)
    g = game(d)
    assert g.current_player() == 1  # seat 0's 12-tile island was skipped


def test_plantation_stack_reshuffles_the_discards_when_it_runs_out():
    stack = fresh(3)["plantation_stack"]  # every face-down tile discarded
    g = build(3, role="settler", discards={k: stack.count(k) for k in set(stack)})
    for _ in range(3):
        act(g, "decline")
    after = g.state_dict()
    assert sum(after["face_up"].values()) == 4 and len(after["plantation_stack"]) > 0


# -- 4.2 mayor --------------------------------------------------------------------------------


def test_mayor_privilege_and_ship_colonists_are_handed_out_from_the_mayor():
    g = build(4, colonist_ship=6, role="mayor", picker=1)
    act(g, "accept")
    # colonists now: mayor 1 (privilege) + 2, then 2, 1, 1 (rules 4.2 example)
    placed = {}
    while g.decision() and g.decision().kind == "place_colonist":
        p = g.current_player()
        placed[p] = placed.get(p, 0) + 1
        g.apply(g.legal_actions()[0])
    d2 = g.state_dict()
    total = {p: sum(d2["players"][p]["worked"].values()) + sum(d2["players"][p]["buildings"].values())
             + d2["players"][p]["san_juan"] for p in range(4)}  # fmt: skip
    assert total == {1: 3, 2: 2, 3: 1, 0: 1}


def test_mayor_colonists_must_fill_every_empty_circle_surplus_to_san_juan():
    d = fresh(3)
    colonists(d, 0, 3)
    start_role(d, "mayor", 0)
    g = game(d)
    act(g, "decline")
    p0 = g.state_dict()["players"][0]
    # 3 + 1 from the ship: 1 indigo plantation filled, 3 wait in San Juan.
    assert p0["worked"]["indigo"] == 1 and p0["san_juan"] == 3


def test_mayor_placement_asks_only_when_colonists_are_short():
    d = fresh(3)
    building(d, 0, "indigo_plant", 0)
    building(d, 0, "small_market", 0)
    start_role(d, "mayor", 0)
    g = game(d)
    act(g, "decline")  # privilege declined: one ship colonist for 5 empty circles
    assert g.decision().kind == "place_colonist"
    assert legal_names(g) == ["place:indigo", "place:indigo_plant", "place:small_market"]
    act(g, "place:small_market")
    assert g.state_dict()["players"][0]["buildings"]["small_market"] == 1


def test_mayor_ship_refill_counts_empty_building_circles_at_least_players():
    d = fresh(3)
    building(d, 1, "coffee_roaster", 0)
    building(d, 2, "tobacco_storage", 0)
    start_role(d, "mayor", 0)
    g = game(d)
    act(g, "decline")
    while g.decision().kind != "role":
        g.apply(g.legal_actions()[0])
    # Seats 1 and 2 put their one colonist on a plantation first: 2 + 3 empty circles.
    assert g.state_dict()["colonist_ship"] == max(3, 5)


def test_mayor_refill_shortage_ends_the_game_at_the_end_of_the_round():
    g = build(3, players={2: {"san_juan": 55 - 1}}, role="mayor")  # 1 colonist left in supply
    act(g, "decline")
    d2 = g.state_dict()
    assert d2["end_triggered"] and d2["colonist_supply"] == 0 and d2["colonist_ship"] == 1


# -- 4.3 builder, 2.2 quarries ---------------------------------------------------------------


def test_builder_price_takes_the_privilege_and_quarries_capped_by_column():
    d = fresh(3)
    tile(d, 0, "quarry", 3, worked=3)
    money(d, 0, 10)
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:harbor")  # 8 - 3 quarries (column 3) - 1 privilege
    assert g.state_dict()["players"][0]["money"] == 2 + 10 - 4
    d = fresh(3)
    tile(d, 1, "quarry", 3, worked=3)
    money(d, 1, 10)
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "decline", "build:small_market")  # column 1: only 1 quarry counts
    assert g.state_dict()["players"][1]["money"] == 12 - 0


def test_builder_one_per_kind_and_city_space_limit():
    d = fresh(3)
    money(d, 0, 30)
    building(d, 0, "small_market", 0)
    for name in ["guild_hall", "residence", "fortress", "customs_house", "city_hall"]:
        building(d, 0, name, 0)
    start_role(d, "builder", 0)
    g = game(d)
    names = legal_names(g)
    assert "build:small_market" not in names and "build:wharf" in names
    assert not [a for a in names if a.startswith("build:guild")]


def test_builder_twelfth_city_space_ends_the_game_at_the_end_of_the_round():
    d = fresh(3)
    money(d, 0, 30)
    for name in ["guild_hall", "residence", "fortress", "customs_house", "city_hall"]:
        building(d, 0, name, 0)
    building(d, 0, "small_market", 0)  # 11 spaces taken
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:wharf")
    assert g.state_dict()["end_triggered"]
    while g.decision() is not None:
        g.apply(g.legal_actions()[0])
    assert g.is_terminal() and g.round == 1


def test_university_colonist_goes_on_a_large_building():
    d = fresh(3)
    money(d, 0, 20)
    building(d, 0, "university", 1)
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:fortress", "accept")
    assert g.state_dict()["players"][0]["buildings"]["fortress"] == 1


# -- 4.4 craftsman ----------------------------------------------------------------------------


def test_craftsman_production_is_min_of_plantations_and_circles_corn_needs_none():
    island = {"indigo": 3, "corn": 2}
    g = build(
        3,
        role="craftsman",
        players={0: {"plantations": island, "worked": island, "buildings": {"indigo_plant": 2}}},
    )
    assert g.state_dict()["players"][0]["goods"] == {
        "corn": 2, "indigo": 2, "sugar": 0, "tobacco": 0, "coffee": 0}  # fmt: skip
    assert legal_names(g) == ["decline", "craft:corn", "craft:indigo"]


def test_craftsman_shortage_goes_in_turn_order_and_hits_the_privilege_last():
    players = {
        0: {"plantations": {"indigo": 1, "corn": 1}, "worked": {"corn": 1}},
        1: {"goods": {"corn": 10 - 2}},  # 2 corn barrels left in supply
        2: {"plantations": {"corn": 2}, "worked": {"corn": 1}},
    }
    g = build(3, role="craftsman", players=players)
    after = g.state_dict()
    # Seat 0 takes 1, seat 2 takes 1: the supply is empty, so no privilege is asked.
    assert after["players"][0]["goods"]["corn"] == 1 and after["players"][2]["goods"]["corn"] == 1
    assert g.decision().kind == "role"


def test_factory_pays_by_kinds_produced():
    d = fresh(3)
    tile(d, 1, "corn", 1, worked=1)
    tile(d, 1, "sugar", 1, worked=1)
    building(d, 1, "small_sugar_mill", 1)
    building(d, 1, "factory", 1)
    start_role(d, "craftsman", 0)
    g = game(d)
    assert g.state_dict()["players"][1]["money"] == 2 + 1  # 2 kinds -> 1 doubloon


# -- 4.5 trader -------------------------------------------------------------------------------


def test_trader_price_privilege_and_markets():
    d = fresh(3)
    goods(d, 0, "coffee", 1)
    building(d, 0, "small_market", 1)
    building(d, 0, "large_market", 1)
    start_role(d, "trader", 0)
    g = game(d)
    act(g, "sell:coffee")
    assert g.state_dict()["players"][0]["money"] == 2 + 4 + 1 + 1 + 2


def test_trader_no_duplicate_kind_without_an_office():
    d = fresh(3)
    goods(d, 0, "sugar", 1)
    goods(d, 1, "sugar", 1)
    goods(d, 2, "sugar", 1)
    building(d, 2, "office", 1)
    start_role(d, "trader", 0)
    g = game(d)
    act(g, "sell:sugar")
    # Seat 1 may not sell a second sugar (the engine answers its one-choice turn).
    assert g.current_player() == 2 and "sell:sugar" in legal_names(g)
    assert g.state_dict()["players"][1]["goods"]["sugar"] == 1


def test_trading_house_is_emptied_only_when_full():
    d = fresh(3)
    for p, good in enumerate(["corn", "indigo", "sugar"]):
        goods(d, p, good, 1)
    start_role(d, "trader", 0)
    g = game(d)
    act(g, "sell:corn", "sell:indigo", "sell:sugar")
    assert sum(g.state_dict()["trading_house"].values()) == 3
    d = g.state_dict()
    goods(d, 0, "coffee", 1)
    start_role(d, "trader", 0)
    d["roles"]["trader"]["picked"] = True
    g = game(d)
    act(g, "sell:coffee")
    assert sum(g.state_dict()["trading_house"].values()) == 0  # full: emptied


def test_full_trading_house_blocks_all_sales():
    house = dict.fromkeys(["corn", "indigo", "sugar", "tobacco"], 1)
    g = build(3, role="trader", trading_house=house, players={0: {"goods": {"coffee": 1}}})
    assert g.decision().kind == "role"
    assert sum(g.state_dict()["trading_house"].values()) == 0


# -- 4.6 captain loading -----------------------------------------------------------------------


def test_captain_must_use_the_ship_that_takes_the_most():
    d = fresh(3)  # ships 4, 5, 6
    goods(d, 0, "sugar", 6)
    start_role(d, "captain", 1)
    g = game(d)
    # Seat 0's only legal load is the 6-ship (takes all 6): the engine plays it; the full
    # ship is then emptied (rules 4.7). A 5-ship load would have left a barrel and 5 VP.
    after = g.state_dict()
    assert after["players"][0]["vp"] == 6 and after["players"][0]["goods"]["sugar"] == 0
    d = fresh(3)
    goods(d, 0, "sugar", 6)
    goods(d, 0, "corn", 3)
    start_role(d, "captain", 0)
    g = game(d)
    assert legal_names(g) == [
        "load:corn:ship1", "load:corn:ship2", "load:corn:ship3", "load:sugar:ship3"]  # fmt: skip


def test_captain_good_already_on_a_ship_goes_only_there():
    g = build(3, role="captain", players={0: {"goods": {"corn": 2}}}, ships=[None, ("corn", 1)])
    # The one legal load, onto the corn ship, was played by the engine.
    assert g.state_dict()["ships"][1] == {"capacity": 5, "good": "corn", "load": 3}


def test_captain_privilege_and_harbor_score_on_loading():
    d = fresh(3)
    goods(d, 0, "corn", 2)
    goods(d, 0, "indigo", 3)
    building(d, 0, "harbor", 1)
    start_role(d, "captain", 0)
    g = game(d)
    act(g, "load:indigo:ship1")
    assert g.state_dict()["players"][0]["vp"] == 3 + 1 + 1
    while g.current_player() != 0:
        g.apply(g.legal_actions()[0])
    act(g, "load:corn:ship2")  # no second captain bonus, harbor again
    assert g.state_dict()["players"][0]["vp"] == 5 + 2 + 1


def test_wharf_ships_all_barrels_of_a_kind_once_per_phase():
    g = build(
        3,
        role="captain",
        players={0: {"goods": {"corn": 9}, "buildings": {"wharf": 1}}},
        ships=[("indigo", 4), ("sugar", 5), ("tobacco", 6)],  # all full
    )
    assert legal_names(g) == ["decline", "wharf:corn"]
    act(g, "wharf:corn")
    after = g.state_dict()
    assert after["players"][0]["vp"] == 9 + 1 and after["players"][0]["goods"]["corn"] == 0


def test_last_vp_chip_ends_the_game_and_vp_continue_on_paper():
    d = fresh(3)
    vp(d, 1, d["vp_supply"] - 2)
    goods(d, 0, "corn", 4)
    start_role(d, "captain", 0)
    g = game(d)
    act(g, "load:corn:ship1")
    after = g.state_dict()
    assert after["end_triggered"] and after["vp_supply"] == 2 - 5
    assert after["players"][0]["vp"] == 5


# -- 4.7 storage --------------------------------------------------------------------------------


def test_storage_keeps_one_windrose_barrel_and_warehouse_kinds():
    g = build(
        3,
        role="captain",
        players={1: {"goods": {"corn": 3, "sugar": 2, "coffee": 2},
                     "buildings": {"small_warehouse": 1}}},
        ships=[("indigo", 4), ("tobacco", 5), ("corn", 6)],  # all full
    )  # fmt: skip
    assert g.decision().kind == "store_kind" and g.current_player() == 1
    act(g, "keep:corn")
    assert g.decision().kind == "store_barrel"
    assert legal_names(g) == ["decline", "keep:sugar", "keep:coffee"]
    act(g, "keep:coffee")
    kept = g.state_dict()["players"][1]["goods"]
    assert kept == {"corn": 3, "indigo": 0, "sugar": 0, "tobacco": 0, "coffee": 1}


def test_large_and_small_warehouse_keep_three_whole_kinds():
    g = build(
        3,
        role="captain",
        players={1: {"goods": {"corn": 3, "indigo": 2, "sugar": 2, "coffee": 2},
                     "buildings": {"small_warehouse": 1, "large_warehouse": 1}}},
        ships=[("tobacco", 4), ("indigo", 5), ("corn", 6)],  # all full
    )  # fmt: skip
    assert g.decision().kind == "store_kind" and g.decision().args == {"warehouse_kinds": 3}
    act(g, "keep:corn", "keep:indigo", "keep:sugar")
    # Only coffee is left outside the kept kinds: one windrose barrel of it.
    act(g, "keep:coffee")
    kept = g.state_dict()["players"][1]["goods"]
    assert kept == {"corn": 3, "indigo": 2, "sugar": 2, "tobacco": 0, "coffee": 1}


def test_full_ships_are_unloaded_partial_ships_keep_their_cargo():
    d = fresh(3)
    goods(d, 0, "corn", 4)
    goods(d, 0, "indigo", 1)
    start_role(d, "captain", 0)
    g = game(d)
    act(g, "load:corn:ship1")
    while g.decision().kind != "role":
        g.apply(g.legal_actions()[-1])
    ships = g.state_dict()["ships"]
    assert ships[0] == {"capacity": 4, "good": None, "load": 0}
    assert any(s["good"] == "indigo" and s["load"] == 1 for s in ships)


# -- 5 scoring ------------------------------------------------------------------------------------


def test_large_building_bonuses_count_only_when_occupied():
    d = fresh(3)
    building(d, 0, "guild_hall", 1)
    building(d, 0, "small_indigo_plant", 0)
    building(d, 0, "coffee_roaster", 0)
    building(d, 0, "city_hall", 0)
    vp(d, 0, 9)
    g = game(d)
    # chips 9 + printed 4 + 1 + 3 + 4, guild hall bonus 1 + 2, city hall empty.
    assert g.scores()[0] == 9 + 12 + 3


def test_residence_fortress_customs_house_and_city_hall_bonuses():
    d = fresh(3)
    building(d, 0, "residence", 1)
    building(d, 0, "fortress", 1)
    building(d, 0, "customs_house", 1)
    building(d, 0, "city_hall", 1)
    building(d, 0, "harbor", 0)
    tile(d, 0, "quarry", 8)
    tile(d, 0, "corn", 1)
    vp(d, 0, 9)
    colonists(d, 0, 2)
    g = game(d)
    # island 10 tiles -> 5; colonists 4 + 2 = 6 -> 2; chips 9 -> 2; violet 5 -> 5.
    assert g.scores()[0] == 9 + 4 * 4 + 3 + 5 + 2 + 2 + 5


def test_ties_are_broken_by_doubloons_and_barrels():
    g = Game(GameConfig(num_players=3), seed=0)
    d = g.state_dict()
    goods(d, 2, "corn", 1)
    d["phase"] = "game_over"
    d["pending"] = []
    g = game(d)
    assert g.is_terminal() and g.ranks().tolist() == [2.5, 2.5, 1.0]


# -- the Game handle ----------------------------------------------------------------------------


def test_illegal_action_raises_and_leaves_the_game_unchanged():
    g = Game(GameConfig(num_players=4), seed=5)
    before = g.state.copy()
    with pytest.raises(IllegalActionError, match="illegal for decision 'role'"):
        g.apply(g.legal_actions()[-1] + 1)
    with pytest.raises(IllegalActionError, match="not allowed"):
        g.apply(True)
    assert (g.state == before).all() and g.history == []


def test_truncation_is_flagged_apart_from_termination():
    g = Game(GameConfig(num_players=3, max_decisions=5), seed=2)
    for _ in range(5):
        g.apply(g.legal_actions()[0])
    assert g.is_truncated() and not g.is_terminal() and g.legal_actions() == []
    assert g.record().final.end == "truncated"


def test_bad_config_and_state_dicts_are_refused_with_the_field_named():
    with pytest.raises(ValueError, match="num_players=6"):
        GameConfig(num_players=6)
    d = fresh(3)
    d["players"][0]["goods"]["corn"] = 1
    with pytest.raises(ValueError, match="barrels of a good"):
        game(d)
    d = fresh(3)
    d["phase"] = "dinner"
    with pytest.raises(ValueError, match="phase"):
        game(d)
