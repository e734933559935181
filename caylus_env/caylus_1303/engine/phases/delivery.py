"""Phase 3, Delivery (rules 4.3, D9, D17, D30).

Players with a worker on the Construction Site deliver in site-slot order, one bundle per
decision (D39): 3 different resources with food among them (any 3 with the Chamberlain), 5
prestige each (+1 Foreman; +5 once per round for a bundle with gold, Goldsmith). The
Deliveryman's holder delivers again after all slots. The top deliverer (at least 1 bundle;
ties to the lowest slot, a Deliveryman without a site worker after all slots) gains a Favor;
then the site workers go to the Camp.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.actions import (
    ACT_BUNDLE,
    ACT_DECLINE,
    BUNDLE_PLAIN,
    BUNDLES,
    NUM_BUNDLES,
)
from caylus_env.caylus_1303.engine.constants import (
    BUNDLE_PRESTIGE,
    DELIVERY_FAVOR_MIN,
    FOREMAN_BONUS,
    GOLDSMITH_BONUS,
    MAX_PLAYERS,
    NUM_RESOURCES,
    Character,
    DecisionKind,
    Phase,
    Resource,
)
from caylus_env.caylus_1303.engine.decisions import pop, push
from caylus_env.caylus_1303.engine.state import add_prestige, pf, worker_to_camp

STAGE_SLOTS = 0  # cursor: site slot
STAGE_DELIVERYMAN = 1
STAGE_FAVOR = 2
STAGE_CLEANUP = 3


@njit(cache=True)
def drive_delivery(s):
    """Move Delivery on by one step (rules 4.3, D34)."""
    st = s[L.STAGE]
    n = np.int64(s[L.NUM_PLAYERS])
    if st == STAGE_SLOTS:
        c = np.int64(s[L.CURSOR])
        if c >= n or s[L.SITE + c] < 0:
            s[L.STAGE] = STAGE_DELIVERYMAN
            s[L.CURSOR] = 0
            return
        s[L.CURSOR] = c + 1
        push(s, DecisionKind.DELIVER, s[L.SITE + c], 0)
        return
    if st == STAGE_DELIVERYMAN:
        s[L.STAGE] = STAGE_FAVOR
        h = np.int64(s[L.CHARACTER_HOLDER + Character.DELIVERYMAN])
        if h >= 0:
            push(s, DecisionKind.DELIVER, h, 1)
        return
    if st == STAGE_FAVOR:
        s[L.STAGE] = STAGE_CLEANUP
        w = favor_winner(s)
        if w >= 0:
            push(s, DecisionKind.FAVOR, w, 0)
        return
    for i in range(MAX_PLAYERS):
        p = s[L.SITE + i]
        if p >= 0:
            worker_to_camp(s, p)
            s[L.SITE + i] = -1
    for p in range(n):
        s[pf(p, L.P_BUNDLES)] = 0
    s[L.PHASE] = Phase.STEWARDSHIP
    s[L.STAGE] = 0
    s[L.CURSOR] = 0


@njit(cache=True)
def favor_winner(s):
    """The seat gaining the Delivery Favor, or -1 (rules 4.3, D9): most bundles, at least 1;
    a tie goes to the lowest site slot, and a player without a site worker comes after all."""
    n = np.int64(s[L.NUM_PLAYERS])
    best = -1
    best_bundles = DELIVERY_FAVOR_MIN - 1
    best_slot = MAX_PLAYERS + 1
    for p in range(n):
        b = np.int64(s[pf(p, L.P_BUNDLES)])
        slot = MAX_PLAYERS
        for i in range(MAX_PLAYERS):
            if s[L.SITE + i] == p:
                slot = i
        if b > best_bundles or (b == best_bundles and b >= DELIVERY_FAVOR_MIN and slot < best_slot):
            best, best_bundles, best_slot = p, b, slot
    return best


@njit(cache=True)
def legal_deliver(s, p, out):
    """``decline`` and every bundle ``p`` holds the resources for (rules 4.3, D30)."""
    out[0] = ACT_DECLINE
    n = 1
    any_kind = s[L.CHARACTER_HOLDER + Character.CHAMBERLAIN] == p
    for b in range(NUM_BUNDLES):
        if not (any_kind or BUNDLE_PLAIN[b] == 1):
            continue
        ok = True
        for r in range(NUM_RESOURCES):
            if s[pf(p, L.P_RESOURCES + r)] < BUNDLES[b, r]:
                ok = False
                break
        if ok:
            out[n] = ACT_BUNDLE + b
            n += 1
    return n


@njit(cache=True)
def apply_deliver(s, p, arg, a):
    """Deliver one bundle and be asked again, or stop (D39)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    b = a - ACT_BUNDLE
    for r in range(NUM_RESOURCES):
        s[pf(p, L.P_RESOURCES + r)] -= BUNDLES[b, r]
    gain = BUNDLE_PRESTIGE
    if s[L.CHARACTER_HOLDER + Character.FOREMAN] == p:
        gain += FOREMAN_BONUS
    if (
        BUNDLES[b, Resource.GOLD] > 0
        and s[L.CHARACTER_HOLDER + Character.GOLDSMITH] == p
        and s[L.CHARACTER_USED + Character.GOLDSMITH] == 0
    ):
        gain += GOLDSMITH_BONUS
        s[L.CHARACTER_USED + Character.GOLDSMITH] = 1
    add_prestige(s, p, gain)
    s[pf(p, L.P_BUNDLES)] += 1
    push(s, DecisionKind.DELIVER, p, arg)
