"""Phase 5: activating the road buildings, from space 1 up to the provost.

Each worker's building is resolved in road order: production (with the "or"
choice and the stone buildings' owner bonus), the market, the peddler, the
carpenters / masons / architect and the lawyer (whose decisions are in
``phases.construction``), and the option buildings. A ``FINISH_SPACE`` procedure
below a space's decisions sends the worker home once they are all taken.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import ACT_DECLINE, ACT_OPTION, ACT_PAY, ACT_TAKE
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.buildings import (
    ANY_NON_GOLD,
    B_EFFECT,
    B_MARKET_PRICE,
    B_NUM_PRODUCE,
    B_OPTIONS,
    B_OWNER_BONUS,
    B_PEDDLER_MAX,
    B_PEDDLER_PRICE,
    B_PRODUCE,
    MAX_BUILDING_OPTIONS,
    OPTION_CUBE_COUNT,
    OPTION_CUBE_KIND,
    OPTION_DENIERS,
    OPTION_GOLD,
    OPTION_PRESTIGE,
    Effect,
)
from caylus_env.caylus.engine.constants import (
    NUM_RESOURCES,
    BuildSource,
    DecisionKind,
    Phase,
    Procedure,
    Resource,
)
from caylus_env.caylus.engine.decisions import pop, push, set_top_arg
from caylus_env.caylus.engine.phases.common import NON_GOLD_MASK, enter_phase, legal_kinds
from caylus_env.caylus.engine.phases.construction import transform
from caylus_env.caylus.engine.state import (
    add_cube,
    add_money,
    add_prestige,
    cube,
    money,
    non_gold_cubes,
    player_field,
)


@njit(cache=True)
def gain(s, p, b, option):
    """``p`` receives output ``option`` of production building ``b``."""
    for r in range(NUM_RESOURCES):
        add_cube(s, p, r, B_PRODUCE[b, option, r])


@njit(cache=True)
def activate(s, k, w):
    """Resolve the building on space ``k`` for the worker of player ``w`` (phase 5)."""
    b = s[L.ROAD_TILE + k]
    effect = B_EFFECT[b]
    if effect == Effect.PRODUCE:
        if B_NUM_PRODUCE[b] == 1:
            gain(s, w, b, 0)
        else:
            push(s, DecisionKind.PRODUCE, w, b, 0)
        owner = s[L.ROAD_OWNER + k]
        if B_OWNER_BONUS[b] != 0 and owner >= 0 and owner != w:
            push(s, DecisionKind.OWNER_BONUS, owner, b, 0)
    elif effect == Effect.BUILD_WOOD:
        push(s, DecisionKind.BUILD, w, BuildSource.CARPENTER, 0)
    elif effect == Effect.BUILD_STONE:
        push(s, DecisionKind.BUILD, w, BuildSource.MASON, 0)
    elif effect == Effect.BUILD_PRESTIGE:
        push(s, DecisionKind.BUILD, w, BuildSource.ARCHITECT, 0)
    elif effect == Effect.LAWYER:
        push(s, DecisionKind.LAWYER, w, BuildSource.LAWYER_TILE, 0)
    elif effect == Effect.MARKET:
        push(s, DecisionKind.MARKET, w, b, 0)
    elif effect == Effect.PEDDLER:
        push(s, DecisionKind.PEDDLER, w, b, 0)
    elif effect == Effect.OPTIONS:
        push(s, DecisionKind.OPTION, w, b, 0)


@njit(cache=True)
def send_home(s, k):
    """The worker on space ``k`` goes home; a waiting lawyer swap happens now (8.6)."""
    w = s[L.ROAD_WORKER + k]
    if w >= 0:
        s[L.ROAD_WORKER + k] = -1
        s[player_field(w, L.P_WORKERS_OUT)] -= 1
    lawyer = s[L.ROAD_LAWYER + k]
    if lawyer >= 0:
        transform(s, k, lawyer)


@njit(cache=True)
def legal_produce(s, p, b, out):
    """The cube kinds of an "or" production building (rules 3.2): one of its outputs."""
    n = 0
    for r in range(NUM_RESOURCES):
        for j in range(B_NUM_PRODUCE[b]):
            if B_PRODUCE[b, j, r] > 0:
                out[n] = ACT_TAKE + r
                n += 1
    return n


@njit(cache=True)
def apply_produce(s, p, b, a):
    """Receive the output that holds the chosen kind."""
    pop(s)
    r = a - ACT_TAKE
    for j in range(B_NUM_PRODUCE[b]):
        if B_PRODUCE[b, j, r] > 0:
            gain(s, p, b, j)
            return


@njit(cache=True)
def legal_market(s, p, out):
    """Sell nothing, or any one cube ``p`` holds (rules 5d)."""
    out[0] = ACT_DECLINE
    return 1 + legal_kinds(s, p, (1 << NUM_RESOURCES) - 1, True, out[1:], ACT_PAY)


@njit(cache=True)
def legal_peddler(s, p, b, bought, out):
    """Stop, or buy a non-gold cube while under the limit and able to pay (rules 5e)."""
    out[0] = ACT_DECLINE
    if bought >= B_PEDDLER_MAX[b] or money(s, p) < B_PEDDLER_PRICE[b]:
        return 1
    return 1 + legal_kinds(s, p, NON_GOLD_MASK, False, out[1:], ACT_TAKE)


@njit(cache=True)
def apply_peddler(s, p, b, bought, a):
    """Buy one cube, or stop; the decision is asked again until the peddler's limit."""
    if a == ACT_DECLINE:
        pop(s)
        return
    add_money(s, p, -B_PEDDLER_PRICE[b])
    add_cube(s, p, a - ACT_TAKE, 1)
    if bought + 1 >= B_PEDDLER_MAX[b]:
        pop(s)
    else:
        set_top_arg(s, 1, bought + 1)


