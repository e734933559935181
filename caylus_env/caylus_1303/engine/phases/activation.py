"""Phase 2, Activation (rules 4.2, D20, D26, D28, D34).

In order: the printed Fairground, Lawyer, Carpenter and Toll; the Guilds Bridge in bridge
order; the Bailiff; then the Road R1..Rp (each building's workers in placing order); workers
past the Provost go to the Camp with no effect. Each worker may use its building's effect once
(``phases.effects``), then goes to the Camp.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import ACT_DECLINE, ACT_PROVOST, PROVOST_DELTAS
from caylus_env.caylus_1303.engine.constants import (
    BAILIFF_STEPS,
    BRIDGE_STEPS,
    BRIDGE_WORKERS_PER_STEP,
    MAX_WORKERS_ON_BUILDING,
    NUM_PRINTED,
    ROAD0,
    ROAD_SPACES,
    Character,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import pop, push
from caylus_env.caylus_1303.engine.phases.effects import _provost_moves
from caylus_env.caylus_1303.engine.state import (
    hand,
    return_workers,
    set_space_worker,
    space_worker,
    take_gain,
    worker_to_camp,
)
from caylus_env.caylus_1303.engine.tiles import SIDE_CONSTRUCTION, T_OWNER_BONUS

STAGE_PRINTED = 0  # cursor: printed space a-d
STAGE_BRIDGE = 1  # cursor: bridge place
STAGE_BAILIFF = 2
STAGE_ROAD = 3  # cursor: Road space k (1..23)


@njit(cache=True)
def _resolve_worker(s, space):
    """One step of a building's workers (D26: in placing order): ask the effect of the
    worker at ``WORKER_INDEX`` (paying the owner bonus first, D19), or, once it was asked,
    send the worker to the Camp. Returns True when the building is done."""
    i = np.int64(s[L.WORKER_INDEX])
    while i < MAX_WORKERS_ON_BUILDING:
        w = space_worker(s, space, i)
        if w < 0:
            i += 1
            continue
        if s[L.ASKED] == 0:
            s[L.ASKED] = 1
            s[L.WORKER_INDEX] = i
            owner = np.int64(s[L.SPACE_OWNER + space])
            if owner >= 0 and owner != w and s[L.SPACE_SIDE + space] == SIDE_CONSTRUCTION:
                take_gain(s, owner, T_OWNER_BONUS[s[L.SPACE_KIND + space]])
            push(s, DecisionKind.EFFECT, w, space)
            return False
        s[L.ASKED] = 0
        set_space_worker(s, space, i, -1)
        worker_to_camp(s, w)
        i += 1
        s[L.WORKER_INDEX] = i
        return False
    s[L.WORKER_INDEX] = 0
    return True


@njit(cache=True)
def _clear_space(s, space):
    """Workers past the Provost go to the Camp with no effect (rules 4.2 step 5)."""
    for i in range(MAX_WORKERS_ON_BUILDING):
        w = space_worker(s, space, i)
        if w >= 0:
            set_space_worker(s, space, i, -1)
            worker_to_camp(s, w)


@njit(cache=True)
def drive_activation(s):
    """Move Activation on by one step (rules 4.2, D34)."""
    st = s[L.STAGE]
    if st == STAGE_PRINTED:
        c = np.int64(s[L.CURSOR])
        if c >= NUM_PRINTED:
            s[L.STAGE] = STAGE_BRIDGE
            s[L.CURSOR] = 0
        elif _resolve_worker(s, c):
            s[L.CURSOR] = c + 1
        return
    if st == STAGE_BRIDGE:
        c = np.int64(s[L.CURSOR])
        if c >= s[L.PASSES]:
            s[L.STAGE] = STAGE_BAILIFF
            s[L.CURSOR] = 0
            return
        s[L.CURSOR] = c + 1
        push(s, DecisionKind.BRIDGE, s[L.BRIDGE + c], 0)
        return
    if st == STAGE_BAILIFF:
        s[L.STAGE] = STAGE_ROAD
        s[L.CURSOR] = 1
        h = np.int64(s[L.CHARACTER_HOLDER + Character.BAILIFF])
        if h >= 0:
            push(s, DecisionKind.BAILIFF, h, 0)
        return
    k = np.int64(s[L.CURSOR])
    if k > ROAD_SPACES:
        s[L.PHASE] = Phase.DELIVERY
        s[L.STAGE] = 0
        s[L.CURSOR] = 0
        return
    if k > s[L.PROVOST]:
        _clear_space(s, ROAD0 + k)
        s[L.CURSOR] = k + 1
    elif _resolve_worker(s, ROAD0 + k):
        s[L.CURSOR] = k + 1


@njit(cache=True)
def legal_bridge(s, p, out):
    """``decline``, or 1-3 steps either way that ``p`` can pay (1 worker each, D20)."""
    out[0] = ACT_DECLINE
    steps = min(BRIDGE_STEPS, hand(s, p) // BRIDGE_WORKERS_PER_STEP)
    return _provost_moves(s, steps, out, 1)


@njit(cache=True)
def apply_bridge(s, p, a):
    pop(s)
    if a != ACT_DECLINE:
        d = PROVOST_DELTAS[a - ACT_PROVOST]
        return_workers(s, p, abs(d) * BRIDGE_WORKERS_PER_STEP)
        s[L.PROVOST] += d


@njit(cache=True)
def legal_bailiff(s, out):
    """``decline``, or 1 free step either way (D28)."""
    out[0] = ACT_DECLINE
    return _provost_moves(s, BAILIFF_STEPS, out, 1)


@njit(cache=True)
def apply_bailiff(s, a):
    pop(s)
    if a != ACT_DECLINE:
        s[L.PROVOST] += PROVOST_DELTAS[a - ACT_PROVOST]
