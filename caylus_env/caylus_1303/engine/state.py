"""Compiled accessors and bookkeeping helpers over the flat state (``layout``).

Every move of a worker, resource, prestige point or house goes through the helpers here, so
the accounts the invariants check (``invariants``: 15 workers per colour, D15; 9 houses for
buildings, D14) are kept in one place.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    MAX_WORKERS_ON_BUILDING,
    NUM_ANY,
    NUM_RESOURCES,
    PRESTIGE_PER_GOLD,
    PROVOST_MAX,
    ROAD0,
    ROAD_SPACES,
    Resource,
)
from caylus_env.caylus_1303.engine.decisions import num_players, phase  # noqa: F401  (re-exported)
from caylus_env.caylus_1303.engine.tiles import (
    C_ANY,
    C_WORKERS,
    G_PP,
    G_WORKERS,
    SIDE_RESIDENCE,
    T_GROUP,
    Group,
)


@njit(cache=True)
def pf(p, field):
    """Offset of a per-player field."""
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


@njit(cache=True)
def hand(s, p):
    return np.int64(s[pf(p, L.P_HAND)])


@njit(cache=True)
def resource(s, p, r):
    return np.int64(s[pf(p, L.P_RESOURCES + r)])


@njit(cache=True)
def prestige(s, p):
    return np.int64(s[pf(p, L.P_PP)])


@njit(cache=True)
def holder(s, c):
    """The seat holding character ``c``; -1 on the board, -2 out of play (rules 5.6)."""
    return np.int64(s[L.CHARACTER_HOLDER + c])


@njit(cache=True)
def holds(s, p, c):
    """Whether ``p`` holds character ``c`` now: powers follow the tile (D24)."""
    return s[L.CHARACTER_HOLDER + c] == p


@njit(cache=True)
def space_worker(s, space, i):
    return np.int64(s[L.SPACE_WORKER + space * MAX_WORKERS_ON_BUILDING + i])


@njit(cache=True)
def set_space_worker(s, space, i, p):
    s[L.SPACE_WORKER + space * MAX_WORKERS_ON_BUILDING + i] = p


@njit(cache=True)
def add_prestige(s, p, n):
    s[pf(p, L.P_PP)] += n


@njit(cache=True)
def gain_workers(s, p, n):
    """Take ``n`` workers of ``p``'s colour from the Camp into his hand; what the Camp lacks
    is lost (D15: a player never has more than his 15)."""
    take = min(n, np.int64(s[pf(p, L.P_CAMP)]))
    s[pf(p, L.P_CAMP)] -= take
    s[pf(p, L.P_HAND)] += take


@njit(cache=True)
def return_workers(s, p, n):
    """Return ``n`` workers from ``p``'s hand to the Camp (a payment, D15)."""
    s[pf(p, L.P_HAND)] -= n
    s[pf(p, L.P_CAMP)] += n


@njit(cache=True)
def worker_to_camp(s, p):
    """A worker of ``p`` leaves the board for the Camp (rules 4.2: after its building)."""
    s[pf(p, L.P_CAMP)] += 1


@njit(cache=True)
def can_pay(s, p, cost, discount):
    """Whether ``p`` can pay ``cost`` minus ``discount`` (``tiles.COST_KEYS`` vectors): the
    named resources, the "any" resources from what is left of food, wood, stone and cloth
    (D12), and the workers from his hand (D16)."""
    spare = 0
    for r in range(NUM_RESOURCES):
        need = max(cost[r] - discount[r], 0)
        have = np.int64(s[pf(p, L.P_RESOURCES + r)])
        if have < need:
            return False
        if r < NUM_ANY:
            spare += have - need
    if spare < max(cost[C_ANY] - discount[C_ANY], 0):
        return False
    return hand(s, p) >= max(cost[C_WORKERS] - discount[C_WORKERS], 0)


@njit(cache=True)
def pay_named(s, p, cost, discount):
    """Pay the named resources and workers of ``cost`` minus ``discount``; returns the "any"
    resources still owed, which the player chooses next (``DecisionKind.PAY``)."""
    for r in range(NUM_RESOURCES):
        s[pf(p, L.P_RESOURCES + r)] -= max(cost[r] - discount[r], 0)
    return_workers(s, p, max(cost[C_WORKERS] - discount[C_WORKERS], 0))
    return max(cost[C_ANY] - discount[C_ANY], 0)


@njit(cache=True)
def take_gain(s, p, gain):
    """Take a gain vector (``tiles.GAIN_KEYS``): resources, workers (D15), prestige; returns
    the Favors it gives, which the caller resolves at once (D23)."""
    for r in range(NUM_RESOURCES):
        s[pf(p, L.P_RESOURCES + r)] += gain[r]
    gain_workers(s, p, gain[G_WORKERS])
    add_prestige(s, p, gain[G_PP])
    return gain[G_PP + 1]


@njit(cache=True)
def any_spare(s, p):
    """Food, wood, stone and cloth ``p`` holds (what "any" can be paid from, D12)."""
    t = 0
    for r in range(NUM_ANY):
        t += np.int64(s[pf(p, L.P_RESOURCES + r)])
    return t


@njit(cache=True)
def road_space(k):
    """The space index of Road space Rk (k = 1..23)."""
    return ROAD0 + k


@njit(cache=True)
def lowest_empty_road(s):
    """The lowest-numbered empty Road space Rk (D22), or 0 when the Road is full."""
    for k in range(1, ROAD_SPACES + 1):
        if s[L.SPACE_KIND + ROAD0 + k] < 0:
            return k
    return 0


@njit(cache=True)
def contiguous_road(s):
    """L: the largest k such that R1..Rk all hold a tile (rules 3.1, D6)."""
    k = 0
    while k < ROAD_SPACES and s[L.SPACE_KIND + ROAD0 + k + 1] >= 0:
        k += 1
    return k


@njit(cache=True)
def provost_reset_position(s):
    """Just before the last building of the contiguous built Road (D6), within 0..23."""
    return min(max(contiguous_road(s) - 1, 0), PROVOST_MAX)


@njit(cache=True)
def residences(s, p):
    """Residences of ``p`` on the Road (D3)."""
    n = 0
    for k in range(1, ROAD_SPACES + 1):
        sp = ROAD0 + k
        if (
            s[L.SPACE_OWNER + sp] == p
            and s[L.SPACE_SIDE + sp] == SIDE_RESIDENCE
            and T_GROUP[s[L.SPACE_KIND + sp]] == Group.STARTING
        ):
            n += 1
    return n


@njit(cache=True)
def final_score(s, p):
    """Prestige plus 2 per gold held (rules 4.6, D36)."""
    return prestige(s, p) + PRESTIGE_PER_GOLD * resource(s, p, Resource.GOLD)
