"""Using a building (rules 4.2, 5.1-5.4), paying "any" (D12), constructing (D22) and Favors
(rules 4.5, D23).

A building's effect is read from the tile table (``tiles``): its side's `EffectType` and
options. The same kernels serve a worker activated on the Road, on a printed space, and a
Favor that uses a Construction Site building (its Setup side, no owner, the Provost
irrelevant, rules 4.5). Every effect is optional (D18): ``decline`` is always legal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import (
    ACT_CHARACTER,
    ACT_CONSTRUCT,
    ACT_DECLINE,
    ACT_MARK,
    ACT_OPTION,
    ACT_PAY,
    ACT_PROVOST,
    ACT_STEAL,
    ACT_TAKE,
    ACT_USE_SITE,
    PROVOST_DELTAS,
)
from caylus_env.caylus_1303.engine.constants import (
    ARCHITECT_BONUS,
    FAVOR_SITES,
    LAWYER_FIRST,
    LAWYER_LAST,
    NUM_ANY,
    NUM_CHARACTERS,
    ON_BOARD,
    PROVOST_MAX,
    ROAD0,
    SITE0,
    TOLL_STEPS,
    Character,
    DecisionKind,
)
from caylus_env.caylus_1303.engine.decisions import pop, push
from caylus_env.caylus_1303.engine.state import (
    add_prestige,
    can_pay,
    lowest_empty_road,
    pay_named,
    pf,
    take_gain,
)
from caylus_env.caylus_1303.engine.tiles import (
    C_CLOTH,
    CONSTRUCTIBLE_KINDS,
    COST_KEYS,
    NUM_WOOD,
    SIDE_CONSTRUCTION,
    SIDE_SETUP,
    T_COST,
    T_DISCOUNT,
    T_EFFECT,
    T_EFFECT_GROUP,
    T_GROUP,
    T_NUM_OPTIONS,
    T_OPTION_COST,
    T_OPTION_GAIN,
    T_PP,
    EffectType,
    Group,
)

NO_DISCOUNT = np.zeros(len(COST_KEYS), np.int64)
NO_DISCOUNT.setflags(write=False)


@njit(cache=True)
def effect_side(s, space):
    """The side whose effect a use of ``space`` applies: a Favor uses a site building's
    Setup side (rules 4.5); elsewhere the side up."""
    if space >= SITE0:
        return SIDE_SETUP
    return np.int64(s[L.SPACE_SIDE + space])


@njit(cache=True)
def supply_index(kind):
    """Index of a wood or stone kind in its supply field (``layout.WOOD_SUPPLY`` /
    ``STONE_SUPPLY``), which is also its offset in ``tiles.CONSTRUCTIBLE_KINDS``."""
    for i in range(CONSTRUCTIBLE_KINDS.shape[0]):
        if CONSTRUCTIBLE_KINDS[i] == kind:
            return i
    return -1


@njit(cache=True)
def in_supply(s, i):
    """Whether constructible tile ``i`` (``tiles.CONSTRUCTIBLE_KINDS`` order) is in its supply."""
    if i < NUM_WOOD:
        return s[L.WOOD_SUPPLY + i] == 1
    return s[L.STONE_SUPPLY + i - NUM_WOOD] == 1


@njit(cache=True)
def _provost_moves(s, max_steps, out, n):
    """Append the legal ``provost:<d>`` ids with |d| <= max_steps (end point in 0..23, D20)."""
    p = np.int64(s[L.PROVOST])
    for i in range(PROVOST_DELTAS.shape[0]):
        d = PROVOST_DELTAS[i]
        if abs(d) <= max_steps and 0 <= p + d <= PROVOST_MAX:
            out[n] = ACT_PROVOST + i
            n += 1
    return n


@njit(cache=True)
def legal_effect(s, p, space, out):
    """``decline`` and every option of the building ``p`` uses that he can pay (D18)."""
    kind = np.int64(s[L.SPACE_KIND + space])
    side = effect_side(s, space)
    et = T_EFFECT[kind, side]
    n = 0
    out[n] = ACT_DECLINE
    n += 1
    if et == EffectType.OPTIONS:
        for o in range(T_NUM_OPTIONS[kind, side]):
            if can_pay(s, p, T_OPTION_COST[kind, side, o], NO_DISCOUNT):
                out[n] = ACT_OPTION + o
                n += 1
    elif et == EffectType.TAKE:
        if can_pay(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT):
            for r in range(NUM_ANY):
                out[n] = ACT_TAKE + r
                n += 1
    elif et == EffectType.CONSTRUCT:
        group = T_EFFECT_GROUP[kind, side]
        if s[pf(p, L.P_HOUSES)] > 0 and lowest_empty_road(s) > 0:
            for i in range(CONSTRUCTIBLE_KINDS.shape[0]):
                t = CONSTRUCTIBLE_KINDS[i]
                if (
                    T_GROUP[t] == group
                    and in_supply(s, i)
                    and can_pay(s, p, T_COST[t], T_DISCOUNT[kind, side])
                ):
                    out[n] = ACT_CONSTRUCT + i
                    n += 1
    elif et == EffectType.TOLL:
        n = _provost_moves(s, TOLL_STEPS, out, n)
    elif (
        et == EffectType.LAWYER
        and s[pf(p, L.P_HOUSES)] > 0
        and can_pay(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT)
    ):
        for k in range(LAWYER_FIRST, LAWYER_LAST + 1):
            sp = ROAD0 + k
            t = s[L.SPACE_KIND + sp]
            if (
                t >= 0
                and T_GROUP[t] == Group.STARTING
                and s[L.SPACE_SIDE + sp] == SIDE_SETUP
                and s[L.SPACE_MARK + sp] < 0
            ):
                out[n] = ACT_MARK + k - LAWYER_FIRST
                n += 1
    return n


@njit(cache=True)
def _owe(s, p, owed):
    if owed > 0:
        push(s, DecisionKind.PAY, p, owed)


@njit(cache=True)
def construct(s, p, t, discount):
    """Construct tile kind ``t`` for ``p`` (rules 4.2, D22): it leaves its supply, goes
    Construction side up on the lowest-numbered empty Road space with his house, and he gains
    its prestige (+1 with the Architect, D29); returns the "any" resources he still owes."""
    owed = pay_named(s, p, T_COST[t], discount)
    i = supply_index(t)
    if i < NUM_WOOD:
        s[L.WOOD_SUPPLY + i] = 0
    else:
        s[L.STONE_SUPPLY + i - NUM_WOOD] = 0
    sp = ROAD0 + lowest_empty_road(s)
    s[L.SPACE_KIND + sp] = t
    s[L.SPACE_SIDE + sp] = SIDE_CONSTRUCTION
    s[L.SPACE_OWNER + sp] = p
    s[pf(p, L.P_HOUSES)] -= 1
    add_prestige(s, p, T_PP[t])
    if s[L.CHARACTER_HOLDER + Character.ARCHITECT] == p:
        add_prestige(s, p, ARCHITECT_BONUS)
    return owed


@njit(cache=True)
def apply_effect(s, p, space, a):
    """Apply the chosen option of the building ``p`` uses; what it owes ("any" resources) and
    the Favors it gives are asked next, the payment first (D23, D34)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    kind = np.int64(s[L.SPACE_KIND + space])
    side = effect_side(s, space)
    et = T_EFFECT[kind, side]
    if et == EffectType.OPTIONS:
        o = a - ACT_OPTION
        owed = pay_named(s, p, T_OPTION_COST[kind, side, o], NO_DISCOUNT)
        favors = take_gain(s, p, T_OPTION_GAIN[kind, side, o])
        for _ in range(favors):
            push(s, DecisionKind.FAVOR, p, 0)
        _owe(s, p, owed)
    elif et == EffectType.TAKE:
        owed = pay_named(s, p, T_OPTION_COST[kind, side, 0], NO_DISCOUNT)
        s[pf(p, L.P_RESOURCES + a - ACT_TAKE)] += 1
        _owe(s, p, owed)
    elif et == EffectType.CONSTRUCT:
        t = CONSTRUCTIBLE_KINDS[a - ACT_CONSTRUCT]
        _owe(s, p, construct(s, p, t, T_DISCOUNT[kind, side]))
    elif et == EffectType.TOLL:
        s[L.PROVOST] += PROVOST_DELTAS[a - ACT_PROVOST]
    elif et == EffectType.LAWYER:
        s[pf(p, L.P_RESOURCES + C_CLOTH)] -= T_OPTION_COST[kind, side, 0, C_CLOTH]
        s[pf(p, L.P_HOUSES)] -= 1
        s[L.SPACE_MARK + ROAD0 + LAWYER_FIRST + a - ACT_MARK] = p


