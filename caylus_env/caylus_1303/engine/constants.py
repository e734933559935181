"""Rule constants of Caylus 1303: the enums and every number of the components, once.

Numbers the official text gives cite their rules section; numbers it does not give come from
the decisions table (``rules.RULES``, D1-D39), read here by key so that the kernels see plain
globals. Tables indexed by player count have 6 entries (index 0 and 1 unused) so that kernels
read ``TABLE[num_players]`` directly. This module is part of the compiled code whose sources
key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from caylus_env.caylus_1303.engine.rules import value

MIN_PLAYERS = 2
MAX_PLAYERS = 5


class Resource(IntEnum):
    """The five resources (rules 2.1); the first four are the "any" kinds (D12)."""

    FOOD = 0
    WOOD = 1
    STONE = 2
    CLOTH = 3
    GOLD = 4


NUM_RESOURCES = 5
NUM_ANY = len(value("any_resource"))  # food, wood, stone, cloth (D12)
RESOURCE_NAMES: tuple[str, ...] = tuple(r.name.lower() for r in Resource)
assert RESOURCE_NAMES[:NUM_ANY] == value("any_resource")


class Character(IntEnum):
    """The 12 characters in rulebook order (rules 5.6, names D10)."""

    EARLY_RISER = 0
    NIGHT_WORKER = 1
    JOURNEYMAN = 2
    THIEF = 3
    STEWARD = 4
    BAILIFF = 5
    ARCHITECT = 6
    CHAMBERLAIN = 7
    GOLDSMITH = 8
    DELIVERYMAN = 9
    FOREMAN = 10
    DAY_LABORER = 11


NUM_CHARACTERS = 12
CHARACTER_TITLES: tuple[str, ...] = value("character_names")
CHARACTER_NAMES: tuple[str, ...] = tuple(c.name.lower() for c in Character)
assert len(CHARACTER_TITLES) == NUM_CHARACTERS
assert tuple(t.lower().replace(" ", "_") for t in CHARACTER_TITLES) == CHARACTER_NAMES
CHARACTERS_EXTRA = 3  # players + 3 revealed; 3 stay on the board (rules 3.2 step 9)
#: ``character_holder`` values besides a seat.
OUT_OF_PLAY = -2  # not revealed at setup (D37)
ON_BOARD = -1  # an available character (rules 4.5)


class Phase(IntEnum):
    """Where the game is (rules 3.3, 4.1-4.4)."""

    DRAFT = 0
    PLANNING = 1
    ACTIVATION = 2
    DELIVERY = 3
    STEWARDSHIP = 4
    GAME_OVER = 5


PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)


class DecisionKind(IntEnum):
    """The kinds of pending decision (D39): what the top of the stack asks."""

    DRAFT = 0  # take one revealed character (rules 3.3)
    EARLY_RISER = 1  # the Early Riser's placement, or decline (rules 5.6, D25)
    PLAN = 2  # place a worker, go to the Construction Site, or pass (rules 4.1)
    EFFECT = 3  # use an activated building's effect, or decline (rules 4.2, D18)
    PAY = 4  # pay one "any" resource still owed (D12)
    BRIDGE = 5  # move the Provost 1-3 steps for workers, or decline (rules 4.2, D20)
    BAILIFF = 6  # move the Provost 1 step, or decline (D28)
    FAVOR = 7  # steal a character, or use a site building (rules 4.5, D23)
    BOARD_CHARACTER = 8  # take an available character after a site building (D23)
    DELIVER = 9  # deliver one bundle, or stop (rules 4.3, D39)
    MONUMENT = 10  # build one monument, or stop (rules 4.4, D4)


NUM_DECISION_KINDS = len(DecisionKind)
DECISION_NAMES: tuple[str, ...] = tuple(k.name.lower() for k in DecisionKind)

# -- the board (rules 3.1, D7) ----------------------------------------------------------------
_ROAD = value("road_layout")
ROAD_SPACES = _ROAD["spaces"]  # R1..R23
STARTING_SPACES = _ROAD["starting"][1]  # R1..R8 hold the shuffled starting tiles
WOOD_SPACE = _ROAD["wood"]  # R9: the pre-built wood building
STONE_SPACE = _ROAD["stone"]  # R14: the pre-built stone building
PROVOST_MAX = _ROAD["provost_max"]
NUM_PRINTED = 4  # a Fairground, b Lawyer, c Carpenter, d Toll (rules 5.1)
SITE_BUILDINGS = 3  # S1 starting, S2 wood, S3 stone (rules 3.1)
#: Building spaces: printed a-d, then R1..R23 (space 3 + k is Rk), then S1..S3.
SPACE_FAIRGROUND = 0
SPACE_LAWYER = 1
SPACE_CARPENTER = 2
SPACE_TOLL = 3
ROAD0 = NUM_PRINTED - 1  # space of Rk is ROAD0 + k
SITE0 = NUM_PRINTED + ROAD_SPACES  # space of S1
NUM_SPACES = SITE0 + SITE_BUILDINGS
SPACE_NAMES: tuple[str, ...] = (
    "fairground",
    "lawyer",
    "carpenter",
    "toll",
    *(f"R{k}" for k in range(1, ROAD_SPACES + 1)),
    *(f"S{k}" for k in range(1, SITE_BUILDINGS + 1)),
)
MAX_WORKERS_ON_BUILDING = value("journeyman")["max_workers"]  # D26

# -- players (rules 2.1, 3.2, 6) ---------------------------------------------------------------
_WORKERS = value("worker_accounting")
WORKERS_PER_COLOUR = _WORKERS["per_colour"]  # D15
START_HAND = np.array([0, 0] + [_WORKERS["start_hand"][n] for n in range(2, 6)], np.int64)
_HOUSES = value("supply_and_counts")
HOUSES_FOR_BUILDINGS = _HOUSES["building_houses"]  # 9 (D14); the 10th is the pass house
START_RESOURCES = np.array([1, 2, 1, 0, 0], np.int64)  # 1 food, 2 wood, 1 stone (rules 3.2)
NUM_ROUNDS = value("end_of_game")["rounds"]  # D36
PRESTIGE_PER_GOLD = value("end_of_game")["prestige_per_gold"]  # D36

# -- Planning (rules 4.1, D16, D25-D27) ---------------------------------------------------------
_COST = value("placement_cost")
PLACED_WORKER = _COST["placed"]
SURCHARGE = _COST["surcharge"]
EARLY_RISER_EXTRA = _COST["early_riser"]
OWNER_PRESTIGE = value("ownership")["owner_prestige"]  # D19
STEWARD_PRESTIGE = value("thief_steward")["steward"]  # D27
THIEF_PRESTIGE = value("thief_steward")["thief"]  # D27

# -- Activation (rules 4.2, D20, D28) -------------------------------------------------------------
_MOVES = value("provost_moves")
TOLL_STEPS = _MOVES["toll"]
BRIDGE_STEPS = _MOVES["bridge"]
BRIDGE_WORKERS_PER_STEP = _MOVES["bridge_worker_per_step"]
BAILIFF_STEPS = value("bailiff")["steps"]
MAX_PROVOST_STEPS = max(TOLL_STEPS, BRIDGE_STEPS, BAILIFF_STEPS)
PROVOST_START = STARTING_SPACES  # p = L - 1 with L = 9 at setup (rules 3.2 step 5, D6)
ARCHITECT_BONUS = value("architect_scope")["bonus"]  # D29
_LAWYER_TARGETS = value("lawyer_targets")["road_spaces"]  # D21
LAWYER_FIRST, LAWYER_LAST = _LAWYER_TARGETS
#: The site buildings a Favor may use by round (D8): S1..S<FAVOR_SITES[round]>.
FAVOR_SITES = np.array(
    [0] + [value("favor_site_gating")[r] for r in range(1, NUM_ROUNDS + 1)], np.int64
)

# -- Delivery (rules 4.3, D9, D30) ---------------------------------------------------------------
_BUNDLE = value("bundle_modifiers")
BUNDLE_SIZE = _BUNDLE["bundle_size"]
BUNDLE_PRESTIGE = _BUNDLE["prestige"]
FOREMAN_BONUS = _BUNDLE["foreman"]
GOLDSMITH_BONUS = _BUNDLE["goldsmith"]
DELIVERY_FAVOR_MIN = value("delivery_favor")["min_bundles"]

# -- Stewardship (rules 4.4, D4, D5) ---------------------------------------------------------------
#: D4: each monument replaces one residence of its builder's own, the one he chooses (asked
#: when he has two or more: ``actions`` RESIDENCE, ``phases.stewardship``).
RESIDENCE_CHOICE_PLAYER = "player"
_MONUMENTS = value("monument_rules")
assert _MONUMENTS["residence_choice"] == RESIDENCE_CHOICE_PLAYER, "the kernels ask the player"
assert _MONUMENTS["per_residence"] == 1, "a monument replaces exactly one residence"
_INCOME = value("worker_income")
BASE_INCOME = np.array([0, 0] + [_INCOME["base"][n] for n in range(2, 6)], np.int64)
RESIDENCE_INCOME = _INCOME["per_residence"]
assert value("residence")["workers"] == RESIDENCE_INCOME
DAY_LABORER_INCOME = value("day_laborer")["workers"]
