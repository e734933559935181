"""Scenario tests for phase 6 (castle), phase 7 (bailiff, scoring) and the end of the game."""

from __future__ import annotations

import pytest

from caylus_env.caylus import positions as B
from caylus_env.caylus.engine import rank_of


def castle(n=3):
    return B.build_dict(n, phase="castle", passed=list(range(n)))


def rich(d, p, k=3):
    B.set_player(d, p, food=k, wood=k, stone=k, cloth=k, gold=k)


# -- phase 6 -------------------------------------------------------------------------------------
def test_a_batch_is_food_plus_two_different_other_kinds():
    d = castle()
    B.set_player(d, 0, food=1, wood=2, stone=0, cloth=1, gold=0)
    B.put_worker(d, 0, "castle")
    g = B.start(d)
    assert B.legal_names(g) == ["decline", "batch:food+wood+cloth"]
    B.play(g, "batch:food+wood+cloth")
    assert B.player(g, 0)["prestige"] == 5
    assert g.state_dict()["castle"]["dungeon"][0] == 1


def test_batches_are_given_one_at_a_time_until_the_player_stops():
    d = castle()
    rich(d, 0)
    B.put_worker(d, 0, "castle")
    B.put_worker(d, 1, "castle")
    rich(d, 1)
    g = B.start(d)
    B.play(g, "batch:food+wood+stone", "batch:food+cloth+gold")
    assert g.current_player() == 0
    B.play(g, "decline")
    assert g.current_player() == 1  # castle spot order
    assert B.player(g, 0)["prestige"] == 10


def test_a_full_section_overflows_into_the_next_one_scoring_its_value():
    cubes = dict.fromkeys(("food", "wood", "stone", "cloth", "gold"), 3)
    g = B.build(
        3,
        phase="castle",
        passed=[0, 1, 2],
        castle={"dungeon": [3, 2, 0]},
        players={2: cubes},
        workers={"castle": [2]},
    )
    B.play(g, "batch:food+wood+stone", "batch:food+wood+cloth")
    c = g.state_dict()["castle"]
    assert c["dungeon"] == [3, 2, 1] and c["walls"] == [0, 0, 1]
    assert B.player(g, 2)["prestige"] == 5 + 4


def test_batches_skip_a_scored_section_whose_spaces_stay_empty():
    d = castle()
    d["scored"]["dungeon"] = True
    rich(d, 0)
    B.put_worker(d, 0, "castle")
    g = B.start(d)
    B.play(g, "batch:food+wood+stone")
    assert g.state_dict()["castle"]["walls"][0] == 1 and B.player(g, 0)["prestige"] == 4


def test_a_castle_worker_who_gives_no_batch_loses_two_prestige():
    d = castle()
    B.set_player(d, 0, prestige=5)
    B.set_player(d, 1, prestige=1)
    B.put_worker(d, 0, "castle")
    B.put_worker(d, 1, "castle")
    g = B.start(d)  # neither holds a batch: both decline automatically
    assert B.player(g, 0)["prestige"] == 3 and B.player(g, 1)["prestige"] == 0


def test_full_towers_exempt_a_player_holding_a_valid_batch_from_the_penalty():
    """8.27: towers under construction and full, and the player shows a valid batch."""
    d = castle()
    d["scored"]["dungeon"] = d["scored"]["walls"] = True
    B.set_castle(d, "towers", [14, 0, 0])
    B.set_player(d, 0, houses=14, prestige=9)
    B.set_player(d, 1, prestige=9, food=1, wood=1, stone=1)
    B.set_player(d, 2, prestige=9, food=1, wood=0, stone=0)
    B.put_worker(d, 1, "castle")
    B.put_worker(d, 2, "castle")
    g = B.start(d)
    # Phase 7 has started: the full towers are being scored, player 0 (14 houses)
    # chooses 3 favors first; players 1 and 2 are not scored yet.
    assert g.phase == "end_of_turn" and g.current_player() == 0
    assert B.player(g, 1)["prestige"] == 9  # exempt: holds food + wood + stone
    assert B.player(g, 2)["prestige"] == 7  # no valid batch: -2


