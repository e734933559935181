"""One scenario test per decision D1-D39 of ``docs/rules/caylus_1303.md`` (section 7): each
checks that the behaviour of the engine equals the value of its row in ``RULES``
(``caylus_env/caylus_1303/engine/rules.py``), which the engine reads, so that a corrected
rulebook that changes the table changes what these tests expect. The last test checks that
every decision has at least one test named ``test_d<N>_...`` in ``tests/caylus_1303/``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine import Game, GameConfig
from caylus_env.caylus_1303.engine.constants import CHARACTER_NAMES, Phase
from caylus_env.caylus_1303.engine.rules import BY_NUMBER, RULES, value
from caylus_env.caylus_1303.engine.tiles import KIND_OF, TILES
from caylus_env.caylus_1303.observation import prestige_visible


def pl(g, p: int) -> dict:
    return g.state_dict()["players"][p]


def res(g, p: int) -> dict:
    return pl(g, p)["resources"]


def at(space: str, n: int = 3, provost: int = 12, **kw):
    """Activation at ``space`` with seat 0's worker on it; other hands empty (no bridge)."""
    players = {p: {"hand": 0} for p in range(1, n)}
    p0 = {"hand": 1}
    for p, e in kw.pop("players", {}).items():
        if p == 0:
            p0 = {**p0, **e}
        else:
            players[p] = {**players[p], **e}
    workers = {space: 0, **kw.pop("workers", {})}
    return P.build(
        n,
        phase="activation",
        at=space,
        provost=provost,
        players={0: p0, **players},
        workers=workers,
        **kw,
    )


def test_d1_lawyer_costs_1_cloth_and_a_house():
    """D1, rules 5.1: the Lawyer takes 1 cloth and 1 house from the reserve."""
    cost = value("lawyer_cost")
    g = at("lawyer", players={0: {"resources": {"cloth": 2}}, 1: {"hand": 1}},
           road={"R1": "farm"}, workers={"R1": 1})  # fmt: skip
    P.play(g, "mark:R5")
    assert res(g, 0)["cloth"] == 2 - cost["cloth"]
    assert pl(g, 0)["houses"] == 9 - cost["houses"]
    assert g.state_dict()["spaces"]["R5"]["mark"] == 0
    g = at("lawyer", players={0: {"resources": {"wood": 5}}})
    assert pl(g, 0)["houses"] == 9  # without cloth only "decline": applied by itself


def test_d2_stewardship_follows_the_steps_of_the_rules_table():
    """D2: residences, monuments, income, Provost reset, bridge, round marker, in that order:
    a mark made this round takes a monument (a before b), the Garden built pays and the
    replaced residence does not (b before c), the Provost is reset and the round advances."""
    assert value("stewardship_steps") == (
        "residences", "monuments", "income", "provost_reset", "bridge", "round_marker",
    )  # fmt: skip
    g = P.build(
        2,
        phase="stewardship",
        provost=20,
        bridge=[1, 0],
        marks={"R4": 0},
        players={0: {"hand": 0, "resources": {"gold": 1, "wood": 1}}},
    )
    assert g.decision().kind == "monument"
    P.play(g, "monument:garden")
    d = g.state_dict()
    assert d["spaces"]["R4"]["tile"] == "garden"
    assert d["players"][0]["hand"] == 3 + 2  # base + Garden, no residence any more
    assert d["provost"] == 8 and d["bridge"] == [] and d["round"] == 2
    assert d["first_player"] == 1


def test_d3_residence_gives_1_worker_and_takes_no_worker():
    """D3: a residence gives +1 worker at income and never takes a worker."""
    rule = value("residence")
    assert rule["takes_workers"] is False and rule["effect"] is None
    g = P.build(3, phase="stewardship", players={0: {"hand": 0, "residences": ["R2"]}})
    assert pl(g, 0)["hand"] == 3 + rule["workers"]
    assert "place:R2" not in P.legal_names(g)


