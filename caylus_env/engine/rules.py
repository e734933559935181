"""The rules of classic Caylus as numba kernels over the flat state array.

Shape of the machine (style anchors 3.3, TAG extended sequences):

- The state holds a small *pending-decision stack*. Its top is either a
  ``DecisionKind`` (a question to one player) or a ``Procedure`` (an automatic
  continuation waiting for the decisions above it).
- ``advance`` runs everything that needs no choice: when the stack is empty the
  phase driver (``_drive``) moves the turn forward; procedures run; a decision
  with exactly one legal action is applied automatically; a favor with no row
  left is lost (rules 5.3). It stops at the next real decision or at the end.
- ``legal_actions`` dispatches on the top decision; ``_apply`` does the same and
  is the only mutator besides the drivers. ``step`` checks legality first, so a
  rejected action leaves the state untouched.

Every function is ``@njit(cache=True)`` and imports nothing but NumPy; the module
runs unchanged, slowly, under ``NUMBA_DISABLE_JIT=1``. Rule references are to
sections of ``shared/rules/caylus.md``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.engine.actions import (
    ACT_BATCH,
    ACT_BUILD,
    ACT_COLUMN,
    ACT_DECLINE,
    ACT_FAVOR,
    ACT_GATE,
    ACT_GUILD,
    ACT_INN_LEAVE,
    ACT_INN_STAY,
    ACT_JOUST,
    ACT_OPTION,
    ACT_PASS,
    ACT_PAY,
    ACT_PLACE,
    ACT_PROVOST,
    ACT_SPACE,
    ACT_TAKE,
    BATCH_A,
    BATCH_B,
    BUILD_ACTION_OF,
    BUILDING_OF_BUILD,
    DELTAS,
    NUM_ACTIONS,
    NUM_BATCH_KINDS,
    NUM_BUILD_ACTIONS,
    NUM_PROVOST_MOVES,
)
from caylus_env.engine.board import (
    BAILIFF_START,
    NUM_NEUTRAL,
    NUM_TARGETS,
    PROVOST_START,
    ROAD_LEN,
    ROAD_TARGET_BASE,
    TARGET_CASTLE,
    TARGET_GATE,
    TARGET_INN,
    TARGET_STABLES,
)
from caylus_env.engine.board import (
    COLUMNS_OPEN as _COLUMNS_OPEN,
)
from caylus_env.engine.board import (
    FIXED_BUILDINGS as _FIXED_BUILDINGS,
)
from caylus_env.engine.board import (
    SECTION_EMPTY_PENALTY as _SECTION_EMPTY_PENALTY,
)
from caylus_env.engine.board import (
    SECTION_FAVORS as _SECTION_FAVORS,
)
from caylus_env.engine.board import (
    SECTION_PRESTIGE as _SECTION_PRESTIGE,
)
from caylus_env.engine.board import (
    SECTION_SIZE as _SECTION_SIZE,
)
from caylus_env.engine.board import (
    SECTION_TRIGGER as _SECTION_TRIGGER,
)
from caylus_env.engine.buildings import (
    ANY_NON_GOLD,
    B_COPIES,
    B_COST,
    B_COST_ANY,
    B_EFFECT,
    B_FAVORS,
    B_INCOME,
    B_KIND,
    B_MARKET_PRICE,
    B_NUM_PRODUCE,
    B_OPTIONS,
    B_OWNER_BONUS,
    B_PEDDLER_MAX,
    B_PEDDLER_PRICE,
    B_PRESTIGE,
    B_PRODUCE,
    B_TAKES_WORKER,
    NEUTRAL_TILES,
    BuildingId,
    BuildingKind,
    Effect,
)
from caylus_env.engine.constants import (
    CASTLE_PENALTY,
    FINAL_CUBES_PER_PRESTIGE,
    FINAL_DENIERS_PER_PRESTIGE,
    FINAL_PRESTIGE_PER_GOLD,
    INCOME_BASE,
    INN_RESIDENT_PRICE,
    JOUST_COST_DENIERS,
    LAWYER_PRESTIGE,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    PASS_BONUS,
    SIMPLIFIED_FAVOR_PRESTIGE,
    START_CUBES,
    START_DENIERS,
    START_DENIERS_TWO_PLAYERS,
    SUBSEQUENT_PLACEMENT_FLOOR,
    TRADING_POST_DENIERS,
    TURN_CAP,
    TWO_PLAYER_PRICE,
    BuildSource,
    DecisionKind,
    FavorRow,
    Phase,
    Procedure,
    Resource,
    Section,
    Special,
)
from caylus_env.engine.constants import MAX_PLAYERS as _MAX_PLAYERS
from caylus_env.engine.layout import (
    BAILIFF,
    CASTLE_HOUSES,
    CASTLE_SPOTS,
    CURSOR,
    INN_LEFT,
    INN_RIGHT,
    NUM_PASSED,
    NUM_PLAYERS,
    OPT_HOUSE_CAP,
    OPT_JEWELLER,
    OPT_LAWYER_PRESTIGE,
    OPT_SIMPLIFIED_FAVORS,
    P_BATCHES,
    P_CUBES,
    P_FAVOR,
    P_HOUSES,
    P_MONEY,
    P_PASSED,
    P_PRESTIGE,
    P_ROWS_USED,
    P_WORKERS_OUT,
    PASS_ORDER,
    PHASE,
    PLAYER_STRIDE,
    PLAYERS,
    PROVOST,
    ROAD_LAWYER,
    ROAD_OWNER,
    ROAD_TILE,
    ROAD_WORKER,
    SCORED,
    SPECIAL_WORKER,
    STABLES,
    STACK,
    STACK_DEPTH,
    STACK_ENTRY,
    STACK_SIZE,
    STATE_DTYPE,
    STATE_SIZE,
    STOCK,
    TURN,
    TURN_ORDER,
)

# ---------------------------------------------------------------------------------------
# Constants as plain ints / arrays (numba freezes module globals at compile time).
# ---------------------------------------------------------------------------------------
MAX_PLAYERS = int(_MAX_PLAYERS)
FOOD, WOOD, STONE, CLOTH, GOLD = (int(r) for r in Resource)
DUNGEON, WALLS, TOWERS = (int(x) for x in Section)

K_NEUTRAL = int(BuildingKind.NEUTRAL)
K_FIXED = int(BuildingKind.FIXED)
K_WOOD = int(BuildingKind.WOOD)
K_STONE = int(BuildingKind.STONE)
K_RESIDENTIAL = int(BuildingKind.RESIDENTIAL)
K_PRESTIGE = int(BuildingKind.PRESTIGE)
RESIDENCE = int(BuildingId.RESIDENCE)
LAWYER_TILE = int(BuildingId.LAWYER)
JEWELLER = int(BuildingId.JEWELLER)

E_PRODUCE = int(Effect.PRODUCE)
E_BUILD_WOOD = int(Effect.BUILD_WOOD)
E_BUILD_STONE = int(Effect.BUILD_STONE)
E_BUILD_PRESTIGE = int(Effect.BUILD_PRESTIGE)
E_LAWYER = int(Effect.LAWYER)
E_MARKET = int(Effect.MARKET)
E_PEDDLER = int(Effect.PEDDLER)
E_OPTIONS = int(Effect.OPTIONS)

D_PLACE = int(DecisionKind.PLACE_WORKER)
D_GATE = int(DecisionKind.GATE)
D_GUILD = int(DecisionKind.GUILD)
D_JOUST = int(DecisionKind.JOUST)
D_INN = int(DecisionKind.INN)
D_PROVOST = int(DecisionKind.PROVOST)
D_PRODUCE = int(DecisionKind.PRODUCE)
D_OWNER_BONUS = int(DecisionKind.OWNER_BONUS)
D_MARKET = int(DecisionKind.MARKET)
D_PEDDLER = int(DecisionKind.PEDDLER)
D_BUILD = int(DecisionKind.BUILD)
D_PAY_ANY = int(DecisionKind.PAY_ANY)
D_RESIDENCE = int(DecisionKind.RESIDENCE)
D_LAWYER = int(DecisionKind.LAWYER)
D_OPTION = int(DecisionKind.OPTION)
D_ALCHEMIST_PAY = int(DecisionKind.ALCHEMIST_PAY)
D_CASTLE = int(DecisionKind.CASTLE)
D_FAVOR_ROW = int(DecisionKind.FAVOR_ROW)
D_FAVOR_COLUMN = int(DecisionKind.FAVOR_COLUMN)
D_FAVOR_TAKE = int(DecisionKind.FAVOR_TAKE)
D_FAVOR_GIVE = int(DecisionKind.FAVOR_GIVE)

PROC_FINISH_SPACE = int(Procedure.FINISH_SPACE)
PROC_SCORE_PLAYER = int(Procedure.SCORE_PLAYER)
PROC_SECTION_DONE = int(Procedure.SECTION_DONE)
PROC_BASE = PROC_FINISH_SPACE

SRC_CARPENTER = int(BuildSource.CARPENTER)
SRC_MASON = int(BuildSource.MASON)
SRC_ARCHITECT = int(BuildSource.ARCHITECT)
SRC_FAVOR_CARPENTER = int(BuildSource.FAVOR_CARPENTER)
SRC_FAVOR_MASON = int(BuildSource.FAVOR_MASON)
SRC_FAVOR_ARCHITECT = int(BuildSource.FAVOR_ARCHITECT)
SRC_LAWYER_TILE = int(BuildSource.LAWYER_TILE)
SRC_FAVOR_LAWYER = int(BuildSource.FAVOR_LAWYER)

ROW_PRESTIGE = int(FavorRow.PRESTIGE)
ROW_DENIERS = int(FavorRow.DENIERS)
ROW_RESOURCES = int(FavorRow.RESOURCES)
ROW_BUILDINGS = int(FavorRow.BUILDINGS)

PH_INCOME = int(Phase.INCOME)
PH_PLACEMENT = int(Phase.PLACEMENT)
PH_SPECIAL = int(Phase.SPECIAL)
PH_PROVOST = int(Phase.PROVOST)
PH_ACTIVATION = int(Phase.ACTIVATION)
PH_CASTLE = int(Phase.CASTLE)
PH_END_OF_TURN = int(Phase.END_OF_TURN)
PH_GAME_OVER = int(Phase.GAME_OVER)

SP_GATE = int(Special.GATE)
SP_TRADING_POST = int(Special.TRADING_POST)
SP_GUILD = int(Special.MERCHANTS_GUILD)
SP_JOUST = int(Special.JOUST_FIELD)
SP_STABLES = int(Special.STABLES)
SP_INN = int(Special.INN)
NUM_SPECIAL_STEPS = SP_INN + 1
TARGET_ROAD_FIRST = ROAD_TARGET_BASE  # targets below it are off the road

START_DENIERS_ARR = np.array(START_DENIERS, np.int64)
START_CUBES_ARR = np.array(START_CUBES, np.int64)
NEUTRAL_ARR = np.array([int(b) for b in NEUTRAL_TILES], np.int64)
FIXED_SPACES = np.array(sorted(_FIXED_BUILDINGS), np.int64)
FIXED_TILES = np.array([int(_FIXED_BUILDINGS[k]) for k in sorted(_FIXED_BUILDINGS)], np.int64)
SECTION_SIZE = np.array(_SECTION_SIZE, np.int64)
SECTION_PRESTIGE = np.array(_SECTION_PRESTIGE, np.int64)
SECTION_TRIGGER = np.array(_SECTION_TRIGGER, np.int64)
SECTION_EMPTY_PENALTY = np.array(_SECTION_EMPTY_PENALTY, np.int64)
SECTION_FAVORS = np.array(_SECTION_FAVORS, np.int64)
SECTION_FAVORS_CAP = SECTION_FAVORS.shape[1] - 1
COLUMNS_OPEN = np.array(_COLUMNS_OPEN, np.int64)
# The stock holds the tiles players construct; neutral and fixed buildings start on the road.
STOCK_START = np.where(
    (int(BuildingKind.WOOD) == B_KIND)
    | (int(BuildingKind.STONE) == B_KIND)
    | (int(BuildingKind.PRESTIGE) == B_KIND),
    B_COPIES,
    0,
).astype(np.int64)
NON_GOLD_MASK = (1 << FOOD) | (1 << WOOD) | (1 << STONE) | (1 << CLOTH)
WOOD_OR_STONE_MASK = (1 << WOOD) | (1 << STONE)
ALL_ROWS_MASK = (1 << NUM_FAVOR_ROWS) - 1
SETUP_MODULUS = 2147483647  # Park-Miller minimal standard generator
SETUP_MULTIPLIER = 48271

OK = 0
ILLEGAL = -1


# ---------------------------------------------------------------------------------------
# Small accessors (never mutate unless their name says so).
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _pf(p, field):
    """Offset of a per-player field."""
    return PLAYERS + p * PLAYER_STRIDE + field


@njit(cache=True)
def _cube(s, p, r):
    return np.int64(s[PLAYERS + p * PLAYER_STRIDE + P_CUBES + r])


@njit(cache=True)
def _money(s, p):
    return np.int64(s[PLAYERS + p * PLAYER_STRIDE + P_MONEY])


@njit(cache=True)
def _add_cube(s, p, r, n):
    s[PLAYERS + p * PLAYER_STRIDE + P_CUBES + r] += n


@njit(cache=True)
def _add_money(s, p, n):
    s[PLAYERS + p * PLAYER_STRIDE + P_MONEY] += n


@njit(cache=True)
def _add_prestige(s, p, n):
    """Add (or, for penalties, remove) prestige; prestige never drops below 0 (4, 8.20)."""
    o = PLAYERS + p * PLAYER_STRIDE + P_PRESTIGE
    v = np.int64(s[o]) + n
    s[o] = v if v > 0 else 0


@njit(cache=True)
def _non_gold_cubes(s, p):
    base = PLAYERS + p * PLAYER_STRIDE + P_CUBES
    return np.int64(s[base + FOOD]) + s[base + WOOD] + s[base + STONE] + s[base + CLOTH]


@njit(cache=True)
def _all_cubes(s, p):
    return _non_gold_cubes(s, p) + _cube(s, p, GOLD)


@njit(cache=True)
def _has_house(s, p):
    """Whether ``p`` may put one more house on the board (8.5, optional cap)."""
    cap = s[OPT_HOUSE_CAP]
    return cap == 0 or s[_pf(p, P_HOUSES)] < cap


@njit(cache=True)
def _top(s):
    """Offset of the top stack entry (the stack must not be empty)."""
    return STACK + (np.int64(s[STACK_SIZE]) - 1) * STACK_ENTRY


@njit(cache=True)
def _push(s, kind, player, a, b):
    n = np.int64(s[STACK_SIZE])
    if n >= STACK_DEPTH:
        raise RuntimeError("caylus engine: pending-decision stack overflow")
    o = STACK + n * STACK_ENTRY
    s[o] = kind
    s[o + 1] = player
    s[o + 2] = a
    s[o + 3] = b
    s[STACK_SIZE] = n + 1


@njit(cache=True)
def _pop(s):
    """Remove the top entry and clear it, so equal games have equal arrays."""
    o = _top(s)
    for i in range(STACK_ENTRY):
        s[o + i] = 0
    s[STACK_SIZE] -= 1


@njit(cache=True)
def _num_scored(s):
    return np.int64(s[SCORED]) + s[SCORED + 1] + s[SCORED + 2]


@njit(cache=True)
def _section_fill(s, sec):
    total = 0
    for p in range(MAX_PLAYERS):
        total += s[CASTLE_HOUSES + sec * MAX_PLAYERS + p]
    return total


@njit(cache=True)
def _castle_target(s):
    """Section the next batch goes to, or -1 when the castle is full (phase 6).

    The section under construction is the first one not yet scored; a full
    section overflows into the next one, even before the previous is scored.
    """
    for sec in range(NUM_SECTIONS):
        if s[SCORED + sec] == 0 and _section_fill(s, sec) < SECTION_SIZE[sec]:
            return sec
    return -1


@njit(cache=True)
def _lowest_empty_space(s):
    """New craft buildings go on the lowest empty road space (5a); -1 if none (8.3)."""
    for k in range(1, ROAD_LEN + 1):
        if s[ROAD_TILE + k] < 0:
            return k
    return -1


@njit(cache=True)
def _owns_residence(s, p):
    for k in range(1, ROAD_LEN + 1):
        if s[ROAD_TILE + k] == RESIDENCE and s[ROAD_OWNER + k] == p:
            return True
    return False


@njit(cache=True)
def _holds_batch(s, p):
    """Whether ``p`` holds one valid castle batch: food + 2 different other kinds."""
    if _cube(s, p, FOOD) < 1:
        return False
    kinds = 0
    for r in (WOOD, STONE, CLOTH, GOLD):
        if _cube(s, p, r) > 0:
            kinds += 1
    return kinds >= 2


@njit(cache=True)
def _enter_phase(s, phase):
    """Start a phase: favors of different phases may reuse rows (5.3)."""
    s[PHASE] = phase
    s[CURSOR] = 0
    for p in range(s[NUM_PLAYERS]):
        s[_pf(p, P_ROWS_USED)] = 0


# ---------------------------------------------------------------------------------------
# Setup (rules 1.2-1.4): the only randomness of the game, drawn from the seed.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _setup_next(x):
    return (x * SETUP_MULTIPLIER) % SETUP_MODULUS


@njit(cache=True)
def init_game(s, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed):
    """Write the start of a game into ``s`` (the state array) from options and a seed.

    The neutral tiles are shuffled onto road spaces 1-6 and the first turn order is
    drawn, both from a Park-Miller generator seeded with ``seed`` (0 <= seed < 2**63),
    so the same seed gives the same setup under numba and under plain Python.
    """
    s[:] = 0
    s[NUM_PLAYERS] = num_players
    s[OPT_SIMPLIFIED_FAVORS] = simplified_favors
    s[OPT_LAWYER_PRESTIGE] = lawyer_prestige
    s[OPT_JEWELLER] = jeweller
    s[OPT_HOUSE_CAP] = house_cap
    s[TURN] = 1
    s[PHASE] = PH_INCOME
    s[PROVOST] = PROVOST_START
    s[BAILIFF] = BAILIFF_START
    for i in range(MAX_PLAYERS):
        s[PASS_ORDER + i] = -1
        s[TURN_ORDER + i] = -1
        s[CASTLE_SPOTS + i] = -1
    for i in range(4):
        s[SPECIAL_WORKER + i] = -1
    for i in range(NUM_STABLES_SPOTS):
        s[STABLES + i] = -1
    s[INN_LEFT] = -1
    s[INN_RIGHT] = -1
    for k in range(ROAD_LEN + 1):
        s[ROAD_TILE + k] = -1
        s[ROAD_OWNER + k] = -1
        s[ROAD_WORKER + k] = -1
        s[ROAD_LAWYER + k] = -1
    for b in range(B_COPIES.shape[0]):
        s[STOCK + b] = STOCK_START[b]
    if jeweller:
        s[STOCK + JEWELLER] = 1

    x = 1 + (seed % (SETUP_MODULUS - 1))
    x = (x + (seed // (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1)) % (SETUP_MODULUS - 1) + 1
    for _ in range(4):
        x = _setup_next(x)
    neutral = NEUTRAL_ARR.copy()
    for i in range(NUM_NEUTRAL - 1, 0, -1):
        x = _setup_next(x)
        j = x % (i + 1)
        t = neutral[i]
        neutral[i] = neutral[j]
        neutral[j] = t
    for i in range(NUM_NEUTRAL):
        s[ROAD_TILE + 1 + i] = neutral[i]
    for i in range(FIXED_SPACES.shape[0]):
        s[ROAD_TILE + FIXED_SPACES[i]] = FIXED_TILES[i]
    order = np.arange(num_players)
    for i in range(num_players - 1, 0, -1):
        x = _setup_next(x)
        j = x % (i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t
    for i in range(num_players):
        p = order[i]
        s[TURN_ORDER + i] = p
        s[_pf(p, P_MONEY)] = START_DENIERS_TWO_PLAYERS if num_players == 2 else START_DENIERS_ARR[i]
        for r in range(NUM_RESOURCES):
            s[_pf(p, P_CUBES + r)] = START_CUBES_ARR[r]


# ---------------------------------------------------------------------------------------
# Placement (phase 2) and the gate (phase 3a).
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _bridge_price(s, p):
    """Price of placing on a building ``p`` does not own (phase 2 price rule)."""
    if s[INN_RIGHT] == p:
        return INN_RESIDENT_PRICE
    if s[NUM_PLAYERS] == 2 and s[NUM_PASSED] > 0:
        return TWO_PLAYER_PRICE
    return np.int64(s[NUM_PASSED]) + 1


@njit(cache=True)
def _target_free(s, p, t):
    """Whether target ``t`` can take a worker of ``p`` now (3.3, phase 3a)."""
    if t < TARGET_STABLES:
        return s[SPECIAL_WORKER + t] < 0
    if t == TARGET_STABLES:
        if s[NUM_PLAYERS] == 2:
            return False
        free = False
        for i in range(NUM_STABLES_SPOTS):
            if s[STABLES + i] == p:
                return False
            if s[STABLES + i] < 0:
                free = True
        return free
    if t == TARGET_INN:
        return s[INN_LEFT] < 0
    if t == TARGET_CASTLE:
        for i in range(NUM_CASTLE_SPOTS):
            if s[CASTLE_SPOTS + i] == p:
                return False
        return True
    k = t - ROAD_TARGET_BASE + 1
    tile = s[ROAD_TILE + k]
    return tile >= 0 and B_TAKES_WORKER[tile] == 1 and s[ROAD_WORKER + k] < 0


@njit(cache=True)
def _put_worker(s, p, t):
    """Put a worker of ``p`` on target ``t``; the owner of another's building gains 1."""
    if t < TARGET_STABLES:
        s[SPECIAL_WORKER + t] = p
    elif t == TARGET_STABLES:
        for i in range(NUM_STABLES_SPOTS):
            if s[STABLES + i] < 0:
                s[STABLES + i] = p
                break
    elif t == TARGET_INN:
        s[INN_LEFT] = p
    elif t == TARGET_CASTLE:
        for i in range(NUM_CASTLE_SPOTS):
            if s[CASTLE_SPOTS + i] < 0:
                s[CASTLE_SPOTS + i] = p
                break
    else:
        k = t - ROAD_TARGET_BASE + 1
        s[ROAD_WORKER + k] = p
        owner = s[ROAD_OWNER + k]
        if owner >= 0 and owner != p:
            _add_prestige(s, owner, 1)


