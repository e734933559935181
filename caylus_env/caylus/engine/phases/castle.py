"""Phase 6: building the castle.

Each castle worker, in arrival order, gives batches (1 food + 2 other different
cubes) for houses in the section under construction; the player who gave most
(ties: the earlier worker) gains a favor; then the workers go home.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import (
    ACT_BATCH,
    ACT_DECLINE,
    BATCH_A,
    BATCH_B,
    NUM_BATCH_KINDS,
)
from caylus_env.caylus.engine.board import SECTION_PRESTIGE, SECTION_SIZE
from caylus_env.caylus.engine.constants import (
    BEST_BUILDER_FAVORS,
    CASTLE_PENALTY,
    NUM_CASTLE_SPOTS,
    DecisionKind,
    Phase,
    Resource,
    Section,
)
from caylus_env.caylus.engine.decisions import pop, push, set_top_arg
from caylus_env.caylus.engine.phases.common import enter_phase, grant_favors
from caylus_env.caylus.engine.state import (
    add_cube,
    add_houses,
    add_prestige,
    add_section_houses,
    castle_target,
    cube,
    has_house,
    holds_batch,
    player_field,
    section_fill,
)


@njit(cache=True)
def legal_castle(s, p, out):
    """Stop, or any batch composition ``p`` holds while the castle has room (phase 6)."""
    out[0] = ACT_DECLINE
    n = 1
    if castle_target(s) < 0 or not has_house(s, p) or cube(s, p, Resource.FOOD) < 1:
        return n
    for j in range(NUM_BATCH_KINDS):
        if cube(s, p, BATCH_A[j]) > 0 and cube(s, p, BATCH_B[j]) > 0:
            out[n] = ACT_BATCH + j
            n += 1
    return n


@njit(cache=True)
def apply_castle(s, p, given, a):
    """Give one batch (a house in the section under construction), or stop (phase 6).

    A player who stops without giving a batch loses 2 prestige, except as 8.27 says.
    """
    if a == ACT_DECLINE:
        pop(s)
        if given == 0:
            # Exemption (8.27): the towers are under construction, full, and p holds
            # a valid batch. Otherwise a player who gave nothing loses 2 prestige.
            towers_full = section_fill(s, Section.TOWERS) >= SECTION_SIZE[Section.TOWERS]
            exempt = (
                s[L.SCORED + Section.DUNGEON] == 1
                and s[L.SCORED + Section.WALLS] == 1
                and towers_full
            )
            if not (exempt and holds_batch(s, p)):
                add_prestige(s, p, -CASTLE_PENALTY)
        return
    j = a - ACT_BATCH
    add_cube(s, p, Resource.FOOD, -1)
    add_cube(s, p, BATCH_A[j], -1)
    add_cube(s, p, BATCH_B[j], -1)
    sec = castle_target(s)
    add_section_houses(s, sec, p, 1)
    add_houses(s, p, 1)
    add_prestige(s, p, SECTION_PRESTIGE[sec])
    s[player_field(p, L.P_BATCHES)] += 1
    set_top_arg(s, 0, given + 1)


@njit(cache=True)
def drive_castle(s):
    """Phase 6: castle workers in spot order, then the best builder, then home."""
    i = np.int64(s[L.CURSOR])
    if i < NUM_CASTLE_SPOTS and s[L.CASTLE_SPOTS + i] >= 0:
        s[L.CURSOR] = i + 1
        push(s, DecisionKind.CASTLE, s[L.CASTLE_SPOTS + i], 0, 0)
        return
    if i <= NUM_CASTLE_SPOTS:
        s[L.CURSOR] = NUM_CASTLE_SPOTS + 1
        best = -1
        most = 0
        for j in range(NUM_CASTLE_SPOTS):  # ties: the lowest castle spot wins
            p = s[L.CASTLE_SPOTS + j]
            if p >= 0 and s[player_field(p, L.P_BATCHES)] > most:
                most = s[player_field(p, L.P_BATCHES)]
                best = p
        if best >= 0:
            grant_favors(s, best, BEST_BUILDER_FAVORS)
        return
    for j in range(NUM_CASTLE_SPOTS):
        p = s[L.CASTLE_SPOTS + j]
        if p >= 0:
            s[player_field(p, L.P_WORKERS_OUT)] -= 1
            s[L.CASTLE_SPOTS + j] = -1
    enter_phase(s, Phase.END_OF_TURN)
