"""Construction (phase 5a carpenters, 5b masons and the architect, favor row d) and
the lawyer (5c): which tile may be built, what it costs, where it goes, and how a
building becomes a residence.

A ``BuildSource`` says why a build or lawyer decision was asked; it fixes the kind
of tile allowed and the price (a favor waives one wood or one stone, rules 5.1).
"""

from __future__ import annotations

from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import (
    ACT_BUILD,
    ACT_DECLINE,
    ACT_PAY,
    ACT_SPACE,
    BUILD_ACTION_OF,
    BUILDING_OF_BUILD,
    NUM_BUILD_ACTIONS,
)
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.buildings import (
    B_COST,
    B_COST_ANY,
    B_FAVORS,
    B_KIND,
    B_PRESTIGE,
    BuildingId,
    BuildingKind,
)
from caylus_env.caylus.engine.constants import (
    LAWYER_COST_CLOTH,
    LAWYER_COST_DENIERS,
    LAWYER_PRESTIGE,
    NUM_RESOURCES,
    BuildSource,
    DecisionKind,
    Resource,
)
from caylus_env.caylus.engine.decisions import pop, push
from caylus_env.caylus.engine.phases.common import grant_favors
from caylus_env.caylus.engine.state import (
    add_cube,
    add_money,
    add_prestige,
    cube,
    has_house,
    lowest_empty_space,
    money,
    owns_residence,
    player_field,
)


@njit(cache=True)
def discount_kind(src):
    """Cube kind a favor waives: one wood (d2) or one stone (d3); -1 for none."""
    if src == BuildSource.FAVOR_CARPENTER:
        return Resource.WOOD
    if src == BuildSource.FAVOR_MASON:
        return Resource.STONE
    return -1


@njit(cache=True)
def fixed_need(b, r, discount):
    """Cubes of kind ``r`` that building ``b`` costs, after a favor's discount (rules 5.1 d2, d3)."""
    need = B_COST[b, r]
    if r == discount:
        need -= 1
    return need


@njit(cache=True)
def can_pay_building(s, p, b, discount):
    """Whether ``p`` holds the fixed cubes of ``b`` and enough spare ones for its "any cube" part."""
    spare = 0
    for r in range(NUM_RESOURCES):
        have = cube(s, p, r)
        need = fixed_need(b, r, discount)
        if have < need:
            return False
        spare += have - need
    return spare >= B_COST_ANY[b]


@njit(cache=True)
def source_kind(src):
    """The kind of tile a build source may construct: wood, stone or prestige (rules 5a, 5b, 5.1)."""
    if src == BuildSource.CARPENTER or src == BuildSource.FAVOR_CARPENTER:
        return BuildingKind.WOOD
    if src == BuildSource.MASON or src == BuildSource.FAVOR_MASON:
        return BuildingKind.STONE
    return BuildingKind.PRESTIGE


@njit(cache=True)
def can_build(s, p, b, src):
    """Whether ``p`` may construct ``b`` now through ``src`` (5a, 5b, 5.1 row d, 8.3)."""
    if s[L.STOCK + b] <= 0 or B_KIND[b] != source_kind(src):
        return False
    if B_KIND[b] == BuildingKind.PRESTIGE:
        if not owns_residence(s, p):
            return False
    elif lowest_empty_space(s) < 0 or not has_house(s, p):
        return False
    return can_pay_building(s, p, b, discount_kind(src))


@njit(cache=True)
def can_build_any(s, p, src):
    """Whether some tile can be built through ``src`` (a favor column is usable only then, 8.11)."""
    for i in range(NUM_BUILD_ACTIONS):
        if can_build(s, p, BUILDING_OF_BUILD[i], src):
            return True
    return False


@njit(cache=True)
def legal_build(s, p, src, out):
    """Build nothing, or any tile of the source's kind that ``p`` may construct and pay."""
    out[0] = ACT_DECLINE
    n = 1
    for i in range(NUM_BUILD_ACTIONS):
        b = BUILDING_OF_BUILD[i]
        if can_build(s, p, b, src):
            out[n] = BUILD_ACTION_OF[b]
            n += 1
    return n


@njit(cache=True)
def pay_building(s, p, b, src, any_kind):
    """Pay the fixed cubes of ``b`` (less the favor's discount) and the chosen "any" cube."""
    discount = discount_kind(src)
    for r in range(NUM_RESOURCES):
        add_cube(s, p, r, -fixed_need(b, r, discount))
    if any_kind >= 0:
        add_cube(s, p, any_kind, -1)


@njit(cache=True)
def score_building(s, p, b):
    """Prestige and favors of a new building are scored at once (5a, 5b)."""
    s[L.STOCK + b] -= 1
    pp = B_PRESTIGE[b]
    if b == BuildingId.LAWYER:
        pp = s[L.OPT_LAWYER_PRESTIGE]
    add_prestige(s, p, pp)
    grant_favors(s, p, B_FAVORS[b])


@njit(cache=True)
def construct_on_road(s, p, b):
    """A craft building goes on the lowest empty road space with a house of ``p`` (rules 5a)."""
    k = lowest_empty_space(s)
    s[L.ROAD_TILE + k] = b
    s[L.ROAD_OWNER + k] = p
    s[player_field(p, L.P_HOUSES)] += 1
    score_building(s, p, b)


