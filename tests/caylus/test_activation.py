"""Scenario tests for phase 5: activating road buildings (rules 4 phase 5, 3.2, 8.3, 8.6)."""

from __future__ import annotations

import pytest

from caylus_env.caylus import positions as B

SENTINEL = 28


def activation(n=3, provost=28):
    """Phase 5 about to start; a sentinel worker of the last player waits on space 28.

    The sentinel's production choice keeps the game inside phase 5 once the
    building under test is resolved, so assertions see no later phase (income!).
    """
    return B.build_dict(
        n,
        phase="activation",
        passed=list(range(n)),
        provost=provost,
        road={SENTINEL: "forest"},  # a second forest: never a stock tile
        workers={SENTINEL: n - 1},
    )


def at_sentinel(g):
    """True once everything before space 28 is resolved."""
    d = g.decision()
    return (
        d is not None
        and d.kind == "produce"
        and d.args["building"] == "forest"
        and (g.state_dict()["road"][SENTINEL - 1]["worker"] is not None)
        and g.state_dict()["cursor"] == SENTINEL + 1
    )


def test_workers_beyond_the_provost_go_home_without_effect_keeping_owner_prestige():
    d = activation(3, provost=8)
    B.build_on(d, 9, "sawmill", 1)
    B.put_worker(d, 0, 9)
    d["players"][1]["prestige"] = 1  # earned when the worker was placed
    g = B.start(d)
    assert B.cubes(g, 0)["wood"] == 1
    assert B.player(g, 0)["workers_out"] == 0 and B.player(g, 1)["prestige"] == 1


def test_buildings_are_activated_up_to_and_including_the_provost_space():
    d = activation(3, provost=3)
    B.put_worker(d, 0, 3)  # neutral sawmill
    B.put_worker(d, 1, 4)  # neutral quarry, beyond the provost
    g = B.start(d)
    assert B.cubes(g, 0)["wood"] == 2 and B.cubes(g, 1)["stone"] == 0


def test_gold_mine_produces_one_gold():
    d = activation()
    B.put_worker(d, 2, 16)
    g = B.start(d)
    assert B.cubes(g, 2)["gold"] == 1


@pytest.mark.parametrize(
    ("building", "choice", "gain"),
    [
        ("farm_neutral", "take:food", {"food": 1}),
        ("farm_neutral", "take:cloth", {"cloth": 1}),
        ("forest", "take:wood", {"wood": 1}),
        ("forest", "take:food", {"food": 1}),
        ("farm_food", "take:food", {"food": 2}),
        ("farm_food", "take:cloth", {"cloth": 1}),
        ("farm_cloth", "take:cloth", {"cloth": 2}),
        ("farm_cloth", "take:food", {"food": 1}),
    ],
)
def test_production_or_choice_is_asked_of_the_worker(building, choice, gain):
    """T5: e.g. the food farm gives 2 food or 1 cloth; the owner gets nothing extra."""
    d = activation()
    k = 1 if building == "farm_neutral" else 2 if building == "forest" else 9
    if k == 9:
        B.build_on(d, 9, building, 2)
    B.put_worker(d, 0, k)
    g = B.start(d)
    assert g.decision().kind == "produce"
    before = B.cubes(g, 0)
    owner_before = B.cubes(g, 2)
    B.play(g, choice)
    after = B.cubes(g, 0)
    assert {r: after[r] - before[r] for r in after if after[r] != before[r]} == gain
    assert B.cubes(g, 2) == owner_before


