"""Scenario tests for the royal favor table (rules 5), its variant (6) and game options (8)."""

from __future__ import annotations

import pytest

from caylus_env.caylus import positions as B
from caylus_env.caylus.engine import Game, GameConfig


def favor_position(n=3, favors=1, scored=(), columns=None, **player0):
    """Player 0 is about to choose ``favors`` favors in phase 5 (joust-like source)."""
    return B.build_dict(
        n,
        phase="activation",
        passed=list(range(n)),
        provost=28,
        cursor=29,  # nothing left to activate after the favors
        scored=list(scored),
        players={0: {**player0, "favors": columns or {}}},
        # A sentinel decision of player 1 below the favors keeps the game in this phase.
        pending=[
            {"kind": "produce", "player": 1, "building": "forest"},
            {"kind": "favor_row", "player": 0, "favors": favors},
        ],
    )


def at_sentinel(g):
    dec = g.decision()
    return dec.kind == "produce" and dec.player == 1


def test_favor_row_advances_one_column_and_gives_its_effect():
    g = B.start(favor_position())
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 1 and B.player(g, 0)["prestige"] == 1


def test_favor_advance_is_compulsory_when_the_next_column_is_open():
    """8.10: from column 3 with the walls scored, the marker must move to 4."""
    g = B.start(favor_position(scored=("dungeon", "walls"), columns={"deniers": 3}))
    B.play(g, "favor:deniers")
    assert B.player(g, 0)["favor_columns"]["deniers"] == 4 and B.player(g, 0)["money"] == 5 + 6


def test_columns_three_and_four_open_after_the_dungeon_scoring_five_after_the_walls():
    g = B.start(favor_position(columns={"prestige": 2}))
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 2
    g = B.start(favor_position(scored=("dungeon",), columns={"prestige": 4}))
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 4
    g = B.start(favor_position(scored=("dungeon", "walls"), columns={"prestige": 4}))
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 5 and B.player(g, 0)["prestige"] == 5


def test_blocked_row_can_be_chosen_again_for_the_same_effect():
    """T19: dungeon not scored, deniers marker on column 2: every further favor gives 4."""
    g = B.start(favor_position(favors=1, columns={"deniers": 2}))
    B.play(g, "favor:deniers")
    assert B.player(g, 0)["favor_columns"]["deniers"] == 2 and B.player(g, 0)["money"] == 5 + 4


def test_favors_of_one_phase_use_different_rows_and_a_fifth_is_lost():
    """5.3: at most 4 favors per player per phase count."""
    g = B.start(favor_position(favors=5))
    B.play(g, "favor:prestige", "favor:deniers")
    assert B.legal_names(g) == ["favor:resources", "favor:buildings"]
    B.play(g, "favor:resources")  # its column 1 is the only one open: applied at once
    # The fourth favor has one row left (applied by the engine, column 1 forced too);
    # the fifth has none and is lost.
    assert at_sentinel(g)
    p = B.player(g, 0)
    assert p["rows_used"] == ["prestige", "deniers", "resources", "buildings"]
    assert all(c == 1 for c in p["favor_columns"].values())


def test_resources_row_column_choices():
    """Column 1 food, 2 wood or stone, 3 cloth, 4 swap, 5 gold (walls scored)."""
    base = dict(scored=("dungeon", "walls"), columns={"resources": 5})
    g = B.start(favor_position(**base))
    B.play(g, "favor:resources")
    assert B.legal_names(g) == [f"column:{c}" for c in range(1, 6)]
    B.play(g, "column:2")
    assert B.legal_names(g) == ["take:wood", "take:stone"]
    B.play(g, "take:stone")
    assert B.cubes(g, 0)["stone"] == 1
    g = B.start(favor_position(**base))
    B.play(g, "favor:resources", "column:5")
    assert B.cubes(g, 0)["gold"] == 1


def test_resources_row_column_four_gives_one_cube_for_two_non_gold_cubes():
    """8.11: the cube given may be gold; the two taken are non-gold and may differ."""
    d = favor_position(scored=("dungeon",), columns={"resources": 3}, gold=1)
    g = B.start(d)
    B.play(g, "favor:resources", "column:4")
    assert g.decision().kind == "favor_give"
    assert "pay:gold" in B.legal_names(g)
    B.play(g, "pay:gold")
    assert B.legal_names(g) == ["take:food", "take:wood", "take:stone", "take:cloth"]
    B.play(g, "take:cloth", "take:wood")
    assert B.cubes(g, 0) == {"food": 2, "wood": 2, "stone": 0, "cloth": 1, "gold": 0}


