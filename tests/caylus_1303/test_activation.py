"""Scenario tests of Caylus 1303's Activation (rules 4.2) and of every building's effect
(rules 5.1-5.4): the printed spaces, the Setup side of every starting building, and both sides
of every wood and stone building.

Each test is named after the rule it checks (the decision's number when it checks one), builds
its position with ``caylus_env.caylus_1303.positions`` at the building being activated, plays
by action name, and asserts the resources, workers and PP that ``docs/rules/caylus_1303.md``
gives.
"""

from __future__ import annotations

import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.core.errors import IllegalActionError

ALL_PROVOST = ["provost:-3", "provost:-2", "provost:-1", "provost:+1", "provost:+2", "provost:+3"]
TAKE_ANY = ["take:food", "take:wood", "take:stone", "take:cloth"]
#: Fixed pre-built tiles, so that the supplies are known: wood supply = every wood building
#: but the Wooden market and the Spinning mill; stone supply = every stone building but the
#: Church and the Jeweler.
FIXED = {"road": {"R9": "wooden_market", "R14": "church"},
         "site_buildings": {"S2": "spinning_mill", "S3": "jeweler"}}  # fmt: skip
WOOD_SUPPLY = ["covered_market", "manor", "tailor", "stonemason", "wooden_farm",
               "wooden_quarry", "wooden_sawmill"]  # fmt: skip
STONE_SUPPLY = ["gold_mine", "foundry", "alchemist", "stone_guild", "stone_farm",
                "stone_quarry", "stone_sawmill"]  # fmt: skip


def _player(g, p: int) -> dict:
    return g.state_dict()["players"][p]


def _res(g, p: int) -> dict:
    return g.state_dict()["players"][p]["resources"]


def _ask(g) -> tuple[str, int, dict]:
    d = g.decision()
    return d.kind, d.player, d.args


def _delivery_stop() -> dict:
    """A player on the Construction Site able to deliver, so that the game stops in Delivery
    (rules 4.3) right after Activation and the test can read the state there."""
    return {"resources": {"food": 1, "wood": 1, "cloth": 1}}


def _at(
    tile: str,
    side: str,
    *,
    resources: dict,
    hand: int = 6,
    worker: int = 0,
    others: dict | None = None,
    **kw,
):
    """Seat ``worker``'s worker on ``tile`` showing ``side`` (``setup``: the neutral pre-built
    R9 for wood, R14 for stone, R1 for a starting tile; ``construction``: built by seat 0 on
    R10), at that building's activation (rules 4.2 step 4) in a 3-player game whose seat 2
    waits on the Construction Site, so that the game stops in Delivery after the effect."""
    players = {0: {}, 1: {}, 2: _delivery_stop()}
    players[worker] = {"resources": resources, "hand": hand}
    for p, entry in (others or {}).items():
        players[p] = {**players[p], **entry}
    road = dict(kw.pop("road", {}))
    if side == "construction":
        players[0]["buildings"] = [tile]
        space = "R10"
    elif tile in P.STARTING_NAMES:
        space = "R1"
    elif tile in P.WOOD_NAMES:
        space = "R9"
    else:
        space = "R14"
    if side == "setup":
        road[space] = tile
    k = int(space[1:])
    g = P.build(3, phase="activation", at=space, provost=k, road=road, players=players,
                workers={space: worker}, site=[2], **kw)  # fmt: skip
    assert _ask(g)[:2] == ("effect", worker) and _ask(g)[2] == {"space": space}
    return g, space


# -- the order of Activation (rules 4.2, D34) -------------------------------------------------------
def test_activation_order_printed_then_bridge_then_bailiff_then_road():
    """rules 4.2, D34: a Fairground, b Lawyer, c Carpenter, d Toll, then the Guilds Bridge in
    bridge order, then the Bailiff, then R1..Rp in increasing order."""
    g = P.build(
        3,
        phase="activation",
        first_player=1,
        bridge=[1, 2, 0],
        provost=8,
        road={"R1": "farm", "R4": "quarry"},
        players={0: {"resources": {"wood": 1}}, 1: {"resources": {"cloth": 1}},
                 2: {"characters": ["bailiff"], "resources": {"wood": 2, "food": 1}}},
        workers={"toll": 0, "fairground": 0, "carpenter": 2, "lawyer": 1, "R4": 2, "R1": 1},
    )  # fmt: skip
    seen = []
    while g.phase == "activation":
        kind, p, args = _ask(g)
        seen.append((kind, p, args.get("space")))
        P.play(g, "decline")
    assert seen == [
        ("effect", 0, "fairground"),
        ("effect", 1, "lawyer"),
        ("effect", 2, "carpenter"),
        ("effect", 0, "toll"),
        ("bridge", 1, None),
        ("bridge", 2, None),
        ("bridge", 0, None),
        ("bailiff", 2, None),
        ("effect", 1, "R1"),
        ("effect", 2, "R4"),
    ]


