"""Phase 2, placing workers, and the gate (phase 3a), which places one more.

Placement targets are numbered as in ``board`` (specials, castle, then road spaces).
The price is the bridge's (1 + players who passed; 3 in a 2-player game once the
other player passed, rules 1.4), 1 on one's own building or for the inn's resident.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import ACT_DECLINE, ACT_GATE, ACT_PASS, ACT_PLACE
from caylus_env.caylus.engine.board import (
    NUM_TARGETS,
    ROAD_LEN,
    ROAD_TARGET_BASE,
    TARGET_CASTLE,
    TARGET_GATE,
    TARGET_INN,
    TARGET_STABLES,
)
from caylus_env.caylus.engine.buildings import B_TAKES_WORKER
from caylus_env.caylus.engine.constants import (
    BRIDGE_BASE_PRICE,
    INN_RESIDENT_PRICE,
    NUM_CASTLE_SPOTS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    OWNER_PRESTIGE_PER_VISITOR,
    PASS_BONUS,
    SUBSEQUENT_PLACEMENT_FLOOR,
    TWO_PLAYER_GAME,
    TWO_PLAYER_PRICE,
    DecisionKind,
    Phase,
)
from caylus_env.caylus.engine.decisions import pop, push
from caylus_env.caylus.engine.phases.common import enter_phase
from caylus_env.caylus.engine.state import add_money, add_prestige, money, player_field


@njit(cache=True)
def bridge_price(s, p):
    """Price of placing on a building ``p`` does not own (phase 2 price rule)."""
    if s[L.INN_RIGHT] == p:
        return INN_RESIDENT_PRICE
    if s[L.NUM_PLAYERS] == TWO_PLAYER_GAME and s[L.NUM_PASSED] > 0:
        return TWO_PLAYER_PRICE
    return np.int64(s[L.NUM_PASSED]) + BRIDGE_BASE_PRICE


@njit(cache=True)
def target_free(s, p, t):
    """Whether target ``t`` can take a worker of ``p`` now (3.3, phase 3a)."""
    if t < TARGET_STABLES:
        return s[L.SPECIAL_WORKER + t] < 0
    if t == TARGET_STABLES:
        if s[L.NUM_PLAYERS] == TWO_PLAYER_GAME:  # no stables with 2 players (rules 1.4)
            return False
        free = False
        for i in range(NUM_STABLES_SPOTS):
            if s[L.STABLES + i] == p:
                return False
            if s[L.STABLES + i] < 0:
                free = True
        return free
    if t == TARGET_INN:
        return s[L.INN_LEFT] < 0
    if t == TARGET_CASTLE:
        for i in range(NUM_CASTLE_SPOTS):
            if s[L.CASTLE_SPOTS + i] == p:
                return False
        return True
    k = t - ROAD_TARGET_BASE + 1
    tile = s[L.ROAD_TILE + k]
    return tile >= 0 and B_TAKES_WORKER[tile] == 1 and s[L.ROAD_WORKER + k] < 0


@njit(cache=True)
def put_worker(s, p, t):
    """Put a worker of ``p`` on target ``t``; the owner of another's building gains 1."""
    if t < TARGET_STABLES:
        s[L.SPECIAL_WORKER + t] = p
    elif t == TARGET_STABLES:
        for i in range(NUM_STABLES_SPOTS):
            if s[L.STABLES + i] < 0:
                s[L.STABLES + i] = p
                break
    elif t == TARGET_INN:
        s[L.INN_LEFT] = p
    elif t == TARGET_CASTLE:
        for i in range(NUM_CASTLE_SPOTS):
            if s[L.CASTLE_SPOTS + i] < 0:
                s[L.CASTLE_SPOTS + i] = p
                break
    else:
        k = t - ROAD_TARGET_BASE + 1
        s[L.ROAD_WORKER + k] = p
        owner = s[L.ROAD_OWNER + k]
        if owner >= 0 and owner != p:
            add_prestige(s, owner, OWNER_PRESTIGE_PER_VISITOR)


