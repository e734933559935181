"""Picking roles and the end of the round (rules 3.1-3.3, 4.8, 5.1)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_ROLE
from caylus_env.puerto_rico.engine.constants import (
    NUM_ROLES,
    PHASE_OF_ROLE,
    ROLES_PER_ROUND,
    DecisionKind,
    Phase,
)
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.state import gain_money, money_room, pf, use_privilege

PROSPECTOR_DOUBLOONS = 1  # rules 4.8


@njit(cache=True)
def drive_role_selection(s):
    """The next pick of the round, or the end of the round (rules 3.1, 3.3)."""
    n = np.int64(s[L.NUM_PLAYERS])
    picks = np.int64(s[L.PICKS])
    if picks < ROLES_PER_ROUND[n]:
        push(s, DecisionKind.ROLE, (np.int64(s[L.GOVERNOR]) + picks) % n, 0)
        return
    end_round(s)


@njit(cache=True)
def end_round(s):
    """1 doubloon on each unpicked card, cards back, governor to the left; the game ends
    here if an end condition happened during the round (rules 3.2, 5.1)."""
    for r in range(NUM_ROLES):
        if s[L.ROLE_STATE + r] == 0:
            s[L.ROLE_MONEY + r] += 1
            s[L.BANK_PAID] += 1
        elif s[L.ROLE_STATE + r] == 1:
            s[L.ROLE_STATE + r] = 0
    s[L.GOVERNOR] = (s[L.GOVERNOR] + 1) % s[L.NUM_PLAYERS]
    s[L.PICKS] = 0
    s[L.LIBRARY_USED] = 0
    if s[L.END_TRIGGERED]:
        s[L.PHASE] = Phase.GAME_OVER
    else:
        s[L.ROUND] += 1


@njit(cache=True)
def legal_role(s, out):
    n = 0
    for r in range(NUM_ROLES):
        if s[L.ROLE_STATE + r] == 0:
            out[n] = ACT_ROLE + r
            n += 1
    return n


@njit(cache=True)
def apply_role(s, p, a):
    """Take the card and its doubloons, then start its phase (rules 3.1, 3.2); the
    prospector's doubloon is its whole phase (rules 4.8). Nothing of the picker's buildings
    is judged here: the library's doubling and the lighthouse's captain doubloon are judged
    when they are used, after the phase's guest-house turns (rules 7.2, 7.4): the doubling
    with the privilege, the doubloon on the captain's first loading turn."""
    pop(s)
    r = a - ACT_ROLE
    s[L.ROLE_STATE + r] = 1
    s[L.PICKS] += 1
    on_card = np.int64(s[L.ROLE_MONEY + r])  # already paid out by the bank
    taken = min(on_card, money_room(s, p))
    s[pf(p, L.P_MONEY)] += taken
    s[L.BANK_PAID] -= on_card - taken  # what his hand cannot hold goes back (MAX_MONEY)
    s[L.ROLE_MONEY + r] = 0
    ph = PHASE_OF_ROLE[r]
    if ph < 0:
        s[L.PICKER] = p  # the privilege is used at once: no phase, no guest turn
        gain_money(s, p, PROSPECTOR_DOUBLOONS * use_privilege(s))
        s[L.PICKER] = -1
        s[L.DOUBLED] = 0
        return
    s[L.PHASE] = ph
    s[L.PICKER] = p
    s[L.STEP] = 0
    s[L.IDLE] = 0
    s[L.GUEST_STEP] = 0


@njit(cache=True)
def finish_phase(s):
    """Back to picking roles once a role has been carried out."""
    s[L.PHASE] = Phase.ROLE_SELECTION
    s[L.PICKER] = -1
    s[L.STEP] = 0
    s[L.IDLE] = 0
    s[L.GUEST_STEP] = 0
    s[L.DOUBLED] = 0
