"""Rule constants of Puerto Rico: the enums and every number of the components, once.

Each table cites the section of ``docs/rules/puerto_rico.md`` it comes from. Tables
indexed by player count have 6 entries (index 0 and 1 unused) so that kernels read
``TABLE[num_players]`` directly. The tables are globals of the numba kernels, so this
module is part of the compiled code whose sources key the kernel cache
(``caylus_env.core._cache``).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

MIN_PLAYERS = 2
MAX_PLAYERS = 5


class Good(IntEnum):
    """The five goods, in trading-house price order (rules 1.1, 4.5)."""

    CORN = 0
    INDIGO = 1
    SUGAR = 2
    TOBACCO = 3
    COFFEE = 4


NUM_GOODS = 5
GOOD_NAMES: tuple[str, ...] = tuple(g.name.lower() for g in Good)


class Tile(IntEnum):
    """Island tiles: one plantation kind per good, the quarry (rules 1.1) and the
    expansion's forest, a face-down plantation that takes no colonist (rules 7.3)."""

    CORN = 0
    INDIGO = 1
    SUGAR = 2
    TOBACCO = 3
    COFFEE = 4
    QUARRY = 5
    FOREST = 6


NUM_TILES = 7
NUM_WORKABLE_TILES = 6  # tiles with a circle: every kind but the forest
NUM_PLANTATION_KINDS = 5
TILE_NAMES: tuple[str, ...] = tuple(t.name.lower() for t in Tile)
ISLAND_SPACES = 12  # rules 2.1
CITY_SPACES = 12  # rules 2.1


class Role(IntEnum):
    """The eight role cards (rules 1.1); the two prospector cards are distinct cards."""

    SETTLER = 0
    MAYOR = 1
    BUILDER = 2
    CRAFTSMAN = 3
    TRADER = 4
    CAPTAIN = 5
    PROSPECTOR_1 = 6
    PROSPECTOR_2 = 7


NUM_ROLES = 8
ROLE_NAMES: tuple[str, ...] = tuple(r.name.lower() for r in Role)


class Phase(IntEnum):
    """Where the round is: picking a role, carrying one out, or the end (rules 3, 4)."""

    ROLE_SELECTION = 0
    SETTLER = 1
    MAYOR = 2
    BUILDER = 3
    CRAFTSMAN = 4
    TRADER = 5
    CAPTAIN = 6  # loading turns (rules 4.6)
    CAPTAIN_STORAGE = 7  # storage, then full ships unloaded (rules 4.7)
    GAME_OVER = 8
    DRAFT = 9  # the expansion's building draft before the first round (rules 7.1)


PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)
#: The phase a role card starts; the prospector has none (rules 4.8).
PHASE_OF_ROLE = np.array(
    [
        Phase.SETTLER,
        Phase.MAYOR,
        Phase.BUILDER,
        Phase.CRAFTSMAN,
        Phase.TRADER,
        Phase.CAPTAIN,
        -1,
        -1,
    ],
    np.int64,
)


class DecisionKind(IntEnum):
    """Every question the engine asks (rules 6 lists how each is decomposed)."""

    ROLE = 0  # pick a role card (3.1)
    HACIENDA = 1  # draw the top face-down plantation or not (4.1, 2.4)
    SETTLE = 2  # take a face-up plantation, a quarry, or nothing (4.1)
    HOSPICE = 3  # a colonist on the new tile or not (2.4)
    MAYOR_PRIVILEGE = 4  # take the privilege colonist or not (4.2)
    PLACE_COLONIST = 5  # one colonist onto a tile kind or a building (4.2, 6.3)
    BUILD = 6  # build one building or nothing (4.3)
    UNIVERSITY = 7  # a colonist on the new building or not (2.4)
    CRAFT_PRIVILEGE = 8  # the craftsman's extra barrel (4.4)
    SELL = 9  # sell one barrel or nothing (4.5)
    LOAD = 10  # a loading turn: a ship, the wharf, or pass when only the wharf is left (4.6)
    STORE_KIND = 11  # a warehouse keeps a whole kind (4.7)
    STORE_BARREL = 12  # the windrose barrel, and the storehouse's three (4.7, 7.2)
    DRAFT = 13  # a violet building for the supply board (7.1)
    FOREST = 14  # the hacienda's tile as a forest or not (7.3)
    BLACK_MARKET = 15  # what to return to the black market (7.2)
    GUEST_HOUSE = 16  # move a guest-house colonist or not (7.4)
    SMALL_WHARF = 17  # one more barrel through the small wharf or stop (7.2)


NUM_DECISION_KINDS = 18
DECISION_NAMES: tuple[str, ...] = tuple(d.name.lower() for d in DecisionKind)

