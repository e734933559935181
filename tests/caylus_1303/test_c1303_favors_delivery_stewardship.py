"""Scenario tests of Caylus 1303's Favors (rules 4.5), Delivery (rules 4.3) and Stewardship
(rules 4.4, 4.6): every Favor route and source, the Delivery and its Favor (the rules' example
included), every Stewardship step and the end of the game.

Each test builds its position with the position builder (``caylus_env.caylus_1303.positions``),
plays actions by their stable names and checks exact counts and prestige against
``docs/rules/caylus_1303.md``; a test that checks a decision names it (``test_d23_...``).
"""

from __future__ import annotations

import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine.constants import (
    BASE_INCOME,
    BUNDLE_PRESTIGE,
    FAVOR_SITES,
    NUM_ROUNDS,
    PRESTIGE_PER_GOLD,
    RESIDENCE_INCOME,
    WORKERS_PER_COLOUR,
)
from caylus_env.caylus_1303.engine.rules import value
from caylus_env.caylus_1303.engine.tiles import KIND_OF, TILES

NO_RES = {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 0}


def pl(g, p: int) -> dict:
    """Player ``p``'s entry of the state dict."""
    return g.state_dict()["players"][p]


def res(g, p: int) -> dict:
    return pl(g, p)["resources"]


def board(g) -> list[str]:
    """The available characters (rules 3.3)."""
    return sorted(c for c, h in g.state_dict()["characters"].items() if h == "board")


def fairground(n: int = 3, round: int = 1, **kw):
    """Activation at the Fairground with seat 0's worker there and 1 wood (rules 5.1): every
    hand is empty so that no Guilds Bridge decision interrupts (D20)."""
    players = dict(kw.pop("players", {}))
    workers = {"fairground": 0, **kw.pop("workers", {})}
    p0 = {"hand": 1, "resources": {"wood": 1}, **players.pop(0, {})}
    entries = {p: {"hand": 0} for p in range(1, n)}
    for p, e in players.items():
        entries[p] = {**entries[p], **e}
    return P.build(
        n,
        phase="activation",
        at="fairground",
        round=round,
        players={0: p0, **entries},
        workers=workers,
        **kw,
    )


def favor_at_fairground(n: int = 3, round: int = 1, **kw):
    """The Fairground's Favor of seat 0, asked (rules 4.5)."""
    g = fairground(n, round, **kw)
    assert g.decision().kind == "effect" and g.decision().args == {"space": "fairground"}
    P.play(g, "option:1")
    assert res(g, 0)["wood"] == 0  # the Fairground's price: 1 wood (rules 5.1)
    assert g.decision().kind == "favor" and g.decision().player == 0
    return g


# -- Favors (rules 4.5, D8, D23, D24) ------------------------------------------------------------
def test_d23_favor_option_1_steals_a_character_from_another_player():
    """rules 4.5 option 1, D23: any character held by another player moves to the Favor's
    gainer; the other player gets nothing back and the board is unchanged."""
    g = favor_at_fairground(players={1: {"characters": ["thief"]}, 2: {"characters": ["steward"]}})
    before = board(g)
    assert {"steal:thief", "steal:steward", "use_site:S1"} <= set(P.legal_names(g))
    P.play(g, "steal:steward")
    chars = g.state_dict()["characters"]
    assert chars["steward"] == 0 and chars["thief"] == 1
    assert board(g) == before


def test_d23_favor_never_steals_from_oneself_or_the_board():
    """rules 4.5 option 1: only a character held by ANOTHER player can be taken."""
    g = favor_at_fairground(players={0: {"characters": ["foreman"]}, 1: {"characters": ["thief"]}})
    names = P.legal_names(g)
    assert [a for a in names if a.startswith("steal:")] == ["steal:thief"]