@njit(cache=True)
def _placement_price(s, p, t, bridge):
    if t >= ROAD_TARGET_BASE and s[ROAD_OWNER + t - ROAD_TARGET_BASE + 1] == p:
        return SUBSEQUENT_PLACEMENT_FLOOR
    return bridge


@njit(cache=True)
def _legal_place(s, p, out):
    """Pass, plus every target ``p`` can afford and that can take a worker (phase 2).

    The hottest function of random play: one tight pass, the bridge targets only
    when the bridge price is affordable, then the road.
    """
    out[0] = ACT_PASS
    n = 1
    if s[_pf(p, P_WORKERS_OUT)] >= NUM_WORKERS:
        return n
    money = _money(s, p)
    bridge = _bridge_price(s, p)
    if money >= bridge:
        for t in range(TARGET_ROAD_FIRST):
            if _target_free(s, p, t):
                out[n] = ACT_PLACE + t
                n += 1
    for k in range(1, ROAD_LEN + 1):
        tile = s[ROAD_TILE + k]
        if tile < 0 or s[ROAD_WORKER + k] >= 0 or B_TAKES_WORKER[tile] == 0:
            continue
        price = SUBSEQUENT_PLACEMENT_FLOOR if s[ROAD_OWNER + k] == p else bridge
        if money >= price:
            out[n] = ACT_PLACE + ROAD_TARGET_BASE - 1 + k
            n += 1
    return n


