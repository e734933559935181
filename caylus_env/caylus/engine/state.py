"""Named accessors of the flat state: the one place that turns a field into an offset.

Rules, bots, search and the observation read the state through these compiled
functions instead of computing ``PLAYERS + p * PLAYER_STRIDE + ...`` themselves.
Readers never mutate; the few mutators say so in their name (``add_*``, ``set_*``).
All are ``@njit(cache=True)`` and inline into their callers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.board import ROAD_LEN, SECTION_SIZE
from caylus_env.caylus.engine.buildings import BuildingId
from caylus_env.caylus.engine.constants import (
    MAX_PLAYERS,
    NUM_SECTIONS,
    Phase,
    Resource,
)
from caylus_env.caylus.engine.decisions import num_players, phase  # noqa: F401  (re-exported)


# -- the clock ---------------------------------------------------------------------------
@njit(cache=True)
def turn(s):
    return np.int64(s[L.TURN])


@njit(cache=True)
def cursor(s):
    """Progress inside the phase (turn-order position, step or road space)."""
    return np.int64(s[L.CURSOR])


@njit(cache=True)
def is_game_over(s):
    return s[L.PHASE] == Phase.GAME_OVER


# -- the options (fixed at setup) --------------------------------------------------------
@njit(cache=True)
def simplified_favors(s):
    """Whether every favor is 3 prestige instead of a step on the favor table (rules 6)."""
    return s[L.OPT_SIMPLIFIED_FAVORS] != 0


@njit(cache=True)
def lawyer_prestige(s):
    """Prestige of the lawyer tile in this game: 4 or 3 (rules 8.2)."""
    return np.int64(s[L.OPT_LAWYER_PRESTIGE])


# -- who stands where --------------------------------------------------------------------
@njit(cache=True)
def special_worker(s, i):
    """Occupant of single-worker special building ``i`` (a ``Special`` from the gate to the
    joust field), -1 for nobody."""
    return np.int64(s[L.SPECIAL_WORKER + i])


@njit(cache=True)
def stables_worker(s, i):
    """Occupant of stable spot ``i`` (0-2), -1 for nobody."""
    return np.int64(s[L.STABLES + i])


@njit(cache=True)
def inn_entering(s):
    """Occupant of the inn's left (entry) spot, -1 for nobody."""
    return np.int64(s[L.INN_LEFT])


@njit(cache=True)
def inn_resident(s):
    """Occupant of the inn's right (resident) spot, -1 for nobody."""
    return np.int64(s[L.INN_RIGHT])


@njit(cache=True)
def castle_worker(s, i):
    """The ``i``-th worker sent to the castle this turn (arrival order), -1 for none."""
    return np.int64(s[L.CASTLE_SPOTS + i])


# -- per-player fields -------------------------------------------------------------------
@njit(cache=True)
def player_field(p, field):
    """Offset of per-player field ``field`` (a ``layout.P_*`` value) of seat ``p``."""
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


@njit(cache=True)
def money(s, p):
    """Deniers of seat ``p``."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_MONEY])


@njit(cache=True)
def cube(s, p, r):
    """Cubes of kind ``r`` (a ``Resource``) held by seat ``p``."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_CUBES + r])


@njit(cache=True)
def prestige(s, p):
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_PRESTIGE])


@njit(cache=True)
def workers_out(s, p):
    """Workers of ``p`` not at home (the inn resident included)."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_WORKERS_OUT])


@njit(cache=True)
def favor_column(s, p, row):
    """Column of ``p``'s marker on favor row ``row`` (0: start position)."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_FAVOR + row])