def test_penalty_applies_when_towers_are_full_but_not_under_construction():
    d = castle()
    B.set_castle(d, "dungeon", [6, 0, 0])
    B.set_castle(d, "walls", [10, 0, 0])
    B.set_castle(d, "towers", [14, 0, 0])
    B.set_player(d, 1, prestige=9, food=1, wood=1, stone=1)
    B.put_worker(d, 1, "castle")
    g = B.start(d)
    assert B.player(g, 1)["prestige"] <= 9 - 2


def test_best_builder_gets_one_favor_ties_to_the_earliest_castle_spot():
    d = castle()
    for p in (2, 0, 1):
        rich(d, p)
        B.put_worker(d, p, "castle")
    g = B.start(d)
    B.play(g, "batch:food+wood+stone", "decline")  # player 2: 1 batch
    B.play(g, "batch:food+wood+stone", "decline")  # player 0: 1 batch
    B.play(g, "decline")  # player 1: none (-2)
    dec = g.decision()
    assert dec.kind == "favor_row" and dec.player == 2


def test_nobody_is_best_builder_without_batches():
    d = castle()
    B.put_worker(d, 0, "castle")
    g = B.start(d)
    assert g.state_dict()["turn"] == 2  # straight on to the next turn


# -- phase 7 -------------------------------------------------------------------------------------
def end_of_turn(n=3, bailiff=6, provost=6):
    return B.build_dict(
        n, phase="end_of_turn", passed=list(range(n)), bailiff=bailiff, provost=provost
    )


def test_bailiff_moves_one_space_when_the_provost_is_not_beyond_him():
    """T10: bailiff 10, provost 8 -> both on 11, no trigger."""
    g = B.start(end_of_turn(bailiff=10, provost=8))
    d = g.state_dict()
    assert d["bailiff"] == 11 and d["provost"] == 11 and not d["scored"]["dungeon"]
    assert d["turn"] == 2


def test_bailiff_moves_two_spaces_and_reaches_the_dungeon_trigger():
    """T11: bailiff 10, provost 11 -> 12: the dungeon is scored."""
    d = end_of_turn(bailiff=10, provost=11)
    B.set_castle(d, "dungeon", [0, 1, 2])
    B.set_player(d, 0, prestige=5)
    g = B.start(d)
    # Turn order 0, 1, 2: player 0 loses 2, player 1 nothing, player 2 gets a favor.
    assert g.decision().kind == "favor_row" and g.current_player() == 2
    assert B.player(g, 0)["prestige"] == 3 and B.player(g, 1)["prestige"] == 0
    assert g.state_dict()["bailiff"] == 12


def test_a_section_completed_this_turn_is_scored_before_its_trigger():
    d = end_of_turn(bailiff=7, provost=7)
    B.set_castle(d, "dungeon", [3, 3, 0])
    B.set_player(d, 2, prestige=4)
    g = B.start(d)
    assert g.decision().kind == "favor_row" and g.current_player() == 0
    B.play(g, "favor:prestige")  # player 0: 3 houses, 1 favor
    B.play(g, "favor:prestige")  # player 1: 3 houses, 1 favor
    assert B.player(g, 2)["prestige"] == 2  # no house: -2
    assert g.state_dict()["scored"]["dungeon"] and g.state_dict()["bailiff"] == 8


def test_an_already_scored_section_is_not_scored_again_at_its_trigger():
    d = end_of_turn(bailiff=11, provost=11)
    d["scored"]["dungeon"] = True
    B.set_player(d, 0, prestige=5)
    g = B.start(d)
    assert B.player(g, 0)["prestige"] == 5


def test_two_sections_completed_in_one_turn_are_both_scored_in_section_order():
    """8.14: dungeon and walls full: both scored; walls favors may reach column 4."""
    d = end_of_turn(bailiff=8, provost=8)
    B.set_castle(d, "dungeon", [6, 0, 0])
    B.set_castle(d, "walls", [5, 5, 0])
    g = B.start(d)
    # Dungeon: player 0 (6 houses) 1 favor; players 1 and 2 nothing / -2.
    assert g.current_player() == 0 and g.decision().args["favors"] == 1
    B.play(g, "favor:deniers")  # column 1 -> 2 (dungeon: only columns 1-2 open)
    assert B.player(g, 0)["favor_columns"]["deniers"] == 1
    # Walls: player 0 (5 houses) 3 favors; rows already used in this phase are closed.
    assert g.current_player() == 0 and g.decision().args["favors"] == 3
    assert "favor:deniers" not in B.legal_names(g)
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 1
    assert g.state_dict()["scored"]["dungeon"]