@njit(cache=True)
def placement_price(s, p, t, bridge):
    """On one's own building a worker costs 1, elsewhere the bridge price (phase 2)."""
    if t >= ROAD_TARGET_BASE and s[L.ROAD_OWNER + t - ROAD_TARGET_BASE + 1] == p:
        return SUBSEQUENT_PLACEMENT_FLOOR
    return bridge


@njit(cache=True)
def legal_place_worker(s, p, out):
    """Pass, plus every target ``p`` can afford and that can take a worker (phase 2).

    The hottest function of random play: one tight pass, the bridge targets only
    when the bridge price is affordable, then the road.
    """
    out[0] = ACT_PASS
    n = 1
    if s[player_field(p, L.P_WORKERS_OUT)] >= NUM_WORKERS:
        return n
    have = money(s, p)
    bridge = bridge_price(s, p)
    if have >= bridge:
        for t in range(ROAD_TARGET_BASE):
            if target_free(s, p, t):
                out[n] = ACT_PLACE + t
                n += 1
    for k in range(1, ROAD_LEN + 1):
        tile = s[L.ROAD_TILE + k]
        if tile < 0 or s[L.ROAD_WORKER + k] >= 0 or B_TAKES_WORKER[tile] == 0:
            continue
        price = SUBSEQUENT_PLACEMENT_FLOOR if s[L.ROAD_OWNER + k] == p else bridge
        if have >= price:
            out[n] = ACT_PLACE + ROAD_TARGET_BASE - 1 + k
            n += 1
    return n


@njit(cache=True)
def apply_place_worker(s, p, a):
    """Pass (the first to pass gains a denier) or pay and place a worker (phase 2)."""
    pop(s)
    if a == ACT_PASS:
        s[player_field(p, L.P_PASSED)] = 1
        k = np.int64(s[L.NUM_PASSED])
        s[L.PASS_ORDER + k] = p
        if k == 0:
            add_money(s, p, PASS_BONUS)
        s[L.NUM_PASSED] = k + 1
    else:
        t = a - ACT_PLACE
        add_money(s, p, -placement_price(s, p, t, bridge_price(s, p)))
        s[player_field(p, L.P_WORKERS_OUT)] += 1
        put_worker(s, p, t)
    s[L.CURSOR] = (s[L.CURSOR] + 1) % s[L.NUM_PLAYERS]


@njit(cache=True, inline="always")
def legal_gate(s, p, out):
    """Stay home, or any target (but the gate) that can take a worker of ``p`` (phase 3a)."""
    out[0] = ACT_DECLINE
    n = 1
    for t in range(TARGET_GATE + 1, NUM_TARGETS):
        if target_free(s, p, t):
            out[n] = ACT_GATE + t
            n += 1
    return n


@njit(cache=True, inline="always")
def apply_gate(s, p, a):
    """The gate worker moves to a free target, for free, or goes home (phase 3a)."""
    pop(s)
    s[L.SPECIAL_WORKER + TARGET_GATE] = -1
    if a == ACT_DECLINE:
        s[player_field(p, L.P_WORKERS_OUT)] -= 1  # not moved: it goes home
    else:
        put_worker(s, p, a - ACT_GATE)


@njit(cache=True, inline="always")
def drive_placement(s):
    """Phase 2: ask the next player in turn order who has not passed, until all passed."""
    n = np.int64(s[L.NUM_PLAYERS])
    if s[L.NUM_PASSED] >= n:
        enter_phase(s, Phase.SPECIAL)
        return
    c = np.int64(s[L.CURSOR])
    for _ in range(n):
        if s[player_field(s[L.TURN_ORDER + c], L.P_PASSED)] == 0:
            break
        c = (c + 1) % n
    else:
        raise RuntimeError("caylus engine: every player passed but the bridge disagrees")
    s[L.CURSOR] = c
    push(s, DecisionKind.PLACE_WORKER, s[L.TURN_ORDER + c], 0, 0)
