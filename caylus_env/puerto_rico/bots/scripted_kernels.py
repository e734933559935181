"""Compiled scoring of legal Puerto Rico actions, shared by the scripted bots and MCTS.

A scripted bot answers every decision the same way: each legal action gets a score from
rules of thumb over the flat state (``caylus_env.puerto_rico.engine.layout``), and the
best one is played (the lowest id on ties, so a bot is deterministic). A *strategy* is a
row of weights: which roles it values (``ROLE_WEIGHT``), which tiles it settles
(``SETTLE_PREF``), which buildings it builds and staffs (``BUILD_PREF``), and whether
it keeps cheap barrels for the captain or sells them (``SELL_FLOOR``). The rules of
thumb per decision (rules 4 and 6 name the decisions):

- role (rules 3.1): what the role gives this player now (barrels it would ship or
  produce, the best sale, a building it can afford, colonists for its empty circles,
  a tile) minus part of what it gives the best-placed opponent, plus the doubloons on
  the card;
- settle (4.1): the strategy's preference for the kind, more when a production building
  of that good lacks plantations;
- colonists (4.2, 6.3): where one more colonist produces (a plantation whose good has a
  building circle free, or corn; a production circle whose good has plantations
  waiting), large buildings first (their bonus needs a colonist, rules 2.5), then the
  strategy's violet buildings;
- build (4.3): the strategy's preference plus the printed VP, which count for more as
  the game goes on, plus production buildings for plantations already owned;
- craftsman (4.4), trader (4.5): the dearest good; captain (4.6): the load that ships
  the most barrels, cheap goods first; storage (4.7): the biggest lot, then the dearest
  barrel; yes/no effects (hacienda, hospice, university, mayor's colonist): yes.

Expansion decisions (draft, forest, black market, guest house) get plain defaults: draft
by building preference, decline the rest. ``choose`` is the core's first best of
``score_actions`` (`caylus_env.core.scripted.choice_kernels`, ties within ``EPS``). MCTS
(``caylus_env.core.mcts``) plays its rollouts and orders its expansions with ``choose`` and
``score_actions``.

Everything here is ``@njit(cache=True)``.
"""

from __future__ import annotations

import sys

import numpy as np
from numba import njit

from caylus_env.core import scripted
from caylus_env.puerto_rico.engine import kernels as K
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import (
    ACT_ACCEPT,
    ACT_BUILD,
    ACT_CRAFT,
    ACT_DECLINE,
    ACT_DRAFT,
    ACT_KEEP,
    ACT_LOAD,
    ACT_PLACE_BUILDING,
    ACT_PLACE_TILE,
    ACT_POST,
    ACT_ROLE,
    ACT_SELL,
    ACT_SETTLE,
    ACT_SMALL_WHARF,
    ACT_WHARF,
)
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COLUMN,
    B_COST,
    B_KIND,
    B_PRODUCES,
    B_SPACES,
    B_VP,
    NUM_BUILDINGS,
    VIOLET_ARR,
    BuildingId,
    BuildingKind,
)
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    GOOD_PRICE,
    ISLAND_SPACES,
    MAX_SHIPS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    TRADING_HOUSE_SPACES,
    VP_CHIPS,
    DecisionKind,
    Role,
    Tile,
)

SHIPPER = 0
BUILDER = 1
NUM_STRATEGIES = 2
STRATEGY_NAMES = ("shipper", "builder")

