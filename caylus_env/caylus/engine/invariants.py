"""Compiled consistency checks of a state, for tests and debugging.

``check_invariants(s)`` returns 0 when the state is consistent, or the code of
the first broken invariant (``INVARIANT_MESSAGES[code]`` explains it). It checks
what must hold between any two decisions of a legal game: bounds of every
counter, the worker and house bookkeeping against the board, the castle
capacity and the favor markers against the open columns (rules 2, 4, 5), the seats
every field names against the table, the turn and passing orders, the tiles against
the stock (rules 3.2: a tile is either in the stock or on the road) and the shape of
the pending-decision stack against ``decisions.SCHEMA``.

The checker is safe on any array of ``STATE_SIZE`` values: the range checks (seats,
tiles, the clock, the stack) come first, so no later check indexes with a bad value.
``caylus_env.caylus.engine.validate`` runs it on every state loaded from outside.
``accepted_actions`` tries every action id on copies of the state, to compare
the legal-action mask with what ``step`` really accepts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from caylus_env.caylus.engine.board import (
    BAILIFF_START,
    COLUMNS_OPEN,
    NUM_SINGLE_SPECIALS,
    ROAD_LEN,
    SECTION_SIZE,
)
from caylus_env.caylus.engine.buildings import (
    B_COPIES,
    B_KIND,
    B_TAKES_WORKER,
    BuildingId,
    BuildingKind,
)
from caylus_env.caylus.engine.constants import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_ROWS,
    NUM_PHASES,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    TURN_CAP,
    Phase,
)
from caylus_env.caylus.engine.decisions import SCHEMA
from caylus_env.caylus.engine.layout import (
    BAILIFF,
    CASTLE_HOUSES,
    CASTLE_SPOTS,
    CURSOR,
    INN_LEFT,
    INN_RIGHT,
    NUM_PASSED,
    NUM_PLAYERS,
    OPT_JEWELLER,
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
    STOCK,
    TURN,
    TURN_ORDER,
)
from caylus_env.core.loop import E_ARG_A, E_KIND, E_PLAYER


class Broken(IntEnum):
    """Codes of ``check_invariants``: 0 is a consistent state, each other one names the first
    invariant found broken (``INVARIANT_MESSAGES[code]`` says it in words)."""

    OK = 0
    NEGATIVE_MONEY = 1
    NEGATIVE_CUBES = 2
    NEGATIVE_PRESTIGE = 3
    WORKERS_OUT_MISMATCH = 4
    TOO_MANY_WORKERS = 5
    DOUBLE_SPOT = 6
    PROVOST_OFF_ROAD = 7
    BAILIFF_OFF_ROAD = 8
    CASTLE_OVERFULL = 9
    FAVOR_BEYOND_OPEN_COLUMNS = 10
    HOUSES_MISMATCH = 11
    PIECE_ON_EMPTY_SPACE = 12
    SECTION_SCORED_OUT_OF_ORDER = 13
    TURN_BEYOND_CAP = 14
    NEGATIVE_STOCK = 15
    LAWYER_WITHOUT_WORKER = 16
    WORKER_ON_BUILDING_WITHOUT_EFFECT = 17
    SEAT_OUT_OF_RANGE = 18
    TILE_OUT_OF_RANGE = 19
    CLOCK_OUT_OF_RANGE = 20
    STACK_MALFORMED = 21
    TURN_ORDER_NOT_A_PERMUTATION = 22
    PASSED_MISMATCH = 23
    TILES_NOT_CONSERVED = 24
    NEGATIVE_COUNT = 25


INVARIANT_MESSAGES = (
    "ok",
    "negative money",
    "negative cube count",
    "negative prestige",
    "workers_out differs from the workers counted on the board",
    "more workers out than a player has",
    "a player holds two stable spots or two castle spots",
    "provost outside road spaces 1-28",
    "bailiff behind its start or beyond road space 28",
    "a castle section holds more houses than its spaces",
    "a favor marker beyond the open columns",
    "houses differ from buildings + castle houses + paid lawyer residences",
    "a worker or owner on an empty road space",
    "a section scored out of order",
    "turn beyond the defensive cap",
    "negative stock",
    "a pending lawyer swap on a space without a worker",
    "a worker on a building that takes none (residence, prestige)",
    "a field names a seat that is not at the table (or the player count is not 2-5)",
    "a road space holds an unknown building id",
    "turn, phase or cursor outside its range",
    "the pending-decision stack has a bad size, kind, player or argument",
    "the turn order is not a permutation of the seats",
    "passed flags differ from the passing order",
    "a tile is neither in the stock nor on the road, or is in both",
    "a negative count (castle houses, workers out, houses, batches) or unknown favor rows used",
)
assert len(INVARIANT_MESSAGES) == len(Broken)


#: The highest cursor any phase uses (phase 5: the road space after the last one).
MAX_CURSOR = ROAD_LEN + 1
NUM_ENTRY_KINDS = max(int(e.kind) for e in SCHEMA) + 1


def _entry_tables() -> tuple[np.ndarray, ...]:
    """``decisions.SCHEMA`` as arrays the compiled checker reads: which kinds exist, which are
    decisions, how many arguments each has and each argument's inclusive domain."""
    known = np.zeros(NUM_ENTRY_KINDS, np.int64)
    decision = np.zeros(NUM_ENTRY_KINDS, np.int64)
    num_args = np.zeros(NUM_ENTRY_KINDS, np.int64)
    low = np.zeros((NUM_ENTRY_KINDS, STACK_ENTRY - E_ARG_A), np.int64)
    high = np.zeros((NUM_ENTRY_KINDS, STACK_ENTRY - E_ARG_A), np.int64)
    for e in SCHEMA:
        k = int(e.kind)
        known[k] = 1
        decision[k] = int(e.is_decision)
        num_args[k] = len(e.args)
        for j, arg in enumerate(e.args):
            low[k, j] = arg.low
            # The scoring procedure waits with index num_players once every player is scored
            # (phases/end_of_turn pushes i + 1 before granting player i's favors).
            high[k, j] = arg.high
    for a in (known, decision, num_args, low, high):
        a.setflags(write=False)
    return known, decision, num_args, low, high


