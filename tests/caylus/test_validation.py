"""Untrusted input never reaches a kernel unchecked (``caylus_env.caylus.engine.validate``).

One test per hostile input found by the attack on the loader and the action entry points:
each must be a clear ``ValueError`` (``InvalidStateError`` / ``IllegalActionError``) raised
before anything changes, never a crash, a hang, a wrong exception type or a silent fix-up.
"""

from __future__ import annotations

import copy
from decimal import Decimal

import numpy as np
import pytest

from caylus_env import caylus_v0
from caylus_env.caylus.engine import Game, GameConfig, IllegalActionError
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.headroom import STATE_MAX
from caylus_env.caylus.engine.invariants import Broken, check_invariants
from caylus_env.caylus.engine.validate import InvalidStateError


def base(n=2, seed=1):
    return Game(GameConfig(num_players=n), seed).state_dict()


def activation(n=2, seed=1, **cubes):
    """Phase 5 with nothing left to activate; player 0 holds ``cubes``."""
    d = base(n, seed)
    d["phase"] = "activation"
    d["cursor"] = 29
    d["pending"] = []
    d["passing_order"] = list(d["turn_order"])
    for p in d["players"]:
        p["passed"] = True
    d["players"][0]["cubes"].update(cubes)
    return d


def refused(d, *words):
    with pytest.raises(InvalidStateError) as info:
        Game.from_state_dict(d)
    for w in words:
        assert w in str(info.value), str(info.value)
    return str(info.value)


# -- crashes from a state dict -------------------------------------------------------------------
def test_score_player_with_a_negative_turn_order_index_is_refused():
    d = base()
    d["pending"].append(
        {"kind": "score_player", "player": 0, "section": "dungeon", "turn_order_index": -32768}
    )
    refused(d, "pending[1]")


def test_favor_columns_far_beyond_five_with_a_pending_favor_column_are_refused():
    d = activation()
    d["players"][0]["favor_columns"]["resources"] = 3000
    d["pending"] = [{"kind": "favor_column", "player": 0, "row": "resources"}]
    refused(d, "favor_columns.resources", "3000", "0..5")


def test_finish_space_beyond_the_road_is_refused():
    d = activation()
    d["pending"] = [{"kind": "finish_space", "player": 0, "space": 32767}]
    refused(d, "space", "32767")


def test_a_negative_cursor_in_phase_three_is_refused():
    d = base()
    d["phase"] = "special_buildings"
    d["cursor"] = -32768
    d["pending"] = []
    refused(d, "cursor", "-32768")


# -- hangs in compiled code -------------------------------------------------------------------------
def test_an_empty_phase_name_is_refused():
    d = base()
    d["phase"] = ""
    d["pending"] = []
    refused(d, "phase", "allowed")


@pytest.mark.parametrize("flag", ["no", "food", -2, [1], 1, "false"])
def test_a_passed_flag_that_is_not_a_bool_is_refused(flag):
    d = base()
    d["players"][1]["passed"] = flag
    refused(d, "players[1].passed", "True or False")


def test_a_player_passed_but_absent_from_the_passing_order_is_refused():
    d = base()
    d["pending"] = []
    for p in d["players"]:
        p["passed"] = True
    refused(d, "passed flags differ from the passing order")


def test_one_player_on_every_stable_spot_is_refused():
    d = base(n=3)
    d["stables"] = [0, 0, 0]
    refused(d, "stable")