@pytest.mark.parametrize(
    ("building", "gain", "bonus"),
    [
        ("stone_farm", {"food": 2, "cloth": 1}, ["take:food", "take:cloth"]),
        ("park", {"wood": 2, "food": 1}, ["take:food", "take:wood"]),
        ("workshop", {"stone": 2, "cloth": 1}, ["take:stone", "take:cloth"]),
    ],
)
def test_stone_production_gives_the_owner_a_bonus_cube_of_his_choice(building, gain, bonus):
    """T5: Blue's stone farm used by Green: Green +2F +1C, Blue +1F or +1C."""
    blue, green = 1, 0
    d = activation()
    B.build_on(d, 9, building, blue)
    B.put_worker(d, green, 9)
    g = B.start(d)
    assert g.decision().kind == "owner_bonus" and g.current_player() == blue
    assert B.legal_names(g) == bonus
    B.play(g, bonus[1])
    got = B.cubes(g, green)
    start_cubes = {"food": 2, "wood": 1, "stone": 0, "cloth": 0, "gold": 0}
    assert {r: got[r] - start_cubes[r] for r in got if got[r] != start_cubes[r]} == gain
    assert B.cubes(g, blue)[bonus[1][5:]] == start_cubes[bonus[1][5:]] + 1


def test_stone_production_used_by_its_owner_gives_no_bonus():
    d = activation()
    B.build_on(d, 9, "stone_farm", 0)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    assert B.cubes(g, 0) == {"food": 4, "wood": 1, "stone": 0, "cloth": 1, "gold": 0}
    assert at_sentinel(g)


def test_carpenter_builds_on_the_lowest_empty_space_and_scores_at_once():
    """T6: Red on the neutral carpenter builds the food farm on space 9: +2 prestige."""
    d = activation()
    B.put_worker(d, 0, 5)  # neutral carpenter (table order)
    g = B.start(d)
    assert g.decision().kind == "build"
    assert "build:farm_food" in B.legal_names(g) and "build:church" not in B.legal_names(g)
    B.play(g, "build:farm_food")
    assert B.space(g.state_dict(), 9)["building"] == "farm_food"
    assert B.space(g.state_dict(), 9)["owner"] == 0
    assert (
        B.player(g, 0)["prestige"] == 2
        and B.cubes(g, 0)["food"] == 1
        and B.cubes(g, 0)["wood"] == 0
    )
    assert g.state_dict()["stock"]["farm_food"] == 0


def test_construction_skips_the_gold_mine_space():
    d = activation()
    for k in range(9, 16):
        B.build_on(d, k, "residence", 1)
    B.put_worker(d, 0, 8)  # fixed carpenter
    g = B.start(d)
    B.play(g, "build:sawmill")
    assert B.space(g.state_dict(), 17)["building"] == "sawmill"


def test_no_construction_without_an_empty_road_space():
    """8.3: with the road full, wood and stone buildings cannot be built."""
    d = activation()
    for k in (*range(9, 16), *range(17, 28)):
        B.build_on(d, k, "residence", 1)
    B.set_player(d, 0, wood=5, food=5, stone=5)
    B.put_worker(d, 0, 8)
    g = B.start(d)
    assert at_sentinel(g)  # the only choice, decline, was applied
    assert g.state_dict()["stock"]["sawmill"] == 1


def test_wood_marketplace_any_cube_payment_is_chosen_by_the_builder():
    d = activation()
    B.set_player(d, 0, wood=1, food=0, stone=1, gold=1)
    B.put_worker(d, 0, 8)
    g = B.start(d)
    B.play(g, "build:marketplace")
    assert g.decision().kind == "pay_any"
    assert B.legal_names(g) == ["pay:stone", "pay:gold"]
    B.play(g, "pay:stone")
    assert B.cubes(g, 0) == {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 1}
    assert B.player(g, 0)["prestige"] == 4


def test_mason_builds_a_stone_building():
    d = activation()
    B.build_on(d, 9, "mason", 1)
    B.set_player(d, 0, stone=1, cloth=1, wood=0)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    names = B.legal_names(g)
    assert "build:church" in names and "build:sawmill" not in names and "build:tailor" not in names
    B.play(g, "build:church")
    assert B.space(g.state_dict(), 10)["building"] == "church"
    # The church scores 3 prestige and 1 favor at once (phase 5).
    assert B.player(g, 0)["prestige"] == 3 and g.decision().kind == "favor_row"


