"""The expansion's building draft before the first round (rules 7.1)."""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.actions import ACT_DRAFT
from caylus_env.puerto_rico.engine.buildings import (
    B_COPIES,
    B_COPIES_2P,
    B_COST,
    B_KIND,
    NUM_VIOLET,
    VIOLET_ARR,
)
from caylus_env.puerto_rico.engine.constants import (
    DRAFT_LARGE_SLOTS,
    DRAFT_PICKS,
    DRAFT_SMALL_SLOTS,
    DecisionKind,
    Phase,
)
from caylus_env.puerto_rico.engine.decisions import pop, push
from caylus_env.puerto_rico.engine.setup import rng_below

LARGE = 2  # BuildingKind.LARGE_VIOLET


@njit(cache=True)
def legal_draft(s, out):
    """Violet kinds not drafted yet whose slot (same cost; large: any of 5) is free."""
    taken = np.zeros(11, np.int64)
    large = 0
    for i in range(NUM_VIOLET):
        b = VIOLET_ARR[i]
        if s[L.BUILDING_SUPPLY + b] > 0:
            if B_KIND[b] == LARGE:
                large += 1
            else:
                taken[B_COST[b]] += 1
    n = 0
    for i in range(NUM_VIOLET):
        b = VIOLET_ARR[i]
        if s[L.BUILDING_SUPPLY + b] > 0:
            continue
        if B_KIND[b] == LARGE:
            room = large < DRAFT_LARGE_SLOTS
        else:
            room = taken[B_COST[b]] < DRAFT_SMALL_SLOTS[B_COST[b]]
        if room:
            out[n] = ACT_DRAFT + i
            n += 1
    return n


@njit(cache=True)
def apply_draft(s, a):
    """The kind goes on the supply board with all its copies (rules 7.1, 1.3)."""
    pop(s)
    b = VIOLET_ARR[a - ACT_DRAFT]
    s[L.BUILDING_SUPPLY + b] = B_COPIES_2P[b] if s[L.NUM_PLAYERS] == 2 else B_COPIES[b]
    s[L.STEP] += 1


@njit(cache=True)
def drive_draft(s):
    """Picks go round the table from the first governor until the 17 slots are filled."""
    k = np.int64(s[L.STEP])
    if k >= DRAFT_PICKS:
        s[L.PHASE] = Phase.ROLE_SELECTION
        s[L.STEP] = 0
        return
    push(s, DecisionKind.DRAFT, (np.int64(s[L.GOVERNOR]) + k) % np.int64(s[L.NUM_PLAYERS]), 0)


@njit(cache=True)
def random_draft(s):
    """The seeded random draft option: every pick uniform among the legal ones."""
    out = np.empty(NUM_VIOLET, np.int64)
    while s[L.STEP] < DRAFT_PICKS:
        n = legal_draft(s, out)
        push(s, DecisionKind.DRAFT, 0, 0)
        apply_draft(s, out[rng_below(s, n)])
    s[L.PHASE] = Phase.ROLE_SELECTION
    s[L.STEP] = 0
