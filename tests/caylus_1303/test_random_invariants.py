"""Random-game invariants of Caylus 1303 beyond the conformance suite's: over 1,000 complete
compiled random games per player count, every game ends after the Stewardship of round 9 and
not before (rules 4.6, D36), and at the end every component is where the rules allow: each
colour's 15 workers in hand or in the Camp (none left on the board, D15), each player's 9
houses in reserve or on his buildings (D14), every tile once (rules 2.1), players + 3
characters in play (rules 3.2 step 9). (The conformance suite checks the invariants at every
decision of 1,000 games per player count and option set: tests/conformance/test_engine.py.)"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from caylus_env.caylus_1303.engine import kernels as K
from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import NUM_ACTIONS
from caylus_env.caylus_1303.engine.constants import (
    CHARACTERS_EXTRA,
    HOUSES_FOR_BUILDINGS,
    NUM_CHARACTERS,
    NUM_ROUNDS,
    ON_BOARD,
    WORKERS_PER_COLOUR,
    Phase,
)
from caylus_env.caylus_1303.engine.state import pf

GAMES = 1000


@njit(cache=True)
def _play(num_players, games, seed, out):
    """Play ``games`` random games; per game: rounds, phase, decisions, and whether the
    end-of-game accounts hold (1) or the first one that failed (negative)."""
    legal = np.empty(NUM_ACTIONS, np.int64)
    opts = np.array([num_players, 0], np.int64)
    np.random.seed(seed)
    for g in range(games):
        s = np.zeros(L.STATE_SIZE, L.STATE_DTYPE)
        K.setup(s, opts, seed * 100003 + g)
        n = K.advance(s, legal)
        last_round = 1
        ok = 1
        while n > 0:
            if s[L.ROUND] < last_round:
                ok = -1
            last_round = s[L.ROUND]
            K.apply(s, legal[np.random.randint(n)])
            n = K.advance(s, legal)
        held = 0
        for c in range(NUM_CHARACTERS):
            h = s[L.CHARACTER_HOLDER + c]
            if h >= 0 or h == ON_BOARD:
                held += 1
        if held != num_players + CHARACTERS_EXTRA:
            ok = -2
        for p in range(num_players):
            if s[pf(p, L.P_HAND)] + s[pf(p, L.P_CAMP)] != WORKERS_PER_COLOUR:
                ok = -3
            if s[pf(p, L.P_HOUSES)] > HOUSES_FOR_BUILDINGS:
                ok = -4
        if K.check_invariants(s) != 0:
            ok = -5
        out[g, 0] = s[L.ROUND]
        out[g, 1] = s[L.PHASE]
        out[g, 2] = s[L.DECISIONS]
        out[g, 3] = ok


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_every_random_game_ends_after_round_9_with_every_component_accounted(num_players):
    out = np.zeros((GAMES, 4), np.int64)
    _play(num_players, GAMES, num_players, out)
    assert (out[:, 0] == NUM_ROUNDS).all() and (out[:, 1] == Phase.GAME_OVER).all()
    assert (out[:, 3] == 1).all(), np.unique(out[:, 3], return_counts=True)
    assert out[:, 2].min() > 20  # a game is a real game, not a run of automatic steps
