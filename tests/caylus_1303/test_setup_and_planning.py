"""Scenario tests of Caylus 1303's Setup (rules 3.2, 3.3) and Planning (rules 4.1).

Each test is named after the rule it checks (the decision's number when it checks one) and
plays its actions by their stable names on a seeded game or a position of the builder
(``caylus_env.caylus_1303.positions``); the counts and points asserted are those of
``docs/rules/caylus_1303.md``.
"""

from __future__ import annotations

from collections import Counter

import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.core.errors import IllegalActionError

SEEDS = range(300)
PRINTED_PLACES = ["place:fairground", "place:lawyer", "place:carpenter", "place:toll"]


def _player(g, p: int) -> dict:
    return g.state_dict()["players"][p]


def _ask(g) -> tuple[str, int]:
    d = g.decision()
    return d.kind, d.player


def _seed_with_first_player(n: int, first: int) -> int:
    return next(s for s in range(1000) if P.position(n, s)["first_player"] == first)


# -- Setup (rules 3.2) ---------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2, 17, 123])
def test_setup_starting_tiles_fill_s1_and_r1_to_r8(seed):
    """rules 3.2 step 1: the 9 starting tiles (2 farms, quarry, sawmill, 2 markets, the two
    guilds, the starting carpenter) lie on S1 and R1..R8, Setup side up, neutral."""
    d = P.position(3, seed)
    places = ["S1", *[f"R{k}" for k in range(1, 9)]]
    tiles = Counter(d["spaces"][s]["tile"] for s in places)
    assert tiles == Counter(
        farm=2, quarry=1, sawmill=1, market=2, guild_3=1, guild_4=1, starting_carpenter=1
    )
    for s in places:
        assert d["spaces"][s]["side"] == "setup" and d["spaces"][s]["owner"] is None


def test_d38_setup_wood_on_s2_and_r9_never_the_stonemason_on_r9():
    """rules 3.2 step 2, D38: S2 and R9 hold two different wood buildings, Setup side up;
    over many seeds the Stonemason is never on R9 while it does appear on S2."""
    on_s2 = set()
    for seed in SEEDS:
        d = P.position(2, seed)
        s2, r9 = d["spaces"]["S2"], d["spaces"]["R9"]
        assert s2["tile"] in P.WOOD_NAMES and r9["tile"] in P.WOOD_NAMES
        assert s2["tile"] != r9["tile"]
        assert r9["tile"] != "stonemason"
        assert s2["side"] == r9["side"] == "setup" and r9["owner"] is None
        on_s2.add(s2["tile"])
    assert "stonemason" in on_s2
    assert on_s2 == set(P.WOOD_NAMES)


def test_setup_stone_on_s3_and_r14():
    """rules 3.2 step 3: S3 and R14 hold two different stone buildings, Setup side up."""
    on_r14 = set()
    for seed in SEEDS[:100]:
        d = P.position(2, seed)
        s3, r14 = d["spaces"]["S3"], d["spaces"]["R14"]
        assert s3["tile"] in P.STONE_NAMES and r14["tile"] in P.STONE_NAMES
        assert s3["tile"] != r14["tile"]
        assert s3["side"] == r14["side"] == "setup" and r14["owner"] is None
        on_r14.add(r14["tile"])
    assert on_r14 == set(P.STONE_NAMES)


@pytest.mark.parametrize("seed", [0, 5, 99])
def test_setup_supplies_hold_seven_wood_seven_stone_seven_monuments(seed):
    """rules 3.2 steps 2-4: the 7 wood and 7 stone buildings not on the board form the
    supplies, and all 7 monuments are in the monument supply."""
    d = P.position(4, seed)
    wood = set(d["wood_supply"]) | {d["spaces"]["S2"]["tile"], d["spaces"]["R9"]["tile"]}
    stone = set(d["stone_supply"]) | {d["spaces"]["S3"]["tile"], d["spaces"]["R14"]["tile"]}
    assert len(d["wood_supply"]) == 7 and wood == set(P.WOOD_NAMES)
    assert len(d["stone_supply"]) == 7 and stone == set(P.STONE_NAMES)
    assert sorted(d["monument_supply"]) == sorted(P.MONUMENT_NAMES)
    assert len(d["monument_supply"]) == 7