def test_workers_go_to_the_camp_after_their_building():
    """rules 4.2 steps 1 and 4, D18: a worker goes to the Camp once its building is
    resolved, whether its effect was used or declined."""
    g = P.build(3, phase="activation", at="R1", provost=8, road={"R1": "farm", "R2": "farm"},
                players={1: {"hand": 4}, 2: _delivery_stop()}, workers={"R1": 1, "R2": 0},
                site=[2])  # fmt: skip
    assert (_player(g, 1)["hand"], _player(g, 1)["camp"]) == (3, 11)  # 1 on R1
    P.play(g, "decline")
    d = g.state_dict()
    assert d["spaces"]["R1"]["workers"] == [] and d["players"][1]["camp"] == 12
    assert d["players"][1]["hand"] == 3 and d["players"][1]["resources"]["food"] == 1
    assert _ask(g) == ("effect", 0, {"space": "R2"})
    P.play(g, "option:1")
    assert g.phase == "delivery"
    assert _player(g, 0)["camp"] == 9 + 1 and _res(g, 0)["food"] == 2


def test_d19_past_the_provost_no_effect_no_owner_bonus_but_placement_pp_kept():
    """rules 4.2 step 5, D19: a worker past the Provost goes to the Camp with no effect and
    no owner bonus; the owner keeps his placement PP."""
    g = P.build(
        3,
        phase="activation",
        at="R10",
        provost=9,
        players={0: {"buildings": ["stone_farm"], "pp": 1}, 1: {"hand": 5},
                 2: _delivery_stop()},
        workers={"R10": 1},
        site=[2],
    )  # fmt: skip
    assert g.phase == "delivery" and _ask(g)[:2] == ("deliver", 2)
    d = g.state_dict()
    assert d["spaces"]["R10"]["workers"] == []
    assert d["players"][1]["camp"] == 15 - 4 and d["players"][1]["resources"]["food"] == 1
    assert d["players"][1]["resources"]["cloth"] == 0
    assert d["players"][0]["pp"] == 1 and d["players"][0]["resources"]["food"] == 1


# -- the Guilds Bridge (rules 4.2 step 2, D20) ----------------------------------------------------------
def test_d20_bridge_in_bridge_order_one_decision_each():
    """rules 4.2 step 2, D20: each player, in bridge order, takes exactly one decision; a
    player without workers is not asked (his only choice is to decline)."""
    g = P.build(4, phase="activation", first_player=2, bridge=[2, 0, 3, 1],
                players={3: {"hand": 0}})  # fmt: skip
    seen = []
    while g.phase == "activation":
        seen.append(_ask(g)[:2])
        P.play(g, "decline")
    assert seen == [("bridge", 2), ("bridge", 0), ("bridge", 1)]


def test_d20_bridge_moves_1_to_3_steps_for_1_worker_each():
    """rules 4.2 step 2, D20: 1-3 steps either way at 1 worker per step, or decline."""
    g = P.build(3, phase="activation", provost=8, first_player=0, bridge=[0, 1, 2])
    assert _ask(g)[:2] == ("bridge", 0)
    assert P.legal_names(g) == ["decline", *ALL_PROVOST]
    P.play(g, "provost:+3")
    d = g.state_dict()
    assert d["provost"] == 11
    assert (d["players"][0]["hand"], d["players"][0]["camp"]) == (6 - 3, 9 + 3)
    P.play(g, "provost:-2")
    assert g.state_dict()["provost"] == 9 and _player(g, 1)["hand"] == 4


def test_d20_bridge_steps_limited_by_the_hand():
    """D20: a player with 2 workers may move at most 2 steps."""
    g = P.build(3, phase="activation", provost=8, first_player=0, bridge=[0, 1, 2],
                players={0: {"hand": 2}})  # fmt: skip
    assert P.legal_names(g) == ["decline", "provost:-2", "provost:-1", "provost:+1",
                                "provost:+2"]  # fmt: skip


@pytest.mark.parametrize(
    ("provost", "legal"),
    [(1, ["decline", "provost:-1", "provost:+1", "provost:+2", "provost:+3"]),
     (22, ["decline", "provost:-3", "provost:-2", "provost:-1", "provost:+1"])],
    ids=["near_the_bridge", "near_the_end"],
)  # fmt: skip
def test_d20_bridge_out_of_bounds_moves_are_illegal_not_cut_short(provost, legal):
    """rules 4.2, D20: a move whose end point leaves 0..23 is illegal (not cut short)."""
    g = P.build(3, phase="activation", provost=provost, first_player=0, bridge=[0, 1, 2])
    assert P.legal_names(g) == legal
    bad = "provost:-2" if provost == 1 else "provost:+2"
    with pytest.raises(IllegalActionError):
        P.play(g, bad)
    assert g.state_dict()["provost"] == provost and _player(g, 0)["hand"] == 6


