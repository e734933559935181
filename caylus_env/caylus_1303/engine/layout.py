"""The layout of the flat Caylus 1303 state: every named offset, in one place.

A game is one 1-D ``numpy.int16`` array of ``STATE_SIZE`` entries (see ``STATE_BYTES``), so a
copy is a clone and a batch of games is a 2-D array. Each field is ``(name, size, meaning)``;
the module constant of the same name in upper case is its offset; ``FIELDS`` is the table the
state dict is built from.

Conventions:
- a player is a seat index 0..num_players-1 (clockwise, rules 3.2 step 8), ``-1`` nobody;
- per-player fields live at ``PLAYERS + player * PLAYER_STRIDE + P_<FIELD>``;
- a building space (``constants.SPACE_NAMES``: printed a-d, R1..R23, S1..S3) holds a tile
  kind (``tiles.TILES`` index, -1 empty), its side (``tiles.SIDE_*``), its owner (the seat
  whose house is on it, -1 neutral, D19), the Lawyer's mark (the seat whose house marks it
  this round, -1 none, D21) and up to two workers in placing order (D26);
- a worker is in exactly one place: a hand, a building space, a site slot or the Camp (D15);
- the pending-decision stack holds ``STACK_DEPTH`` entries ``(kind, player, arg)``.

The offsets are globals of the numba kernels, so this module is part of the compiled code
whose sources key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus_1303.engine.constants import (
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    NUM_RESOURCES,
    NUM_SPACES,
)
from caylus_env.caylus_1303.engine.tiles import NUM_MONUMENTS, NUM_STONE, NUM_WOOD
from caylus_env.core.layout import Field, FieldTable

STATE_DTYPE = np.int16
STACK_DEPTH = 6
STACK_ENTRY = 3
KIND_OFFSET = 0  # a stack entry's first value is its kind (decisions.E_KIND)

_TABLE = FieldTable()
_field = _TABLE.field

# -- options (fixed at setup) ---------------------------------------------------------------------
NUM_PLAYERS = _field("num_players", 1, "player count, 2-5")
OPT_HIDE_PP = _field("hide_opponent_pp", 1, "1: opponents' prestige is hidden (D37)")
# -- clock and phase pointers -----------------------------------------------------------------------
DECISIONS = _field("decisions", 1, "decisions taken so far (automatic ones excluded)")
ROUND = _field("round", 1, "round number, 1-9 (rules 4)")
CLOCK = ROUND  # the rulebook's clock, which the core's loop reads (GameSpec.clock_word)
PHASE = _field("phase", 1, "current Phase")
FIRST_PLAYER = _field("first_player", 1, "seat holding the first-player tile (rules 4.1)")
TURN = _field("turn", 1, "draft and Planning: seat asked next; other phases: 0")
STAGE = _field("stage", 1, "the step within the phase (phases/*: STAGE_*)")
CURSOR = _field("cursor", 1, "the position within the step (a seat, a slot or a space)")
WORKER_INDEX = _field("worker_index", 1, "Activation: which worker of the space resolves")
ASKED = _field("asked", 1, "1: the decision of the cursor's worker or player was asked")
PASSES = _field("passes", 1, "players who passed this round (rules 4.1 C)")
# -- the board ---------------------------------------------------------------------------------------
PROVOST = _field("provost", 1, "Provost position p: R1..Rp are activated (rules 3.1)")
SPACE_KIND = _field("space_kind", NUM_SPACES, "tile kind on each space, -1 empty")
SPACE_SIDE = _field("space_side", NUM_SPACES, "side up: 0 setup, 1 construction, 2 residence")
SPACE_OWNER = _field("space_owner", NUM_SPACES, "seat whose house is on it, -1 neutral")
SPACE_MARK = _field("space_mark", NUM_SPACES, "seat whose Lawyer house marks it, -1 none")
SPACE_WORKER = _field(
    "space_worker", NUM_SPACES * MAX_WORKERS_ON_BUILDING, "workers in placing order, -1 none"
)
BRIDGE = _field("bridge", MAX_PLAYERS, "pass houses in passing order (bridge order), -1 free")
SITE = _field("site", MAX_PLAYERS, "Construction Site worker slots W1.., a seat or -1")
WOOD_SUPPLY = _field("wood_supply", NUM_WOOD, "1: that wood tile is in the wood supply")
STONE_SUPPLY = _field("stone_supply", NUM_STONE, "1: that stone tile is in the stone supply")
MONUMENT_SUPPLY = _field("monument_supply", NUM_MONUMENTS, "1: that monument is in the supply")
CHARACTER_HOLDER = _field(
    "character_holder", NUM_CHARACTERS, "seat holding it; -1 on the board; -2 out of play"
)
CHARACTER_USED = _field(
    "character_used", NUM_CHARACTERS, "1: its once-per-round power was used (D24)"
)
# -- players ---------------------------------------------------------------------------------------------
P_HAND = 0  # workers in hand
P_CAMP = 1  # workers of his colour in the Camp (D15)
P_RESOURCES = 2  # NUM_RESOURCES entries
P_PP = P_RESOURCES + NUM_RESOURCES  # prestige points
P_HOUSES = P_PP + 1  # houses in reserve for buildings (D14: 9 at the start)
P_PASSED = P_HOUSES + 1  # 1 once he passed this round
P_BUNDLES = P_PASSED + 1  # bundles delivered this round (rules 4.3)
PLAYER_STRIDE = P_BUNDLES + 1
PLAYERS = _field("players", MAX_PLAYERS * PLAYER_STRIDE, "per-player block, see P_* offsets")
# -- pending decisions -------------------------------------------------------------------------------------
STACK_SIZE, STACK = _TABLE.stack(STACK_DEPTH, STACK_ENTRY, "(kind, player, arg)")

STATE_SIZE = _TABLE.size
STATE_BYTES = STATE_SIZE * np.dtype(STATE_DTYPE).itemsize
FIELDS: tuple[Field, ...] = _TABLE.fields
PLAYER_FIELDS: tuple[tuple[str, int, int], ...] = (
    ("hand", P_HAND, 1),
    ("camp", P_CAMP, 1),
    ("resources", P_RESOURCES, NUM_RESOURCES),
    ("pp", P_PP, 1),
    ("houses", P_HOUSES, 1),
    ("passed", P_PASSED, 1),
    ("bundles", P_BUNDLES, 1),
)
assert STATE_BYTES <= 1024, "the state must stay within 1 KB"
