"""Scenario tests of the expansion (rules 7), each named after the rule it checks."""

from __future__ import annotations

from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.buildings import BUILDINGS
from caylus_env.puerto_rico.positions import (
    act,
    build,
    building,
    colonists,
    drafted,
    fresh,
    game,
    goods,
    legal_names,
    money,
    start_role,
    tile,
    vp,
)

# -- 7.1 the draft --------------------------------------------------------------------------


def test_draft_is_the_players_first_decisions_filling_slots_by_cost():
    g = Game(GameConfig(num_players=3, expansion=True), seed=1)
    assert g.phase == "draft" and g.decision().kind == "draft"
    seats = []
    act(g, "draft:small_market")  # the only cost-1 slot
    seats.append(0)
    assert "draft:aqueduct" not in legal_names(g) and g.current_player() == 1
    act(g, "draft:hacienda", "draft:black_market")  # both cost-2 slots
    assert not {"draft:forest_house", "draft:construction_hut"} & set(legal_names(g))
    while g.decision().kind == "draft":
        g.apply(g.legal_actions()[0])
    supply = g.state_dict()["building_supply"]
    violet = [b for b in BUILDINGS if b.kind != 0]
    on_board = [b for b in violet if supply[b.name] > 0]
    assert len(on_board) == 17 and sum(b.kind == 2 for b in on_board) == 5
    assert all(supply[b.name] == b.copies for b in on_board)
    assert g.decision().kind == "role" and g.current_player() == 0


def test_random_draft_is_seeded():
    def board(seed):
        d = Game(GameConfig(num_players=2, expansion=True, draft="random"), seed).state_dict()
        return sorted(k for k, v in d["building_supply"].items() if v)

    assert board(4) == board(4) and board(4) != board(5)
    d = Game(GameConfig(num_players=2, expansion=True, draft="random"), 4).state_dict()
    assert all(d["building_supply"][b.name] in (0, 1) for b in BUILDINGS if b.kind == 1)


# -- 7.2 the buildings ------------------------------------------------------------------------


def test_aqueduct_adds_a_barrel_made_with_the_large_production_building():
    g = build(
        3,
        options={"expansion": True},
        role="craftsman",
        picker=1,
        players={0: {"worked": {"indigo": 1}, "buildings": {"indigo_plant": 1, "aqueduct": 1}}},
    )
    assert g.state_dict()["players"][0]["goods"]["indigo"] == 2


def test_black_market_covers_the_shortfall_and_takes_all_doubloons():
    d = fresh(3, expansion=True)
    building(d, 1, "black_market", 1)
    goods(d, 1, "corn", 1)
    vp(d, 1, 2)
    colonists(d, 1, 1)
    drafted(d, "hospice")
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "decline")  # seat 0 builds nothing
    assert "build:hospice" in legal_names(g)  # cost 4, 2 doubloons + 3 returns
    act(g, "build:hospice")
    assert g.decision().kind == "black_market"
    act(g, "return:vp")
    names = legal_names(g)
    assert "return:vp" not in names and "return:colonist:black_market" not in names
    assert "return:colonist:san_juan" in names
    act(g, "return:corn")
    p1 = g.state_dict()["players"][1]
    assert p1["money"] == 0 and p1["vp"] == 1 and p1["goods"]["corn"] == 0
    assert p1["buildings"]["hospice"] == 0


def test_forest_house_settles_a_forest_and_discounts_per_two_forests():
    d = fresh(3, expansion=True)
    building(d, 0, "forest_house", 1)
    drafted(d, "small_market", "factory")
    start_role(d, "settler", 1)
    g = game(d)
    act(g, "decline")  # seat 1
    act(g, "decline")  # seat 2
    assert "settle:forest" in legal_names(g)
    act(g, "settle:forest")
    after = g.state_dict()
    assert after["players"][0]["island"]["forest"] == 1 and sum(after["forested"].values()) == 1
    g = build(
        3,
        options={"expansion": True},
        role="builder",
        picker=1,
        drafted=["factory"],
        players={
            0: {
                "buildings": ["forest_house"],  # the discount needs no colonist
                "plantations": {"indigo": 1, "forest": 4},
                "money": 2 + 3,
            }
        },
        forested={"corn": 4},
    )
    act(g, "decline")  # seat 1
    act(g, "decline")  # seat 2
    act(g, "build:factory")  # 7 - 2 (four forests)
    assert g.state_dict()["players"][0]["money"] == 2 + 3 - 5


