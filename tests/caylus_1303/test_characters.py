"""Scenario tests of Caylus 1303's twelve characters (rules 5.6): one test (or more) per
character, named after it, each built with the position builder and played by action names,
checking exact workers, resources and prestige against ``docs/rules/caylus_1303.md``.
"""

from __future__ import annotations

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine.constants import (
    ARCHITECT_BONUS,
    BASE_INCOME,
    BUNDLE_PRESTIGE,
    DAY_LABORER_INCOME,
    FOREMAN_BONUS,
    GOLDSMITH_BONUS,
    STEWARD_PRESTIGE,
)
from caylus_env.caylus_1303.engine.tiles import KIND_OF, TILES


def pl(g, p: int) -> dict:
    return g.state_dict()["players"][p]


def res(g, p: int) -> dict:
    return pl(g, p)["resources"]


def pp_of(tile: str) -> int:
    return TILES[KIND_OF[tile]].pp


# -- Planning powers ------------------------------------------------------------------------------
def test_early_riser_places_before_the_first_player_for_2_workers():
    """rules 5.6 #1, D25: before the first player's first turn, the holder may make one
    placement (the Construction Site included) for the placed worker + 1 to the Camp."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser"]}})
    d = g.decision()
    assert (d.kind, d.player) == ("early_riser", 1)
    names = P.legal_names(g)
    assert "site" in names and "decline" in names and "pass" not in names
    P.play(g, "site")
    assert (pl(g, 1)["hand"], pl(g, 1)["camp"]) == (6 - 2, 9 + 1)
    assert g.state_dict()["site"] == [1]
    assert (g.decision().kind, g.decision().player) == ("plan", 0)


def test_early_riser_held_by_the_first_player_then_takes_his_normal_turn():
    """D25: a first player holding the Early Riser places twice in a row."""
    g = P.build(3, first_player=2, players={2: {"characters": ["early_riser"]}})
    P.play(g, "place:R1")
    assert (g.decision().kind, g.decision().player) == ("plan", 2)
    P.play(g, "place:R2")
    assert pl(g, 2)["hand"] == 6 - 2 - 1


def test_early_riser_may_decline():
    """rules 5.6: every power is optional; declining costs nothing."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser"]}})
    P.play(g, "decline")
    assert pl(g, 1)["hand"] == 6 and (g.decision().kind, g.decision().player) == ("plan", 0)


def test_night_worker_pays_no_surcharge_after_a_pass():
    """rules 5.6 #2, D16: once another player has passed, the holder's placement costs 1
    worker; everybody else pays 2."""
    g = P.build(
        3, first_player=1, bridge=[1], turn=2, players={2: {"characters": ["night_worker"]}}
    )
    P.play(g, "place:R1")
    assert (pl(g, 2)["hand"], pl(g, 2)["camp"]) == (6 - 1, 9)
    assert g.decision().player == 0
    P.play(g, "place:R2")
    assert (pl(g, 0)["hand"], pl(g, 0)["camp"]) == (6 - 2, 9 + 1)


def test_night_worker_does_not_waive_the_early_risers_extra_worker():
    """rules 5.6 #2, D25: the Early Riser's extra worker is not the surcharge."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser", "night_worker"]}})
    P.play(g, "place:R1")
    assert pl(g, 1)["hand"] == 6 - 2


def test_journeyman_joins_another_players_worker_once_per_round():
    """rules 5.6 #3, D26: once per round, on a building holding exactly one worker of another
    player; never on his own worker, never a third worker."""
    g = P.build(
        3,
        first_player=0,
        players={0: {"characters": ["journeyman"]}},
        workers={"R1": 1, "R2": 0, "R3": [1, 2], "toll": 2},
    )
    names = P.legal_names(g)
    assert "place:R1" in names and "place:toll" in names
    assert "place:R2" not in names and "place:R3" not in names
    P.play(g, "place:R1")
    d = g.state_dict()
    assert d["spaces"]["R1"]["workers"] == [1, 0] and d["characters_used"] == ["journeyman"]
    assert d["players"][0]["hand"] == 6 - 1 - 1
    P.play(g, "place:R4", "place:R5")  # seats 1 and 2
    assert "place:toll" not in P.legal_names(g)  # used this round


def test_journeyman_worker_resolves_right_after_the_first_and_uses_the_effect():
    """rules 4.2 step 4, D26: the first worker resolves first, then the Journeyman's; both may
    use the effect (a Farm: 1 food each)."""
    g = P.build(
        3,
        phase="activation",
        at="R1",
        road={"R1": "farm"},
        players={0: {"characters": ["journeyman"]}},
        characters_used=["journeyman"],
        workers={"R1": [1, 0]},
    )
    assert (g.decision().kind, g.decision().player) == ("effect", 1)
    P.play(g, "option:1")
    assert (g.decision().kind, g.decision().player, g.decision().args) == (
        "effect", 0, {"space": "R1"},
    )  # fmt: skip
    P.play(g, "option:1")
    assert (res(g, 0)["food"], res(g, 1)["food"]) == (2, 2)


def test_thief_gives_the_owner_no_pp_even_with_the_steward():
    """rules 5.6 #4, D27: when the Thief's holder places on another player's building, the
    owner gains nothing, even if he holds the Steward."""
    g = P.build(
        3,
        first_player=0,
        players={0: {"characters": ["thief"]},
                 1: {"characters": ["steward"], "buildings": ["wooden_farm"]}},
    )  # fmt: skip
    P.play(g, "place:R10")
    assert pl(g, 1)["pp"] == 0 and pl(g, 0)["hand"] == 6 - 1


def test_steward_gains_2_pp_when_another_player_places_on_his_building():
    """rules 5.6 #5, D27: 2 PP instead of 1; nothing for his own placement."""
    g = P.build(
        3,
        first_player=0,
        players={1: {"characters": ["steward"], "buildings": ["wooden_farm", "manor"]}},
    )
    P.play(g, "place:R10")
    assert pl(g, 1)["pp"] == STEWARD_PRESTIGE == 2
    P.play(g, "place:R11")  # seat 1 on his own Manor
    assert pl(g, 1)["pp"] == 2