ENTRY_KNOWN, ENTRY_IS_DECISION, ENTRY_NUM_ARGS, ARG_LOW, ARG_HIGH = _entry_tables()
_FINISH_SPACE = next(int(e.kind) for e in SCHEMA if e.name == "finish_space")
#: Tiles of each building that exist in a game (rules 3.2): the stock's start plus the
#: road's. The optional Jeweller (8.1) exists only with its option.
_STOCKED = (
    (int(BuildingKind.WOOD) == B_KIND)
    | (int(BuildingKind.STONE) == B_KIND)
    | (int(BuildingKind.PRESTIGE) == B_KIND)
).astype(np.int64)
_STOCKED.setflags(write=False)


@njit(cache=True)
def _seat_ok(v, n):
    return -1 <= v < n


@njit(cache=True)
def check_structure(s):
    """The range checks ``check_invariants`` runs first: the player count, every seat field,
    every road tile, the clock, the stack and the orders (0 when all are in range)."""
    n = np.int64(s[NUM_PLAYERS])
    if n < MIN_PLAYERS or n > MAX_PLAYERS:
        return Broken.SEAT_OUT_OF_RANGE
    for i in range(NUM_SINGLE_SPECIALS):
        if not _seat_ok(s[SPECIAL_WORKER + i], n):
            return Broken.SEAT_OUT_OF_RANGE
    for i in range(NUM_STABLES_SPOTS):
        if not _seat_ok(s[STABLES + i], n):
            return Broken.SEAT_OUT_OF_RANGE
    for i in range(NUM_CASTLE_SPOTS):
        if not _seat_ok(s[CASTLE_SPOTS + i], n):
            return Broken.SEAT_OUT_OF_RANGE
    if not _seat_ok(s[INN_LEFT], n) or not _seat_ok(s[INN_RIGHT], n):
        return Broken.SEAT_OUT_OF_RANGE
    for k in range(ROAD_LEN + 1):
        for base in (ROAD_OWNER, ROAD_WORKER, ROAD_LAWYER):
            v = s[base + k]
            if not _seat_ok(v, n) or (k == 0 and v != -1):
                return Broken.SEAT_OUT_OF_RANGE
        tile = s[ROAD_TILE + k]
        if tile < -1 or tile >= B_KIND.shape[0] or (k == 0 and tile != -1):
            return Broken.TILE_OUT_OF_RANGE
    for sec in range(NUM_SECTIONS):
        for p in range(MAX_PLAYERS):
            h = s[CASTLE_HOUSES + sec * MAX_PLAYERS + p]
            if h < 0:
                return Broken.NEGATIVE_COUNT
            if p >= n and h != 0:
                return Broken.SEAT_OUT_OF_RANGE
    for p in range(n):
        o = PLAYERS + p * PLAYER_STRIDE
        if s[o + P_WORKERS_OUT] < 0 or s[o + P_HOUSES] < 0 or s[o + P_BATCHES] < 0:
            return Broken.NEGATIVE_COUNT
        if s[o + P_ROWS_USED] < 0 or s[o + P_ROWS_USED] >= 1 << NUM_FAVOR_ROWS:
            return Broken.NEGATIVE_COUNT
    if s[TURN] < 1 or s[PHASE] < Phase.INCOME or s[PHASE] > NUM_PHASES:
        return Broken.CLOCK_OUT_OF_RANGE
    if s[CURSOR] < 0 or s[CURSOR] > MAX_CURSOR:
        return Broken.CLOCK_OUT_OF_RANGE
    # Turn order: a permutation of the seats, -1 padded.
    seen = np.zeros(MAX_PLAYERS, np.int64)
    for i in range(MAX_PLAYERS):
        v = s[TURN_ORDER + i]
        if i >= n:
            if v != -1:
                return Broken.TURN_ORDER_NOT_A_PERMUTATION
        elif v < 0 or v >= n or seen[v] == 1:
            return Broken.TURN_ORDER_NOT_A_PERMUTATION
        else:
            seen[v] = 1
    # Passing order: distinct seats, -1 padded; a seat's passed flag says it is listed.
    k = np.int64(s[NUM_PASSED])
    if k < 0 or k > n:
        return Broken.PASSED_MISMATCH
    listed = np.zeros(MAX_PLAYERS, np.int64)
    for i in range(MAX_PLAYERS):
        v = s[PASS_ORDER + i]
        if i >= k:
            if v != -1:
                return Broken.PASSED_MISMATCH
        elif v < 0 or v >= n or listed[v] == 1:
            return Broken.PASSED_MISMATCH
        else:
            listed[v] = 1
    for p in range(n):
        if s[PLAYERS + p * PLAYER_STRIDE + P_PASSED] != listed[p]:
            return Broken.PASSED_MISMATCH
    # The pending-decision stack: its size, and each entry against the declared schema.
    depth = np.int64(s[STACK_SIZE])
    if depth < 0 or depth > STACK_DEPTH:
        return Broken.STACK_MALFORMED
    for i in range(STACK_DEPTH):
        o = STACK + i * STACK_ENTRY
        if i >= depth:
            for j in range(STACK_ENTRY):
                if s[o + j] != 0:  # ``pop`` clears what it removes
                    return Broken.STACK_MALFORMED
            continue
        kind = s[o + E_KIND]
        if kind < 0 or kind >= NUM_ENTRY_KINDS or ENTRY_KNOWN[kind] == 0:
            return Broken.STACK_MALFORMED
        who = s[o + E_PLAYER]
        if ENTRY_IS_DECISION[kind] == 1 or kind == _FINISH_SPACE:
            if who < 0 or who >= n:
                return Broken.STACK_MALFORMED
        elif who != -1:
            return Broken.STACK_MALFORMED
        for j in range(STACK_ENTRY - E_ARG_A):
            v = s[o + E_ARG_A + j]
            if j < ENTRY_NUM_ARGS[kind]:
                if v < ARG_LOW[kind, j] or v > ARG_HIGH[kind, j]:
                    return Broken.STACK_MALFORMED
            elif v != 0:
                return Broken.STACK_MALFORMED
    return Broken.OK