def test_d24_a_bailiff_taken_at_the_fairground_acts_at_this_rounds_bridge():
    """D24: the power moves at once: a Bailiff stolen at the Fairground moves the Provost
    after this round's Guilds Bridge (D28), for its new holder."""
    g = favor_at_fairground(
        players={1: {"characters": ["bailiff"]}, 2: {"hand": 1}},
        provost=8,
        road={"R9": "wooden_farm"},
        workers={"R9": 2},
    )
    P.play(g, "steal:bailiff")
    d = g.decision()
    assert (d.kind, d.player) == ("bailiff", 0)
    assert P.legal_names(g) == ["decline", "provost:-1", "provost:+1"]
    P.play(g, "provost:+1")
    # R9 was past the Provost (p = 8); now its worker is activated (rules 4.2)
    assert g.state_dict()["provost"] == 9
    assert (g.decision().kind, g.decision().player) == ("effect", 2)
    assert g.decision().args == {"space": "R9"}


@pytest.mark.parametrize("round_", range(1, NUM_ROUNDS + 1))
def test_d8_favor_site_buildings_by_round(round_):
    """D8: rounds 1-3 S1; rounds 4-6 S1 or S2; rounds 7-9 S1, S2 or S3."""
    g = favor_at_fairground(round=round_, players={1: {"characters": ["thief"]}})
    sites = [a for a in P.legal_names(g) if a.startswith("use_site:")]
    expected = {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3}[round_]
    assert sites == [f"use_site:S{k}" for k in range(1, expected + 1)]
    assert expected == FAVOR_SITES[round_] == value("favor_site_gating")[round_]


def test_d23_favor_uses_s1_setup_side_the_player_pays_then_takes_a_character():
    """rules 4.5 option 2, D23: the site building's effect as if he had a worker there (he
    pays its cost: the Guild (4) takes 1 stone for 4 workers, rules 5.2), then he MUST take
    one available character."""
    g = favor_at_fairground(
        site_buildings={"S1": "guild_4"},
        players={0: {"resources": {"wood": 1, "stone": 1}}, 1: {"characters": ["thief"]}},
    )
    P.play(g, "use_site:S1")
    d = g.decision()
    assert (d.kind, d.player, d.args) == ("effect", 0, {"space": "S1"})
    hand, camp = pl(g, 0)["hand"], pl(g, 0)["camp"]
    P.play(g, "option:1")
    assert res(g, 0)["stone"] == 0
    assert (pl(g, 0)["hand"], pl(g, 0)["camp"]) == (hand + 4, camp - 4)
    d = g.decision()
    assert (d.kind, d.player) == ("board_character", 0)
    available = board(g)
    assert "decline" not in P.legal_names(g)  # compulsory (D23)
    assert sorted(P.legal_names(g)) == [f"character:{c}" for c in available]
    P.play(g, f"character:{available[0]}")
    assert g.state_dict()["characters"][available[0]] == 0
    assert board(g) == available[1:]


def test_d23_favor_on_s2_applies_its_setup_side_not_its_construction_side():
    """rules 4.5, D8: in round 4 a Favor may use S2, Setup side up: the Wooden farm gives 1
    food + 1 PP there (rules 5.3), not the Construction side's 2 food."""
    g = favor_at_fairground(
        round=4, site_buildings={"S2": "wooden_farm"}, players={1: {"characters": ["thief"]}}
    )
    food, pp = res(g, 0)["food"], pl(g, 0)["pp"]
    P.play(g, "use_site:S2", "option:1")
    assert (res(g, 0)["food"], pl(g, 0)["pp"]) == (food + 1, pp + 1)
    assert g.decision().kind == "board_character"


def test_d23_favor_on_s3_applies_its_setup_side_and_ignores_the_provost():
    """rules 4.5, D8: in round 7 a Favor may use S3 (Setup side: the Stone farm gives 1 food +
    1 cloth, rules 5.4), wherever the Provost stands; nobody gains owner PP."""
    g = favor_at_fairground(
        round=7,
        provost=0,
        site_buildings={"S3": "stone_farm"},
        players={1: {"characters": ["thief"]}},
    )
    before = [pl(g, p)["pp"] for p in range(3)]
    food = res(g, 0)["food"]
    P.play(g, "use_site:S3", "option:1")
    assert (res(g, 0)["food"], res(g, 0)["cloth"]) == (food + 1, 1)
    assert [pl(g, p)["pp"] for p in range(3)] == before


