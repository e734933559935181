"""Phase 4, Stewardship (rules 4.4, D2-D6, D35, D36), in the steps of ``RULES
["stewardship_steps"]``: residences, monuments, income, Provost reset, pass houses back,
round marker (the game ends after round 9)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import ACT_DECLINE, ACT_MONUMENT, ACT_RESIDENCE
from caylus_env.caylus_1303.engine.constants import (
    ARCHITECT_BONUS,
    BASE_INCOME,
    DAY_LABORER_INCOME,
    MAX_PLAYERS,
    NUM_CHARACTERS,
    NUM_ROUNDS,
    RESIDENCE_INCOME,
    ROAD0,
    ROAD_SPACES,
    STARTING_SPACES,
    Character,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import pop, push
from caylus_env.caylus_1303.engine.phases.effects import NO_DISCOUNT
from caylus_env.caylus_1303.engine.phases.planning import STAGE_EARLY_RISER
from caylus_env.caylus_1303.engine.state import (
    add_prestige,
    can_pay,
    gain_workers,
    pay_named,
    pf,
    provost_reset_position,
    residences,
)
from caylus_env.caylus_1303.engine.tiles import (
    G_CLOTH,
    G_FOOD,
    G_WORKERS,
    MONUMENT_KINDS,
    NUM_MONUMENTS,
    SIDE_CONSTRUCTION,
    SIDE_RESIDENCE,
    T_COST,
    T_FAVOR_WHEN_BUILT,
    T_GROUP,
    T_INCOME,
    T_PP,
    Group,
)

STAGE_RESIDENCES = 0
STAGE_MONUMENTS = 1  # cursor: turns taken, from the first player
STAGE_INCOME = 2


@njit(cache=True)
def make_residences(s):
    """Step a: every building marked by the Lawyer turns to its Residence side; the marking
    house stays on it as its owner (D3, D21)."""
    for k in range(1, ROAD_SPACES + 1):
        sp = ROAD0 + k
        m = s[L.SPACE_MARK + sp]
        if m >= 0:
            s[L.SPACE_SIDE + sp] = SIDE_RESIDENCE
            s[L.SPACE_OWNER + sp] = m
            s[L.SPACE_MARK + sp] = -1


@njit(cache=True)
def income(s):
    """Step c (D5, D31, D35): base workers (by player count) + 1 per residence + each owned
    monument's income (the Garden's workers, the Granary's food, the Factory's cloth) + the
    Day Laborer's worker; workers come from the Camp (D15)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for p in range(n):
        workers = BASE_INCOME[n] + RESIDENCE_INCOME * residences(s, p)
        if s[L.CHARACTER_HOLDER + Character.DAY_LABORER] == p:
            workers += DAY_LABORER_INCOME
        for k in range(1, ROAD_SPACES + 1):
            sp = ROAD0 + k
            t = s[L.SPACE_KIND + sp]
            if t >= 0 and s[L.SPACE_OWNER + sp] == p and T_GROUP[t] == Group.MONUMENT:
                workers += T_INCOME[t, G_WORKERS]
                s[pf(p, L.P_RESOURCES + G_FOOD)] += T_INCOME[t, G_FOOD]
                s[pf(p, L.P_RESOURCES + G_CLOTH)] += T_INCOME[t, G_CLOTH]
        gain_workers(s, p, workers)


@njit(cache=True)
def next_round(s):
    """Steps d-f: the Provost reset (D6), the pass houses back under the bridge (the tile
    stays with the first to pass), the round marker; the game ends after round 9 (D36)."""
    n = np.int64(s[L.NUM_PLAYERS])
    s[L.PROVOST] = provost_reset_position(s)
    for i in range(MAX_PLAYERS):
        s[L.BRIDGE + i] = -1
    for p in range(n):
        s[pf(p, L.P_PASSED)] = 0
    for c in range(NUM_CHARACTERS):
        s[L.CHARACTER_USED + c] = 0
    s[L.PASSES] = 0
    s[L.STAGE] = 0
    s[L.CURSOR] = 0
    if s[L.ROUND] >= NUM_ROUNDS:
        s[L.PHASE] = Phase.GAME_OVER
        return
    s[L.ROUND] += 1
    s[L.PHASE] = Phase.PLANNING
    s[L.STAGE] = STAGE_EARLY_RISER
    s[L.TURN] = s[L.FIRST_PLAYER]