def test_d4_monuments_in_turn_order_on_the_residence_the_player_chooses():
    """D4: one turn each from the first player; the monument goes on the residence of his own
    that he chooses (rules 4.4 b)."""
    rule = value("monument_rules")
    assert (rule["order"], rule["residence_choice"], rule["per_residence"]) == (
        "turn_order", "player", 1,
    )  # fmt: skip
    kit = {"gold": 1, "stone": 2}
    g = P.build(
        2,
        phase="stewardship",
        first_player=1,
        players={0: {"residences": ["R6", "R3"], "resources": kit},
                 1: {"residences": ["R7"], "resources": kit}},
    )  # fmt: skip
    assert g.decision().player == 1
    P.play(g, "decline")
    assert g.decision().player == 0
    P.play(g, "monument:statue")
    assert P.legal_names(g) == ["residence:R3", "residence:R6"]
    P.play(g, "residence:R6")
    assert g.state_dict()["spaces"]["R6"]["tile"] == "statue"


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_d5_worker_income_equals_the_rules_table(n):
    """D5: base income by player count + 1 per residence."""
    income = value("worker_income")
    g = P.build(n, phase="stewardship", players={0: {"hand": 0, "residences": ["R1", "R8"]},
                                                  1: {"hand": 0}})  # fmt: skip
    assert pl(g, 0)["hand"] == income["base"][n] + 2 * income["per_residence"]
    assert pl(g, 1)["hand"] == income["base"][n]


def test_d6_provost_reset_offset_from_the_rules_table():
    """D6: p = L + offset (-1): L = 9 at setup, 10 with R10 built."""
    offset = value("provost_reset")["offset_from_last_contiguous"]
    assert P.build(2, phase="stewardship", provost=0).state_dict()["provost"] == 9 + offset
    g = P.build(2, phase="stewardship", provost=0, players={0: {"buildings": ["manor"]}})
    assert g.state_dict()["provost"] == 10 + offset
    assert Game(GameConfig(num_players=2), seed=3).state_dict()["provost"] == 9 + offset


def test_d7_road_layout_and_provost_bounds():
    """D7: 23 Road spaces, p in 0..provost_max: the Toll at 22 may move 1 forward, not 2."""
    layout = value("road_layout")
    d = P.position(3)
    assert sum(1 for s in d["spaces"] if re.fullmatch(r"R\d+", s)) == layout["spaces"]
    assert d["spaces"][f"R{layout['wood']}"]["tile"] is not None
    assert d["spaces"][f"R{layout['stone']}"]["tile"] is not None
    assert all(d["spaces"][f"R{k}"]["tile"] is None for k in (10, 11, 12, 13, 15, 23))
    g = at("toll", provost=layout["provost_max"] - 1)
    names = P.legal_names(g)
    assert "provost:+1" in names and "provost:+2" not in names and "provost:-2" in names


@pytest.mark.parametrize("round_", [1, 4, 7])
def test_d8_favor_site_gating_equals_the_rules_table(round_):
    """D8: round r allows S1..S<table[r]>."""
    g = at("fairground", round=round_, players={0: {"resources": {"wood": 1}},
                                                 1: {"characters": ["thief"]}})  # fmt: skip
    P.play(g, "option:1")
    sites = [a for a in P.legal_names(g) if a.startswith("use_site:")]
    assert len(sites) == value("favor_site_gating")[round_]


def test_d9_delivery_favor_needs_the_minimum_bundles():
    """D9: min_bundles 1: a delivery of nothing gives no Favor."""
    assert value("delivery_favor")["min_bundles"] == 1
    g = P.build(3, phase="delivery", round=4, site=[0], players={0: {"resources": {}}})
    assert g.state_dict()["round"] == 5  # no Favor was asked
    g = P.build(3, phase="delivery", round=4, site=[0],
                players={0: {"resources": {"food": 1, "wood": 1, "stone": 1}}})  # fmt: skip
    P.play(g, "bundle:food+wood+stone")
    assert (g.decision().kind, g.decision().player) == ("favor", 0)