@njit(cache=True)
def legal_pay(s, p, out):
    """``pay:<r>`` for each of food, wood, stone, cloth ``p`` holds (D12)."""
    n = 0
    for r in range(NUM_ANY):
        if s[pf(p, L.P_RESOURCES + r)] > 0:
            out[n] = ACT_PAY + r
            n += 1
    return n


@njit(cache=True)
def apply_pay(s, p, owed, a):
    s[pf(p, L.P_RESOURCES + a - ACT_PAY)] -= 1
    pop(s)
    if owed > 1:
        push(s, DecisionKind.PAY, p, owed - 1)


@njit(cache=True)
def legal_favor(s, p, out):
    """A Favor's options (rules 4.5, D23): take a character from another player, or use a
    site building the round allows (D8)."""
    n = 0
    for c in range(NUM_CHARACTERS):
        h = s[L.CHARACTER_HOLDER + c]
        if h >= 0 and h != p:
            out[n] = ACT_STEAL + c
            n += 1
    for k in range(FAVOR_SITES[s[L.ROUND]]):
        out[n] = ACT_USE_SITE + k
        n += 1
    return n


@njit(cache=True)
def board_characters(s):
    n = 0
    for c in range(NUM_CHARACTERS):
        if s[L.CHARACTER_HOLDER + c] == ON_BOARD:
            n += 1
    return n


@njit(cache=True)
def apply_favor(s, p, a):
    """Steal a character (its power moves with it, D24), or use a site building and then take
    an available character if any is left (D23)."""
    pop(s)
    if a < ACT_USE_SITE:
        s[L.CHARACTER_HOLDER + a - ACT_STEAL] = p
        return
    if board_characters(s) > 0:
        push(s, DecisionKind.BOARD_CHARACTER, p, 0)
    push(s, DecisionKind.EFFECT, p, SITE0 + a - ACT_USE_SITE)


@njit(cache=True)
def legal_board_character(s, out):
    """``character:<c>`` for each available character (the draft and a Favor, rules 3.3, 4.5)."""
    n = 0
    for c in range(NUM_CHARACTERS):
        if s[L.CHARACTER_HOLDER + c] == ON_BOARD:
            out[n] = ACT_CHARACTER + c
            n += 1
    return n


@njit(cache=True)
def apply_board_character(s, p, a):
    s[L.CHARACTER_HOLDER + a - ACT_CHARACTER] = p
    pop(s)
