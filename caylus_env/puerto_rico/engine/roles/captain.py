"""The captain: loading turns (rules 4.6, 6.6) with the harbor and wharf (rules 2.4), then
storage with the warehouses (rules 4.7, 6.6) and the unloading of full ships."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_DECLINE, ACT_KEEP, ACT_LOAD, ACT_WHARF
from caylus_env.puerto_rico.engine.buildings import BuildingId
from caylus_env.puerto_rico.engine.constants import MAX_SHIPS, NUM_GOODS, DecisionKind, Phase
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import gain_vp, occupied, pf, seat_after

CAPTAIN_PRIVILEGE = 1  # rules 4.6
HARBOR_BONUS = 1  # rules 2.4
SMALL_WAREHOUSE_KINDS = 1  # rules 2.4
LARGE_WAREHOUSE_KINDS = 2  # rules 2.4


@njit(cache=True)
def _loads(s, p, out, n):
    """Append the legal ``load:*`` ids of ``p`` to ``out[n:]``; returns the new count.

    A good already on a ship may go only onto that ship, if it has room; otherwise onto
    an empty ship that takes the most of his barrels of it (rules 4.6, 6.6)."""
    for g in range(NUM_GOODS):
        have = np.int64(s[pf(p, L.P_GOODS + g)])
        if have == 0:
            continue
        on = -1
        for k in range(MAX_SHIPS):
            if s[L.SHIP_GOOD + k] == g:
                on = k
        if on >= 0:
            if s[L.SHIP_LOAD + on] < s[L.SHIP_CAPACITY + on]:
                out[n] = ACT_LOAD + g * MAX_SHIPS + on
                n += 1
            continue
        best = 0
        for k in range(MAX_SHIPS):
            if s[L.SHIP_GOOD + k] < 0 and s[L.SHIP_CAPACITY + k] > 0:
                best = max(best, min(have, np.int64(s[L.SHIP_CAPACITY + k])))
        for k in range(MAX_SHIPS):
            empty = s[L.SHIP_GOOD + k] < 0 and s[L.SHIP_CAPACITY + k] > 0
            if empty and min(have, np.int64(s[L.SHIP_CAPACITY + k])) == best:
                out[n] = ACT_LOAD + g * MAX_SHIPS + k
                n += 1
    return n


@njit(cache=True)
def _wharf_ready(s, p):
    return occupied(s, p, BuildingId.WHARF) and s[pf(p, L.P_WHARF_USED)] == 0


@njit(cache=True)
def legal_load(s, p, out):
    """Cargo-ship loads, plus the wharf for any good he holds if his wharf is unused;
    ``decline`` only when no cargo ship can take anything of his (rules 4.6, 2.4)."""
    n = _loads(s, p, out, 0)
    if n == 0:
        # No cargo ship takes anything of his: the wharf, or pass (rules 6.6).
        out[0] = ACT_DECLINE
        n = 1
    if _wharf_ready(s, p):
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                out[n] = ACT_WHARF + g
                n += 1
    return n


@njit(cache=True)
def drive_captain(s):
    """Loading turns round the table from the captain, skipping players who cannot load,
    until a whole lap passes without a loading (rules 4.6, 6.6)."""
    n = np.int64(s[L.NUM_PLAYERS])
    if s[L.IDLE] >= n:
        s[L.PHASE] = Phase.CAPTAIN_STORAGE
        s[L.STEP] = 0
        return
    k = np.int64(s[L.STEP])
    p = seat_after(s, np.int64(s[L.PICKER]), k)
    s[L.STEP] = (k + 1) % n
    tmp = np.empty(NUM_GOODS * MAX_SHIPS, np.int64)
    if _loads(s, p, tmp, 0) > 0:
        push(s, DecisionKind.LOAD, p, 0)
        return
    if _wharf_ready(s, p):
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                push(s, DecisionKind.LOAD, p, 0)
                return
    s[L.IDLE] += 1


@njit(cache=True)
def _score_shipment(s, p, barrels):
    """1 VP per barrel, +1 on the captain's first loading, +1 with an occupied harbor
    (rules 4.6, 2.4)."""
    vp = barrels
    if p == s[L.PICKER] and s[pf(p, L.P_SHIPPED)] == 0:
        vp += CAPTAIN_PRIVILEGE
    if occupied(s, p, BuildingId.HARBOR):
        vp += HARBOR_BONUS
    s[pf(p, L.P_SHIPPED)] = 1
    gain_vp(s, p, vp)


@njit(cache=True)
def apply_load(s, p, a):
    pop(s)
    if a == ACT_DECLINE:
        s[L.IDLE] += 1
        return
    s[L.IDLE] = 0
    if a >= ACT_WHARF:
        g = a - ACT_WHARF
        x = np.int64(s[pf(p, L.P_GOODS + g)])
        s[pf(p, L.P_GOODS + g)] = 0
        s[L.GOODS_SUPPLY + g] += x
        s[pf(p, L.P_WHARF_USED)] = 1
        _score_shipment(s, p, x)
        return
    g = (a - ACT_LOAD) // MAX_SHIPS
    k = (a - ACT_LOAD) % MAX_SHIPS
    room = np.int64(s[L.SHIP_CAPACITY + k] - s[L.SHIP_LOAD + k])
    x = min(room, np.int64(s[pf(p, L.P_GOODS + g)]))
    s[pf(p, L.P_GOODS + g)] -= x
    s[L.SHIP_GOOD + k] = g
    s[L.SHIP_LOAD + k] += x
    _score_shipment(s, p, x)


@njit(cache=True)
def warehouse_kinds(s, p):
    """Whole kinds the player's occupied warehouses keep (rules 2.4)."""
    w = 0
    if occupied(s, p, BuildingId.SMALL_WAREHOUSE):
        w += SMALL_WAREHOUSE_KINDS
    if occupied(s, p, BuildingId.LARGE_WAREHOUSE):
        w += LARGE_WAREHOUSE_KINDS
    return w