def test_d10_character_names_are_the_draft_choices():
    """D10: the 12 names; the draft offers players + 3 of them by name."""
    names = value("character_names")
    assert tuple(n.lower().replace(" ", "_") for n in names) == CHARACTER_NAMES
    g = Game(GameConfig(num_players=3), seed=5)
    assert g.decision().kind == "draft"
    offered = P.legal_names(g)
    assert len(offered) == 3 + 3
    assert all(a.removeprefix("character:") in CHARACTER_NAMES for a in offered)


def test_d11_building_data_the_guild_4_gives_4_workers():
    """D11: the Java program's bug fixed: the Guild (4) takes 1 stone and gives 4 workers."""
    assert value("building_data") == "tiles.TILES"
    g = at("R1", road={"R1": "guild_4", "R8": "farm"},
           players={0: {"resources": {"stone": 1}}, 1: {"hand": 1}}, workers={"R8": 1})  # fmt: skip
    P.play(g, "option:1")
    assert g.decision().args == {"space": "R8"}  # the round goes on: no income yet
    assert (pl(g, 0)["hand"], res(g, 0)["stone"]) == (4, 0)


def test_d12_any_resource_is_never_gold():
    """D12: a market's resource of choice and an "any" payment are food, wood, stone or cloth."""
    kinds = value("any_resource")
    g = at("R1", road={"R1": "market"}, players={0: {"hand": 2}})
    assert P.legal_names(g) == ["decline", *(f"take:{r}" for r in kinds)]
    g = at("R1", road={"R1": "guild_3"},
           players={0: {"resources": {"cloth": 1, "gold": 3, "wood": 1}}})  # fmt: skip
    P.play(g, "option:1")
    assert P.legal_names(g) == ["pay:wood", "pay:cloth"]


def test_d13_ties_are_shared():
    """D13: tied players share the rank."""
    assert value("ties") == "shared"
    g = P.build(2, phase="stewardship", round=9, players={0: {"pp": 7}, 1: {"pp": 7}})
    assert g.is_over() and g.ranks().tolist() == [1.5, 1.5]
    assert g.returns().tolist() == [0.0, 0.0]


def test_d14_nine_houses_for_buildings_and_none_left_means_no_construction():
    """D14: 9 houses for buildings; with all 9 used he can construct nothing."""
    counts = value("supply_and_counts")
    assert counts["building_houses"] == counts["houses"] - counts["pass_houses"] == 9
    assert P.build(2).state_dict()["players"][0]["houses"] == counts["building_houses"]
    nine = ["manor", "tailor", "covered_market", "wooden_market", "spinning_mill",
            "gold_mine", "foundry", "jeweler", "alchemist"]  # fmt: skip
    g = at("carpenter", n=2, road={"R9": "wooden_farm"},
           players={0: {"buildings": nine, "resources": {"wood": 5, "food": 5}}})  # fmt: skip
    d = g.state_dict()
    assert d["players"][0]["houses"] == 0
    assert "wooden_quarry" in d["wood_supply"]  # nothing built: no effect was even asked


def test_d15_worker_accounting_by_the_rules_table():
    """D15: 15 workers per colour; start hands by count; a gain beyond the Camp is lost."""
    acc = value("worker_accounting")
    for n in (2, 3, 4, 5):
        d = P.position(n)
        for p in d["players"]:
            assert p["hand"] == acc["start_hand"][n]
            assert p["hand"] + p["camp"] == acc["per_colour"]
    g = at("R1", road={"R1": "guild_4", "R8": "farm"},
           players={0: {"hand": 13, "resources": {"stone": 1}}, 1: {"hand": 1}},
           workers={"R8": 1})  # fmt: skip
    P.play(g, "option:1")  # 4 workers, only 2 in the Camp: 2 are lost
    assert g.decision().args == {"space": "R8"}
    # 12 + 2; then the worker used on R1 goes to the Camp (rules 4.2)
    assert (pl(g, 0)["hand"], pl(g, 0)["camp"]) == (14, 1)


