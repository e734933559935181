"""Compiled accessors and bookkeeping helpers over the flat state (``layout``).

Every change of doubloons, VP chips and colonists goes through the helpers here, so
the accounts the invariants check (``invariants``) are kept in one place.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.puerto_rico.engine import layout as L
from caylus_env.puerto_rico.engine.buildings import (
    B_CIRCLES,
    B_COLUMN,
    B_GUILD_VALUE,
    B_KIND,
    B_SPACES,
    B_VP,
    NUM_BUILDINGS,
    BuildingId,
)
from caylus_env.puerto_rico.engine.constants import (
    CLOISTER_BONUS,
    NUM_GOODS,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    RESIDENCE_BONUS,
    Tile,
)
from caylus_env.puerto_rico.engine.decisions import num_players, phase  # noqa: F401  (re-exported)

#: Most doubloons a player holds: the bank pays no more to a player who has them (a bound of
#: the platform, not of the rules, whose bank is unlimited: rules 6.7). A real game ends with
#: a few dozen; players who never build nor end the game could otherwise take doubloons past
#: what an int16 entry holds within the decision cap. With it the bank's payouts (every
#: player's doubloons and every role card's, ``state_dict.BANK_PAID_LIMIT``) fit too.
MAX_MONEY = 1000


@njit(cache=True)
def pf(p, field):
    """Offset of a per-player field."""
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


@njit(cache=True)
def money(s, p):
    return np.int64(s[pf(p, L.P_MONEY)])


@njit(cache=True)
def vp_chips(s, p):
    return np.int64(s[pf(p, L.P_VP)])


@njit(cache=True)
def goods(s, p, g):
    return np.int64(s[pf(p, L.P_GOODS + g)])


@njit(cache=True)
def total_goods(s, p):
    n = 0
    for g in range(NUM_GOODS):
        n += s[pf(p, L.P_GOODS + g)]
    return np.int64(n)


@njit(cache=True)
def building_workers(s, p, b):
    """Colonists on building ``b`` of player ``p``; -1 if he does not own it."""
    return np.int64(s[pf(p, L.P_BUILDINGS + b)])


@njit(cache=True)
def owns(s, p, b):
    return s[pf(p, L.P_BUILDINGS + b)] >= 0


@njit(cache=True)
def occupied(s, p, b):
    """Whether ``p`` owns ``b`` with at least one colonist on it: only then it works (2.1)."""
    return s[pf(p, L.P_BUILDINGS + b)] > 0


@njit(cache=True)
def island_tiles(s, p):
    n = 0
    for t in range(NUM_TILES):
        n += s[pf(p, L.P_ISLAND + t)]
    return np.int64(n)


@njit(cache=True)
def city_spaces_used(s, p):
    """City spaces taken, a large building counting 2 (rules 2.1)."""
    n = 0
    for b in range(NUM_BUILDINGS):
        if s[pf(p, L.P_BUILDINGS + b)] >= 0:
            n += B_SPACES[b]
    return np.int64(n)


@njit(cache=True)
def empty_building_circles(s, p):
    """Unoccupied circles over the player's buildings (rules 4.2: the ship refill)."""
    n = 0
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if w >= 0:
            n += B_CIRCLES[b] - w
    return np.int64(n)


@njit(cache=True)
def empty_circles(s, p):
    """Unoccupied circles over the player's island tiles and buildings."""
    n = empty_building_circles(s, p)
    for t in range(NUM_WORKABLE_TILES):
        n += s[pf(p, L.P_ISLAND + t)] - s[pf(p, L.P_WORKED + t)]
    return np.int64(n)


@njit(cache=True)
def colonists_of(s, p):
    """Every colonist on the player's board, San Juan included (rules 2.5: fortress)."""
    n = np.int64(s[pf(p, L.P_SAN_JUAN)])
    for t in range(NUM_WORKABLE_TILES):
        n += s[pf(p, L.P_WORKED + t)]
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if w > 0:
            n += w
    return n


@njit(cache=True)
def quarry_discount(s, p, b):
    """Doubloons occupied quarries take off building ``b``, capped by its column (2.2)."""
    q = np.int64(s[pf(p, L.P_WORKED + Tile.QUARRY)])
    return min(q, B_COLUMN[b])


@njit(cache=True)
def money_room(s, p):
    """Doubloons ``p`` may still take before he holds `MAX_MONEY`."""
    return max(np.int64(0), MAX_MONEY - np.int64(s[pf(p, L.P_MONEY)]))