# -- the Toll and the Bailiff (rules 5.1, D20, D28) ------------------------------------------------------
def test_d20_toll_moves_the_provost_0_to_2_steps_free():
    """rules 5.1 d, D20: the Toll moves the Provost 0 (decline), 1 or 2 steps either way,
    free."""
    g = P.build(3, phase="activation", at="toll", provost=8, players={0: {"hand": 5}},
                workers={"toll": 0})  # fmt: skip
    assert P.legal_names(g) == ["decline", "provost:-2", "provost:-1", "provost:+1",
                                "provost:+2"]  # fmt: skip
    P.play(g, "provost:+2")
    d = g.state_dict()
    assert d["provost"] == 10 and d["players"][0]["hand"] == 4
    assert d["players"][0]["camp"] == 10 + 1


def test_d20_toll_near_the_bridge():
    """D20: at p = 1 the Toll cannot move 2 steps back."""
    g = P.build(3, phase="activation", at="toll", provost=1, workers={"toll": 0})
    assert P.legal_names(g) == ["decline", "provost:-1", "provost:+1", "provost:+2"]


def test_d28_bailiff_moves_1_step_free_after_the_bridge():
    """rules 5.6 #6, D28: after the last bridge decision the Bailiff may move the Provost 1
    step either way, free; R9 then activates."""
    g = P.build(
        3,
        phase="activation",
        provost=8,
        first_player=0,
        bridge=[0, 1, 2],
        road={"R9": "wooden_farm"},
        players={1: {"characters": ["bailiff"], "hand": 4}, 2: {"hand": 5}},
        workers={"R9": 2},
    )
    for p in (0, 1, 2):
        assert _ask(g)[:2] == ("bridge", p)
        P.play(g, "decline")
    assert _ask(g)[:2] == ("bailiff", 1)
    assert P.legal_names(g) == ["decline", "provost:-1", "provost:+1"]
    P.play(g, "provost:+1")
    assert g.state_dict()["provost"] == 9 and _player(g, 1)["hand"] == 4
    assert _ask(g) == ("effect", 2, {"space": "R9"})


def test_d28_bailiff_within_bounds_after_the_bridge_moved_the_provost():
    """D28, D20: the Bailiff acts on the Provost as the bridge left it; at p = 0 only a step
    forward is legal."""
    g = P.build(3, phase="activation", provost=1, first_player=0, bridge=[0, 1, 2],
                players={1: {"hand": 0}, 2: {"hand": 0, "characters": ["bailiff"]}})  # fmt: skip
    P.play(g, "provost:-1")
    assert _ask(g)[:2] == ("bailiff", 2)
    assert P.legal_names(g) == ["decline", "provost:+1"]


# -- the printed spaces (rules 5.1) ---------------------------------------------------------------------
def test_fairground_pays_1_wood_for_a_favor():
    """rules 5.1 a, rules 4.5: the Fairground takes 1 wood and gives 1 Favor at once."""
    g = P.build(3, phase="activation", at="fairground", workers={"fairground": 0},
                players={0: {"resources": {"wood": 1}}, 1: {"characters": ["thief"]}})  # fmt: skip
    assert P.legal_names(g) == ["decline", "option:1"]
    P.play(g, "option:1")
    assert _res(g, 0)["wood"] == 0
    assert _ask(g) == ("favor", 0, {})
    assert P.legal_names(g) == ["steal:thief", "use_site:S1"]


def test_d18_fairground_without_wood_does_nothing():
    """rules 5.1 a, D18: without wood the Fairground's effect cannot be used (decline, the
    only choice, is not asked); the worker goes to the Camp."""
    g = P.build(3, phase="activation", at="fairground", workers={"fairground": 0},
                players={0: {"resources": {"food": 1}}})  # fmt: skip
    assert _ask(g)[0] == "bridge"  # the Fairground is done
    assert _res(g, 0)["food"] == 1 and _player(g, 0)["camp"] == 9 + 1
    assert g.state_dict()["characters_used"] == []


def test_d21_lawyer_targets_and_mark():
    """rules 5.1 b, D1, D21: for 1 cloth and a house, the Lawyer marks a starting building
    on R1-R8 that is neither a residence (R7), a monument (R6) nor marked (R4), with or
    without a worker (R2), before or after the Provost (R5, R8 past p = 3); the marked
    building keeps working this round."""
    g = P.build(
        3,
        phase="activation",
        at="lawyer",
        provost=3,
        road={"R2": "farm"},
        players={0: {"resources": {"cloth": 1}},
                 2: {"residences": ["R6", "R7"], "monuments": ["statue"]}},
        marks={"R4": 1},
        workers={"lawyer": 0, "R2": 1},
    )  # fmt: skip
    assert P.legal_names(g) == ["decline", "mark:R1", "mark:R2", "mark:R3", "mark:R5", "mark:R8"]
    P.play(g, "mark:R2")
    d = g.state_dict()
    assert d["spaces"]["R2"]["mark"] == 0 and d["spaces"]["R2"]["side"] == "setup"
    assert d["players"][0]["resources"]["cloth"] == 0 and d["players"][0]["houses"] == 8
    for p in d["bridge"]:
        assert _ask(g)[:2] == ("bridge", p)
        P.play(g, "decline")
    assert _ask(g) == ("effect", 1, {"space": "R2"})
    P.play(g, "option:1")
    assert _res(g, 1)["food"] == 2