def test_setup_provost_at_8_and_the_empty_road():
    """rules 3.1, 3.2 step 5, D6, D7: the Provost stands at p = 8 (between R8 and R9);
    R10-R13 and R15-R23 are empty; the round is 1."""
    d = P.position(3, 4)
    assert d["provost"] == 8 and d["round"] == 1
    empty = [f"R{k}" for k in (*range(10, 14), *range(15, 24))]
    assert all(d["spaces"][s]["tile"] is None for s in empty)
    assert all(d["spaces"][f"R{k}"]["tile"] is not None for k in (*range(1, 10), 14))


@pytest.mark.parametrize(("n", "hand", "camp"), [(2, 10, 5), (3, 6, 9), (4, 6, 9), (5, 10, 5)])
def test_setup_hands_camp_houses_and_resources(n, hand, camp):
    """rules 3.2 steps 7 and 10, rules 6, D14, D15: 10 workers in hand with 2 or 5 players,
    6 with 3 or 4, the rest of the 15 in the Camp; 9 houses for buildings; 2 wood, 1 food,
    1 stone and 0 PP each."""
    d = P.position(n, 1)
    for pd in d["players"]:
        assert (pd["hand"], pd["camp"], pd["houses"], pd["pp"]) == (hand, camp, 9, 0)
        assert pd["resources"] == {"food": 1, "wood": 2, "stone": 1, "cloth": 0, "gold": 0}
        assert pd["passed"] is False


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_reveals_players_plus_three_characters(n):
    """rules 3.2 step 9, rules 3.3: players + 3 characters are revealed, the others are out
    of play."""
    d = P.position(n, 8)
    states = Counter(d["characters"].values())
    assert states == Counter({"board": n + 3, "out": 12 - n - 3})


def test_draft_goes_counter_clockwise_from_the_last_player_rules_example():
    """rules 3.3: 4 players Blue, Black, Green, Red (seats 0-3), Green (seat 2) first: the
    last player is Black and the picks go Black, Blue, Red, Green."""
    seed = _seed_with_first_player(4, 2)
    g = P.start(P.position(4, seed))
    order = []
    while g.phase == "draft":
        kind, p = _ask(g)
        assert kind == "draft"
        order.append(p)
        pick = next(a for a in P.legal_names(g) if a != "character:early_riser")
        P.play(g, pick)
    assert order == [1, 0, 3, 2]


@pytest.mark.parametrize("n", [2, 3, 5])
def test_draft_leaves_three_available_characters_and_planning_starts(n):
    """rules 3.3, rules 4.1: each player takes one revealed character, counter-clockwise
    from the last player; the 3 left are the available characters; then Planning starts
    with the first player."""
    g = P.start(P.position(n, 3))
    first = g.state_dict()["first_player"]
    order = []
    while g.phase == "draft":
        order.append(g.decision().player)
        assert len(P.legal_names(g)) == n + 3 - len(order) + 1
        P.play(g, next(a for a in P.legal_names(g) if a != "character:early_riser"))
    assert order == [(first - 1 - i) % n for i in range(n)]
    chars = g.state_dict()["characters"]
    assert sorted(v for v in chars.values() if isinstance(v, int)) == list(range(n))
    assert list(chars.values()).count("board") == 3
    assert _ask(g) == ("plan", first)


def test_d38_same_seed_same_setup():
    """D38: one seeded generator per game: the same seed gives the same setup, and the
    seeds do not all give the same one."""
    assert P.position(3, 11) == P.position(3, 11)
    setups = {repr(P.position(3, s)["spaces"]) for s in range(5)}
    assert len(setups) > 1