@njit(cache=True)
def can_option(s, p, b, j):
    """Whether ``p`` can pay option ``j`` of building ``b`` (church, tailor, bank, alchemist...)."""
    if money(s, p) < B_OPTIONS[b, j, OPTION_DENIERS]:
        return False
    kind = B_OPTIONS[b, j, OPTION_CUBE_KIND]
    count = B_OPTIONS[b, j, OPTION_CUBE_COUNT]
    if kind == ANY_NON_GOLD:
        return non_gold_cubes(s, p) >= count
    if kind >= 0:
        return cube(s, p, kind) >= count
    return True


@njit(cache=True)
def legal_option(s, p, b, out):
    """Take no option, or any option ``p`` can pay (rules 5f)."""
    out[0] = ACT_DECLINE
    n = 1
    for j in range(MAX_BUILDING_OPTIONS):
        if can_option(s, p, b, j):
            out[n] = ACT_OPTION + j
            n += 1
    return n


@njit(cache=True)
def apply_option(s, p, b, a):
    """Pay the option and gain its prestige and gold; the alchemist then asks cube by cube."""
    pop(s)
    if a == ACT_DECLINE:
        return
    j = a - ACT_OPTION
    add_money(s, p, -B_OPTIONS[b, j, OPTION_DENIERS])
    kind = B_OPTIONS[b, j, OPTION_CUBE_KIND]
    add_prestige(s, p, B_OPTIONS[b, j, OPTION_PRESTIGE])
    add_cube(s, p, Resource.GOLD, B_OPTIONS[b, j, OPTION_GOLD])
    if kind == ANY_NON_GOLD:
        push(s, DecisionKind.ALCHEMIST_PAY, p, B_OPTIONS[b, j, OPTION_CUBE_COUNT], 0)
    elif kind >= 0:
        add_cube(s, p, kind, -B_OPTIONS[b, j, OPTION_CUBE_COUNT])


@njit(cache=True)
def drive_activation(s):
    """Phase 5: road spaces 1..provost in order; workers beyond it go home unused."""
    last = s[L.PROVOST]  # buildings beyond the provost are not activated
    k = np.int64(s[L.CURSOR])
    if k == 0:
        k = 1
    while k <= ROAD_LEN:
        w = s[L.ROAD_WORKER + k]
        if w >= 0:
            s[L.CURSOR] = k + 1
            if k > last:
                send_home(s, k)
                k += 1
                continue
            push(s, Procedure.FINISH_SPACE, w, k, 0)
            activate(s, k, w)
            return
        k += 1
    enter_phase(s, Phase.CASTLE)


@njit(cache=True)
def legal_owner_bonus(s, p, b, out):
    """The owner of a stone production building takes one of its kinds (rules 3.2)."""
    return legal_kinds(s, p, B_OWNER_BONUS[b], False, out, ACT_TAKE)


@njit(cache=True)
def apply_owner_bonus(s, p, a):
    pop(s)
    add_cube(s, p, a - ACT_TAKE, 1)


@njit(cache=True)
def apply_market(s, p, b, a):
    """Sell the chosen cube at the market's price, or nothing."""
    pop(s)
    if a != ACT_DECLINE:
        add_cube(s, p, a - ACT_PAY, -1)
        add_money(s, p, B_MARKET_PRICE[b])


@njit(cache=True)
def legal_alchemist_pay(s, p, out):
    """Any non-gold cube ``p`` holds: the alchemist takes them in any mix (rules 8.12)."""
    return legal_kinds(s, p, NON_GOLD_MASK, True, out, ACT_PAY)


@njit(cache=True)
def apply_alchemist_pay(s, p, remaining, a):
    """Give one cube; asked again until the option's count is paid."""
    add_cube(s, p, a - ACT_PAY, -1)
    if remaining > 1:
        set_top_arg(s, 0, remaining - 1)
    else:
        pop(s)


@njit(cache=True)
def run_finish_space(s, k):
    """Procedure: the building on space ``k`` is resolved; its worker goes home (8.6)."""
    send_home(s, k)