def test_d23_declining_the_site_effect_still_gives_the_character():
    """D23: a Favor cannot be refused, but option 2 with the effect declined gives just the
    available character."""
    g = favor_at_fairground(players={1: {"characters": ["thief"]}})
    r = res(g, 0)
    P.play(g, "use_site:S1", "decline")
    assert res(g, 0) == r
    assert g.decision().kind == "board_character" and g.decision().player == 0


def test_d23_the_board_is_never_refilled_and_a_site_building_serves_many_favors():
    """rules 4.5: the last available character taken leaves the board empty for good (its
    only choice is applied by itself); a second Favor the same round uses S1 again and then
    has no character to take. The Manor's Construction side gives that second Favor."""
    g = P.build(
        2,
        phase="activation",
        at="fairground",
        site_buildings={"S1": "farm"},
        board_characters=["steward"],
        provost=10,
        players={
            0: {"hand": 2, "resources": {"wood": 1}, "buildings": ["manor"],
                "characters": ["thief", "foreman"]},
            1: {"hand": 0, "characters": ["goldsmith", "chamberlain"]},
        },
        workers={"fairground": 0, "R10": 0},
    )  # fmt: skip
    assert g.state_dict()["spaces"]["R10"]["tile"] == "manor"
    P.play(g, "option:1", "use_site:S1", "option:1")
    assert res(g, 0)["food"] == 0 + 1
    chars = g.state_dict()["characters"]
    assert chars["steward"] == 0 and board(g) == []
    # the Manor (Construction side): a second Favor, again on S1
    d = g.decision()
    assert (d.kind, d.player, d.args) == ("effect", 0, {"space": "R10"})
    P.play(g, "option:1")
    assert g.decision().kind == "favor"
    P.play(g, "use_site:S1", "option:1")
    assert res(g, 0)["food"] == 0 + 2
    # no character to take: the round ran on to round 2, and the board stays empty
    d = g.state_dict()
    assert d["round"] == 2 and d["phase"] == "planning" and board(g) == []
    assert sorted(c for c, h in d["characters"].items() if h == 0) == [
        "foreman",
        "steward",
        "thief",
    ]


def test_favor_from_the_manor_construction_side_only():
    """rules 5.3: the Manor's Construction side gains a Favor; its Setup side (R9) 2 PP."""
    g = P.build(
        3,
        phase="activation",
        at="R9",
        provost=10,
        road={"R9": "manor"},
        players={0: {"hand": 1}, 1: {"hand": 1, "characters": ["thief"]}, 2: {"hand": 0}},
        workers={"R9": 0},
    )
    P.play(g, "option:1")
    assert pl(g, 0)["pp"] == 2 and g.decision().kind != "favor"


def test_favor_from_the_theatre_is_resolved_at_once():
    """rules 4.4 b, 5.5, D4: building the Theatre gives a Favor, resolved before anything
    else goes on (before the next player's monuments)."""
    g = P.build(
        3,
        phase="stewardship",
        first_player=0,
        players={
            0: {"residences": ["R3"], "resources": {"gold": 3, "wood": 4}},
            1: {"residences": ["R4"], "resources": {"gold": 1, "stone": 2},
                "characters": ["thief"]},
        },
    )  # fmt: skip
    assert g.decision().kind == "monument" and g.decision().player == 0
    P.play(g, "monument:theatre")
    assert pl(g, 0)["pp"] == 12 and res(g, 0)["gold"] == 0 and res(g, 0)["wood"] == 0
    d = g.decision()
    assert (d.kind, d.player) == ("favor", 0)
    P.play(g, "steal:thief")
    assert g.state_dict()["characters"]["thief"] == 0
    assert g.decision().kind == "monument" and g.decision().player == 1