# -- Planning: turns and targets (rules 4.1) -------------------------------------------------------
def test_planning_turns_go_clockwise_from_the_first_player():
    """rules 4.1: turns go clockwise from the first player; passed players are skipped."""
    g = P.build(4, first_player=2)
    seen = []
    for target in ("R1", "R2", "R3", "R4"):
        seen.append(g.decision().player)
        P.play(g, f"place:{target}")
    assert seen == [2, 3, 0, 1]
    P.play(g, "pass")  # seat 2
    assert _ask(g) == ("plan", 3)
    P.play(g, "place:R5")
    assert _ask(g) == ("plan", 0)
    P.play(g, "pass", "pass")  # seats 0 and 1
    assert _ask(g) == ("plan", 3)


def test_planning_legal_targets():
    """rules 4.1 A and B: the printed spaces, every starting, wood or stone building on the
    Road before or after the Provost (R10 and R14 lie past p = 8), the Construction Site and
    pass; never a residence (R5), a monument (R3), an empty space, S1-S3 or a building that
    holds a worker (R2)."""
    g = P.build(
        3,
        first_player=0,
        provost=8,
        players={1: {"buildings": ["manor"], "residences": ["R3", "R5"], "monuments": ["statue"]}},
        workers={"R2": 1},
    )
    assert _ask(g) == ("plan", 0)
    d = g.state_dict()
    assert d["spaces"]["R3"]["tile"] == "statue" and d["spaces"]["R5"]["side"] == "residence"
    assert d["spaces"]["R10"]["tile"] == "manor" and d["provost"] == 8
    road = [f"place:R{k}" for k in (1, 4, 6, 7, 8, 9, 10, 14)]
    assert P.legal_names(g) == [*PRINTED_PLACES, *road, "site", "pass"]
    assert not any(a.startswith("place:S") for a in P.legal_names(g))
    with pytest.raises(IllegalActionError):
        P.play(g, "place:R2")
    with pytest.raises(IllegalActionError):
        P.play(g, "place:R11")


def test_a_placement_is_legal_when_its_effect_cannot_be_paid():
    """D18, rules 4.1 A: the Fairground (1 wood) may take a worker of a player without
    wood; the placement costs 1 worker."""
    g = P.build(2, first_player=0, players={0: {"resources": {}}})
    P.play(g, "place:fairground")
    pd = _player(g, 0)
    assert (pd["hand"], pd["camp"]) == (9, 5)
    assert g.state_dict()["spaces"]["fairground"]["workers"] == [0]


# -- owner PP at placement (rules 4.1, D19, D27) ---------------------------------------------------
def test_owner_gains_1_pp_at_placement_and_keeps_it_if_never_activated():
    """rules 4.1 A, rules 4.2 step 5, D19: a worker on another player's building gives its
    owner +1 PP at once; past the Provost the worker does nothing and the owner keeps it."""
    g = P.build(3, first_player=1, provost=8, players={0: {"buildings": ["manor"]}})
    P.play(g, "place:R10")  # seat 1 on seat 0's manor, past the Provost
    assert _player(g, 0)["pp"] == 1
    P.play(g, "pass", "pass", "pass")  # seats 2, 0, 1
    assert g.phase == "activation"
    for p in (2, 0, 1):
        assert _ask(g) == ("bridge", p)
        P.play(g, "decline")
    d = g.state_dict()
    assert d["players"][0]["pp"] == 1 and d["players"][1]["pp"] == 0
    assert d["spaces"]["R10"]["workers"] == []
    assert d["round"] == 2 and d["phase"] == "planning"  # no Favor was asked for the Manor


def test_no_owner_pp_for_own_or_neutral_buildings():
    """rules 4.1 A, D19: placing on one's own building or on a neutral one (a printed space,
    a starting building, the pre-built R9) gives nobody PP."""
    g = P.build(2, first_player=0, players={0: {"buildings": ["manor"]}})
    P.play(g, "place:R10", "place:R1", "place:R9", "place:toll")
    assert [pd["pp"] for pd in g.state_dict()["players"]] == [0, 0]