@pytest.mark.parametrize("lack", ["cloth", "house"], ids=["without_cloth", "without_a_house"])
def test_d1_lawyer_needs_1_cloth_and_a_house(lack):
    """rules 5.1 b, D1, D14: without cloth or without a house in reserve the Lawyer cannot
    mark (its only choice, decline, is not asked)."""
    me = {"resources": {"cloth": 0 if lack == "cloth" else 1}}
    if lack == "house":
        me["buildings"] = WOOD_SUPPLY[:5] + STONE_SUPPLY[:4]
    g = P.build(3, phase="activation", at="lawyer", players={0: me}, workers={"lawyer": 0},
                **FIXED)  # fmt: skip
    assert _ask(g)[0] == "bridge"  # the Lawyer is done
    d = g.state_dict()
    assert all(d["spaces"][f"R{k}"]["mark"] is None for k in range(1, 9))
    assert d["players"][0]["houses"] == (9 if lack == "cloth" else 0)


# -- constructing (rules 4.2, D22) ----------------------------------------------------------------------
def test_d22_carpenter_constructs_on_the_lowest_empty_road_space():
    """rules 5.1 c, rules 4.2, D22: the Carpenter offers every wood building of the supply he
    can pay; the tile goes Construction side up on the lowest empty Road space with his
    house, and he gains its PP."""
    g = P.build(3, phase="activation", at="carpenter", workers={"carpenter": 0},
                players={0: {"resources": {"wood": 1, "cloth": 1}},
                         1: {"buildings": ["gold_mine"]}}, **FIXED)  # fmt: skip
    assert P.legal_names(g) == ["decline", "construct:covered_market", "construct:manor",
                                "construct:tailor", "construct:stonemason"]  # fmt: skip
    P.play(g, "construct:manor")
    d = g.state_dict()
    assert d["spaces"]["R11"] == {"tile": "manor", "side": "construction", "owner": 0,
                                  "mark": None, "workers": []}  # fmt: skip
    assert d["players"][0]["pp"] == 4 and d["players"][0]["houses"] == 8
    assert d["players"][0]["resources"]["wood"] == d["players"][0]["resources"]["cloth"] == 0
    assert "manor" not in d["wood_supply"] and len(d["wood_supply"]) == 6


def test_d22_d12_construction_cost_any_is_chosen_by_the_payer():
    """rules 5.3, D12, D22: the Covered market costs 1 wood + 1 any: the "any" is asked next
    among food, wood, stone and cloth he holds (never gold)."""
    g = P.build(3, phase="activation", at="carpenter", workers={"carpenter": 0},
                players={0: {"resources": {"wood": 1, "food": 1, "stone": 1, "gold": 2}}},
                **FIXED)  # fmt: skip
    P.play(g, "construct:covered_market")
    assert _ask(g) == ("pay", 0, {"owed": 1})
    assert P.legal_names(g) == ["pay:food", "pay:stone"]
    P.play(g, "pay:stone")
    assert _res(g, 0) == {"food": 1, "wood": 0, "stone": 0, "cloth": 0, "gold": 2}
    assert _player(g, 0)["pp"] == 3
    assert g.state_dict()["spaces"]["R10"]["tile"] == "covered_market"


def _carpenter_without(lack: str):
    me: dict = {"resources": {"wood": 2, "food": 2, "cloth": 2}}
    others: dict = {1: {}}
    if lack == "tile":
        others[1]["buildings"] = list(WOOD_SUPPLY)
    elif lack == "space":  # 6 wood and 7 stone buildings fill the 13 empty Road spaces
        others[1]["buildings"] = WOOD_SUPPLY[:6] + STONE_SUPPLY[:3]
        me["buildings"] = STONE_SUPPLY[3:]
    elif lack == "house":
        me["buildings"] = WOOD_SUPPLY[:5] + STONE_SUPPLY[:4]
    else:
        me["resources"] = {"stone": 3, "gold": 3}
    return P.build(3, phase="activation", at="carpenter", workers={"carpenter": 0},
                   players={0: me, **others}, **FIXED)  # fmt: skip


@pytest.mark.parametrize(
    "lack", ["tile", "space", "house", "resources"],
    ids=["no_tile_in_supply", "no_empty_road_space", "no_house", "no_resources"],
)  # fmt: skip
def test_d22_construction_impossible_without_tile_space_house_or_resources(lack):
    """rules 4.2, D22: constructing is not allowed when the supply has no tile, the Road has
    no empty space, the player has no house or cannot pay: the Carpenter's only choice is
    then to decline (not asked)."""
    g = _carpenter_without(lack)
    before = g.state_dict()
    assert _ask(g)[0] == "bridge"  # the Carpenter is done
    assert before["players"][0]["pp"] == 0
    assert before["spaces"]["carpenter"]["workers"] == []
    assert (
        before["players"][0]["houses"] == {"tile": 9, "space": 5, "house": 0, "resources": 9}[lack]
    )
    assert len(before["wood_supply"]) == {"tile": 0, "space": 1, "house": 2, "resources": 7}[lack]
    if lack == "space":
        assert all(before["spaces"][f"R{k}"]["tile"] for k in range(1, 24))
        assert before["wood_supply"] == ["wooden_sawmill"]


