"""Positions set up mid-step by the builder's description (``caylus_env.caylus.positions``): a
worker's effect already asked on a road building (``activating``), a section scoring waiting on
a player's favors (``scoring``), a castle turn after batches given, a lawyer's transformation
waiting on its space's worker (``lawyers``); ``describe`` reads any position back as such a
description; and a stack or cursor the engine could not have built is refused, naming the
field (the engine's validation, ``caylus_env.caylus.engine.validate``)."""

from __future__ import annotations

import re

import pytest

from caylus_env.caylus import positions as B
from caylus_env.caylus.engine import Game, GameConfig
from caylus_env.core import positions as core
from caylus_env.core.errors import InvalidStateError

ALL_PASSED = [0, 1, 2]
NON_GOLD = ["food", "wood", "stone", "cloth"]


def test_alchemist_payment_mid_way_then_the_worker_goes_home_and_the_road_goes_on():
    """Rules 8.12: the alchemist takes its cubes one by one; the worker's effect is already
    asked (``activating``), one cube is still to give, then the next worker's building."""
    g = B.build(
        3,
        phase="activation",
        passed=ALL_PASSED,
        provost=20,
        road={12: ("alchemist", 2), 14: ("farm_food", 2)},
        workers={12: 0, 14: 1},
        players={0: {"food": 1, "wood": 2, "gold": 1}},
        activating=12,
        pending=[{"kind": "alchemist_pay", "player": 0, "remaining": 1}],
    )
    d = g.state_dict()
    assert d["cursor"] == 13
    assert d["pending"][0] == {"kind": "finish_space", "player": 0, "space": 12}
    assert B.legal_names(g) == ["pay:food", "pay:wood"]
    B.play(g, "pay:wood")
    d = g.state_dict()
    assert B.space(d, 12)["worker"] is None and B.cubes(g, 0)["wood"] == 1
    assert g.decision().kind == "produce" and g.decision().player == 1  # space 14 next


def test_residence_choice_of_an_architect_then_the_statues_favor():
    """Rules 5b: a prestige building replaces one of its builder's residences; the statue
    then grants its royal favor before the architect's worker goes home (5.3)."""
    g = B.build(
        3,
        phase="activation",
        passed=ALL_PASSED,
        provost=20,
        road={3: ("residence", 0), 10: ("residence", 0), 12: ("architect", 1)},
        workers={12: 0},
        players={0: {"stone": 2, "gold": 1}},
        activating=12,
        pending=[{"kind": "residence", "player": 0, "building": "statue", "source": "architect"}],
    )
    assert B.legal_names(g) == ["space:3", "space:10"]
    B.play(g, "space:10")
    d = g.state_dict()
    assert B.space(d, 10)["building"] == "statue" and d["stock"]["statue"] == 0
    assert [e["kind"] for e in d["pending"]] == ["finish_space", "favor_row"]
    assert B.describe(g)["pending"] == [{"kind": "favor_row", "player": 0, "favors": 1}]


def test_section_scoring_waiting_on_a_swap_favor_then_the_next_player_is_scored():
    """Rules 4 phase 7 and 5.1 row c column 4: seat 0, scored in the walls' scoring, gives a
    cube for two; his second favor follows, then seat 1 (next in turn order) is scored."""
    g = B.build(
        3,
        phase="end_of_turn",
        turn=8,
        bailiff=18,
        provost=18,
        turn_order=[2, 0, 1],
        passed=ALL_PASSED,
        scored=["dungeon"],
        castle={"dungeon": [2, 2, 2], "walls": [3, 2, 0]},
        players={0: {"favors": {"resources": 4}, "rows_used": ["resources"], "gold": 1}},
        scoring="walls",
        pending=[
            {"kind": "favor_row", "player": 0, "favors": 1},
            {"kind": "favor_take", "player": 0, "kinds": NON_GOLD, "remaining": 2},
            {"kind": "favor_give", "player": 0},
        ],
    )
    d = g.state_dict()
    assert d["cursor"] == 3
    assert d["pending"][1]["turn_order_index"] == 2  # seats 2 and 0 scored so far
    B.play(g, "pay:gold", "take:stone", "take:cloth")
    assert B.legal_names(g) == ["favor:prestige", "favor:deniers", "favor:buildings"]
    B.play(g, "favor:prestige")
    assert g.decision().player == 1 and g.decision().kind == "favor_row"  # 2 walls houses