def test_row_d_lower_columns_may_be_chosen_including_nothing():
    """8.9: any column 1..marker of row d, column 1 doing nothing."""
    d = favor_position(scored=("dungeon",), columns={"buildings": 3}, stone=1)
    g = B.start(d)
    B.play(g, "favor:buildings")
    assert B.legal_names(g) == ["column:1", "column:2", "column:3"]
    B.play(g, "column:1")
    assert B.player(g, 0)["favor_columns"]["buildings"] == 4


def test_row_d_carpenter_pays_one_wood_less():
    d = favor_position(columns={"buildings": 1}, wood=0, food=1)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:2")
    assert "build:farm_food" in B.legal_names(g)
    B.play(g, "build:farm_food")
    assert B.cubes(g, 0)["food"] == 0 and B.space(g.state_dict(), 9)["building"] == "farm_food"


def test_row_d_carpenter_marketplace_costs_one_cube_of_any_kind():
    d = favor_position(columns={"buildings": 1}, wood=0, food=0, gold=1)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:2")
    B.play(g, "build:marketplace")  # the single any-cube payment (gold) is forced
    assert B.cubes(g, 0)["gold"] == 0 and B.player(g, 0)["prestige"] == 4


def test_row_d_mason_pays_one_stone_less():
    """5.1 (the park example): the stone is waived, only the food is paid."""
    d = favor_position(scored=("dungeon",), columns={"buildings": 2}, stone=0, food=1)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:3", "build:park")
    assert B.cubes(g, 0)["food"] == 0 and B.player(g, 0)["prestige"] == 3


def test_row_d_lawyer_costs_only_one_cloth():
    d = favor_position(scored=("dungeon",), columns={"buildings": 3}, cloth=1, money=0)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:4", "space:3")
    assert B.space(g.state_dict(), 3)["building"] == "residence"
    assert B.cubes(g, 0)["cloth"] == 0 and B.player(g, 0)["prestige"] == 2


def test_row_d_architect_pays_the_normal_cost():
    d = favor_position(scored=("dungeon", "walls"), columns={"buildings": 4}, food=3, gold=1)
    B.build_on(d, 9, "residence", 0)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:5", "build:granary")
    assert B.cubes(g, 0)["food"] == 0 and B.cubes(g, 0)["gold"] == 0
    assert B.space(g.state_dict(), 9)["building"] == "granary"


def test_favor_built_monument_favors_may_not_reuse_the_buildings_row():
    """5.3 (the BGA example): a row-d favor builds the monument; its 2 favors avoid row d."""
    d = favor_position(scored=("dungeon", "walls"), columns={"buildings": 4}, stone=4, gold=2)
    B.build_on(d, 9, "residence", 0)
    g = B.start(d)
    B.play(g, "favor:buildings", "column:5", "build:monument")
    assert g.decision().kind == "favor_row" and g.decision().args["favors"] == 2
    assert "favor:buildings" not in B.legal_names(g)


def test_church_favor_with_all_columns_open():
    """T14: walls scored, resources marker on 2; the mason builds the church: +3, favor."""
    d = B.position(3, phase="activation")
    B.all_passed(d)
    d["provost"] = 28
    d["scored"]["dungeon"] = d["scored"]["walls"] = True
    d["players"][0]["favor_columns"]["resources"] = 2
    B.build_on(d, 9, "mason", 1)
    B.set_player(d, 0, stone=1, cloth=1, wood=0)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    B.play(g, "build:church", "favor:resources")
    assert B.player(g, 0)["favor_columns"]["resources"] == 3
    assert B.legal_names(g) == ["column:1", "column:2", "column:3"]
    B.play(g, "column:1")
    assert B.cubes(g, 0)["food"] == 3 and B.player(g, 0)["prestige"] == 3