def test_d22_starting_carpenter_constructs_like_the_printed_one():
    """rules 5.2, D22: the starting Carpenter's Setup side constructs 1 wood building."""
    g, _ = _at("starting_carpenter", "setup", resources={"wood": 2}, **FIXED)
    assert P.legal_names(g) == ["decline", "construct:covered_market", "construct:tailor",
                                "construct:stonemason"]  # fmt: skip
    P.play(g, "construct:tailor")  # 1 wood + 1 any: the any can only be wood (not asked)
    d = g.state_dict()
    assert d["spaces"]["R10"]["tile"] == "tailor" and d["spaces"]["R10"]["owner"] == 0
    assert d["players"][0]["resources"]["wood"] == 0 and d["players"][0]["pp"] == 4


# -- the Setup side of the starting buildings, both sides of the wood and stone buildings ------------
#: (tile, side, resources, hand before placing, actions, legal names at the effect, change of
#: the user's resources / PP / hand) from rules 5.2-5.4 (D11, D33).
EFFECTS = [
    # 5.2 starting buildings, Setup side
    ("farm", "setup", {}, 6, ["option:1"], ["decline", "option:1"], {"food": 1}),
    ("quarry", "setup", {}, 6, ["option:1"], ["decline", "option:1"], {"stone": 1}),
    ("sawmill", "setup", {}, 6, ["option:1"], ["decline", "option:1"], {"wood": 1}),
    ("market", "setup", {}, 6, ["take:cloth"], ["decline", *TAKE_ANY], {"cloth": 1, "hand": -1}),
    ("guild_3", "setup", {"food": 1, "wood": 1}, 6, ["option:1", "pay:wood"],
     ["decline", "option:1"], {"wood": -1, "hand": 3}),
    ("guild_4", "setup", {"stone": 1}, 6, ["option:1"], ["decline", "option:1"],
     {"stone": -1, "hand": 4}),
    # 5.3 wood buildings
    ("covered_market", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"hand": 3}),
    ("covered_market", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"hand": 2, "pp": 1}),
    ("manor", "setup", {}, 6, ["option:1"], ["decline", "option:1"], {"pp": 2}),
    ("tailor", "construction", {"cloth": 2}, 6, ["option:1"], ["decline", "option:1", "option:2"],
     {"cloth": -1, "pp": 4}),
    ("tailor", "construction", {"cloth": 2}, 6, ["option:2"], ["decline", "option:1", "option:2"],
     {"cloth": -2, "pp": 6}),
    ("tailor", "setup", {"cloth": 2}, 6, ["option:1"], ["decline", "option:1", "option:2"],
     {"cloth": -1, "pp": 4}),
    ("tailor", "setup", {"cloth": 1}, 6, ["option:1"], ["decline", "option:1"],
     {"cloth": -1, "pp": 4}),
    ("wooden_market", "construction", {}, 6, ["take:stone"], ["decline", *TAKE_ANY],
     {"stone": 1}),
    ("wooden_market", "setup", {}, 6, ["take:food"], ["decline", *TAKE_ANY], {"food": 1}),
    ("wooden_farm", "construction", {}, 6, ["option:1"], ["decline", "option:1"], {"food": 2}),
    ("wooden_farm", "setup", {}, 6, ["option:1"], ["decline", "option:1"], {"food": 1, "pp": 1}),
    ("wooden_quarry", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"stone": 2}),
    ("wooden_quarry", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"stone": 1, "pp": 1}),
    ("wooden_sawmill", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"wood": 2}),
    ("wooden_sawmill", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"wood": 1, "pp": 1}),
    ("spinning_mill", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"cloth": 2}),
    ("spinning_mill", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"cloth": 1, "pp": 1}),
    # 5.4 stone buildings (the first six work the same on both sides, D33)
    *[
        row
        for side in ("construction", "setup")
        for row in (
            ("gold_mine", side, {}, 6, ["option:1"], ["decline", "option:1"], {"gold": 1}),
            ("foundry", side, {}, 6, ["option:1"], ["decline", "option:1", "option:2"],
             {"hand": -1, "gold": 1}),
            ("foundry", side, {}, 6, ["option:2"], ["decline", "option:1", "option:2"],
             {"hand": -3, "gold": 2}),
            ("alchemist", side, {"food": 1, "wood": 1}, 6, ["option:1", "pay:food"],
             ["decline", "option:1", "option:2"], {"food": -1, "gold": 1}),
            ("alchemist", side, {"food": 1, "wood": 1}, 6, ["option:2", "pay:wood"],
             ["decline", "option:1", "option:2"], {"food": -1, "wood": -1, "gold": 2}),
            ("stone_guild", side, {"cloth": 1, "stone": 1}, 6, ["option:1", "pay:cloth"],
             ["decline", "option:1"], {"cloth": -1, "hand": 5}),
            ("church", side, {}, 6, ["option:1"], ["decline", "option:1", "option:2"],
             {"hand": -2, "pp": 4}),
            ("church", side, {}, 6, ["option:2"], ["decline", "option:1", "option:2"],
             {"hand": -4, "pp": 6}),
            ("jeweler", side, {"gold": 2}, 6, ["option:1"], ["decline", "option:1", "option:2"],
             {"gold": -1, "pp": 5}),
            ("jeweler", side, {"gold": 2}, 6, ["option:2"], ["decline", "option:1", "option:2"],
             {"gold": -2, "pp": 9}),
        )
    ],
    ("stone_farm", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"food": 2, "cloth": 1}),
    ("stone_farm", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"food": 1, "cloth": 1}),
    ("stone_quarry", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"stone": 2, "cloth": 1}),
    ("stone_quarry", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"stone": 1, "cloth": 1}),
    ("stone_sawmill", "construction", {}, 6, ["option:1"], ["decline", "option:1"],
     {"wood": 2, "cloth": 1}),
    ("stone_sawmill", "setup", {}, 6, ["option:1"], ["decline", "option:1"],
     {"wood": 1, "cloth": 1}),
]  # fmt: skip