@njit(cache=True)
def apply_build(s, p, src, a):
    """Construct now, or ask which residence (prestige tile) or which "any" cube pays first."""
    pop(s)
    if a == ACT_DECLINE:
        return
    b = BUILDING_OF_BUILD[a - ACT_BUILD]
    if B_KIND[b] == BuildingKind.PRESTIGE:
        push(s, DecisionKind.RESIDENCE, p, b, src)
    elif B_COST_ANY[b] > 0:
        push(s, DecisionKind.PAY_ANY, p, b, src)
    else:
        pay_building(s, p, b, src, -1)
        construct_on_road(s, p, b)


@njit(cache=True)
def legal_pay_any(s, p, b, src, out):
    """Cube kinds ``p`` holds beyond the fixed cost of ``b``: any of them pays the "any cube"."""
    discount = discount_kind(src)
    n = 0
    for r in range(NUM_RESOURCES):
        if cube(s, p, r) - fixed_need(b, r, discount) >= 1:
            out[n] = ACT_PAY + r
            n += 1
    return n


@njit(cache=True)
def apply_pay_any(s, p, b, src, a):
    """Pay the building with the chosen cube and construct it."""
    pop(s)
    pay_building(s, p, b, src, a - ACT_PAY)
    construct_on_road(s, p, b)


@njit(cache=True)
def legal_residence(s, p, out):
    """The road spaces of ``p``'s own residences: a prestige building replaces one (rules 5b)."""
    n = 0
    for k in range(1, ROAD_LEN + 1):
        if s[L.ROAD_TILE + k] == BuildingId.RESIDENCE and s[L.ROAD_OWNER + k] == p:
            out[n] = ACT_SPACE + k
            n += 1
    return n


@njit(cache=True)
def apply_residence(s, p, b, src, a):
    """The prestige tile replaces the residence on its space (5b, 8.24)."""
    pop(s)
    k = a - ACT_SPACE
    pay_building(s, p, b, src, -1)
    s[L.ROAD_TILE + k] = b
    score_building(s, p, b)


@njit(cache=True)
def is_lawyer_target(s, p, k):
    """Neutral tiles, or ``p``'s own craft tiles except the lawyer itself (5c)."""
    tile = s[L.ROAD_TILE + k]
    if tile < 0 or s[L.ROAD_LAWYER + k] >= 0:
        return False
    kind = B_KIND[tile]
    if kind == BuildingKind.NEUTRAL:
        return has_house(s, p)
    return (
        (kind == BuildingKind.WOOD or kind == BuildingKind.STONE)
        and tile != BuildingId.LAWYER
        and s[L.ROAD_OWNER + k] == p
    )


@njit(cache=True)
def can_afford_lawyer(s, p, src):
    """The lawyer costs 1 cloth + 1 denier; through favor row d column 4 the cloth only (5c, 5.1)."""
    if cube(s, p, Resource.CLOTH) < LAWYER_COST_CLOTH:
        return False
    return src == BuildSource.FAVOR_LAWYER or money(s, p) >= LAWYER_COST_DENIERS


@njit(cache=True)
def can_lawyer(s, p, src):
    """Whether ``p`` can pay the lawyer and has a building to transform."""
    if not can_afford_lawyer(s, p, src):
        return False
    for k in range(1, ROAD_LEN + 1):
        if is_lawyer_target(s, p, k):
            return True
    return False


@njit(cache=True)
def legal_lawyer(s, p, src, out):
    """Transform nothing, or any road space holding a lawyer target of ``p`` (rules 5c)."""
    out[0] = ACT_DECLINE
    n = 1
    if not can_afford_lawyer(s, p, src):
        return n
    for k in range(1, ROAD_LEN + 1):
        if is_lawyer_target(s, p, k):
            out[n] = ACT_SPACE + k
            n += 1
    return n


@njit(cache=True)
def transform(s, k, p):
    """Replace the building on space ``k`` with a residence of ``p`` (5c)."""
    tile = s[L.ROAD_TILE + k]
    if B_KIND[tile] != BuildingKind.NEUTRAL:
        s[L.STOCK + tile] += 1  # an own craft tile goes back to the stock
    s[L.ROAD_TILE + k] = BuildingId.RESIDENCE
    s[L.ROAD_OWNER + k] = p
    s[L.ROAD_LAWYER + k] = -1


@njit(cache=True)
def apply_lawyer(s, p, src, a):
    """Pay, score 2 prestige, and transform now or once the worker on the space is done (8.6)."""
    pop(s)
    if a == ACT_DECLINE:
        return
    k = a - ACT_SPACE
    add_cube(s, p, Resource.CLOTH, -LAWYER_COST_CLOTH)
    if src == BuildSource.LAWYER_TILE:
        add_money(s, p, -LAWYER_COST_DENIERS)
    if B_KIND[s[L.ROAD_TILE + k]] == BuildingKind.NEUTRAL:
        s[player_field(p, L.P_HOUSES)] += 1  # the residence needs a new house
    add_prestige(s, p, LAWYER_PRESTIGE)
    if s[L.ROAD_WORKER + k] >= 0:
        s[L.ROAD_LAWYER + k] = p  # paid now, swapped once that worker is done (8.6)
    else:
        transform(s, k, p)