def test_d16_surcharge_after_the_first_pass():
    """D16: the placed worker + the surcharge once anybody has passed."""
    cost = value("placement_cost")
    g = P.build(3, first_player=1, bridge=[1], turn=2)
    P.play(g, "place:R1")
    assert pl(g, 2)["hand"] == 6 - cost["placed"] - cost["surcharge"]
    g = P.build(3, first_player=0)
    P.play(g, "place:R1")
    assert pl(g, 0)["hand"] == 6 - cost["placed"]


def test_d17_one_site_slot_per_player_no_penalty():
    """D17: one worker per player on the Construction Site; nothing lost for no delivery."""
    rule = value("site_slots")
    assert rule == {"per_player": 1, "penalty": 0}
    g = P.build(3, first_player=0, site=[0])
    assert "site" not in P.legal_names(g)
    g = P.build(2, phase="delivery", site=[0], players={0: {"pp": 3, "resources": {}}})
    assert pl(g, 0)["pp"] == 3 - rule["penalty"]


def test_d18_effects_are_optional_one_option_per_activation():
    """D18: decline is always legal; one option per activation (the Tailor's second is not
    asked after the first)."""
    assert value("optional_effects") == {"optional": True, "options_per_activation": 1}
    g = at("R9", road={"R9": "tailor"}, players={0: {"resources": {"cloth": 3}}})
    assert P.legal_names(g) == ["decline", "option:1", "option:2"]
    P.play(g, "option:1")
    assert res(g, 0)["cloth"] == 2 and pl(g, 0)["pp"] == 4
    assert g.state_dict()["round"] == 2  # no second option: the round ran on


def test_d19_owner_gets_the_owner_prestige_at_placement():
    """D19: +1 PP for the owner of a wood or stone building when another player places."""
    rule = value("ownership")
    g = P.build(3, first_player=0, players={1: {"buildings": ["wooden_farm"]}})
    P.play(g, "place:R10")
    assert pl(g, 1)["pp"] == rule["owner_prestige"]
    P.play(g, "place:R9")  # seat 1 on a neutral building
    assert pl(g, 1)["pp"] == rule["owner_prestige"]


def test_d20_bridge_steps_cost_1_worker_each():
    """D20: at the bridge 1-3 steps, 1 worker per step; the Toll 0-2 steps free."""
    moves = value("provost_moves")
    g = P.build(2, phase="activation", provost=8, players={0: {"hand": 5}, 1: {"hand": 1}},
                bridge=[0, 1])  # fmt: skip
    assert (g.decision().kind, g.decision().player) == ("bridge", 0)
    deltas = [a for a in P.legal_names(g) if a.startswith("provost:")]
    assert deltas == [f"provost:{d:+d}" for d in range(-moves["bridge"], moves["bridge"] + 1) if d]
    P.play(g, "provost:+3")
    assert (g.decision().kind, g.decision().player) == ("bridge", 1)
    assert g.state_dict()["provost"] == 11
    assert pl(g, 0)["hand"] == 5 - 3 * moves["bridge_worker_per_step"]
    assert "provost:-2" not in P.legal_names(g)  # 1 worker: 1 step at most
    g = at("toll", provost=8)
    assert [a for a in P.legal_names(g) if a.startswith("provost:")] == [
        "provost:-2", "provost:-1", "provost:+1", "provost:+2",
    ]  # fmt: skip


def test_d21_lawyer_targets_starting_buildings_occupied_or_past_the_provost():
    """D21: any unmarked, non-residence starting building on R1-R8, occupied or past the
    Provost."""
    rule = value("lawyer_targets")
    g = at("lawyer", provost=2, marks={"R2": 1},
           players={0: {"resources": {"cloth": 1}}, 1: {"hand": 1}, 2: {"residences": ["R3"]}},
           workers={"R6": 1})  # fmt: skip
    marks = [a for a in P.legal_names(g) if a.startswith("mark:")]
    first, last = rule["road_spaces"]
    assert marks == [f"mark:R{k}" for k in range(first, last + 1) if k not in (2, 3)]