def _effect_id(row) -> str:
    tile, side, _, _, actions, _, _ = row
    return f"{tile}-{side}-{'+'.join(a.replace(':', '_') for a in actions)}"


def _snapshot(g, p: int) -> dict:
    pd = g.state_dict()["players"][p]
    return {**pd["resources"], "pp": pd["pp"], "hand": pd["hand"]}


@pytest.mark.parametrize("row", EFFECTS, ids=[_effect_id(r) for r in EFFECTS])
def test_building_effect_by_side(row):
    """rules 5.2 (starting buildings, Setup side), rules 5.3 (wood buildings, both sides),
    rules 5.4 (stone buildings, both sides), D11, D33: the legal options at the worker's
    effect and exactly what using one gives and costs ("any" never gold, D12)."""
    tile, side, resources, hand, actions, legal, change = row
    g, space = _at(tile, side, resources=resources, hand=hand)
    assert P.legal_names(g) == legal
    before = _snapshot(g, 0)
    P.play(g, *actions)
    assert g.phase == "delivery"  # the effect is done; nothing else was asked
    after = _snapshot(g, 0)
    assert {k: after[k] - before[k] for k in after if after[k] != before[k]} == change
    assert g.state_dict()["spaces"][space]["workers"] == []


@pytest.mark.parametrize("side", ["construction", "setup"])
def test_d18_every_building_effect_may_be_declined(side):
    """D18: every effect is optional; declining changes nothing but sends the worker to the
    Camp."""
    for tile in (*P.WOOD_NAMES, *P.STONE_NAMES):
        if tile == "stonemason" and side == "setup":
            continue  # never on R9 (D38); its Setup side is used through a Favor
        g, space = _at(
            tile, side, resources={"cloth": 2, "gold": 2, "wood": 2, "food": 1, "stone": 2}
        )
        before = _snapshot(g, 0)
        P.play(g, "decline")
        assert _snapshot(g, 0) == before, tile
        assert g.state_dict()["spaces"][space]["workers"] == [], tile


def test_manor_construction_side_gives_a_favor():
    """rules 5.3, rules 4.5, D11: the Manor's Construction side gives 1 Favor when
    activated (not when built: its owner got only its 4 PP)."""
    g, _ = _at("manor", "construction", resources={}, others={1: {"characters": ["thief"]}})
    assert _player(g, 0)["pp"] == 0  # the builder places it without its PP
    assert P.legal_names(g) == ["decline", "option:1"]
    P.play(g, "option:1")
    assert _ask(g) == ("favor", 0, {})
    assert P.legal_names(g) == ["steal:thief", "use_site:S1"]
    P.play(g, "steal:thief")
    d = g.state_dict()
    assert d["characters"]["thief"] == 0 and d["players"][0]["pp"] == 0
    assert g.phase == "delivery"


def test_d22_stonemason_construction_side_pays_the_full_cost():
    """rules 5.3, D22: the Stonemason's Construction side constructs a stone building of
    the supply, paying its full cost (the Gold mine: 1 stone + 1 food, 4 PP) on the lowest
    empty Road space."""
    g, _ = _at("stonemason", "construction", resources={"stone": 1, "food": 1}, **FIXED)
    assert P.legal_names(g) == ["decline", "construct:gold_mine", "construct:stone_guild",
                                "construct:stone_farm", "construct:stone_quarry",
                                "construct:stone_sawmill"]  # fmt: skip
    P.play(g, "construct:gold_mine")
    d = g.state_dict()
    assert (d["spaces"]["R11"]["tile"], d["spaces"]["R11"]["side"]) == ("gold_mine", "construction")
    assert d["spaces"]["R11"]["owner"] == 0 and d["players"][0]["houses"] == 9 - 2
    assert d["players"][0]["resources"]["stone"] == d["players"][0]["resources"]["food"] == 0
    assert d["players"][0]["pp"] == 4 and "gold_mine" not in d["stone_supply"]


