"""Scenario tests for phase 3 (special buildings) and phase 4 (the provost)."""

from __future__ import annotations

from caylus_env.caylus import positions as B


def special_position(n=4):
    return B.build_dict(n, phase="special_buildings", passed=list(range(n)))


# -- gate ----------------------------------------------------------------------------------------
def test_gate_moves_its_worker_to_the_castle_free_of_charge():
    """T25: Blue and Red in the castle, Green moves the gate worker there: spot 3."""
    d = special_position(4)
    B.put_worker(d, 0, "castle")
    B.put_worker(d, 3, "castle")
    B.put_worker(d, 1, "gate")
    g = B.start(d)
    assert g.decision().kind == "gate" and g.current_player() == 1
    money = B.player(g, 1)["money"]
    B.play(g, "gate:castle")
    assert g.state_dict()["castle_workers"] == [0, 3, 1]
    assert B.player(g, 1)["money"] == money


def test_gate_move_onto_an_opponents_building_gives_him_one_prestige():
    d = special_position(3)
    B.build_on(d, 9, "sawmill", 2)
    B.put_worker(d, 0, "gate")
    g = B.start(d)
    B.play(g, "gate:road:9")
    assert B.player(g, 2)["prestige"] == 1
    assert g.state_dict()["road"][8]["worker"] == 0


def test_gate_worker_may_go_to_own_building_beyond_the_provost():
    d = special_position(3)
    B.build_on(d, 20, "sawmill", 0)
    B.put_worker(d, 0, "gate")
    g = B.start(d)
    assert "gate:road:20" in B.legal_names(g)
    B.play(g, "gate:road:20")
    assert B.player(g, 0)["prestige"] == 0


def test_gate_worker_not_moved_goes_home():
    d = special_position(3)
    B.put_worker(d, 0, "gate")
    g = B.start(d)
    B.play(g, "decline")
    assert B.player(g, 0)["workers_out"] == 0
    assert g.state_dict()["special_workers"]["gate"] is None


def test_gate_destinations_exclude_taken_spots_and_own_castle_or_stable_place():
    d = special_position(4)
    B.put_worker(d, 0, "gate")
    B.put_worker(d, 0, "castle")
    B.put_worker(d, 0, "stables")
    B.put_worker(d, 1, "inn_left")
    B.put_worker(d, 2, "trading_post")
    B.put_worker(d, 3, 2)
    g = B.start(d)
    names = B.legal_names(g)
    for banned in (
        "gate:castle",
        "gate:stables",
        "gate:inn",
        "gate:trading_post",
        "gate:road:2",
        "gate:road:9",
    ):
        assert banned not in names
    assert "gate:merchants_guild" in names and "gate:road:1" in names


def test_gate_worker_moved_to_trading_post_takes_effect_in_the_same_phase():
    d = special_position(3)
    B.put_worker(d, 0, "gate")
    g = B.start(d)
    B.play(g, "gate:trading_post")
    assert B.player(g, 0)["money"] == 5 + 3
    assert B.player(g, 0)["workers_out"] == 0


# -- trading post, guild, joust ---------------------------------------------------------------------
def test_trading_post_gives_three_deniers():
    d = special_position(3)
    B.put_worker(d, 2, "trading_post")
    g = B.start(d)
    assert B.player(g, 2)["money"] == 8 and B.player(g, 2)["workers_out"] == 0


def test_merchants_guild_moves_the_provost_up_to_three_spaces_within_the_road():
    d = special_position(3)
    d["provost"] = 2
    B.put_worker(d, 1, "merchants_guild")
    g = B.start(d)
    names = B.legal_names(g)
    assert "guild:-2" not in names and "guild:-1" in names and "guild:+3" in names
    assert "decline" in names
    B.play(g, "guild:+3")
    assert g.state_dict()["provost"] == 5
    assert B.player(g, 1)["money"] == 5  # free


def test_joust_field_pays_one_denier_and_one_cloth_for_one_favor():
    d = special_position(3)
    B.set_player(d, 0, cloth=1)
    B.put_worker(d, 0, "joust_field")
    g = B.start(d)
    B.play(g, "joust")
    assert g.decision().kind == "favor_row"
    assert B.player(g, 0)["money"] == 4 and B.cubes(g, 0)["cloth"] == 0
    B.play(g, "favor:deniers")
    assert B.player(g, 0)["money"] == 4 + 3