@njit(cache=True)
def _apply_place(s, p, a):
    if a == ACT_PASS:
        s[_pf(p, P_PASSED)] = 1
        k = np.int64(s[NUM_PASSED])
        s[PASS_ORDER + k] = p
        if k == 0:
            _add_money(s, p, PASS_BONUS)
        s[NUM_PASSED] = k + 1
    else:
        t = a - ACT_PLACE
        _add_money(s, p, -_placement_price(s, p, t, _bridge_price(s, p)))
        s[_pf(p, P_WORKERS_OUT)] += 1
        _put_worker(s, p, t)
    s[CURSOR] = (s[CURSOR] + 1) % s[NUM_PLAYERS]


@njit(cache=True)
def _legal_gate(s, p, out):
    out[0] = ACT_DECLINE
    n = 1
    for t in range(TARGET_GATE + 1, NUM_TARGETS):
        if _target_free(s, p, t):
            out[n] = ACT_GATE + t
            n += 1
    return n


@njit(cache=True)
def _apply_gate(s, p, a):
    s[SPECIAL_WORKER + SP_GATE] = -1
    if a == ACT_DECLINE:
        s[_pf(p, P_WORKERS_OUT)] -= 1  # not moved: it goes home
    else:
        _put_worker(s, p, a - ACT_GATE)


