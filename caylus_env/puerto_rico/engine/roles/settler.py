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
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.setup import draw_plantation, reveal_face_up
from caylus_env.puerto_rico.engine.state import (
    colonist_available,
    island_tiles,
    occupied,
    pf,
    seat_after,
    take_colonist,
)


@njit(cache=True)
def _plantation_left(s):
    left = np.int64(s[L.PLANTATION_STACK_SIZE_F])
    for k in range(NUM_PLANTATION_KINDS):
        left += s[L.DISCARDS + k]
    return left > 0


@njit(cache=True)
def drive_settler(s):
    """Each player in turn from the settler; then the untaken face-up tiles are discarded
    and players + 1 new ones turned up (rules 4.1). A full island is skipped."""
    n = np.int64(s[L.NUM_PLAYERS])
    k = np.int64(s[L.STEP])
    if k == n:
        for t in range(NUM_PLANTATION_KINDS):
            s[L.DISCARDS + t] += s[L.FACE_UP + t]
            s[L.FACE_UP + t] = 0
        reveal_face_up(s)
        finish_phase(s)
        return
    s[L.STEP] = k + 1
    p = seat_after(s, np.int64(s[L.PICKER]), k)
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
def apply_hacienda(s, p, a):
    """The top face-down plantation goes onto the island, unoccupied (rules 2.4)."""
    pop(s)
    if a == ACT_ACCEPT:
        t = draw_plantation(s)
        s[pf(p, L.P_ISLAND + t)] += 1


@njit(cache=True)
def legal_settle(s, p, out):
    """Face-up kinds; a quarry for the settler or an occupied construction hut, while
    quarries last (rules 4.1, 2.4); or nothing."""
    out[0] = ACT_DECLINE
    n = 1
    if island_tiles(s, p) < ISLAND_SPACES:
        for t in range(NUM_PLANTATION_KINDS):
            if s[L.FACE_UP + t] > 0:
                out[n] = ACT_SETTLE + t
                n += 1
        if s[L.QUARRY_SUPPLY] > 0 and (
            p == s[L.PICKER] or occupied(s, p, BuildingId.CONSTRUCTION_HUT)
        ):
            out[n] = ACT_SETTLE + Tile.QUARRY
            n += 1
    return n


@njit(cache=True)
def apply_settle(s, p, a):
    pop(s)
    if a == ACT_DECLINE:
        return
    t = a - ACT_SETTLE
    if t == Tile.QUARRY:
        s[L.QUARRY_SUPPLY] -= 1
    else:
        s[L.FACE_UP + t] -= 1
    s[pf(p, L.P_ISLAND + t)] += 1
    if occupied(s, p, BuildingId.HOSPICE) and colonist_available(s):
        push(s, DecisionKind.HOSPICE, p, t)


@njit(cache=True)
def apply_hospice(s, p, t, a):
    """A colonist from the supply (else the ship) onto the new tile (rules 2.4, 6.5)."""
    pop(s)
    if a == ACT_ACCEPT and take_colonist(s):
        s[pf(p, L.P_WORKED + t)] += 1
