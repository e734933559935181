"""The expansion's guest house: colonists parked there in the mayor phase move to work
later (rules 7.4).

"At any time" is asked at fixed points: at the start of every role's phase but the
mayor's (each owner in turn from the picker), at the start of the storage, and before
each of the owner's loading turns (rules 7.4).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_DECLINE, ACT_PLACE_BUILDING, ACT_PLACE_TILE
from caylus_env.puerto_rico.engine.buildings import B_CIRCLES, NUM_BUILDINGS, BuildingId
from caylus_env.puerto_rico.engine.constants import NUM_WORKABLE_TILES, DecisionKind
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.state import pf, seat_after


@njit(cache=True)
def legal_guest_house(s, p, out):
    """``decline``, or a tile kind or building (not the guest house) with an empty circle."""
    out[0] = ACT_DECLINE
    n = 1
    for t in range(NUM_WORKABLE_TILES):
        if s[pf(p, L.P_WORKED + t)] < s[pf(p, L.P_ISLAND + t)]:
            out[n] = ACT_PLACE_TILE + t
            n += 1
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if b != BuildingId.GUEST_HOUSE and w >= 0 and w < B_CIRCLES[b]:
            out[n] = ACT_PLACE_BUILDING + b
            n += 1
    return n


@njit(cache=True)
def wants_guest_turn(s, p):
    """Whether ``p`` has a guest colonist and somewhere to send it."""
    if s[pf(p, L.P_BUILDINGS + BuildingId.GUEST_HOUSE)] <= 0:
        return False
    out = np.empty(NUM_WORKABLE_TILES + NUM_BUILDINGS + 1, np.int64)
    return legal_guest_house(s, p, out) > 1


@njit(cache=True)
def apply_guest_house(s, p, a):
    """The colonist starts working at once; another guest may follow (rules 7.4)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    s[pf(p, L.P_BUILDINGS + BuildingId.GUEST_HOUSE)] -= 1
    if a < ACT_PLACE_BUILDING:
        s[pf(p, L.P_WORKED + a - ACT_PLACE_TILE)] += 1
    else:
        s[pf(p, L.P_BUILDINGS + a - ACT_PLACE_BUILDING)] += 1
    if wants_guest_turn(s, p):
        push(s, DecisionKind.GUEST_HOUSE, p, 0)


@njit(cache=True)
def guest_turns(s):
    """At the start of a phase: the next owner's guest-house turn. Returns False once
    every player has had his (the phase itself may then run)."""
    n = np.int64(s[L.NUM_PLAYERS])
    while s[L.GUEST_STEP] < n:
        p = seat_after(s, np.int64(s[L.PICKER]), np.int64(s[L.GUEST_STEP]))
        s[L.GUEST_STEP] += 1
        if wants_guest_turn(s, p):
            push(s, DecisionKind.GUEST_HOUSE, p, 0)
            return True
    return False
