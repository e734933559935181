"""Scenario tests for setup (rules 1.2-1.4), income (phase 1) and placement (phase 2)."""

from __future__ import annotations

import pytest

from caylus_env.caylus import positions as B
from caylus_env.caylus.engine import Game, GameConfig


# -- setup ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5])
def test_starting_deniers_by_turn_order_and_first_income(n):
    """T21: 5/6/6/7/7 by turn-order position, plus 2 from phase 1 of turn 1."""
    g = Game(GameConfig(num_players=n), seed=11)
    d = g.state_dict()
    money = [d["players"][p]["money"] for p in d["turn_order"]]
    assert money == [7, 8, 8, 9, 9][:n]
    for p in d["players"]:
        assert p["cubes"] == {"food": 2, "wood": 1, "stone": 0, "cloth": 0, "gold": 0}
        assert p["workers_out"] == 0 and p["prestige"] == 0


def test_two_players_both_start_with_five_deniers():
    d = Game(GameConfig(num_players=2), seed=3).state_dict()
    assert [p["money"] for p in d["players"]] == [7, 7]


def test_board_setup_neutral_tiles_fixed_buildings_bailiff_and_provost():
    d = Game(GameConfig(num_players=4), seed=5).state_dict()
    neutral = {B.space(d, k)["building"] for k in range(1, 7)}
    assert neutral == {
        "farm_neutral",
        "forest",
        "sawmill_neutral",
        "quarry_neutral",
        "carpenter_neutral",
        "marketplace_neutral",
    }
    assert B.space(d, 7)["building"] == "peddler_fixed"
    assert B.space(d, 8)["building"] == "carpenter_fixed"
    assert B.space(d, 16)["building"] == "gold_mine"
    assert all(B.space(d, k)["building"] is None for k in (*range(9, 16), *range(17, 29)))
    assert d["provost"] == 6 and d["bailiff"] == 6
    assert d["stock"]["architect"] == 2 and d["stock"]["jeweller"] == 0
    assert d["turn"] == 1 and d["phase"] == "placement"


def test_same_seed_gives_same_setup_and_seeds_differ():
    setups = {tuple(Game(GameConfig(4), seed=s).setup()["neutral_tiles"]) for s in range(40)}
    assert len(setups) > 20
    assert Game(GameConfig(4), seed=9).setup() == Game(GameConfig(4), seed=9).setup()


# -- phase 1 -----------------------------------------------------------------------------------
def test_income_two_deniers_plus_residences_library_and_hotel():
    d = B.position(3, phase="income")
    B.build_on(d, 9, "residence", 0)
    B.build_on(d, 10, "residence", 0)
    B.build_on(d, 11, "library", 1)
    B.build_on(d, 12, "hotel", 1)
    g = B.start(d)
    assert [B.player(g, p)["money"] for p in range(3)] == [5 + 2 + 2, 5 + 2 + 3, 5 + 2]


# -- phase 2 -----------------------------------------------------------------------------------
def test_placement_prices_follow_the_passing_scale():
    """T1, re-sequenced so every step is legal (4 players: Blue 0, Green 1, Orange 2, Red 3)."""
    d = B.position(4)
    for p in range(4):
        B.set_player(d, p, money=20)
    B.build_on(d, 9, "mason", 1)  # Green's mason
    B.build_on(d, 10, "farm_food", 3)  # Red's farm
    g = B.start(d)
    money = lambda p: B.player(g, p)["money"]  # noqa: E731
    B.play(g, "place:castle")  # Blue: 1
    B.play(g, "place:road:1")  # Green on the neutral farm: 1
    B.play(g, "place:road:3")  # Orange on the neutral sawmill: 1
    B.play(g, "place:trading_post")  # Red: 1
    assert [money(p) for p in range(4)] == [19, 19, 19, 19]
    B.play(g, "pass")  # Blue passes first: +1
    assert money(0) == 20
    B.play(g, "place:road:7")  # Green on the fixed peddler: 2
    assert money(1) == 17
    B.play(g, "pass")  # Orange passes second: no bonus
    assert money(2) == 19
    prestige_green = B.player(g, 1)["prestige"]
    B.play(g, "place:road:9")  # Red on Green's mason: 3, Green +1 prestige
    assert money(3) == 16 and B.player(g, 1)["prestige"] == prestige_green + 1
    B.play(g, "pass")  # Green
    B.play(g, "place:road:10")  # Red on his own farm: 1, no prestige
    assert money(3) == 15 and B.player(g, 3)["prestige"] == 0
    B.play(g, "place:castle")  # Red in the castle: spot 2, 4 deniers
    assert money(3) == 11
    d2 = g.state_dict()
    assert d2["castle_workers"] == [0, 3]
    B.play(g, "pass")
    assert g.state_dict()["passing_order"] == [0, 2, 1, 3]


def test_owner_gains_prestige_when_another_player_places_on_his_building():
    d = B.position(3)
    B.build_on(d, 9, "sawmill", 2)
    g = B.start(d)
    B.play(g, "place:road:9")
    assert B.player(g, 2)["prestige"] == 1


def test_placing_on_own_building_costs_one_even_late():
    d = B.position(3)
    B.build_on(d, 9, "sawmill", 2)
    B.set_player(d, 2, money=10)
    B.all_passed(d, [0, 1])
    g = B.start(d)
    assert g.current_player() == 2
    B.play(g, "place:road:9")
    assert B.player(g, 2)["money"] == 9 and B.player(g, 2)["prestige"] == 0