# ---------------------------------------------------------------------------------------
# Favors (rules 5): row, then column, then sub-choices.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _grant_favors(s, p, n):
    """Give ``p`` ``n`` royal favors now (or 3 prestige each in the simplified variant)."""
    if n <= 0:
        return
    if s[OPT_SIMPLIFIED_FAVORS]:
        _add_prestige(s, p, SIMPLIFIED_FAVOR_PRESTIGE * n)
    else:
        _push(s, D_FAVOR_ROW, p, n, 0)


@njit(cache=True)
def _legal_favor_row(s, p, out):
    """Rows not used by ``p`` in this phase; none left means the favor is lost (8.7)."""
    used = s[_pf(p, P_ROWS_USED)]
    n = 0
    for row in range(NUM_FAVOR_ROWS):
        if not (used >> row) & 1:
            out[n] = ACT_FAVOR + row
            n += 1
    return n


@njit(cache=True)
def _apply_favor_row(s, p, a):
    o = _top(s)
    if s[o + 2] > 1:
        s[o + 2] -= 1
    else:
        _pop(s)
    row = a - ACT_FAVOR
    s[_pf(p, P_ROWS_USED)] |= 1 << row
    col_at = _pf(p, P_FAVOR + row)
    if s[col_at] < COLUMNS_OPEN[_num_scored(s)]:
        s[col_at] += 1  # advancing is compulsory when possible (8.10)
    col = np.int64(s[col_at])
    if row == ROW_PRESTIGE:
        _add_prestige(s, p, col)  # 1..5 prestige; the highest column is never worse
    elif row == ROW_DENIERS:
        _add_money(s, p, col + 2)  # 3..7 deniers
    else:
        _push(s, D_FAVOR_COLUMN, p, row, 0)


@njit(cache=True)
def _legal_favor_column(s, p, row, out):
    top = np.int64(s[_pf(p, P_FAVOR + row)])
    n = 0
    for col in range(1, top + 1):
        ok = True
        if row == ROW_RESOURCES:
            if col == 4:
                ok = _all_cubes(s, p) >= 1  # the swap needs a cube to give (8.11)
        else:
            if col == 2:
                ok = _can_build_any(s, p, SRC_FAVOR_CARPENTER)
            elif col == 3:
                ok = _can_build_any(s, p, SRC_FAVOR_MASON)
            elif col == 4:
                ok = _can_lawyer(s, p, SRC_FAVOR_LAWYER)
            elif col == 5:
                ok = _can_build_any(s, p, SRC_FAVOR_ARCHITECT)
        if ok:
            out[n] = ACT_COLUMN + col
            n += 1
    return n


@njit(cache=True)
def _apply_favor_column(s, p, row, a):
    _pop(s)
    col = a - ACT_COLUMN
    if row == ROW_RESOURCES:
        if col == 1:
            _add_cube(s, p, FOOD, 1)
        elif col == 2:
            _push(s, D_FAVOR_TAKE, p, WOOD_OR_STONE_MASK, 1)
        elif col == 3:
            _add_cube(s, p, CLOTH, 1)
        elif col == 4:
            _push(s, D_FAVOR_TAKE, p, NON_GOLD_MASK, 2)
            _push(s, D_FAVOR_GIVE, p, 0, 0)  # give first (on top), then take two
        else:
            _add_cube(s, p, GOLD, 1)
    else:
        if col == 2:
            _push(s, D_BUILD, p, SRC_FAVOR_CARPENTER, 0)
        elif col == 3:
            _push(s, D_BUILD, p, SRC_FAVOR_MASON, 0)
        elif col == 4:
            _push(s, D_LAWYER, p, SRC_FAVOR_LAWYER, 0)
        elif col == 5:
            _push(s, D_BUILD, p, SRC_FAVOR_ARCHITECT, 0)


@njit(cache=True)
def _legal_kinds(s, p, mask, need_cube, out, base):
    """Actions ``base + r`` for each kind ``r`` in ``mask`` (held, if ``need_cube``)."""
    n = 0
    for r in range(NUM_RESOURCES):
        if (mask >> r) & 1 and (not need_cube or _cube(s, p, r) > 0):
            out[n] = base + r
            n += 1
    return n


# ---------------------------------------------------------------------------------------
# Construction (5a, 5b, favor row d) and the lawyer (5c).
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _discount_kind(src):
    """Cube kind a favor waives: one wood (d2) or one stone (d3); -1 for none."""
    if src == SRC_FAVOR_CARPENTER:
        return WOOD
    if src == SRC_FAVOR_MASON:
        return STONE
    return -1


@njit(cache=True)
def _fixed_need(b, r, discount):
    need = B_COST[b, r]
    if r == discount:
        need -= 1
    return need


@njit(cache=True)
def _can_pay_building(s, p, b, discount):
    spare = 0
    for r in range(NUM_RESOURCES):
        have = _cube(s, p, r)
        need = _fixed_need(b, r, discount)
        if have < need:
            return False
        spare += have - need
    return spare >= B_COST_ANY[b]


@njit(cache=True)
def _source_kind(src):
    if src == SRC_CARPENTER or src == SRC_FAVOR_CARPENTER:
        return K_WOOD
    if src == SRC_MASON or src == SRC_FAVOR_MASON:
        return K_STONE
    return K_PRESTIGE


@njit(cache=True)
def _can_build(s, p, b, src):
    """Whether ``p`` may construct ``b`` now through ``src`` (5a, 5b, 5.1 row d, 8.3)."""
    if s[STOCK + b] <= 0 or B_KIND[b] != _source_kind(src):
        return False
    if B_KIND[b] == K_PRESTIGE:
        if not _owns_residence(s, p):
            return False
    elif _lowest_empty_space(s) < 0 or not _has_house(s, p):
        return False
    return _can_pay_building(s, p, b, _discount_kind(src))


