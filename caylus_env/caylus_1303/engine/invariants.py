"""Compiled consistency checks of a Caylus 1303 state, for tests, state dicts and debugging.

``check_invariants(s)`` returns 0 when the state is consistent, or the code of the first broken
invariant (``INVARIANT_MESSAGES[code]`` explains it). What it checks holds between any two
decisions of a legal game: each colour's 15 workers are in the hand, on the board or in the
Camp (D15); each player's 9 houses are in reserve, on his buildings or marking one (D14); every
tile is in exactly one place (rules 2.1, 3.2; a monument paid for whose residence is being
chosen, in that pending decision, D4); characters are held, available or out of play
(rules 3.2 step 9); the bridge, the site slots and the workers on buildings are consistent with
the rules of placement (rules 4.1, D17, D26); counters stay in their bounds.
``accepted_actions`` tries every action id on copies of the state, to compare the legal mask
with what ``step`` really accepts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    CHARACTERS_EXTRA,
    HOUSES_FOR_BUILDINGS,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    MIN_PLAYERS,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_ROUNDS,
    NUM_SPACES,
    OUT_OF_PLAY,
    PROVOST_MAX,
    ROAD0,
    SITE0,
    WORKERS_PER_COLOUR,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.engine.tiles import (
    MONUMENT_KINDS,
    NUM_KINDS,
    NUM_MONUMENTS,
    NUM_STONE,
    NUM_WOOD,
    PRINTED_KINDS,
    SIDE_CONSTRUCTION,
    SIDE_RESIDENCE,
    SIDE_SETUP,
    STONE_KINDS,
    T_GROUP,
    TILES,
    WOOD_KINDS,
    Group,
)
from caylus_env.core.loop import E_ARG_A, E_KIND, E_PLAYER

#: Copies of each kind (starting tiles: 2 farms, 2 markets; every other tile is unique).
COPIES = np.array([t.copies for t in TILES], np.int64)
COPIES.setflags(write=False)
NUM_STARTING_TILES = int(sum(t.copies for t in TILES if t.group == Group.STARTING))


class Invariant(IntEnum):
    OK = 0
    PLAYER_COUNT = 1
    CLOCK = 2
    NEGATIVE = 3
    WORKERS = 4
    HOUSES = 5
    TILES = 6
    SPACES = 7
    OCCUPANCY = 8
    BRIDGE = 9
    SITE = 10
    CHARACTERS = 11
    PROVOST = 12
    STACK = 13


INVARIANT_MESSAGES = {
    Invariant.OK: "consistent",
    Invariant.PLAYER_COUNT: "num_players is not 2-5, or a seat beyond it holds something",
    Invariant.CLOCK: "the round is not 1-9, the phase is unknown, or the first player or turn "
    "is not a seat",
    Invariant.NEGATIVE: "a count (workers, resources, prestige, houses, bundles) is negative",
    Invariant.WORKERS: "a colour's workers in hand, on the board and in the Camp are not 15 (D15)",
    Invariant.HOUSES: "a player's houses in reserve, on buildings and marking buildings are "
    "not 9 (D14)",
    Invariant.TILES: "a tile is missing, doubled, in the wrong supply or on the wrong space "
    "(rules 3.2; a monument whose residence is being chosen is in neither the supply nor the "
    "Road, D4), or a monument stands where no residence was",
    Invariant.SPACES: "a space's side, owner or mark does not fit its tile (printed spaces "
    "fixed, owners only on constructed buildings and residences, marks only on starting "
    "buildings on R1-R8, D19, D21)",
    Invariant.OCCUPANCY: "a worker stands where none may (a residence, a monument, an empty "
    "or site space, two of one player, or a second worker without a first; rules 4.1, D26)",
    Invariant.BRIDGE: "the bridge order does not list exactly the players who passed, once "
    "each, or the first to pass does not hold the first-player tile",
    Invariant.SITE: "the Construction Site slots are not filled left to right with distinct "
    "players (D17)",
    Invariant.CHARACTERS: "a character holder is not a seat, the board or out of play, or the "
    "revealed characters are not players + 3 (rules 3.2 step 9)",
    Invariant.PROVOST: "the Provost is outside 0-23 (D20)",
    Invariant.STACK: "the decision stack's size is outside 0-6, a pending entry names no seat, "
    "or a monument decision names no monument (D4)",
}


@njit(cache=True)
def _check_players(s, n):
    for p in range(MAX_PLAYERS):
        for i in range(L.PLAYER_STRIDE):
            v = s[pf(p, i)]
            if p >= n:
                if v != 0:
                    return Invariant.PLAYER_COUNT
            elif v < 0:
                return Invariant.NEGATIVE
        if p < n and s[pf(p, L.P_PASSED)] > 1:
            return Invariant.NEGATIVE
    # workers (D15)
    on_board = np.zeros(MAX_PLAYERS, np.int64)
    for sp in range(NUM_SPACES):
        for i in range(MAX_WORKERS_ON_BUILDING):
            w = s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i]
            if w >= n or w < -1:
                return Invariant.OCCUPANCY
            if w >= 0:
                on_board[w] += 1
    for i in range(MAX_PLAYERS):
        w = s[L.SITE + i]
        if w >= n or w < -1:
            return Invariant.SITE
        if w >= 0:
            on_board[w] += 1
    for p in range(n):
        if s[pf(p, L.P_HAND)] + s[pf(p, L.P_CAMP)] + on_board[p] != WORKERS_PER_COLOUR:
            return Invariant.WORKERS
    # houses (D14)
    houses = np.zeros(MAX_PLAYERS, np.int64)
    for sp in range(NUM_SPACES):
        o = s[L.SPACE_OWNER + sp]
        m = s[L.SPACE_MARK + sp]
        if o >= n or o < -1 or m >= n or m < -1:
            return Invariant.SPACES
        if o >= 0:
            houses[o] += 1
        if m >= 0:
            houses[m] += 1
    for p in range(n):
        if s[pf(p, L.P_HOUSES)] + houses[p] != HOUSES_FOR_BUILDINGS:
            return Invariant.HOUSES
    return Invariant.OK


@njit(cache=True)
def _check_board(s):
    seen = np.zeros(NUM_KINDS, np.int64)
    monuments_on_road = 0
    for sp in range(NUM_SPACES):
        t = np.int64(s[L.SPACE_KIND + sp])
        side = s[L.SPACE_SIDE + sp]
        owner = s[L.SPACE_OWNER + sp]
        mark = s[L.SPACE_MARK + sp]
        if t < -1 or t >= NUM_KINDS or side < 0 or side > SIDE_RESIDENCE:
            return Invariant.SPACES
        if sp < NUM_PRINTED:
            if t != PRINTED_KINDS[sp] or side != SIDE_SETUP or owner != -1 or mark != -1:
                return Invariant.SPACES
            continue
        if sp >= SITE0:  # S1 starting, S2 wood, S3 stone, Setup side (rules 3.1)
            want = Group.STARTING + sp - SITE0
            if t < 0 or T_GROUP[t] != want or side != SIDE_SETUP or owner != -1 or mark != -1:
                return Invariant.SPACES
            seen[t] += 1
            continue
        if t < 0:
            if side != 0 or owner != -1 or mark != -1:
                return Invariant.SPACES
            continue
        g = T_GROUP[t]
        if g == Group.PRINTED:
            return Invariant.TILES
        seen[t] += 1
        k = sp - ROAD0
        if g == Group.STARTING:
            if k > 8:
                return Invariant.TILES
            if side == SIDE_CONSTRUCTION:
                return Invariant.SPACES
            if side == SIDE_SETUP and owner != -1:
                return Invariant.SPACES
            if side == SIDE_RESIDENCE and (owner < 0 or mark != -1):
                return Invariant.SPACES
        else:
            if mark != -1 or side == SIDE_RESIDENCE:
                return Invariant.SPACES
            if g == Group.MONUMENT:
                monuments_on_road += 1
                if k > 8 or owner < 0 or side != SIDE_CONSTRUCTION:
                    return Invariant.TILES
            elif side == SIDE_SETUP:  # the pre-built R9 and R14 tiles (rules 3.1)
                if owner != -1 or not (
                    (g == Group.WOOD and k == 9) or (g == Group.STONE and k == 14)
                ):
                    return Invariant.SPACES
            elif owner < 0:
                return Invariant.SPACES
    # the pre-built spaces are never empty and hold their group (rules 3.1)
    t9 = s[L.SPACE_KIND + ROAD0 + 9]
    t14 = s[L.SPACE_KIND + ROAD0 + 14]
    if t9 < 0 or T_GROUP[t9] != Group.WOOD or t14 < 0 or T_GROUP[t14] != Group.STONE:
        return Invariant.TILES
    for k in range(1, 9):
        t = s[L.SPACE_KIND + ROAD0 + k]
        if t < 0 or (T_GROUP[t] != Group.STARTING and T_GROUP[t] != Group.MONUMENT):
            return Invariant.TILES
    # every tile in exactly one place; a monument paid for whose residence is being chosen
    # is in neither the supply nor the Road but in the pending decision (D4)
    for i in range(min(max(np.int64(s[L.STACK_SIZE]), 0), L.STACK_DEPTH)):
        o = L.STACK + i * L.STACK_ENTRY
        if s[o + E_KIND] == DecisionKind.MONUMENT and 1 <= s[o + E_ARG_A] <= NUM_MONUMENTS:
            seen[MONUMENT_KINDS[s[o + E_ARG_A] - 1]] += 1
    for i in range(NUM_WOOD):
        v = s[L.WOOD_SUPPLY + i]
        if v < 0 or v > 1 or v + seen[WOOD_KINDS[i]] != 1:
            return Invariant.TILES
    for i in range(NUM_STONE):
        v = s[L.STONE_SUPPLY + i]
        if v < 0 or v > 1 or v + seen[STONE_KINDS[i]] != 1:
            return Invariant.TILES
    for i in range(NUM_MONUMENTS):
        v = s[L.MONUMENT_SUPPLY + i]
        if v < 0 or v > 1 or v + seen[MONUMENT_KINDS[i]] != 1:
            return Invariant.TILES
    starting = 0
    for t in range(NUM_KINDS):
        if T_GROUP[t] == Group.STARTING:
            if seen[t] > COPIES[t]:
                return Invariant.TILES
            starting += seen[t]
    if starting + monuments_on_road != NUM_STARTING_TILES:
        return Invariant.TILES
    return Invariant.OK


@njit(cache=True)
def _check_occupancy(s, n):
    for sp in range(NUM_SPACES):
        w0 = s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING]
        w1 = s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + 1]
        if w0 < 0 and w1 < 0:
            continue
        # the first worker leaves first (rules 4.2), so only Activation sees a second alone
        if (w0 < 0 and s[L.PHASE] != Phase.ACTIVATION) or w0 == w1 or sp >= SITE0:
            return Invariant.OCCUPANCY
        if sp >= NUM_PRINTED:
            t = s[L.SPACE_KIND + sp]
            if t < 0 or T_GROUP[t] == Group.MONUMENT or s[L.SPACE_SIDE + sp] == SIDE_RESIDENCE:
                return Invariant.OCCUPANCY
    seen_empty = False
    for i in range(MAX_PLAYERS):
        w = s[L.SITE + i]
        if w < 0:
            seen_empty = True
        elif seen_empty or i >= n:
            return Invariant.SITE
        else:
            for j in range(i):
                if s[L.SITE + j] == w:
                    return Invariant.SITE
    return Invariant.OK


@njit(cache=True)
def check_invariants(s):
    """0 if the state is consistent, else the first broken ``Invariant``."""
    n = np.int64(s[L.NUM_PLAYERS])
    if n < MIN_PLAYERS or n > MAX_PLAYERS:
        return Invariant.PLAYER_COUNT
    if s[L.OPT_HIDE_PP] < 0 or s[L.OPT_HIDE_PP] > 1:
        return Invariant.CLOCK
    if s[L.ROUND] < 1 or s[L.ROUND] > NUM_ROUNDS or s[L.PHASE] < 0 or s[L.PHASE] > Phase.GAME_OVER:
        return Invariant.CLOCK
    if s[L.FIRST_PLAYER] < 0 or s[L.FIRST_PLAYER] >= n or s[L.TURN] < 0 or s[L.TURN] >= n:
        return Invariant.CLOCK
    if s[L.DECISIONS] < 0 or s[L.PASSES] < 0 or s[L.PASSES] > n:
        return Invariant.CLOCK
    if s[L.PROVOST] < 0 or s[L.PROVOST] > PROVOST_MAX:
        return Invariant.PROVOST
    code = _check_players(s, n)
    if code != Invariant.OK:
        return code
    code = _check_board(s)
    if code != Invariant.OK:
        return code
    code = _check_occupancy(s, n)
    if code != Invariant.OK:
        return code
    # the bridge (rules 4.1 C)
    k = np.int64(s[L.PASSES])
    for i in range(MAX_PLAYERS):
        b = s[L.BRIDGE + i]
        if (i < k) != (b >= 0) or b >= n or b < -1:
            return Invariant.BRIDGE
        if b >= 0:
            if s[pf(b, L.P_PASSED)] != 1:
                return Invariant.BRIDGE
            for j in range(i):
                if s[L.BRIDGE + j] == b:
                    return Invariant.BRIDGE
    passed = 0
    for p in range(n):
        passed += s[pf(p, L.P_PASSED)]
    if passed != k or (k > 0 and s[L.BRIDGE] != s[L.FIRST_PLAYER]):
        return Invariant.BRIDGE
    # characters (rules 3.2 step 9)
    out_of_play = 0
    for c in range(NUM_CHARACTERS):
        h = s[L.CHARACTER_HOLDER + c]
        u = s[L.CHARACTER_USED + c]
        if h < OUT_OF_PLAY or h >= n or u < 0 or u > 1:
            return Invariant.CHARACTERS
        if h == OUT_OF_PLAY:
            out_of_play += 1
    if out_of_play != NUM_CHARACTERS - n - CHARACTERS_EXTRA:
        return Invariant.CHARACTERS
    # the stack
    d = s[L.STACK_SIZE]
    if d < 0 or d > L.STACK_DEPTH:
        return Invariant.STACK
    for i in range(d):
        o = L.STACK + i * L.STACK_ENTRY
        p = s[o + E_PLAYER]
        if p < 0 or p >= n:
            return Invariant.STACK
        if s[o + E_KIND] == DecisionKind.MONUMENT and not 0 <= s[o + E_ARG_A] <= NUM_MONUMENTS:
            return Invariant.STACK
    return Invariant.OK