# -- strategy tables (one row per strategy) ---------------------------------------------------
#: Multiplier of each role's immediate value (settler, mayor, builder, craftsman, trader,
#: captain, prospector x2).
ROLE_WEIGHT = np.array(
    [
        [1.0, 1.0, 0.8, 1.4, 0.6, 1.6, 1.0, 1.0],  # shipper: produce and ship
        [1.0, 1.0, 1.5, 0.8, 1.5, 0.7, 1.0, 1.0],  # builder: sell and build
    ],
    np.float64,
)
#: Settling preference per tile kind (corn, indigo, sugar, tobacco, coffee, quarry, forest).
SETTLE_PREF = np.array(
    [
        [3.0, 2.5, 1.5, 1.0, 1.0, 1.2, 0.0],
        [1.0, 1.5, 2.0, 2.5, 2.5, 3.0, 0.0],
    ],
    np.float64,
)
_BASE_BUILD_PREF = {
    # building: (shipper, builder); expansion buildings default to 1.0 for both.
    "SMALL_INDIGO_PLANT": (3.0, 2.0),
    "SMALL_SUGAR_MILL": (2.0, 2.5),
    "INDIGO_PLANT": (3.0, 2.0),
    "SUGAR_MILL": (2.5, 3.0),
    "TOBACCO_STORAGE": (2.0, 4.0),
    "COFFEE_ROASTER": (1.5, 4.5),
    "SMALL_MARKET": (1.5, 4.0),
    "HACIENDA": (1.0, 1.0),
    "CONSTRUCTION_HUT": (0.5, 2.0),
    "SMALL_WAREHOUSE": (3.0, 1.0),
    "HOSPICE": (1.5, 1.5),
    "OFFICE": (1.0, 3.5),
    "LARGE_MARKET": (1.5, 4.5),
    "LARGE_WAREHOUSE": (3.5, 1.0),
    "FACTORY": (2.0, 5.0),
    "UNIVERSITY": (1.0, 2.5),
    "HARBOR": (5.0, 2.0),
    "WHARF": (5.0, 2.0),
    "GUILD_HALL": (4.0, 6.0),
    "RESIDENCE": (4.0, 5.0),
    "FORTRESS": (5.0, 4.5),
    "CUSTOMS_HOUSE": (6.0, 3.0),
    "CITY_HALL": (4.0, 6.0),
}


def _build_pref() -> np.ndarray:
    pref = np.ones((NUM_STRATEGIES, NUM_BUILDINGS), np.float64)
    for name, row in _BASE_BUILD_PREF.items():
        pref[:, int(BuildingId[name])] = row
    pref.setflags(write=False)
    return pref


#: Building preference per strategy and ``BuildingId``.
BUILD_PREF = _build_pref()
#: Sale price (doubloons) below which a strategy keeps the barrel rather than sell it.
SELL_FLOOR = np.array([2.0, 1.0], np.float64)

# -- rules of thumb shared by the strategies ----------------------------------------------------
OPPONENT_SHARE = 0.6  # how much of a role's value to the best opponent counts against it
ROLE_MONEY_VALUE = 0.8  # value of one doubloon lying on a role card
PROSPECTOR_VALUE = 1.0  # one doubloon (rules 4.8)
PRIVILEGE_VALUE = 1.0  # the picker's extra (a quarry, a colonist, a barrel, +1 VP, ...)
LARGE_OCCUPY_BONUS = 8.0  # a large building's bonus counts only with a colonist (rules 2.5)
PRODUCING_PLACE = 4.0  # a colonist that makes a plantation or a production circle produce
IDLE_PLACE = 0.5  # a colonist on a circle that produces nothing yet
SHIP_BARREL = 10.0  # loading: a barrel shipped (1 VP) outweighs which good it is
WHARF_PENALTY = 5.0  # keep the wharf (once a phase) for when no cargo ship takes the good
KEEP_LOT = 10.0  # storage: a whole lot of barrels over the price of one
EPS = 1e-9


@njit(cache=True)
def _pf(p, field):
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


@njit(cache=True)
def _progress(s):
    """How far the game is, 0 (start) to 1 (the VP chips or colonists are running out)."""
    n = np.int64(s[L.NUM_PLAYERS])
    vp_used = 1.0 - max(np.float64(s[L.VP_SUPPLY]), 0.0) / VP_CHIPS[n]
    rounds = min(np.float64(s[L.ROUND]) / 15.0, 1.0)
    return max(vp_used, rounds)


@njit(cache=True)
def _circles_for(s, p, g):
    """Production-building circles of ``p`` for good ``g`` (occupied or not)."""
    c = 0
    for b in range(NUM_BUILDINGS):
        if B_PRODUCES[b] == g and s[_pf(p, L.P_BUILDINGS + b)] >= 0:
            c += B_CIRCLES[b]
    return c


@njit(cache=True)
def _workers_for(s, p, g):
    """Colonists of ``p`` on production buildings of good ``g``."""
    c = 0
    for b in range(NUM_BUILDINGS):
        if B_PRODUCES[b] == g and s[_pf(p, L.P_BUILDINGS + b)] > 0:
            c += s[_pf(p, L.P_BUILDINGS + b)]
    return c


