"""The builder (rules 4.3) with the quarry discount (rules 2.2), the university (2.4) and,
from the expansion, the forest house, black market, church and library (rules 7.2, 7.3)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import (
    ACT_ACCEPT,
    ACT_BUILD,
    ACT_DECLINE,
    ACT_RETURN_BUILDING,
    ACT_RETURN_GOOD,
    ACT_RETURN_SAN_JUAN,
    ACT_RETURN_TILE,
    ACT_RETURN_VP,
)
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COLUMN,
    B_COST,
    B_SPACES,
    NUM_BUILDINGS,
    BuildingId,
)
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    NUM_GOODS,
    NUM_WORKABLE_TILES,
    DecisionKind,
    Tile,
)
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.guest_house import guest_turns
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import (
    city_spaces_used,
    colonist_available,
    colonists_of,
    gain_vp,
    occupied,
    owns,
    pay_money,
    pf,
    privilege_times,
    quarry_discount,
    seat_after,
    take_colonist,
    total_goods,
    use_privilege,
)

BUILDER_PRIVILEGE = 1  # rules 4.3
FORESTS_PER_DOUBLOON = 2  # rules 7.3
CHURCH_VP_COLUMN_2_3 = 1  # rules 7.2
CHURCH_VP_COLUMN_4 = 2  # rules 7.2
BM_COLONIST = 1  # black-market return bits (layout.BM_RETURNED)
BM_GOOD = 2
BM_VP = 4


@njit(cache=True)
def drive_builder(s):
    """Each player in turn from the builder may build once (rules 4.3)."""
    if guest_turns(s):  # rules 7.4
        return
    k = np.int64(s[L.STEP])
    if k >= s[L.NUM_PLAYERS]:
        finish_phase(s)
        return
    s[L.STEP] = k + 1
    push(s, DecisionKind.BUILD, seat_after(s, np.int64(s[L.PICKER]), k), 0)


@njit(cache=True)
def price(s, p, b):
    """Cost less the capped quarry discount, the builder's privilege (doubled by a library)
    and 1 per 2 forests of a forest-house owner, never below 0 (rules 4.3, 2.2, 7.2, 7.3)."""
    x = B_COST[b] - quarry_discount(s, p, b)
    if p == s[L.PICKER]:
        x -= BUILDER_PRIVILEGE * privilege_times(s)
    if owns(s, p, BuildingId.FOREST_HOUSE):
        x -= s[pf(p, L.P_ISLAND + Tile.FOREST)] // FORESTS_PER_DOUBLOON
    return max(np.int64(0), x)


@njit(cache=True)
def black_market_capacity(s, p):
    """Doubloons an occupied black market can cover: one colonist (not its own), one
    barrel, one VP chip (rules 7.2)."""
    if not occupied(s, p, BuildingId.BLACK_MARKET):
        return 0
    n = 0
    fixed = s[pf(p, L.P_BUILDINGS + BuildingId.BLACK_MARKET)] + s[pf(p, L.P_WORKED + Tile.QUARRY)]
    if colonists_of(s, p) > fixed:
        n += 1
    if total_goods(s, p) > 0:
        n += 1
    if s[pf(p, L.P_VP)] > 0:
        n += 1
    return n


@njit(cache=True)
def legal_build(s, p, out):
    """Buildings in the supply he does not own, can pay for (with black-market returns)
    and has city space for."""
    out[0] = ACT_DECLINE
    n = 1
    free = CITY_SPACES - city_spaces_used(s, p)
    cash = np.int64(s[pf(p, L.P_MONEY)]) + black_market_capacity(s, p)
    for b in range(NUM_BUILDINGS):
        if (
            s[L.BUILDING_SUPPLY + b] > 0
            and s[pf(p, L.P_BUILDINGS + b)] < 0
            and B_SPACES[b] <= free
            and price(s, p, b) <= cash
        ):
            out[n] = ACT_BUILD + b
            n += 1
    return n


@njit(cache=True)
def apply_build(s, p, a):
    """Build, or first cover a shortfall with black-market returns (rules 7.2)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    b = a - ACT_BUILD
    if p == s[L.PICKER]:
        use_privilege(s)  # the builder's privilege is used on this building (7.2)
    short = price(s, p, b) - np.int64(s[pf(p, L.P_MONEY)])
    if short > 0:
        s[L.BM_SHORT] = short
        s[L.BM_RETURNED] = 0
        push(s, DecisionKind.BLACK_MARKET, p, b)
        return
    finish_build(s, p, b, price(s, p, b))


