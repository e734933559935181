"""The mayor (rules 4.2, 6.3, 6.4): colonists handed out, placed, and the ship refilled."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_ACCEPT, ACT_PLACE_BUILDING, ACT_PLACE_TILE
from caylus_env.puerto_rico.engine.buildings import B_CIRCLES, NUM_BUILDINGS
from caylus_env.puerto_rico.engine.constants import NUM_WORKABLE_TILES, DecisionKind
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import (
    empty_building_circles,
    empty_circles,
    pf,
    seat_after,
    use_privilege,
)

STEP_PRIVILEGE = 0
STEP_SHIP = 1
STEP_FIRST_PLACEMENT = 2


@njit(cache=True)
def drive_mayor(s):
    """Privilege, colonists off the ship one at a time from the mayor, each player's
    placement in turn order, then the refill of the ship (rules 4.2)."""
    n = np.int64(s[L.NUM_PLAYERS])
    k = np.int64(s[L.STEP])
    picker = np.int64(s[L.PICKER])
    s[L.STEP] = k + 1
    if k == STEP_PRIVILEGE:
        if s[L.COLONIST_SUPPLY] > 0:
            push(s, DecisionKind.MAYOR_PRIVILEGE, picker, 0)
        return
    if k == STEP_SHIP:
        i = 0
        while s[L.COLONIST_SHIP] > 0:
            s[L.COLONIST_SHIP] -= 1
            s[pf(seat_after(s, picker, i), L.P_SAN_JUAN)] += 1
            i += 1
        return
    if k < STEP_FIRST_PLACEMENT + n:
        p = seat_after(s, picker, k - STEP_FIRST_PLACEMENT)
        _pick_up(s, p)
        if not _fill_if_forced(s, p):
            push(s, DecisionKind.PLACE_COLONIST, p, 0)
        return
    refill_ship(s)
    finish_phase(s)


@njit(cache=True)
def refill_ship(s):
    """One colonist per empty building circle, at least one per player; a supply short of
    that fills what it can and ends the game (rules 4.2, 5.1, 6.4)."""
    n = np.int64(s[L.NUM_PLAYERS])
    need = n
    empty = 0
    for p in range(n):
        empty += empty_building_circles(s, p)
    need = max(need, empty)
    if s[L.COLONIST_SUPPLY] >= need:
        s[L.COLONIST_SUPPLY] -= need
        s[L.COLONIST_SHIP] += need
    else:
        s[L.COLONIST_SHIP] += s[L.COLONIST_SUPPLY]
        s[L.COLONIST_SUPPLY] = 0
        s[L.END_TRIGGERED] = 1


@njit(cache=True)
def _pick_up(s, p):
    """All the player's colonists go to San Juan, to be placed again (rules 6.3)."""
    for t in range(NUM_WORKABLE_TILES):
        s[pf(p, L.P_SAN_JUAN)] += s[pf(p, L.P_WORKED + t)]
        s[pf(p, L.P_WORKED + t)] = 0
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if w > 0:
            s[pf(p, L.P_SAN_JUAN)] += w
            s[pf(p, L.P_BUILDINGS + b)] = 0


@njit(cache=True)
def _fill_if_forced(s, p):
    """When the colonists cover every empty circle there is nothing to choose: fill all,
    the surplus stays in San Juan (rules 4.2). Returns whether the placement is done."""
    free = empty_circles(s, p)
    if s[pf(p, L.P_SAN_JUAN)] < free:
        return s[pf(p, L.P_SAN_JUAN)] == 0
    for t in range(NUM_WORKABLE_TILES):
        s[pf(p, L.P_WORKED + t)] = s[pf(p, L.P_ISLAND + t)]
    for b in range(NUM_BUILDINGS):
        if s[pf(p, L.P_BUILDINGS + b)] >= 0:
            s[pf(p, L.P_BUILDINGS + b)] = B_CIRCLES[b]
    s[pf(p, L.P_SAN_JUAN)] -= free
    return True


@njit(cache=True)
def apply_mayor_privilege(s, p, a):
    """The privilege colonist comes from the supply, never the ship (rules 4.2, 6.5); a
    library makes it two (rules 7.2)."""
    pop(s)
    if a == ACT_ACCEPT:
        x = min(use_privilege(s), np.int64(s[L.COLONIST_SUPPLY]))
        s[L.COLONIST_SUPPLY] -= x
        s[pf(p, L.P_SAN_JUAN)] += x


@njit(cache=True)
def legal_place_colonist(s, p, out):
    """Any tile kind or building with an empty circle (rules 6.3)."""
    n = 0
    for t in range(NUM_WORKABLE_TILES):
        if s[pf(p, L.P_WORKED + t)] < s[pf(p, L.P_ISLAND + t)]:
            out[n] = ACT_PLACE_TILE + t
            n += 1
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if w >= 0 and w < B_CIRCLES[b]:
            out[n] = ACT_PLACE_BUILDING + b
            n += 1
    return n


@njit(cache=True)
def apply_place_colonist(s, p, a):
    s[pf(p, L.P_SAN_JUAN)] -= 1
    if a < ACT_PLACE_BUILDING:
        s[pf(p, L.P_WORKED + a - ACT_PLACE_TILE)] += 1
    else:
        s[pf(p, L.P_BUILDINGS + a - ACT_PLACE_BUILDING)] += 1
    if _fill_if_forced(s, p):
        pop(s)