# -- Activation powers ----------------------------------------------------------------------------
def _after_bridge(provost: int, holder: int = 0):
    """Activation with empty hands (no bridge decision is asked) and the Bailiff at
    ``holder``; seat 0's worker on the Farm on R1 keeps the round going."""
    players = {0: {"hand": 1}, 1: {"hand": 0}}
    players[holder] = {**players[holder], "characters": ["bailiff"]}
    return P.build(
        2,
        phase="activation",
        provost=provost,
        road={"R1": "farm"},
        players=players,
        workers={"R1": 0},
    )


def test_bailiff_moves_the_provost_1_step_free_after_the_bridge():
    """rules 5.6 #6, D28: after every bridge decision, 1 step either way, for free."""
    g = _after_bridge(8, holder=1)
    assert (g.decision().kind, g.decision().player) == ("bailiff", 1)
    assert P.legal_names(g) == ["decline", "provost:-1", "provost:+1"]
    P.play(g, "provost:-1")
    assert g.state_dict()["provost"] == 7
    assert g.decision().args == {"space": "R1"}
    assert (pl(g, 1)["hand"], pl(g, 1)["camp"]) == (0, 15)  # nothing paid


def test_bailiff_moves_are_bounded_by_the_road():
    """D20, D28: a move ending outside 0..23 is illegal."""
    assert P.legal_names(_after_bridge(23)) == ["decline", "provost:-1"]
    assert P.legal_names(_after_bridge(0)) == ["decline", "provost:+1"]


def test_bailiff_step_activates_a_worker_past_the_provost():
    """rules 4.2, D28: the Bailiff's step comes before R1, so it changes what is activated."""
    g = P.build(
        2,
        phase="activation",
        provost=8,
        road={"R9": "wooden_farm"},
        players={0: {"hand": 1, "characters": ["bailiff"]}, 1: {"hand": 0}},
        workers={"R9": 0},
    )
    P.play(g, "provost:+1")
    assert g.decision().args == {"space": "R9"}
    P.play(g, "option:1")  # the Setup side: 1 food + 1 PP
    assert (res(g, 0)["food"], pl(g, 0)["pp"]) == (2, 1)


#: Pre-built and site tiles fixed so that the wood and stone tiles built below are in supply.
FIXED_TILES = {"road": {"R9": "tailor", "R14": "church"},
               "site_buildings": {"S2": "covered_market", "S3": "foundry"}}  # fmt: skip


def _architect_at(at: str, **kw):
    return P.build(3, phase="activation", at=at, provost=12, **FIXED_TILES, **kw)


def test_architect_plus_1_with_the_printed_carpenter():
    """rules 5.6 #7, D29: +1 PP on a wood building built with the printed Carpenter."""
    g = _architect_at(
        "carpenter",
        players={0: {"characters": ["architect"], "resources": {"wood": 1, "food": 1}}},
        workers={"carpenter": 0},
    )
    P.play(g, "construct:wooden_farm")
    assert pl(g, 0)["pp"] == pp_of("wooden_farm") + ARCHITECT_BONUS == 3
    assert g.state_dict()["spaces"]["R10"]["tile"] == "wooden_farm"


