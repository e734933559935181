"""The craftsman (rules 4.4, 6.1, 6.2) with the factory (rules 2.4) and, from the
expansion, the aqueduct, specialty factory and library (rules 7.2)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_CRAFT, ACT_DECLINE
from caylus_env.puerto_rico.engine.buildings import B_PRODUCES, NUM_BUILDINGS, BuildingId
from caylus_env.puerto_rico.engine.constants import FACTORY_BONUS, NUM_GOODS, DecisionKind, Good
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.guest_house import guest_turns
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import (
    gain_money,
    occupied,
    pf,
    privilege_times,
    seat_after,
    use_privilege,
)


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
def _take(s, p, g, x):
    got = min(x, np.int64(s[L.GOODS_SUPPLY + g]))
    s[L.GOODS_SUPPLY + g] -= got
    s[pf(p, L.P_GOODS + g)] += got
    return got


@njit(cache=True)
def produce(s, p):
    """The player's production, limited by the supply; returns the bit set of goods he
    received. The factory pays by kinds actually received (rules 2.4, 6.2); the specialty
    factory by the largest non-corn amount; the aqueduct adds a barrel of indigo or sugar
    made with the large production building (rules 7.2)."""
    mask = 0
    kinds = 0
    largest = 0
    for g in range(NUM_GOODS):
        got = _take(s, p, g, output(s, p, g))
        if got > 0:
            mask |= 1 << g
            kinds += 1
            if g != Good.CORN:
                largest = max(largest, got)
    if occupied(s, p, BuildingId.FACTORY):
        gain_money(s, p, FACTORY_BONUS[kinds])
    if occupied(s, p, BuildingId.SPECIALTY_FACTORY) and largest > 1:
        gain_money(s, p, largest - 1)
    if occupied(s, p, BuildingId.AQUEDUCT):
        if mask & (1 << Good.INDIGO) and occupied(s, p, BuildingId.INDIGO_PLANT):
            _take(s, p, Good.INDIGO, 1)
        if mask & (1 << Good.SUGAR) and occupied(s, p, BuildingId.SUGAR_MILL):
            _take(s, p, Good.SUGAR, 1)
    return mask


@njit(cache=True)
def _privilege_left(s, mask):
    left = 0
    for g in range(NUM_GOODS):
        if mask & (1 << g):
            left += s[L.GOODS_SUPPLY + g]
    return left > 0


@njit(cache=True)
def drive_craftsman(s):
    """Everyone produces in turn from the craftsman; then, last, his extra barrel of a
    good he produced that the supply still has (rules 4.4, 6.1); a library gives a second
    one, of the same good or another (rules 7.2)."""
    if guest_turns(s):  # rules 7.4
        return
    k = np.int64(s[L.STEP])
    picker = np.int64(s[L.PICKER])
    mask = np.int64(s[L.PRODUCED])
    s[L.STEP] = k + 1
    if k == 0:
        for i in range(s[L.NUM_PLAYERS]):
            p = seat_after(s, picker, i)
            got = produce(s, p)
            if p == picker:
                mask = got
        s[L.PRODUCED] = mask
        if _privilege_left(s, mask):
            push(s, DecisionKind.CRAFT_PRIVILEGE, picker, mask)
        return
    if k == 1 and privilege_times(s) == 2 and _privilege_left(s, mask):
        use_privilege(s)  # the library's second barrel (7.2)
        push(s, DecisionKind.CRAFT_PRIVILEGE, picker, mask)
        return
    s[L.PRODUCED] = 0
    finish_phase(s)


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