@njit(cache=True)
def finish_build(s, p, b, pay):
    """Pay, take the tile; the 12th city space ends the game at the end of the round
    (rules 5.1); a church pays VP (rules 7.2); an occupied university offers a colonist
    (rules 2.4; for the statue it goes to San Juan, rules 7.2)."""
    pay_money(s, p, pay)
    s[L.BUILDING_SUPPLY + b] -= 1
    s[pf(p, L.P_BUILDINGS + b)] = 0
    if city_spaces_used(s, p) >= CITY_SPACES:
        s[L.END_TRIGGERED] = 1
    if b != BuildingId.CHURCH and occupied(s, p, BuildingId.CHURCH):
        if B_COLUMN[b] == 4:
            gain_vp(s, p, CHURCH_VP_COLUMN_4)
        elif B_COLUMN[b] >= 2:
            gain_vp(s, p, CHURCH_VP_COLUMN_2_3)
    if occupied(s, p, BuildingId.UNIVERSITY) and colonist_available(s):
        push(s, DecisionKind.UNIVERSITY, p, b)


@njit(cache=True)
def apply_university(s, p, b, a):
    """One colonist from the supply (else the ship) onto the new building, large ones
    included (rules 2.4, 6.5, 6.11); a building without a circle sends it to San Juan."""
    pop(s)
    if a == ACT_ACCEPT and take_colonist(s):
        if B_CIRCLES[b] > 0:
            s[pf(p, L.P_BUILDINGS + b)] += 1
        else:
            s[pf(p, L.P_SAN_JUAN)] += 1


@njit(cache=True)
def legal_black_market(s, p, out):
    """What he may still return: a VP chip, a barrel, a colonist from where it stands (not
    the black market's own, nor a quarry's, whose discount the price already took); each
    kind once (rules 7.2, 7.5)."""
    done = np.int64(s[L.BM_RETURNED])
    n = 0
    if not done & BM_VP and s[pf(p, L.P_VP)] > 0:
        out[n] = ACT_RETURN_VP
        n += 1
    if not done & BM_GOOD:
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                out[n] = ACT_RETURN_GOOD + g
                n += 1
    if not done & BM_COLONIST:
        if s[pf(p, L.P_SAN_JUAN)] > 0:
            out[n] = ACT_RETURN_SAN_JUAN
            n += 1
        for t in range(NUM_WORKABLE_TILES):
            if t != Tile.QUARRY and s[pf(p, L.P_WORKED + t)] > 0:
                out[n] = ACT_RETURN_TILE + t
                n += 1
        for b in range(NUM_BUILDINGS):
            if b != BuildingId.BLACK_MARKET and s[pf(p, L.P_BUILDINGS + b)] > 0:
                out[n] = ACT_RETURN_BUILDING + b
                n += 1
    return n


@njit(cache=True)
def apply_black_market(s, p, b, a):
    """Return the item to its supply for 1 doubloon off; once the shortfall is covered he
    pays all his doubloons (none are left over) and builds (rules 7.2)."""
    if a == ACT_RETURN_VP:
        s[pf(p, L.P_VP)] -= 1
        s[L.VP_SUPPLY] += 1
        s[L.BM_RETURNED] |= BM_VP
    elif a < ACT_RETURN_SAN_JUAN:
        s[pf(p, L.P_GOODS + a - ACT_RETURN_GOOD)] -= 1
        s[L.GOODS_SUPPLY + a - ACT_RETURN_GOOD] += 1
        s[L.BM_RETURNED] |= BM_GOOD
    else:
        if a == ACT_RETURN_SAN_JUAN:
            s[pf(p, L.P_SAN_JUAN)] -= 1
        elif a < ACT_RETURN_BUILDING:
            s[pf(p, L.P_WORKED + a - ACT_RETURN_TILE)] -= 1
        else:
            s[pf(p, L.P_BUILDINGS + a - ACT_RETURN_BUILDING)] -= 1
        s[L.COLONIST_SUPPLY] += 1
        s[L.BM_RETURNED] |= BM_COLONIST
    s[L.BM_SHORT] -= 1
    if s[L.BM_SHORT] > 0:
        return
    pop(s)
    s[L.BM_RETURNED] = 0
    finish_build(s, p, b, np.int64(s[pf(p, L.P_MONEY)]))
