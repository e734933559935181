"""The layout of the flat game state: every named offset, in one place.

A game is one 1-D ``numpy.int16`` array of ``STATE_SIZE`` entries (700 bytes), so
a copy is a clone, a batch of games is a 2-D array, and the numba kernels can
read and write it without any Python object. Each field below is
``(name, size, meaning)``; the module constant of the same name in upper case
is its offset. ``FIELDS`` is the table ``state_dict`` and the docs are built from.

Conventions:
- a player is a seat index 0..num_players-1; ``-1`` means nobody;
- road fields are indexed by the road space number (slot 0 unused, see ``board``);
- per-player fields live in a block of ``PLAYER_STRIDE`` entries per seat, at
  ``PLAYERS + player * PLAYER_STRIDE + P_<FIELD>``;
- the pending-decision stack holds ``STACK_DEPTH`` entries of
  ``STACK_ENTRY`` values (kind, player, arg_a, arg_b); entry ``STACK_SIZE - 1``
  is the top, i.e. the decision being asked.
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus.engine.board import NUM_SINGLE_SPECIALS, ROAD_SLOTS
from caylus_env.caylus.engine.buildings import NUM_BUILDINGS
from caylus_env.caylus.engine.constants import (
    MAX_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
)
from caylus_env.core.layout import Field, FieldTable

STATE_DTYPE = np.int16
STACK_DEPTH = 16
STACK_ENTRY = 4
KIND_OFFSET = 0  # a stack entry's first value is its kind (decisions.E_KIND)


_TABLE = FieldTable()
_field = _TABLE.field


# -- options (fixed at setup) -------------------------------------------------------
NUM_PLAYERS = _field("num_players", 1, "player count, 2-5")
OPT_SIMPLIFIED_FAVORS = _field("simplified_favors", 1, "1: every favor is 3 prestige (rules 6)")
OPT_LAWYER_PRESTIGE = _field("lawyer_prestige", 1, "prestige of the lawyer tile, 4 or 3 (8.2)")
OPT_JEWELLER = _field("jeweller", 1, "1: the Jeweller tile is in the stock (8.1)")
OPT_HOUSE_CAP = _field("house_cap", 1, "houses per player, 0 = unlimited (8.5)")
# -- clock ------------------------------------------------------------------------------
TURN = _field("turn", 1, "turn number, from 1")
CLOCK = TURN  # the rulebook's clock, which the core's loop reads (GameSpec.clock_word)
PHASE = _field("phase", 1, "current Phase")
CURSOR = _field("cursor", 1, "progress inside the phase (turn-order position, step, space)")
# -- road tracks -----------------------------------------------------------------------
PROVOST = _field("provost", 1, "road space of the provost, 1-28")
BAILIFF = _field("bailiff", 1, "road space of the bailiff")
SCORED = _field("scored", NUM_SECTIONS, "1 once the section has been scored")
# -- placement ---------------------------------------------------------------------------
NUM_PASSED = _field("num_passed", 1, "players who passed this turn (the bridge)")
PASS_ORDER = _field("passing_order", MAX_PLAYERS, "players in passing order, -1 padded")
TURN_ORDER = _field("turn_order", MAX_PLAYERS, "players in turn order, -1 padded")
SPECIAL_WORKER = _field(
    "special_workers",
    NUM_SINGLE_SPECIALS,
    "occupant of gate, trading post, merchants' guild, joust field",
)
STABLES = _field("stables", NUM_STABLES_SPOTS, "occupants of stable spots 1-3")
INN_LEFT = _field("inn_left", 1, "occupant of the inn's left (entry) spot")
INN_RIGHT = _field("inn_right", 1, "occupant of the inn's right (resident) spot")
CASTLE_SPOTS = _field("castle_spots", NUM_CASTLE_SPOTS, "castle workers in arrival order")
# -- buildings --------------------------------------------------------------------------
STOCK = _field("stock", NUM_BUILDINGS, "tiles left in the stock, per BuildingId")
ROAD_TILE = _field("road_tile", ROAD_SLOTS, "BuildingId on each road space, -1 empty")
ROAD_OWNER = _field("road_owner", ROAD_SLOTS, "owner of each road building, -1 none")
ROAD_WORKER = _field("road_worker", ROAD_SLOTS, "worker on each road building, -1 none")
ROAD_LAWYER = _field(
    "road_lawyer", ROAD_SLOTS, "player whose paid lawyer transformation waits on this space (8.6)"
)
CASTLE_HOUSES = _field(
    "castle_houses", NUM_SECTIONS * MAX_PLAYERS, "houses per section (row) per player (column)"
)
# -- players -----------------------------------------------------------------------------
P_MONEY = 0
P_CUBES = 1  # NUM_RESOURCES entries, Resource order
P_PRESTIGE = P_CUBES + NUM_RESOURCES
P_WORKERS_OUT = P_PRESTIGE + 1  # workers not at home (inn resident included)
P_FAVOR = P_WORKERS_OUT + 1  # NUM_FAVOR_ROWS marker columns, 0 = start position
P_PASSED = P_FAVOR + NUM_FAVOR_ROWS
P_BATCHES = P_PASSED + 1  # batches given this turn (best builder)
P_ROWS_USED = P_BATCHES + 1  # bit mask of favor rows used in the current phase
P_HOUSES = P_ROWS_USED + 1  # houses on the board (buildings + castle)
PLAYER_STRIDE = P_HOUSES + 1
PLAYERS = _field("players", MAX_PLAYERS * PLAYER_STRIDE, "per-player block, see P_* offsets")
# -- pending decisions --------------------------------------------------------------------
STACK_SIZE, STACK = _TABLE.stack(STACK_DEPTH, STACK_ENTRY, "(kind, player, arg_a, arg_b)")

STATE_SIZE = _TABLE.size
FIELDS: tuple[Field, ...] = _TABLE.fields
PLAYER_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("money", P_MONEY, 1),
    ("cubes", P_CUBES, NUM_RESOURCES),
    ("prestige", P_PRESTIGE, 1),
    ("workers_out", P_WORKERS_OUT, 1),
    ("favor_columns", P_FAVOR, NUM_FAVOR_ROWS),
    ("passed", P_PASSED, 1),
    ("batches", P_BATCHES, 1),
    ("rows_used", P_ROWS_USED, 1),
    ("houses", P_HOUSES, 1),
)