@njit(cache=True)
def _production(s, p, g):
    """Barrels of ``g`` the craftsman would give ``p`` now (rules 4.4): worked corn, or
    worked plantations matched by production colonists."""
    worked = np.int64(s[_pf(p, L.P_WORKED + g)])
    if g == Tile.CORN:
        return worked
    return min(worked, _workers_for(s, p, g))


@njit(cache=True)
def _occupied(s, p, b):
    return s[_pf(p, L.P_BUILDINGS + b)] > 0


@njit(cache=True)
def _price(s, p, g, trader):
    """Sale price of ``g`` for ``p`` (rules 4.5, 2.4)."""
    x = np.float64(GOOD_PRICE[g]) + (1.0 if trader else 0.0)
    if _occupied(s, p, BuildingId.SMALL_MARKET):
        x += 1.0
    if _occupied(s, p, BuildingId.LARGE_MARKET):
        x += 2.0
    return x


@njit(cache=True)
def _house_room(s):
    c = 0
    for g in range(NUM_GOODS):
        c += s[L.TRADING_HOUSE + g]
    return c < TRADING_HOUSE_SPACES


@njit(cache=True)
def _best_sale(s, p, trader):
    """The best price ``p`` gets for one barrel at the trading house, 0 if none."""
    if not _house_room(s):
        return 0.0
    office = _occupied(s, p, BuildingId.OFFICE)
    best = 0.0
    for g in range(NUM_GOODS):
        if s[_pf(p, L.P_GOODS + g)] > 0 and (office or s[L.TRADING_HOUSE + g] == 0):
            best = max(best, _price(s, p, g, trader))
    return best


@njit(cache=True)
def _shippable(s, p):
    """Barrels ``p`` could load now, roughly: each good he holds, capped by the room on the
    ship carrying it or the biggest empty ship (rules 4.6)."""
    total = 0
    for g in range(NUM_GOODS):
        have = np.int64(s[_pf(p, L.P_GOODS + g)])
        if have == 0:
            continue
        room = 0
        for k in range(MAX_SHIPS):
            cap = np.int64(s[L.SHIP_CAPACITY + k])
            if s[L.SHIP_GOOD + k] == g:
                room = cap - s[L.SHIP_LOAD + k]
                break
            if s[L.SHIP_GOOD + k] < 0:
                room = max(room, cap)
        total += min(have, room)
    return total


@njit(cache=True)
def _city_free(s, p):
    used = 0
    for b in range(NUM_BUILDINGS):
        if s[_pf(p, L.P_BUILDINGS + b)] >= 0:
            used += B_SPACES[b]
    return CITY_SPACES - used


@njit(cache=True)
def _island(s, p):
    c = 0
    for t in range(NUM_TILES):
        c += s[_pf(p, L.P_ISLAND + t)]
    return c


@njit(cache=True)
def build_value(s, p, b, strategy, progress):
    """What building ``b`` is worth to ``p``: preference, VP late, and production
    buildings for plantations waiting for them."""
    v = BUILD_PREF[strategy, b] + B_VP[b] * (0.5 + 1.5 * progress)
    g = B_PRODUCES[b]
    if g >= 0:
        waiting = s[_pf(p, L.P_ISLAND + g)] - _circles_for(s, p, g)
        v += 1.5 * min(max(waiting, 0), B_CIRCLES[b])
    elif B_KIND[b] == BuildingKind.SMALL_VIOLET and progress > 0.7:
        v -= 2.0  # a late small violet building rarely pays back its doubloons
    return v


@njit(cache=True)
def _best_build(s, p, strategy, progress, discount):
    """The best value ``p`` can build with his doubloons and a discount, 0 if nothing."""
    cash = np.int64(s[_pf(p, L.P_MONEY)]) + discount
    quarries = np.int64(s[_pf(p, L.P_WORKED + Tile.QUARRY)])
    free = _city_free(s, p)
    best = 0.0
    for b in range(NUM_BUILDINGS):
        if s[L.BUILDING_SUPPLY + b] <= 0 or s[_pf(p, L.P_BUILDINGS + b)] >= 0:
            continue
        cost = B_COST[b] - min(quarries, B_COLUMN[b])  # rules 2.2
        if B_SPACES[b] <= free and cost <= cash:
            best = max(best, build_value(s, p, b, strategy, progress))
    return best