def test_d22_construction_on_the_lowest_empty_space_with_the_stonemason_discount():
    """D22: lowest empty Road space, Construction side; the Stonemason's Setup side waives
    exactly the 1 stone of the cost."""
    rule = value("construction")
    assert rule["stonemason_setup_discount"] == {"stone": 1}
    g = at("carpenter", road={"R9": "tailor"}, site_buildings={"S2": "manor"},
           players={0: {"buildings": ["church"], "resources": {"wood": 1, "food": 1}}})  # fmt: skip
    P.play(g, "construct:wooden_farm")  # R10 holds his Church: the lowest empty is R11
    sp = g.state_dict()["spaces"]["R11"]
    assert (sp["tile"], sp["side"], sp["owner"]) == ("wooden_farm", rule["side"], 0)
    # a Favor on the site Stonemason (S2, round 4): its Setup side
    g = at(
        "fairground",
        round=4,
        road={"R9": "tailor"},
        site_buildings={"S2": "stonemason"},
        players={0: {"resources": {"wood": 1, "food": 1}}, 1: {"characters": ["thief"]}},
    )
    P.play(g, "option:1", "use_site:S2")
    assert "construct:gold_mine" in P.legal_names(g)  # 1 stone + 1 food, the stone waived
    P.play(g, "construct:gold_mine")
    sp = g.state_dict()["spaces"]["R10"]
    assert (sp["tile"], sp["side"], sp["owner"]) == ("gold_mine", rule["side"], 0)
    assert res(g, 0) == {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 0}


def test_d23_favor_options_and_the_compulsory_available_character():
    """D23: steal a character, or use a site building then take an available character."""
    rule = value("favor_procedure")
    assert rule == {"options": ("steal_character", "site_building"),
                    "board_character": "compulsory"}  # fmt: skip
    g = at("fairground", players={0: {"resources": {"wood": 1}}, 1: {"characters": ["thief"]}})
    P.play(g, "option:1")
    assert P.legal_names(g) == ["steal:thief", "use_site:S1"]
    P.play(g, "use_site:S1", "decline")
    assert g.decision().kind == "board_character" and "decline" not in P.legal_names(g)


def test_d24_once_per_round_is_per_tile():
    """D24: a Journeyman tile already used this round cannot be used by its holder."""
    assert value("character_transfer")["once_per_round"] == "per_tile"
    g = P.build(3, first_player=0, players={0: {"characters": ["journeyman"]}}, workers={"R1": 1},
                characters_used=["journeyman"])  # fmt: skip
    assert "place:R1" not in P.legal_names(g)
    g = P.build(3, first_player=0, players={0: {"characters": ["journeyman"]}}, workers={"R1": 1})
    assert "place:R1" in P.legal_names(g)


def test_d25_early_riser_costs_one_extra_worker_every_round():
    """D25: the placed worker + 1 extra, every round."""
    rule = value("early_riser")
    for round_ in (1, 9):
        g = P.build(3, round=round_, players={1: {"characters": ["early_riser"]}})
        assert g.decision().kind == "early_riser"
        P.play(g, "place:R1")
        assert pl(g, 1)["hand"] == 6 - 1 - rule["extra_workers"]


def test_d26_journeyman_at_most_2_workers_once_per_round():
    """D26: never a third worker; once per round."""
    rule = value("journeyman")
    assert (rule["per_round"], rule["max_workers"]) == (1, 2)
    g = P.build(3, first_player=0, players={0: {"characters": ["journeyman"]}},
                workers={"R1": [1, 2], "R2": 1})  # fmt: skip
    names = P.legal_names(g)
    assert "place:R1" not in names and "place:R2" in names