@njit(cache=True)
def drive_stewardship(s):
    st = s[L.STAGE]
    n = np.int64(s[L.NUM_PLAYERS])
    if st == STAGE_RESIDENCES:
        make_residences(s)
        s[L.STAGE] = STAGE_MONUMENTS
        s[L.CURSOR] = 0
        return
    if st == STAGE_MONUMENTS:
        c = np.int64(s[L.CURSOR])
        if c >= n:
            s[L.STAGE] = STAGE_INCOME
            return
        s[L.CURSOR] = c + 1
        push(s, DecisionKind.MONUMENT, (np.int64(s[L.FIRST_PLAYER]) + c) % n, 0)
        return
    income(s)
    next_round(s)


@njit(cache=True)
def is_residence(s, p, sp):
    """Whether space ``sp`` holds a residence of ``p`` (D3): a starting building he owns,
    Residence side up."""
    return (
        s[L.SPACE_OWNER + sp] == p
        and s[L.SPACE_SIDE + sp] == SIDE_RESIDENCE
        and T_GROUP[s[L.SPACE_KIND + sp]] == Group.STARTING
    )


@njit(cache=True)
def legal_monument(s, p, placing, out):
    """With ``placing`` 0: ``decline`` and each monument of the supply ``p`` can pay, if he
    has a residence to build it on (rules 4.4 b, D4). With ``placing`` 1 + i (monument i is
    paid for): ``residence:R<k>`` for each of his residences, in Road order, the one it
    replaces being his choice (rules 4.4 b: "each on a different residence of his own")."""
    if placing > 0:
        n = 0
        for k in range(1, STARTING_SPACES + 1):  # residences are turned starting tiles
            if is_residence(s, p, ROAD0 + k):
                out[n] = ACT_RESIDENCE + k - 1
                n += 1
        return n
    out[0] = ACT_DECLINE
    if residences(s, p) == 0:
        return 1
    n = 1
    for i in range(NUM_MONUMENTS):
        if s[L.MONUMENT_SUPPLY + i] == 1 and can_pay(s, p, T_COST[MONUMENT_KINDS[i]], NO_DISCOUNT):
            out[n] = ACT_MONUMENT + i
            n += 1
    return n


@njit(cache=True)
def build_monument(s, p, i, k):
    """Monument ``i`` (paid for) replaces ``p``'s residence on Rk: the residence tile leaves
    the game, the house stays (D4); he gains its prestige (+1 Architect, D29) and is asked
    again, the Theatre's Favor first, resolved at once (rules 4.4 b)."""
    t = MONUMENT_KINDS[i]
    sp = ROAD0 + k
    s[L.SPACE_KIND + sp] = t
    s[L.SPACE_SIDE + sp] = SIDE_CONSTRUCTION
    add_prestige(s, p, T_PP[t])
    if s[L.CHARACTER_HOLDER + Character.ARCHITECT] == p:
        add_prestige(s, p, ARCHITECT_BONUS)
    push(s, DecisionKind.MONUMENT, p, 0)
    for _ in range(T_FAVOR_WHEN_BUILT[t]):
        push(s, DecisionKind.FAVOR, p, 0)


@njit(cache=True)
def apply_monument(s, p, placing, a):
    """``monument:<name>``: pay it and take it from the supply; with one residence it goes
    there at once, with two or more he is asked which one next (``placing`` 1 + i, D4).
    ``residence:R<k>``: the monument being placed goes on Rk (``build_monument``)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    if placing > 0:
        build_monument(s, p, placing - 1, 1 + a - ACT_RESIDENCE)
        return
    i = a - ACT_MONUMENT
    pay_named(s, p, T_COST[MONUMENT_KINDS[i]], NO_DISCOUNT)
    s[L.MONUMENT_SUPPLY + i] = 0
    if residences(s, p) > 1:
        push(s, DecisionKind.MONUMENT, p, 1 + i)
        return
    for k in range(1, STARTING_SPACES + 1):
        if is_residence(s, p, ROAD0 + k):
            build_monument(s, p, i, k)
            return
