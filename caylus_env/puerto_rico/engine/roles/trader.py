"""The trader (rules 4.5, 6.6) with the office and the markets (rules 2.4)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_DECLINE, ACT_POST, ACT_SELL
from caylus_env.puerto_rico.engine.buildings import BuildingId
from caylus_env.puerto_rico.engine.constants import (
    GOOD_PRICE,
    NUM_GOODS,
    TRADING_HOUSE_SPACES,
    DecisionKind,
)
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

TRADER_PRIVILEGE = 1  # rules 4.5
SMALL_MARKET_BONUS = 1  # rules 2.4
LARGE_MARKET_BONUS = 2  # rules 2.4


@njit(cache=True)
def house_count(s):
    n = 0
    for g in range(NUM_GOODS):
        n += s[L.TRADING_HOUSE + g]
    return np.int64(n)


@njit(cache=True)
def drive_trader(s):
    """Each player in turn from the trader may sell once while the house has room (or to
    his trading post, rules 7.2); at the end a full house is emptied back to the supply,
    otherwise it stays (rules 4.5, 6.6)."""
    if guest_turns(s):  # rules 7.4
        return
    k = np.int64(s[L.STEP])
    if k >= s[L.NUM_PLAYERS]:
        if house_count(s) >= TRADING_HOUSE_SPACES:
            for g in range(NUM_GOODS):
                s[L.GOODS_SUPPLY + g] += s[L.TRADING_HOUSE + g]
                s[L.TRADING_HOUSE + g] = 0
        finish_phase(s)
        return
    s[L.STEP] = k + 1
    push(s, DecisionKind.SELL, seat_after(s, np.int64(s[L.PICKER]), k), 0)


@njit(cache=True)
def legal_sell(s, p, out):
    """A good he holds that the house lacks (any good he holds with an occupied office);
    any good he holds to an occupied trading post (rules 7.2)."""
    out[0] = ACT_DECLINE
    n = 1
    if house_count(s) < TRADING_HOUSE_SPACES:
        office = occupied(s, p, BuildingId.OFFICE)
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0 and (office or s[L.TRADING_HOUSE + g] == 0):
                out[n] = ACT_SELL + g
                n += 1
    if occupied(s, p, BuildingId.TRADING_POST):
        for g in range(NUM_GOODS):
            if s[pf(p, L.P_GOODS + g)] > 0:
                out[n] = ACT_POST + g
                n += 1
    return n


@njit(cache=True)
def sale_price(s, p, g):
    """Price of the good, +1 for the trader (+2 with a library), +1 small market, +2 large
    market (rules 4.5, 2.4, 7.2)."""
    x = GOOD_PRICE[g]
    if p == s[L.PICKER]:
        x += TRADER_PRIVILEGE * privilege_times(s)
    if occupied(s, p, BuildingId.SMALL_MARKET):
        x += SMALL_MARKET_BONUS
    if occupied(s, p, BuildingId.LARGE_MARKET):
        x += LARGE_MARKET_BONUS
    return x


@njit(cache=True)
def apply_sell(s, p, a):
    pop(s)
    if a == ACT_DECLINE:
        return
    if p == s[L.PICKER]:
        use_privilege(s)  # the trader's privilege is used on this sale (7.2)
    if a >= ACT_POST:
        # The trading post: price and trader privilege, no market, the barrel to the supply.
        g = a - ACT_POST
        s[pf(p, L.P_GOODS + g)] -= 1
        s[L.GOODS_SUPPLY + g] += 1
        x = GOOD_PRICE[g]
        if p == s[L.PICKER]:
            x += TRADER_PRIVILEGE * privilege_times(s)
        gain_money(s, p, x)
        return
    g = a - ACT_SELL
    s[pf(p, L.P_GOODS + g)] -= 1
    s[L.TRADING_HOUSE + g] += 1
    gain_money(s, p, sale_price(s, p, g))