def test_d27_steward_2_thief_0():
    """D27: the Steward's owner gets 2; the Thief's placer gives 0, even to the Steward."""
    rule = value("thief_steward")
    g = P.build(3, first_player=0, players={1: {"characters": ["steward"], "buildings": ["manor"]},
                                    2: {"characters": ["thief"]}})  # fmt: skip
    P.play(g, "place:R10")
    assert pl(g, 1)["pp"] == rule["steward"]
    g = P.build(3, first_player=2, players={1: {"characters": ["steward"], "buildings": ["manor"]},
                                            2: {"characters": ["thief"]}})  # fmt: skip
    assert g.decision().player == 2
    P.play(g, "place:R10")
    assert pl(g, 1)["pp"] == rule["thief"]


def test_d28_bailiff_one_step_after_the_bridge():
    """D28: after the last bridge decision, 1 step."""
    rule = value("bailiff")
    assert rule == {"steps": 1, "when": "after_bridge"}
    g = P.build(2, phase="activation", bridge=[1, 0],
                players={0: {"hand": 2, "characters": ["bailiff"]}, 1: {"hand": 2}})  # fmt: skip
    kinds = []
    for _ in range(3):
        kinds.append((g.decision().kind, g.decision().player))
        P.play(g, "decline")
    assert kinds == [("bridge", 1), ("bridge", 0), ("bailiff", 0)]


def test_d29_architect_bonus():
    """D29: +1 PP per construction of the holder."""
    bonus = value("architect_scope")["bonus"]
    g = at(
        "carpenter",
        road={"R9": "tailor"},
        site_buildings={"S2": "manor"},
        players={0: {"characters": ["architect"], "resources": {"wood": 1, "food": 1}}},
    )
    P.play(g, "construct:wooden_farm")
    assert pl(g, 0)["pp"] == TILES[KIND_OF["wooden_farm"]].pp + bonus


def test_d30_bundle_prestige_and_modifiers():
    """D30: 3 resources, 5 PP; Foreman +1; Goldsmith +5 once."""
    mods = value("bundle_modifiers")
    g = P.build(2, phase="delivery", site=[0],
                players={0: {"characters": ["foreman", "goldsmith"],
                             "resources": {"food": 1, "wood": 1, "gold": 1}}})  # fmt: skip
    P.play(g, "bundle:food+wood+gold")
    assert pl(g, 0)["pp"] == mods["prestige"] + mods["foreman"] + mods["goldsmith"]
    assert sum(res(g, 0).values()) == 0 and mods["bundle_size"] == 3


def test_d31_day_laborer_workers():
    """D31: +1 worker at income."""
    g = P.build(3, phase="stewardship", players={0: {"hand": 0, "characters": ["day_laborer"]}})
    assert pl(g, 0)["hand"] == 3 + value("day_laborer")["workers"]


def test_d32_starting_reverse_side_is_the_residence():
    """D32: a marked starting building turns to its Residence side in Stewardship."""
    g = P.build(2, phase="stewardship", marks={"R1": 0})
    assert g.state_dict()["spaces"]["R1"]["side"] == value("starting_reverse_side")


def test_d33_same_effect_on_both_sides():
    """D33: the listed tiles work the same on both sides: the Jeweler pre-built on R14
    (Setup side) pays 5 PP for 1 gold like its Construction side."""
    for name in value("same_effect_both_sides"):
        t = TILES[KIND_OF[name]]
        assert t.setup == t.construction, name
    g = at("R14", provost=14, road={"R14": "jeweler"}, players={0: {"resources": {"gold": 2}}})
    assert g.state_dict()["spaces"]["R14"]["side"] == "setup"
    P.play(g, "option:1")
    assert (pl(g, 0)["pp"], res(g, 0)["gold"]) == (5, 1)