@pytest.mark.parametrize(
    ("owner_chars", "placer_chars", "gain"),
    [([], [], 1), (["steward"], [], 2), ([], ["thief"], 0), (["steward"], ["thief"], 0)],
    ids=["plain_1", "steward_2", "thief_0", "thief_beats_steward_0"],
)
def test_d27_owner_pp_with_steward_and_thief(owner_chars, placer_chars, gain):
    """rules 4.1 A, D27: the owner gains 1 PP, 2 with the Steward, 0 when the placer holds
    the Thief, even against the Steward."""
    g = P.build(
        3,
        first_player=1,
        players={0: {"buildings": ["tailor"], "characters": owner_chars},
                 1: {"characters": placer_chars}},
    )  # fmt: skip
    P.play(g, "place:R10")
    assert _player(g, 0)["pp"] == gain
    assert _player(g, 1)["pp"] == 0


# -- the Construction Site and passing (rules 4.1 B, C, D17) ----------------------------------------
def test_d17_site_one_worker_per_player_slots_left_to_right():
    """rules 4.1 B, D17: workers on the Construction Site fill the slots left to right, at
    most one per player."""
    g = P.build(3, first_player=1)
    P.play(g, "site", "site")  # seats 1 and 2
    assert g.state_dict()["site"] == [1, 2]
    P.play(g, "place:R1")  # seat 0
    assert _ask(g) == ("plan", 1)
    assert "site" not in P.legal_names(g)
    P.play(g, "place:R2")
    assert "site" not in P.legal_names(g)  # seat 2
    P.play(g, "pass", "site")  # seat 2 passes, seat 0 goes to the site
    assert g.state_dict()["site"] == [1, 2, 0]


def test_pass_takes_a_bridge_place_and_the_first_player_tile_at_once():
    """rules 4.1 C: the first to pass takes bridge place 1 and the first-player tile at
    once; the turn sequence of this Planning does not change."""
    g = P.build(3, first_player=0)
    P.play(g, "place:R1")  # seat 0
    P.play(g, "pass")  # seat 1
    d = g.state_dict()
    assert d["first_player"] == 1 and d["bridge"] == [1]
    assert d["players"][1]["passed"] is True
    assert _ask(g) == ("plan", 2)
    P.play(g, "pass")  # seat 2: bridge place 2, the tile stays with seat 1
    assert g.state_dict()["bridge"] == [1, 2] and g.state_dict()["first_player"] == 1
    assert _ask(g) == ("plan", 0)
    P.play(g, "place:R3")  # 1 + 1 to the Camp: seat 0 keeps 3 workers
    P.play(g, "place:R4")  # again 2: 1 worker left, too few to place, so he passes
    assert g.phase == "activation" and _player(g, 0)["hand"] == 1
    assert g.state_dict()["bridge"] == [1, 2, 0]


def test_d16_pass_is_always_legal():
    """D16, rules 4.1 C: passing is legal even with workers left in hand."""
    g = P.build(2, first_player=0)
    assert _player(g, 0)["hand"] == 10
    assert "pass" in P.legal_names(g) and len(P.legal_names(g)) > 1


@pytest.mark.parametrize("target", ["place:fairground", "place:R1", "site"])
def test_d16_surcharge_after_the_first_pass(target):
    """rules 4.1, D16: once somebody has passed, every placement by another player (printed
    space, Road building, Construction Site) costs the placed worker + 1 to the Camp."""
    g = P.build(3, first_player=1, bridge=[1], turn=2)
    assert _ask(g) == ("plan", 2)
    P.play(g, target)
    pd = _player(g, 2)
    assert (pd["hand"], pd["camp"]) == (6 - 2, 9 + 1)


def test_d16_no_surcharge_before_anybody_passed():
    """rules 4.1, D16: before the first pass a placement costs only the placed worker."""
    g = P.build(3, first_player=0)
    P.play(g, "place:R1")
    pd = _player(g, 0)
    assert (pd["hand"], pd["camp"]) == (5, 9)