@njit(cache=True)
def check_tiles(s):
    """Each tile is in the stock or on the road (rules 3.2), never both, never lost: a
    stocked building's stock plus its copies on the road equals its copies in the game;
    nothing else is ever in the stock. (Scenario positions may repeat a neutral building
    on the road, e.g. a sentinel worker's production; the engine runs those the same.)"""
    on_road = np.zeros(B_KIND.shape[0], np.int64)
    for k in range(1, ROAD_LEN + 1):
        if s[ROAD_TILE + k] >= 0:
            on_road[s[ROAD_TILE + k]] += 1
    for b in range(B_KIND.shape[0]):
        if _STOCKED[b] == 1:
            copies = B_COPIES[b]
            if b == BuildingId.JEWELLER:
                copies = 1 if s[OPT_JEWELLER] != 0 else 0
            if s[STOCK + b] >= 0 and s[STOCK + b] + on_road[b] != copies:
                return Broken.TILES_NOT_CONSERVED
        elif s[STOCK + b] != 0:
            return Broken.TILES_NOT_CONSERVED
    return Broken.OK


@njit(cache=True)
def check_invariants(s):
    """0 if ``s`` is consistent, else the index of the first broken invariant."""
    structure = check_structure(s)
    if structure != Broken.OK:
        return structure
    n = s[NUM_PLAYERS]
    workers = np.zeros(MAX_PLAYERS, np.int64)
    houses = np.zeros(MAX_PLAYERS, np.int64)
    for i in range(NUM_SINGLE_SPECIALS):
        if s[SPECIAL_WORKER + i] >= 0:
            workers[s[SPECIAL_WORKER + i]] += 1
    for i in range(NUM_STABLES_SPOTS):
        p = s[STABLES + i]
        if p >= 0:
            workers[p] += 1
            for j in range(i):
                if s[STABLES + j] == p:
                    return Broken.DOUBLE_SPOT
    for i in range(NUM_CASTLE_SPOTS):
        p = s[CASTLE_SPOTS + i]
        if p >= 0:
            workers[p] += 1
            for j in range(i):
                if s[CASTLE_SPOTS + j] == p:
                    return Broken.DOUBLE_SPOT
    if s[INN_LEFT] >= 0:
        workers[s[INN_LEFT]] += 1
    if s[INN_RIGHT] >= 0:
        workers[s[INN_RIGHT]] += 1
    for k in range(1, ROAD_LEN + 1):
        tile = s[ROAD_TILE + k]
        if tile < 0 and (s[ROAD_WORKER + k] >= 0 or s[ROAD_OWNER + k] >= 0):
            return Broken.PIECE_ON_EMPTY_SPACE
        if s[ROAD_WORKER + k] >= 0:
            if B_TAKES_WORKER[tile] == 0:
                return Broken.WORKER_ON_BUILDING_WITHOUT_EFFECT
            workers[s[ROAD_WORKER + k]] += 1
        if s[ROAD_OWNER + k] >= 0:
            houses[s[ROAD_OWNER + k]] += 1
        lawyer = s[ROAD_LAWYER + k]
        if lawyer >= 0:
            if s[ROAD_WORKER + k] < 0:
                return Broken.LAWYER_WITHOUT_WORKER
            if B_KIND[tile] == BuildingKind.NEUTRAL:
                houses[lawyer] += 1
    for sec in range(NUM_SECTIONS):
        fill = 0
        for p in range(MAX_PLAYERS):
            fill += s[CASTLE_HOUSES + sec * MAX_PLAYERS + p]
            houses[p] += s[CASTLE_HOUSES + sec * MAX_PLAYERS + p]
        if fill > SECTION_SIZE[sec]:
            return Broken.CASTLE_OVERFULL
        if sec > 0 and s[SCORED + sec] == 1 and s[SCORED + sec - 1] == 0:
            return Broken.SECTION_SCORED_OUT_OF_ORDER
    scored = np.int64(s[SCORED]) + s[SCORED + 1] + s[SCORED + 2]
    for p in range(n):
        o = PLAYERS + p * PLAYER_STRIDE
        if s[o + P_MONEY] < 0:
            return Broken.NEGATIVE_MONEY
        for r in range(NUM_RESOURCES):
            if s[o + P_CUBES + r] < 0:
                return Broken.NEGATIVE_CUBES
        if s[o + P_PRESTIGE] < 0:
            return Broken.NEGATIVE_PRESTIGE
        if s[o + P_WORKERS_OUT] != workers[p]:
            return Broken.WORKERS_OUT_MISMATCH
        if workers[p] > NUM_WORKERS:
            return Broken.TOO_MANY_WORKERS
        for row in range(NUM_FAVOR_ROWS):
            if s[o + P_FAVOR + row] < 0 or s[o + P_FAVOR + row] > COLUMNS_OPEN[scored]:
                return Broken.FAVOR_BEYOND_OPEN_COLUMNS
        if s[o + P_HOUSES] != houses[p]:
            return Broken.HOUSES_MISMATCH
    if s[PROVOST] < 1 or s[PROVOST] > ROAD_LEN:
        return Broken.PROVOST_OFF_ROAD
    if s[BAILIFF] < BAILIFF_START or s[BAILIFF] > ROAD_LEN:
        return Broken.BAILIFF_OFF_ROAD
    if s[TURN] > TURN_CAP:
        return Broken.TURN_BEYOND_CAP
    for b in range(B_KIND.shape[0]):
        if s[STOCK + b] < 0:
            return Broken.NEGATIVE_STOCK
    return check_tiles(s)