@njit(cache=True)
def _unkept(s, p):
    """Barrels of the player outside the kinds his warehouses keep."""
    n = 0
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if not kept & (1 << g):
            n += s[pf(p, L.P_GOODS + g)]
    return n


@njit(cache=True)
def drive_storage(s):
    """Each player in turn from the captain stores (warehouse kinds first, then the one
    windrose barrel); then full cargo ships are unloaded (rules 4.7, 6.6)."""
    n = np.int64(s[L.NUM_PLAYERS])
    k = np.int64(s[L.STEP])
    if k == n:
        for j in range(MAX_SHIPS):
            if s[L.SHIP_CAPACITY + j] > 0 and s[L.SHIP_LOAD + j] == s[L.SHIP_CAPACITY + j]:
                s[L.GOODS_SUPPLY + s[L.SHIP_GOOD + j]] += s[L.SHIP_LOAD + j]
                s[L.SHIP_LOAD + j] = 0
                s[L.SHIP_GOOD + j] = -1
        for p in range(n):
            s[pf(p, L.P_SHIPPED)] = 0
            s[pf(p, L.P_WHARF_USED)] = 0
        finish_phase(s)
        return
    s[L.STEP] = k + 1
    p = seat_after(s, np.int64(s[L.PICKER]), k)
    if _unkept(s, p) == 0:
        return
    push(s, DecisionKind.STORE_BARREL, p, 0)
    w = warehouse_kinds(s, p)
    if w > 0:
        push(s, DecisionKind.STORE_KIND, p, w)


@njit(cache=True)
def legal_keep(s, p, out):
    """``keep:<good>`` for each good he holds outside the kept kinds; or ``decline``."""
    out[0] = ACT_DECLINE
    n = 1
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if s[pf(p, L.P_GOODS + g)] > 0 and not kept & (1 << g):
            out[n] = ACT_KEEP + g
            n += 1
    return n


@njit(cache=True)
def apply_store_kind(s, p, w, a):
    """A warehouse keeps the whole kind; the next warehouse kind is asked while any is
    left and he holds other goods (rules 4.7)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    s[pf(p, L.P_KEPT)] |= 1 << (a - ACT_KEEP)
    if w > 1 and _unkept(s, p) > 0:
        push(s, DecisionKind.STORE_KIND, p, w - 1)


@njit(cache=True)
def apply_store_barrel(s, p, a):
    """One barrel of the chosen good stays on the windrose; every other barrel outside
    the kept kinds goes back to the supply (rules 4.7)."""
    pop(s)
    keep = a - ACT_KEEP if a != ACT_DECLINE else -1
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if kept & (1 << g):
            continue
        stay = 1 if g == keep else 0
        back = s[pf(p, L.P_GOODS + g)] - stay
        s[L.GOODS_SUPPLY + g] += back
        s[pf(p, L.P_GOODS + g)] = stay
    s[pf(p, L.P_KEPT)] = 0