def test_joust_field_cannot_be_paid_with_cloth_produced_later():
    """T16: no cloth at the start of the turn: the joust field cannot be used."""
    d = special_position(3)
    B.put_worker(d, 0, "joust_field")
    B.put_worker(d, 0, 1)  # neutral farm: food or cloth, but only in phase 5
    g = B.start(d)
    assert g.state_dict()["special_workers"]["joust_field"] is None  # declined automatically
    assert B.player(g, 0)["prestige"] == 0


def test_joust_field_denier_may_come_from_the_trading_post():
    """T16: 1 cloth and 0 deniers plus the trading post: the joust can be paid."""
    d = special_position(3)
    B.set_player(d, 0, money=0, cloth=1)
    B.put_worker(d, 0, "trading_post")
    B.put_worker(d, 0, "joust_field")
    g = B.start(d)
    assert "joust" in B.legal_names(g)


# -- stables -------------------------------------------------------------------------------------------
def test_stables_reorder_the_turn_order():
    """T2: order Red, Green, Orange, Blue; Blue spot 1, Red spot 2 -> Blue, Red, Green, Orange."""
    red, green, orange, blue = 0, 1, 2, 3
    d = special_position(4)
    d["turn_order"] = [red, green, orange, blue]
    B.put_worker(d, blue, "stables")
    B.put_worker(d, red, "stables")
    g = B.start(d)
    assert g.state_dict()["turn_order"] == [blue, red, green, orange]
    assert B.player(g, blue)["workers_out"] == 0


def test_three_players_on_the_stables_set_the_whole_order():
    d = special_position(3)
    for p in (2, 0, 1):
        B.put_worker(d, p, "stables")
    g = B.start(d)
    assert g.state_dict()["turn_order"] == [2, 0, 1]


# -- inn -------------------------------------------------------------------------------------------------
def test_inn_left_worker_moves_right_and_evicts_the_resident():
    """T3: Blue resident since last turn, Green enters: Blue goes home, Green stays."""
    blue, green = 0, 1
    d = special_position(4)
    B.put_worker(d, blue, "inn_right")
    B.put_worker(d, green, "inn_left")
    g = B.start(d)
    inn = g.state_dict()["inn"]
    assert inn == {"left": None, "right": green}
    assert B.player(g, blue)["workers_out"] == 0 and B.player(g, green)["workers_out"] == 1


def test_inn_eviction_applies_to_the_same_player():
    d = special_position(3)
    B.put_worker(d, 0, "inn_right")
    B.put_worker(d, 0, "inn_left")
    g = B.start(d)
    assert g.state_dict()["inn"] == {"left": None, "right": 0}
    assert B.player(g, 0)["workers_out"] == 1


def test_inn_resident_nobody_evicted_may_stay_or_leave():
    d = special_position(3)
    B.put_worker(d, 2, "inn_right")
    g = B.start(d)
    assert g.decision().kind == "inn" and g.current_player() == 2
    B.play(g, "inn:leave")
    assert g.state_dict()["inn"]["right"] is None and B.player(g, 2)["workers_out"] == 0
    g = B.start(d)
    B.play(g, "inn:stay")
    assert g.state_dict()["inn"]["right"] == 2 and B.player(g, 2)["workers_out"] == 1


# -- phase 4 ---------------------------------------------------------------------------------------------
def test_provost_moves_in_passing_order_paying_one_denier_per_space():
    d = B.position(3, phase="provost")
    B.all_passed(d, [2, 0, 1])
    d["provost"] = 10
    g = B.start(d)
    assert g.current_player() == 2
    B.play(g, "provost:+3")
    assert g.current_player() == 0
    B.play(g, "provost:-2")
    assert g.state_dict()["provost"] == 11 and g.current_player() == 1
    assert B.player(g, 2)["money"] == 2 and B.player(g, 0)["money"] == 3
    B.play(g, "pass")
    # Phase 7: the provost (11) was beyond the bailiff (6): the bailiff moves 2.
    assert g.state_dict()["bailiff"] == 8 and g.state_dict()["provost"] == 8


def test_provost_stays_within_road_spaces_1_to_28():
    """T24: from 2, -2 is illegal and -1 legal; from 27, +2 illegal and +1 legal."""
    d = B.position(3, phase="provost")
    B.all_passed(d)
    d["provost"] = 2
    names = B.legal_names(B.start(d))
    assert "provost:-2" not in names and "provost:-1" in names
    d["provost"] = 27
    names = B.legal_names(B.start(d))
    assert "provost:+2" not in names and "provost:+1" in names


def test_provost_moves_are_limited_by_money():
    d = B.position(3, phase="provost")
    B.all_passed(d)
    B.set_player(d, 0, money=1)
    names = B.legal_names(B.start(d))
    assert names == ["pass", "provost:-1", "provost:+1"]