def test_d16_night_worker_waives_the_surcharge():
    """rules 5.6 #2, D16: after the first pass the Night Worker still pays 1 worker a
    placement."""
    g = P.build(3, first_player=1, bridge=[1], turn=2,
                players={2: {"characters": ["night_worker"]}})  # fmt: skip
    P.play(g, "place:R1")
    pd = _player(g, 2)
    assert (pd["hand"], pd["camp"]) == (5, 9)


def test_d16_forced_pass_with_no_worker():
    """D16: a player with 0 workers in hand can only pass; the engine passes for him (a
    decision with one legal action is never asked, D39), and he takes the first-player
    tile."""
    g = P.build(2, first_player=0, players={0: {"hand": 0}})
    d = g.state_dict()
    assert d["bridge"] == [0] and d["players"][0]["passed"] is True and d["first_player"] == 0
    assert _ask(g) == ("plan", 1)


def test_d16_forced_pass_with_one_worker_under_the_surcharge():
    """D16: after the first pass, a player with 1 worker cannot pay 2 and can only pass."""
    g = P.build(3, first_player=1, bridge=[1], turn=2, players={2: {"hand": 1}})
    d = g.state_dict()
    assert d["bridge"] == [1, 2] and d["players"][2]["hand"] == 1
    assert _ask(g) == ("plan", 0)


def test_d16_one_worker_with_the_night_worker_is_not_forced_to_pass():
    """D16, rules 5.6 #2: the Night Worker pays 1 under the surcharge, so 1 worker still
    places."""
    g = P.build(3, first_player=1, bridge=[1], turn=2,
                players={2: {"hand": 1, "characters": ["night_worker"]}})  # fmt: skip
    assert _ask(g) == ("plan", 2)
    P.play(g, "place:R1")
    assert _player(g, 2)["hand"] == 0


def test_planning_rules_example_bridge_order():
    """rules 4.1 (the rulebook's example): Blue passes first and takes the first-player
    tile; Black passes; Green places (1 + 1 to the Camp); Red passes; Green places a last
    worker (again 1 + 1) and passes. Bridge order: Blue, Black, Red, Green."""
    blue, black, green, red = 0, 1, 2, 3
    g = P.build(4, first_player=blue)
    P.play(g, "pass")  # Blue
    P.play(g, "pass")  # Black
    assert _ask(g) == ("plan", green)
    P.play(g, "place:R1")  # Green
    P.play(g, "pass")  # Red
    assert _ask(g) == ("plan", green)
    P.play(g, "place:R2", "pass")  # Green
    d = g.state_dict()
    assert d["bridge"] == [blue, black, red, green]
    assert d["first_player"] == blue
    gd = d["players"][green]
    assert (gd["hand"], gd["camp"]) == (6 - 4, 9 + 2)
    assert g.phase == "activation"


# -- the Early Riser (D25) ---------------------------------------------------------------------------
def test_d25_early_riser_places_before_the_first_turn_for_2_workers():
    """rules 5.6 #1, D25: before the first player's first turn the Early Riser may place on
    any legal target (no pass) for the placed worker + 1 to the Camp; he then plays his
    normal turns."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser"]}})
    assert _ask(g) == ("early_riser", 1)
    names = P.legal_names(g)
    assert names[:4] == PRINTED_PLACES and names[-2:] == ["site", "decline"]
    assert "pass" not in names
    P.play(g, "place:R1")
    pd = _player(g, 1)
    assert (pd["hand"], pd["camp"]) == (6 - 2, 9 + 1)
    assert _ask(g) == ("plan", 0)
    P.play(g, "place:R2")
    assert _ask(g) == ("plan", 1)
    P.play(g, "place:R3")
    assert _player(g, 1)["hand"] == 3


def test_d25_early_riser_may_go_to_the_construction_site():
    """D25: the Early Riser's placement may be the Construction Site."""
    g = P.build(3, first_player=0, players={2: {"characters": ["early_riser"]}})
    P.play(g, "site")
    assert g.state_dict()["site"] == [2] and _player(g, 2)["hand"] == 4