@njit(cache=True)
def _can_build_any(s, p, src):
    for i in range(NUM_BUILD_ACTIONS):
        if _can_build(s, p, BUILDING_OF_BUILD[i], src):
            return True
    return False


@njit(cache=True)
def _legal_build(s, p, src, out):
    out[0] = ACT_DECLINE
    n = 1
    for i in range(NUM_BUILD_ACTIONS):
        b = BUILDING_OF_BUILD[i]
        if _can_build(s, p, b, src):
            out[n] = BUILD_ACTION_OF[b]
            n += 1
    return n


@njit(cache=True)
def _pay_building(s, p, b, src, any_kind):
    discount = _discount_kind(src)
    for r in range(NUM_RESOURCES):
        _add_cube(s, p, r, -_fixed_need(b, r, discount))
    if any_kind >= 0:
        _add_cube(s, p, any_kind, -1)


@njit(cache=True)
def _score_building(s, p, b):
    """Prestige and favors of a new building are scored at once (5a, 5b)."""
    s[STOCK + b] -= 1
    pp = B_PRESTIGE[b]
    if b == LAWYER_TILE:
        pp = s[OPT_LAWYER_PRESTIGE]
    _add_prestige(s, p, pp)
    _grant_favors(s, p, B_FAVORS[b])


@njit(cache=True)
def _construct_on_road(s, p, b):
    k = _lowest_empty_space(s)
    s[ROAD_TILE + k] = b
    s[ROAD_OWNER + k] = p
    s[_pf(p, P_HOUSES)] += 1
    _score_building(s, p, b)


@njit(cache=True)
def _apply_build(s, p, src, a):
    _pop(s)
    if a == ACT_DECLINE:
        return
    b = BUILDING_OF_BUILD[a - ACT_BUILD]
    if B_KIND[b] == K_PRESTIGE:
        _push(s, D_RESIDENCE, p, b, src)
    elif B_COST_ANY[b] > 0:
        _push(s, D_PAY_ANY, p, b, src)
    else:
        _pay_building(s, p, b, src, -1)
        _construct_on_road(s, p, b)


@njit(cache=True)
def _legal_pay_any(s, p, b, src, out):
    discount = _discount_kind(src)
    n = 0
    for r in range(NUM_RESOURCES):
        if _cube(s, p, r) - _fixed_need(b, r, discount) >= 1:
            out[n] = ACT_PAY + r
            n += 1
    return n


@njit(cache=True)
def _apply_pay_any(s, p, b, src, a):
    _pop(s)
    _pay_building(s, p, b, src, a - ACT_PAY)
    _construct_on_road(s, p, b)


@njit(cache=True)
def _legal_residence(s, p, out):
    n = 0
    for k in range(1, ROAD_LEN + 1):
        if s[ROAD_TILE + k] == RESIDENCE and s[ROAD_OWNER + k] == p:
            out[n] = ACT_SPACE + k
            n += 1
    return n


@njit(cache=True)
def _apply_residence(s, p, b, src, a):
    """The prestige tile replaces the residence on its space (5b, 8.24)."""
    _pop(s)
    k = a - ACT_SPACE
    _pay_building(s, p, b, src, -1)
    s[ROAD_TILE + k] = b
    _score_building(s, p, b)


@njit(cache=True)
def _is_lawyer_target(s, p, k):
    """Neutral tiles, or ``p``'s own craft tiles except the lawyer itself (5c)."""
    tile = s[ROAD_TILE + k]
    if tile < 0 or s[ROAD_LAWYER + k] >= 0:
        return False
    kind = B_KIND[tile]
    if kind == K_NEUTRAL:
        return _has_house(s, p)
    return (kind == K_WOOD or kind == K_STONE) and tile != LAWYER_TILE and s[ROAD_OWNER + k] == p


@njit(cache=True)
def _can_afford_lawyer(s, p, src):
    if _cube(s, p, CLOTH) < 1:
        return False
    return src == SRC_FAVOR_LAWYER or _money(s, p) >= 1


@njit(cache=True)
def _can_lawyer(s, p, src):
    if not _can_afford_lawyer(s, p, src):
        return False
    for k in range(1, ROAD_LEN + 1):
        if _is_lawyer_target(s, p, k):
            return True
    return False


@njit(cache=True)
def _legal_lawyer(s, p, src, out):
    out[0] = ACT_DECLINE
    n = 1
    if not _can_afford_lawyer(s, p, src):
        return n
    for k in range(1, ROAD_LEN + 1):
        if _is_lawyer_target(s, p, k):
            out[n] = ACT_SPACE + k
            n += 1
    return n


@njit(cache=True)
def _transform(s, k, p):
    """Replace the building on space ``k`` with a residence of ``p`` (5c)."""
    tile = s[ROAD_TILE + k]
    if B_KIND[tile] != K_NEUTRAL:
        s[STOCK + tile] += 1  # an own craft tile goes back to the stock
    s[ROAD_TILE + k] = RESIDENCE
    s[ROAD_OWNER + k] = p
    s[ROAD_LAWYER + k] = -1


@njit(cache=True)
def _apply_lawyer(s, p, src, a):
    _pop(s)
    if a == ACT_DECLINE:
        return
    k = a - ACT_SPACE
    _add_cube(s, p, CLOTH, -1)
    if src == SRC_LAWYER_TILE:
        _add_money(s, p, -1)
    if B_KIND[s[ROAD_TILE + k]] == K_NEUTRAL:
        s[_pf(p, P_HOUSES)] += 1  # the residence needs a new house
    _add_prestige(s, p, LAWYER_PRESTIGE)
    if s[ROAD_WORKER + k] >= 0:
        s[ROAD_LAWYER + k] = p  # paid now, swapped once that worker is done (8.6)
    else:
        _transform(s, k, p)


# ---------------------------------------------------------------------------------------
# Phase 5: activating road buildings.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _gain(s, p, b, option):
    for r in range(NUM_RESOURCES):
        _add_cube(s, p, r, B_PRODUCE[b, option, r])


@njit(cache=True)
def _activate(s, k, w):
    """Resolve the building on space ``k`` for the worker of player ``w`` (phase 5)."""
    b = s[ROAD_TILE + k]
    effect = B_EFFECT[b]
    if effect == E_PRODUCE:
        if B_NUM_PRODUCE[b] == 1:
            _gain(s, w, b, 0)
        else:
            _push(s, D_PRODUCE, w, b, 0)
        owner = s[ROAD_OWNER + k]
        if B_OWNER_BONUS[b] != 0 and owner >= 0 and owner != w:
            _push(s, D_OWNER_BONUS, owner, b, 0)
    elif effect == E_BUILD_WOOD:
        _push(s, D_BUILD, w, SRC_CARPENTER, 0)
    elif effect == E_BUILD_STONE:
        _push(s, D_BUILD, w, SRC_MASON, 0)
    elif effect == E_BUILD_PRESTIGE:
        _push(s, D_BUILD, w, SRC_ARCHITECT, 0)
    elif effect == E_LAWYER:
        _push(s, D_LAWYER, w, SRC_LAWYER_TILE, 0)
    elif effect == E_MARKET:
        _push(s, D_MARKET, w, b, 0)
    elif effect == E_PEDDLER:
        _push(s, D_PEDDLER, w, b, 0)
    elif effect == E_OPTIONS:
        _push(s, D_OPTION, w, b, 0)


@njit(cache=True)
def _send_home(s, k):
    """The worker on space ``k`` goes home; a waiting lawyer swap happens now (8.6)."""
    w = s[ROAD_WORKER + k]
    if w >= 0:
        s[ROAD_WORKER + k] = -1
        s[_pf(w, P_WORKERS_OUT)] -= 1
    lawyer = s[ROAD_LAWYER + k]
    if lawyer >= 0:
        _transform(s, k, lawyer)


