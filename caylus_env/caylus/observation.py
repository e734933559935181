"""The observer: one flat ``float32`` vector per player, built from named pieces.

Follows OpenSpiel's ``KuhnPokerObserver``: ``PIECES`` is an ordered tuple of
``(name, shape)``; the vector is their concatenation (``OBS_SIZE`` entries) and
``observation_pieces`` gives named, reshaped views onto it. Every size comes from
the engine's constants, so the layout follows the rules tables.

Seats are *relative to the observer*: relative seat ``r`` of player ``p`` is
``(p - observer) % num_players``, so seat 0 is always "me" and seat 1 the next
player in seat order. Every per-player piece is padded to ``MAX_PLAYERS`` (5)
seats, so one policy serves 2-5 players; absent seats are all zero and
``seat_present`` says which seats exist. With ``observer = -1`` the same kernel
writes *absolute* seats (seat 0 = player 0): that is the global state of
``raw_env.state()`` for centralised critics, and ``decision_player`` then names
the player to act.

One-hot entries, flags and fractions of a fixed size are in [0, 1]; counts (money,
cubes, prestige, houses, ...) are scaled by the constants below and bounded in
``BOUNDS`` by their largest value over their scale (``HIGHS``): the rules' ceiling where
there is one (houses: one per road space and castle place; batches: one per castle place;
residences: one per road space; a decision's count: its declared domain; the turn: the
defensive cap), else the largest value of the int16 state (money, cubes, prestige: no rule
caps them, and the engine never overflows its state). No bound is infinite. Counts are copied as they are, never
clamped, so a state that breaks the rules (a negative count, an overfull castle
section) shows up as an observation outside the space instead of being hidden;
the tests check every position of random games against the space. Indices that
select a one-hot entry are range-checked, so the kernel never writes outside the
buffer.

``encode`` is a numba kernel on the hot path (about a microsecond): it zeroes the
preallocated buffer and writes the pieces from the flat state array directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus import GAME
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import (
    BAILIFF_START,
    COLUMNS_OPEN,
    NUM_SINGLE_SPECIALS,
    ROAD_LEN,
    SECTION_SIZE,
    SECTION_TRIGGER,
)
from caylus_env.caylus.engine.buildings import B_COPIES, NUM_BUILDINGS, BuildingId
from caylus_env.caylus.engine.config import LAWYER_PRESTIGE_CHOICES
from caylus_env.caylus.engine.constants import (
    HOUSE_CAP_VARIANT,
    MAX_PLAYERS,
    NUM_BUILD_SOURCES,
    NUM_CASTLE_SPOTS,
    NUM_DECISION_KINDS,
    NUM_FAVOR_COLUMNS,
    NUM_FAVOR_ROWS,
    NUM_PHASES,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    TURN_CAP,
    Section,
)
from caylus_env.caylus.engine.decisions import (
    CODEC_BUILDING,
    CODEC_INT,
    CODEC_MASK,
    CODEC_ROW,
    CODEC_SOURCE,
    DECISION_SCHEMA,
    decision_arg,
    decision_kind,
    decision_player,
)
from caylus_env.caylus.engine.state import (
    cube,
    favor_column,
    has_passed,
    houses,
    money,
    num_players,
    player_field,
    prestige,
    rows_used,
    section_houses,
    workers_out,
)
from caylus_env.caylus.engine.validate import MAX_BATCHES, MAX_HOUSES
from caylus_env.core.observation import (
    OBSERVER_EXPORTS,
    ObservationLayout,
    bit_flags,
    relative_seat,
    scaled_high,
    seat_flag,
    state_max,
)

# -- scales: a typical value maps to about 1 ----------------------------------------------
#: The bailiff moves at least one space a turn from its start to the towers' trigger, so
#: the game ends within this many turns (rules 4.7, 8.22): ``turn`` is in (0, 1] in a game
#: played from the start (a loaded position may say up to ``TURN_CAP``, its bound).
MAX_TURNS = SECTION_TRIGGER[Section.TOWERS] - BAILIFF_START
MONEY_SCALE = 10.0  # deniers: a rich player holds about 10
CUBE_SCALE = 5.0  # cubes of one kind
PRESTIGE_SCALE = GAME.score_scale  # the spec's score unit (caylus_env/caylus/__init__.py)
COUNT_SCALE = 5.0  # small counts: batches, residences, favors or cubes left in a decision
HOUSE_SCALE = float(HOUSE_CAP_VARIANT)  # houses on the board (the 8.5 cap as a unit)
STOCK_SCALE = float(max(int(c) for c in B_COPIES))  # at most two copies of a tile
NUM_INN_SPOTS = 2  # the inn's left (entry) and right (resident) spots
NUM_OPTIONS = 4  # simplified favors, lawyer prestige, jeweller, house cap
NUM_FAVOR_STATES = NUM_FAVOR_COLUMNS + 1  # a favor marker: 0 (start) or column 1-5
EMPTY_SPACE = NUM_BUILDINGS  # the last ``road_building`` channel: no tile on the space

# The context the observer copies from the pending decision's two arguments into
# ``decision_building`` / ``_source`` / ``_row`` / ``_count`` / ``_kinds``, derived from the
# codecs that ``decisions.SCHEMA`` declares for each kind (arguments of other codecs and
# kinds without arguments carry no context).
CTX_NONE, CTX_BUILDING, CTX_SOURCE, CTX_ROW, CTX_COUNT, CTX_KINDS = range(6)
CTX_OF_CODEC = {
    CODEC_BUILDING: CTX_BUILDING,
    CODEC_SOURCE: CTX_SOURCE,
    CODEC_ROW: CTX_ROW,
    CODEC_INT: CTX_COUNT,
    CODEC_MASK: CTX_KINDS,
}
_CTX = np.zeros((NUM_DECISION_KINDS, 2), np.int64)
for _entry in DECISION_SCHEMA:
    for _j, _arg in enumerate(_entry.args):
        _CTX[int(_entry.kind), _j] = CTX_OF_CODEC.get(_arg.codec, CTX_NONE)
_CTX_A = _CTX[:, 0].copy()
_CTX_B = _CTX[:, 1].copy()
_SECTION_SIZE = np.array(SECTION_SIZE, np.float64)
_COLUMNS_OPEN = np.array(COLUMNS_OPEN, np.int64)
_LAWYER_PRESTIGE_MAX = max(LAWYER_PRESTIGE_CHOICES)
_RESIDENCE = int(BuildingId.RESIDENCE)

P = MAX_PLAYERS
#: The pieces of the observation, in vector order: ``(name, shape)``.
PIECES: tuple[tuple[str, tuple[int, ...]], ...] = (
    # -- clock, options and the pending decision -------------------------------------------
    ("phase", (NUM_PHASES,)),  # one-hot, Phase order (income .. game_over)
    ("turn", (1,)),  # turn / MAX_TURNS
    ("options", (NUM_OPTIONS,)),  # simplified favors, lawyer prestige / 4, jeweller, cap
    ("decision", (NUM_DECISION_KINDS,)),  # one-hot DecisionKind; all zero at the end
    ("decision_player", (P,)),  # relative seat of the player asked
    ("decision_building", (NUM_BUILDINGS,)),  # building the decision is about
    ("decision_source", (NUM_BUILD_SOURCES,)),  # why a build/lawyer/payment is asked
    ("decision_row", (NUM_FAVOR_ROWS,)),  # favor row whose column is being chosen
    ("decision_count", (1,)),  # favors / batches / bought / cubes left, / COUNT_SCALE
    ("decision_kinds", (NUM_RESOURCES,)),  # cube kinds a favor_take may pick
    # -- players, by relative seat ---------------------------------------------------------
    ("seat_present", (P,)),
    ("money", (P,)),  # / MONEY_SCALE
    ("cubes", (P, NUM_RESOURCES)),  # / CUBE_SCALE, Resource order
    ("prestige", (P,)),  # / PRESTIGE_SCALE
    ("workers_available", (P,)),  # workers at home / NUM_WORKERS
    ("favor_columns", (P, NUM_FAVOR_ROWS, NUM_FAVOR_STATES)),  # marker one-hot per row
    ("rows_used", (P, NUM_FAVOR_ROWS)),  # rows used in the current phase (5.3)
    ("passed", (P,)),
    ("turn_order_position", (P, P)),  # seat x position one-hot
    ("passing_position", (P, P)),  # seat x position on the bridge, if passed
    ("inn_resident", (P,)),
    ("in_castle", (P,)),
    ("in_stables", (P,)),
    ("castle_houses", (P, NUM_SECTIONS)),  # houses in each section / section size
    ("houses", (P,)),  # houses on the board / HOUSE_SCALE
    ("batches_this_turn", (P,)),  # / COUNT_SCALE
    ("residences", (P,)),  # residences owned on the road / COUNT_SCALE
    # -- the road, spaces 1..28 --------------------------------------------------------------
    ("road_building", (ROAD_LEN, NUM_BUILDINGS + 1)),  # BuildingId one-hot, last = empty
    ("road_owner", (ROAD_LEN, P)),
    ("road_worker", (ROAD_LEN, P)),
    ("road_lawyer_pending", (ROAD_LEN, P)),  # a paid lawyer swap waiting (8.6)
    ("provost", (ROAD_LEN,)),
    ("bailiff", (ROAD_LEN,)),
    # -- special buildings ---------------------------------------------------------------------
    ("special_workers", (NUM_SINGLE_SPECIALS, P)),  # gate, trading post, guild, joust field
    ("stables", (NUM_STABLES_SPOTS, P)),
    ("inn", (NUM_INN_SPOTS, P)),  # left (entry), right (resident)
    ("castle_spots", (NUM_CASTLE_SPOTS, P)),  # castle workers in arrival order
    # -- castle, favor table, stock -----------------------------------------------------------
    ("castle_fill", (NUM_SECTIONS,)),  # houses / section size
    ("scored", (NUM_SECTIONS,)),
    ("columns_open", (1,)),  # favor columns open / NUM_FAVOR_COLUMNS (5.2)
    ("stock", (NUM_BUILDINGS,)),  # tiles left / STOCK_SCALE
    ("num_passed", (1,)),  # / MAX_PLAYERS
)
del P


def _accumulated_high(count: int, step: float) -> np.float32:
    """The largest entry of a count the kernel adds up one ``step`` at a time in a float32
    entry (``residences``): the same float32 sum of ``count`` steps, so rounding is covered."""
    total = np.float32(0.0)
    for _ in range(count):
        total = np.float32(float(total) + step)
    return total


_STATE_MAX = state_max(L.STATE_DTYPE)
#: The largest count a decision declares (``decisions.SCHEMA``, codec ``int``).
MAX_DECISION_COUNT = max(
    arg.high for entry in DECISION_SCHEMA for arg in entry.args if arg.codec == CODEC_INT
)
#: The upper bound of every piece that can exceed 1 (see the module docstring); every other
#: entry is a one-hot, a flag or a fraction in [0, 1].
HIGHS: dict[str, np.float32] = {
    "turn": scaled_high(TURN_CAP, MAX_TURNS),
    "decision_count": scaled_high(MAX_DECISION_COUNT, COUNT_SCALE),
    "money": scaled_high(_STATE_MAX, MONEY_SCALE),
    "cubes": scaled_high(_STATE_MAX, CUBE_SCALE),
    "prestige": scaled_high(_STATE_MAX, PRESTIGE_SCALE),
    "houses": scaled_high(MAX_HOUSES, HOUSE_SCALE),
    "batches_this_turn": scaled_high(MAX_BATCHES, COUNT_SCALE),
    "residences": _accumulated_high(ROAD_LEN, 1.0 / COUNT_SCALE),
}
#: Pieces with one row per relative seat (first axis = seat).
SEAT_PIECES = (
    "decision_player",
    "seat_present",
    "money",
    "cubes",
    "prestige",
    "workers_available",
    "favor_columns",
    "rows_used",
    "passed",
    "turn_order_position",
    "passing_position",
    "inn_resident",
    "in_castle",
    "in_stables",
    "castle_houses",
    "houses",
    "batches_this_turn",
    "residences",
)
#: Pieces with one column per relative seat (last axis = seat): workers on special buildings.
SEAT_COLUMN_PIECES = ("special_workers", "stables", "inn", "castle_spots")
#: Pieces with one row per road space (first axis = space 1..28).
SPACE_PIECES = (
    "road_building",
    "road_owner",
    "road_worker",
    "road_lawyer_pending",
    "provost",
    "bailiff",
)
#: Raise when a piece keeps its name and shape but changes encoding (a scale, an order).
OBSERVATION_REVISION = 1
#: The layout of the vector (``caylus_env.core.observation``).
LAYOUT = ObservationLayout(
    PIECES,
    HIGHS,
    OBSERVATION_REVISION,
    SEAT_PIECES,
    SEAT_COLUMN_PIECES,
    SPACE_PIECES,
)
#: Where each piece lives, the vector's size, its version, its bounds and named views onto it
#: (``caylus_env.core.observation.LayoutConstants``).
PIECE_SLICES, PIECE_SHAPES, OBS_SIZE, OBSERVATION_VERSION, BOUNDS, observation_pieces = (
    LAYOUT.constants()
)


# Offsets as plain ints, frozen into the kernel as compile-time constants.
_O = LAYOUT.offsets
O_PHASE = _O["phase"]
O_TURN = _O["turn"]
O_OPTIONS = _O["options"]
O_DECISION = _O["decision"]
O_DECISION_PLAYER = _O["decision_player"]
O_DECISION_BUILDING = _O["decision_building"]
O_DECISION_SOURCE = _O["decision_source"]
O_DECISION_ROW = _O["decision_row"]
O_DECISION_COUNT = _O["decision_count"]
O_DECISION_KINDS = _O["decision_kinds"]
O_SEAT_PRESENT = _O["seat_present"]
O_MONEY = _O["money"]
O_CUBES = _O["cubes"]
O_PRESTIGE = _O["prestige"]
O_WORKERS = _O["workers_available"]
O_FAVOR = _O["favor_columns"]
O_ROWS_USED = _O["rows_used"]
O_PASSED = _O["passed"]
O_TURN_POS = _O["turn_order_position"]
O_PASS_POS = _O["passing_position"]
O_INN_RESIDENT = _O["inn_resident"]
O_IN_CASTLE = _O["in_castle"]
O_IN_STABLES = _O["in_stables"]
O_CASTLE_HOUSES = _O["castle_houses"]
O_HOUSES = _O["houses"]
O_BATCHES = _O["batches_this_turn"]
O_RESIDENCES = _O["residences"]
O_ROAD_BUILDING = _O["road_building"]
O_ROAD_OWNER = _O["road_owner"]
O_ROAD_WORKER = _O["road_worker"]
O_ROAD_LAWYER = _O["road_lawyer_pending"]
O_PROVOST = _O["provost"]
O_BAILIFF = _O["bailiff"]
O_SPECIAL = _O["special_workers"]
O_STABLES = _O["stables"]
O_INN = _O["inn"]
O_CASTLE_SPOTS = _O["castle_spots"]
O_CASTLE_FILL = _O["castle_fill"]
O_SCORED = _O["scored"]
O_COLUMNS_OPEN = _O["columns_open"]
O_STOCK = _O["stock"]
O_NUM_PASSED = _O["num_passed"]
del _O


_ROAD_SLOT_WIDTH = NUM_BUILDINGS + 1


@njit(cache=True)
def encode(state, observer, out):
    """Write the observation of ``observer`` (or the global state, ``-1``) into ``out``.

    Args:
        state: the flat int16 game state (``caylus_env.caylus.engine.layout``).
        observer: a seat 0..num_players-1, or -1 for absolute seats.
        out: a float32 buffer of at least ``OBS_SIZE`` entries; it is zeroed first.
    """
    out[:OBS_SIZE] = 0.0
    n = num_players(state)
    # -- clock and options
    phase = np.int64(state[L.PHASE])
    if 1 <= phase <= NUM_PHASES:
        out[O_PHASE + phase - 1] = 1.0
    out[O_TURN] = state[L.TURN] / MAX_TURNS
    out[O_OPTIONS] = state[L.OPT_SIMPLIFIED_FAVORS] != 0
    out[O_OPTIONS + 1] = state[L.OPT_LAWYER_PRESTIGE] / _LAWYER_PRESTIGE_MAX
    out[O_OPTIONS + 2] = state[L.OPT_JEWELLER] != 0
    out[O_OPTIONS + 3] = state[L.OPT_HOUSE_CAP] != 0
    # -- the pending decision (procedures never wait on top at a decision point)
    kind = decision_kind(state)
    if 0 <= kind < NUM_DECISION_KINDS:
        out[O_DECISION + kind] = 1.0
        seat_flag(out, O_DECISION_PLAYER, decision_player(state), observer, n)
        for j in range(2):
            ctx = _CTX_A[kind] if j == 0 else _CTX_B[kind]
            v = decision_arg(state, j)
            if ctx == CTX_BUILDING and 0 <= v < NUM_BUILDINGS:
                out[O_DECISION_BUILDING + v] = 1.0
            elif ctx == CTX_SOURCE and 0 <= v < NUM_BUILD_SOURCES:
                out[O_DECISION_SOURCE + v] = 1.0
            elif ctx == CTX_ROW and 0 <= v < NUM_FAVOR_ROWS:
                out[O_DECISION_ROW + v] = 1.0
            elif ctx == CTX_COUNT:
                out[O_DECISION_COUNT] = v / COUNT_SCALE
            elif ctx == CTX_KINDS:
                bit_flags(out, O_DECISION_KINDS, v, NUM_RESOURCES)
    # -- players
    for p in range(n):
        r = relative_seat(p, observer, n)
        out[O_SEAT_PRESENT + r] = 1.0
        out[O_MONEY + r] = money(state, p) / MONEY_SCALE
        for c in range(NUM_RESOURCES):
            out[O_CUBES + r * NUM_RESOURCES + c] = cube(state, p, c) / CUBE_SCALE
        out[O_PRESTIGE + r] = prestige(state, p) / PRESTIGE_SCALE
        home = NUM_WORKERS - workers_out(state, p)
        out[O_WORKERS + r] = home / NUM_WORKERS
        for row in range(NUM_FAVOR_ROWS):
            col = favor_column(state, p, row)
            if 0 <= col < NUM_FAVOR_STATES:
                out[O_FAVOR + (r * NUM_FAVOR_ROWS + row) * NUM_FAVOR_STATES + col] = 1.0
        bit_flags(out, O_ROWS_USED + r * NUM_FAVOR_ROWS, rows_used(state, p), NUM_FAVOR_ROWS)
        out[O_PASSED + r] = has_passed(state, p)
        for sec in range(NUM_SECTIONS):
            h = section_houses(state, sec, p)
            out[O_CASTLE_HOUSES + r * NUM_SECTIONS + sec] = h / _SECTION_SIZE[sec]
        out[O_HOUSES + r] = houses(state, p) / HOUSE_SCALE
        out[O_BATCHES + r] = state[player_field(p, L.P_BATCHES)] / COUNT_SCALE
    for i in range(n):
        r = relative_seat(state[L.TURN_ORDER + i], observer, n)
        if r >= 0:
            out[O_TURN_POS + r * MAX_PLAYERS + i] = 1.0
    num_passed = min(max(np.int64(state[L.NUM_PASSED]), 0), MAX_PLAYERS)
    for i in range(num_passed):
        r = relative_seat(state[L.PASS_ORDER + i], observer, n)
        if r >= 0:
            out[O_PASS_POS + r * MAX_PLAYERS + i] = 1.0
    out[O_NUM_PASSED] = num_passed / MAX_PLAYERS
    # -- special buildings (and the per-seat flags derived from them)
    for i in range(NUM_SINGLE_SPECIALS):
        seat_flag(out, O_SPECIAL + i * MAX_PLAYERS, state[L.SPECIAL_WORKER + i], observer, n)
    for i in range(NUM_STABLES_SPOTS):
        seat_flag(out, O_STABLES + i * MAX_PLAYERS, state[L.STABLES + i], observer, n)
        seat_flag(out, O_IN_STABLES, state[L.STABLES + i], observer, n)
    seat_flag(out, O_INN, state[L.INN_LEFT], observer, n)
    seat_flag(out, O_INN + MAX_PLAYERS, state[L.INN_RIGHT], observer, n)
    seat_flag(out, O_INN_RESIDENT, state[L.INN_RIGHT], observer, n)
    for i in range(NUM_CASTLE_SPOTS):
        seat_flag(out, O_CASTLE_SPOTS + i * MAX_PLAYERS, state[L.CASTLE_SPOTS + i], observer, n)
        seat_flag(out, O_IN_CASTLE, state[L.CASTLE_SPOTS + i], observer, n)
    # -- the road
    for k in range(1, ROAD_LEN + 1):
        i = k - 1
        tile = np.int64(state[L.ROAD_TILE + k])
        if 0 <= tile < NUM_BUILDINGS:
            out[O_ROAD_BUILDING + i * _ROAD_SLOT_WIDTH + tile] = 1.0
        else:
            out[O_ROAD_BUILDING + i * _ROAD_SLOT_WIDTH + EMPTY_SPACE] = 1.0
        owner = relative_seat(state[L.ROAD_OWNER + k], observer, n)
        if owner >= 0:
            out[O_ROAD_OWNER + i * MAX_PLAYERS + owner] = 1.0
            if tile == _RESIDENCE:
                out[O_RESIDENCES + owner] += 1.0 / COUNT_SCALE
        seat_flag(out, O_ROAD_WORKER + i * MAX_PLAYERS, state[L.ROAD_WORKER + k], observer, n)
        seat_flag(out, O_ROAD_LAWYER + i * MAX_PLAYERS, state[L.ROAD_LAWYER + k], observer, n)
    provost = np.int64(state[L.PROVOST])
    if 1 <= provost <= ROAD_LEN:
        out[O_PROVOST + provost - 1] = 1.0
    bailiff = np.int64(state[L.BAILIFF])
    if 1 <= bailiff <= ROAD_LEN:
        out[O_BAILIFF + bailiff - 1] = 1.0
    # -- castle, favor columns, stock
    scored = 0
    for sec in range(NUM_SECTIONS):
        fill = 0
        for p in range(n):
            fill += section_houses(state, sec, p)
        out[O_CASTLE_FILL + sec] = fill / _SECTION_SIZE[sec]
        if state[L.SCORED + sec] != 0:
            out[O_SCORED + sec] = 1.0
            scored += 1
    out[O_COLUMNS_OPEN] = _COLUMNS_OPEN[scored] / NUM_FAVOR_COLUMNS
    for b in range(NUM_BUILDINGS):
        out[O_STOCK + b] = state[L.STOCK + b] / STOCK_SCALE


#: The game contract's name of the encoder (``caylus_env.core.contract``): the same kernel.
encode_into = encode

__all__ = [*OBSERVER_EXPORTS, "SEAT_COLUMN_PIECES", "SPACE_PIECES"]
