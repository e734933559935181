"""Compiled consistency checks of a state, for tests and debugging.

``check_invariants(s)`` returns 0 when the state is consistent, or the code of
the first broken invariant (``INVARIANT_MESSAGES[code]`` explains it). It checks
what must hold between any two decisions of a legal game: bounds of every
counter, the worker and house bookkeeping against the board, the castle
capacity and the favor markers against the open columns (rules 2, 4, 5).
``accepted_actions`` tries every action id on copies of the state, to compare
the legal-action mask with what ``step`` really accepts.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

from caylus_env.engine.actions import NUM_ACTIONS
from caylus_env.engine.board import (
    BAILIFF_START,
    COLUMNS_OPEN,
    NUM_SINGLE_SPECIALS,
    ROAD_LEN,
    SECTION_SIZE,
)
from caylus_env.engine.buildings import B_KIND, B_TAKES_WORKER, BuildingKind
from caylus_env.engine.constants import (
    MAX_PLAYERS,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    TURN_CAP,
)
from caylus_env.engine.kernels import ILLEGAL, step
from caylus_env.engine.layout import (
    BAILIFF,
    CASTLE_HOUSES,
    CASTLE_SPOTS,
    INN_LEFT,
    INN_RIGHT,
    NUM_PLAYERS,
    P_CUBES,
    P_FAVOR,
    P_HOUSES,
    P_MONEY,
    P_PRESTIGE,
    P_WORKERS_OUT,
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
    STATE_SIZE,
    STOCK,
    TURN,
)


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
)
assert len(INVARIANT_MESSAGES) == len(Broken)


@njit(cache=True)
def check_invariants(s):
    """0 if ``s`` is consistent, else the index of the first broken invariant."""
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
    return Broken.OK


@njit(cache=True)
def accepted_actions(s, accepted):
    """Set ``accepted[a] = 1`` for every action id that ``step`` accepts on a copy of ``s``.

    Returns:
        -1 if a rejected action changed its copy (a rejected action must change
        nothing), else the number of accepted actions.
    """
    out = np.empty(NUM_ACTIONS, np.int64)
    copy = np.empty(STATE_SIZE, s.dtype)
    count = 0
    for a in range(NUM_ACTIONS):
        copy[:] = s
        if step(copy, a, out) == ILLEGAL:
            accepted[a] = 0
            for i in range(STATE_SIZE):
                if copy[i] != s[i]:
                    return -1
        else:
            accepted[a] = 1
            count += 1
    return count