@njit(cache=True)
def _role_value(s, p, r, strategy, picker):
    """What role ``r`` gives ``p`` now; ``picker`` says whether ``p`` would pick it."""
    progress = _progress(s)
    if r == Role.SETTLER:
        if _island(s, p) >= ISLAND_SPACES:
            return 0.0
        return 1.0 + (1.0 - progress) + (PRIVILEGE_VALUE if picker else 0.0)
    if r == Role.MAYOR:
        need = 0
        for t in range(NUM_WORKABLE_TILES):
            need += s[_pf(p, L.P_ISLAND + t)] - s[_pf(p, L.P_WORKED + t)]
        for b in range(NUM_BUILDINGS):
            w = s[_pf(p, L.P_BUILDINGS + b)]
            if w >= 0:
                need += B_CIRCLES[b] - w
        need -= s[_pf(p, L.P_SAN_JUAN)]
        return 0.8 * min(max(need, 0), 3) + (0.5 if picker else 0.0)
    if r == Role.BUILDER:
        return 0.5 * _best_build(s, p, strategy, progress, 1 if picker else 0)
    if r == Role.CRAFTSMAN:
        v = 0.0
        for g in range(NUM_GOODS):
            x = _production(s, p, g)
            v += x * (1.0 + 0.25 * GOOD_PRICE[g])
        return v + (PRIVILEGE_VALUE if picker and v > 0 else 0.0)
    if r == Role.TRADER:
        return _best_sale(s, p, picker)
    if r == Role.CAPTAIN:
        x = _shippable(s, p)
        return x + (PRIVILEGE_VALUE if picker and x > 0 else 0.0)
    return PROSPECTOR_VALUE if picker else 0.0


@njit(cache=True)
def _score_role(s, p, r, strategy):
    n = np.int64(s[L.NUM_PLAYERS])
    mine = _role_value(s, p, r, strategy, True)
    other = 0.0
    for q in range(n):
        if q != p:
            other = max(other, _role_value(s, q, r, strategy, False))
    return (
        ROLE_WEIGHT[strategy, r] * mine
        - OPPONENT_SHARE * other
        + ROLE_MONEY_VALUE * s[L.ROLE_MONEY + r]
    )


@njit(cache=True)
def _score_settle(s, p, t, strategy):
    v = SETTLE_PREF[strategy, t]
    waiting = t < NUM_PLANTATION_KINDS and t != Tile.CORN
    if waiting and _circles_for(s, p, t) > s[_pf(p, L.P_ISLAND + t)]:
        v += 2.0  # a production building of that good lacks plantations
    return v


@njit(cache=True)
def _score_place(s, p, a, strategy):
    if a < ACT_PLACE_BUILDING:
        t = a - ACT_PLACE_TILE
        if t == Tile.QUARRY:
            return 2.0 + SETTLE_PREF[strategy, Tile.QUARRY] * 0.5
        if t == Tile.CORN:
            return PRODUCING_PLACE
        if s[_pf(p, L.P_WORKED + t)] < _workers_for(s, p, t):
            return PRODUCING_PLACE + GOOD_PRICE[t]
        return IDLE_PLACE
    b = a - ACT_PLACE_BUILDING
    g = B_PRODUCES[b]
    if g >= 0:
        if _workers_for(s, p, g) < s[_pf(p, L.P_WORKED + g)]:
            return PRODUCING_PLACE + GOOD_PRICE[g] + 0.5
        # a plantation of g is still empty: the circle produces once it is worked
        if _workers_for(s, p, g) < s[_pf(p, L.P_ISLAND + g)]:
            return 1.0 + 0.1 * GOOD_PRICE[g]
        return IDLE_PLACE
    if B_KIND[b] == BuildingKind.LARGE_VIOLET:
        return LARGE_OCCUPY_BONUS + BUILD_PREF[strategy, b]
    return 1.0 + BUILD_PREF[strategy, b]


