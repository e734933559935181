"""Phase 4: moving the provost, and the merchants' guild's free move (phase 3c).

In passing order each player may move the provost 1 to 3 spaces either way along
the road, paying 1 denier per space; the merchants' guild's worker moves it the
same way for free. The provost never leaves the road (spaces 1-28).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import (
    ACT_DECLINE,
    ACT_GUILD,
    ACT_PASS,
    ACT_PROVOST,
    DELTAS,
    NUM_PROVOST_MOVES,
)
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.constants import PROVOST_COST_PER_SPACE, DecisionKind, Phase
from caylus_env.caylus.engine.decisions import pop, push
from caylus_env.caylus.engine.phases.common import enter_phase
from caylus_env.caylus.engine.state import add_money, money


@njit(cache=True, inline="always")
def legal_provost_moves(s, p, free, first, base, out):
    """``first`` (pass or decline), then ``base + i`` for each move ``DELTAS[i]`` that stays
    on the road and, unless ``free``, that ``p`` can pay."""
    out[0] = first
    n = 1
    have = money(s, p)
    for i in range(NUM_PROVOST_MOVES):
        d = DELTAS[i]
        dest = s[L.PROVOST] + d
        if 1 <= dest <= ROAD_LEN and (free or have >= abs(d) * PROVOST_COST_PER_SPACE):
            out[n] = base + i
            n += 1
    return n


@njit(cache=True, inline="always")
def legal_provost(s, p, out):
    """Pass, or a paid move of 1-3 spaces (phase 4)."""
    return legal_provost_moves(s, p, False, ACT_PASS, ACT_PROVOST, out)


@njit(cache=True, inline="always")
def apply_provost(s, p, a):
    pop(s)
    if a != ACT_PASS:
        d = DELTAS[a - ACT_PROVOST]
        s[L.PROVOST] += d
        add_money(s, p, -abs(d) * PROVOST_COST_PER_SPACE)


@njit(cache=True, inline="always")
def legal_guild(s, p, out):
    """Do not move, or a free move of 1-3 spaces (the merchants' guild, phase 3c)."""
    return legal_provost_moves(s, p, True, ACT_DECLINE, ACT_GUILD, out)


@njit(cache=True, inline="always")
def apply_guild(s, p, a):
    pop(s)
    if a != ACT_DECLINE:
        s[L.PROVOST] += DELTAS[a - ACT_GUILD]


@njit(cache=True, inline="always")
def drive_provost(s):
    """Phase 4: each player, in passing order, is asked once."""
    i = np.int64(s[L.CURSOR])
    if i >= s[L.NUM_PLAYERS]:
        enter_phase(s, Phase.ACTIVATION)
        return
    s[L.CURSOR] = i + 1
    push(s, DecisionKind.PROVOST, s[L.PASS_ORDER + i], 0, 0)