def test_castle_turn_after_a_batch_given_stops_without_the_penalty():
    """Phase 6: seat 1 gave one batch this turn (``batches``, the castle decision's count);
    stopping now costs nothing, and the next castle worker is asked."""
    g = B.build(
        3,
        phase="castle",
        passed=ALL_PASSED,
        castle={"dungeon": [0, 1, 0]},
        workers={"castle": [1, 0]},
        players={0: {"stone": 1}, 1: {"prestige": 5, "batches": 1, "stone": 1, "cloth": 1}},
        cursor=1,
        pending=[{"kind": "castle", "player": 1, "batches_given": 1}],
    )
    assert "batch:food+stone+cloth" in B.legal_names(g)
    B.play(g, "decline")
    assert B.player(g, 1)["prestige"] == 5
    assert g.decision().kind == "castle" and g.decision().player == 0


def test_lawyer_transformation_waits_for_the_worker_on_its_space():
    """Rules 8.6: seat 0 paid the lawyer for the neutral farm while seat 1's worker is on
    it; the residence (already one of seat 0's houses) replaces it once that worker is done."""
    d = B.build_dict(
        3,
        phase="activation",
        passed=ALL_PASSED,
        provost=20,
        road={1: "farm_neutral"},
        workers={1: 1},
        lawyers={1: 0},
    )
    assert d["players"][0]["houses"] == 1 and B.space(d, 1)["lawyer_pending"] == 0
    g = B.start(d)
    B.play(g, "take:food")
    d = g.state_dict()
    assert B.space(d, 1)["building"] == "residence" and B.space(d, 1)["owner"] == 0


def test_describe_reads_a_position_back_as_the_description_that_builds_it():
    description = {
        "phase": "activation",
        "provost": 20,
        "passed": [2, 0, 1],
        "players": {0: {"food": 1, "wood": 2, "gold": 1}, 2: {"prestige": 7}},
        "road": {12: ("alchemist", 2), 14: ("farm_food", 2)},
        "workers": {12: 0, 14: 1},
        "activating": 12,
        "pending": [{"kind": "alchemist_pay", "player": 0, "remaining": 1}],
    }
    d = B.build_dict(3, **description)
    assert B.describe(d) == description
    assert B.describe(B.start(d)) == description  # a Game: its position after the forced
    assert B.describe(B.build(4)) == {"pending": [{"kind": "place_worker", "player": 0}]}


def test_describe_refuses_a_state_dict_the_loader_refuses():
    d = B.build_dict(3)
    d["cursor"] = -1
    with pytest.raises(InvalidStateError, match="cursor"):
        B.describe(d)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_position_of_seeded_games_is_described_and_built_back(n):
    """Each decision the engine reaches (forced ones included) gives a description that
    builds that very state dict, whose first decision has the same legal actions."""
    for options in ({}, {"simplified_favors": True, "jeweller": True, "house_cap": True}):
        for reached in core.decisions("caylus", n, options=options, games=1, seed=n):
            d = Game.state_to_dict(reached.state)
            assert B.build_dict(n, **B.describe(d)) == d, reached.kind
            assert Game.legal_actions_at(d) == list(reached.legal), reached.kind


def test_describe_of_a_finished_game_builds_its_final_position():
    g = Game(GameConfig(num_players=3), seed=2)
    core.play_out(g, seed=2)
    description = B.describe(g)
    assert description["phase"] == "game_over"
    assert B.build(3, **description).state_dict() == g.state_dict()


