"""The royal favor table (rules 5): a favor is a row, then a column, then sub-choices.

A player takes each favor on a row not yet used in this phase (5.3); the marker
advances when a column is open (5.2: 2, then 4, then 5 columns after each section
scoring) and any column up to it may be used. Granting favors is in
``phases.common.grant_favors``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import ACT_COLUMN, ACT_FAVOR, ACT_PAY, ACT_TAKE
from caylus_env.caylus.engine.board import COLUMNS_OPEN, FAVOR_DENIERS, FAVOR_PRESTIGE
from caylus_env.caylus.engine.constants import (
    FAVOR_SWAP_TAKE,
    NUM_FAVOR_ROWS,
    BuildingsColumn,
    BuildSource,
    DecisionKind,
    FavorRow,
    Resource,
    ResourcesColumn,
)
from caylus_env.caylus.engine.decisions import decision_arg, pop, push, set_top_arg
from caylus_env.caylus.engine.phases.common import (
    ALL_KINDS_MASK,
    NON_GOLD_MASK,
    WOOD_OR_STONE_MASK,
    legal_kinds,
)
from caylus_env.caylus.engine.phases.construction import can_build_any, can_lawyer
from caylus_env.caylus.engine.state import (
    add_cube,
    add_money,
    add_prestige,
    all_cubes,
    num_scored,
    player_field,
)


@njit(cache=True)
def legal_favor_row(s, p, out):
    """Rows not used by ``p`` in this phase; none left means the favor is lost (8.7)."""
    used = s[player_field(p, L.P_ROWS_USED)]
    n = 0
    for row in range(NUM_FAVOR_ROWS):
        if not (used >> row) & 1:
            out[n] = ACT_FAVOR + row
            n += 1
    return n


@njit(cache=True)
def apply_favor_row(s, p, a):
    """Take one favor on a row: advance the marker if a column is open (8.10), then the effect.

    Prestige and deniers are paid at once; resources and buildings ask for a column.
    """
    left = decision_arg(s, 0)
    if left > 1:
        set_top_arg(s, 0, left - 1)
    else:
        pop(s)
    row = a - ACT_FAVOR
    s[player_field(p, L.P_ROWS_USED)] |= 1 << row
    col_at = player_field(p, L.P_FAVOR + row)
    if s[col_at] < COLUMNS_OPEN[num_scored(s)]:
        s[col_at] += 1  # advancing is compulsory when possible (8.10)
    col = np.int64(s[col_at])
    if row == FavorRow.PRESTIGE:
        add_prestige(s, p, FAVOR_PRESTIGE[col])  # the highest column is never worse
    elif row == FavorRow.DENIERS:
        add_money(s, p, FAVOR_DENIERS[col])
    else:
        push(s, DecisionKind.FAVOR_COLUMN, p, row, 0)


@njit(cache=True)
def legal_favor_column(s, p, row, out):
    """Columns up to the marker whose effect ``p`` can use now (rules 5.3, 8.11)."""
    top = np.int64(s[player_field(p, L.P_FAVOR + row)])
    n = 0
    for col in range(1, top + 1):
        ok = True
        if row == FavorRow.RESOURCES:
            if col == ResourcesColumn.SWAP:
                ok = all_cubes(s, p) >= 1  # the swap needs a cube to give (8.11)
        else:
            if col == BuildingsColumn.CARPENTER:
                ok = can_build_any(s, p, BuildSource.FAVOR_CARPENTER)
            elif col == BuildingsColumn.MASON:
                ok = can_build_any(s, p, BuildSource.FAVOR_MASON)
            elif col == BuildingsColumn.LAWYER:
                ok = can_lawyer(s, p, BuildSource.FAVOR_LAWYER)
            elif col == BuildingsColumn.ARCHITECT:
                ok = can_build_any(s, p, BuildSource.FAVOR_ARCHITECT)
        if ok:
            out[n] = ACT_COLUMN + col
            n += 1
    return n


@njit(cache=True)
def apply_favor_column(s, p, row, a):
    """The effect of a resources (row c) or buildings (row d) column (rules 5.1)."""
    pop(s)
    col = a - ACT_COLUMN
    if row == FavorRow.RESOURCES:
        if col == ResourcesColumn.FOOD:
            add_cube(s, p, Resource.FOOD, 1)
        elif col == ResourcesColumn.WOOD_OR_STONE:
            push(s, DecisionKind.FAVOR_TAKE, p, WOOD_OR_STONE_MASK, 1)
        elif col == ResourcesColumn.CLOTH:
            add_cube(s, p, Resource.CLOTH, 1)
        elif col == ResourcesColumn.SWAP:
            push(s, DecisionKind.FAVOR_TAKE, p, NON_GOLD_MASK, FAVOR_SWAP_TAKE)
            push(s, DecisionKind.FAVOR_GIVE, p, 0, 0)  # give first (on top), then take two
        else:
            add_cube(s, p, Resource.GOLD, 1)
    else:
        if col == BuildingsColumn.CARPENTER:
            push(s, DecisionKind.BUILD, p, BuildSource.FAVOR_CARPENTER, 0)
        elif col == BuildingsColumn.MASON:
            push(s, DecisionKind.BUILD, p, BuildSource.FAVOR_MASON, 0)
        elif col == BuildingsColumn.LAWYER:
            push(s, DecisionKind.LAWYER, p, BuildSource.FAVOR_LAWYER, 0)
        elif col == BuildingsColumn.ARCHITECT:
            push(s, DecisionKind.BUILD, p, BuildSource.FAVOR_ARCHITECT, 0)


@njit(cache=True)
def legal_favor_take(s, p, kinds, out):
    """The cube kinds the favor offers (``kinds``, a bit set): wood or stone, or any non-gold."""
    return legal_kinds(s, p, kinds, False, out, ACT_TAKE)


@njit(cache=True)
def apply_favor_take(s, p, remaining, a):
    """Take one cube; the swap (column 4) asks again until both cubes are taken."""
    add_cube(s, p, a - ACT_TAKE, 1)
    if remaining > 1:
        set_top_arg(s, 1, remaining - 1)
    else:
        pop(s)


@njit(cache=True)
def legal_favor_give(s, p, out):
    """Any cube ``p`` holds, gold included, can be given up for the swap (rules 5.1 c4)."""
    return legal_kinds(s, p, ALL_KINDS_MASK, True, out, ACT_PAY)


@njit(cache=True)
def apply_favor_give(s, p, a):
    pop(s)
    add_cube(s, p, a - ACT_PAY, -1)
