"""Enumerations and sizes shared by every part of the engine.

Everything here is a plain ``IntEnum`` or an ``int`` so that the numba kernels can
read the values as compile-time constants. Sizes that fix the action and
observation spaces derive from ``MAX_PLAYERS`` (5), so one policy serves every
player count (rules 1.3: the board is the same for 2-5 players).
"""

from __future__ import annotations

from enum import IntEnum

MIN_PLAYERS = 2
MAX_PLAYERS = 5
TWO_PLAYER_GAME = 2  # rules 1.4: the 2-player rules (price 3, no stables, order flips)

NUM_WORKERS = 6  # rules 1.1: six workers per player, a hard limit
INCOME_BASE = 2  # phase 1: 2 deniers each turn
OWNER_PRESTIGE_PER_VISITOR = 1  # phase 2: a worker on another's building gives its owner 1
PASS_BONUS = 1  # phase 2: first player to pass gains 1 denier
BRIDGE_BASE_PRICE = 1  # phase 2: a worker costs 1 denier + 1 per player who passed
TWO_PLAYER_PRICE = 3  # rules 1.4: after the opponent passed
SUBSEQUENT_PLACEMENT_FLOOR = 1  # placing on one's own building, or as inn resident
MAX_PROVOST_STEP = 3  # phase 4 and the merchants' guild: 1-3 spaces
PROVOST_COST_PER_SPACE = 1  # phase 4: 1 denier per space the provost moves
TURN_CAP = 30  # rules 8.22: defensive cap; the game ends within 18 turns
HOUSE_CAP_VARIANT = 20  # rules 8.5: optional 20-house limit
SIMPLIFIED_FAVOR_PRESTIGE = 3  # rules 6
LAWYER_PRESTIGE = 2  # phase 5c: +2 prestige for a residence
CASTLE_PENALTY = 2  # phase 6: no batch given
BEST_BUILDER_FAVORS = 1  # phase 6: the player who gave most batches gains a favor
INN_RESIDENT_PRICE = 1
LAWYER_COST_DENIERS = 1  # phase 5c: the lawyer tile costs 1 cloth + 1 denier
LAWYER_COST_CLOTH = 1  # (favor row d column 4: the cloth only)
BAILIFF_STEP = 1  # phase 7: the bailiff advances 1 space...
BAILIFF_STEP_BEHIND_PROVOST = 2  # ...or 2 when the provost is beyond it


class Resource(IntEnum):
    """The five kinds of cube. Gold is a kind of its own (rules 0)."""

    FOOD = 0
    WOOD = 1
    STONE = 2
    CLOTH = 3
    GOLD = 4


NUM_RESOURCES = 5
NON_GOLD = (Resource.FOOD, Resource.WOOD, Resource.STONE, Resource.CLOTH)
RESOURCE_NAMES = ("food", "wood", "stone", "cloth", "gold")


class Phase(IntEnum):
    """The seven phases of a turn (rules 4), plus the finished state."""

    INCOME = 1
    PLACEMENT = 2
    SPECIAL = 3
    PROVOST = 4
    ACTIVATION = 5
    CASTLE = 6
    END_OF_TURN = 7
    GAME_OVER = 8


NUM_PHASES = 8
PHASE_NAMES = (
    "",
    "income",
    "placement",
    "special_buildings",
    "provost",
    "activation",
    "castle",
    "end_of_turn",
    "game_over",
)


class Section(IntEnum):
    """Castle sections, in building and scoring order (rules 2.1)."""

    DUNGEON = 0
    WALLS = 1
    TOWERS = 2


NUM_SECTIONS = 3
SECTION_NAMES = ("dungeon", "walls", "towers")


class FavorRow(IntEnum):
    """Rows of the royal favor table (rules 5.1)."""

    PRESTIGE = 0
    DENIERS = 1
    RESOURCES = 2
    BUILDINGS = 3


NUM_FAVOR_ROWS = 4
NUM_FAVOR_COLUMNS = 5
FAVOR_SWAP_TAKE = 2  # resources row column 4: give 1 cube, take 2 non-gold ones


class ResourcesColumn(IntEnum):
    """Columns of the resources row of the favor table (rules 5.1, row c)."""

    FOOD = 1  # 1 food
    WOOD_OR_STONE = 2  # 1 wood or 1 stone
    CLOTH = 3  # 1 cloth
    SWAP = 4  # give 1 cube, take FAVOR_SWAP_TAKE non-gold cubes
    GOLD = 5  # 1 gold


class BuildingsColumn(IntEnum):
    """Columns of the buildings row of the favor table (rules 5.1, row d)."""

    NOTHING = 1  # no effect
    CARPENTER = 2  # build a wood building, one wood less
    MASON = 3  # build a stone building, one stone less
    LAWYER = 4  # the lawyer's transformation for 1 cloth
    ARCHITECT = 5  # build a prestige building at its cost


FAVOR_ROW_NAMES = ("prestige", "deniers", "resources", "buildings")