def test_d24_a_used_once_per_round_tile_stays_used_when_stolen():
    """D24: once-per-round uses are counted per tile: a Journeyman used this round and stolen
    at the Fairground stays used for its new holder until the round ends."""
    g = favor_at_fairground(
        players={1: {"characters": ["journeyman"]}, 2: {"hand": 1}},
        characters_used=["journeyman"],
        road={"R1": "farm"},
        workers={"R1": 2},  # keeps the round going: its effect is asked after the Favor
    )
    P.play(g, "steal:journeyman")
    assert g.decision().args == {"space": "R1"}
    d = g.state_dict()
    assert d["characters"]["journeyman"] == 0 and d["characters_used"] == ["journeyman"]


def test_d24_a_used_goldsmith_gives_no_bonus_to_its_new_holder():
    """D24, D30: the Goldsmith's +5 is once per round per tile: marked used, its holder's gold
    bundle scores 5."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        characters_used=["goldsmith"],
        players={0: {"characters": ["goldsmith"], "resources": {"food": 2, "wood": 2, "gold": 2}}},
    )
    P.play(g, "bundle:food+wood+gold")
    assert pl(g, 0)["pp"] == BUNDLE_PRESTIGE


# -- Delivery (rules 4.3, D9, D17, D30, D39) -----------------------------------------------------
TWO_BUNDLES = {"food": 2, "wood": 2, "stone": 2}


def test_delivery_goes_in_site_slot_order():
    """rules 4.3: the site workers deliver in site-slot order W1, W2, W3."""
    g = P.build(
        3,
        phase="delivery",
        site=[2, 0, 1],
        players={p: {"resources": TWO_BUNDLES} for p in range(3)},
    )
    seen = []
    for _ in range(3):
        seen.append(g.decision().player)
        assert g.decision().kind == "deliver"
        P.play(g, "decline")
    assert seen == [2, 0, 1]


def test_a_bundle_is_three_different_resources_with_food():
    """rules 4.3: 3 different resources, at least one food; gold is allowed; no repeats."""
    g = P.build(2, phase="delivery", site=[0], players={0: {"resources": dict.fromkeys(NO_RES, 2)}})
    bundles = {a for a in P.legal_names(g) if a.startswith("bundle:")}
    assert bundles == {
        "bundle:food+wood+stone", "bundle:food+wood+cloth", "bundle:food+wood+gold",
        "bundle:food+stone+cloth", "bundle:food+stone+gold", "bundle:food+cloth+gold",
    }  # fmt: skip
    assert "decline" in P.legal_names(g)


def test_without_food_no_bundle_can_be_delivered():
    """rules 4.3: no food, no bundle: the only choice (stop) is applied by itself."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        players={0: {"resources": {"wood": 3, "stone": 3, "cloth": 3, "gold": 3}}},
    )
    assert pl(g, 0)["pp"] == 0 and g.state_dict()["phase"] != "delivery"
    assert res(g, 0)["wood"] == 3


