"""The character draft (rules 3.3) and Phase 1, Planning (rules 4.1, D16, D25-D27).

Players place one worker per turn, clockwise from the first player, until all have passed.
A placement costs the placed worker, plus 1 to the Camp once anybody has passed (the
surcharge; not for the Night Worker), plus 1 for the Early Riser's placement (D16, D25); a
player who cannot pay any placement can only pass.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import ACT_DECLINE, ACT_PASS, ACT_PLACE, ACT_SITE
from caylus_env.caylus_1303.engine.constants import (
    EARLY_RISER_EXTRA,
    MAX_PLAYERS,
    MAX_WORKERS_ON_BUILDING,
    NUM_PRINTED,
    OWNER_PRESTIGE,
    PLACED_WORKER,
    ROAD_SPACES,
    STEWARD_PRESTIGE,
    SURCHARGE,
    THIEF_PRESTIGE,
    Character,
    DecisionKind,
    Phase,
)
from caylus_env.caylus_1303.engine.decisions import pop, push
from caylus_env.caylus_1303.engine.phases.effects import apply_board_character
from caylus_env.caylus_1303.engine.state import (
    add_prestige,
    hand,
    pf,
    return_workers,
    set_space_worker,
    space_worker,
)
from caylus_env.caylus_1303.engine.tiles import SIDE_RESIDENCE, T_GROUP, Group

STAGE_EARLY_RISER = 0  # the Early Riser is asked before the first turn (D25)
STAGE_TURNS = 1


# -- the draft (rules 3.3) ---------------------------------------------------------------------
@njit(cache=True)
def drive_draft(s):
    """Ask the next player of the draft: from the last player counter-clockwise, so that the
    first player picks last (rules 3.3); then the first round's Planning starts."""
    n = np.int64(s[L.NUM_PLAYERS])
    if s[L.CURSOR] >= n:
        s[L.CURSOR] = 0
        s[L.TURN] = s[L.FIRST_PLAYER]
        s[L.PHASE] = Phase.PLANNING
        s[L.STAGE] = STAGE_EARLY_RISER
        return
    p = (np.int64(s[L.FIRST_PLAYER]) - 1 - np.int64(s[L.CURSOR]) + 2 * n) % n
    s[L.CURSOR] += 1
    push(s, DecisionKind.DRAFT, p, 0)


@njit(cache=True)
def apply_draft(s, p, a):
    apply_board_character(s, p, a)


# -- placement ---------------------------------------------------------------------------------------
@njit(cache=True)
def placement_cost(s, p, early):
    """Workers a placement of ``p`` costs now (D16): the placed one, the surcharge once
    anybody has passed unless he holds the Night Worker, and 1 more for the Early Riser's."""
    cost = PLACED_WORKER
    if s[L.PASSES] > 0 and s[L.CHARACTER_HOLDER + Character.NIGHT_WORKER] != p:
        cost += SURCHARGE
    if early:
        cost += EARLY_RISER_EXTRA
    return cost


@njit(cache=True)
def takes_worker(s, space):
    """Whether a worker may stand on ``space`` at all (rules 4.1 A): a printed space, or a
    starting, wood or stone building on the Road; never a residence, a monument, an empty
    space or a site building."""
    if space < NUM_PRINTED:
        return True
    t = s[L.SPACE_KIND + space]
    if t < 0 or T_GROUP[t] == Group.MONUMENT:
        return False
    return s[L.SPACE_SIDE + space] != SIDE_RESIDENCE


@njit(cache=True)
def journeyman_ready(s, p):
    """``p`` holds the Journeyman and its tile was not used this round (D24, D26)."""
    return (
        s[L.CHARACTER_HOLDER + Character.JOURNEYMAN] == p
        and s[L.CHARACTER_USED + Character.JOURNEYMAN] == 0
    )


@njit(cache=True)
def on_site(s, p):
    found = False  # a loop, not any(): numba compiles no generator
    for i in range(MAX_PLAYERS):
        found = found or s[L.SITE + i] == p
    return found


@njit(cache=True)
def legal_placements(s, p, early, out, n):
    """Append every placement ``p`` can pay: a free building, a building holding one worker
    of another player (the Journeyman, D26), the Construction Site (one worker per player,
    D17)."""
    if hand(s, p) < placement_cost(s, p, early):
        return n
    jm = journeyman_ready(s, p)
    for sp in range(NUM_PRINTED + ROAD_SPACES):
        if not takes_worker(s, sp):
            continue
        w0 = space_worker(s, sp, 0)
        if w0 < 0 or (jm and w0 != p and space_worker(s, sp, 1) < 0):
            out[n] = ACT_PLACE + sp
            n += 1
    if not on_site(s, p):
        out[n] = ACT_SITE
        n += 1
    return n


