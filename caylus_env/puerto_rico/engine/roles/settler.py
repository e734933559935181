"""The settler (rules 4.1) with the hacienda, construction hut and hospice (rules 2.4)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_ACCEPT, ACT_DECLINE, ACT_SETTLE
from caylus_env.puerto_rico.engine.buildings import BuildingId
from caylus_env.puerto_rico.engine.constants import (
    ISLAND_SPACES,
    NUM_PLANTATION_KINDS,
    DecisionKind,
    Tile,
)
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.guest_house import guest_turns
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.setup import draw_plantation, reveal_face_up
from caylus_env.puerto_rico.engine.state import (
    colonist_available,
    island_tiles,
    occupied,
    pf,
    privilege_times,
    seat_after,
    take_colonist,
    use_privilege,
)


@njit(cache=True)
def _plantation_left(s):
    left = np.int64(s[L.PLANTATION_STACK_SIZE_F])
    for k in range(NUM_PLANTATION_KINDS):
        left += s[L.DISCARDS + k]
    return left > 0


@njit(cache=True)
def drive_settler(s):
    """Each player in turn from the settler; a settler with a library then takes a second
    tile (rules 7.2); then the untaken face-up tiles are discarded and players + 1 new ones
    turned up (rules 4.1). A full island is skipped."""
    if guest_turns(s):  # rules 7.4
        return
    n = np.int64(s[L.NUM_PLAYERS])
    k = np.int64(s[L.STEP])
    picker = np.int64(s[L.PICKER])
    s[L.STEP] = k + 1
    if k == n:
        if island_tiles(s, picker) < ISLAND_SPACES and privilege_times(s) == 2:
            use_privilege(s)
            push(s, DecisionKind.SETTLE, picker, 1)
        return
    if k > n:
        for t in range(NUM_PLANTATION_KINDS):
            s[L.DISCARDS + t] += s[L.FACE_UP + t]
            s[L.FACE_UP + t] = 0
        reveal_face_up(s)
        finish_phase(s)
        return
    p = seat_after(s, picker, k)
    if island_tiles(s, p) >= ISLAND_SPACES:
        return
    push(s, DecisionKind.SETTLE, p, 0)
    # rules 2.4: the hacienda draw comes before the face-up choice.
    if occupied(s, p, BuildingId.HACIENDA) and _plantation_left(s):
        push(s, DecisionKind.HACIENDA, p, 0)


@njit(cache=True)
def legal_accept_decline(out):
    out[0] = ACT_ACCEPT
    out[1] = ACT_DECLINE
    return 2


@njit(cache=True)
def _forest(s, p, t):
    """A drawn plantation becomes a forest on the island, out of circulation (7.3)."""
    s[L.FORESTED + t] += 1
    s[pf(p, L.P_ISLAND + Tile.FOREST)] += 1


@njit(cache=True)
def apply_hacienda(s, p, a):
    """The top face-down plantation goes onto the island, unoccupied (rules 2.4); with an
    occupied forest house he may first decide to make it a forest (rules 7.3)."""
    pop(s)
    if a == ACT_ACCEPT:
        t = draw_plantation(s)
        s[pf(p, L.P_ISLAND + t)] += 1
        if occupied(s, p, BuildingId.FOREST_HOUSE):
            push(s, DecisionKind.FOREST, p, t)


@njit(cache=True)
def apply_forest(s, p, t, a):
    """The drawn plantation, already on the island, turned face down as a forest (7.3)."""
    pop(s)
    if a == ACT_ACCEPT:
        s[pf(p, L.P_ISLAND + t)] -= 1
        _forest(s, p, t)


@njit(cache=True)
def legal_settle(s, p, library_extra, out):
    """Face-up kinds; a quarry for the settler's own tile or with an occupied construction
    hut, while quarries last (rules 4.1, 2.4, 7.2); a forest with an occupied forest house
    (rules 7.3); or nothing."""
    out[0] = ACT_DECLINE
    n = 1
    if island_tiles(s, p) < ISLAND_SPACES:
        for t in range(NUM_PLANTATION_KINDS):
            if s[L.FACE_UP + t] > 0:
                out[n] = ACT_SETTLE + t
                n += 1
        privilege = p == s[L.PICKER] and library_extra == 0
        if s[L.QUARRY_SUPPLY] > 0 and (privilege or occupied(s, p, BuildingId.CONSTRUCTION_HUT)):
            out[n] = ACT_SETTLE + Tile.QUARRY
            n += 1
        if occupied(s, p, BuildingId.FOREST_HOUSE) and _plantation_left(s):
            out[n] = ACT_SETTLE + Tile.FOREST
            n += 1
    return n


@njit(cache=True)
def apply_settle(s, p, library_extra, a):
    """Place the tile; an occupied hospice offers a colonist for it, not for the library's
    second tile (rules 2.4, 7.2)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    t = a - ACT_SETTLE
    if t == Tile.QUARRY:
        s[L.QUARRY_SUPPLY] -= 1
        s[pf(p, L.P_ISLAND + t)] += 1
    elif t == Tile.FOREST:
        _forest(s, p, draw_plantation(s))
    else:
        s[L.FACE_UP + t] -= 1
        s[pf(p, L.P_ISLAND + t)] += 1
    if library_extra == 0 and occupied(s, p, BuildingId.HOSPICE) and colonist_available(s):
        push(s, DecisionKind.HOSPICE, p, t)


@njit(cache=True)
def apply_hospice(s, p, t, a):
    """A colonist from the supply (else the ship) onto the new tile (rules 2.4, 6.5); for a
    forest it waits in San Juan (rules 7.3)."""
    pop(s)
    if a == ACT_ACCEPT and take_colonist(s):
        if t == Tile.FOREST:
            s[pf(p, L.P_SAN_JUAN)] += 1
        else:
            s[pf(p, L.P_WORKED + t)] += 1