def test_d39_each_bundle_gives_5_pp_one_bundle_per_decision():
    """rules 4.3, D39: 5 PP per bundle at once; the player is asked again after each bundle
    until he stops."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        site_buildings={"S1": "farm"},
        players={0: {"resources": {"food": 3, "wood": 3, "cloth": 3}}},
    )
    P.play(g, "bundle:food+wood+cloth")
    assert pl(g, 0)["pp"] == BUNDLE_PRESTIGE and pl(g, 0)["bundles"] == 1
    assert res(g, 0) == {"food": 2, "wood": 2, "stone": 0, "cloth": 2, "gold": 0}
    assert g.decision().kind == "deliver" and g.decision().player == 0
    P.play(g, "bundle:food+wood+cloth")
    assert pl(g, 0)["pp"] == 2 * BUNDLE_PRESTIGE and pl(g, 0)["bundles"] == 2
    P.play(g, "decline")
    # his Favor: nobody else holds a character and round 1 allows only S1, so the Favor's
    # single choice is applied and S1's effect is asked (D23)
    assert g.decision().kind == "effect" and g.decision().args == {"space": "S1"}


def _rules_example(green_bundles: int):
    """Red (seat 1, site slot 1) delivers 1 bundle, Green (seat 2, slot 2) ``green_bundles``;
    round 4 so that the Favor offers S1 and S2 and is asked."""
    red, green = 1, 2
    g = P.build(
        3,
        phase="delivery",
        round=4,
        site=[red, green],
        players={red: {"resources": TWO_BUNDLES}, green: {"resources": TWO_BUNDLES}},
    )
    assert g.decision().player == red
    P.play(g, "bundle:food+wood+stone", "decline")
    assert g.decision().player == green
    for _ in range(green_bundles):
        P.play(g, "bundle:food+wood+stone")
    if green_bundles < 2:
        P.play(g, "decline")
    return g, red, green


def test_d9_the_rules_example_green_delivers_most_and_gains_the_favor():
    """rules 4.3 example: Red (slot 1) delivers 1 (+5 PP), Green (slot 2) delivers 2 (+10 PP):
    Green gains the Favor."""
    g, red, green = _rules_example(2)
    assert (pl(g, red)["pp"], pl(g, green)["pp"]) == (5, 10)
    assert (g.decision().kind, g.decision().player) == ("favor", green)


def test_d9_the_rules_example_a_tie_goes_to_the_lowest_site_slot():
    """rules 4.3 example, D9: had Green delivered 1, Red, placed first, would gain it."""
    g, red, green = _rules_example(1)
    assert (pl(g, red)["pp"], pl(g, green)["pp"]) == (5, 5)
    assert (g.decision().kind, g.decision().player) == ("favor", red)


def test_d9_no_favor_without_a_bundle_and_d17_site_workers_go_to_the_camp():
    """D9: the Favor needs at least 1 bundle; D17: the site workers go to the Camp and a
    worker that delivered nothing costs nothing more."""
    g = P.build(
        3,
        phase="delivery",
        round=4,
        site=[0, 1],
        players={0: {"hand": 2, "resources": {"wood": 3}}, 1: {"hand": 3, "resources": {}}},
    )
    d = g.state_dict()
    assert d["round"] == 5 and d["phase"] == "planning"  # no Favor was asked
    assert d["site"] == []
    assert [p["pp"] for p in d["players"]] == [0, 0, 0]
    base = BASE_INCOME[3]
    # hands 2 and 3 less the site worker, plus the income; the site worker went to the Camp
    assert (d["players"][0]["hand"], d["players"][1]["hand"]) == (1 + base, 2 + base)
    assert d["players"][0]["camp"] == WORKERS_PER_COLOUR - 1 - base


def test_d17_site_workers_go_to_the_camp_after_the_delivery_favor():
    """D17: the site workers go to the Camp after the Favor is resolved."""
    g, red, green = _rules_example(2)
    assert g.state_dict()["site"] == [red, green]
    assert (pl(g, red)["hand"], pl(g, red)["camp"]) == (6 - 1, 9)
    P.play(g, "use_site:S1", "decline")
    assert g.decision().kind == "board_character"
    P.play(g, P.legal_names(g)[0])
    d = g.state_dict()
    assert d["site"] == [] and d["round"] == 5
    # the site worker went to the Camp, then the income came from it (rules 4.4 c)
    base = BASE_INCOME[3]
    assert (pl(g, red)["hand"], pl(g, red)["camp"]) == (6 - 1 + base, 9 + 1 - base)
    assert pl(g, red)["pp"] == BUNDLE_PRESTIGE


def test_d9_deliveryman_without_a_site_worker_ranks_after_all_site_workers():
    """D9: a Deliveryman with no site worker delivers after all slots and loses a tie."""
    g = P.build(
        3,
        phase="delivery",
        round=4,
        site=[0],
        players={0: {"resources": TWO_BUNDLES},
                 1: {"characters": ["deliveryman"], "resources": TWO_BUNDLES}},
    )  # fmt: skip
    P.play(g, "bundle:food+wood+stone", "decline")
    d = g.decision()
    assert (d.kind, d.player, d.args) == ("deliver", 1, {"deliveryman_turn": 1})
    P.play(g, "bundle:food+wood+stone", "decline")
    assert (g.decision().kind, g.decision().player) == ("favor", 0)


def test_d9_deliveryman_without_a_site_worker_wins_with_more_bundles():
    """D9: with more bundles than every site worker, the Deliveryman gains the Favor."""
    g = P.build(
        3,
        phase="delivery",
        round=4,
        site=[0],
        players={0: {"resources": TWO_BUNDLES},
                 1: {"characters": ["deliveryman"], "resources": TWO_BUNDLES}},
    )  # fmt: skip
    P.play(g, "bundle:food+wood+stone", "decline")
    P.play(g, "bundle:food+wood+stone", "bundle:food+wood+stone")
    assert pl(g, 1)["pp"] == 10
    assert (g.decision().kind, g.decision().player) == ("favor", 1)


def test_favor_from_the_delivery_uses_a_site_building():
    """rules 4.3, 4.5: the Delivery Favor has both options; here option 2 on S2 (round 4)."""
    g, _, green = _rules_example(2)
    assert {"use_site:S1", "use_site:S2"} <= set(P.legal_names(g))
    P.play(g, "use_site:S2")
    assert (g.decision().kind, g.decision().player) == ("effect", green)
    assert g.decision().args == {"space": "S2"}


# -- Stewardship (rules 4.4, D2-D6, D35, D36) ----------------------------------------------------
def test_d3_a_marked_building_becomes_a_residence_with_income_and_no_workers():
    """rules 4.4 a, D3: the building the Lawyer marked turns to its Residence side; the house
    stays on it; +1 worker income; it never takes a worker afterwards."""
    g0 = P.build(3, phase="stewardship", marks={"R3": 0}, players={0: {"hand": 2}, 1: {"hand": 2}})
    # (no monument can be paid: step b is skipped, the game is at round 2's Planning)
    d = g0.state_dict()
    sp = d["spaces"]["R3"]
    assert (sp["side"], sp["owner"], sp["mark"]) == ("residence", 0, None)
    assert d["players"][0]["houses"] == 9 - 1
    assert d["players"][0]["hand"] == 2 + BASE_INCOME[3] + RESIDENCE_INCOME
    assert d["players"][1]["hand"] == 2 + BASE_INCOME[3]
    assert d["round"] == 2 and g0.decision().kind == "plan"
    names = P.legal_names(g0)
    assert "place:R3" not in names and "place:R2" in names


def test_d4_monuments_in_turn_order_from_the_first_player_each_once():
    """rules 4.4 b, D4: one turn each, from the first player (the first to pass); a monument
    built is gone from the supply."""
    kit = {"gold": 1, "stone": 1, "wood": 1, "cloth": 1}
    g = P.build(
        3,
        phase="stewardship",
        first_player=1,
        players={p: {"residences": [f"R{p + 1}"], "resources": kit} for p in range(3)},
    )
    assert (g.decision().kind, g.decision().player) == ("monument", 1)
    assert {"monument:granary", "monument:factory", "monument:garden"} <= set(P.legal_names(g))
    P.play(g, "monument:granary")
    assert (g.decision().kind, g.decision().player) == ("monument", 2)
    assert "monument:granary" not in P.legal_names(g)
    P.play(g, "monument:factory")
    assert (g.decision().kind, g.decision().player) == ("monument", 0)
    assert set(P.legal_names(g)) == {"decline", "monument:garden"}
    P.play(g, "monument:garden")
    d = g.state_dict()
    assert [d["spaces"][f"R{k}"]["tile"] for k in (1, 2, 3)] == ["garden", "granary", "factory"]
    assert [p["pp"] for p in d["players"]] == [4, 7, 5]
    for m in ("granary", "factory", "garden"):
        assert m not in d["monument_supply"]


def test_d4_several_monuments_each_on_a_different_own_residence():
    """D4: any number of monuments in the turn, each on a different residence of his own,
    the one he chooses (asked while he has two or more); the residence tile leaves the game,
    the house stays."""
    g = P.build(
        2,
        phase="stewardship",
        players={0: {"residences": ["R5", "R2"], "resources": {"gold": 2, "stone": 3}}},
    )
    tiles_before = [g.state_dict()["spaces"][f"R{k}"]["tile"] for k in range(1, 9)]
    P.play(g, "monument:statue")
    assert P.legal_names(g) == ["residence:R2", "residence:R5"]
    P.play(g, "residence:R2")
    assert g.state_dict()["spaces"]["R2"]["tile"] == "statue"
    assert g.decision().kind == "monument" and g.decision().player == 0
    P.play(g, "monument:granary")  # his last residence: nothing more is asked
    d = g.state_dict()
    assert d["spaces"]["R5"]["tile"] == "granary" and d["spaces"]["R5"]["owner"] == 0
    assert d["players"][0]["pp"] == 7 + 7
    assert d["players"][0]["houses"] == 9 - 2
    on_road = [d["spaces"][f"R{k}"]["tile"] for k in range(1, 9)]
    assert on_road == [t if k not in (2, 5) else {2: "statue", 5: "granary"}[k]
                       for k, t in enumerate(tiles_before, 1)]  # fmt: skip
    # no residence left: his turn ends by itself; income counts no residence any more
    assert d["round"] == 2
    assert d["players"][0]["resources"]["food"] == 1  # the Granary paid (D35)


def test_d4_a_residence_formed_in_this_stewardship_takes_a_monument():
    """rules 4.4 a-b, D2, D4: step a comes first, so a building marked this round is already a
    residence for step b."""
    g = P.build(
        2, phase="stewardship", marks={"R4": 1}, players={1: {"resources": {"gold": 1, "stone": 2}}}
    )
    assert (g.decision().kind, g.decision().player) == ("monument", 1)
    P.play(g, "monument:statue")
    sp = g.state_dict()["spaces"]["R4"]
    assert (sp["tile"], sp["side"], sp["owner"]) == ("statue", "construction", 1)
    assert pl(g, 1)["pp"] == TILES[KIND_OF["statue"]].pp == 7


def test_d4_no_monument_without_a_residence():
    """D4: a monument needs a residence of one's own: without one, nothing is asked."""
    g = P.build(2, phase="stewardship", players={0: {"resources": {"gold": 9, "stone": 9}}})
    assert g.state_dict()["round"] == 2 and pl(g, 0)["pp"] == 0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_d5_base_income_3_and_2_with_5_players(n):
    """rules 4.4 c, D5: every player gains 3 workers (2 with 5 players) from the Camp."""
    g = P.build(n, phase="stewardship", players={p: {"hand": 1} for p in range(n)})
    expected = 2 if n == 5 else 3
    assert expected == BASE_INCOME[n] == value("worker_income")["base"][n]
    for p in range(n):
        assert (pl(g, p)["hand"], pl(g, p)["camp"]) == (1 + expected, 14 - expected)