def test_architect_replaces_an_own_residence_with_a_prestige_building():
    """T7: Green on Blue's architect (+1 Blue); Green pays 2 stone + 1 gold for the statue."""
    blue, green = 1, 2
    d = activation()
    B.build_on(d, 9, "architect", blue)
    B.build_on(d, 10, "residence", green)
    B.build_on(d, 11, "residence", green)
    B.set_player(d, green, stone=2, gold=1)
    B.put_worker(d, green, 9)
    g = B.start(d)
    B.play(g, "build:statue")
    assert g.decision().kind == "residence"
    assert B.legal_names(g) == ["space:10", "space:11"]
    B.play(g, "space:11")
    d2 = g.state_dict()
    assert B.space(d2, 11)["building"] == "statue" and B.space(d2, 11)["owner"] == green
    assert B.space(d2, 10)["building"] == "residence"
    assert B.player(g, green)["prestige"] == 7 and g.decision().kind == "favor_row"
    assert B.cubes(g, green)["stone"] == 0 and B.cubes(g, green)["gold"] == 0


def test_architect_needs_an_own_residence():
    d = activation()
    B.build_on(d, 9, "architect", 1)
    B.build_on(d, 10, "residence", 1)  # not the worker's
    B.set_player(d, 0, stone=5, gold=5)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    assert at_sentinel(g)


def test_lawyer_turns_a_neutral_building_into_a_residence():
    """T8: Blue on his own lawyer, 1 cloth + 1 denier, the neutral quarry: +2 prestige."""
    blue = 0
    d = activation()
    B.build_on(d, 9, "lawyer", blue)
    B.set_player(d, blue, cloth=1)
    B.put_worker(d, blue, 9)
    g = B.start(d)
    names = B.legal_names(g)
    assert "space:4" in names  # neutral quarry
    assert "space:7" not in names and "space:8" not in names and "space:16" not in names
    assert "space:9" not in names  # the lawyer itself
    B.play(g, "space:4")
    d2 = g.state_dict()
    assert B.space(d2, 4)["building"] == "residence" and B.space(d2, 4)["owner"] == blue
    assert B.player(g, blue)["prestige"] == 2 and B.player(g, blue)["money"] == 4
    assert B.cubes(g, blue)["cloth"] == 0


def test_lawyer_on_an_own_craft_building_returns_the_tile_to_the_stock():
    d = activation()
    B.build_on(d, 9, "lawyer", 1)
    B.build_on(d, 10, "sawmill", 0)
    B.build_on(d, 11, "quarry", 1)
    B.set_player(d, 0, cloth=1)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    names = B.legal_names(g)
    assert "space:10" in names and "space:11" not in names  # not another player's building
    B.play(g, "space:10")
    d2 = g.state_dict()
    assert B.space(d2, 10)["building"] == "residence" and d2["stock"]["sawmill"] == 1


def test_lawyer_target_with_a_worker_is_transformed_after_its_activation():
    """8.6: paid at once; the swap waits until the occupied building has been used."""
    d = activation()
    B.build_on(d, 9, "lawyer", 0)
    B.build_on(d, 10, "sawmill", 0)
    B.set_player(d, 0, cloth=1)
    B.put_worker(d, 0, 9)
    B.put_worker(d, 1, 10)
    g = B.start(d)
    B.play(g, "space:10")
    d2 = g.state_dict()
    assert B.player(g, 0)["prestige"] == 2 and B.cubes(g, 0)["cloth"] == 0
    # Space 10 was resolved right after (player 1 took 2 wood), then transformed.
    assert B.cubes(g, 1)["wood"] == 3
    assert B.space(d2, 10)["building"] == "residence" and B.space(d2, 10)["lawyer_pending"] is None