def test_d25_early_riser_may_decline():
    """D25, D18: declining the Early Riser costs nothing; the first player plays."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser"]}})
    P.play(g, "decline")
    assert _player(g, 1)["hand"] == 6 and _ask(g) == ("plan", 0)


def test_d25_early_riser_holder_who_is_first_player_then_takes_his_normal_turn():
    """rules 5.6 #1, D25: if the Early Riser is the first player, he places twice in a
    row: the early placement, then his normal first turn."""
    g = P.build(3, first_player=0, players={0: {"characters": ["early_riser"]}})
    assert _ask(g) == ("early_riser", 0)
    P.play(g, "place:R1")
    assert _ask(g) == ("plan", 0)
    P.play(g, "place:R2")
    assert _player(g, 0)["hand"] == 6 - 2 - 1 and _ask(g) == ("plan", 1)


def test_d25_early_riser_with_one_worker_cannot_place():
    """D25, D16: with 1 worker the Early Riser cannot pay 2, so it is not used (a single
    legal action, decline, is never asked)."""
    g = P.build(3, first_player=0, players={1: {"hand": 1, "characters": ["early_riser"]}})
    assert _ask(g) == ("plan", 0) and _player(g, 1)["hand"] == 1


def test_d25_night_worker_does_not_waive_the_early_riser_extra_worker():
    """rules 5.6 #2, D25: the Night Worker's holder still pays 2 for the Early Riser's
    placement."""
    g = P.build(3, first_player=0,
                players={1: {"characters": ["early_riser", "night_worker"]}})  # fmt: skip
    P.play(g, "place:R1")
    pd = _player(g, 1)
    assert (pd["hand"], pd["camp"]) == (4, 10)


def test_d25_early_riser_placement_gives_owner_pp():
    """D25, rules 4.1 A: the Early Riser's placement on another player's building gives the
    owner +1 PP."""
    g = P.build(3, first_player=0, players={1: {"characters": ["early_riser"]},
                                            2: {"buildings": ["manor"]}})  # fmt: skip
    P.play(g, "place:R10")
    assert _player(g, 2)["pp"] == 1


# -- the Journeyman (D26) ----------------------------------------------------------------------------
def test_d26_journeyman_joins_another_players_worker_once_per_round():
    """rules 5.6 #3, D26: once per round the Journeyman may place on a building holding one
    worker of another player (not his own); the tile is then used for the round."""
    g = P.build(3, first_player=0, players={0: {"characters": ["journeyman"]}},
                workers={"R1": 1, "R2": 0, "R3": 2})  # fmt: skip
    names = P.legal_names(g)
    assert "place:R1" in names and "place:R3" in names
    assert "place:R2" not in names
    P.play(g, "place:R1")
    d = g.state_dict()
    assert d["spaces"]["R1"]["workers"] == [1, 0] and d["characters_used"] == ["journeyman"]
    assert d["players"][0]["hand"] == 6 - 1 - 1
    P.play(g, "place:R4", "place:R5")  # seats 1, 2
    assert _ask(g) == ("plan", 0)
    assert "place:R3" not in P.legal_names(g)


def test_d26_journeyman_never_a_third_worker():
    """D26: a building with two workers takes no third, even for the Journeyman."""
    g = P.build(3, first_player=0, players={0: {"characters": ["journeyman"]}},
                workers={"R1": [1, 2]})  # fmt: skip
    assert "place:R1" not in P.legal_names(g)
    assert "place:R2" in P.legal_names(g)


def test_d26_journeyman_pays_the_surcharge_and_gives_owner_pp():
    """D26, D16: the Journeyman's placement costs the normal price (surcharge included) and
    gives the owner +1 PP."""
    g = P.build(
        3,
        first_player=2,
        bridge=[2],
        turn=0,
        players={0: {"characters": ["journeyman"]}, 2: {"buildings": ["manor"]}},
        workers={"R10": 1},
    )
    P.play(g, "place:R10")
    d = g.state_dict()
    assert d["spaces"]["R10"]["workers"] == [1, 0]
    assert (d["players"][0]["hand"], d["players"][0]["camp"]) == (6 - 2, 9 + 1)
    assert d["players"][2]["pp"] == 1