def test_inn_resident_pays_one_denier_per_placement():
    """T3 next turn: Green (resident) pays 1 even after others passed; owners still +1."""
    d = B.position(4)
    B.put_worker(d, 1, "inn_right")
    B.build_on(d, 9, "sawmill", 0)
    B.set_player(d, 1, money=10)
    B.all_passed(d, [0, 2, 3])
    g = B.start(d)
    assert g.current_player() == 1
    B.play(g, "place:castle")
    assert B.player(g, 1)["money"] == 9
    B.play(g, "place:road:9")
    assert B.player(g, 1)["money"] == 8 and B.player(g, 0)["prestige"] == 1


def test_inn_resident_has_five_workers_available():
    d = B.position(3)
    B.put_worker(d, 1, "inn_right")
    B.set_player(d, 1, money=30)
    B.all_passed(d, [0, 2])
    g = B.start(d)
    for k in (1, 2, 3, 4):
        B.play(g, f"place:road:{k}")
    assert "place:road:5" in B.legal_names(g)
    B.play(g, "place:road:5")
    # The sixth worker is on the inn: the forced pass is applied by the engine itself.
    assert B.player(g, 1)["workers_out"] == 6 and B.player(g, 1)["passed"]


def test_two_player_price_is_three_after_the_opponent_passed():
    """T17: 1 before, 3 after; own building 1; the inn resident pays 1."""
    d = B.position(2)
    B.build_on(d, 9, "sawmill", 1)
    B.set_player(d, 1, money=20)
    g = B.start(d)
    B.play(g, "pass")  # player 0
    B.play(g, "place:road:1")
    assert B.player(g, 1)["money"] == 17
    B.play(g, "place:road:9")
    assert B.player(g, 1)["money"] == 16
    B.play(g, "place:castle")  # the castle costs 3 too (8.15)
    assert B.player(g, 1)["money"] == 13


def test_two_player_game_has_no_stables():
    g = B.start(B.position(2))
    assert "place:stables" not in B.legal_names(g)
    assert "place:inn" in B.legal_names(g)


def test_two_player_turn_order_alternates_every_turn():
    g = Game(GameConfig(num_players=2), seed=1)
    first = g.state_dict()["turn_order"]
    orders = [first]
    while not g.is_terminal() and g.turn < 3:
        turn = g.turn
        while g.turn == turn and not g.is_terminal():
            g.apply(g.legal_actions()[0])  # always pass / decline first
        orders.append(g.state_dict()["turn_order"])
    assert orders[1] == first[::-1] and orders[2] == first


def test_player_without_workers_must_pass():
    d = B.position(3)
    for k in range(1, 7):  # all six workers of player 0 already placed
        B.put_worker(d, 0, k)
    g = B.start(d)
    # The only legal action (pass) is applied automatically: player 1 acts first.
    assert B.player(g, 0)["passed"] and g.current_player() == 1


def test_player_who_cannot_pay_must_pass():
    d = B.position(3)
    B.set_player(d, 0, money=1)
    for k in range(1, 6):  # five workers placed: one left, but the bridge price is too high
        B.put_worker(d, 0, k)
    B.all_passed(d, [1, 2])  # the bridge price is now 3
    d["players"][0]["passed"] = False
    g = B.start(d)
    # Only the pass is legal, so the engine applies it and phase 2 ends.
    assert B.player(g, 0)["passed"] and g.phase != "placement"


def test_no_worker_on_residences_prestige_buildings_empty_or_occupied_spaces():
    d = B.position(3)
    B.build_on(d, 9, "residence", 1)
    B.build_on(d, 10, "statue", 1)
    B.put_worker(d, 2, 1)
    g = B.start(d)
    names = B.legal_names(g)
    for banned in ("place:road:9", "place:road:10", "place:road:11", "place:road:1"):
        assert banned not in names
    assert "place:road:2" in names and "place:road:16" in names


def test_stables_and_castle_take_one_worker_per_player():
    d = B.position(3)
    B.put_worker(d, 0, "stables")
    B.put_worker(d, 0, "castle")
    g = B.start(d)
    names = B.legal_names(g)
    assert "place:stables" not in names and "place:castle" not in names
    B.play(g, "pass")
    assert "place:stables" in B.legal_names(g) and "place:castle" in B.legal_names(g)


def test_inn_new_worker_takes_only_the_free_left_spot():
    d = B.position(3)
    B.put_worker(d, 1, "inn_left")
    g = B.start(d)
    assert "place:inn" not in B.legal_names(g)


def test_first_passer_bonus_also_in_two_player_game():
    g = B.start(B.position(2))
    B.play(g, "pass")
    assert B.player(g, 0)["money"] == 6


def test_stock_holds_only_the_tiles_players_construct():
    stock = Game(GameConfig(3), seed=0).state_dict()["stock"]
    assert stock["farm_neutral"] == 0 and stock["gold_mine"] == 0 and stock["residence"] == 0
    assert stock["farm_food"] == 1 and stock["architect"] == 2 and stock["cathedral"] == 1
    assert sum(stock.values()) == 8 + 9 + 9  # wood, stone (two architects), prestige tiles
