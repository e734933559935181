"""Setup (rules 1.2-1.4) and the plantation stack, the game's only chance (rules 6.8).

The face-down plantations are shuffled from the game's seed by a Park-Miller
"minimal standard" generator whose state lives in the game state (``layout.RNG``), so a
reshuffle of the discards later in the game (rules 4.1) is as reproducible as the setup,
under numba and under plain Python alike.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.buildings import (
    B_COPIES,
    B_COPIES_2P,
    B_EXPANSION,
    B_KIND,
    NUM_BUILDINGS,
    BuildingKind,
)
from caylus_env.puerto_rico.engine.constants import (
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    GOODS_IN_BOX,
    GOODS_REMOVED_2P,
    MAX_PLAYERS,
    MAX_SHIPS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_ROLES,
    PLANTATIONS_IN_BOX,
    PLANTATIONS_REMOVED_2P,
    QUARRIES,
    ROLES_IN_GAME,
    SHIP_CAPACITY,
    START_DOUBLOONS,
    START_PLANTATIONS,
    VP_CHIPS,
    Phase,
)
from caylus_env.puerto_rico.engine.state import gain_money, pf

RNG_MODULUS = 2147483647  # Park-Miller minimal standard generator
RNG_MULTIPLIER = 48271
RNG_WARMUP_DRAWS = 4  # draws discarded after seeding, so close seeds diverge at once
RNG_LOW_BIAS = 32768  # the low 16 bits are stored minus this, to fit an int16


@njit(cache=True)
def rng_read(s):
    return np.int64(s[L.RNG]) * 65536 + (np.int64(s[L.RNG + 1]) + RNG_LOW_BIAS)


@njit(cache=True)
def rng_write(s, x):
    s[L.RNG] = x // 65536
    s[L.RNG + 1] = x % 65536 - RNG_LOW_BIAS


@njit(cache=True)
def rng_below(s, k):
    """A draw in ``[0, k)`` from the state's generator, which advances."""
    x = (rng_read(s) * RNG_MULTIPLIER) % RNG_MODULUS
    rng_write(s, x)
    return x % k


@njit(cache=True)
def shuffle_stack(s):
    """Fisher-Yates shuffle of the face-down stack in place."""
    n = np.int64(s[L.PLANTATION_STACK_SIZE_F])
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        t = s[L.PLANTATION_STACK + i]
        s[L.PLANTATION_STACK + i] = s[L.PLANTATION_STACK + j]
        s[L.PLANTATION_STACK + j] = t


@njit(cache=True)
def draw_plantation(s):
    """The top face-down plantation, or -1 when none is left even after shuffling the
    discards into a new stack (rules 4.1, 6.8)."""
    if s[L.PLANTATION_STACK_SIZE_F] == 0:
        n = 0
        for k in range(NUM_PLANTATION_KINDS):
            for _ in range(s[L.DISCARDS + k]):
                s[L.PLANTATION_STACK + n] = k
                n += 1
            s[L.DISCARDS + k] = 0
        s[L.PLANTATION_STACK_SIZE_F] = n
        shuffle_stack(s)
    n = np.int64(s[L.PLANTATION_STACK_SIZE_F])
    if n == 0:
        return -1
    t = np.int64(s[L.PLANTATION_STACK + n - 1])
    s[L.PLANTATION_STACK + n - 1] = 0
    s[L.PLANTATION_STACK_SIZE_F] = n - 1
    return t


@njit(cache=True)
def reveal_face_up(s):
    """Turn up players + 1 plantations (fewer when the tiles run out, rules 4.1)."""
    n = np.int64(s[L.NUM_PLAYERS])
    for _ in range(n + 1):
        t = draw_plantation(s)
        if t < 0:
            return
        s[L.FACE_UP + t] += 1


@njit(cache=True)
def init_game(s, num_players, max_decisions, expansion, draft, library_limit, seed):
    """Write the start of a game into ``s`` from the options and a seed (0 <= seed < 2**63).

    Seat 0 is the first governor (rules 1.4); the starting plantations go by distance from
    him (rules 1.2); with 2 players the removed tiles are counted after the starting ones
    are set aside (rules 6.10). With the expansion no violet building is on the supply
    board until the draft (rules 7.1): by the players (``draft`` 0, the first decisions of
    the game) or drawn at random from the seed (``draft`` 1).
    """
    s[:] = 0
    n = num_players
    s[L.NUM_PLAYERS] = n
    s[L.MAX_DECISIONS] = max_decisions
    s[L.OPT_EXPANSION] = expansion
    s[L.OPT_DRAFT] = draft
    s[L.OPT_LIBRARY_LIMIT] = library_limit
    s[L.ROUND] = 1
    s[L.PHASE] = Phase.ROLE_SELECTION
    s[L.GOVERNOR] = 0
    s[L.PICKER] = -1
    for r in range(NUM_ROLES):
        s[L.ROLE_STATE + r] = 0 if ROLES_IN_GAME[n, r] == 1 else -1
    s[L.COLONIST_SUPPLY] = COLONIST_SUPPLY[n]
    s[L.COLONIST_SHIP] = COLONISTS_ON_SHIP[n]
    s[L.VP_SUPPLY] = VP_CHIPS[n]
    for g in range(NUM_GOODS):
        s[L.GOODS_SUPPLY + g] = GOODS_IN_BOX[g] - (GOODS_REMOVED_2P if n == 2 else 0)
    s[L.QUARRY_SUPPLY] = QUARRIES[n]
    for b in range(NUM_BUILDINGS):
        if expansion == 0 and B_EXPANSION[b] == 1:
            continue
        if expansion == 1 and B_KIND[b] != BuildingKind.PRODUCTION:
            continue  # violet buildings come with the draft (rules 7.1)
        s[L.BUILDING_SUPPLY + b] = B_COPIES_2P[b] if n == 2 else B_COPIES[b]
    for k in range(MAX_SHIPS):
        s[L.SHIP_CAPACITY + k] = SHIP_CAPACITY[n, k]
        s[L.SHIP_GOOD + k] = -1
    pool = PLANTATIONS_IN_BOX.copy()
    for p in range(MAX_PLAYERS):
        for b in range(NUM_BUILDINGS):
            s[pf(p, L.P_BUILDINGS + b)] = -1
    for p in range(n):
        gain_money(s, p, START_DOUBLOONS[n])
        t = START_PLANTATIONS[n, p]
        s[pf(p, L.P_ISLAND + t)] = 1
        pool[t] -= 1
    size = 0
    for k in range(NUM_PLANTATION_KINDS):
        left = pool[k] - (PLANTATIONS_REMOVED_2P if n == 2 else 0)
        for _ in range(left):
            s[L.PLANTATION_STACK + size] = k
            size += 1
    s[L.PLANTATION_STACK_SIZE_F] = size

    x = 1 + (seed % (RNG_MODULUS - 1))
    x = (x + (seed // (RNG_MODULUS - 1)) % (RNG_MODULUS - 1)) % (RNG_MODULUS - 1) + 1
    rng_write(s, x)
    for _ in range(RNG_WARMUP_DRAWS):
        rng_below(s, 2)
    shuffle_stack(s)
    reveal_face_up(s)
    if expansion:
        s[L.PHASE] = Phase.DRAFT