@njit(cache=True)
def owner_prestige(s, p, space):
    """Prestige the owner of ``space`` gains when ``p`` places there (rules 4.1, D19, D27):
    1, or 2 with the Steward, and 0 when the placer holds the Thief."""
    owner = s[L.SPACE_OWNER + space]
    if owner < 0 or owner == p:
        return
    if s[L.CHARACTER_HOLDER + Character.THIEF] == p:
        gain = THIEF_PRESTIGE
    elif s[L.CHARACTER_HOLDER + Character.STEWARD] == owner:
        gain = STEWARD_PRESTIGE
    else:
        gain = OWNER_PRESTIGE
    add_prestige(s, owner, gain)


@njit(cache=True)
def place(s, p, a, early):
    """Pay and place one worker (the placed one leaves the hand; the extra cost goes to the
    Camp, D15, D16)."""
    cost = placement_cost(s, p, early)
    s[pf(p, L.P_HAND)] -= PLACED_WORKER
    return_workers(s, p, cost - PLACED_WORKER)
    if a == ACT_SITE:
        for i in range(MAX_PLAYERS):
            if s[L.SITE + i] < 0:
                s[L.SITE + i] = p
                return
    sp = a - ACT_PLACE
    for i in range(MAX_WORKERS_ON_BUILDING):
        if space_worker(s, sp, i) < 0:
            set_space_worker(s, sp, i, p)
            if i > 0:
                s[L.CHARACTER_USED + Character.JOURNEYMAN] = 1
            break
    owner_prestige(s, p, sp)


# -- the Early Riser (D25) -----------------------------------------------------------------------
@njit(cache=True)
def legal_early_riser(s, p, out):
    """Every placement ``p`` can pay at the Early Riser's cost, and ``decline`` (D25)."""
    n = legal_placements(s, p, True, out, 0)
    out[n] = ACT_DECLINE
    return n + 1  # ids are already in increasing order (actions: PLACE < SITE < PASS < DECLINE)


@njit(cache=True)
def apply_early_riser(s, p, a):
    pop(s)
    if a != ACT_DECLINE:
        place(s, p, a, True)


# -- turns (rules 4.1) ----------------------------------------------------------------------------
@njit(cache=True)
def drive_planning(s):
    """Ask the Early Riser, then each player who has not passed, clockwise from the first
    player; when all have passed, Activation starts."""
    n = np.int64(s[L.NUM_PLAYERS])
    if s[L.STAGE] == STAGE_EARLY_RISER:
        s[L.STAGE] = STAGE_TURNS
        s[L.TURN] = s[L.FIRST_PLAYER]
        h = np.int64(s[L.CHARACTER_HOLDER + Character.EARLY_RISER])
        if h >= 0:
            push(s, DecisionKind.EARLY_RISER, h, 0)
        return
    if s[L.PASSES] >= n:
        s[L.PHASE] = Phase.ACTIVATION
        s[L.STAGE] = 0
        s[L.CURSOR] = 0
        s[L.TURN] = 0
        return
    p = np.int64(s[L.TURN])
    while s[pf(p, L.P_PASSED)] == 1:
        p = (p + 1) % n
    s[L.TURN] = (p + 1) % n
    push(s, DecisionKind.PLAN, p, 0)


@njit(cache=True)
def legal_plan(s, p, out):
    """Every placement ``p`` can pay, and ``pass`` (always legal, D16)."""
    n = legal_placements(s, p, False, out, 0)
    out[n] = ACT_PASS
    return n + 1  # ids are already in increasing order (actions: PLACE < SITE < PASS < DECLINE)


@njit(cache=True)
def apply_plan(s, p, a):
    """Place, or pass: the pass house goes to the next bridge place (bridge order) and the
    first to pass takes the first-player tile at once (rules 4.1 C)."""
    pop(s)
    if a != ACT_PASS:
        place(s, p, a, False)
        return
    k = np.int64(s[L.PASSES])
    s[L.BRIDGE + k] = p
    if k == 0:
        s[L.FIRST_PLAYER] = p
    s[L.PASSES] = k + 1
    s[pf(p, L.P_PASSED)] = 1