@njit(cache=True)
def _legal_produce(s, b, out):
    n = 0
    for r in range(NUM_RESOURCES):
        for j in range(B_NUM_PRODUCE[b]):
            if B_PRODUCE[b, j, r] > 0:
                out[n] = ACT_TAKE + r
                n += 1
    return n


@njit(cache=True)
def _apply_produce(s, p, b, a):
    _pop(s)
    r = a - ACT_TAKE
    for j in range(B_NUM_PRODUCE[b]):
        if B_PRODUCE[b, j, r] > 0:
            _gain(s, p, b, j)
            return


@njit(cache=True)
def _legal_market(s, p, out):
    out[0] = ACT_DECLINE
    return 1 + _legal_kinds(s, p, (1 << NUM_RESOURCES) - 1, True, out[1:], ACT_PAY)


@njit(cache=True)
def _legal_peddler(s, p, b, bought, out):
    out[0] = ACT_DECLINE
    if bought >= B_PEDDLER_MAX[b] or _money(s, p) < B_PEDDLER_PRICE[b]:
        return 1
    return 1 + _legal_kinds(s, p, NON_GOLD_MASK, False, out[1:], ACT_TAKE)


@njit(cache=True)
def _apply_peddler(s, p, b, a):
    o = _top(s)
    if a == ACT_DECLINE:
        _pop(s)
        return
    _add_money(s, p, -B_PEDDLER_PRICE[b])
    _add_cube(s, p, a - ACT_TAKE, 1)
    s[o + 3] += 1
    if s[o + 3] >= B_PEDDLER_MAX[b]:
        _pop(s)


@njit(cache=True)
def _can_option(s, p, b, j):
    if _money(s, p) < B_OPTIONS[b, j, 0]:
        return False
    kind = B_OPTIONS[b, j, 1]
    count = B_OPTIONS[b, j, 2]
    if kind == ANY_NON_GOLD:
        return _non_gold_cubes(s, p) >= count
    if kind >= 0:
        return _cube(s, p, kind) >= count
    return True


@njit(cache=True)
def _legal_option(s, p, b, out):
    out[0] = ACT_DECLINE
    n = 1
    for j in range(2):
        if _can_option(s, p, b, j):
            out[n] = ACT_OPTION + j
            n += 1
    return n


@njit(cache=True)
def _apply_option(s, p, b, a):
    _pop(s)
    if a == ACT_DECLINE:
        return
    j = a - ACT_OPTION
    _add_money(s, p, -B_OPTIONS[b, j, 0])
    kind = B_OPTIONS[b, j, 1]
    _add_prestige(s, p, B_OPTIONS[b, j, 3])
    _add_cube(s, p, GOLD, B_OPTIONS[b, j, 4])
    if kind == ANY_NON_GOLD:
        _push(s, D_ALCHEMIST_PAY, p, B_OPTIONS[b, j, 2], 0)
    elif kind >= 0:
        _add_cube(s, p, kind, -B_OPTIONS[b, j, 2])


# ---------------------------------------------------------------------------------------
# Phase 6: the castle.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _legal_castle(s, p, out):
    out[0] = ACT_DECLINE
    n = 1
    if _castle_target(s) < 0 or not _has_house(s, p) or _cube(s, p, FOOD) < 1:
        return n
    for j in range(NUM_BATCH_KINDS):
        if _cube(s, p, BATCH_A[j]) > 0 and _cube(s, p, BATCH_B[j]) > 0:
            out[n] = ACT_BATCH + j
            n += 1
    return n


@njit(cache=True)
def _apply_castle(s, p, a):
    o = _top(s)
    if a == ACT_DECLINE:
        given = s[o + 2]
        _pop(s)
        if given == 0:
            # Exemption (8.27): the towers are under construction, full, and p holds
            # a valid batch. Otherwise a player who gave nothing loses 2 prestige.
            towers_full = _section_fill(s, TOWERS) >= SECTION_SIZE[TOWERS]
            exempt = s[SCORED + DUNGEON] == 1 and s[SCORED + WALLS] == 1 and towers_full
            if not (exempt and _holds_batch(s, p)):
                _add_prestige(s, p, -CASTLE_PENALTY)
        return
    j = a - ACT_BATCH
    _add_cube(s, p, FOOD, -1)
    _add_cube(s, p, BATCH_A[j], -1)
    _add_cube(s, p, BATCH_B[j], -1)
    sec = _castle_target(s)
    s[CASTLE_HOUSES + sec * MAX_PLAYERS + p] += 1
    s[_pf(p, P_HOUSES)] += 1
    _add_prestige(s, p, SECTION_PRESTIGE[sec])
    s[_pf(p, P_BATCHES)] += 1
    s[o + 2] += 1


# ---------------------------------------------------------------------------------------
# The phase driver: runs when no decision is pending.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def _income(s):
    """Phase 1: 2 deniers + 1 per residence + library 1 + hotel 2 (B_INCOME)."""
    n = s[NUM_PLAYERS]
    if s[TURN] > 1 and n == 2:
        first = s[TURN_ORDER]  # 2 players: the order flips every turn (1.4)
        s[TURN_ORDER] = s[TURN_ORDER + 1]
        s[TURN_ORDER + 1] = first
    for p in range(n):
        _add_money(s, p, INCOME_BASE)
        s[_pf(p, P_PASSED)] = 0
        s[_pf(p, P_BATCHES)] = 0
        s[PASS_ORDER + p] = -1
    for k in range(1, ROAD_LEN + 1):
        owner = s[ROAD_OWNER + k]
        if owner >= 0:
            _add_money(s, owner, B_INCOME[s[ROAD_TILE + k]])
    s[NUM_PASSED] = 0
    _enter_phase(s, PH_PLACEMENT)


@njit(cache=True)
def _drive_special(s):
    """Phase 3: the special buildings in order (gate ... inn)."""
    step = np.int64(s[CURSOR])
    if step >= NUM_SPECIAL_STEPS:
        _enter_phase(s, PH_PROVOST)
        return
    s[CURSOR] = step + 1
    if step == SP_GATE:
        p = s[SPECIAL_WORKER + SP_GATE]
        if p >= 0:
            _push(s, D_GATE, p, 0, 0)
    elif step <= SP_JOUST:
        p = s[SPECIAL_WORKER + step]
        if p < 0:
            return
        s[SPECIAL_WORKER + step] = -1
        s[_pf(p, P_WORKERS_OUT)] -= 1
        if step == SP_TRADING_POST:
            _add_money(s, p, TRADING_POST_DENIERS)
        elif step == SP_GUILD:
            _push(s, D_GUILD, p, 0, 0)
        else:
            _push(s, D_JOUST, p, 0, 0)
    elif step == SP_STABLES:
        n = s[NUM_PLAYERS]
        old = np.empty(MAX_PLAYERS, np.int64)
        for i in range(MAX_PLAYERS):
            old[i] = s[TURN_ORDER + i]
        pos = 0
        for i in range(NUM_STABLES_SPOTS):
            p = s[STABLES + i]
            if p >= 0:
                s[TURN_ORDER + pos] = p
                pos += 1
        for i in range(n):
            p = old[i]
            in_stables = False
            for j in range(NUM_STABLES_SPOTS):
                if s[STABLES + j] == p:
                    in_stables = True
            if not in_stables:
                s[TURN_ORDER + pos] = p
                pos += 1
        for i in range(NUM_STABLES_SPOTS):
            p = s[STABLES + i]
            if p >= 0:
                s[_pf(p, P_WORKERS_OUT)] -= 1
                s[STABLES + i] = -1
    else:
        entering = s[INN_LEFT]
        resident = s[INN_RIGHT]
        if entering >= 0:
            if resident >= 0:
                s[_pf(resident, P_WORKERS_OUT)] -= 1  # evicted, even one's own
            s[INN_RIGHT] = entering
            s[INN_LEFT] = -1
        elif resident >= 0:
            _push(s, D_INN, resident, 0, 0)