def test_d5_income_counts_residences_gardens_and_the_day_laborer():
    """D5, D31: 3 + 1 per residence + 2 per Garden + 1 with the Day Laborer."""
    g = P.build(
        3,
        phase="stewardship",
        players={0: {"hand": 0, "residences": ["R2", "R5", "R7"], "monuments": ["garden"],
                     "characters": ["day_laborer"]}},
    )  # fmt: skip
    assert pl(g, 0)["hand"] == 3 + 2 * 1 + 2 + 1


def test_d15_income_beyond_the_camp_is_lost():
    """rules 4.4 c, D15: workers come from the player's colour in the Camp; the excess is lost."""
    g = P.build(3, phase="stewardship", players={0: {"hand": 14}})
    assert (pl(g, 0)["hand"], pl(g, 0)["camp"]) == (15, 0)


@pytest.mark.parametrize("monument", ["garden", "granary", "factory"])
def test_d35_income_monuments_pay_in_the_stewardship_they_are_built(monument):
    """rules 4.4 c, D35: a Granary, Factory or Garden built in step b pays in step c of the
    same Stewardship; the residence it replaced no longer does."""
    g = P.build(
        3,
        phase="stewardship",
        players={0: {"hand": 0, "residences": ["R3"],
                     "resources": {"gold": 1, "wood": 1, "stone": 1, "cloth": 1}}},
    )  # fmt: skip
    P.play(g, f"monument:{monument}")
    r = res(g, 0)
    hand = pl(g, 0)["hand"]
    if monument == "garden":
        assert hand == 3 + 2 and r["wood"] == 0
    elif monument == "granary":
        assert hand == 3 and r["food"] == 0 + 1 and r["stone"] == 0
    else:
        assert hand == 3 and r["cloth"] == 0 + 1