def test_favors_of_different_phases_may_reuse_a_row():
    d = B.position(3, phase="special_buildings")
    B.all_passed(d)
    B.set_player(d, 0, cloth=1, food=3, wood=3, stone=3)
    B.put_worker(d, 0, "joust_field")
    B.put_worker(d, 0, "castle")
    g = B.start(d)
    B.play(g, "joust", "favor:prestige")
    while g.phase != "castle":
        g.apply(g.legal_actions()[0])
    B.play(g, "batch:food+wood+stone", "decline")
    assert g.decision().kind == "favor_row"  # best builder, phase 6
    assert "favor:prestige" in B.legal_names(g)


# -- variants ----------------------------------------------------------------------------------------
def test_simplified_favors_are_worth_three_prestige_each_without_a_cap():
    d = B.position(3, phase="end_of_turn", simplified_favors=True)
    B.all_passed(d)
    d["bailiff"] = d["provost"] = 8
    B.set_castle(d, "dungeon", [6, 0, 0])
    B.set_castle(d, "walls", [10, 0, 0])
    g = B.start(d)
    # dungeon 6 houses: 1 favor; walls 10 houses: 3 favors -> 4 favors x 3 prestige.
    assert B.player(g, 0)["prestige"] == 12 and B.player(g, 0)["favor_columns"]["prestige"] == 0


def test_lawyer_prestige_option():
    for pp in (4, 3):
        d = B.position(3, phase="activation", lawyer_prestige=pp)
        B.all_passed(d)
        d["provost"] = 28
        B.set_player(d, 0, wood=1, cloth=1)
        B.put_worker(d, 0, 8)
        g = B.start(d)
        B.play(g, "build:lawyer")
        assert B.player(g, 0)["prestige"] == pp


def test_jeweller_is_only_in_the_stock_when_enabled():
    assert Game(GameConfig(3), seed=0).state_dict()["stock"]["jeweller"] == 0
    assert Game(GameConfig(3, jeweller=True), seed=0).state_dict()["stock"]["jeweller"] == 1


def test_a_described_position_with_the_jeweller_option_keeps_its_tile_in_the_stock():
    """8.1: with the option the Jeweller tile is in the game, so the builder counts it in
    the stock, or on the road where the description builds it."""
    g = B.build(3, options={"jeweller": True})
    assert g.state_dict()["stock"]["jeweller"] == 1
    g = B.build(3, options={"jeweller": True}, players=[{"buildings": ["jeweller"]}])
    assert g.state_dict()["stock"]["jeweller"] == 0 and B.space(g.state_dict(), 9)["owner"] == 0
    with pytest.raises(B.PositionError, match="jeweller tiles: 1 placed"):
        B.build(3, players=[{"buildings": ["jeweller"]}])


def test_jeweller_options_turn_gold_into_prestige():
    d = B.position(3, phase="activation", jeweller=True)
    B.all_passed(d)
    d["provost"] = 28
    B.build_on(d, 9, "jeweller", 1)
    B.set_player(d, 0, gold=2)
    B.put_worker(d, 0, 9)
    g = B.start(d)
    B.play(g, "option:2")
    assert B.player(g, 0)["prestige"] == 9 and B.cubes(g, 0)["gold"] == 0


def test_house_cap_stops_construction_and_batches_at_twenty_houses():
    def twenty_houses(**options):
        """Player 0 has 20 houses in the castle (dungeon and walls full, 4 in the towers)."""
        return B.build_dict(
            3,
            options=options,
            phase="castle",
            passed=[0, 1, 2],
            castle={"dungeon": [6, 0, 0], "walls": [10, 0, 0], "towers": [4, 0, 0]},
            players=[{"food": 2, "wood": 2, "stone": 2}],
            workers={"castle": [0]},
        )

    d = twenty_houses(house_cap=True)
    assert d["players"][0]["houses"] == 20
    g = B.start(d)
    assert B.player(g, 0)["batches"] == 0  # could not give a batch: penalty applied
    d = twenty_houses()
    g = B.start(d)
    assert "batch:food+wood+stone" in B.legal_names(g)


@pytest.mark.parametrize(
    "bad",
    [
        {"num_players": 6},
        {"num_players": 1},
        {"lawyer_prestige": 5},
        {"jeweller": "yes"},
    ],
)
def test_bad_options_are_refused_with_a_clear_message(bad):
    with pytest.raises(ValueError, match=r"allowed|must be"):
        GameConfig(**bad)