@njit(cache=True)
def _loaded(s, p, g, k):
    have = np.int64(s[_pf(p, L.P_GOODS + g)])
    return min(have, np.int64(s[L.SHIP_CAPACITY + k] - s[L.SHIP_LOAD + k]))


@njit(cache=True)
def score_action(s, p, kind, arg, a, strategy):
    """The score of legal action ``a`` of player ``p`` at a decision of ``kind``."""
    if kind == DecisionKind.ROLE:
        return _score_role(s, p, a - ACT_ROLE, strategy)
    if kind == DecisionKind.SETTLE:
        if a == ACT_DECLINE:
            return 0.0
        return _score_settle(s, p, a - ACT_SETTLE, strategy)
    if kind == DecisionKind.PLACE_COLONIST:
        return _score_place(s, p, a, strategy)
    if kind == DecisionKind.BUILD:
        if a == ACT_DECLINE:
            return 0.0
        return build_value(s, p, a - ACT_BUILD, strategy, _progress(s))
    if kind == DecisionKind.CRAFT_PRIVILEGE:
        return 0.0 if a == ACT_DECLINE else 1.0 + GOOD_PRICE[a - ACT_CRAFT]
    if kind == DecisionKind.SELL:
        trader = p == s[L.PICKER]
        if a == ACT_DECLINE:
            return SELL_FLOOR[strategy] - 0.5
        if a >= ACT_POST:
            return _price(s, p, a - ACT_POST, False)
        return _price(s, p, a - ACT_SELL, trader)
    if kind == DecisionKind.LOAD or kind == DecisionKind.SMALL_WHARF:
        if a == ACT_DECLINE:
            return 0.0
        if ACT_LOAD <= a < ACT_WHARF:
            g = (a - ACT_LOAD) // MAX_SHIPS
            k = (a - ACT_LOAD) % MAX_SHIPS
            return SHIP_BARREL * _loaded(s, p, g, k) - GOOD_PRICE[g]
        if ACT_WHARF <= a < ACT_WHARF + NUM_GOODS:
            g = a - ACT_WHARF
            return SHIP_BARREL * s[_pf(p, L.P_GOODS + g)] - GOOD_PRICE[g] - WHARF_PENALTY
        if ACT_SMALL_WHARF <= a < ACT_SMALL_WHARF + NUM_GOODS:
            return SHIP_BARREL - GOOD_PRICE[a - ACT_SMALL_WHARF] - WHARF_PENALTY
        return 0.0
    if kind == DecisionKind.STORE_KIND or kind == DecisionKind.STORE_BARREL:
        if a == ACT_DECLINE:
            return 0.0
        g = a - ACT_KEEP
        lot = s[_pf(p, L.P_GOODS + g)] if kind == DecisionKind.STORE_KIND else 1
        return KEEP_LOT * lot + 1.0 + GOOD_PRICE[g]
    if kind == DecisionKind.DRAFT:
        return BUILD_PREF[strategy, VIOLET_ARR[a - ACT_DRAFT]]
    if kind == DecisionKind.HACIENDA:
        room = _island(s, p) < ISLAND_SPACES - 1
        return 1.0 if (a == ACT_ACCEPT) == room else 0.0
    if (
        kind == DecisionKind.HOSPICE
        or kind == DecisionKind.UNIVERSITY
        or kind == DecisionKind.MAYOR_PRIVILEGE
    ):
        return 1.0 if a == ACT_ACCEPT else 0.0
    # forest, black market, guest house: decline when allowed, else the first offer
    return 1.0 if a == ACT_DECLINE else 0.0


@njit(cache=True)
def score_actions(s, out, n, strategy, scores):
    """Scores of the ``n`` legal actions ``out[:n]`` for the player to move, into ``scores``."""
    p = K.decision_player(s)
    kind = K.decision_kind(s)
    arg = K.decision_arg(s)
    for i in range(n):
        scores[i] = score_action(s, p, kind, arg, out[i], strategy)


CHOICE = scripted.choice_kernels("puerto_rico", sys.modules[__name__])
"""``choose`` and the bots' ``choose_scripted``, compiled over this module's ``score_actions``
and ``EPS`` (the module is their scoring)."""
choose = CHOICE.choose