def test_lawyer_target_beyond_the_provost_is_transformed_when_its_worker_goes_home():
    d = activation(provost=9)
    B.build_on(d, 9, "lawyer", 0)
    B.build_on(d, 10, "sawmill", 0)
    B.set_player(d, 0, cloth=1)
    B.put_worker(d, 0, 9)
    B.put_worker(d, 1, 10)
    g = B.start(d)
    B.play(g, "space:10")
    d2 = g.state_dict()
    assert B.cubes(g, 1)["wood"] == 1  # beyond the provost: no effect
    assert B.space(d2, 10)["building"] == "residence"


@pytest.mark.parametrize(("space_k", "building", "price"), [(6, None, 4), (9, "marketplace", 6)])
def test_marketplaces_sell_exactly_one_cube_gold_included(space_k, building, price):
    d = activation()
    if building:
        B.build_on(d, space_k, building, 1)
    B.set_player(d, 0, gold=1)
    B.put_worker(d, 0, space_k)
    g = B.start(d)
    assert B.legal_names(g) == ["decline", "pay:food", "pay:wood", "pay:gold"]
    B.play(g, "pay:gold")
    assert B.player(g, 0)["money"] == 5 + price and B.cubes(g, 0)["gold"] == 0


def test_fixed_peddler_sells_one_non_gold_cube_for_two_deniers():
    d = activation()
    B.put_worker(d, 0, 7)
    g = B.start(d)
    assert B.legal_names(g) == ["decline", "take:food", "take:wood", "take:stone", "take:cloth"]
    B.play(g, "take:cloth")
    assert B.player(g, 0)["money"] == 3 and B.cubes(g, 0)["cloth"] == 1
    assert at_sentinel(g)


def test_wood_peddler_sells_up_to_two_cubes_at_one_denier_each():
    d = activation()
    B.build_on(d, 9, "peddler", 1)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    B.play(g, "take:stone", "take:cloth")
    assert B.player(g, 0)["money"] == 3
    assert B.cubes(g, 0)["stone"] == 1 and B.cubes(g, 0)["cloth"] == 1
    g = B.start(d)
    B.play(g, "take:wood", "decline")
    assert B.player(g, 0)["money"] == 4


@pytest.mark.parametrize(
    ("building", "setup", "option", "expect"),
    [
        ("church", {"money": 5}, "option:1", {"money": 3, "prestige": 3}),
        ("church", {"money": 5}, "option:2", {"money": 1, "prestige": 5}),
        ("tailor", {"cloth": 3}, "option:1", {"cloth": 1, "prestige": 4}),
        ("tailor", {"cloth": 3}, "option:2", {"cloth": 0, "prestige": 6}),
        ("bank", {"money": 5}, "option:1", {"money": 3, "gold": 1}),
        ("bank", {"money": 5}, "option:2", {"money": 0, "gold": 2}),
    ],
)
def test_church_tailor_and_bank_options(building, setup, option, expect):
    d = activation()
    B.build_on(d, 9, building, 1)
    B.set_player(d, 0, **setup)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    assert B.legal_names(g) == ["decline", "option:1", "option:2"]
    B.play(g, option)
    p = B.player(g, 0)
    for key, value in expect.items():
        assert (p[key] if key in p else p["cubes"][key]) == value


def test_alchemist_turns_non_gold_cubes_into_gold_and_the_player_picks_them():
    d = activation()
    B.build_on(d, 9, "alchemist", 1)
    B.set_player(d, 0, food=2, wood=1, stone=1, gold=1)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    assert B.legal_names(g) == ["decline", "option:1", "option:2"]
    B.play(g, "option:2")
    assert g.decision().kind == "alchemist_pay"
    assert "pay:gold" not in B.legal_names(g)  # 8.12: non-gold inputs only
    B.play(g, "pay:food", "pay:food", "pay:wood")  # the last cube (stone) is forced
    assert B.cubes(g, 0) == {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 3}


def test_options_the_player_cannot_afford_are_not_offered():
    d = activation()
    B.build_on(d, 9, "church", 1)
    B.set_player(d, 0, money=3)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    # option:2 costs 4: only decline and option:1 remain.
    assert B.legal_names(g) == ["decline", "option:1"]
