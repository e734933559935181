"""The Caylus 1303 state dict: an exact, readable inverse of the state array on positions from
random games of every player count and option set, and a validating reader that refuses
hostile dicts naming the field (``engine/state_dict.py``)."""

from __future__ import annotations

import copy
import json
import random
import re

import numpy as np
import pytest

from caylus_env.caylus_1303.engine import Game, GameConfig, InvalidStateError
from caylus_env.caylus_1303.engine.state_dict import FORMAT, dict_to_state, state_to_dict
from caylus_env.core.game import check_state_array

OPTION_SETS = ({}, {"hide_opponent_pp": True})


def _games(count: int):
    """Random games over 2-5 players and both option sets, yielded at every decision."""
    for g in range(count):
        config = GameConfig(num_players=2 + g % 4, **OPTION_SETS[(g // 4) % 2])
        game = Game(config, seed=1000 + g)
        rng = random.Random(g)
        while True:
            yield g, game
            if game.is_over():
                break
            game.apply(rng.choice(game.legal_actions()))


#: Games whose every decision is round-tripped (2-5 players, both option sets, in turn).
ROUND_TRIP_GAMES = 80


def test_round_trip_is_bit_for_bit_over_many_random_games():
    kinds: set[str] = set()
    phases: set[str] = set()
    checked = 0
    for _, game in _games(ROUND_TRIP_GAMES):
        d = state_to_dict(game.state)
        json.dumps(d)  # plain data
        back = dict_to_state(copy.deepcopy(d))
        assert back.dtype == game.state.dtype
        assert np.array_equal(back, game.state), np.flatnonzero(back != game.state)
        phases.add(d["phase"])
        if d["pending"]:
            kinds.add(d["pending"][-1]["kind"])
        checked += 1
    assert checked > ROUND_TRIP_GAMES * 50
    # a monument needs a residence and gold, rare in random play: stewardship positions are
    # round-tripped by the position builder's tests (test_positions.py)
    assert phases >= {"draft", "planning", "activation", "delivery", "game_over"}
    assert {"draft", "early_riser", "plan", "effect", "pay", "bridge", "bailiff", "favor",
            "board_character", "deliver"} <= kinds  # fmt: skip


def test_reloaded_games_play_on_identically():
    for g, game in _games(8):
        if game.is_over() or g % 2:
            continue
        again = Game.from_state_dict(game.state_dict())
        assert np.array_equal(again.state, game.state)
        assert again.legal_actions() == game.legal_actions()
        assert check_state_array(__import__("caylus_env.caylus_1303.engine", fromlist=["x"]),
                                 game.state) == game.state_dict()  # fmt: skip


def test_dict_names_fields_by_name():
    d = Game(GameConfig(num_players=3), seed=1).state_dict()
    assert d["format"] == FORMAT and d["phase"] == "draft"
    assert d["options"] == {"num_players": 3, "hide_opponent_pp": False}
    assert d["spaces"]["fairground"]["tile"] == "fairground"
    assert d["spaces"]["R10"] == {
        "tile": None, "side": None, "owner": None, "mark": None, "workers": [],
    }  # fmt: skip
    assert d["spaces"]["S1"]["side"] == "setup"
    assert sorted(d["characters"].values(), key=str).count("board") == 6
    assert d["pending"] == [{"kind": "draft", "player": (d["first_player"] - 1) % 3}]
    assert len(d["wood_supply"]) == 9 - 2 and len(d["monument_supply"]) == 7


def _mid(kind: str) -> dict:
    """A state dict from random play whose top decision is ``kind``."""
    for _, game in _games(40):
        if not game.is_over() and game.decision().kind == kind:
            return game.state_dict()
    raise AssertionError(kind)


def _refused(d, message: str) -> None:
    with pytest.raises(InvalidStateError, match=re.escape(message)):
        dict_to_state(d)


def test_unknown_and_missing_keys_are_named():
    d = _mid("plan")
    _refused({**d, "colour": 1}, "unknown keys ['colour']")
    e = copy.deepcopy(d)
    del e["provost"]
    _refused(e, "missing keys ['provost']")
    e = copy.deepcopy(d)
    e["players"][0]["gems"] = 2
    _refused(e, "players[0]: missing keys [], unknown keys ['gems']")
    e = copy.deepcopy(d)
    e["spaces"]["R30"] = e["spaces"].pop("R23")
    _refused(e, "spaces: missing keys ['R23']")
    e = copy.deepcopy(d)
    e["options"] = {"num_players": len(d["players"])}
    _refused(e, "options: missing keys ['hide_opponent_pp']")


def test_wrong_types_are_named_and_bool_is_not_int():
    d = _mid("plan")
    for key, value, message in [
        ("provost", True, "provost: must be an int, got True"),
        ("round", 2.0, "round: must be an int"),
        ("asked", 0, "asked: must be true or false"),
        ("format", "caylus-state/1", "format"),
        ("players", {}, "players: must be a list"),
        ("pending", "plan", "pending: must be a list"),
    ]:
        _refused({**d, key: value}, message)
    e = copy.deepcopy(d)
    e["players"][1]["resources"]["gold"] = "3"
    _refused(e, "players[1].resources.gold: must be an int")
    e = copy.deepcopy(d)
    e["players"][0]["passed"] = 1
    _refused(e, "players[0].passed: must be true or false")


def test_out_of_range_values_are_named_with_what_is_allowed():
    d = _mid("plan")
    n = len(d["players"])
    _refused({**d, "round": 10}, "round: 10 is out of range; allowed: 1 to 9")
    _refused({**d, "provost": 24}, "provost: 24 is out of range; allowed: 0 to 23")
    _refused({**d, "first_player": n}, f"first_player: {n} is out of range")
    _refused({**d, "decisions": -1}, "decisions: -1 is out of range")
    _refused({**d, "decisions": 32767}, "decisions: 32767 is out of range")
    e = copy.deepcopy(d)
    e["players"][0]["resources"]["food"] = 32000
    _refused(e, "players[0].resources.food: 32000 is out of range at this point; allowed: 0 to ")
    e = copy.deepcopy(d)
    e["players"][0]["pp"] = -1
    _refused(e, "players[0].pp: -1 is out of range")


def test_bad_names_are_named():
    d = _mid("plan")
    for path, value, message in [
        (("phase",), "lunch", "phase: 'lunch' is not one of"),
        (("spaces", "R10", "tile"), "castle", "spaces.R10.tile: 'castle' is not one of"),
        (("spaces", "R1", "side"), "back", "spaces.R1.side: 'back' is not one of"),
        (("characters", "thief"), "gone", "characters.thief: 'gone' is not"),
        (("wood_supply",), ["oak"], "wood_supply[0]: 'oak' is not one of"),
        (("characters_used",), ["king"], "characters_used[0]: 'king'"),
    ]:
        e = copy.deepcopy(d)
        target = e
        for k in path[:-1]:
            target = target[k]
        target[path[-1]] = value
        _refused(e, message)
    e = copy.deepcopy(d)
    e["pending"][-1]["kind"] = "bribe"
    _refused(e, "pending[0].kind: 'bribe' is not one of")


def test_inconsistent_workers_and_components_break_an_invariant():
    d = _mid("plan")
    e = copy.deepcopy(d)
    e["players"][0]["hand"] += 1  # a 16th worker
    _refused(e, "state dict is inconsistent: a colour's workers")
    e = copy.deepcopy(d)
    e["spaces"]["R10"]["workers"] = [0]  # a worker on an empty space
    e["players"][0]["hand"] -= 1
    _refused(e, "state dict is inconsistent: a worker stands where none may")
    e = copy.deepcopy(d)
    e["spaces"]["R1"]["workers"] = [None]
    _refused(e, "spaces.R1.workers: must not end in None")
    e = copy.deepcopy(d)
    e["wood_supply"] = e["wood_supply"][1:]  # a wood tile nowhere
    _refused(e, "state dict is inconsistent: a tile is missing")
    e = copy.deepcopy(d)
    e["bridge"] = [0, 0]
    _refused(e, "bridge: a seat is listed twice")


def test_workers_already_activated_are_refused():
    d = _mid("effect")
    if d["stage"] != 3:  # at a Road building: a worker on the Fairground is already gone
        d = next(
            g.state_dict() for _, g in _games(40)
            if not g.is_over() and g.decision().kind == "effect" and g.state_dict()["stage"] == 3
        )  # fmt: skip
    p = d["pending"][0]["player"]
    d["spaces"]["fairground"]["workers"] = [p]
    d["players"][p]["camp"] -= 1
    _refused(d, "spaces.fairground.workers: no worker stands there in activation")


def test_a_pending_kind_not_asked_in_the_phase_is_refused():
    d = _mid("plan")
    e = copy.deepcopy(d)
    e["pending"] = [{"kind": "monument", "player": 0}]
    _refused(e, "pending: decisions ['monument'] are not asked in phase 'planning'")
    e = _mid("deliver")
    e["pending"] = [{"kind": "bridge", "player": 0}]
    _refused(e, "pending: decisions ['bridge'] are not asked in phase 'delivery'")


def test_pending_arguments_are_checked_against_the_schema_and_the_board():
    d = _mid("effect")
    space = d["pending"][0]["space"]
    e = copy.deepcopy(d)
    e["pending"][0]["space"] = "R99"
    _refused(e, "pending[0].space: 'R99' is not one of")
    e = copy.deepcopy(d)
    e["pending"][0]["space"] = "R20"  # an empty space, nobody on it
    _refused(e, "does not fit the position")
    e = copy.deepcopy(d)
    e["pending"][0]["player"] = (d["pending"][0]["player"] + 1) % len(d["players"])
    _refused(e, f"a worker of player {e['pending'][0]['player']} on {space}")
    e = _mid("pay")
    e["pending"][-1]["owed"] = 0
    _refused(e, "pending[")
    e = _mid("deliver")
    e["pending"][-1]["deliveryman_turn"] = 2
    _refused(e, "deliveryman_turn: 2 is out of range; allowed: 0 to 1")


def test_a_stack_deeper_or_other_than_the_engine_builds_is_refused():
    d = _mid("plan")
    e = copy.deepcopy(d)
    e["pending"] = e["pending"] * 4
    _refused(e, "pending: must be a list of at most 3 entries")
    e = copy.deepcopy(d)
    e["pending"] = [e["pending"][0], e["pending"][0]]
    _refused(e, "the phase's question is asked alone")
    e = copy.deepcopy(d)
    top = e["pending"][0]
    e["pending"] = [{**top, "player": (top["player"] + 1) % len(e["players"])}]
    _refused(e, "pending")


def test_phase_pointers_out_of_the_drivers_ranges_are_refused():
    d = _mid("plan")
    _refused({**d, "stage": 3}, "stage: 3; allowed in planning: 0 to 1")
    _refused({**d, "cursor": 5}, "cursor: 5; allowed in planning stage 1: 0 to 0")
    _refused({**d, "worker_index": 1}, "worker_index: allowed only while Activation")
    _refused({**d, "cursor": -1}, "cursor: -1 is out of range")
    e = _mid("bridge")
    _refused({**e, "cursor": 0}, "the bridge's turn")
    _refused({**e, "cursor": len(e["bridge"]) + 1}, "cursor:")
    e = _mid("effect")
    road = e["stage"] == 3
    _refused({**e, "cursor": 0 if road else 7}, "cursor:")
    e = _mid("deliver")
    _refused({**e, "stage": 4}, "stage: 4 is out of range; allowed: 0 to 3")
    e = _mid("effect")
    _refused({**e, "phase": "delivery"}, "asked: allowed only while Activation")
    e = _mid("draft")
    _refused({**e, "cursor": 0}, "a draft pick already asked")
    _refused({**e, "turn": 7}, "turn: 7 is out of range")


def test_marks_and_bundles_only_in_their_phases():
    d = _mid("plan")
    e = copy.deepcopy(d)
    e["spaces"]["R1"]["mark"] = 0
    e["players"][0]["houses"] -= 1
    _refused(e, "spaces: no Lawyer mark stands in planning")
    e = copy.deepcopy(d)
    e["players"][0]["bundles"] = 1
    _refused(e, "players: bundles are counted only during Delivery")


def test_deep_nesting_is_refused_with_one_line():
    d = _mid("plan")
    value: object = 0
    for _ in range(5000):
        value = [value]
    with pytest.raises(InvalidStateError) as err:
        dict_to_state({**d, "pending": value})
    assert "\n" not in str(err.value)