# -- descriptions the builder refuses, naming the field --------------------------------------
ACTIVATION = {"phase": "activation", "passed": ALL_PASSED, "provost": 20}
BAD_DESCRIPTIONS = {
    "activating outside phase 5": (
        {"activating": 12, "pending": []},
        "activating is a road space of phase activation, not placement",
    ),
    "activating a space without a worker": (
        {**ACTIVATION, "activating": 12},
        "activating=12: no worker on road space 12",
    ),
    "a cursor against activating": (
        {**ACTIVATION, "road": {12: "forest"}, "workers": {12: 0}, "activating": 12, "cursor": 5},
        "cursor=5 does not go with activating=12; allowed: 13",
    ),
    "a procedure with activating": (
        {
            **ACTIVATION,
            "road": {12: "forest"},
            "workers": {12: 0},
            "activating": 12,
            "pending": [{"kind": "finish_space", "player": 0, "space": 12}],
        },
        "pending[0]: 'finish_space' is the engine's own step",
    ),
    "scoring without the favors it waits on": (
        {"phase": "end_of_turn", "passed": ALL_PASSED, "scoring": "dungeon"},
        "scoring='dungeon' waits on the favors of the player just scored",
    ),
    "a lawyer on an empty space": ({"lawyers": {20: 0}}, "lawyers[20]: no building"),
    "a favor row used twice": (
        {"players": {0: {"rows_used": ["deniers", "deniers"]}}},
        "players[0].rows_used=['deniers', 'deniers'] lists a row twice",
    ),
    "more batches than the castle holds": (
        {"players": {1: {"batches": 31}}},
        "players[1].batches=31 is not allowed; allowed: 0..30",
    ),
}


@pytest.mark.parametrize(
    ("description", "message"), list(BAD_DESCRIPTIONS.values()), ids=list(BAD_DESCRIPTIONS)
)
def test_mid_step_description_fields_are_checked_naming_the_field(description, message):
    with pytest.raises(B.PositionError, match=re.escape(message)):
        B.build_dict(3, **description)


