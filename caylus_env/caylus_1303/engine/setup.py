"""Setup (rules 3.2): the only chance of the game, drawn from its seed (D38).

The starting, wood and stone tiles, the first player and the revealed characters are drawn
from a Park-Miller "minimal standard" generator seeded with the game's seed, so the same seed
gives the same setup under numba and under plain Python. After setup the game has no chance
element (rules 4.7): the draft is the players' first decisions (rules 3.3).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    CHARACTERS_EXTRA,
    HOUSES_FOR_BUILDINGS,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_RESOURCES,
    NUM_SPACES,
    ON_BOARD,
    OUT_OF_PLAY,
    PROVOST_START,
    ROAD0,
    SITE0,
    START_HAND,
    START_RESOURCES,
    STARTING_SPACES,
    STONE_SPACE,
    WOOD_SPACE,
    WORKERS_PER_COLOUR,
    Phase,
)
from caylus_env.caylus_1303.engine.rules import value
from caylus_env.caylus_1303.engine.state import pf
from caylus_env.caylus_1303.engine.tiles import (
    NUM_MONUMENTS,
    NUM_STONE,
    NUM_WOOD,
    PRINTED_KINDS,
    SIDE_SETUP,
    STARTING_DECK,
    STONE_KINDS,
    STONEMASON,
    WOOD_KINDS,
)

SETUP_MODULUS = 2147483647  # Park-Miller minimal standard generator (D38)
SETUP_MULTIPLIER = 48271
SETUP_WARMUP_DRAWS = value("setup_rng")["warmup"]  # draws discarded after seeding


@njit(cache=True)
def _next(x):
    return (x * SETUP_MULTIPLIER) % SETUP_MODULUS


@njit(cache=True)
def _shuffle(x, arr):
    """Fisher-Yates in place; returns the generator's new state."""
    for i in range(arr.shape[0] - 1, 0, -1):
        x = _next(x)
        j = x % (i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t
    return x


@njit(cache=True)
def init_game(s, num_players, hide_pp, seed):
    """Write the start of a game into ``s`` from its options and seed (rules 3.2 steps 1-10;
    the draft, step 9, is then asked of the players)."""
    s[:] = 0
    n = num_players
    s[L.NUM_PLAYERS] = n
    s[L.OPT_HIDE_PP] = hide_pp
    s[L.ROUND] = 1
    s[L.PHASE] = Phase.DRAFT
    s[L.PROVOST] = PROVOST_START  # step 5 (D6)
    for sp in range(NUM_SPACES):
        s[L.SPACE_KIND + sp] = -1
        s[L.SPACE_OWNER + sp] = -1
        s[L.SPACE_MARK + sp] = -1
        for i in range(MAX_WORKERS_ON_BUILDING):
            s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i] = -1
    for i in range(MAX_PLAYERS):
        s[L.BRIDGE + i] = -1
        s[L.SITE + i] = -1
    for sp in range(NUM_PRINTED):
        s[L.SPACE_KIND + sp] = PRINTED_KINDS[sp]
        s[L.SPACE_SIDE + sp] = SIDE_SETUP

    x = 1 + (seed % (SETUP_MODULUS - 1))
    x = (x + (seed // (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1) + 1
    for _ in range(SETUP_WARMUP_DRAWS):
        x = _next(x)
    # step 1: the starting tiles, one on S1, eight on R1..R8
    deck = STARTING_DECK.copy()
    x = _shuffle(x, deck)
    s[L.SPACE_KIND + SITE0] = deck[0]
    for k in range(1, STARTING_SPACES + 1):
        s[L.SPACE_KIND + ROAD0 + k] = deck[k]
    # step 2: S2 from all wood tiles, then R9 from the rest but the Stonemason (D38)
    for i in range(NUM_WOOD):
        s[L.WOOD_SUPPLY + i] = 1
    x = _next(x)
    i = x % NUM_WOOD
    s[L.WOOD_SUPPLY + i] = 0
    s[L.SPACE_KIND + SITE0 + 1] = WOOD_KINDS[i]
    left = 0
    for j in range(NUM_WOOD):
        if s[L.WOOD_SUPPLY + j] == 1 and WOOD_KINDS[j] != STONEMASON:
            left += 1
    x = _next(x)
    pick = x % left
    for j in range(NUM_WOOD):
        if s[L.WOOD_SUPPLY + j] == 1 and WOOD_KINDS[j] != STONEMASON:
            if pick == 0:
                s[L.WOOD_SUPPLY + j] = 0
                s[L.SPACE_KIND + ROAD0 + WOOD_SPACE] = WOOD_KINDS[j]
                break
            pick -= 1
    # step 3: S3, then R14 from the stone tiles
    for i in range(NUM_STONE):
        s[L.STONE_SUPPLY + i] = 1
    x = _next(x)
    i = x % NUM_STONE
    s[L.STONE_SUPPLY + i] = 0
    s[L.SPACE_KIND + SITE0 + 2] = STONE_KINDS[i]
    x = _next(x)
    pick = x % (NUM_STONE - 1)
    for j in range(NUM_STONE):
        if s[L.STONE_SUPPLY + j] == 1:
            if pick == 0:
                s[L.STONE_SUPPLY + j] = 0
                s[L.SPACE_KIND + ROAD0 + STONE_SPACE] = STONE_KINDS[j]
                break
            pick -= 1
    # step 4: the monument supply
    for i in range(NUM_MONUMENTS):
        s[L.MONUMENT_SUPPLY + i] = 1
    # steps 7, 10: colours, houses, workers and resources
    for p in range(n):
        s[pf(p, L.P_HAND)] = START_HAND[n]
        s[pf(p, L.P_CAMP)] = WORKERS_PER_COLOUR - START_HAND[n]
        s[pf(p, L.P_HOUSES)] = HOUSES_FOR_BUILDINGS
        for r in range(NUM_RESOURCES):
            s[pf(p, L.P_RESOURCES + r)] = START_RESOURCES[r]
    # step 8: the first player
    x = _next(x)
    s[L.FIRST_PLAYER] = x % n
    # step 9: players + 3 characters revealed; the draft starts with the last player
    chars = np.arange(NUM_CHARACTERS)
    x = _shuffle(x, chars)
    for c in range(NUM_CHARACTERS):
        s[L.CHARACTER_HOLDER + c] = OUT_OF_PLAY
    for i in range(n + CHARACTERS_EXTRA):
        s[L.CHARACTER_HOLDER + chars[i]] = ON_BOARD
    s[L.TURN] = (s[L.FIRST_PLAYER] + n - 1) % n
