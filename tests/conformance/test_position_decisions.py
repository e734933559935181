"""Every decision kind of every game, at every player count, can be set up by the game's
position builder: the engine's own play reaches the kind (`caylus_env.core.positions.decisions`,
forced decisions included), and the builder's description of that position
(``positions.describe``) builds the very same state, whose first decision has the same legal
actions (``Game.legal_actions_at``) and whose ``Game`` then asks what the engine's does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from caylus_env.core import positions as P
from caylus_env.core.registry import GAME_NAMES, game_spec

#: Games walked per option set before a kind counts as unreached (most kinds come in the
#: first game; the rarest, a Caylus favor given away or a 2-player Caylus 1303 monument
#: choice, in tens).
MAX_GAMES = 400
#: Positions checked per kind: the first forced and the first real decision reached.
PER_KIND = ("forced", "real")

CASES = [(g, n) for g in GAME_NAMES for n in game_spec(g).player_counts]


def _samples(game: str, n: int) -> dict[str, dict[str, P.Reached]]:
    """The first forced and the first real decision of each kind, over the option sets."""
    spec = game_spec(game)
    names = spec.engine().DECISION_NAMES
    found: dict[str, dict[str, P.Reached]] = {kind: {} for kind in names}
    for g in range(MAX_GAMES):
        for options in spec.option_sets.values():
            for reached in P.decisions(game, n, options=options, games=1, seed=g):
                what = "forced" if reached.forced else "real"
                found[reached.kind].setdefault(what, reached)
            if all(found.values()):
                return found
    return found


@pytest.mark.parametrize(("game", "n"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_decision_kind_is_set_up_by_the_builder_as_the_engine_reaches_it(game, n):
    engine = game_spec(game).engine()
    builder = P.positions(game)
    found = _samples(game, n)
    unreached = [kind for kind, got in found.items() if not got]
    assert not unreached, f"no game of {MAX_GAMES} reached {unreached}"
    for kind, got in found.items():
        for what, reached in got.items():
            where = f"{game} {n}p {what} {kind}"
            d = engine.state_to_dict(reached.state)
            description = builder.describe(d)
            assert builder.build_dict(n, **description) == d, where
            assert engine.Game.legal_actions_at(d) == list(reached.legal), where
            built = builder.build(n, **description)
            played = engine.Game.from_state_dict(d)
            assert built.legal_actions() == played.legal_actions(), where
            assert built.state_dict() == played.state_dict(), where


@pytest.mark.parametrize("game", GAME_NAMES)
def test_legal_actions_at_shows_the_forced_decision_that_the_game_answers(game):
    engine = game_spec(game).engine()
    forced = next(
        r for g in range(MAX_GAMES) for r in P.decisions(game, 3, games=1, seed=g) if r.forced
    )
    d = engine.state_to_dict(forced.state)
    (only,) = forced.legal
    assert engine.Game.legal_actions_at(d) == [only]
    assert engine.Game.from_state_dict(d).state_dict() != d  # the game answered it by itself
    assert engine.state_to_dict(forced.state) == d  # and nothing read it changed


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_walk_is_the_engines_own_play(game):
    """`decisions` steps as ``advance`` does: the positions after each real decision are the
    ones ``Game`` reaches with the same moves."""
    engine = game_spec(game).engine()
    real = [r for r in P.decisions(game, 2, games=1, seed=5) if not r.forced]
    first = engine.Game.from_state_dict(engine.state_to_dict(real[0].state))
    for previous, reached in itertools.pairwise(real):
        move = next(
            a
            for a in previous.legal
            if _after(engine, previous.state, a) == engine.state_to_dict(reached.state)
        )
        first.apply(move)
        assert first.state_dict() == engine.state_to_dict(reached.state)
        if len(first.history) >= 60:
            break


def _after(engine, state, action):
    s = state.copy()
    out = np.empty(engine.NUM_ACTIONS, np.int64)
    assert engine.kernels.step(s, action, out) >= 0
    return engine.state_to_dict(s)