# -- states the invariant checker rejects ---------------------------------------------------------
INVARIANT_BREAKS = {
    "negative stock": lambda d: d["stock"].__setitem__("statue", -1),
    "negative money": lambda d: d["players"][0].__setitem__("money", -3),
    "houses differ from the board": lambda d: d["players"][0].__setitem__("houses", 3),
    "workers differ from the board": lambda d: d["players"][0].__setitem__("workers_out", 2),
    "bailiff behind the provost's start": lambda d: d.__setitem__("bailiff", 5),
    "an overfull castle": lambda d: d["castle"].__setitem__("dungeon", [6, 1]),
    "a worker on an empty space": lambda d: d["road"][10].__setitem__("worker", 0),
    "turn 31": lambda d: d.__setitem__("turn", 31),
    "towers scored before the dungeon": lambda d: d["scored"].__setitem__("towers", True),
    "a worker of seat 4 in a 2-player game": lambda d: d["road"][0].__setitem__("worker", 4),
    "money 32767": lambda d: d["players"][0].__setitem__("money", 32767),
    "favor columns above 5": lambda d: d["players"][0]["favor_columns"].__setitem__("deniers", 6),
    "a favor marker beyond the open columns": lambda d: d["players"][0][
        "favor_columns"
    ].__setitem__("deniers", 3),
}


@pytest.mark.parametrize("breaking", list(INVARIANT_BREAKS.values()), ids=list(INVARIANT_BREAKS))
def test_a_state_breaking_an_invariant_is_refused(breaking):
    d = base()
    breaking(d)
    refused(d)


def test_a_decision_for_nobody_is_refused():
    d = base()
    d["pending"][-1]["player"] = None
    refused(d, "pending[0].player", "None")


def test_money_leaves_room_in_its_int16_entry_for_the_rest_of_the_game():
    d = base()
    d["players"][0]["money"] = STATE_MAX
    message = refused(d, "players[0].money=32767 is not allowed at this point; allowed: 0..")
    cap = int(message.split("allowed: 0..")[1].split()[0])
    assert 10_000 < cap < STATE_MAX  # far more than a game holds, less what it can add
    d["players"][0]["money"] = cap
    assert Game.from_state_dict(d).state_dict()["players"][0]["money"] == cap
    d["players"][0]["money"] = cap + 1
    refused(d, "money", f"0..{cap}")


# -- pending-decision context ----------------------------------------------------------------------
def test_pay_any_for_a_building_the_player_cannot_afford_is_refused():
    d = activation(food=0, wood=0)
    d["pending"] = [
        {"kind": "pay_any", "player": 0, "building": "marketplace", "source": "carpenter"}
    ]
    refused(d, "cannot build 'marketplace'")
    d["players"][0]["cubes"].update(wood=1, food=1)
    g = Game.from_state_dict(d)  # affordable: accepted, and the payment keeps cubes >= 0
    assert min(g.state_dict()["players"][0]["cubes"].values()) >= 0


def test_two_payments_pending_at_once_are_refused():
    # Found by the state fuzzer's list mutation: each pay_any was judged affordable on its
    # own, and the second paid from cubes the first had taken (a negative cube count).
    d = activation(food=2, wood=1, cloth=1)  # one marketplace: 1 wood and 1 "any" cube
    pay = {"kind": "pay_any", "player": 0, "building": "marketplace", "source": "carpenter"}
    d["pending"] = [pay, copy.deepcopy(pay)]
    refused(d, "two payments", "allowed: one payment")
    d["pending"] = [pay]
    assert min(Game.from_state_dict(d).state_dict()["players"][0]["cubes"].values()) >= 0


def test_alchemist_pay_beyond_the_players_cubes_is_refused():
    d = activation(food=1, wood=0, stone=0, cloth=0)
    d["pending"] = [{"kind": "alchemist_pay", "player": 0, "remaining": 4}]
    refused(d, "remaining=4", "1..1")


def test_every_legal_position_of_a_5_player_scoring_round_trips():
    """The scoring procedure waits with index num_players once all are scored (5 players:
    index 5, beyond ``decisions.SCHEMA``'s declared 0-4)."""
    d = activation(n=5)
    d["phase"] = "end_of_turn"
    d["cursor"] = 2
    d["bailiff"] = 12
    d["provost"] = 12
    last = d["turn_order"][4]
    d["players"][last]["money"] = 5
    d["pending"] = [
        {"kind": "section_done", "player": None, "section": "dungeon"},
        {"kind": "score_player", "player": None, "section": "dungeon", "turn_order_index": 5},
        {"kind": "favor_row", "player": last, "favors": 1},
    ]
    g = Game.from_state_dict(d)
    assert g.state_dict() == d


