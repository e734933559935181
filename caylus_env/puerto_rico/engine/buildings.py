"""The building table of Puerto Rico: one frozen row per building kind (rules 2).

Behaviour lives in the role kernels and is keyed by ``BuildingId``; this module only
states the printed data. The arrays ``B_*`` are the same table for compiled code.

Columns of a row: cost in doubloons, printed victory points, the board column (the most
occupied quarries can take off its price, rules 2.2), circles (colonists it holds), copies
in a game of 3-5 players and of 2 players (rules 1.2, 1.3), the good a production
building makes (``-1`` for violet buildings), and whether it is a large building that
takes two city spaces (rules 2.5). The ``B_*`` arrays are globals of the numba kernels,
so this module is part of the compiled code whose sources key the kernel cache
(``caylus_env.core._cache``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from caylus_env.puerto_rico.engine.constants import Good


class BuildingKind(IntEnum):
    PRODUCTION = 0  # rules 2.3
    SMALL_VIOLET = 1  # rules 2.4
    LARGE_VIOLET = 2  # rules 2.5


@dataclass(frozen=True)
class BuildingSpec:
    """One building kind as printed on its tile."""

    name: str
    label: str
    kind: BuildingKind
    cost: int
    vp: int
    column: int
    circles: int
    copies: int
    copies_2p: int
    produces: int
    rule_ref: str
    expansion: bool = False


P, V, LV = BuildingKind.PRODUCTION, BuildingKind.SMALL_VIOLET, BuildingKind.LARGE_VIOLET
_NONE = -1

#: Every building kind, in ``BuildingId`` order: production, small violet, large.
BUILDINGS: tuple[BuildingSpec, ...] = (
    BuildingSpec(
        "small_indigo_plant", "Small indigo plant", P, 1, 1, 1, 1, 4, 2, Good.INDIGO, "2.3"
    ),
    BuildingSpec("small_sugar_mill", "Small sugar mill", P, 2, 1, 1, 1, 4, 2, Good.SUGAR, "2.3"),
    BuildingSpec("indigo_plant", "Indigo plant", P, 3, 2, 2, 3, 3, 2, Good.INDIGO, "2.3"),
    BuildingSpec("sugar_mill", "Sugar mill", P, 4, 2, 2, 3, 3, 2, Good.SUGAR, "2.3"),
    BuildingSpec("tobacco_storage", "Tobacco storage", P, 5, 3, 3, 3, 3, 2, Good.TOBACCO, "2.3"),
    BuildingSpec("coffee_roaster", "Coffee roaster", P, 6, 3, 3, 2, 3, 2, Good.COFFEE, "2.3"),
    BuildingSpec("small_market", "Small market", V, 1, 1, 1, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("hacienda", "Hacienda", V, 2, 1, 1, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("construction_hut", "Construction hut", V, 2, 1, 1, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("small_warehouse", "Small warehouse", V, 3, 1, 1, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("hospice", "Hospice", V, 4, 2, 2, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("office", "Office", V, 5, 2, 2, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("large_market", "Large market", V, 5, 2, 2, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("large_warehouse", "Large warehouse", V, 6, 2, 2, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("factory", "Factory", V, 7, 3, 3, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("university", "University", V, 8, 3, 3, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("harbor", "Harbor", V, 8, 3, 3, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("wharf", "Wharf", V, 9, 3, 3, 1, 2, 1, _NONE, "2.4"),
    BuildingSpec("guild_hall", "Guild hall", LV, 10, 4, 4, 1, 1, 1, _NONE, "2.5"),
    BuildingSpec("residence", "Residence", LV, 10, 4, 4, 1, 1, 1, _NONE, "2.5"),
    BuildingSpec("fortress", "Fortress", LV, 10, 4, 4, 1, 1, 1, _NONE, "2.5"),
    BuildingSpec("customs_house", "Customs house", LV, 10, 4, 4, 1, 1, 1, _NONE, "2.5"),
    BuildingSpec("city_hall", "City hall", LV, 10, 4, 4, 1, 1, 1, _NONE, "2.5"),
    # -- the 2004 expansion (rules 7.2); costs from the expansion's building list
    BuildingSpec("aqueduct", "Aqueduct", V, 1, 1, 1, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("black_market", "Black market", V, 2, 1, 1, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("forest_house", "Forest house", V, 2, 1, 1, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("storehouse", "Storehouse", V, 3, 1, 1, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("guest_house", "Guest house", V, 4, 2, 2, 2, 2, 1, _NONE, "7.2", True),
    BuildingSpec("trading_post", "Trading post", V, 5, 2, 2, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("church", "Church", V, 5, 2, 2, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("small_wharf", "Small wharf", V, 6, 2, 2, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("lighthouse", "Lighthouse", V, 7, 3, 3, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("library", "Library", V, 8, 3, 3, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("specialty_factory", "Specialty factory", V, 8, 3, 3, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("union_hall", "Union hall", V, 9, 3, 3, 1, 2, 1, _NONE, "7.2", True),
    BuildingSpec("cloister", "Cloister", LV, 10, 4, 4, 1, 1, 1, _NONE, "7.2", True),
    BuildingSpec("statue", "Statue", LV, 10, 8, 4, 0, 1, 1, _NONE, "7.2", True),
)
NUM_BUILDINGS = len(BUILDINGS)
BUILDING_NAMES: tuple[str, ...] = tuple(b.name for b in BUILDINGS)

BuildingId = IntEnum("BuildingId", {b.name.upper(): i for i, b in enumerate(BUILDINGS)})
BuildingId.__doc__ = "Index of each building kind in ``BUILDINGS``."


def _column(attr: str) -> np.ndarray:
    a = np.array([int(getattr(b, attr)) for b in BUILDINGS], np.int64)
    a.setflags(write=False)
    return a


B_KIND = _column("kind")
B_COST = _column("cost")
B_VP = _column("vp")
B_COLUMN = _column("column")
B_CIRCLES = _column("circles")
B_COPIES = _column("copies")
B_COPIES_2P = _column("copies_2p")
B_PRODUCES = _column("produces")
#: City spaces a building takes: 2 for a large building (rules 2.1).
B_SPACES = np.where(int(LV) == B_KIND, 2, 1).astype(np.int64)
B_SPACES.setflags(write=False)
#: Small production buildings count 1 for the guild hall, the large ones 2 (rules 2.5).
B_GUILD_VALUE = np.array(
    [0 if b.kind != P else (1 if b.circles == 1 else 2) for b in BUILDINGS], np.int64
)
B_GUILD_VALUE.setflags(write=False)

B_EXPANSION = _column("expansion")
#: Violet kinds, in the order of the ``draft:*`` actions (rules 7.1).
VIOLET = tuple(i for i, b in enumerate(BUILDINGS) if b.kind != P)
NUM_VIOLET = len(VIOLET)
B_VIOLET_INDEX = np.full(len(BUILDINGS), -1, np.int64)
for _i, _b in enumerate(VIOLET):
    B_VIOLET_INDEX[_b] = _i
B_VIOLET_INDEX.setflags(write=False)
VIOLET_ARR = np.array(VIOLET, np.int64)
VIOLET_ARR.setflags(write=False)

assert all(b.column == b.vp for b in BUILDINGS if not b.expansion), "base: column = VP"
assert all(b.column == min(4, (b.cost + 2) // 3) for b in BUILDINGS if b.expansion), (
    "expansion: the cost ladder 1-3, 4-6, 7-9, 10"
)
assert all(b.produces == _NONE for b in BUILDINGS if b.kind != P)
