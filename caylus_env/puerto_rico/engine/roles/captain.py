"""The captain: loading turns (rules 4.6, 6.6) with the harbor and wharf (rules 2.4) and the
expansion's small wharf, lighthouse, union hall and library (rules 7.2); then storage with
the warehouses and the storehouse (rules 4.7, 6.6, 7.2) and the unloading of full ships."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import (
    ACT_DECLINE,
    ACT_KEEP,
    ACT_LOAD,
    ACT_SMALL_WHARF,
    ACT_WHARF,
)
from caylus_env.puerto_rico.engine.buildings import BuildingId
from caylus_env.puerto_rico.engine.constants import MAX_SHIPS, NUM_GOODS, DecisionKind, Phase
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.guest_house import guest_turns, wants_guest_turn
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import (
    gain_money,
    gain_vp,
    occupied,
    pf,
    seat_after,
    use_privilege,
)

CAPTAIN_PRIVILEGE = 1  # rules 4.6
HARBOR_BONUS = 1  # rules 2.4
SMALL_WAREHOUSE_KINDS = 1  # rules 2.4
LARGE_WAREHOUSE_KINDS = 2  # rules 2.4
WINDROSE_BARRELS = 1  # rules 4.7
STOREHOUSE_BARRELS = 3  # rules 7.2
LIGHTHOUSE_BONUS = 1  # rules 7.2
LIGHTHOUSE_CAPTAIN_BONUS = 1  # rules 7.2
SMALL_WHARF_BARRELS_PER_VP = 2  # rules 7.2, 7.5
SINGLE_BITS = 3  # layout.P_SINGLES: 3 bits per good, up to 4 barrels each
SINGLE_MASK = 7


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
    """Cargo-ship loads, plus the wharf and the small wharf for any good he holds while
    unused this phase; ``decline`` only when no cargo ship can take anything of his
    (rules 4.6, 2.4, 7.2)."""
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
    if _small_wharf_ready(s, p):
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                out[n] = ACT_SMALL_WHARF + g
                n += 1
    return n


@njit(cache=True)
def _small_wharf_ready(s, p):
    return occupied(s, p, BuildingId.SMALL_WHARF) and s[pf(p, L.P_SMALL_WHARF_USED)] == 0


@njit(cache=True)
def _can_ship(s, p):
    tmp = np.empty(NUM_GOODS * MAX_SHIPS, np.int64)
    if _loads(s, p, tmp, 0) > 0:
        return True
    if _wharf_ready(s, p) or _small_wharf_ready(s, p):
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                return True
    return False


@njit(cache=True)
def drive_captain(s):
    """Loading turns round the table from the captain, skipping players who cannot load,
    until a whole lap passes without a loading (rules 4.6, 6.6)."""
    if guest_turns(s):
        return
    n = np.int64(s[L.NUM_PLAYERS])
    if s[L.IDLE] >= n:
        s[L.PHASE] = Phase.CAPTAIN_STORAGE
        s[L.STEP] = 0
        s[L.GUEST_STEP] = 0
        return
    k = np.int64(s[L.STEP])
    p = seat_after(s, np.int64(s[L.PICKER]), k)
    s[L.STEP] = (k + 1) % n
    if _can_ship(s, p):
        push(s, DecisionKind.LOAD, p, 0)
        if wants_guest_turn(s, p):  # rules 7.4: before each of his loading turns
            push(s, DecisionKind.GUEST_HOUSE, p, 0)
        return
    _captain_doubloon(s, p)  # a captain who cannot load still has his first turn
    s[L.IDLE] += 1


@njit(cache=True)
def _captain_first_turn(s, p):
    """Whether ``p``'s loading turn now is the captain's first of the phase (rules 4.6).

    Read from the phase's own bookkeeping: before it no turn has passed (``idle`` 0) and
    nobody has shipped; after it either he shipped or his turn passed idle, and ``idle``
    goes back to 0 only with a loading, whose shipper is then marked ``shipped``."""
    if p != s[L.PICKER] or s[L.IDLE] != 0:
        return False
    shipped = 0
    for q in range(s[L.NUM_PLAYERS]):
        shipped += s[pf(q, L.P_SHIPPED)]
    return shipped == 0


@njit(cache=True)
def _captain_doubloon(s, p):
    """The lighthouse's doubloon for being the captain, on his first loading turn whether
    he ships, passes or cannot load (rules 7.2; the rulebook's example: shipping 2 corn on
    his first turn he takes 3 VP and 2 doubloons, 1 for the lighthouse and 1 for being the
    captain). Judged then: a guest moved onto the lighthouse at the phase's start or right
    before that turn counts (7.4)."""
    if _captain_first_turn(s, p) and occupied(s, p, BuildingId.LIGHTHOUSE):
        gain_money(s, p, LIGHTHOUSE_CAPTAIN_BONUS)


@njit(cache=True)
def _union_hall(s, p):
    """Before the owner's first shipment of the phase: 1 VP per 2 barrels of each good he
    holds (rules 7.2)."""
    if s[pf(p, L.P_SHIPPED)] == 0 and occupied(s, p, BuildingId.UNION_HALL):
        vp = 0
        for g in range(NUM_GOODS):
            vp += s[pf(p, L.P_GOODS + g)] // 2
        gain_vp(s, p, vp)


@njit(cache=True)
def _score_shipment(s, p, vp):
    """The shipment's VP, +1 on the captain's first loading (+2 with a library), +1 with an
    occupied harbor, +1 doubloon with an occupied lighthouse (rules 4.6, 2.4, 7.2)."""
    if p == s[L.PICKER] and s[pf(p, L.P_SHIPPED)] == 0:
        vp += CAPTAIN_PRIVILEGE * use_privilege(s)
    if occupied(s, p, BuildingId.HARBOR):
        vp += HARBOR_BONUS
    if occupied(s, p, BuildingId.LIGHTHOUSE):
        gain_money(s, p, LIGHTHOUSE_BONUS)
    s[pf(p, L.P_SHIPPED)] = 1
    gain_vp(s, p, vp)


@njit(cache=True)
def apply_load(s, p, a):
    pop(s)
    _captain_doubloon(s, p)
    if a == ACT_DECLINE:
        s[L.IDLE] += 1
        return
    s[L.IDLE] = 0
    _union_hall(s, p)
    if a >= ACT_SMALL_WHARF:
        g = a - ACT_SMALL_WHARF
        s[pf(p, L.P_GOODS + g)] -= 1
        s[L.GOODS_SUPPLY + g] += 1
        s[pf(p, L.P_SMALL_WHARF_USED)] = 1
        push(s, DecisionKind.SMALL_WHARF, p, 1)
        return
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
def legal_small_wharf(s, p, out):
    out[0] = ACT_DECLINE
    n = 1
    for g in range(NUM_GOODS):
        if s[pf(p, L.P_GOODS + g)] > 0:
            out[n] = ACT_SMALL_WHARF + g
            n += 1
    return n


@njit(cache=True)
def apply_small_wharf(s, p, barrels, a):
    """One more barrel to the supply, or stop and score 1 VP per 2 barrels (rules 7.2)."""
    pop(s)
    if a == ACT_DECLINE:
        _score_shipment(s, p, barrels // SMALL_WHARF_BARRELS_PER_VP)
        return
    g = a - ACT_SMALL_WHARF
    s[pf(p, L.P_GOODS + g)] -= 1
    s[L.GOODS_SUPPLY + g] += 1
    push(s, DecisionKind.SMALL_WHARF, p, barrels + 1)


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
def single(s, p, g):
    """Single barrels of ``g`` the player keeps (windrose and storehouse)."""
    return (np.int64(s[pf(p, L.P_SINGLES)]) >> (SINGLE_BITS * g)) & SINGLE_MASK


@njit(cache=True)
def _free_barrels(s, p):
    """Barrels of the player neither in a kept kind nor already kept singly."""
    n = 0
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if not kept & (1 << g):
            n += s[pf(p, L.P_GOODS + g)] - single(s, p, g)
    return n


@njit(cache=True)
def drive_storage(s):
    """Each player in turn from the captain stores (warehouse kinds first, then the single
    barrels: the windrose's and a storehouse's three); then full cargo ships are unloaded
    (rules 4.7, 6.6, 7.2).

    An owner with a guest colonist moves it first, and what his warehouses and storehouse
    keep is judged after that move (rules 7.4): ``guest_step`` is ``num_players + 1`` while
    that guest turn is asked."""
    if guest_turns(s):
        return
    n = np.int64(s[L.NUM_PLAYERS])
    k = np.int64(s[L.STEP])
    if k >= n:
        for j in range(MAX_SHIPS):
            if s[L.SHIP_CAPACITY + j] > 0 and s[L.SHIP_LOAD + j] == s[L.SHIP_CAPACITY + j]:
                s[L.GOODS_SUPPLY + s[L.SHIP_GOOD + j]] += s[L.SHIP_LOAD + j]
                s[L.SHIP_LOAD + j] = 0
                s[L.SHIP_GOOD + j] = -1
        for p in range(n):
            s[pf(p, L.P_SHIPPED)] = 0
            s[pf(p, L.P_WHARF_USED)] = 0
            s[pf(p, L.P_SMALL_WHARF_USED)] = 0
        finish_phase(s)
        return
    p = seat_after(s, np.int64(s[L.PICKER]), k)
    if _free_barrels(s, p) == 0:
        s[L.STEP] = k + 1
        return
    if s[L.GUEST_STEP] == n and wants_guest_turn(s, p):  # rules 7.4: before his storage
        s[L.GUEST_STEP] = n + 1
        push(s, DecisionKind.GUEST_HOUSE, p, 0)
        return
    s[L.GUEST_STEP] = n
    s[L.STEP] = k + 1
    singles = WINDROSE_BARRELS
    if occupied(s, p, BuildingId.STOREHOUSE):
        singles += STOREHOUSE_BARRELS
    push(s, DecisionKind.STORE_BARREL, p, singles)
    w = warehouse_kinds(s, p)
    if w > 0:
        push(s, DecisionKind.STORE_KIND, p, w)


@njit(cache=True)
def legal_keep(s, p, out):
    """``keep:<good>`` for each good he still has a free barrel of; or ``decline``."""
    out[0] = ACT_DECLINE
    n = 1
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if s[pf(p, L.P_GOODS + g)] > single(s, p, g) and not kept & (1 << g):
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
    if w > 1 and _free_barrels(s, p) > 0:
        push(s, DecisionKind.STORE_KIND, p, w - 1)


@njit(cache=True)
def apply_store_barrel(s, p, left, a):
    """Keep one more single barrel of the chosen good; once he stops or may keep no more,
    every other barrel outside the kept kinds goes back to the supply (rules 4.7, 7.2)."""
    pop(s)
    if a != ACT_DECLINE:
        g = a - ACT_KEEP
        s[pf(p, L.P_SINGLES)] += 1 << (SINGLE_BITS * g)
        if left > 1 and _free_barrels(s, p) > 0:
            push(s, DecisionKind.STORE_BARREL, p, left - 1)
            return
    kept = np.int64(s[pf(p, L.P_KEPT)])
    for g in range(NUM_GOODS):
        if kept & (1 << g):
            continue
        stay = single(s, p, g)
        s[L.GOODS_SUPPLY + g] += s[pf(p, L.P_GOODS + g)] - stay
        s[pf(p, L.P_GOODS + g)] = stay
    s[pf(p, L.P_KEPT)] = 0
    s[pf(p, L.P_SINGLES)] = 0
