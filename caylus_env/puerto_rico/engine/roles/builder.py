"""The builder (rules 4.3) with the quarry discount (rules 2.2) and the university (2.4)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_ACCEPT, ACT_BUILD, ACT_DECLINE
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COST,
    B_SPACES,
    NUM_BUILDINGS,
    BuildingId,
)
from caylus_env.puerto_rico.engine.constants import CITY_SPACES, DecisionKind
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.roles.selection import finish_phase
from caylus_env.puerto_rico.engine.state import (
    city_spaces_used,
    colonist_available,
    occupied,
    pay_money,
    pf,
    quarry_discount,
    seat_after,
    take_colonist,
)

BUILDER_PRIVILEGE = 1  # rules 4.3


@njit(cache=True)
def drive_builder(s):
    """Each player in turn from the builder may build once (rules 4.3)."""
    k = np.int64(s[L.STEP])
    if k == s[L.NUM_PLAYERS]:
        finish_phase(s)
        return
    s[L.STEP] = k + 1
    push(s, DecisionKind.BUILD, seat_after(s, np.int64(s[L.PICKER]), k), 0)


@njit(cache=True)
def price(s, p, b):
    """Cost less the capped quarry discount and the builder's privilege, never below 0
    (rules 4.3, 2.2)."""
    x = B_COST[b] - quarry_discount(s, p, b)
    if p == s[L.PICKER]:
        x -= BUILDER_PRIVILEGE
    return max(np.int64(0), x)


@njit(cache=True)
def legal_build(s, p, out):
    """Buildings in the supply he does not own, can pay for and has city space for."""
    out[0] = ACT_DECLINE
    n = 1
    free = CITY_SPACES - city_spaces_used(s, p)
    cash = np.int64(s[pf(p, L.P_MONEY)])
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
    """Pay, take the tile; the 12th city space ends the game at the end of the round
    (rules 5.1); an occupied university offers a colonist for it (rules 2.4)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    b = a - ACT_BUILD
    pay_money(s, p, price(s, p, b))
    s[L.BUILDING_SUPPLY + b] -= 1
    s[pf(p, L.P_BUILDINGS + b)] = 0
    if city_spaces_used(s, p) >= CITY_SPACES:
        s[L.END_TRIGGERED] = 1
    if occupied(s, p, BuildingId.UNIVERSITY) and colonist_available(s) and B_CIRCLES[b] > 0:
        push(s, DecisionKind.UNIVERSITY, p, b)


@njit(cache=True)
def apply_university(s, p, b, a):
    """One colonist from the supply (else the ship) onto the new building, large ones
    included (rules 2.4, 6.5, 6.11)."""
    pop(s)
    if a == ACT_ACCEPT and take_colonist(s):
        s[pf(p, L.P_BUILDINGS + b)] += 1