def test_d22_stonemason_construction_side_without_stone_cannot_construct():
    """rules 5.3, D22: without its stone the Construction side cannot pay any stone
    building, so its only choice, decline, is not asked."""
    g = P.build(3, phase="activation", at="R10", provost=10, workers={"R10": 0}, site=[2],
                players={0: {"buildings": ["stonemason"], "resources": {"food": 3, "wood": 2}},
                         2: _delivery_stop()}, **FIXED)  # fmt: skip
    assert g.phase == "delivery" and g.state_dict()["spaces"]["R11"]["tile"] is None


def test_d22_stonemason_setup_side_discounts_exactly_one_stone():
    """rules 5.3, D22, rules 4.5: the Stonemason's Setup side (used on S2 through a Favor,
    round 4 allows S1 and S2, D8) constructs a stone building for its cost minus its 1
    stone: the Foundry (1 stone + 1 wood, 5 PP) costs 1 wood, and the stone is kept."""
    fixed = {**FIXED, "site_buildings": {"S2": "stonemason", "S3": "jeweler"},
             "road": {"R9": "spinning_mill", "R14": "church"}}  # fmt: skip
    g = P.build(3, round=4, phase="activation", at="fairground", workers={"fairground": 0},
                players={0: {"resources": {"wood": 2, "food": 1, "stone": 1}}},
                **fixed)  # fmt: skip
    P.play(g, "option:1")  # the Fairground: 1 wood for a Favor
    assert _ask(g) == ("favor", 0, {})
    assert P.legal_names(g) == ["use_site:S1", "use_site:S2"]
    P.play(g, "use_site:S2")
    assert _ask(g) == ("effect", 0, {"space": "S2"})
    assert P.legal_names(g) == ["decline", *[f"construct:{t}" for t in STONE_SUPPLY]]
    P.play(g, "construct:foundry")
    d = g.state_dict()
    assert d["players"][0]["resources"] == {"food": 1, "wood": 0, "stone": 1, "cloth": 0,
                                            "gold": 0}  # fmt: skip
    assert d["players"][0]["pp"] == 5
    assert (d["spaces"]["R10"]["tile"], d["spaces"]["R10"]["owner"]) == ("foundry", 0)
    assert _ask(g)[:2] == ("board_character", 0)


def test_d22_stonemason_setup_side_needs_the_rest_of_the_cost():
    """D22: the discount is only the stone: a Gold mine (1 stone + 1 food) still needs its
    food, so a player with stone but no food cannot construct it through the Setup side."""
    fixed = {**FIXED, "site_buildings": {"S2": "stonemason", "S3": "jeweler"},
             "road": {"R9": "spinning_mill", "R14": "church"}}  # fmt: skip
    g = P.build(3, round=4, phase="activation", at="fairground", workers={"fairground": 0},
                players={0: {"resources": {"wood": 2, "stone": 3}}}, **fixed)  # fmt: skip
    P.play(g, "option:1", "use_site:S2")
    assert P.legal_names(g) == ["decline", "construct:foundry", "construct:alchemist",
                                "construct:stone_guild"]  # fmt: skip


# -- the stone producers' owner bonus (rules 5.4, D19) ----------------------------------------------
PRODUCERS = [("stone_farm", "food"), ("stone_quarry", "stone"), ("stone_sawmill", "wood")]


@pytest.mark.parametrize(("tile", "bonus"), PRODUCERS, ids=[t for t, _ in PRODUCERS])
def test_d19_owner_bonus_with_another_players_worker_even_if_declined(tile, bonus):
    """rules 5.4, D19: when a stone producer's Construction side is activated with another
    player's worker, its owner takes 1 of its resource, whether or not the effect is
    used."""
    g, _ = _at(tile, "construction", resources={}, worker=1)
    assert _ask(g)[:2] == ("effect", 1)
    owner = _res(g, 0)
    assert owner[bonus] == {"food": 1, "wood": 2, "stone": 1}[bonus] + 1
    P.play(g, "decline")
    assert _res(g, 0) == owner and _res(g, 1) == dict.fromkeys(owner, 0)


@pytest.mark.parametrize(("tile", "bonus"), PRODUCERS, ids=[t for t, _ in PRODUCERS])
def test_d19_no_owner_bonus_with_his_own_worker(tile, bonus):
    """rules 5.4, D19: nothing extra when the owner's own worker is on it: he gets just the
    effect (2 of the resource + 1 cloth)."""
    g, _ = _at(tile, "construction", resources={})
    assert _res(g, 0) == dict.fromkeys(("food", "wood", "stone", "cloth", "gold"), 0)
    P.play(g, "option:1")
    assert _res(g, 0) == {**dict.fromkeys(("food", "wood", "stone", "gold"), 0),
                          bonus: 2, "cloth": 1}  # fmt: skip


