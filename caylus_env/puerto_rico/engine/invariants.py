"""Compiled consistency checks of a Puerto Rico state, for tests and debugging.

``check_invariants(s)`` returns 0 when the state is consistent, or the code of the first
broken invariant (``INVARIANT_MESSAGES[code]`` explains it). What it checks holds between
any two decisions of a legal game: every component is conserved or accounted for
(colonists, plantations per kind, quarries, barrels per good, VP chips with the paper
VP, building tiles, doubloons against what the bank paid out: rules 1.1, 6.7), counters
stay in their bounds, occupancy never exceeds the circles, ships carry one good each and
no good on two ships (rules 4.6). ``accepted_actions`` tries every action id on copies of
the state, to compare the legal mask with what ``step`` really accepts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import NUM_ACTIONS
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COPIES,
    B_COPIES_2P,
    B_EXPANSION,
    B_KIND,
    NUM_BUILDINGS,
)
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    GOODS_IN_BOX,
    GOODS_REMOVED_2P,
    ISLAND_SPACES,
    MAX_PLAYERS,
    MAX_SHIPS,
    MIN_PLAYERS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_ROLES,
    NUM_WORKABLE_TILES,
    PLANTATIONS_IN_BOX,
    PLANTATIONS_REMOVED_2P,
    QUARRIES,
    TRADING_HOUSE_SPACES,
    VP_CHIPS,
    Tile,
)
from caylus_env.puerto_rico.engine.loop import ILLEGAL, accepted_actions, advance, apply, step
from caylus_env.puerto_rico.engine.state import city_spaces_used, colonists_of, island_tiles, pf


class Invariant(IntEnum):
    OK = 0
    PLAYER_COUNT = 1
    NEGATIVE = 2
    COLONISTS = 3
    OCCUPANCY = 4
    SPACES = 5
    PLANTATIONS = 6
    QUARRIES = 7
    GOODS = 8
    VP = 9
    DOUBLOONS = 10
    BUILDING_TILES = 11
    SHIPS = 12
    TRADING_HOUSE = 13
    ROLES = 14


INVARIANT_MESSAGES = {
    Invariant.OK: "consistent",
    Invariant.PLAYER_COUNT: "num_players is not 2-5",
    Invariant.NEGATIVE: "a count (doubloons, barrels, tiles, colonists, supply) is negative",
    Invariant.COLONISTS: "colonists on boards, ship and supply differ from the starting total",
    Invariant.OCCUPANCY: "more colonists on a tile kind or building than it has circles",
    Invariant.SPACES: "more than 12 island tiles or 12 city spaces",
    Invariant.PLANTATIONS: "plantations of a kind on islands, face up, face down and "
    "discarded differ from the game's total",
    Invariant.QUARRIES: "quarries on islands and in the supply differ from the game's total",
    Invariant.GOODS: "barrels of a good with players, on ships, in the trading house and in "
    "the supply differ from the game's total",
    Invariant.VP: "VP of the players plus the chip supply differ from the chips of the game",
    Invariant.DOUBLOONS: "doubloons of the players and on role cards differ from what the "
    "bank paid out",
    Invariant.BUILDING_TILES: "building tiles owned and in the supply differ from the copies "
    "of the game (or of the draft), or a player owns a building twice",
    Invariant.SHIPS: "a cargo ship is over capacity, has a load without a good (or a good "
    "without a load), or two ships carry the same good",
    Invariant.TRADING_HOUSE: "more than 4 barrels in the trading house",
    Invariant.ROLES: "a role card state is not -1, 0 or 1",
}


@njit(cache=True)
def check_invariants(s):
    """0 if the state is consistent, else the first broken ``Invariant``."""
    n = np.int64(s[L.NUM_PLAYERS])
    if n < MIN_PLAYERS or n > MAX_PLAYERS:
        return Invariant.PLAYER_COUNT
    for i in range(L.COLONIST_SUPPLY, L.PLANTATION_STACK):
        if i != L.VP_SUPPLY and s[i] < 0:
            return Invariant.NEGATIVE
    for p in range(n):
        for i in range(L.P_SAN_JUAN + 1):
            if i != L.P_BUILDINGS and i < L.P_BUILDINGS and s[pf(p, i)] < 0:
                return Invariant.NEGATIVE
        if s[pf(p, L.P_SAN_JUAN)] < 0:
            return Invariant.NEGATIVE
    for r in range(NUM_ROLES):
        if s[L.ROLE_STATE + r] < -1 or s[L.ROLE_STATE + r] > 1 or s[L.ROLE_MONEY + r] < 0:
            return Invariant.ROLES
    colonists = np.int64(s[L.COLONIST_SUPPLY]) + s[L.COLONIST_SHIP]
    for p in range(n):
        colonists += colonists_of(s, p)
    if colonists != COLONIST_SUPPLY[n] + COLONISTS_ON_SHIP[n]:
        return Invariant.COLONISTS
    for p in range(n):
        for t in range(NUM_WORKABLE_TILES):
            if s[pf(p, L.P_WORKED + t)] > s[pf(p, L.P_ISLAND + t)]:
                return Invariant.OCCUPANCY
        for b in range(NUM_BUILDINGS):
            w = s[pf(p, L.P_BUILDINGS + b)]
            if w < -1 or w > B_CIRCLES[b]:
                return Invariant.OCCUPANCY
        if island_tiles(s, p) > ISLAND_SPACES or city_spaces_used(s, p) > CITY_SPACES:
            return Invariant.SPACES
    stack = np.zeros(NUM_PLANTATION_KINDS, np.int64)
    for i in range(s[L.PLANTATION_STACK_SIZE_F]):
        t = s[L.PLANTATION_STACK + i]
        if t < 0 or t >= NUM_PLANTATION_KINDS:
            return Invariant.PLANTATIONS
        stack[t] += 1
    forests = 0
    for p in range(n):
        forests += s[pf(p, L.P_ISLAND + Tile.FOREST)]
    for k in range(NUM_PLANTATION_KINDS):
        forests -= s[L.FORESTED + k]
    if forests != 0:
        return Invariant.PLANTATIONS
    for k in range(NUM_PLANTATION_KINDS):
        total = stack[k] + s[L.FACE_UP + k] + s[L.DISCARDS + k] + s[L.FORESTED + k]
        for p in range(n):
            total += s[pf(p, L.P_ISLAND + k)]
        expected = PLANTATIONS_IN_BOX[k] - (PLANTATIONS_REMOVED_2P if n == 2 else 0)
        if total != expected:
            return Invariant.PLANTATIONS
    quarries = np.int64(s[L.QUARRY_SUPPLY])
    for p in range(n):
        quarries += s[pf(p, L.P_ISLAND + Tile.QUARRY)]
    if quarries != QUARRIES[n]:
        return Invariant.QUARRIES
    for g in range(NUM_GOODS):
        total = np.int64(s[L.GOODS_SUPPLY + g]) + s[L.TRADING_HOUSE + g]
        for p in range(n):
            total += s[pf(p, L.P_GOODS + g)]
        for k in range(MAX_SHIPS):
            if s[L.SHIP_GOOD + k] == g:
                total += s[L.SHIP_LOAD + k]
        if total != GOODS_IN_BOX[g] - (GOODS_REMOVED_2P if n == 2 else 0):
            return Invariant.GOODS
    vp = np.int64(s[L.VP_SUPPLY])
    money = np.int64(0)
    for p in range(n):
        vp += s[pf(p, L.P_VP)]
        money += s[pf(p, L.P_MONEY)]
    if vp != VP_CHIPS[n]:
        return Invariant.VP
    for r in range(NUM_ROLES):
        money += s[L.ROLE_MONEY + r]
    if money != s[L.BANK_PAID]:
        return Invariant.DOUBLOONS
    for b in range(NUM_BUILDINGS):
        owned = 0
        for p in range(n):
            if s[pf(p, L.P_BUILDINGS + b)] >= 0:
                owned += 1
        copies = B_COPIES_2P[b] if n == 2 else B_COPIES[b]
        total = owned + s[L.BUILDING_SUPPLY + b]
        if s[L.OPT_EXPANSION] == 0 and B_EXPANSION[b] == 1:
            copies = 0  # not in a base game
        elif s[L.OPT_EXPANSION] == 1 and B_KIND[b] != 0 and total == 0:
            copies = 0  # a violet kind not (yet) drafted (rules 7.1)
        if total != copies:
            return Invariant.BUILDING_TILES
    for k in range(MAX_SHIPS):
        g = s[L.SHIP_GOOD + k]
        load = s[L.SHIP_LOAD + k]
        if load > s[L.SHIP_CAPACITY + k] or (g < 0) != (load == 0) or g >= NUM_GOODS:
            return Invariant.SHIPS
        for j in range(k):
            if g >= 0 and s[L.SHIP_GOOD + j] == g:
                return Invariant.SHIPS
    house = 0
    for g in range(NUM_GOODS):
        house += s[L.TRADING_HOUSE + g]
    if house > TRADING_HOUSE_SPACES:
        return Invariant.TRADING_HOUSE
    return Invariant.OK


#: Codes of ``check_random_game`` beyond the invariants.
MASK_MISMATCH = 100  # the legal actions differ from what ``step`` accepts
REJECT_CHANGED = 101  # a rejected action changed the state, or an illegal one was accepted


@njit(cache=True)
def check_random_game(s, rng_seed, sample_every):
    """Play uniformly random legal actions from ``s`` to the end, checking the invariants
    at every decision and, every ``sample_every`` decisions, that the legal actions are
    exactly those ``step`` accepts and that a rejected action leaves the state untouched.

    Returns:
        ``(code, decisions)``: 0 or the first failure (an ``Invariant``, ``MASK_MISMATCH``
        or ``REJECT_CHANGED``), and the decisions taken before it.
    """
    np.random.seed(rng_seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    acc = np.empty(NUM_ACTIONS, np.int64)
    scratch = np.empty(NUM_ACTIONS, np.int64)
    n = advance(s, out)
    steps = 0
    while n > 0:
        code = check_invariants(s) + 0  # the Invariant as a plain int64
        if code != 0:
            return code, steps
        if steps % sample_every == 0:
            m = accepted_actions(s, acc)
            if m != n:
                return MASK_MISMATCH, steps
            for i in range(n):
                if acc[i] != out[i]:
                    return MASK_MISMATCH, steps
            if n < NUM_ACTIONS:
                a = np.random.randint(NUM_ACTIONS)
                while True:
                    legal = False
                    for i in range(n):
                        legal = legal or out[i] == a
                    if not legal:
                        break
                    a = (a + 1) % NUM_ACTIONS
                c = s.copy()
                if step(c, a, scratch) != ILLEGAL:
                    return REJECT_CHANGED, steps
                for i in range(c.shape[0]):
                    if c[i] != s[i]:
                        return REJECT_CHANGED, steps
        apply(s, out[np.random.randint(n)])
        steps += 1
        n = advance(s, out)
    return check_invariants(s) + 0, steps
