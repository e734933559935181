"""The layout of the flat Puerto Rico state: every named offset, in one place.

A game is one 1-D ``numpy.int16`` array of ``STATE_SIZE`` entries (see ``STATE_BYTES``),
so a copy is a clone and a batch of games is a 2-D array. Each field is
``(name, size, meaning)``; the module constant of the same name in upper case is its
offset. ``FIELDS`` is the table ``state_dict`` is built from.

Conventions:
- a player is a seat index 0..num_players-1, ``-1`` is nobody; seat 0 is the first governor;
- per-player fields live at ``PLAYERS + player * PLAYER_STRIDE + P_<FIELD>``;
- ``building`` entries of a player are ``-1`` when he does not own that kind, else the
  colonists on it (rules 2.1: one building per kind);
- the plantation stack holds tile kinds in draw order, the next draw at index
  ``plantation_stack_size - 1``; it is the only hidden information (rules 6.8);
- ``vp_supply`` goes below 0 once the chips run out: the rest is owed on paper (rules 6.7);
- the pending-decision stack holds ``STACK_DEPTH`` entries ``(kind, player, arg)``.

The offsets are globals of the numba kernels, so this module is part of the compiled code
whose sources key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

import numpy as np

from caylus_env.core.layout import Field, FieldTable
from caylus_env.puerto_rico.engine.buildings import NUM_BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    MAX_PLAYERS,
    MAX_SHIPS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_ROLES,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    PLANTATION_STACK_SIZE,
)

STATE_DTYPE = np.int16
STACK_DEPTH = 5
STACK_ENTRY = 3
KIND_OFFSET = 0  # a stack entry's first value is its kind (decisions.E_KIND)


_TABLE = FieldTable()
_field = _TABLE.field


# -- options (fixed at setup) ----------------------------------------------------------------
NUM_PLAYERS = _field("num_players", 1, "player count, 2-5")
MAX_DECISIONS = _field("max_decisions", 1, "truncation cap in decisions (rules 6.9)")
OPT_EXPANSION = _field("expansion", 1, "1: the 2004 expansion's buildings (rules 7)")
OPT_DRAFT = _field("draft", 1, "expansion draft: 0 by the players, 1 seeded random (7.1)")
OPT_LIBRARY_LIMIT = _field("library_limit", 1, "1: 2 players double once per round (7.2)")
# -- clock -------------------------------------------------------------------------------------
DECISIONS = _field("decisions", 1, "decisions taken so far (automatic ones excluded)")
ROUND = _field("round", 1, "round number, from 1")
CLOCK = ROUND  # the rulebook's clock, which the core's loop reads (GameSpec.clock_word)
PHASE = _field("phase", 1, "current Phase")
STEP = _field("step", 1, "turns taken in the phase (turn order from the role's picker)")
IDLE = _field("idle", 1, "captain: consecutive turns without a loading (rules 4.6)")
GOVERNOR = _field("governor", 1, "seat holding the governor card")
PICKS = _field("picks", 1, "roles picked this round")
PICKER = _field("picker", 1, "seat who picked the role being carried out, -1 none")
END_TRIGGERED = _field("end_triggered", 1, "1 once an end condition happened (rules 5.1)")
RNG = _field("rng", 2, "plantation reshuffle generator: high 15 bits, low 16 bits - 32768")
DOUBLED = _field("doubled", 1, "1: the picker's library doubled a privilege this phase (7.2)")
LIBRARY_USED = _field("library_used", 1, "1: a library doubled a privilege this round (7.2)")
PRODUCED = _field("produced", 1, "craftsman: bit set of goods the craftsman received")
BM_RETURNED = _field("bm_returned", 1, "black market: bits colonist 1, good 2, VP chip 4")
BM_SHORT = _field("bm_short", 1, "black market: doubloons still to cover by returns")
GUEST_STEP = _field(
    "guest_step", 1, "guest-house turns taken at the start of the phase; storage: +1 asked (7.4)"
)
# -- the bank and the general supply ------------------------------------------------------------
ROLE_STATE = _field("role_state", NUM_ROLES, "-1 not in the game, 0 available, 1 picked")
ROLE_MONEY = _field("role_money", NUM_ROLES, "doubloons lying on each role card")
BANK_PAID = _field("bank_paid", 1, "doubloons the bank paid out minus those paid back")
COLONIST_SUPPLY = _field("colonist_supply", 1, "colonists in the supply")
COLONIST_SHIP = _field("colonist_ship", 1, "colonists on the colonist ship")
VP_SUPPLY = _field("vp_supply", 1, "VP chips left; below 0: VP owed on paper")
GOODS_SUPPLY = _field("goods_supply", NUM_GOODS, "barrels in the supply per good")
QUARRY_SUPPLY = _field("quarry_supply", 1, "quarries left")
BUILDING_SUPPLY = _field("building_supply", NUM_BUILDINGS, "tiles left per BuildingId")
FACE_UP = _field("face_up", NUM_PLANTATION_KINDS, "face-up plantations per kind")
DISCARDS = _field("discards", NUM_PLANTATION_KINDS, "discarded plantations per kind")
FORESTED = _field(
    "forested", NUM_PLANTATION_KINDS, "plantations per kind turned into forests (7.3)"
)
PLANTATION_STACK_SIZE_F = _field("plantation_stack_size", 1, "face-down plantations left")
PLANTATION_STACK = _field(
    "plantation_stack", PLANTATION_STACK_SIZE, "face-down tile kinds, next draw last, 0 padded"
)
SHIP_CAPACITY = _field("ship_capacity", MAX_SHIPS, "cargo ship sizes, smallest first, 0 = none")
SHIP_GOOD = _field("ship_good", MAX_SHIPS, "good each cargo ship carries, -1 empty")
SHIP_LOAD = _field("ship_load", MAX_SHIPS, "barrels on each cargo ship")
TRADING_HOUSE = _field("trading_house", NUM_GOODS, "barrels in the trading house per good")
# -- players -------------------------------------------------------------------------------------
P_MONEY = 0
P_VP = 1  # VP chips taken, paper VP included
P_GOODS = 2  # NUM_GOODS entries
P_ISLAND = P_GOODS + NUM_GOODS  # NUM_TILES entries: tiles per kind
P_WORKED = P_ISLAND + NUM_TILES  # NUM_WORKABLE_TILES entries: occupied tiles per kind
P_BUILDINGS = P_WORKED + NUM_WORKABLE_TILES  # NUM_BUILDINGS entries: -1 not owned, else colonists
P_SAN_JUAN = P_BUILDINGS + NUM_BUILDINGS  # colonists waiting in San Juan
P_SHIPPED = P_SAN_JUAN + 1  # captain phase: 1 once loaded (captain privilege, rules 4.6)
P_WHARF_USED = P_SHIPPED + 1  # captain phase: 1 once the wharf was used (rules 2.4)
P_SMALL_WHARF_USED = P_WHARF_USED + 1  # captain phase: 1 once the small wharf was used (7.2)
P_KEPT = P_SMALL_WHARF_USED + 1  # storage: bit set of goods kept whole by warehouses (4.7)
P_SINGLES = P_KEPT + 1  # storage: single barrels kept per good, 3 bits each (4.7, 7.2)
PLAYER_STRIDE = P_SINGLES + 1
PLAYERS = _field("players", MAX_PLAYERS * PLAYER_STRIDE, "per-player block, see P_* offsets")
# -- pending decisions -----------------------------------------------------------------------------
STACK_SIZE, STACK = _TABLE.stack(STACK_DEPTH, STACK_ENTRY, "(kind, player, arg)")

STATE_SIZE = _TABLE.size
STATE_BYTES = STATE_SIZE * np.dtype(STATE_DTYPE).itemsize
FIELDS: tuple[Field, ...] = _TABLE.fields
PLAYER_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("money", P_MONEY, 1),
    ("vp", P_VP, 1),
    ("goods", P_GOODS, NUM_GOODS),
    ("island", P_ISLAND, NUM_TILES),
    ("worked", P_WORKED, NUM_WORKABLE_TILES),
    ("buildings", P_BUILDINGS, NUM_BUILDINGS),
    ("san_juan", P_SAN_JUAN, 1),
    ("shipped", P_SHIPPED, 1),
    ("wharf_used", P_WHARF_USED, 1),
    ("small_wharf_used", P_SMALL_WHARF_USED, 1),
    ("kept", P_KEPT, 1),
    ("singles", P_SINGLES, 1),
)
assert STATE_BYTES <= 1024, "the state must stay within 1 KB"