@pytest.mark.parametrize(("tile", "bonus"), PRODUCERS, ids=[t for t, _ in PRODUCERS])
def test_d19_no_owner_bonus_on_the_setup_side(tile, bonus):
    """rules 5.4, D19: the Setup side (the neutral pre-built R14) pays no bonus to anyone."""
    g, _ = _at(tile, "setup", resources={}, worker=1)
    start = {"food": 1, "wood": 2, "stone": 1, "cloth": 0, "gold": 0}
    assert _res(g, 0) == start and _res(g, 2) == {"food": 1, "wood": 1, "stone": 0,
                                                  "cloth": 1, "gold": 0}  # fmt: skip
    P.play(g, "option:1")
    assert _res(g, 1) == {**dict.fromkeys(("food", "wood", "stone", "gold"), 0),
                          bonus: 1, "cloth": 1}  # fmt: skip
    assert _res(g, 0) == start


# -- the Journeyman's second worker (D26, D34) --------------------------------------------------------
def _two_workers(space: str, **kw):
    return P.build(3, phase="activation", at=space, workers={space: [1, 0]},
                   players={0: {"characters": ["journeyman"], **kw.pop("me", {})},
                            2: _delivery_stop()},
                   characters_used=["journeyman"], site=[2], **kw)  # fmt: skip


def test_d26_journeyman_second_worker_resolves_right_after_the_first():
    """rules 4.2 step 4, D26, D34: on a building with two workers the first placed resolves
    first, then the Journeyman's; both may use the effect."""
    g = _two_workers("R1", provost=8, road={"R1": "farm"})
    assert _ask(g) == ("effect", 1, {"space": "R1"})
    P.play(g, "option:1")
    assert _ask(g) == ("effect", 0, {"space": "R1"})
    P.play(g, "option:1")
    assert _res(g, 1)["food"] == 2 and _res(g, 0)["food"] == 2
    assert g.state_dict()["spaces"]["R1"]["workers"] == []


def test_d26_journeyman_two_toll_moves():
    """D26: two workers on the Toll move the Provost twice."""
    g = _two_workers("toll", provost=8)
    P.play(g, "provost:+2")
    assert _ask(g)[:2] == ("effect", 0)
    P.play(g, "provost:+2")
    assert g.state_dict()["provost"] == 12


def test_d26_journeyman_two_carpenter_constructions():
    """D26, D22: two workers on the Carpenter construct twice, on R10 then R11."""
    g = _two_workers("carpenter", me={"resources": {"wood": 1, "cloth": 1}}, **FIXED)
    P.play(g, "construct:wooden_farm")  # seat 1: 1 wood + 1 food
    P.play(g, "construct:manor")  # seat 0
    d = g.state_dict()
    assert (d["spaces"]["R10"]["tile"], d["spaces"]["R10"]["owner"]) == ("wooden_farm", 1)
    assert (d["spaces"]["R11"]["tile"], d["spaces"]["R11"]["owner"]) == ("manor", 0)
    assert (d["players"][1]["pp"], d["players"][0]["pp"]) == (2, 4)


# -- worker gains and "any" (D15, D12) ------------------------------------------------------------------
def test_d15_worker_gains_beyond_the_camp_are_lost():
    """rules 2.2, D15: a gain takes workers of his colour from the Camp; the rest is lost:
    with 1 in the Camp the Covered market's 3 workers give 1."""
    g, _ = _at("covered_market", "construction", resources={}, hand=14)
    assert (_player(g, 0)["hand"], _player(g, 0)["camp"]) == (13, 1)
    P.play(g, "option:1")
    pd = _player(g, 0)
    assert (pd["hand"], pd["camp"]) == (14, 1)  # +1, then the used worker went to the Camp


def test_d12_any_is_never_gold():
    """D12, rules 5.4: "any" is food, wood, stone or cloth, never gold: with 2 gold and 1
    cloth the Alchemist offers only its 1-any option, paid with the cloth."""
    g, _ = _at("alchemist", "construction", resources={"gold": 2, "cloth": 1})
    assert P.legal_names(g) == ["decline", "option:1"]
    P.play(g, "option:1")  # the cloth is the only "any" he holds: not asked
    assert _res(g, 0) == {"food": 0, "wood": 0, "stone": 0, "cloth": 0, "gold": 3}


def test_d12_gold_alone_cannot_pay_any():
    """D12, rules 5.2: the Guild (3) costs 1 any: a player with only gold cannot use it
    (its only choice, decline, is not asked)."""
    g = P.build(3, phase="activation", at="R1", provost=8, road={"R1": "guild_3"},
                players={0: {"resources": {"gold": 3}}, 2: _delivery_stop()},
                workers={"R1": 0}, site=[2])  # fmt: skip
    assert g.phase == "delivery"
    pd = _player(g, 0)
    assert pd["resources"]["gold"] == 3 and (pd["hand"], pd["camp"]) == (5, 10)


def test_market_needs_a_worker_to_return():
    """rules 5.2: the starting Market returns 1 worker from the hand; with none left it
    cannot be used."""
    g = P.build(3, phase="activation", at="R1", provost=8, road={"R1": "market"},
                players={0: {"hand": 1}, 2: _delivery_stop()}, workers={"R1": 0},
                site=[2])  # fmt: skip
    assert g.phase == "delivery"
    assert _res(g, 0) == {"food": 1, "wood": 2, "stone": 1, "cloth": 0, "gold": 0}