@pytest.mark.parametrize(
    ("buildings", "provost"),
    [
        ([], 8),
        (["wooden_farm", "wooden_quarry", "wooden_sawmill"], 11),  # R10-R12: R14 not joined
        (["wooden_farm", "wooden_quarry", "wooden_sawmill", "spinning_mill"], 13),  # L = 14
        (["wooden_farm", "wooden_quarry", "wooden_sawmill", "spinning_mill", "gold_mine"], 14),
    ],
)
def test_d6_provost_reset_just_before_the_last_contiguous_building(buildings, provost):
    """rules 3.1, 4.4 d, D6: p = L - 1, L the contiguous built Road: the pre-built R14 joins
    only once R10-R13 are built; wherever the Provost stood."""
    for start_at in (0, 23):
        g = P.build(2, phase="stewardship", provost=start_at, players={0: {"buildings": buildings}})
        offset = value("provost_reset")["offset_from_last_contiguous"]
        assert g.state_dict()["provost"] == provost
        assert provost == (9 + len(buildings) + (len(buildings) >= 4)) + offset


def test_stewardship_returns_the_pass_houses_and_advances_the_round():
    """rules 4.4 e-f, D2: the pass houses go back under the bridge, the first-player tile stays
    with the first to pass, the round marker advances."""
    g = P.build(3, phase="stewardship", round=3, bridge=[2, 0, 1])
    d = g.state_dict()
    assert d["bridge"] == [] and d["passes"] == 0
    assert [p["passed"] for p in d["players"]] == [False, False, False]
    assert d["first_player"] == 2 and d["round"] == 4 and d["phase"] == "planning"
    assert (g.decision().kind, g.decision().player) == ("plan", 2)


