"""The craftsman (rules 4.4, 6.1, 6.2) with the factory (rules 2.4)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_CRAFT, ACT_DECLINE
from caylus_env.puerto_rico.engine.buildings import B_PRODUCES, NUM_BUILDINGS, BuildingId
from caylus_env.puerto_rico.engine.constants import FACTORY_BONUS, NUM_GOODS, DecisionKind, Good
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import gain_money, occupied, pf, seat_after


@njit(cache=True)
def output(s, p, g):
    """Barrels of ``g`` the player's colonists make: one per occupied plantation matched
    by an occupied production circle; corn needs no building (rules 2.3)."""
    planted = np.int64(s[pf(p, L.P_WORKED + g)])
    if g == Good.CORN:
        return planted
    circles = 0
    for b in range(NUM_BUILDINGS):
        if B_PRODUCES[b] == g:
            w = s[pf(p, L.P_BUILDINGS + b)]
            if w > 0:
                circles += w
    return min(planted, circles)


@njit(cache=True)
def produce(s, p):
    """The player's production, limited by the supply; returns the bit set of goods he
    received. The factory pays by kinds actually received (rules 2.4, 6.2)."""
    mask = 0
    kinds = 0
    for g in range(NUM_GOODS):
        got = min(output(s, p, g), np.int64(s[L.GOODS_SUPPLY + g]))
        if got > 0:
            s[L.GOODS_SUPPLY + g] -= got
            s[pf(p, L.P_GOODS + g)] += got
            mask |= 1 << g
            kinds += 1
    if occupied(s, p, BuildingId.FACTORY):
        gain_money(s, p, FACTORY_BONUS[kinds])
    return mask


@njit(cache=True)
def drive_craftsman(s):
    """Everyone produces in turn from the craftsman; then, last, his extra barrel of a
    good he produced that the supply still has (rules 4.4, 6.1)."""
    if s[L.STEP] > 0:
        finish_phase(s)
        return
    s[L.STEP] = 1
    picker = np.int64(s[L.PICKER])
    n = np.int64(s[L.NUM_PLAYERS])
    mask = 0
    for k in range(n):
        p = seat_after(s, picker, k)
        got = produce(s, p)
        if p == picker:
            mask = got
    if mask:
        push(s, DecisionKind.CRAFT_PRIVILEGE, picker, mask)


@njit(cache=True)
def legal_craft_privilege(s, mask, out):
    out[0] = ACT_DECLINE
    n = 1
    for g in range(NUM_GOODS):
        if mask & (1 << g) and s[L.GOODS_SUPPLY + g] > 0:
            out[n] = ACT_CRAFT + g
            n += 1
    return n


@njit(cache=True)
def apply_craft_privilege(s, p, a):
    pop(s)
    if a == ACT_DECLINE:
        return
    g = a - ACT_CRAFT
    s[L.GOODS_SUPPLY + g] -= 1
    s[pf(p, L.P_GOODS + g)] += 1
