"""Setup (rules 1.2-1.4): the only randomness of the game, drawn from its seed.

The neutral tiles are shuffled onto road spaces 1-6 and the first turn order is
drawn from a Park-Miller "minimal standard" generator, so the same seed gives the
same setup under numba and under plain Python (``NUMBA_DISABLE_JIT=1``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import (
    BAILIFF_START,
    FIXED_BUILDINGS,
    NUM_NEUTRAL,
    NUM_SINGLE_SPECIALS,
    PROVOST_START,
    ROAD_LEN,
)
from caylus_env.caylus.engine.buildings import (
    B_COPIES,
    B_KIND,
    NEUTRAL_TILES,
    BuildingId,
    BuildingKind,
)
from caylus_env.caylus.engine.constants import (
    MAX_PLAYERS,
    NUM_RESOURCES,
    NUM_STABLES_SPOTS,
    START_CUBES,
    START_DENIERS,
    START_DENIERS_TWO_PLAYERS,
    Phase,
)
from caylus_env.caylus.engine.state import player_field

SETUP_MODULUS = 2147483647  # Park-Miller minimal standard generator
SETUP_MULTIPLIER = 48271
SETUP_WARMUP_DRAWS = 4  # draws discarded after seeding, so close seeds diverge at once

START_DENIERS_ARR = np.array(START_DENIERS, np.int64)
START_CUBES_ARR = np.array(START_CUBES, np.int64)
NEUTRAL_ARR = np.array([int(b) for b in NEUTRAL_TILES], np.int64)
FIXED_SPACES = np.array(sorted(FIXED_BUILDINGS), np.int64)
FIXED_TILES = np.array([int(FIXED_BUILDINGS[k]) for k in sorted(FIXED_BUILDINGS)], np.int64)
#: The stock holds the tiles players construct; neutral and fixed buildings start on the road.
STOCK_START = np.where(
    (int(BuildingKind.WOOD) == B_KIND)
    | (int(BuildingKind.STONE) == B_KIND)
    | (int(BuildingKind.PRESTIGE) == B_KIND),
    B_COPIES,
    0,
).astype(np.int64)


@njit(cache=True)
def setup_next(x):
    """One step of the Park-Miller generator."""
    return (x * SETUP_MULTIPLIER) % SETUP_MODULUS


@njit(cache=True)
def init_game(s, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed):
    """Write the start of a game into ``s`` (the state array) from options and a seed.

    The neutral tiles are shuffled onto road spaces 1-6 and the first turn order is
    drawn, both from a Park-Miller generator seeded with ``seed`` (0 <= seed < 2**63),
    so the same seed gives the same setup under numba and under plain Python.
    """
    s[:] = 0
    s[L.NUM_PLAYERS] = num_players
    s[L.OPT_SIMPLIFIED_FAVORS] = simplified_favors
    s[L.OPT_LAWYER_PRESTIGE] = lawyer_prestige
    s[L.OPT_JEWELLER] = jeweller
    s[L.OPT_HOUSE_CAP] = house_cap
    s[L.TURN] = 1
    s[L.PHASE] = Phase.INCOME
    s[L.PROVOST] = PROVOST_START
    s[L.BAILIFF] = BAILIFF_START
    for i in range(MAX_PLAYERS):
        s[L.PASS_ORDER + i] = -1
        s[L.TURN_ORDER + i] = -1
        s[L.CASTLE_SPOTS + i] = -1
    for i in range(NUM_SINGLE_SPECIALS):
        s[L.SPECIAL_WORKER + i] = -1
    for i in range(NUM_STABLES_SPOTS):
        s[L.STABLES + i] = -1
    s[L.INN_LEFT] = -1
    s[L.INN_RIGHT] = -1
    for k in range(ROAD_LEN + 1):
        s[L.ROAD_TILE + k] = -1
        s[L.ROAD_OWNER + k] = -1
        s[L.ROAD_WORKER + k] = -1
        s[L.ROAD_LAWYER + k] = -1
    for b in range(B_COPIES.shape[0]):
        s[L.STOCK + b] = STOCK_START[b]
    if jeweller:
        s[L.STOCK + BuildingId.JEWELLER] = 1  # rules 8.1: the optional Jeweller tile

    x = 1 + (seed % (SETUP_MODULUS - 1))
    x = (x + (seed // (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1) + 1
    for _ in range(SETUP_WARMUP_DRAWS):
        x = setup_next(x)
    neutral = NEUTRAL_ARR.copy()
    for i in range(NUM_NEUTRAL - 1, 0, -1):
        x = setup_next(x)
        j = x % (i + 1)
        t = neutral[i]
        neutral[i] = neutral[j]
        neutral[j] = t
    for i in range(NUM_NEUTRAL):
        s[L.ROAD_TILE + 1 + i] = neutral[i]
    for i in range(FIXED_SPACES.shape[0]):
        s[L.ROAD_TILE + FIXED_SPACES[i]] = FIXED_TILES[i]
    order = np.arange(num_players)
    for i in range(num_players - 1, 0, -1):
        x = setup_next(x)
        j = x % (i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    for i in range(num_players):
        p = order[i]
        s[L.TURN_ORDER + i] = p
        s[player_field(p, L.P_MONEY)] = (
            START_DENIERS_TWO_PLAYERS if num_players == 2 else START_DENIERS_ARR[i]
        )
        for r in range(NUM_RESOURCES):
            s[player_field(p, L.P_CUBES + r)] = START_CUBES_ARR[r]
