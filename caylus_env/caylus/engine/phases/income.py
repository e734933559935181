"""Phase 1: income, and the 2-player turn order flip (rules 1.4).

Every player gains 2 deniers, plus the income of the buildings they own
(residences 1, the library 1, the hotel 2: ``B_INCOME``); the turn's bookkeeping
(passing, batches given) is reset.
"""

from __future__ import annotations

from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.buildings import B_INCOME
from caylus_env.caylus.engine.constants import INCOME_BASE, TWO_PLAYER_GAME, Phase
from caylus_env.caylus.engine.phases.common import enter_phase
from caylus_env.caylus.engine.state import add_money, player_field


@njit(cache=True)
def drive_income(s):
    """Phase 1: 2 deniers + 1 per residence + library 1 + hotel 2 (B_INCOME)."""
    n = s[L.NUM_PLAYERS]
    if s[L.TURN] > 1 and n == TWO_PLAYER_GAME:
        first = s[L.TURN_ORDER]  # 2 players: the order flips every turn (1.4)
        s[L.TURN_ORDER] = s[L.TURN_ORDER + 1]
        s[L.TURN_ORDER + 1] = first
    for p in range(n):
        add_money(s, p, INCOME_BASE)
        s[player_field(p, L.P_PASSED)] = 0
        s[player_field(p, L.P_BATCHES)] = 0
        s[L.PASS_ORDER + p] = -1
    for k in range(1, ROAD_LEN + 1):
        owner = s[L.ROAD_OWNER + k]
        if owner >= 0:
            add_money(s, owner, B_INCOME[s[L.ROAD_TILE + k]])
    s[L.NUM_PASSED] = 0
    enter_phase(s, Phase.PLACEMENT)