# -- stacks and cursors the engine could not have built ----------------------------------------
CASTLE = {"phase": "castle", "passed": ALL_PASSED}
IMPOSSIBLE = {
    "an activation decision asked of another player": (
        {
            **ACTIVATION,
            "road": {12: ("alchemist", 2)},
            "workers": {12: 0},
            "players": {1: {"stone": 3}},
            "activating": 12,
            "pending": [{"kind": "option", "player": 1, "building": "alchemist"}],
        },
        "pending[1] 'option'.player=1 is not allowed; allowed: 0",
    ),
    "an activation decision about another building": (
        {
            **ACTIVATION,
            "road": {12: ("alchemist", 2)},
            "workers": {12: 0},
            "activating": 12,
            "pending": [{"kind": "option", "player": 0, "building": "tailor"}],
        },
        "pending[1] 'option'.building='tailor' is not allowed; allowed: the 'alchemist' on",
    ),
    "a construction asked by a sawmill": (
        {
            **ACTIVATION,
            "road": {12: ("sawmill", 2)},
            "workers": {12: 0},
            "activating": 12,
            "pending": [{"kind": "build", "player": 0, "source": "carpenter"}],
        },
        "pending[1] 'build': the 'sawmill' on space 12 does not ask it",
    ),
    "a stone construction asked by a carpenter": (
        {
            **ACTIVATION,
            "road": {12: "carpenter_neutral"},
            "workers": {12: 0},
            "activating": 12,
            "pending": [{"kind": "build", "player": 0, "source": "mason"}],
        },
        "pending[1] 'build': the 'carpenter_neutral' on space 12 does not ask it",
    ),
    "a lawyer's transformation asked by a sawmill": (
        {
            **ACTIVATION,
            "road": {12: ("sawmill", 2)},
            "workers": {12: 0},
            "players": {0: {"cloth": 1}},
            "activating": 12,
            "pending": [{"kind": "lawyer", "player": 0, "source": "lawyer_tile"}],
        },
        "pending[1] 'lawyer': the 'sawmill' on space 12 does not ask it",
    ),
    "an alchemist's payment asked by a tailor": (
        {
            **ACTIVATION,
            "road": {12: ("tailor", 2)},
            "workers": {12: 0},
            "activating": 12,
            "pending": [{"kind": "alchemist_pay", "player": 0, "remaining": 1}],
        },
        "the 'tailor' on space 12 takes no cubes of any kind",
    ),
    "a royal favor granted by a marketplace": (
        {
            **ACTIVATION,
            "workers": {6: 0},
            "activating": 6,
            "pending": [{"kind": "favor_row", "player": 0, "favors": 1}],
        },
        "pending[1] 'favor_row': the 'marketplace_neutral' on space 6 grants no royal favor",
    ),
    "a favor of phase 3 after the joust field's step": (
        {
            "phase": "special_buildings",
            "passed": ALL_PASSED,
            "cursor": 5,
            "players": {0: {"favors": {"resources": 1}, "rows_used": ["resources"]}},
            "pending": [{"kind": "favor_column", "player": 0, "row": "resources"}],
        },
        "'favor_column' is asked at special step 4; cursor=5",
    ),
    "a castle favor to a worker who is not the best builder": (
        {
            **CASTLE,
            "cursor": 6,
            "workers": {"castle": [0, 1]},
            "castle": {"dungeon": [1, 0, 0]},
            "players": {0: {"batches": 1}},
            "pending": [{"kind": "favor_row", "player": 1, "favors": 1}],
        },
        "a favor for player 1 in phase castle is not allowed; allowed: the best builder, 0",
    ),
    "a favor chain of two players": (
        {
            **ACTIVATION,
            "cursor": 29,
            "provost": 28,
            "players": {
                0: {"favors": {"resources": 1}, "rows_used": ["resources"]},
                1: {"favors": {"resources": 1}, "rows_used": ["resources"]},
            },
            "pending": [
                {"kind": "favor_row", "player": 0, "favors": 1},
                {"kind": "favor_column", "player": 1, "row": "resources"},
            ],
        },
        "pending[1].player=1 is not allowed; allowed: 0, the player of the favors below it",
    ),
    "a favor column of a row not used": (
        {
            **ACTIVATION,
            "cursor": 29,
            "provost": 28,
            "players": {0: {"favors": {"resources": 1}}},
            "pending": [{"kind": "favor_column", "player": 0, "row": "resources"}],
        },
        "players[0].rows_used does not list it",
    ),
    "batches before phase 6": (
        {"players": {0: {"batches": 2}}, "castle": {"dungeon": [2, 0, 0]}},
        "players[0].batches=2 is not allowed in phase placement; allowed: 0",
    ),
    "batches of a castle worker not asked yet": (
        {
            **CASTLE,
            "cursor": 1,
            "workers": {"castle": [0, 1]},
            "castle": {"dungeon": [0, 2, 0]},
            "players": {1: {"batches": 2}},
            "pending": [{"kind": "castle", "player": 0, "batches_given": 0}],
        },
        "players[1].batches=2 is not allowed in phase castle, cursor 1; allowed: 0",
    ),
    "more batches than houses in the castle": (
        {
            **CASTLE,
            "cursor": 1,
            "workers": {"castle": [0]},
            "players": {0: {"batches": 2}},
            "pending": [{"kind": "castle", "player": 0, "batches_given": 2}],
        },
        "players[0].batches=2 is not allowed; allowed: 0..0",
    ),
    "a favor row used in phase 2": (
        {"players": {0: {"rows_used": ["deniers"]}}},
        "players[0].rows_used=['deniers'] is not allowed in phase placement",
    ),
    "a favor row used in phase 3 before the joust field": (
        {
            "phase": "special_buildings",
            "passed": ALL_PASSED,
            "cursor": 1,
            "workers": {"gate": 0},
            "players": {1: {"rows_used": ["deniers"]}},
            "pending": [{"kind": "gate", "player": 0}],
        },
        "players[1].rows_used=['deniers'] is not allowed in phase special_buildings, cursor 1",
    ),
}


@pytest.mark.parametrize(
    ("description", "message"), list(IMPOSSIBLE.values()), ids=list(IMPOSSIBLE)
)
def test_a_stack_or_cursor_the_engine_could_not_build_is_refused_naming_the_field(
    description, message
):
    with pytest.raises(InvalidStateError) as info:
        B.build(3, **description)
    assert message in str(info.value)


def test_a_gap_between_the_stable_workers_is_refused():
    """Rules 4 phase 2: a worker takes the first free spot of the stables."""
    d = B.build_dict(3, workers={"stables": [1]})
    d["stables"] = [None, 1, None]
    with pytest.raises(InvalidStateError, match=r"stables=\[None, 1, None\] is not allowed"):
        B.start(d)


def test_an_empty_neutral_space_is_refused():
    """Rules 1.2: spaces 1-6 hold the neutral tiles, or what replaced them."""
    d = B.build_dict(3)
    d["road"][2]["building"] = None
    with pytest.raises(InvalidStateError, match=r"road\[2\] \(space 3\).building=None"):
        B.start(d)