class Special(IntEnum):
    """Special buildings between the castle and the bridge, in phase-3 order (2.1)."""

    GATE = 0
    TRADING_POST = 1
    MERCHANTS_GUILD = 2
    JOUST_FIELD = 3
    STABLES = 4
    INN = 5


NUM_SPECIALS = 6
SPECIAL_NAMES = ("gate", "trading_post", "merchants_guild", "joust_field", "stables", "inn")
NUM_STABLES_SPOTS = 3
NUM_CASTLE_SPOTS = 5
TRADING_POST_DENIERS = 3
JOUST_COST_DENIERS = 1  # phase 3d: 1 denier + 1 cloth for one favor
JOUST_COST_CLOTH = 1
JOUST_FAVORS = 1


class DecisionKind(IntEnum):
    """What the acting player is being asked (the top of the pending-decision stack).

    Each kind maps to one block (or a few blocks) of the action space; the
    observation carries the kind and its context so that the same action id can be
    read in context, as OpenSpiel's phase-dependent ids are.
    """

    PLACE_WORKER = 0  # phase 2: place a worker or pass
    GATE = 1  # phase 3a: where to move the gate worker
    GUILD = 2  # phase 3c: move the provost 1-3 spaces, or not
    JOUST = 3  # phase 3d: pay 1 denier + 1 cloth for a favor, or not
    INN = 4  # phase 3f: the resident stays or leaves
    PROVOST = 5  # phase 4: move the provost 1-3 spaces (1 denier each) or pass
    PRODUCE = 6  # phase 5: an "or" production choice
    OWNER_BONUS = 7  # phase 5: the stone production building owner's cube
    MARKET = 8  # phase 5d: sell one cube, or not
    PEDDLER = 9  # phase 5e: buy a non-gold cube, or stop
    BUILD = 10  # carpenter / mason / architect / favor row d: which building, or none
    PAY_ANY = 11  # which cube pays an "any cube" cost
    RESIDENCE = 12  # architect: which own residence to replace
    LAWYER = 13  # which building to turn into a residence, or none
    OPTION = 14  # church, tailor, bank, alchemist, jeweller: which option, or none
    ALCHEMIST_PAY = 15  # which non-gold cube to give to the alchemist next
    CASTLE = 16  # phase 6: give one more batch (its composition), or stop
    FAVOR_ROW = 17  # which row of the favor table
    FAVOR_COLUMN = 18  # which column (effect) of the chosen row
    FAVOR_TAKE = 19  # resources row: which cube to take (column 2: wood or stone; col 4)
    FAVOR_GIVE = 20  # resources row column 4: which cube to give up


NUM_DECISION_KINDS = 21
DECISION_NAMES = (
    "place_worker",
    "gate",
    "guild",
    "joust",
    "inn",
    "provost",
    "produce",
    "owner_bonus",
    "market",
    "peddler",
    "build",
    "pay_any",
    "residence",
    "lawyer",
    "option",
    "alchemist_pay",
    "castle",
    "favor_row",
    "favor_column",
    "favor_take",
    "favor_give",
)


class BuildSource(IntEnum):
    """Why a BUILD or LAWYER decision was asked: it fixes the allowed tiles and the price."""

    CARPENTER = 0  # wood building, full cost (neutral carpenter, fixed carpenter)
    MASON = 1  # stone building, full cost
    ARCHITECT = 2  # prestige building over an own residence, full cost
    FAVOR_CARPENTER = 3  # favor row d column 2: one wood less
    FAVOR_MASON = 4  # favor row d column 3: one stone less
    FAVOR_ARCHITECT = 5  # favor row d column 5: normal cost
    LAWYER_TILE = 6  # the lawyer tile: 1 cloth + 1 denier
    FAVOR_LAWYER = 7  # favor row d column 4: 1 cloth only


NUM_BUILD_SOURCES = 8


class Owner(IntEnum):
    """Sentinels for owner/worker fields of the state."""

    NONE = -1


class Procedure(IntEnum):
    """Automatic continuations kept on the pending-decision stack.

    They sit below the decisions they wait for and run, with no agent choice, once
    those decisions are resolved (TAG's extended-sequence pattern).
    """

    FINISH_SPACE = 32  # phase 5: the worker goes home, a waiting lawyer swap happens (8.6)
    SCORE_PLAYER = 33  # phase 7: one player's result of a section scoring, in turn order
    SECTION_DONE = 34  # phase 7: the scoring is over; favor columns open (5.2)


# Setup (rules 1.2 and 1.3).
START_DENIERS = (5, 6, 6, 7, 7)  # by turn-order position
START_DENIERS_TWO_PLAYERS = 5
START_CUBES = (2, 1, 0, 0, 0)  # 2 food + 1 wood
# Final scoring (rules 4.8).
FINAL_PRESTIGE_PER_GOLD = 3
FINAL_CUBES_PER_PRESTIGE = 3
FINAL_DENIERS_PER_PRESTIGE = 4