def test_architect_plus_1_with_a_road_stonemason():
    """D29: +1 PP on a stone building built with a Stonemason (Construction side: full cost)."""
    g = _architect_at(
        "R10",
        players={0: {"characters": ["architect"], "buildings": ["stonemason"],
                     "resources": {"stone": 1, "food": 1}}},
        workers={"R10": 0},
    )  # fmt: skip
    P.play(g, "construct:gold_mine")
    assert pl(g, 0)["pp"] == pp_of("gold_mine") + ARCHITECT_BONUS == 5
    assert res(g, 0)["stone"] == 0 and res(g, 0)["food"] == 0
    assert g.state_dict()["spaces"]["R11"]["tile"] == "gold_mine"


def _favor(round_: int, site: dict, resources: dict):
    g = P.build(
        3,
        phase="activation",
        at="fairground",
        round=round_,
        road=FIXED_TILES["road"],
        site_buildings={**FIXED_TILES["site_buildings"], **site},
        players={0: {"hand": 1, "characters": ["architect"], "resources": resources},
                 1: {"hand": 0, "characters": ["thief"]}, 2: {"hand": 0}},
        workers={"fairground": 0},
    )  # fmt: skip
    P.play(g, "option:1")
    assert g.decision().kind == "favor"
    return g


def test_architect_plus_1_with_a_favors_site_carpenter():
    """D29: a Favor on a site Carpenter (S1, round 1) counts."""
    g = _favor(1, {"S1": "starting_carpenter"}, {"wood": 2, "food": 1})
    P.play(g, "use_site:S1", "construct:wooden_farm")
    assert pl(g, 0)["pp"] == pp_of("wooden_farm") + ARCHITECT_BONUS


def test_architect_plus_1_with_a_favors_site_stonemason_and_its_discount():
    """D29, D22: a Favor on the site Stonemason (S2, round 4, Setup side: the 1 stone of the
    cost is waived) counts."""
    g = _favor(4, {"S2": "stonemason"}, {"wood": 1, "food": 1})
    P.play(g, "use_site:S2", "construct:gold_mine")
    assert pl(g, 0)["pp"] == pp_of("gold_mine") + ARCHITECT_BONUS
    assert res(g, 0) == {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 0}


def test_architect_plus_1_on_a_monument():
    """D29: a monument built in Stewardship counts."""
    g = P.build(
        2,
        phase="stewardship",
        players={0: {"characters": ["architect"], "residences": ["R2"],
                     "resources": {"gold": 1, "stone": 2}}},
    )  # fmt: skip
    P.play(g, "monument:statue")
    assert pl(g, 0)["pp"] == pp_of("statue") + ARCHITECT_BONUS == 8


def test_architect_gains_nothing_for_a_lawyer_residence():
    """D29: a Lawyer residence is no construction: no PP when marked nor when it turns."""
    g = P.build(
        2,
        phase="activation",
        at="lawyer",
        players={0: {"hand": 1, "characters": ["architect"], "resources": {"cloth": 1}},
                 1: {"hand": 0}},
        workers={"lawyer": 0},
    )  # fmt: skip
    P.play(g, "mark:R3")
    d = g.state_dict()
    assert d["spaces"]["R3"]["side"] == "residence" and d["spaces"]["R3"]["owner"] == 0
    assert d["players"][0]["pp"] == 0


# -- Delivery powers ------------------------------------------------------------------------------
def test_chamberlain_delivers_any_3_resources_still_5_pp():
    """rules 5.6 #8, D30: any kinds, repeats allowed, no food needed; still 5 PP."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        players={0: {"characters": ["chamberlain"], "resources": {"wood": 3, "gold": 3}},
                 1: {"resources": {"wood": 3, "gold": 3}}},
    )  # fmt: skip
    names = P.legal_names(g)
    assert {"bundle:wood+wood+wood", "bundle:gold+gold+gold", "bundle:wood+wood+gold"} <= set(names)
    P.play(g, "bundle:wood+wood+wood")
    assert pl(g, 0)["pp"] == BUNDLE_PRESTIGE and res(g, 0)["wood"] == 0
    P.play(g, "bundle:gold+gold+gold")
    assert pl(g, 0)["pp"] == 2 * BUNDLE_PRESTIGE


def test_chamberlain_is_needed_for_an_irregular_bundle():
    """rules 4.3: without the Chamberlain no such bundle is legal (only stop, applied)."""
    g = P.build(2, phase="delivery", site=[1], players={1: {"resources": {"wood": 3, "gold": 3}}})
    assert pl(g, 1)["pp"] == 0 and res(g, 1)["wood"] == 3


def test_goldsmith_plus_5_once_on_the_first_bundle_with_gold():
    """rules 5.6 #9, D30: +5 PP on the first delivered bundle with gold, once per round; a
    bundle without gold before it gets nothing."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        players={0: {"characters": ["goldsmith"],
                     "resources": {"food": 3, "wood": 3, "stone": 1, "gold": 2}}},
    )  # fmt: skip
    P.play(g, "bundle:food+wood+stone")
    assert pl(g, 0)["pp"] == 5
    P.play(g, "bundle:food+wood+gold")
    assert pl(g, 0)["pp"] == 5 + BUNDLE_PRESTIGE + GOLDSMITH_BONUS
    assert g.state_dict()["characters_used"] == ["goldsmith"]
    P.play(g, "bundle:food+wood+gold")
    assert pl(g, 0)["pp"] == 5 + 10 + 5


