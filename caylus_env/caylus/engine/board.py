"""Geometry of the board: the road, the castle and the placement targets.

The road (rules 2.2) has 28 spaces, numbered 1-28 from the bridge outward::

    castle | specials | bridge |  1  2  3  4  5  6 | 7  8 |  9 10 11 [12] 13 14 15 | 16 | 17 [18] ...
                                 neutral (shuffled)  P  C    empty      dungeon      GM   empty walls
    ... 19 20 21 22 23 [24] 25 26 27 28
        empty          towers        last

    P = fixed peddler, C = fixed carpenter, GM = gold mine, [n] = scoring trigger.
    The bailiff and the provost start on space 6 (1.2 step 7).

Road arrays in the state have ``ROAD_SLOTS = 29`` entries indexed by the space
number itself; slot 0 is unused, so no kernel ever converts between 0- and
1-based positions.

Placement targets (phase 2, and the gate in phase 3) are numbered::

    0 gate  1 trading_post  2 merchants_guild  3 joust_field  4 stables  5 inn  6 castle
    7..34 road spaces 1..28   (target = ROAD_TARGET_BASE - 1 + space)
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus.engine.buildings import BuildingId
from caylus_env.caylus.engine.constants import NUM_SECTIONS, SPECIAL_NAMES

ROAD_LEN = 28
ROAD_SLOTS = ROAD_LEN + 1
NUM_NEUTRAL = 6  # road spaces 1-6 hold the shuffled neutral tiles
FIXED_BUILDINGS = {
    7: BuildingId.PEDDLER_FIXED,
    8: BuildingId.CARPENTER_FIXED,
    16: BuildingId.GOLD_MINE,
}
BAILIFF_START = 6
PROVOST_START = 6


# Castle (rules 2.1): sizes, prestige per batch, bailiff triggers (2.2). The tables are
# read-only int64 arrays so that compiled kernels, bots and the observation index them
# directly (numba freezes global arrays as constants).
def _table(rows: object) -> np.ndarray:
    a = np.array(rows, np.int64)
    a.setflags(write=False)
    return a


SECTION_SIZE = _table((6, 10, 14))
SECTION_PRESTIGE = _table((5, 4, 3))
SECTION_TRIGGER = _table((12, 18, 24))
SECTION_EMPTY_PENALTY = _table((2, 3, 4))  # phase 7 table: no house in the section
# Favors at a section scoring, indexed by a player's houses there (capped at 6).
SECTION_FAVORS = _table(
    (
        (0, 0, 1, 1, 1, 1, 1),  # dungeon: 2+ houses -> 1 favor
        (0, 0, 1, 2, 2, 3, 3),  # walls: 2 -> 1, 3-4 -> 2, 5+ -> 3
        (0, 0, 1, 1, 2, 2, 3),  # towers: 2-3 -> 1, 4-5 -> 2, 6+ -> 3
    )
)
SECTION_FAVORS_CAP = SECTION_FAVORS.shape[1] - 1  # more houses earn no more favors
# The favor table (rules 5.1), by column 1-5 (index 0: the start position).
FAVOR_PRESTIGE = _table((0, 1, 2, 3, 4, 5))  # prestige row: prestige gained
FAVOR_DENIERS = _table((0, 3, 4, 5, 6, 7))  # deniers row: deniers gained
# Favor columns open after each scoring (rules 5.2): 2, then 4, then 5.
COLUMNS_OPEN = _table((2, 4, 5, 5))  # indexed by the number of sections scored

assert len(SECTION_SIZE) == NUM_SECTIONS

# Placement targets.
TARGET_GATE = 0
TARGET_TRADING_POST = 1
TARGET_GUILD = 2
TARGET_JOUST = 3
TARGET_STABLES = 4
TARGET_INN = 5
TARGET_CASTLE = 6
ROAD_TARGET_BASE = 7  # target of road space 1
NUM_TARGETS = ROAD_TARGET_BASE + ROAD_LEN
TARGET_NAMES: tuple[str, ...] = (
    *SPECIAL_NAMES,
    "castle",
    *(f"road:{space}" for space in range(1, ROAD_LEN + 1)),
)
# A single-worker special building's occupant field (gate .. joust field) per target.
NUM_SINGLE_SPECIALS = 4

assert TARGET_NAMES[TARGET_CASTLE] == "castle" and len(TARGET_NAMES) == NUM_TARGETS
