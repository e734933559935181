"""Transitional: the dispatchers still live in rules.py while it is split into phases."""

import numpy as np
from numba import njit

from caylus_env.engine.layout import NUM_PLAYERS, P_PRESTIGE, PLAYER_STRIDE, PLAYERS
from caylus_env.engine.rules import (
    ILLEGAL,
    PH_GAME_OVER,
    PHASE,
    advance,
    current_player,
    legal_actions,
    legal_mask,
    new_state,
    play_random_games,
    random_playout,
    seed_playouts,
    step,
)
from caylus_env.engine.rules import _apply as apply

__all__ = [
    "ILLEGAL", "advance", "apply", "current_player", "is_terminal", "legal_actions", "legal_mask",
    "new_state", "play_random_games", "random_playout", "returns", "seed_playouts", "step",
]


@njit(cache=True)
def is_terminal(s):
    return s[PHASE] == PH_GAME_OVER


@njit(cache=True)
def returns(s, ret):
    n = np.int64(s[NUM_PLAYERS])
    for i in range(n):
        pi = s[PLAYERS + i * PLAYER_STRIDE + P_PRESTIGE]
        acc = 0.0
        for j in range(n):
            if j != i:
                pj = s[PLAYERS + j * PLAYER_STRIDE + P_PRESTIGE]
                if pi > pj:
                    acc += 1.0
                elif pi < pj:
                    acc -= 1.0
        ret[i] = acc / (n - 1)