def test_d36_the_game_ends_after_round_9s_full_stewardship():
    """rules 4.6, D36: round 9's Stewardship is played in full (monuments included), then the
    game ends; score = PP + 2 per gold."""
    g = P.build(
        2,
        phase="stewardship",
        round=NUM_ROUNDS,
        players={0: {"pp": 30, "residences": ["R1"], "resources": {"gold": 3, "stone": 2}},
                 1: {"pp": 40, "resources": {"gold": 1}}},
    )  # fmt: skip
    assert not g.is_over() and g.decision().kind == "monument"
    P.play(g, "monument:statue")  # 1 gold + 2 stone, 7 PP
    assert g.is_over() and g.decision() is None
    assert g.state_dict()["phase"] == "game_over"
    assert pl(g, 0)["pp"] == 37 and res(g, 0)["gold"] == 2
    assert g.scores().tolist() == [37 + 2 * 2, 40 + 2 * 1]
    assert PRESTIGE_PER_GOLD == 2


def test_d36_round_8_stewardship_does_not_end_the_game():
    """D36: only round 9 ends the game; round 8 goes on to round 9's Planning."""
    g = P.build(2, phase="stewardship", round=NUM_ROUNDS - 1)
    assert not g.is_over() and g.state_dict()["round"] == NUM_ROUNDS
    assert g.state_dict()["phase"] == "planning"


def test_d13_tied_scores_share_the_rank():
    """rules 4.6, D13: ties are shared: 10 PP and 4 PP + 3 gold tie for first, ranks and rank
    returns averaged."""
    g = P.build(
        3,
        phase="stewardship",
        round=NUM_ROUNDS,
        players={0: {"pp": 10, "resources": {}}, 1: {"pp": 4, "resources": {"gold": 3}},
                 2: {"pp": 6, "resources": {}}},
    )  # fmt: skip
    assert g.is_over()
    assert g.scores().tolist() == [10, 10, 6]
    assert g.ranks().tolist() == [1.5, 1.5, 3.0]
    assert g.returns().tolist() == [0.5, 0.5, -1.0]