@pytest.mark.parametrize(
    ("section", "houses", "favors", "penalty"),
    [
        ("dungeon", 0, 0, 2),
        ("dungeon", 1, 0, 0),
        ("dungeon", 2, 1, 0),
        ("dungeon", 6, 1, 0),
        ("walls", 0, 0, 3),
        ("walls", 1, 0, 0),
        ("walls", 2, 1, 0),
        ("walls", 3, 2, 0),
        ("walls", 4, 2, 0),
        ("walls", 5, 3, 0),
        ("towers", 0, 0, 4),
        ("towers", 1, 0, 0),
        ("towers", 3, 1, 0),
        ("towers", 4, 2, 0),
        ("towers", 5, 2, 0),
        ("towers", 6, 3, 0),
    ],
)
def test_section_scoring_table(section, houses, favors, penalty):
    trigger = {"dungeon": 12, "walls": 18, "towers": 24}[section]
    d = end_of_turn(bailiff=trigger - 1, provost=trigger - 1)
    for earlier in ("dungeon", "walls", "towers"):
        if earlier == section:
            break
        d["scored"][earlier] = True
    B.set_castle(d, section, [houses, 0, 0])
    B.set_player(d, 0, prestige=10, money=0, food=0, wood=0)
    g = B.start(d)
    if favors:
        assert g.current_player() == 0 and g.decision().args["favors"] == favors
    else:
        assert B.player(g, 0)["prestige"] == 10 - penalty


def test_favors_won_at_the_dungeon_scoring_reach_only_column_two():
    """5.2 (the example of Orange): column 3 opens only once the dungeon scoring is over."""
    d = end_of_turn(bailiff=11, provost=11)
    B.set_castle(d, "dungeon", [2, 0, 0])
    d["players"][0]["favor_columns"]["prestige"] = 2
    g = B.start(d)
    B.play(g, "favor:prestige")
    assert B.player(g, 0)["favor_columns"]["prestige"] == 2
    assert B.player(g, 0)["prestige"] == 2  # column 2 again


def test_towers_scoring_ends_the_game_with_the_final_bonus():
    """T22 and 4.8: 2 gold, 7 other cubes, 11 deniers: +6 +2 +2 = +10 prestige."""
    d = end_of_turn(bailiff=23, provost=23)
    d["scored"]["dungeon"] = d["scored"]["walls"] = True
    B.set_castle(d, "towers", [1, 1, 1])
    B.set_player(d, 0, prestige=20, gold=2, food=3, wood=2, stone=1, cloth=1, money=11)
    g = B.start(d)
    assert g.is_terminal() and g.phase == "game_over"
    assert B.player(g, 0)["prestige"] == 30


def test_a_tie_for_first_place_is_a_shared_win():
    ranks = rank_of([30, 30, 12])
    assert ranks.tolist() == [1.5, 1.5, 3.0]


def test_game_over_has_no_legal_actions_and_no_current_player():
    d = end_of_turn(bailiff=23, provost=23)
    d["scored"]["dungeon"] = d["scored"]["walls"] = True
    g = B.start(d)
    assert g.legal_actions() == [] and g.current_player() == -1
    assert sum(g.returns()) == pytest.approx(0.0)


def test_gate_worker_moved_to_the_castle_builds_after_earlier_arrivals():
    """T25 continued: in phase 6 the gate worker (spot 3) gives batches after spots 1-2."""
    d = B.position(3, phase="special_buildings")
    B.all_passed(d)
    B.put_worker(d, 0, "castle")
    B.put_worker(d, 1, "castle")
    B.put_worker(d, 2, "gate")
    for p in range(3):
        rich(d, p)
    g = B.start(d)
    B.play(g, "gate:castle")
    while g.phase != "castle":
        g.apply(g.legal_actions()[0])
    order = []
    while g.phase == "castle" and g.decision().kind == "castle":
        order.append(g.current_player())
        B.play(g, "decline")
    assert order == [0, 1, 2]
    assert B.cubes(g, 2)["food"] == 3