def test_hacienda_tile_may_become_a_forest_and_hospice_colonist_waits_in_san_juan():
    d = fresh(3, expansion=True)
    building(d, 0, "hacienda", 1)
    building(d, 0, "forest_house", 1)
    building(d, 0, "hospice", 1)
    start_role(d, "settler", 0)
    g = game(d)
    act(g, "accept")
    assert g.decision().kind == "forest"
    act(g, "accept", "settle:forest", "accept")
    p0 = g.state_dict()["players"][0]
    assert p0["island"]["forest"] == 2 and p0["san_juan"] == 1


def test_storehouse_keeps_three_more_single_barrels():
    g = build(
        3,
        options={"expansion": True},
        role="captain",
        players={1: {"goods": {"corn": 3, "sugar": 3}, "buildings": {"storehouse": 1}}},
        ships=[("indigo", 4), ("tobacco", 5), ("coffee", 6)],  # all full
    )
    act(g, "keep:corn", "keep:corn", "keep:sugar", "keep:corn")
    assert g.state_dict()["players"][1]["goods"]["corn"] == 3
    assert g.state_dict()["players"][1]["goods"]["sugar"] == 1


def test_guest_house_colonist_moves_to_work_at_the_start_of_a_phase():
    d = fresh(3, expansion=True)
    building(d, 0, "guest_house", 2)
    building(d, 0, "small_market", 0)
    goods(d, 0, "corn", 1)
    start_role(d, "trader", 0)
    g = game(d)
    assert g.decision().kind == "guest_house"
    act(g, "place:small_market", "decline")
    act(g, "sell:corn")  # 0 + 1 trader + 1 small market, now occupied
    p0 = g.state_dict()["players"][0]
    assert p0["money"] == 2 + 2 and p0["buildings"]["guest_house"] == 1


def test_trading_post_sells_any_good_even_when_the_house_is_full():
    g = build(
        3,
        options={"expansion": True},
        role="trader",
        picker=1,
        trading_house=dict.fromkeys(["corn", "indigo", "sugar", "tobacco"], 1),  # full
        players={1: {"goods": {"corn": 1}, "buildings": {"trading_post": 1, "large_market": 1}}},
    )
    assert legal_names(g) == ["decline", "post:corn"]
    act(g, "post:corn")  # price 0 + trader 1, no market bonus
    after = g.state_dict()
    assert after["players"][1]["money"] == 2 + 1 and after["goods_supply"]["corn"] >= 1


def test_church_pays_vp_by_the_column_built():
    d = fresh(3, expansion=True)
    building(d, 0, "church", 1)
    money(d, 0, 20)
    drafted(d, "statue")
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:statue")
    assert g.state_dict()["players"][0]["vp"] == 2
    d = fresh(3, expansion=True)
    building(d, 0, "church", 1)
    money(d, 0, 20)
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:indigo_plant")  # column 2
    assert g.state_dict()["players"][0]["vp"] == 1


def test_small_wharf_ships_any_mix_for_one_vp_per_two_barrels():
    d = fresh(3, expansion=True)
    goods(d, 1, "corn", 2)
    goods(d, 1, "coffee", 1)
    building(d, 1, "small_wharf", 1)
    start_role(d, "captain", 0)
    g = game(d)
    assert "small_wharf:coffee" in legal_names(g)
    act(g, "small_wharf:coffee", "small_wharf:corn", "small_wharf:corn")
    # No barrel left: the engine ends the shipment, 3 barrels -> 1 VP.
    p1 = g.state_dict()["players"][1]
    assert p1["vp"] == 1 and sum(p1["goods"].values()) == 0