def test_d34_activation_order_printed_bridge_bailiff_road():
    """D34: a, b, c, d, then the bridge in bridge order, the Bailiff, then R1..Rp."""
    assert value("effect_order") == ("planning", "activation", "delivery", "stewardship")
    g = P.build(
        3,
        phase="activation",
        bridge=[2, 0, 1],
        road={"R1": "farm"},
        players={0: {"hand": 2, "resources": {"wood": 1}},
                 1: {"hand": 2, "characters": ["bailiff"]},
                 2: {"hand": 2}},
        workers={"fairground": 0, "toll": 1, "R1": 2},
    )  # fmt: skip
    seen = []
    while g.state_dict()["phase"] == "activation":
        seen.append((g.decision().kind, g.decision().player, g.decision().args.get("space")))
        P.play(g, "decline")
    assert seen == [
        ("effect", 0, "fairground"), ("effect", 1, "toll"),
        ("bridge", 2, None), ("bridge", 0, None), ("bridge", 1, None),
        ("bailiff", 1, None), ("effect", 2, "R1"),
    ]  # fmt: skip


def test_d35_garden_pays_in_the_stewardship_it_is_built():
    """D35: same_stewardship: the Garden's 2 workers come in the same step c."""
    assert value("monument_income_timing") == "same_stewardship"
    g = P.build(
        3,
        phase="stewardship",
        players={0: {"hand": 0, "residences": ["R1"], "resources": {"gold": 1, "wood": 1}}},
    )
    P.play(g, "monument:garden")
    assert pl(g, 0)["hand"] == 3 + value("worker_income")["per_garden"]


def test_d36_nine_rounds_and_2_pp_per_gold():
    """D36: the game ends after round 9; score = PP + 2 per gold."""
    rule = value("end_of_game")
    g = P.build(2, phase="stewardship", round=rule["rounds"],
                players={0: {"pp": 3, "resources": {"gold": 4}}})  # fmt: skip
    assert g.is_over() and g.state_dict()["phase"] == Phase.GAME_OVER.name.lower()
    assert g.scores()[0] == 3 + rule["prestige_per_gold"] * 4


def test_d37_every_pp_is_shown_by_default_and_hidden_on_request():
    """D37: by default every PP total is public; hide_opponent_pp shows only one's own."""
    assert value("observation") == {"hide_opponent_pp": False}
    assert GameConfig(num_players=3).hide_opponent_pp is False
    g = P.build(3)
    assert all(prestige_visible(g.state, 0, p) for p in range(3))
    h = P.build(3, options={"hide_opponent_pp": True})
    assert [bool(prestige_visible(h.state, 0, p)) for p in range(3)] == [True, False, False]


def test_d38_setup_is_seeded():
    """D38: the same seed gives the same setup; R9 is never the Stonemason."""
    assert value("setup_rng")["generator"] == "park_miller"
    assert P.position(4, seed=11) == P.position(4, seed=11)
    setups = {tuple(P.position(3, seed=s)["spaces"][f"R{k}"]["tile"] for k in range(1, 10))
              for s in range(30)}  # fmt: skip
    assert len(setups) > 1
    assert all(P.position(3, seed=s)["spaces"]["R9"]["tile"] != "stonemason" for s in range(60))


def test_d39_one_decision_per_bundle():
    """D39: one atomic choice per decision: after a bundle the same player is asked again."""
    assert value("decision_protocol") == "one decision per atomic choice"
    g = P.build(2, phase="delivery", site=[0],
                players={0: {"resources": {"food": 2, "wood": 2, "stone": 2}}})  # fmt: skip
    P.play(g, "bundle:food+wood+stone")
    assert (g.decision().kind, g.decision().player) == ("deliver", 0)
    assert P.legal_names(g) == ["decline", "bundle:food+wood+stone"]


def test_every_decision_has_a_test_named_after_it():
    """rules section 7: every decision D1..D39 has at least one ``test_d<N>_`` test in
    tests/caylus_1303/ (this file alone gives each one)."""
    assert sorted(BY_NUMBER) == list(range(1, 40)) and len(RULES) == 39
    found: set[int] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef):
                m = re.match(r"test_d(\d+)_", node.name)
                if m:
                    found.add(int(m.group(1)))
    assert sorted(set(BY_NUMBER) - found) == []