@njit(cache=True)
def houses(s, p):
    """Houses of ``p`` on the board (buildings and castle)."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_HOUSES])


@njit(cache=True)
def has_passed(s, p):
    return s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_PASSED] != 0


@njit(cache=True)
def rows_used(s, p):
    """Bit set of favor rows ``p`` used in the current phase (rules 5.3)."""
    return np.int64(s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_ROWS_USED])


@njit(cache=True)
def non_gold_cubes(s, p):
    base = L.PLAYERS + p * L.PLAYER_STRIDE + L.P_CUBES
    return (
        np.int64(s[base + Resource.FOOD])
        + s[base + Resource.WOOD]
        + s[base + Resource.STONE]
        + s[base + Resource.CLOTH]
    )


@njit(cache=True)
def all_cubes(s, p):
    return non_gold_cubes(s, p) + cube(s, p, Resource.GOLD)


@njit(cache=True)
def has_house(s, p):
    """Whether ``p`` may put one more house on the board (rules 8.5, the optional cap)."""
    cap = s[L.OPT_HOUSE_CAP]
    return cap == 0 or s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_HOUSES] < cap


@njit(cache=True)
def add_money(s, p, n):
    s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_MONEY] += n


@njit(cache=True)
def add_cube(s, p, r, n):
    s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_CUBES + r] += n


@njit(cache=True)
def add_prestige(s, p, n):
    """Add (or, for penalties, remove) prestige; prestige never drops below 0 (rules 4, 8.20)."""
    o = L.PLAYERS + p * L.PLAYER_STRIDE + L.P_PRESTIGE
    v = np.int64(s[o]) + n
    s[o] = v if v > 0 else 0


@njit(cache=True)
def add_houses(s, p, n):
    s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_HOUSES] += n


@njit(cache=True)
def add_workers_out(s, p, n):
    s[L.PLAYERS + p * L.PLAYER_STRIDE + L.P_WORKERS_OUT] += n


# -- the road and the stock --------------------------------------------------------------
@njit(cache=True)
def provost(s):
    return np.int64(s[L.PROVOST])


@njit(cache=True)
def bailiff(s):
    return np.int64(s[L.BAILIFF])


@njit(cache=True)
def num_passed(s):
    """Players who passed this turn (the bridge)."""
    return np.int64(s[L.NUM_PASSED])


@njit(cache=True)
def road_tile(s, k):
    """``BuildingId`` on road space ``k`` (1-28), -1 when empty."""
    return np.int64(s[L.ROAD_TILE + k])


@njit(cache=True)
def road_owner(s, k):
    return np.int64(s[L.ROAD_OWNER + k])


@njit(cache=True)
def road_worker(s, k):
    return np.int64(s[L.ROAD_WORKER + k])


@njit(cache=True)
def road_lawyer(s, k):
    """Player whose paid lawyer transformation waits on space ``k`` until its worker is done
    (rules 8.6), -1 for none."""
    return np.int64(s[L.ROAD_LAWYER + k])


@njit(cache=True)
def stock(s, b):
    """Tiles of building ``b`` left in the stock."""
    return np.int64(s[L.STOCK + b])


@njit(cache=True)
def lowest_empty_space(s):
    """New craft buildings go on the lowest empty road space (rules 5a); -1 if none (8.3)."""
    for k in range(1, ROAD_LEN + 1):
        if s[L.ROAD_TILE + k] < 0:
            return k
    return -1


@njit(cache=True)
def owns_residence(s, p):
    for k in range(1, ROAD_LEN + 1):
        if s[L.ROAD_TILE + k] == BuildingId.RESIDENCE and s[L.ROAD_OWNER + k] == p:
            return True
    return False


# -- the castle --------------------------------------------------------------------------
@njit(cache=True)
def section_houses(s, sec, p):
    """Houses of ``p`` in castle section ``sec``."""
    return np.int64(s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p])


@njit(cache=True)
def add_section_houses(s, sec, p, n):
    s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p] += n


@njit(cache=True)
def section_fill(s, sec):
    """Houses in castle section ``sec``, all players together."""
    total = 0
    for p in range(MAX_PLAYERS):
        total += s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p]
    return total


@njit(cache=True)
def is_scored(s, sec):
    return s[L.SCORED + sec] != 0


@njit(cache=True)
def num_scored(s):
    """Sections scored so far (it opens favor columns, rules 5.2)."""
    return np.int64(s[L.SCORED]) + s[L.SCORED + 1] + s[L.SCORED + 2]


@njit(cache=True)
def castle_target(s):
    """Section the next batch goes to, or -1 when the castle is full (phase 6).

    The section under construction is the first one not yet scored; a full
    section overflows into the next one, even before the previous is scored.
    """
    for sec in range(NUM_SECTIONS):
        if s[L.SCORED + sec] == 0 and section_fill(s, sec) < SECTION_SIZE[sec]:
            return sec
    return -1


@njit(cache=True)
def holds_batch(s, p):
    """Whether ``p`` holds one castle batch: food + 2 different other kinds (phase 6)."""
    if cube(s, p, Resource.FOOD) < 1:
        return False
    kinds = 0
    for r in (Resource.WOOD, Resource.STONE, Resource.CLOTH, Resource.GOLD):
        if cube(s, p, r) > 0:
            kinds += 1
    return kinds >= 2
