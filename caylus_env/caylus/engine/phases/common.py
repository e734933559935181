"""Primitives every phase uses: entering a phase, granting favors, choosing a cube kind.

They sit below the phase modules so that any phase can grant a favor (a prestige
building, the joust field, the best builder, a section scoring) without the
phases importing each other in a circle.
"""

from __future__ import annotations

from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.constants import (
    NUM_RESOURCES,
    SIMPLIFIED_FAVOR_PRESTIGE,
    DecisionKind,
    Resource,
)
from caylus_env.caylus.engine.decisions import push
from caylus_env.caylus.engine.state import add_prestige, cube, player_field

#: Bit sets of ``Resource`` kinds, for cube-kind choices (``legal_kinds``).
ALL_KINDS_MASK = (1 << NUM_RESOURCES) - 1
NON_GOLD_MASK = ALL_KINDS_MASK & ~(1 << Resource.GOLD)
WOOD_OR_STONE_MASK = (1 << Resource.WOOD) | (1 << Resource.STONE)


@njit(cache=True)
def enter_phase(s, phase):
    """Start a phase: favors of different phases may reuse rows (5.3)."""
    s[L.PHASE] = phase
    s[L.CURSOR] = 0
    for p in range(s[L.NUM_PLAYERS]):
        s[player_field(p, L.P_ROWS_USED)] = 0


@njit(cache=True)
def grant_favors(s, p, n):
    """Give ``p`` ``n`` royal favors now (rules 5.3), or 3 prestige each in the simplified
    variant (rules 6). Each favor is one ``FAVOR_ROW`` decision, taken before play goes on."""
    if n <= 0:
        return
    if s[L.OPT_SIMPLIFIED_FAVORS]:
        add_prestige(s, p, SIMPLIFIED_FAVOR_PRESTIGE * n)
    else:
        push(s, DecisionKind.FAVOR_ROW, p, n, 0)


@njit(cache=True)
def legal_kinds(s, p, mask, need_cube, out, base):
    """Actions ``base + r`` for each kind ``r`` in ``mask`` (held, if ``need_cube``)."""
    n = 0
    for r in range(NUM_RESOURCES):
        if (mask >> r) & 1 and (not need_cube or cube(s, p, r) > 0):
            out[n] = base + r
            n += 1
    return n
