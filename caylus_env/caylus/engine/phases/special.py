"""Phase 3: the special buildings, resolved in board order (rules 4, phase 3a-3f).

Gate (3a: its worker moves to a free target, see ``phases.placement``), trading
post (3b: 3 deniers), merchants' guild (3c: a free provost move, see
``phases.provost``), joust field (3d: 1 denier + 1 cloth for a favor), stables
(3e: the new turn order), inn (3f: the entering worker evicts the resident; a lone
resident may stay or leave). ``CURSOR`` holds the next special building's step.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import ACT_DECLINE, ACT_INN_LEAVE, ACT_INN_STAY, ACT_JOUST
from caylus_env.caylus.engine.constants import (
    JOUST_COST_CLOTH,
    JOUST_COST_DENIERS,
    JOUST_FAVORS,
    MAX_PLAYERS,
    NUM_SPECIALS,
    NUM_STABLES_SPOTS,
    TRADING_POST_DENIERS,
    DecisionKind,
    Phase,
    Resource,
    Special,
)
from caylus_env.caylus.engine.decisions import pop, push
from caylus_env.caylus.engine.phases.common import enter_phase, grant_favors
from caylus_env.caylus.engine.state import add_cube, add_money, add_workers_out, cube, money


@njit(cache=True, inline="always")
def resolve_single_special(s, step):
    """Trading post, merchants' guild or joust field: the worker goes home, then its effect."""
    p = s[L.SPECIAL_WORKER + step]
    if p < 0:
        return
    s[L.SPECIAL_WORKER + step] = -1
    add_workers_out(s, p, -1)
    if step == Special.TRADING_POST:
        add_money(s, p, TRADING_POST_DENIERS)
    elif step == Special.MERCHANTS_GUILD:
        push(s, DecisionKind.GUILD, p, 0, 0)
    else:
        push(s, DecisionKind.JOUST, p, 0, 0)


@njit(cache=True, inline="always")
def resolve_stables(s):
    """3e: stable workers take the first turn-order places in their order; the other players
    keep their relative order behind them; the stable workers go home."""
    n = s[L.NUM_PLAYERS]
    old = np.empty(MAX_PLAYERS, np.int64)
    for i in range(MAX_PLAYERS):
        old[i] = s[L.TURN_ORDER + i]
    pos = 0
    for i in range(NUM_STABLES_SPOTS):
        p = s[L.STABLES + i]
        if p >= 0:
            s[L.TURN_ORDER + pos] = p
            pos += 1
    for i in range(n):
        p = old[i]
        in_stables = False
        for j in range(NUM_STABLES_SPOTS):
            if s[L.STABLES + j] == p:
                in_stables = True
        if not in_stables:
            s[L.TURN_ORDER + pos] = p
            pos += 1
    for i in range(NUM_STABLES_SPOTS):
        p = s[L.STABLES + i]
        if p >= 0:
            add_workers_out(s, p, -1)
            s[L.STABLES + i] = -1


@njit(cache=True, inline="always")
def resolve_inn(s):
    """3f: an entering worker becomes the resident (evicting the old one, even one's own);
    a resident alone is asked whether to stay."""
    entering = s[L.INN_LEFT]
    resident = s[L.INN_RIGHT]
    if entering >= 0:
        if resident >= 0:
            add_workers_out(s, resident, -1)  # evicted, even one's own
        s[L.INN_RIGHT] = entering
        s[L.INN_LEFT] = -1
    elif resident >= 0:
        push(s, DecisionKind.INN, resident, 0, 0)


@njit(cache=True)
def drive_special(s):
    """Phase 3: the special buildings in order (gate ... inn), one step per call."""
    step = np.int64(s[L.CURSOR])
    if step >= NUM_SPECIALS:
        enter_phase(s, Phase.PROVOST)
        return
    s[L.CURSOR] = step + 1
    if step == Special.GATE:
        p = s[L.SPECIAL_WORKER + Special.GATE]
        if p >= 0:
            push(s, DecisionKind.GATE, p, 0, 0)
    elif step <= Special.JOUST_FIELD:
        resolve_single_special(s, step)
    elif step == Special.STABLES:
        resolve_stables(s)
    else:
        resolve_inn(s)


@njit(cache=True, inline="always")
def legal_joust(s, p, out):
    """Decline, or pay 1 denier + 1 cloth for a favor if ``p`` can (3d)."""
    out[0] = ACT_DECLINE
    if money(s, p) >= JOUST_COST_DENIERS and cube(s, p, Resource.CLOTH) >= JOUST_COST_CLOTH:
        out[1] = ACT_JOUST
        return 2
    return 1


@njit(cache=True, inline="always")
def apply_joust(s, p, a):
    pop(s)
    if a == ACT_JOUST:
        add_money(s, p, -JOUST_COST_DENIERS)
        add_cube(s, p, Resource.CLOTH, -JOUST_COST_CLOTH)
        grant_favors(s, p, JOUST_FAVORS)


@njit(cache=True, inline="always")
def legal_inn(s, p, out):
    """The lone resident stays (and keeps the cheap placement) or leaves (3f)."""
    out[0] = ACT_INN_STAY
    out[1] = ACT_INN_LEAVE
    return 2


@njit(cache=True, inline="always")
def apply_inn(s, p, a):
    pop(s)
    if a == ACT_INN_LEAVE:
        s[L.INN_RIGHT] = -1
        add_workers_out(s, p, -1)