def test_lighthouse_pays_the_captain_and_each_shipment():
    d = fresh(3, expansion=True)
    goods(d, 0, "corn", 2)
    goods(d, 0, "sugar", 1)
    building(d, 0, "lighthouse", 1)
    g = game(d)
    # +1 for the loading and +1 for being the captain, both on his first loading turn
    # (rules 7.2: the rulebook's example pays the two doubloons together).
    act(g, "role:captain", "load:corn:ship1")
    assert g.state_dict()["players"][0]["money"] == 2 + 1 + 1
    assert g.phase == "captain"
    act(g, "load:sugar:ship2")  # +1 for this shipment; nobody loads more: the phase ends
    assert g.phase == "role_selection"
    assert g.state_dict()["players"][0]["money"] == 2 + 1 + 1 + 1


def test_library_doubles_the_builders_and_prospectors_privilege():
    d = fresh(4, expansion=True)
    building(d, 0, "library", 1)
    drafted(d, "factory")
    money(d, 0, 10)
    d["players"][0]["buildings"]["library"] = 1
    g = game(d)
    act(g, "role:builder")
    act(g, "build:factory")  # 7 - 2
    assert g.state_dict()["players"][0]["money"] == 3 + 10 - 5
    d = fresh(4, expansion=True)
    building(d, 0, "library", 1)
    g = game(d)
    act(g, "role:prospector_1")
    assert g.state_dict()["players"][0]["money"] == 3 + 2


def test_library_gives_the_settler_a_second_tile_after_everyone():
    d = fresh(3, expansion=True)
    building(d, 0, "library", 1)
    g = game(d)
    act(g, "role:settler", "settle:quarry", "decline", "decline")
    assert g.decision().kind == "settle" and g.current_player() == 0
    assert g.decision().args == {"library_extra": 1}
    assert "settle:quarry" not in legal_names(g)


def test_library_limit_doubles_once_per_round_with_two_players():
    d = fresh(2, expansion=True)
    d["options"]["library_limit"] = True
    building(d, 0, "library", 1)
    goods(d, 0, "corn", 1)
    g = game(d)
    act(g, "role:prospector_1")
    assert g.state_dict()["players"][0]["money"] == 3 + 2
    act(g, "role:builder")
    while g.decision().kind != "role":
        act(g, "decline")
    act(g, "role:trader", "sell:corn")  # price 0 + privilege 1: not doubled again
    assert g.state_dict()["players"][0]["money"] == 3 + 2 + 1


def test_specialty_factory_pays_largest_output_minus_one():
    d = fresh(3, expansion=True)
    tile(d, 1, "sugar", 3, worked=3)
    building(d, 1, "sugar_mill", 3)
    building(d, 1, "specialty_factory", 1)
    start_role(d, "craftsman", 0)
    g = game(d)
    assert g.state_dict()["players"][1]["money"] == 2 + 2


def test_union_hall_scores_pairs_before_the_first_shipment():
    d = fresh(3, expansion=True)
    goods(d, 1, "corn", 3)
    goods(d, 1, "sugar", 2)
    building(d, 1, "union_hall", 1)
    start_role(d, "captain", 0)
    g = game(d)
    act(g, "load:corn:ship1")
    # 1 (corn pair) + 1 (sugar pair) before the shipment, then the 3 barrels.
    assert g.state_dict()["players"][1]["vp"] == 2 + 3


def test_cloister_scores_groups_of_three_identical_tiles():
    d = fresh(3, expansion=True)
    building(d, 0, "cloister", 1)
    tile(d, 0, "quarry", 6)
    tile(d, 0, "indigo", 2)  # 3 indigo with the starting one
    g = game(d)
    assert g.scores()[0] == 4 + 6  # 3 groups


def test_statue_is_worth_eight_and_its_university_colonist_waits_in_san_juan():
    d = fresh(3, expansion=True)
    building(d, 0, "university", 1)
    money(d, 0, 20)
    drafted(d, "statue")
    start_role(d, "builder", 0)
    g = game(d)
    act(g, "build:statue", "accept")
    p0 = g.state_dict()["players"][0]
    assert p0["buildings"]["statue"] == 0 and p0["san_juan"] == 1
    assert g.scores()[0] == 3 + 8
