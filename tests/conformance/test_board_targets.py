"""Every game's board targets (``viewer.board_targets``, the game contract; ``caylus serve``
plays a click on the board through them): over random games of every player count and option
set, every target names a legal action and a slot its drawing has and draws, no slot stands for
two actions, and most decisions have at least one target (a game whose board cannot be clicked
fails)."""

from __future__ import annotations

import pytest

from caylus_env.core.registry import game_spec
from caylus_env.core.viewer.page import drawing_of
from caylus_env.core.viewer.targets import one_action_per_slot, target_problems
from tests.conformance.conftest import CASES, case_id, options_of, random_game

#: Every how many decisions the drawing is checked (drawing every position costs most).
CHECK_EVERY = 5
#: The share of decisions with a board target a game must reach in random play.
MIN_SHARE = 0.5


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_board_targets_are_legal_actions_on_drawn_slots(case):
    game, n, name = case
    targets_of = game_spec(game).module("viewer").board_targets
    drawing = None
    decisions = with_targets = 0
    for g in random_game(game, n, seed=5, **options_of(game, name)):
        if drawing is None:
            drawing = drawing_of(game, g.config.to_dict())
        if g.is_over():
            break
        d = g.state_dict()
        legal = g.legal_actions()
        targets = targets_of(d, legal)
        assert set(targets) <= set(legal), (g, targets)
        assert len(set(targets.values())) == len(targets), (g, targets)
        if decisions % CHECK_EVERY == 0:
            assert target_problems(drawing, d, legal, targets) == [], g
        decisions += 1
        with_targets += bool(targets)
    assert decisions and with_targets / decisions >= MIN_SHARE, (decisions, with_targets)


def test_target_problems_names_an_illegal_action_a_missing_slot_and_a_shared_slot(game):
    spec = game_spec(game)
    g = spec.new_game(spec.config(spec.min_players), 1)
    d, legal = g.state_dict(), g.legal_actions()
    drawing = drawing_of(game, g.config.to_dict())
    good = spec.module("viewer").board_targets(d, legal)
    assert good and target_problems(drawing, d, legal, good) == []
    (a, slot), *_ = good.items()
    illegal = next(x for x in range(spec.engine().NUM_ACTIONS) if x not in legal)
    assert "not legal" in target_problems(drawing, d, legal, {illegal: slot})[0]
    assert "not a slot" in target_problems(drawing, d, legal, {a: "no-such-slot"})[0]
    other = next(x for x in legal if x != a)
    shared = target_problems(drawing, d, legal, {a: slot, other: slot})
    assert any("stands for actions" in p for p in shared)


def test_a_slot_claimed_twice_stands_for_no_action():
    assert one_action_per_slot([(3, "x"), (4, "x"), (5, None), (6, "y")]) == {6: "y"}
