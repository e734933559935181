"""The Puerto Rico state-dict loader: every position the engine reaches loads back, and a
position that does not fit is refused with a one-line ``InvalidStateError`` naming the field
(``caylus_env.puerto_rico.engine.state_dict``). The fuzz of these dicts runs for every game
in ``tests/conformance/test_state_dict_fuzz.py``."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from caylus_env.puerto_rico.engine import Game, GameConfig, InvalidStateError
from caylus_env.puerto_rico.engine.constants import MAX_DECISIONS_LIMIT
from caylus_env.puerto_rico.engine.state import MAX_MONEY
from caylus_env.puerto_rico.engine.state_dict import (
    BANK_PAID_LIMIT,
    MAX_AMOUNT,
    MAX_ROUND,
    MIN_ROUND_DECISIONS,
)
from caylus_env.puerto_rico.positions import act, build_dict, building, fresh, game, start_role


def _played(n, seed, max_decisions=4000, **options):
    g = Game(GameConfig(num_players=n, max_decisions=max_decisions, **options), seed=seed)
    rng = np.random.default_rng(seed)
    while not g.is_over():
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
    return g


def test_games_cut_off_by_the_decision_cap_reload():
    # The 112 seeded games (33 refused before): a truncated game keeps the question
    # it was asked, and the loader judges its answers as if the cap were not reached.
    for seed in range(112):
        g = _played(2 + seed % 4, seed, max_decisions=30 + seed * 7, expansion=seed % 2 == 1)
        back = Game.from_state_dict(g.state_dict())
        assert back.is_over() and back.is_truncated() == g.is_truncated()
        assert back.state_dict() == g.state_dict()


@pytest.mark.parametrize("n", [3, 4, 5])  # 2 players (three roles each a round) end by the rules
def test_hoarding_to_the_highest_decision_cap_keeps_every_count_in_its_int16_entry(n):
    # Rules 6.9: players who never pick the mayor or the builder (nor build) leave doubloons
    # on the role cards every round; at the highest cap the doubloons in play must stay
    # below the loader's cap (so the game reloads) and far from the int16 limit (no wrap).
    g = Game(GameConfig(num_players=n, max_decisions=MAX_DECISIONS_LIMIT), seed=n)
    rng = np.random.default_rng(n)
    while not g.is_over():
        legal = g.legal_actions()
        keep = [
            a
            for a in legal
            if not any(w in g.action_to_string(a) for w in ("mayor", "builder", "build:"))
        ]
        pick = keep or legal
        g.apply(pick[int(rng.integers(len(pick)))])
    d = g.state_dict()
    assert g.is_truncated() and d["decisions"] == MAX_DECISIONS_LIMIT
    assert MAX_DECISIONS_LIMIT // 2 < d["bank_paid"] < MAX_AMOUNT  # hoarded, within the cap
    assert Game.from_state_dict(d).state_dict() == d


def test_every_position_of_seeded_games_reloads():
    for seed in range(3):
        options = {"expansion": True, "draft": "random"} if seed % 2 else {}
        g = Game(GameConfig(num_players=2 + seed % 4, **options), seed=seed)
        rng = np.random.default_rng(seed)
        while not g.is_over():
            assert Game.from_state_dict(g.state_dict()).state_dict() == g.state_dict()
            legal = g.legal_actions()
            g.apply(legal[int(rng.integers(len(legal)))])


def _refused(d, match):
    with pytest.raises(InvalidStateError, match=match) as err:
        game(d)
    assert "\n" not in str(err.value)


def test_pending_decision_of_another_seat_is_refused():
    d = fresh(3)
    start_role(d, "trader", 0)
    d["step"] = 1
    d["guest_step"] = 3  # the phase's guest-house turns come first (rules 7.4)
    d["pending"] = [{"kind": "sell", "player": 2}]
    _refused(d, "seat 0's, whose turn it is")


def test_duplicated_top_decision_is_refused():
    d = fresh(3)
    d["pending"] = [{"kind": "role", "player": 0}, {"kind": "role", "player": 0}]
    _refused(d, "the pick of seat 0")


def test_university_decision_for_a_building_not_owned_is_refused():
    d = fresh(3)
    building(d, 0, "university", 1)
    start_role(d, "builder", 0)
    d["step"] = 1
    d["guest_step"] = 3  # the phase's guest-house turns come first (rules 7.4)
    d["pending"] = [{"kind": "university", "player": 0, "building": "harbor"}]
    _refused(d, "the building just built")


def test_hacienda_decision_without_an_occupied_hacienda_is_refused():
    d = fresh(3)
    start_role(d, "settler", 0)
    d["step"] = 1
    d["guest_step"] = 3  # the phase's guest-house turns come first (rules 7.4)
    d["pending"] = [{"kind": "settle", "player": 0, "library_extra": 0}]
    game(d)  # the settler's own turn fits
    d["pending"].append({"kind": "hacienda", "player": 0})
    _refused(d, "an occupied hacienda")


@pytest.mark.parametrize(
    ("field", "value", "match"),
    [
        (("players", 0, "money"), 32767, "money"),
        (("roles", "settler", "doubloons"), 32000, "doubloons"),
        (("round",), 32767, "round"),
        (("decisions",), 5000, "decisions"),
        (("vp_supply",), -30000, "vp_supply"),
    ],
)
def test_counters_above_what_a_game_reaches_are_refused(field, value, match):
    d = fresh(3)
    node = d
    for key in field[:-1]:
        node = node[key]
    node[field[-1]] = value
    _refused(d, match)


def test_a_third_ship_with_two_players_is_refused():
    d = fresh(2)
    d["ships"].append({"capacity": 8, "good": None, "load": 0})
    _refused(d, "2 ships of 2 players")


def test_role_cards_not_of_the_player_count_are_refused():
    d = fresh(3)
    d["roles"]["prospector_1"]["in_game"] = True
    _refused(d, "with 3 players the cards are")


def test_deeply_nested_value_is_refused_with_a_value_error():
    d = fresh(3)
    deep: object = "corn"
    for _ in range(5000):
        deep = [deep]
    d["produced"] = deep
    _refused(d, "produced")
    d = fresh(3)
    d["pending"] = deep
    _refused(d, "pending")


def test_refused_dict_changes_nothing():
    d = fresh(3)
    d["players"][0]["money"] = 32767
    before = copy.deepcopy(d)
    _refused(d, "money")
    assert d == before


def test_guest_turn_before_storage_is_a_position_that_reloads():
    d = fresh(3, expansion=True)
    building(d, 0, "guest_house", 1)
    building(d, 0, "storehouse", 0)
    d["players"][0]["goods"]["corn"] = 2
    d["goods_supply"]["corn"] -= 2
    d["ships"] = [
        {"capacity": c, "good": x, "load": c}
        for c, x in zip([4, 5, 6], ["indigo", "tobacco", "coffee"], strict=True)
    ]
    for x, c in zip(["indigo", "tobacco", "coffee"], [4, 5, 6], strict=True):
        d["goods_supply"][x] -= c
    start_role(d, "captain", 1)
    g = game(d)
    act(g, "decline", "decline")  # captain phase start, storage start
    assert g.decision().kind == "guest_house" and g.state_dict()["guest_step"] == 4
    assert Game.from_state_dict(g.state_dict()).state_dict() == g.state_dict()


@pytest.mark.parametrize(
    ("returned", "short"), [(["vp"], 0), (["colonist", "good"], 0), ([], 1), (["good"], 2)]
)
def test_black_market_return_pending_while_no_return_is_asked_is_refused(returned, short):
    # Rules 7.2: the return is asked only during a build that falls short; a return left
    # pending at a role pick would stay to the end, whose state dict the loader refuses.
    d = fresh(3, expansion=True)
    assert [e["kind"] for e in d["pending"]] == ["role"]
    d["black_market"] = {"returned": returned, "short": short}
    _refused(d, r"black_market: .* no black_market decision is pending; allowed: short 0")


def _black_market_game(n, seed):
    """A random expansion game whose players draft, build and use the black market."""
    g = Game(GameConfig(num_players=n, expansion=True), seed=seed)
    rng = np.random.default_rng(seed)
    while not g.is_over():
        yield g
        legal = g.legal_actions()
        prefer = [a for a in legal if "black_market" in g.action_to_string(a)]
        pick = prefer if prefer and rng.random() < 0.9 else legal
        g.apply(pick[int(rng.integers(len(pick)))])
    yield g


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_position_of_black_market_games_round_trips_exactly(n):
    returns = 0
    for seed in range(2):
        for g in _black_market_game(n, seed):
            d = g.state_dict()
            returns += d["black_market"]["short"] > 0
            assert Game.from_state_dict(d).state_dict() == d
    assert returns > 0  # the black market's returns were asked and reloaded


def _reloads_to_the_end(d):
    g = game(d)
    rng = np.random.default_rng(0)
    while not g.is_over():
        legal = g.legal_actions()
        g.apply(legal[int(rng.integers(len(legal)))])
        assert Game.from_state_dict(g.state_dict()).state_dict() == g.state_dict()
    return g


def test_round_and_role_doubloons_leave_room_for_the_rounds_still_ahead():
    # Rules 3.2: each round an unpicked card gains a doubloon, and every round takes its
    # picks. A round at the loader's fixed cap (MAX_ROUND) played on past it, to a position
    # the loader refused and an observation outside its space.
    d = fresh(3)
    d["options"]["max_decisions"] = 60
    ahead = 60 // MIN_ROUND_DECISIONS  # no decision taken, no pick yet
    d["round"] = MAX_ROUND - ahead + 1
    _refused(d, rf"round: .* allowed: 1 to {MAX_ROUND - ahead} ")
    d["round"] = MAX_ROUND - ahead
    g = _reloads_to_the_end(copy.deepcopy(d))
    assert g.is_truncated() and g.state_dict()["round"] <= MAX_ROUND
    d["round"] = 1
    unpicked = next(r for r, v in d["roles"].items() if v["in_game"] and not v["picked"])
    d["roles"][unpicked]["doubloons"] = MAX_ROUND - ahead
    d["bank_paid"] += MAX_ROUND - ahead
    _refused(d, rf"roles\.{unpicked}\.doubloons: .* allowed: 0 to {MAX_ROUND - 1 - ahead} ")
    d["roles"][unpicked]["doubloons"] -= 1
    d["bank_paid"] -= 1
    _reloads_to_the_end(d)


def test_a_player_holding_the_most_doubloons_takes_no_more_and_the_bank_keeps_count():
    # The bank is unlimited (rules 6.7), but a player's hand holds MAX_MONEY at most: past it
    # the int16 entry would wrap in a game nobody ends. The card's doubloons he cannot hold go
    # back to the bank; every payout then counts only what he took.
    d = fresh(3)
    d["players"][0]["money"] = MAX_MONEY - 1
    d["bank_paid"] += MAX_MONEY - 1 - fresh(3)["players"][0]["money"]
    card = next(r for r, v in d["roles"].items() if v["in_game"] and not v["picked"])
    d["roles"][card]["doubloons"] = 3
    d["bank_paid"] += 3
    g = game(d)
    act(g, f"role:{card}")
    after = g.state_dict()
    assert after["players"][0]["money"] == MAX_MONEY
    held = sum(p["money"] for p in after["players"])
    on_cards = sum(v["doubloons"] for v in after["roles"].values())
    assert after["bank_paid"] == held + on_cards  # the doubloons that did not fit went back
    assert int(g.KERNELS.check_invariants(g.state)) == 0


def test_every_seat_at_the_most_doubloons_plays_to_the_end_through_positions_it_accepts():
    d = fresh(4)
    start = fresh(4)
    for p, entry in enumerate(d["players"]):
        entry["money"] = MAX_MONEY - p
        d["bank_paid"] += MAX_MONEY - p - start["players"][p]["money"]
    _reloads_to_the_end(d)
    d["players"][0]["money"] = MAX_MONEY + 1
    d["bank_paid"] += MAX_MONEY + 1
    _refused(d, rf"players\[0\]\.money: .*allowed: 0 to {MAX_MONEY}")
    assert BANK_PAID_LIMIT <= 32767  # every payout of any game fits the int16 entry


# -- the phase's cursors (state_dict._check_cursors): only those the drivers keep -------------
EXPANSION = {"expansion": True}


def _built(**description):
    return build_dict(3, **description)


def test_a_phase_turn_before_its_start_guest_house_turns_is_refused():
    # Rules 7.4: every owner's guest-house turn at the start of the phase comes first; the
    # drivers count them up to num_players (3) before the first turn of the phase.
    d = _built(role="trader", picker=0, pending=[{"kind": "sell", "player": 0}])
    assert (d["step"], d["guest_step"]) == (1, 3)
    game(d)
    d["guest_step"] = 1
    _refused(d, r"^state dict guest_step: 1 once the phase's turns have begun; allowed: 3 ")


def test_a_start_of_phase_guest_house_turn_after_the_phases_first_turn_is_refused():
    guest = {"buildings": {"guest_house": 1, "small_market": 0}}
    d = _built(
        options=EXPANSION,
        role="trader",
        picker=0,
        players={1: guest},
        pending=[{"kind": "guest_house", "player": 1}],
    )
    assert (d["step"], d["guest_step"]) == (0, 2)  # seat 1: the second guest turn
    game(d)
    d["step"] = 1
    _refused(d, r"^state dict step: 1 during the guest-house turns at the start of the phase")


def test_a_loading_turn_whose_idle_count_misses_turns_without_a_shipment_is_refused():
    # Rules 4.6: nobody has shipped, so the captain's turn (seat 0) passed without a loading.
    description = {
        "role": "captain",
        "picker": 0,
        "players": {1: {"goods": {"corn": 1}}},
        "pending": [{"kind": "load", "player": 1}],
    }
    d = _built(**description)
    assert (d["step"], d["idle"]) == (2, 1)
    game(d)
    d["idle"] = 0
    _refused(d, r"^state dict idle: 0 but nobody has shipped yet this phase, .* allowed: 1 ")


def test_idle_turns_outside_the_captain_phase_or_short_of_a_round_in_its_storage_are_refused():
    d = _built(role="trader", picker=0, pending=[{"kind": "sell", "player": 0}], idle=1)
    _refused(d, r"^state dict idle: 1 outside the captain phase; allowed: 0$")
    d = _built(role="captain", picker=0, phase="captain_storage")
    assert d["idle"] == 3
    game(d)
    d["idle"] = 2
    _refused(d, r"^state dict idle: 2 in the storage; allowed: 3 ")


def test_shipping_marks_outside_the_captain_phase_are_refused():
    d = _built(role="trader", picker=0, players={2: {"shipped": True}})
    _refused(d, r"^state dict players\[2\]\.shipped: true outside the captain phase")


def test_a_wharf_used_without_a_shipment_is_refused():
    wharf = {"buildings": {"wharf": 1}, "goods": {"corn": 1}}
    d = _built(
        role="captain",
        picker=0,
        players={0: wharf, 1: {"shipped": True}, 2: {"goods": {"sugar": 1}}},
        pending=[{"kind": "load", "player": 2}],
    )
    game(d)
    d["players"][0]["wharf_used"] = True
    _refused(d, r"^state dict players\[0\]\.wharf_used: true but he has not shipped")


def test_a_small_wharf_shipment_after_turns_without_a_loading_is_refused():
    shipper = {"buildings": {"small_wharf": 1}, "goods": {"corn": 2}, "small_wharf_used": True}
    d = _built(
        options=EXPANSION,
        role="captain",
        picker=0,
        players={0: shipper},
        pending=[{"kind": "small_wharf", "player": 0, "barrels": 1}],
    )
    game(d)
    d["idle"] = 1
    _refused(d, r"^state dict idle: 1 during a small-wharf shipment; allowed: 0")


def test_a_shipment_or_a_doubling_before_the_phases_guest_house_turns_end_is_refused():
    owner = {"buildings": {"guest_house": 1, "lighthouse": 0}, "goods": {"corn": 1}}
    guest = {"options": EXPANSION, "role": "captain", "picker": 0, "players": {0: owner}}
    d = _built(**guest, pending=[{"kind": "guest_house", "player": 0}])
    game(d)
    d["players"][1]["shipped"] = True
    _refused(d, r"^state dict players\[1\]\.shipped: true before the captain phase's first")
    d = _built(**guest, pending=[{"kind": "guest_house", "player": 0}], library_used=True)
    game(d)
    d["doubled"] = True
    _refused(d, r"^state dict doubled: a privilege is used in the phase's turns")