@njit(cache=True)
def gain_money(s, p, x):
    """The bank pays ``x`` doubloons to ``p`` (the bank is unlimited, rules 6.7), up to
    `MAX_MONEY` in his hand: the platform's bound on a counter of the int16 state, which
    no real game comes near."""
    x = min(np.int64(x), money_room(s, p))
    s[pf(p, L.P_MONEY)] += x
    s[L.BANK_PAID] += x


@njit(cache=True)
def pay_money(s, p, x):
    """``p`` pays ``x`` doubloons back to the bank."""
    s[pf(p, L.P_MONEY)] -= x
    s[L.BANK_PAID] -= x


@njit(cache=True)
def gain_vp(s, p, x):
    """``p`` takes ``x`` VP chips; past the last chip they are owed on paper, and taking
    the last chip ends the game at the end of the round (rules 5.1, 6.7)."""
    if x <= 0:
        return
    s[pf(p, L.P_VP)] += x
    s[L.VP_SUPPLY] -= x
    if s[L.VP_SUPPLY] <= 0:
        s[L.END_TRIGGERED] = 1


@njit(cache=True)
def take_colonist(s):
    """One colonist from the supply, else from the colonist ship (rules 6.5); False if none."""
    if s[L.COLONIST_SUPPLY] > 0:
        s[L.COLONIST_SUPPLY] -= 1
        return True
    if s[L.COLONIST_SHIP] > 0:
        s[L.COLONIST_SHIP] -= 1
        return True
    return False


@njit(cache=True)
def colonist_available(s):
    return s[L.COLONIST_SUPPLY] > 0 or s[L.COLONIST_SHIP] > 0


@njit(cache=True)
def seat_after(s, p, k):
    """The seat ``k`` places to the left of ``p``."""
    return (p + k) % np.int64(s[L.NUM_PLAYERS])


@njit(cache=True)
def final_score(s, p):
    """Victory points of ``p``: chips (paper included), printed building VP, and the
    bonuses of occupied large buildings (rules 5.2, 2.5, 7.2). Meaningful at any time."""
    vp = np.int64(s[pf(p, L.P_VP)])
    violet = 0
    guild = 0
    for b in range(NUM_BUILDINGS):
        w = s[pf(p, L.P_BUILDINGS + b)]
        if w >= 0:
            vp += B_VP[b]
            guild += B_GUILD_VALUE[b]
            if B_KIND[b] != 0:
                violet += 1
    if occupied(s, p, BuildingId.GUILD_HALL):
        vp += guild
    if occupied(s, p, BuildingId.RESIDENCE):
        vp += RESIDENCE_BONUS[min(island_tiles(s, p), 12)]
    if occupied(s, p, BuildingId.FORTRESS):
        vp += colonists_of(s, p) // 3
    if occupied(s, p, BuildingId.CUSTOMS_HOUSE):
        vp += np.int64(s[pf(p, L.P_VP)]) // 4
    if occupied(s, p, BuildingId.CITY_HALL):
        vp += violet
    if occupied(s, p, BuildingId.CLOISTER):
        groups = 0
        for t in range(NUM_TILES):
            groups += s[pf(p, L.P_ISLAND + t)] // 3
        vp += CLOISTER_BONUS[min(groups, CLOISTER_BONUS.shape[0] - 1)]
    return vp


@njit(cache=True)
def tie_break(s, p):
    """Doubloons plus barrels: the tie-break of rules 5.3."""
    return np.int64(s[pf(p, L.P_MONEY)]) + total_goods(s, p)


@njit(cache=True)
def privilege_times(s):
    """2 when the picker's library doubles his privilege, else 1 (rules 7.2).

    Judged when the privilege is used, not when the role is picked: a guest moved onto the
    library at the start of the phase doubles it (7.4). Once a doubling was used in the
    phase (``doubled``) it holds for the rest of the phase; with 2 players and the
    ``library_limit`` option a library doubles once a round (``library_used``)."""
    if s[L.DOUBLED]:
        return np.int64(2)
    p = np.int64(s[L.PICKER])
    if p < 0 or not occupied(s, p, BuildingId.LIBRARY):
        return np.int64(1)
    if s[L.OPT_LIBRARY_LIMIT] == 1 and s[L.NUM_PLAYERS] == 2 and s[L.LIBRARY_USED] == 1:
        return np.int64(1)
    return np.int64(2)


@njit(cache=True)
def use_privilege(s):
    """``privilege_times`` for a privilege being used now; a doubling is recorded for the
    phase (``doubled``) and the round (``library_used``, the 2-player limit)."""
    x = privilege_times(s)
    if x == 2:
        s[L.DOUBLED] = 1
        s[L.LIBRARY_USED] = 1
    return x
