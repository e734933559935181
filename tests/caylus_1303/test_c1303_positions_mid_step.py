"""The Caylus 1303 builder sets up every decision where the engine asks it, mid-step included:
the draft from any first player and partway through (rules 3.3), a given Guilds Bridge turn
(rules 4.2), a Planning turn after a forced pass (rules 4.1 C), a worker's effect already asked
and what it gave (rules 4.2, 4.5), a monument's residence (D4); ``describe`` gives back the
description of any position a decision is asked in, and the loader refuses the pointers the
engine could not have left (the draft's cursor against the picks made, its turn, its round)."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

from caylus_env.caylus_1303 import positions as P
from caylus_env.caylus_1303.engine import (
    NUM_ACTIONS,
    Game,
    GameConfig,
    InvalidStateError,
    kernels,
    state_to_dict,
)
from caylus_env.caylus_1303.engine.constants import CHARACTERS_EXTRA
from caylus_env.caylus_1303.engine.state_dict import dict_to_state
from caylus_env.core.positions import PositionError, play_out


def _held(g) -> dict[str, int]:
    return {c: h for c, h in g.state_dict()["characters"].items() if isinstance(h, int)}


def _board(g) -> list[str]:
    return [c for c, h in g.state_dict()["characters"].items() if h == "board"]


def _draft_to_the_end(g) -> list[int]:
    """Play the first legal pick until Planning starts; the seats that picked, in order."""
    seats = []
    while g.phase == "draft":
        seats.append(g.decision().player)
        g.apply(g.legal_actions()[0])
    return seats


# -- the draft (rules 3.3) ---------------------------------------------------------------------
def test_a_draft_with_a_first_player_starts_with_the_seat_before_his():
    g = P.build(4, phase="draft", first_player=2)
    d = g.state_dict()
    assert (d["first_player"], d["turn"], d["cursor"]) == (2, 1, 1)
    assert g.decision().kind == "draft" and g.decision().player == 1
    assert _draft_to_the_end(g) == [1, 0, 3, 2]
    assert len(_held(g)) == 4 and len(_board(g)) == CHARACTERS_EXTRA


def test_a_draft_with_nothing_pending_asks_every_seat_once():
    """``pending=[]``: no pick asked yet, so the cursor counts no pick (it used to keep the
    seed's 1, and the draft skipped its last seat: 3 picks, 4 characters left)."""
    d = P.build_dict(4, phase="draft", pending=[])
    assert (d["cursor"], d["pending"]) == (0, [])
    g = P.start(d)
    first = d["first_player"]
    assert _draft_to_the_end(g) == [(first - 1 - j) % 4 for j in range(4)]
    assert len(_held(g)) == 4 and len(_board(g)) == CHARACTERS_EXTRA


def test_a_draft_partway_asks_the_next_seat_and_counts_the_picks_made():
    g = P.build(3, phase="draft", first_player=0, players={2: {"characters": ["thief"]}})
    d = g.state_dict()
    assert d["cursor"] == 2 and d["pending"] == [{"kind": "draft", "player": 1}]
    assert "character:thief" not in P.legal_names(g)
    assert _draft_to_the_end(g) == [1, 0]
    description = P.describe(d)  # the next pick is the builder's default: left out
    assert "pending" not in description and description["phase"] == "draft"
    assert description["players"] == {2: {"characters": ["thief"]}}
    assert P.build_dict(3, **description) == d


def _draft(**changes) -> dict:
    d = P.build_dict(3, phase="draft", first_player=0, players={2: {"characters": ["thief"]}})
    d.update(changes)
    return d


@pytest.mark.parametrize(
    ("edit", "field", "message"),
    [
        (
            {"cursor": 3, "pending": [{"kind": "draft", "player": 0}]},
            "cursor",
            "3 does not match the picks made: it counts 2 made",
        ),
        ({"cursor": 2, "pending": []}, "cursor", "it counts 2 made"),
        ({"cursor": 1, "pending": [{"kind": "draft", "player": 2}]}, "cursor", "seat 2 holds 1"),
        ({"turn": 0}, "turn", "allowed in the draft: 2"),
        ({"round": 2}, "round", "the draft comes before round 1 only"),
    ],
)
def test_a_draft_the_engine_could_not_have_reached_is_refused_naming_the_field(
    edit, field, message
):
    d = _draft(**edit)
    with pytest.raises(InvalidStateError, match=re.escape(f"state dict {field}: ")) as refused:
        dict_to_state(d)
    assert message in str(refused.value) and "\n" not in str(refused.value)


def test_a_draft_pick_held_by_a_seat_out_of_the_draft_order_is_refused():
    d = _draft()
    d["characters"]["thief"] = 1  # seat 1 picks after seat 2 (rules 3.3)
    with pytest.raises(InvalidStateError, match=re.escape("state dict cursor: 2 does not match")):
        dict_to_state(d)


# -- Planning (rules 4.1) ----------------------------------------------------------------------
def test_a_planning_turn_after_a_forced_pass_asks_the_next_seat():
    """Seat 0 has no worker left: his turn can only be a pass (rules 4.1 C), which the engine
    answers by itself; ``Game.legal_actions_at`` shows it, and the next seat is asked."""
    d = P.build_dict(
        3, first_player=0, players={0: {"hand": 0}}, pending=[{"kind": "plan", "player": 0}]
    )
    assert (d["stage"], d["turn"]) == (1, 1)
    assert Game.legal_actions_at(d) == [Game.string_to_action("pass")]
    g = P.start(d)
    assert g.state_dict()["bridge"] == [0] and (g.decision().kind, g.decision().player) == (
        "plan",
        1,
    )
    # the position right after it, as the engine reached it, described and built again
    after = g.state_dict()
    assert P.describe(after)["pending"] == [{"kind": "plan", "player": 1}]
    assert P.build_dict(3, **P.describe(after)) == after


# -- Activation (rules 4.2) --------------------------------------------------------------------
def test_a_given_bridge_turn_is_set_up_from_its_pending_decision():
    g = P.build(
        3,
        phase="activation",
        bridge=[2, 0, 1],
        players={0: {"hand": 3}},
        pending=[{"kind": "bridge", "player": 0}],
    )
    d = g.state_dict()
    assert (d["stage"], d["cursor"], d["first_player"]) == (1, 2, 2)
    assert g.decision().kind == "bridge" and g.decision().player == 0
    P.play(g, "decline")
    assert (g.decision().kind, g.decision().player) == ("bridge", 1)
    with pytest.raises(PositionError, match=re.escape("at='R3': the bridge's step comes before")):
        P.build(3, phase="activation", at="R3", pending=[{"kind": "bridge", "player": 0}])


def test_a_workers_effect_already_asked_is_not_asked_again_nor_paid_again():
    """With the effect pending the owner's bonus was paid when it was asked (D19): the
    description gives the resources after it, and the builder pays nothing."""
    asked = P.build(
        3,
        phase="activation",
        provost=12,
        players={0: {"buildings": ["wooden_farm", "stone_farm"]}, 1: {"hand": 5}},
        workers={"R11": 1},
        pending=[{"kind": "effect", "player": 1, "space": "R11"}],
    )
    d = asked.state_dict()
    assert (d["stage"], d["cursor"], d["worker_index"], d["asked"]) == (3, 11, 0, True)
    assert d["players"][0]["resources"]["food"] == 1  # as described: no bonus paid here
    at = P.build(
        3,
        phase="activation",
        at="R11",
        provost=12,
        players={0: {"buildings": ["wooden_farm", "stone_farm"]}, 1: {"hand": 5}},
        workers={"R11": 1},
    )
    assert at.state_dict()["players"][0]["resources"]["food"] == 2  # the engine paid it
    assert P.legal_names(asked) == P.legal_names(at)


def test_the_second_workers_effect_after_the_first_left_for_the_camp():
    """The Journeyman's worker resolves after the first, who went to the Camp (D26):
    ``workers={"R10": [None, 2]}``."""
    g = P.build(
        3,
        phase="activation",
        provost=12,
        players={0: {"buildings": ["wooden_farm"]}, 2: {"characters": ["journeyman"]}},
        workers={"R10": [None, 2]},
        pending=[{"kind": "effect", "player": 2, "space": "R10"}],
    )
    d = g.state_dict()
    assert d["spaces"]["R10"]["workers"] == [None, 2] and d["worker_index"] == 1
    assert P.build_dict(3, **P.describe(d)) == d


def test_a_favor_a_workers_effect_gave_is_set_up_at_its_building():
    with pytest.raises(PositionError, match=re.escape("at: a favor pending in Activation")):
        P.build(
            3,
            phase="activation",
            workers={"fairground": 0},
            pending=[{"kind": "favor", "player": 0}],
        )
    g = P.build(
        3,
        phase="activation",
        at="fairground",
        players={1: {"characters": ["thief"]}},
        workers={"fairground": 0},
        pending=[{"kind": "favor", "player": 0}],
    )
    d = g.state_dict()
    assert (d["stage"], d["cursor"], d["worker_index"], d["asked"]) == (0, 0, 0, True)
    assert "steal:thief" in P.legal_names(g) and "use_site:S1" in P.legal_names(g)
    P.play(g, "steal:thief")
    assert g.state_dict()["spaces"]["fairground"]["workers"] == []  # then off to the Camp


# -- describe ----------------------------------------------------------------------------------
def test_describe_gives_back_a_played_position_and_its_legal_actions():
    g = Game(GameConfig(num_players=4), seed=11)
    play_out(g, seed=3, max_decisions=180)
    d = g.state_dict()
    description = P.describe(g)
    assert description == P.describe(d)
    assert P.build_dict(4, **description) == d
    built = P.build(4, **copy.deepcopy(description))
    assert built.state_dict() == d and built.legal_actions() == g.legal_actions()


def test_describe_refuses_a_position_between_two_automatic_steps():
    """An effect answered whose worker is not yet sent to the Camp: no decision shows it."""
    g = P.build(
        3,
        phase="activation",
        at="R11",
        provost=12,
        players={0: {"buildings": ["wooden_farm", "stone_farm"]}},
        workers={"R11": 1},
    )
    s = g.state.copy()
    kernels.apply(s, g.string_to_action("decline"))  # no advance: the worker still stands
    d = state_to_dict(s)
    assert d["asked"] and d["pending"] == []
    with pytest.raises(PositionError, match="between two automatic steps of the engine"):
        P.describe(d)


def test_a_finished_game_is_described_and_built():
    g = Game(GameConfig(num_players=2), seed=4)
    play_out(g, seed=4)
    d = g.state_dict()
    assert d["phase"] == "game_over"
    built = P.build(2, **P.describe(d))
    assert built.is_over() and built.state_dict() == d
    assert np.array_equal(built.scores(), g.scores())
    out = np.empty(NUM_ACTIONS, np.int64)
    assert kernels.legal_actions(built.state, out) == 0