# -- components by player count (rules 1.1-1.3); index = player count ----------------------
START_DOUBLOONS = np.array([0, 0, 3, 2, 3, 4], np.int64)
COLONIST_SUPPLY = np.array([0, 0, 40, 55, 75, 95], np.int64)
COLONISTS_ON_SHIP = np.array([0, 0, 2, 3, 4, 5], np.int64)
VP_CHIPS = np.array([0, 0, 65, 75, 100, 122], np.int64)
QUARRIES = np.array([0, 0, 5, 8, 8, 8], np.int64)
MAX_SHIPS = 3
SHIP_CAPACITY = np.array(
    [[0, 0, 0], [0, 0, 0], [4, 6, 0], [4, 5, 6], [5, 6, 7], [6, 7, 8]], np.int64
)
#: Role cards in the game: 1 = present (rules 1.2; 2 players: 1.3).
ROLES_IN_GAME = np.array(
    [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0, 0],
        [1, 1, 1, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 1, 1, 0, 0],
        [1, 1, 1, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 1, 1, 1, 1],
    ],
    np.int64,
)
#: Roles picked per round: one per player; 2 players pick three each (rules 1.3, 3.1).
ROLES_PER_ROUND = np.array([0, 0, 6, 3, 4, 5], np.int64)
#: Starting plantation of the seat at each distance from the governor (rules 1.2).
START_PLANTATIONS = np.array(
    [
        [-1, -1, -1, -1, -1],
        [-1, -1, -1, -1, -1],
        [Tile.INDIGO, Tile.CORN, -1, -1, -1],
        [Tile.INDIGO, Tile.INDIGO, Tile.CORN, -1, -1],
        [Tile.INDIGO, Tile.INDIGO, Tile.CORN, Tile.CORN, -1],
        [Tile.INDIGO, Tile.INDIGO, Tile.INDIGO, Tile.CORN, Tile.CORN],
    ],
    np.int64,
)
#: Plantation tiles in the box per kind, corn to coffee (rules 1.1).
PLANTATIONS_IN_BOX = np.array([10, 12, 11, 9, 8], np.int64)
PLANTATIONS_REMOVED_2P = 3  # per kind, after the starting tiles are set aside (rules 1.3)
#: Barrels in the box per good (rules 1.1).
GOODS_IN_BOX = np.array([10, 11, 11, 9, 9], np.int64)
GOODS_REMOVED_2P = 2  # per good (rules 1.3)
#: Trading-house price per good (rules 4.5).
GOOD_PRICE = np.array([0, 1, 2, 3, 4], np.int64)
TRADING_HOUSE_SPACES = 4  # rules 4.5
#: Doubloons of the factory by the number of kinds produced (rules 2.4).
FACTORY_BONUS = np.array([0, 0, 1, 2, 3, 5], np.int64)
#: Residence bonus by filled island spaces 0..12 (rules 2.5).
RESIDENCE_BONUS = np.array([4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 6, 7], np.int64)
FACE_UP_EXTRA = 1  # face-up plantations = players + 1 (rules 4.1)
MAX_FACE_UP = MAX_PLAYERS + FACE_UP_EXTRA
PLANTATION_STACK_SIZE = int(PLANTATIONS_IN_BOX.sum())
#: Expansion draft: small violet slots per cost 0..9 on the supply board (rules 7.1).
DRAFT_SMALL_SLOTS = np.array([0, 1, 2, 1, 1, 2, 1, 1, 2, 1], np.int64)
DRAFT_LARGE_SLOTS = 5  # rules 7.1
DRAFT_PICKS = int(DRAFT_SMALL_SLOTS.sum()) + DRAFT_LARGE_SLOTS
#: Cloister bonus by groups of three identical island tiles, 0..4+ (rules 7.2).
CLOISTER_BONUS = np.array([0, 1, 3, 6, 10], np.int64)
DRAFT_MODES = ("players", "random")
#: Default truncation cap (rules 6.9): decisions after which a game is cut off, unfinished.
DEFAULT_MAX_DECISIONS = 4000
#: Highest cap (rules 6.9). The state is int16: players who never pick the mayor or the
#: builder leave about one doubloon a decision on the role cards, so 30,000 decisions took the
#: doubloons in play to 29,958 of the 32,767 an entry holds. 10,000 keeps every counter of any
#: game the engine plays far below the int16 limit (``state_dict.MAX_AMOUNT``).
MAX_DECISIONS_LIMIT = 10000

for _a in (
    PHASE_OF_ROLE,
    START_DOUBLOONS,
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    VP_CHIPS,
    QUARRIES,
    SHIP_CAPACITY,
    ROLES_IN_GAME,
    ROLES_PER_ROUND,
    START_PLANTATIONS,
    PLANTATIONS_IN_BOX,
    GOODS_IN_BOX,
    GOOD_PRICE,
    FACTORY_BONUS,
    RESIDENCE_BONUS,
    DRAFT_SMALL_SLOTS,
    CLOISTER_BONUS,
):
    _a.setflags(write=False)