@njit(cache=True)
def _drive_activation(s):
    """Phase 5: road spaces 1..provost in order; workers beyond it go home unused."""
    provost = s[PROVOST]
    k = np.int64(s[CURSOR])
    if k == 0:
        k = 1
    while k <= ROAD_LEN:
        w = s[ROAD_WORKER + k]
        if w >= 0:
            s[CURSOR] = k + 1
            if k > provost:
                _send_home(s, k)
                k += 1
                continue
            _push(s, PROC_FINISH_SPACE, w, k, 0)
            _activate(s, k, w)
            return
        k += 1
    _enter_phase(s, PH_CASTLE)


@njit(cache=True)
def _drive_castle(s):
    """Phase 6: castle workers in spot order, then the best builder, then home."""
    i = np.int64(s[CURSOR])
    if i < NUM_CASTLE_SPOTS and s[CASTLE_SPOTS + i] >= 0:
        s[CURSOR] = i + 1
        _push(s, D_CASTLE, s[CASTLE_SPOTS + i], 0, 0)
        return
    if i <= NUM_CASTLE_SPOTS:
        s[CURSOR] = NUM_CASTLE_SPOTS + 1
        best = -1
        most = 0
        for j in range(NUM_CASTLE_SPOTS):  # ties: the lowest castle spot wins
            p = s[CASTLE_SPOTS + j]
            if p >= 0 and s[_pf(p, P_BATCHES)] > most:
                most = s[_pf(p, P_BATCHES)]
                best = p
        if best >= 0:
            _grant_favors(s, best, 1)
        return
    for j in range(NUM_CASTLE_SPOTS):
        p = s[CASTLE_SPOTS + j]
        if p >= 0:
            s[_pf(p, P_WORKERS_OUT)] -= 1
            s[CASTLE_SPOTS + j] = -1
    _enter_phase(s, PH_END_OF_TURN)


@njit(cache=True)
def _final_scoring(s):
    """4.8: 3 per gold, 1 per 3 other cubes, 1 per 4 deniers."""
    for p in range(s[NUM_PLAYERS]):
        bonus = FINAL_PRESTIGE_PER_GOLD * _cube(s, p, GOLD)
        bonus += _non_gold_cubes(s, p) // FINAL_CUBES_PER_PRESTIGE
        bonus += _money(s, p) // FINAL_DENIERS_PER_PRESTIGE
        _add_prestige(s, p, bonus)


@njit(cache=True)
def _drive_end_of_turn(s):
    """Phase 7: bailiff, provost, section scorings, end of game or next turn."""
    step = np.int64(s[CURSOR])
    s[CURSOR] = step + 1
    if step == 0:
        if s[PROVOST] > s[BAILIFF]:
            s[BAILIFF] += 2
        else:
            s[BAILIFF] += 1
        s[PROVOST] = s[BAILIFF]
    elif step <= NUM_SECTIONS:
        sec = step - 1
        if s[SCORED + sec] == 0 and (
            s[BAILIFF] >= SECTION_TRIGGER[sec] or _section_fill(s, sec) >= SECTION_SIZE[sec]
        ):
            _push(s, PROC_SECTION_DONE, -1, sec, 0)
            _push(s, PROC_SCORE_PLAYER, -1, sec, 0)
    elif s[SCORED + TOWERS] == 1:
        _final_scoring(s)
        s[PHASE] = PH_GAME_OVER
        s[CURSOR] = 0
    else:
        if s[TURN] >= TURN_CAP:
            raise RuntimeError("caylus engine: turn cap exceeded (rules 8.22)")
        s[TURN] += 1
        _enter_phase(s, PH_INCOME)


@njit(cache=True)
def _drive(s):
    ph = s[PHASE]
    if ph == PH_INCOME:
        _income(s)
    elif ph == PH_PLACEMENT:
        n = np.int64(s[NUM_PLAYERS])
        if s[NUM_PASSED] >= n:
            _enter_phase(s, PH_SPECIAL)
            return
        c = np.int64(s[CURSOR])
        while s[_pf(s[TURN_ORDER + c], P_PASSED)] == 1:
            c = (c + 1) % n
        s[CURSOR] = c
        _push(s, D_PLACE, s[TURN_ORDER + c], 0, 0)
    elif ph == PH_SPECIAL:
        _drive_special(s)
    elif ph == PH_PROVOST:
        i = np.int64(s[CURSOR])
        if i >= s[NUM_PLAYERS]:
            _enter_phase(s, PH_ACTIVATION)
            return
        s[CURSOR] = i + 1
        _push(s, D_PROVOST, s[PASS_ORDER + i], 0, 0)
    elif ph == PH_ACTIVATION:
        _drive_activation(s)
    elif ph == PH_CASTLE:
        _drive_castle(s)
    elif ph == PH_END_OF_TURN:
        _drive_end_of_turn(s)


@njit(cache=True)
def _run_procedure(s, kind, a, b):
    _pop(s)
    if kind == PROC_FINISH_SPACE:
        _send_home(s, a)
    elif kind == PROC_SCORE_PLAYER:
        # One player at a time, in turn order; each resolves all favors first (8.8).
        n = s[NUM_PLAYERS]
        if b >= n:
            return
        _push(s, PROC_SCORE_PLAYER, -1, a, b + 1)
        p = s[TURN_ORDER + b]
        houses = np.int64(s[CASTLE_HOUSES + a * MAX_PLAYERS + p])
        if houses == 0:
            _add_prestige(s, p, -SECTION_EMPTY_PENALTY[a])
        else:
            _grant_favors(s, p, SECTION_FAVORS[a, min(houses, SECTION_FAVORS_CAP)])
    else:
        s[SCORED + a] = 1


# ---------------------------------------------------------------------------------------
# Decisions: legal actions and their application.
# ---------------------------------------------------------------------------------------
@njit(cache=True)
def legal_actions(s, out):
    """Write the sorted legal action ids of the pending decision into ``out``.

    Returns:
        How many ids were written (0 when the game is over).
    """
    if s[STACK_SIZE] == 0 or s[PHASE] == PH_GAME_OVER:
        return 0
    o = _top(s)
    kind = s[o]
    p = s[o + 1]
    a = s[o + 2]
    b = s[o + 3]
    if kind == D_PLACE:
        return _legal_place(s, p, out)
    if kind == D_GATE:
        return _legal_gate(s, p, out)
    if kind == D_GUILD or kind == D_PROVOST:
        out[0] = ACT_DECLINE if kind == D_GUILD else ACT_PASS
        n = 1
        base = ACT_GUILD if kind == D_GUILD else ACT_PROVOST
        money = _money(s, p)
        for i in range(NUM_PROVOST_MOVES):
            d = DELTAS[i]
            dest = s[PROVOST] + d
            if 1 <= dest <= ROAD_LEN and (kind == D_GUILD or money >= abs(d)):
                out[n] = base + i
                n += 1
        return n
    if kind == D_JOUST:
        out[0] = ACT_DECLINE
        if _money(s, p) >= JOUST_COST_DENIERS and _cube(s, p, CLOTH) >= 1:
            out[1] = ACT_JOUST
            return 2
        return 1
    if kind == D_INN:
        out[0] = ACT_INN_STAY
        out[1] = ACT_INN_LEAVE
        return 2
    if kind == D_PRODUCE:
        return _legal_produce(s, a, out)
    if kind == D_OWNER_BONUS:
        return _legal_kinds(s, p, B_OWNER_BONUS[a], False, out, ACT_TAKE)
    if kind == D_MARKET:
        return _legal_market(s, p, out)
    if kind == D_PEDDLER:
        return _legal_peddler(s, p, a, b, out)
    if kind == D_BUILD:
        return _legal_build(s, p, a, out)
    if kind == D_PAY_ANY:
        return _legal_pay_any(s, p, a, b, out)
    if kind == D_RESIDENCE:
        return _legal_residence(s, p, out)
    if kind == D_LAWYER:
        return _legal_lawyer(s, p, a, out)
    if kind == D_OPTION:
        return _legal_option(s, p, a, out)
    if kind == D_ALCHEMIST_PAY:
        return _legal_kinds(s, p, NON_GOLD_MASK, True, out, ACT_PAY)
    if kind == D_CASTLE:
        return _legal_castle(s, p, out)
    if kind == D_FAVOR_ROW:
        return _legal_favor_row(s, p, out)
    if kind == D_FAVOR_COLUMN:
        return _legal_favor_column(s, p, a, out)
    if kind == D_FAVOR_TAKE:
        return _legal_kinds(s, p, a, False, out, ACT_TAKE)
    if kind == D_FAVOR_GIVE:
        return _legal_kinds(s, p, (1 << NUM_RESOURCES) - 1, True, out, ACT_PAY)
    return 0


