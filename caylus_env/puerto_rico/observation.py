"""The Puerto Rico observer: one flat ``float32`` vector per player, built from named pieces.

The counterpart of ``caylus_env.caylus.observation``: ``PIECES`` is an ordered tuple of
``(name, shape)``; the vector is their concatenation (``OBS_SIZE`` entries) and
``observation_pieces`` gives named, reshaped views onto it. Every size comes from the
engine's constants (``caylus_env.puerto_rico.engine``), so the layout follows the rules
tables of docs/rules/puerto_rico.md.

Seats are *relative to the observer*: relative seat ``r`` of player ``p`` is
``(p - seat) % num_players``, so seat 0 is always "me" and seat 1 the next player in seat
order (to the left, the order roles and phases go round, rules 3.1). Every per-player piece
is padded to ``MAX_PLAYERS`` (5) seats, so one policy serves 2-5 players; absent seats are
all zero and ``seat_present`` says which seats exist. With ``seat = -1`` the same kernel
writes *absolute* seats (seat 0 = player 0): the global state of ``raw_env.state()`` for
centralised critics.

What is shown is what a player at the table sees (docs/rules/puerto_rico.md 6.8): every
count on the table, VP chips included (they follow from the public history). The *order*
of the face-down plantations and the generator that reshuffles them are the only hidden
information and are never encoded; only the stack's size is. The kinds of tiles turned
into forests lie face down (7.3) and are not encoded either (a forest is an island tile
of its own kind); the plantation a hacienda drew for a forest-house owner
(``forest`` decision, 7.3) is shown to that player only.

One-hot entries, flags and fractions of a fixed size are in [0, 1]; counts (doubloons, VP,
barrels, colonists, ...) are scaled by the constants below and bounded in ``BOUNDS`` by
their largest value over their scale (``HIGHS``): the rules' ceiling where there is one
(the round: the decision cap allows at most ``MAX_ROUND``; a decision's count: its declared
domain; the score: `MAX_SCORE`), else the largest value of the int16 state (no rule caps
doubloons, VP chips or barrels held, and the engine never overflows its state). No bound
is infinite. Counts are copied as they are, never clamped, so a state
that breaks the rules shows up as an observation outside the space instead of being
hidden. The VP chip supply, which goes below zero once the chips run out (6.7), is split
into two non-negative entries: chips left and VP owed on paper.

``encode_into`` is a numba kernel on the hot path (about a microsecond): it zeroes the
buffer and writes the pieces from the flat state array directly; ``encode_batch`` runs it
over rows of a batch, and ``encode`` is the checked Python entry point.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.core.observation import (
    OBSERVER_EXPORTS,
    ObservationLayout,
    bit_flags,
    one_hot,
    relative_seat,
    scaled_high,
    seat_flag,
    state_max,
)
from caylus_env.puerto_rico import GAME
from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COPIES,
    B_GUILD_VALUE,
    B_VP,
    NUM_BUILDINGS,
)
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    CLOISTER_BONUS,
    DRAFT_MODES,
    GOODS_IN_BOX,
    ISLAND_SPACES,
    MAX_FACE_UP,
    MAX_PLAYERS,
    MAX_SHIPS,
    MIN_PLAYERS,
    NUM_DECISION_KINDS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_ROLES,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    PHASE_NAMES,
    PHASE_OF_ROLE,
    PLANTATION_STACK_SIZE,
    QUARRIES,
    RESIDENCE_BONUS,
    ROLES_PER_ROUND,
    SHIP_CAPACITY,
    TRADING_HOUSE_SPACES,
    DecisionKind,
    Phase,
)
from caylus_env.puerto_rico.engine.decisions import (
    CODEC_BUILDING,
    CODEC_GOODS,
    CODEC_INT,
    CODEC_TILE,
    SCHEMA,
    decision_arg,
    decision_kind,
    decision_player,
)
from caylus_env.puerto_rico.engine.layout import STATE_DTYPE, STATE_SIZE
from caylus_env.puerto_rico.engine.roles.captain import SINGLE_BITS, SINGLE_MASK
from caylus_env.puerto_rico.engine.state import city_spaces_used, final_score, pf
from caylus_env.puerto_rico.engine.state_dict import MAX_ROUND

# -- scales: a typical value maps to about 1 ----------------------------------------------
MONEY_SCALE = 10.0  # doubloons: a rich player holds about 10
ROLE_MONEY_SCALE = 3.0  # doubloons on a role card: one per round it was left (rules 3.2)
VP_SCALE = 20.0  # VP chips of one player: a shipper holds 20-40 at the end (4.6)
SCORE_SCALE = GAME.score_scale  # the spec's score unit (caylus_env/puerto_rico/__init__.py)
VP_SUPPLY_SCALE = 50.0  # VP chips in the supply: 65-122 at the start (1.2)
GOODS_SCALE = 5.0  # barrels of one good held by one player
COLONIST_SCALE = 5.0  # colonists on the ship or in San Juan (4.2)
COLONIST_SUPPLY_SCALE = 25.0  # colonists in the supply: 40-95 at the start (1.2)
ROUND_SCALE = 15.0  # rounds: a game lasts about 15 (5.1)
COUNT_SCALE = 5.0  # small counts: a decision's count, turns taken in a phase, singles kept
#: The largest cargo ship (rules 1.2): capacities and loads are fractions of it.
SHIP_SCALE = float(SHIP_CAPACITY.max())
#: The most copies of one building (rules 1.2): supply counts are fractions of it.
BUILDING_SUPPLY_SCALE = float(B_COPIES.max())
#: The most quarries in a game (rules 1.2).
QUARRY_SCALE = float(QUARRIES.max())
NUM_PLAYER_COUNTS = MAX_PLAYERS - MIN_PLAYERS + 1  # the ``num_players`` one-hot: 2..5
NUM_OPTIONS = 3  # expansion, random draft, library limit (rules 7.1, 7.5)
NUM_CAPTAIN_FLAGS = 3  # shipped this captain phase, wharf used, small wharf used (4.6, 7.2)
NUM_BLACK_MARKET_RETURNS = 3  # a colonist, a barrel, a VP chip returned (7.2)
NUM_PHASES = len(PHASE_NAMES)

#: The role whose phase is being carried out, per Phase (-1: none); storage is the captain's.
_ROLE_OF_PHASE = np.full(NUM_PHASES, -1, np.int64)
for _r in range(NUM_ROLES):
    if PHASE_OF_ROLE[_r] >= 0:
        _ROLE_OF_PHASE[PHASE_OF_ROLE[_r]] = _r
_ROLE_OF_PHASE[Phase.CAPTAIN_STORAGE] = _ROLE_OF_PHASE[Phase.CAPTAIN]
_ROLE_OF_PHASE.setflags(write=False)

# The context the observer copies from the pending decision's argument into
# ``decision_tile`` / ``_building`` / ``_goods`` / ``_count``, derived from the codec that
# ``decisions.SCHEMA`` declares for each kind (kinds without an argument carry none).
CTX_NONE, CTX_TILE, CTX_BUILDING, CTX_GOODS, CTX_COUNT = range(5)
CTX_OF_CODEC = {
    CODEC_TILE: CTX_TILE,
    CODEC_BUILDING: CTX_BUILDING,
    CODEC_GOODS: CTX_GOODS,
    CODEC_INT: CTX_COUNT,
}
_CTX = np.zeros(NUM_DECISION_KINDS, np.int64)
for _entry in SCHEMA:
    _CTX[int(_entry.kind)] = CTX_OF_CODEC.get(_entry.arg.codec, CTX_NONE)
_CTX.setflags(write=False)
#: The decision whose argument only the player asked may see: the plantation a hacienda
#: drew face down for a forest-house owner (rules 7.3, 6.8).
PRIVATE_DECISION = int(DecisionKind.FOREST)
_RANDOM_DRAFT = DRAFT_MODES.index("random")
_GOODS_IN_BOX = GOODS_IN_BOX.astype(np.float64)
_B_CIRCLES = B_CIRCLES.astype(np.float64)

P = MAX_PLAYERS
#: The pieces of the observation, in vector order: ``(name, shape)``.
PIECES: tuple[tuple[str, tuple[int, ...]], ...] = (
    # -- options and clock -------------------------------------------------------------------
    ("num_players", (NUM_PLAYER_COUNTS,)),  # one-hot player count 2..5 (1.2)
    ("options", (NUM_OPTIONS,)),  # expansion, random draft, 2-player library limit (7)
    ("phase", (NUM_PHASES,)),  # one-hot Phase (role_selection .. draft)
    ("round", (1,)),  # / ROUND_SCALE
    ("decisions_used", (1,)),  # decisions taken / the truncation cap (6.9)
    ("end_triggered", (1,)),  # an end condition happened: last round (5.1)
    ("governor", (P,)),  # relative seat of the governor (3.1)
    # -- roles (3) -----------------------------------------------------------------------------
    ("role_in_game", (NUM_ROLES,)),  # the cards of this player count (1.2, 1.3)
    ("role_available", (NUM_ROLES,)),  # in the game and not picked this round
    ("role_doubloons", (NUM_ROLES,)),  # doubloons on each card / ROLE_MONEY_SCALE (3.2)
    ("role_taken", (NUM_ROLES,)),  # the role whose phase is being carried out
    ("picker", (P,)),  # relative seat who picked it
    ("picks", (1,)),  # roles picked this round / roles per round (3.1)
    ("privilege_doubled", (2,)),  # the library doubles this role; one doubled this round (7.2)
    # -- the pending decision (6) --------------------------------------------------------------
    ("decision", (NUM_DECISION_KINDS,)),  # one-hot DecisionKind; all zero at the end
    ("decision_player", (P,)),  # relative seat of the player asked
    ("decision_tile", (NUM_TILES,)),  # the tile a hospice / forest question is about
    ("decision_building", (NUM_BUILDINGS,)),  # the building a university / black market is about
    ("decision_goods", (NUM_GOODS,)),  # goods the craftsman produced (craft privilege, 6.1)
    ("decision_count", (1,)),  # library tile, warehouse kinds, barrels left / COUNT_SCALE
    ("phase_turns", (3,)),  # turns taken in the phase, captain idle turns, guest-house turns
    ("produced", (NUM_GOODS,)),  # goods the craftsman received this phase (6.1)
    ("black_market", (NUM_BLACK_MARKET_RETURNS + 1,)),  # returned flags, doubloons short (7.2)
    # -- the general supply --------------------------------------------------------------------
    ("colonist_ship", (1,)),  # / COLONIST_SCALE (4.2)
    ("colonist_supply", (1,)),  # / COLONIST_SUPPLY_SCALE (1.2, 6.5)
    ("vp_supply", (2,)),  # chips left, VP owed on paper once they ran out / VP_SUPPLY_SCALE (6.7)
    ("goods_supply", (NUM_GOODS,)),  # barrels left / barrels in the box (1.1)
    ("face_up", (NUM_PLANTATION_KINDS,)),  # face-up plantations / MAX_FACE_UP (4.1)
    ("discards", (NUM_PLANTATION_KINDS,)),  # discarded plantations / MAX_FACE_UP (4.1)
    ("plantation_stack", (1,)),  # face-down tiles left / the box's plantations: size only (6.8)
    ("quarries", (1,)),  # quarries left / QUARRY_SCALE
    ("building_supply", (NUM_BUILDINGS,)),  # tiles left / BUILDING_SUPPLY_SCALE
    ("ship_capacity", (MAX_SHIPS,)),  # cargo ships, smallest first / SHIP_SCALE; 0 = none
    ("ship_good", (MAX_SHIPS, NUM_GOODS)),  # the good on each ship, none when empty (4.6)
    ("ship_load", (MAX_SHIPS,)),  # barrels on each ship / SHIP_SCALE
    ("trading_house", (NUM_GOODS,)),  # barrels per good / its spaces (4.5)
    # -- players, by relative seat ---------------------------------------------------------------
    ("seat_present", (P,)),
    ("money", (P,)),  # / MONEY_SCALE
    ("vp_chips", (P,)),  # VP chips taken, paper VP included / VP_SCALE (public, 6.8)
    ("score", (P,)),  # victory points if the game ended now / SCORE_SCALE (5.2)
    ("goods", (P, NUM_GOODS)),  # barrels / GOODS_SCALE
    ("island", (P, NUM_TILES)),  # tiles per kind, forests included / ISLAND_SPACES (2.1)
    ("island_worked", (P, NUM_WORKABLE_TILES)),  # occupied tiles per kind / ISLAND_SPACES
    ("buildings", (P, NUM_BUILDINGS)),  # owned (2.1: one per kind)
    ("building_colonists", (P, NUM_BUILDINGS)),  # colonists / circles of the building
    ("city_spaces", (P,)),  # city spaces used / CITY_SPACES (2.1, 5.1)
    ("san_juan", (P,)),  # colonists waiting in San Juan / COLONIST_SCALE
    ("captain_flags", (P, NUM_CAPTAIN_FLAGS)),  # shipped, wharf used, small wharf used
    ("kept", (P, NUM_GOODS)),  # goods a warehouse keeps whole this storage (4.7)
    ("singles_kept", (P, NUM_GOODS)),  # single barrels kept per good / COUNT_SCALE (4.7, 7.2)
)
del P


#: Pieces indexed by relative seat (first axis, ``MAX_PLAYERS`` long): absent seats are zero.
SEAT_PIECES = (
    "governor",
    "picker",
    "decision_player",
    *(name for name, _ in PIECES[[n for n, _ in PIECES].index("seat_present") :]),
)

_STATE_MAX = state_max(STATE_DTYPE)
#: The largest count a decision declares (``decisions.SCHEMA``, codec ``int``).
MAX_DECISION_COUNT = max(entry.arg.high for entry in SCHEMA if entry.arg.codec == CODEC_INT)
#: The most victory points ``final_score`` can give (rules 5.2, 2.5, 7.2): every chip the
#: state can hold, every building's printed VP and guild value, the largest residence and
#: cloister bonuses, a violet point per building, the customs house's quarter of the chips
#: and the fortress's third of every colonist (San Juan, a full island, full buildings).
MAX_SCORE = (
    _STATE_MAX
    + _STATE_MAX // 4
    + int(B_VP.sum())
    + int(B_GUILD_VALUE.sum())
    + int(RESIDENCE_BONUS.max())
    + int(CLOISTER_BONUS.max())
    + NUM_BUILDINGS
    + (_STATE_MAX + ISLAND_SPACES + int(B_CIRCLES.sum())) // 3
)
#: The upper bound of every piece that can exceed 1 (see the module docstring); every other
#: entry is a one-hot, a flag or a fraction in [0, 1].
HIGHS: dict[str, np.float32 | np.ndarray] = {
    "round": scaled_high(MAX_ROUND, ROUND_SCALE),
    "role_doubloons": scaled_high(_STATE_MAX, ROLE_MONEY_SCALE),
    "decision_count": scaled_high(MAX_DECISION_COUNT, COUNT_SCALE),
    "phase_turns": scaled_high(_STATE_MAX, COUNT_SCALE),
    # three returned flags, then the doubloons short
    "black_market": np.array(
        [1.0] * NUM_BLACK_MARKET_RETURNS + [scaled_high(_STATE_MAX, MONEY_SCALE)], np.float32
    ),
    "colonist_ship": scaled_high(_STATE_MAX, COLONIST_SCALE),
    "colonist_supply": scaled_high(_STATE_MAX, COLONIST_SUPPLY_SCALE),
    # chips left, then VP owed on paper (the negated supply: at most -(int16 min))
    "vp_supply": np.array(
        [scaled_high(_STATE_MAX, VP_SUPPLY_SCALE), scaled_high(_STATE_MAX + 1, VP_SUPPLY_SCALE)],
        np.float32,
    ),
    "discards": scaled_high(_STATE_MAX, MAX_FACE_UP),
    "money": scaled_high(_STATE_MAX, MONEY_SCALE),
    "vp_chips": scaled_high(_STATE_MAX, VP_SCALE),
    "score": scaled_high(MAX_SCORE, SCORE_SCALE),
    "goods": scaled_high(_STATE_MAX, GOODS_SCALE),
    "san_juan": scaled_high(_STATE_MAX, COLONIST_SCALE),
    "singles_kept": scaled_high(_STATE_MAX, COUNT_SCALE),
}
#: Raise when a piece keeps its name and shape but changes encoding (a scale, an order).
OBSERVATION_REVISION = 1
#: The layout of the vector (``caylus_env.core.observation``).
LAYOUT = ObservationLayout(PIECES, HIGHS, OBSERVATION_REVISION, SEAT_PIECES)
#: Where each piece lives, the vector's size, its version, its bounds and named views onto it
#: (``caylus_env.core.observation.LayoutConstants``).
PIECE_SLICES, PIECE_SHAPES, OBS_SIZE, OBSERVATION_VERSION, BOUNDS, observation_pieces = (
    LAYOUT.constants()
)


# Offsets as plain ints, frozen into the kernel as compile-time constants.
_O = LAYOUT.offsets
O_NUM_PLAYERS = _O["num_players"]
O_OPTIONS = _O["options"]
O_PHASE = _O["phase"]
O_ROUND = _O["round"]
O_DECISIONS_USED = _O["decisions_used"]
O_END_TRIGGERED = _O["end_triggered"]
O_GOVERNOR = _O["governor"]
O_ROLE_IN_GAME = _O["role_in_game"]
O_ROLE_AVAILABLE = _O["role_available"]
O_ROLE_DOUBLOONS = _O["role_doubloons"]
O_ROLE_TAKEN = _O["role_taken"]
O_PICKER = _O["picker"]
O_PICKS = _O["picks"]
O_DOUBLED = _O["privilege_doubled"]
O_DECISION = _O["decision"]
O_DECISION_PLAYER = _O["decision_player"]
O_DECISION_TILE = _O["decision_tile"]
O_DECISION_BUILDING = _O["decision_building"]
O_DECISION_GOODS = _O["decision_goods"]
O_DECISION_COUNT = _O["decision_count"]
O_PHASE_TURNS = _O["phase_turns"]
O_PRODUCED = _O["produced"]
O_BLACK_MARKET = _O["black_market"]
O_COLONIST_SHIP = _O["colonist_ship"]
O_COLONIST_SUPPLY = _O["colonist_supply"]
O_VP_SUPPLY = _O["vp_supply"]
O_GOODS_SUPPLY = _O["goods_supply"]
O_FACE_UP = _O["face_up"]
O_DISCARDS = _O["discards"]
O_STACK = _O["plantation_stack"]
O_QUARRIES = _O["quarries"]
O_BUILDING_SUPPLY = _O["building_supply"]
O_SHIP_CAPACITY = _O["ship_capacity"]
O_SHIP_GOOD = _O["ship_good"]
O_SHIP_LOAD = _O["ship_load"]
O_TRADING_HOUSE = _O["trading_house"]
O_SEAT_PRESENT = _O["seat_present"]
O_MONEY = _O["money"]
O_VP_CHIPS = _O["vp_chips"]
O_SCORE = _O["score"]
O_GOODS = _O["goods"]
O_ISLAND = _O["island"]
O_WORKED = _O["island_worked"]
O_BUILDINGS = _O["buildings"]
O_BUILDING_COLONISTS = _O["building_colonists"]
O_CITY_SPACES = _O["city_spaces"]
O_SAN_JUAN = _O["san_juan"]
O_CAPTAIN_FLAGS = _O["captain_flags"]
O_KEPT = _O["kept"]
O_SINGLES = _O["singles_kept"]
del _O


@njit(cache=True)
def encode_into(state, seat, out):
    """Write the observation of ``seat`` (or the global state, ``-1``) into ``out``.

    Args:
        state: the flat int16 game state (``caylus_env.puerto_rico.engine.layout``).
        seat: a seat 0..num_players-1, or -1 for absolute seats.
        out: a float32 buffer of at least ``OBS_SIZE`` entries; it is zeroed first.
    """
    out[:OBS_SIZE] = 0.0
    n = np.int64(state[L.NUM_PLAYERS])
    # -- options and clock
    one_hot(out, O_NUM_PLAYERS, n - MIN_PLAYERS, NUM_PLAYER_COUNTS)
    out[O_OPTIONS] = state[L.OPT_EXPANSION] != 0
    out[O_OPTIONS + 1] = state[L.OPT_DRAFT] == _RANDOM_DRAFT
    out[O_OPTIONS + 2] = state[L.OPT_LIBRARY_LIMIT] != 0
    phase = np.int64(state[L.PHASE])
    if 0 <= phase < NUM_PHASES:
        out[O_PHASE + phase] = 1.0
        role = _ROLE_OF_PHASE[phase]
        if role >= 0:
            out[O_ROLE_TAKEN + role] = 1.0
    out[O_ROUND] = state[L.ROUND] / ROUND_SCALE
    if state[L.MAX_DECISIONS] > 0:
        out[O_DECISIONS_USED] = state[L.DECISIONS] / state[L.MAX_DECISIONS]
    out[O_END_TRIGGERED] = state[L.END_TRIGGERED] != 0
    seat_flag(out, O_GOVERNOR, state[L.GOVERNOR], seat, n)
    # -- roles
    for r in range(NUM_ROLES):
        rs = state[L.ROLE_STATE + r]
        out[O_ROLE_IN_GAME + r] = rs >= 0
        out[O_ROLE_AVAILABLE + r] = rs == 0
        out[O_ROLE_DOUBLOONS + r] = state[L.ROLE_MONEY + r] / ROLE_MONEY_SCALE
    seat_flag(out, O_PICKER, state[L.PICKER], seat, n)
    if MIN_PLAYERS <= n <= MAX_PLAYERS:
        out[O_PICKS] = state[L.PICKS] / ROLES_PER_ROUND[n]
    out[O_DOUBLED] = state[L.DOUBLED] != 0
    out[O_DOUBLED + 1] = state[L.LIBRARY_USED] != 0
    # -- the pending decision and the phase's progress
    kind = decision_kind(state)
    if 0 <= kind < NUM_DECISION_KINDS:
        out[O_DECISION + kind] = 1.0
        asked = decision_player(state)
        seat_flag(out, O_DECISION_PLAYER, asked, seat, n)
        ctx = _CTX[kind]
        v = decision_arg(state)
        if kind == PRIVATE_DECISION and seat >= 0 and seat != asked:
            ctx = CTX_NONE
        if ctx == CTX_TILE and 0 <= v < NUM_TILES:
            out[O_DECISION_TILE + v] = 1.0
        elif ctx == CTX_BUILDING and 0 <= v < NUM_BUILDINGS:
            out[O_DECISION_BUILDING + v] = 1.0
        elif ctx == CTX_GOODS:
            bit_flags(out, O_DECISION_GOODS, v, NUM_GOODS)
        elif ctx == CTX_COUNT:
            out[O_DECISION_COUNT] = v / COUNT_SCALE
    out[O_PHASE_TURNS] = state[L.STEP] / COUNT_SCALE
    out[O_PHASE_TURNS + 1] = state[L.IDLE] / COUNT_SCALE
    out[O_PHASE_TURNS + 2] = state[L.GUEST_STEP] / COUNT_SCALE
    bit_flags(out, O_PRODUCED, np.int64(state[L.PRODUCED]), NUM_GOODS)
    bit_flags(out, O_BLACK_MARKET, np.int64(state[L.BM_RETURNED]), NUM_BLACK_MARKET_RETURNS)
    out[O_BLACK_MARKET + NUM_BLACK_MARKET_RETURNS] = state[L.BM_SHORT] / MONEY_SCALE
    # -- the general supply (the stack's order and the generator are hidden: 6.8)
    out[O_COLONIST_SHIP] = state[L.COLONIST_SHIP] / COLONIST_SCALE
    out[O_COLONIST_SUPPLY] = state[L.COLONIST_SUPPLY] / COLONIST_SUPPLY_SCALE
    vp_supply = np.int64(state[L.VP_SUPPLY])
    if vp_supply >= 0:
        out[O_VP_SUPPLY] = vp_supply / VP_SUPPLY_SCALE
    else:
        out[O_VP_SUPPLY + 1] = -vp_supply / VP_SUPPLY_SCALE
    for g in range(NUM_GOODS):
        out[O_GOODS_SUPPLY + g] = state[L.GOODS_SUPPLY + g] / _GOODS_IN_BOX[g]
        out[O_TRADING_HOUSE + g] = state[L.TRADING_HOUSE + g] / TRADING_HOUSE_SPACES
    for k in range(NUM_PLANTATION_KINDS):
        out[O_FACE_UP + k] = state[L.FACE_UP + k] / MAX_FACE_UP
        out[O_DISCARDS + k] = state[L.DISCARDS + k] / MAX_FACE_UP
    out[O_STACK] = state[L.PLANTATION_STACK_SIZE_F] / PLANTATION_STACK_SIZE
    out[O_QUARRIES] = state[L.QUARRY_SUPPLY] / QUARRY_SCALE
    for b in range(NUM_BUILDINGS):
        out[O_BUILDING_SUPPLY + b] = state[L.BUILDING_SUPPLY + b] / BUILDING_SUPPLY_SCALE
    for k in range(MAX_SHIPS):
        out[O_SHIP_CAPACITY + k] = state[L.SHIP_CAPACITY + k] / SHIP_SCALE
        out[O_SHIP_LOAD + k] = state[L.SHIP_LOAD + k] / SHIP_SCALE
        good = np.int64(state[L.SHIP_GOOD + k])
        if 0 <= good < NUM_GOODS:
            out[O_SHIP_GOOD + k * NUM_GOODS + good] = 1.0
    # -- players
    for p in range(min(n, MAX_PLAYERS)):
        r = relative_seat(p, seat, n)
        out[O_SEAT_PRESENT + r] = 1.0
        out[O_MONEY + r] = state[pf(p, L.P_MONEY)] / MONEY_SCALE
        out[O_VP_CHIPS + r] = state[pf(p, L.P_VP)] / VP_SCALE
        out[O_SCORE + r] = final_score(state, p) / SCORE_SCALE
        for g in range(NUM_GOODS):
            out[O_GOODS + r * NUM_GOODS + g] = state[pf(p, L.P_GOODS + g)] / GOODS_SCALE
        for t in range(NUM_TILES):
            out[O_ISLAND + r * NUM_TILES + t] = state[pf(p, L.P_ISLAND + t)] / ISLAND_SPACES
        for t in range(NUM_WORKABLE_TILES):
            w = state[pf(p, L.P_WORKED + t)]
            out[O_WORKED + r * NUM_WORKABLE_TILES + t] = w / ISLAND_SPACES
        for b in range(NUM_BUILDINGS):
            w = np.int64(state[pf(p, L.P_BUILDINGS + b)])
            if w >= 0:
                out[O_BUILDINGS + r * NUM_BUILDINGS + b] = 1.0
                if _B_CIRCLES[b] > 0:
                    out[O_BUILDING_COLONISTS + r * NUM_BUILDINGS + b] = w / _B_CIRCLES[b]
        out[O_CITY_SPACES + r] = city_spaces_used(state, p) / CITY_SPACES
        out[O_SAN_JUAN + r] = state[pf(p, L.P_SAN_JUAN)] / COLONIST_SCALE
        base = O_CAPTAIN_FLAGS + r * NUM_CAPTAIN_FLAGS
        out[base] = state[pf(p, L.P_SHIPPED)] != 0
        out[base + 1] = state[pf(p, L.P_WHARF_USED)] != 0
        out[base + 2] = state[pf(p, L.P_SMALL_WHARF_USED)] != 0
        bit_flags(out, O_KEPT + r * NUM_GOODS, np.int64(state[pf(p, L.P_KEPT)]), NUM_GOODS)
        singles = np.int64(state[pf(p, L.P_SINGLES)])
        for g in range(NUM_GOODS):
            kept = (singles >> (SINGLE_BITS * g)) & SINGLE_MASK
            out[O_SINGLES + r * NUM_GOODS + g] = kept / COUNT_SCALE


@njit(cache=True)
def encode_batch(states, seats, out):
    """``encode_into`` for every row: ``out[i]`` is the observation of ``seats[i]`` in
    ``states[i]`` (``-1``: the global state). Rows are independent.

    Args:
        states: ``(B, STATE_SIZE)`` int16 game states.
        seats: ``(B,)`` int64 seats.
        out: ``(B, >= OBS_SIZE)`` float32 buffer.
    """
    for i in range(states.shape[0]):
        encode_into(states[i], seats[i], out[i])


#: The checked Python entry point ``encode(state, seat)``: the observation of ``seat`` in
#: ``state`` as a new array (``-1``: the global state), once the state's type and the seat are
#: accepted.
encode = LAYOUT.checked_encoder(encode_into, STATE_DTYPE, STATE_SIZE, L.NUM_PLAYERS)

__all__ = [*OBSERVER_EXPORTS, "encode_batch"]