def test_goldsmith_stacks_with_foreman_and_chamberlain():
    """D30: one bundle can give 5 + 1 + 5; the Foreman's +1 is on every bundle."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        players={0: {"characters": ["goldsmith", "foreman", "chamberlain"],
                     "resources": {"gold": 6}}},
    )  # fmt: skip
    P.play(g, "bundle:gold+gold+gold")
    assert pl(g, 0)["pp"] == BUNDLE_PRESTIGE + FOREMAN_BONUS + GOLDSMITH_BONUS == 11
    P.play(g, "bundle:gold+gold+gold")
    assert pl(g, 0)["pp"] == 11 + 6


def test_deliveryman_delivers_without_a_site_worker_after_all_slots():
    """rules 5.6 #10, D9: without a site worker he delivers after every site worker."""
    bundles = {"food": 2, "wood": 2, "stone": 2}
    g = P.build(
        3,
        phase="delivery",
        site=[2, 0],
        players={0: {"resources": bundles},
                 1: {"characters": ["deliveryman"], "resources": bundles},
                 2: {"resources": bundles}},
    )  # fmt: skip
    order = []
    while g.decision() is not None and g.decision().kind == "deliver":
        order.append((g.decision().player, g.decision().args["deliveryman_turn"]))
        P.play(g, "decline")
    assert order == [(2, 0), (0, 0), (1, 1)]


def test_deliveryman_with_a_site_worker_delivers_again_after_all_and_totals_count():
    """rules 5.6 #10, D9: in his slot and again after all; all his bundles count for the
    Favor (3 beat the slot-1 player's 2)."""
    bundles = {"food": 3, "wood": 3, "stone": 3}
    g = P.build(
        3,
        phase="delivery",
        round=4,
        site=[0, 1],
        players={
            0: {"resources": bundles},
            1: {"characters": ["deliveryman"], "resources": bundles},
        },
    )
    P.play(g, "bundle:food+wood+stone", "bundle:food+wood+stone", "decline")  # seat 0
    assert (g.decision().player, g.decision().args) == (1, {"deliveryman_turn": 0})
    P.play(g, "bundle:food+wood+stone", "decline")
    assert (g.decision().player, g.decision().args) == (1, {"deliveryman_turn": 1})
    P.play(g, "bundle:food+wood+stone", "bundle:food+wood+stone")  # then none is left
    assert pl(g, 1)["pp"] == 15 and pl(g, 0)["pp"] == 10
    assert (g.decision().kind, g.decision().player) == ("favor", 1)


def test_foreman_plus_1_per_bundle():
    """rules 5.6 #11, D30: +1 PP per bundle he delivers."""
    g = P.build(
        2,
        phase="delivery",
        site=[0],
        players={0: {"characters": ["foreman"], "resources": {"food": 2, "wood": 2, "cloth": 2}}},
    )
    P.play(g, "bundle:food+wood+cloth", "bundle:food+wood+cloth")
    assert pl(g, 0)["pp"] == 2 * (BUNDLE_PRESTIGE + FOREMAN_BONUS) == 12


# -- Stewardship power ----------------------------------------------------------------------------
def test_day_laborer_plus_1_worker_at_income():
    """rules 5.6 #12, D31: +1 worker at Stewardship step c, within the 15 (D15)."""
    g = P.build(
        3,
        phase="stewardship",
        players={0: {"hand": 2, "characters": ["day_laborer"]}, 1: {"hand": 2}, 2: {"hand": 12}},
    )
    base = BASE_INCOME[3]
    assert pl(g, 0)["hand"] == 2 + base + DAY_LABORER_INCOME == 6
    assert pl(g, 1)["hand"] == 2 + base
    g = P.build(3, phase="stewardship", players={0: {"hand": 12, "characters": ["day_laborer"]}})
    assert (pl(g, 0)["hand"], pl(g, 0)["camp"]) == (15, 0)