@njit(cache=True)
def _apply(s, action):
    """Apply a legal action to the pending decision (no legality check)."""
    o = _top(s)
    kind = s[o]
    p = s[o + 1]
    a = s[o + 2]
    b = s[o + 3]
    if kind == D_PLACE:
        _pop(s)
        _apply_place(s, p, action)
    elif kind == D_GATE:
        _pop(s)
        _apply_gate(s, p, action)
    elif kind == D_GUILD:
        _pop(s)
        if action != ACT_DECLINE:
            s[PROVOST] += DELTAS[action - ACT_GUILD]
    elif kind == D_PROVOST:
        _pop(s)
        if action != ACT_PASS:
            d = DELTAS[action - ACT_PROVOST]
            s[PROVOST] += d
            _add_money(s, p, -abs(d))
    elif kind == D_JOUST:
        _pop(s)
        if action == ACT_JOUST:
            _add_money(s, p, -JOUST_COST_DENIERS)
            _add_cube(s, p, CLOTH, -1)
            _grant_favors(s, p, 1)
    elif kind == D_INN:
        _pop(s)
        if action == ACT_INN_LEAVE:
            s[INN_RIGHT] = -1
            s[_pf(p, P_WORKERS_OUT)] -= 1
    elif kind == D_PRODUCE:
        _apply_produce(s, p, a, action)
    elif kind == D_OWNER_BONUS:
        _pop(s)
        _add_cube(s, p, action - ACT_TAKE, 1)
    elif kind == D_MARKET:
        _pop(s)
        if action != ACT_DECLINE:
            _add_cube(s, p, action - ACT_PAY, -1)
            _add_money(s, p, B_MARKET_PRICE[a])
    elif kind == D_PEDDLER:
        _apply_peddler(s, p, a, action)
    elif kind == D_BUILD:
        _apply_build(s, p, a, action)
    elif kind == D_PAY_ANY:
        _apply_pay_any(s, p, a, b, action)
    elif kind == D_RESIDENCE:
        _apply_residence(s, p, a, b, action)
    elif kind == D_LAWYER:
        _apply_lawyer(s, p, a, action)
    elif kind == D_OPTION:
        _apply_option(s, p, a, action)
    elif kind == D_ALCHEMIST_PAY:
        _add_cube(s, p, action - ACT_PAY, -1)
        if a > 1:
            s[o + 2] = a - 1
        else:
            _pop(s)
    elif kind == D_CASTLE:
        _apply_castle(s, p, action)
    elif kind == D_FAVOR_ROW:
        _apply_favor_row(s, p, action)
    elif kind == D_FAVOR_COLUMN:
        _apply_favor_column(s, p, a, action)
    elif kind == D_FAVOR_TAKE:
        _add_cube(s, p, action - ACT_TAKE, 1)
        if b > 1:
            s[o + 3] = b - 1
        else:
            _pop(s)
    elif kind == D_FAVOR_GIVE:
        _pop(s)
        _add_cube(s, p, action - ACT_PAY, -1)


@njit(cache=True)
def advance(s, out):
    """Run everything that needs no choice; stop at a real decision or the end.

    A decision with exactly one legal action is applied on the spot, and a favor
    with no free row is lost (5.3). ``out`` receives the legal actions of the
    decision it stops at.

    Returns:
        The number of legal actions written to ``out`` (0 once the game is over).
    """
    while True:
        if s[PHASE] == PH_GAME_OVER:
            return 0
        if s[STACK_SIZE] == 0:
            _drive(s)
            continue
        o = _top(s)
        kind = s[o]
        if kind >= PROC_BASE:
            _run_procedure(s, kind, s[o + 2], s[o + 3])
            continue
        n = legal_actions(s, out)
        if n == 0:
            if kind != D_FAVOR_ROW:
                raise RuntimeError("caylus engine: a decision has no legal action")
            _pop(s)
        elif n == 1:
            _apply(s, out[0])
        else:
            return n


@njit(cache=True)
def step(s, action, out):
    """Apply ``action`` if it is legal, then advance to the next decision.

    Args:
        s: the state array (modified in place only when the action is legal).
        action: an action id.
        out: an int buffer of at least ``NUM_ACTIONS`` entries; receives the
            legal actions of the next decision.

    Returns:
        The number of legal actions of the next decision (0 at the end), or
        ``ILLEGAL`` (-1) if ``action`` was not legal; then ``s`` is unchanged.
    """
    n = legal_actions(s, out)
    found = False
    for i in range(n):
        if out[i] == action:
            found = True
            break
    if not found:
        return ILLEGAL
    _apply(s, action)
    return advance(s, out)


@njit(cache=True)
def new_state(num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed):
    """Allocate a state, set it up from the options and seed, and advance to turn 1's first
    decision."""
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    init_game(s, num_players, simplified_favors, lawyer_prestige, jeweller, house_cap, seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    advance(s, out)
    return s


@njit(cache=True)
def current_player(s):
    """The player who must act, or -1 once the game is over."""
    if s[PHASE] == PH_GAME_OVER or s[STACK_SIZE] == 0:
        return -1
    return np.int64(s[_top(s) + 1])


@njit(cache=True)
def legal_mask(s, mask):
    """Fill an int8 mask of ``NUM_ACTIONS`` entries; returns the number of legal actions."""
    out = np.empty(NUM_ACTIONS, np.int64)
    mask[:] = 0
    n = legal_actions(s, out)
    for i in range(n):
        mask[out[i]] = 1
    return n


@njit(cache=True)
def random_playout(s, out, max_decisions):
    """Play uniformly random legal actions until the end (numba's own RNG).

    Returns:
        The number of decisions taken.
    """
    n = advance(s, out)
    count = 0
    while n > 0 and count < max_decisions:
        a = out[np.random.randint(n)]
        _apply(s, a)
        n = advance(s, out)
        count += 1
    return count


@njit(cache=True)
def seed_playouts(seed):
    """Seed numba's generator used by ``random_playout`` (separate from NumPy's)."""
    np.random.seed(seed)


@njit(cache=True)
def play_random_games(num_games, num_players, seed):
    """Play whole random games in compiled code (benchmark and smoke test).

    Returns:
        The total number of decisions taken over all games.
    """
    np.random.seed(seed)
    out = np.empty(NUM_ACTIONS, np.int64)
    s = np.zeros(STATE_SIZE, STATE_DTYPE)
    total = 0
    for g in range(num_games):
        init_game(s, num_players, 0, 4, 0, 0, seed * 1000003 + g)
        total += random_playout(s, out, 1 << 30)
    return total