# -- atomic env load -------------------------------------------------------------------------------
@pytest.mark.parametrize("seat", [None, 2, 7])
def test_env_load_state_dict_is_atomic(seat):
    env = caylus_v0.raw_env(num_players=2)
    env.reset(seed=3)
    game, state = env.game, env.game.state.copy()
    d = env.state_dict()
    d["pending"][-1]["player"] = seat
    with pytest.raises(ValueError):
        env.load_state_dict(d)
    assert env.game is game and np.array_equal(env.game.state, state)
    assert not any(env.terminations.values()) and env.agents == env.possible_agents


# -- silent coercion of actions and fields ---------------------------------------------------------
BAD_ACTIONS = [-0.5, 2.9, "3", b"4", " 5\n", Decimal("7.5"), True, None, float("inf"), 1.0]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_game_apply_accepts_only_an_int_action(action):
    g = Game(GameConfig(num_players=3), seed=4)
    state = g.state.copy()
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    assert repr(action) in str(info.value) and "int" in str(info.value)
    assert np.array_equal(g.state, state) and g.history == []


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_env_step_accepts_only_an_int_action(action):
    env = caylus_v0.raw_env(num_players=3)
    env.reset(seed=4)
    state = env.game.state.copy()
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert np.array_equal(env.game.state, state)


@pytest.mark.parametrize("action", [10**30, -(10**30), 2**63, -1, 10**4])
def test_an_out_of_range_int_action_names_the_legal_actions(action):
    g = Game(GameConfig(num_players=3), seed=4)
    with pytest.raises(IllegalActionError) as info:
        g.apply(action)
    message = str(info.value)
    assert str(action) in message and "legal:" in message and "pass" in message


def test_a_numpy_integer_action_is_accepted():
    g = Game(GameConfig(num_players=3), seed=4)
    a = g.legal_actions()[1]
    g.apply(np.int64(a))
    assert g.history == [a]


@pytest.mark.parametrize(
    ("field", "value"), [("money", "5"), ("money", 7.9), ("prestige", True), ("houses", 2.0)]
)
def test_a_count_that_is_not_an_int_is_refused(field, value):
    d = base()
    d["players"][0][field] = value
    refused(d, f"players[0].{field}", "an int")


def test_an_unknown_key_is_refused():
    d = base()
    d["players"][0]["moneyy"] = 100
    refused(d, "moneyy")


def test_a_missing_key_is_refused():
    d = base()
    del d["players"][0]["prestige"]
    refused(d, "missing", "prestige")


def test_a_loaded_game_is_unchanged_by_a_refused_load():
    g = Game(GameConfig(num_players=2), seed=1)
    state = g.state.copy()
    d = copy.deepcopy(g.state_dict())
    d["cursor"] = -1
    with pytest.raises(InvalidStateError):
        g.load_state_dict(d)
    assert np.array_equal(g.state, state)


# -- the compiled invariant checker is itself safe -------------------------------------------------
def test_invariant_checker_flags_a_seat_not_at_the_table():
    s = Game(GameConfig(num_players=2), seed=1).state.copy()
    s[L.ROAD_WORKER + 3] = 4
    assert check_invariants(s) == Broken.SEAT_OUT_OF_RANGE


def test_invariant_checker_never_indexes_with_garbage():
    rng = np.random.default_rng(0)
    base_state = Game(GameConfig(num_players=4), seed=1).state
    for _ in range(300):
        s = base_state.copy()
        idx = rng.integers(0, L.STATE_SIZE, size=4)
        s[idx] = rng.integers(-32768, 32767, size=4, dtype=np.int16)
        code = check_invariants(s)
        assert 0 <= code < len(Broken)


def test_a_castle_decision_after_the_last_castle_spot_is_refused():
    d = base(n=2)
    d["phase"] = "castle"
    d["passing_order"] = list(d["turn_order"])
    for p in d["players"]:
        p["passed"] = True
    d["cursor"] = 6
    d["pending"] = [{"kind": "castle", "player": 0, "batches_given": 0}]
    refused(d, "castle for player 0")
