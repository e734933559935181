"""THE static building table: one record per building, compiled into arrays.

Every number comes from section 3 of the rules reference (``docs/rules/caylus.md``):
3.1 for the board buildings on the road (fixed peddler, fixed carpenter, gold mine),
3.2 for the 40 tiles (plus the optional Jeweller). Behaviour lives in the kernels
(``phases/``), keyed by ``Effect``; this module holds data only, as a declarative table.

Table order is ``BuildingId`` order, which is also the order of the ``build:*``
actions and of the per-building observation channels.

Cost vectors are (food, wood, stone, cloth, gold); ``cost_any`` counts the extra
"any cube" (any kind, gold included) of the wood marketplace and peddler.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from caylus_env.caylus.engine.constants import NUM_RESOURCES, Resource


class BuildingKind(IntEnum):
    """Tile colours of rules 3.2 (plus the printed board buildings)."""

    NEUTRAL = 0  # pink, start on road spaces 1-6, owned by nobody
    FIXED = 1  # printed on the road: fixed peddler, fixed carpenter, gold mine
    WOOD = 2  # brown craft tiles, built by a carpenter
    STONE = 3  # grey craft tiles, built by the mason
    RESIDENTIAL = 4  # green, made by the lawyer
    PRESTIGE = 5  # blue, built by the architect over a residence


class Effect(IntEnum):
    """Which phase-5 handler a building's worker triggers."""

    NONE = 0  # residences and prestige buildings take no worker
    PRODUCE = 1  # mandatory production, maybe with an "or" (phase 5 intro)
    BUILD_WOOD = 2  # carpenters (5a)
    BUILD_STONE = 3  # mason (5a)
    BUILD_PRESTIGE = 4  # architect (5b)
    LAWYER = 5  # lawyer (5c)
    MARKET = 6  # marketplaces (5d)
    PEDDLER = 7  # peddlers (5e)
    OPTIONS = 8  # church, tailor, bank, alchemist, jeweller (5f)


class BuildingId(IntEnum):
    """Every building that can stand on a road space."""

    FARM_NEUTRAL = 0
    FOREST = 1
    SAWMILL_NEUTRAL = 2
    QUARRY_NEUTRAL = 3
    CARPENTER_NEUTRAL = 4
    MARKETPLACE_NEUTRAL = 5
    PEDDLER_FIXED = 6
    CARPENTER_FIXED = 7
    GOLD_MINE = 8
    FARM_FOOD = 9
    FARM_CLOTH = 10
    SAWMILL = 11
    QUARRY = 12
    MARKETPLACE = 13
    PEDDLER = 14
    MASON = 15
    LAWYER = 16
    STONE_FARM = 17
    PARK = 18
    WORKSHOP = 19
    ARCHITECT = 20
    CHURCH = 21
    TAILOR = 22
    BANK = 23
    ALCHEMIST = 24
    JEWELLER = 25
    RESIDENCE = 26
    STATUE = 27
    THEATER = 28
    COLLEGE = 29
    MONUMENT = 30
    GRANARY = 31
    WEAVER = 32
    LIBRARY = 33
    HOTEL = 34
    CATHEDRAL = 35


NUM_BUILDINGS = 36
ANY_NON_GOLD = 5  # option cost kind: non-gold cubes in any mix (alchemist, rules 8.12)
NO_KIND = -1

F, W, S, C, G = (int(r) for r in Resource)


def _cubes(**counts: int) -> tuple[int, int, int, int, int]:
    """Cost/production vector from keyword counts, e.g. ``_cubes(food=2, cloth=1)``."""
    names = ("food", "wood", "stone", "cloth", "gold")
    unknown = set(counts) - set(names)
    if unknown:
        raise ValueError(f"unknown resource names {sorted(unknown)}; allowed: {names}")
    return tuple(counts.get(n, 0) for n in names)  # type: ignore[return-value]


#: Columns of ``B_OPTIONS[building, option]``, in ``Option`` field order.
OPTION_DENIERS, OPTION_CUBE_KIND, OPTION_CUBE_COUNT, OPTION_PRESTIGE, OPTION_GOLD = range(5)
NUM_OPTION_FIELDS = 5
MAX_BUILDING_OPTIONS = 2  # church, tailor, bank, alchemist, jeweller: two options each


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a church-like building: pay something, gain something (5f)."""

    deniers: int = 0
    cube_kind: int = NO_KIND  # a Resource, ANY_NON_GOLD, or NO_KIND
    cube_count: int = 0
    prestige: int = 0
    gold: int = 0


@dataclass(frozen=True, slots=True)
class BuildingSpec:
    """One building: its cost, what building it scores, and what its worker does."""

    id: BuildingId
    name: str  # stable snake_case name used in action strings (``build:<name>``)
    label: str  # English name in the rules reference
    kind: BuildingKind
    cost: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    cost_any: int = 0
    prestige: int = 0
    favors: int = 0
    income: int = 0
    effect: Effect = Effect.NONE
    produce: tuple[tuple[int, int, int, int, int], ...] = ()  # 1 option, or 2 for an "or"
    owner_bonus: tuple[int, ...] = ()  # kinds the owner may pick (stone production)
    market_price: int = 0
    peddler_max: int = 0  # cubes one activation may buy
    peddler_price: int = 0  # deniers per cube
    options: tuple[Option, ...] = ()
    copies: int = 1
    rule_ref: str = ""


# fmt: off
BUILDINGS: tuple[BuildingSpec, ...] = (
    # -- neutral tiles (3.2 N1-N6), shuffled onto road spaces 1-6 --------------------
    BuildingSpec(BuildingId.FARM_NEUTRAL, "farm_neutral", "Farm (neutral)", BuildingKind.NEUTRAL,
                 effect=Effect.PRODUCE, produce=(_cubes(food=1), _cubes(cloth=1)), rule_ref="3.2 N1"),
    BuildingSpec(BuildingId.FOREST, "forest", "Forest", BuildingKind.NEUTRAL,
                 effect=Effect.PRODUCE, produce=(_cubes(wood=1), _cubes(food=1)), rule_ref="3.2 N2"),
    BuildingSpec(BuildingId.SAWMILL_NEUTRAL, "sawmill_neutral", "Sawmill (neutral)",
                 BuildingKind.NEUTRAL, effect=Effect.PRODUCE, produce=(_cubes(wood=1),),
                 rule_ref="3.2 N3"),
    BuildingSpec(BuildingId.QUARRY_NEUTRAL, "quarry_neutral", "Quarry (neutral)",
                 BuildingKind.NEUTRAL, effect=Effect.PRODUCE, produce=(_cubes(stone=1),),
                 rule_ref="3.2 N4"),
    BuildingSpec(BuildingId.CARPENTER_NEUTRAL, "carpenter_neutral", "Carpenter (neutral)",
                 BuildingKind.NEUTRAL, effect=Effect.BUILD_WOOD, rule_ref="3.2 N5"),
    BuildingSpec(BuildingId.MARKETPLACE_NEUTRAL, "marketplace_neutral", "Marketplace (neutral)",
                 BuildingKind.NEUTRAL, effect=Effect.MARKET, market_price=4, rule_ref="3.2 N6"),
    # -- printed road buildings (3.1 FX1-FX3) ----------------------------------------
    BuildingSpec(BuildingId.PEDDLER_FIXED, "peddler_fixed", "Fixed peddler", BuildingKind.FIXED,
                 effect=Effect.PEDDLER, peddler_max=1, peddler_price=2, rule_ref="3.1 FX1"),
    BuildingSpec(BuildingId.CARPENTER_FIXED, "carpenter_fixed", "Fixed carpenter",
                 BuildingKind.FIXED, effect=Effect.BUILD_WOOD, rule_ref="3.1 FX2"),
    BuildingSpec(BuildingId.GOLD_MINE, "gold_mine", "Gold mine", BuildingKind.FIXED,
                 effect=Effect.PRODUCE, produce=(_cubes(gold=1),), rule_ref="3.1 FX3"),
    # -- wood tiles (3.2 W1-W8) --------------------------------------------------------
    BuildingSpec(BuildingId.FARM_FOOD, "farm_food", "Farm (food)", BuildingKind.WOOD,
                 cost=_cubes(wood=1, food=1), prestige=2, effect=Effect.PRODUCE,
                 produce=(_cubes(food=2), _cubes(cloth=1)), rule_ref="3.2 W1"),
    BuildingSpec(BuildingId.FARM_CLOTH, "farm_cloth", "Farm (cloth)", BuildingKind.WOOD,
                 cost=_cubes(wood=1, food=1), prestige=2, effect=Effect.PRODUCE,
                 produce=(_cubes(cloth=2), _cubes(food=1)), rule_ref="3.2 W2"),
    BuildingSpec(BuildingId.SAWMILL, "sawmill", "Sawmill", BuildingKind.WOOD,
                 cost=_cubes(wood=1, food=1), prestige=2, effect=Effect.PRODUCE,
                 produce=(_cubes(wood=2),), rule_ref="3.2 W3"),
    BuildingSpec(BuildingId.QUARRY, "quarry", "Quarry", BuildingKind.WOOD,
                 cost=_cubes(wood=1, food=1), prestige=2, effect=Effect.PRODUCE,
                 produce=(_cubes(stone=2),), rule_ref="3.2 W4"),
    BuildingSpec(BuildingId.MARKETPLACE, "marketplace", "Marketplace", BuildingKind.WOOD,
                 cost=_cubes(wood=1), cost_any=1, prestige=4, effect=Effect.MARKET,
                 market_price=6, rule_ref="3.2 W5"),
    BuildingSpec(BuildingId.PEDDLER, "peddler", "Peddler", BuildingKind.WOOD,
                 cost=_cubes(wood=1), cost_any=1, prestige=4, effect=Effect.PEDDLER,
                 peddler_max=2, peddler_price=1, rule_ref="3.2 W6"),
    BuildingSpec(BuildingId.MASON, "mason", "Mason", BuildingKind.WOOD,
                 cost=_cubes(wood=1, food=1), prestige=4, effect=Effect.BUILD_STONE,
                 rule_ref="3.2 W7"),
    BuildingSpec(BuildingId.LAWYER, "lawyer", "Lawyer", BuildingKind.WOOD,
                 cost=_cubes(wood=1, cloth=1), prestige=4, effect=Effect.LAWYER,
                 rule_ref="3.2 W8, 8.2 (prestige is a game option: 4 or 3)"),
    # -- stone tiles (3.2 S1-S9, J) ----------------------------------------------------
    BuildingSpec(BuildingId.STONE_FARM, "stone_farm", "Stone farm", BuildingKind.STONE,
                 cost=_cubes(stone=1, food=1), prestige=3, effect=Effect.PRODUCE,
                 produce=(_cubes(food=2, cloth=1),), owner_bonus=(F, C), rule_ref="3.2 S1"),
    BuildingSpec(BuildingId.PARK, "park", "Park", BuildingKind.STONE,
                 cost=_cubes(stone=1, food=1), prestige=3, effect=Effect.PRODUCE,
                 produce=(_cubes(wood=2, food=1),), owner_bonus=(W, F), rule_ref="3.2 S2"),
    BuildingSpec(BuildingId.WORKSHOP, "workshop", "Workshop", BuildingKind.STONE,
                 cost=_cubes(stone=1, food=1), prestige=3, effect=Effect.PRODUCE,
                 produce=(_cubes(stone=2, cloth=1),), owner_bonus=(S, C), rule_ref="3.2 S3"),
    BuildingSpec(BuildingId.ARCHITECT, "architect", "Architect", BuildingKind.STONE,
                 cost=_cubes(stone=1, food=1), prestige=6, effect=Effect.BUILD_PRESTIGE,
                 copies=2, rule_ref="3.2 S4/S5, 8.1 (two architects)"),
    BuildingSpec(BuildingId.CHURCH, "church", "Church", BuildingKind.STONE,
                 cost=_cubes(stone=1, cloth=1), prestige=3, favors=1, effect=Effect.OPTIONS,
                 options=(Option(deniers=2, prestige=3), Option(deniers=4, prestige=5)),
                 rule_ref="3.2 S6"),
    BuildingSpec(BuildingId.TAILOR, "tailor", "Tailor", BuildingKind.STONE,
                 cost=_cubes(stone=1, wood=1), prestige=6, effect=Effect.OPTIONS,
                 options=(Option(cube_kind=C, cube_count=2, prestige=4),
                          Option(cube_kind=C, cube_count=3, prestige=6)),
                 rule_ref="3.2 S7"),
    BuildingSpec(BuildingId.BANK, "bank", "Bank", BuildingKind.STONE,
                 cost=_cubes(stone=1, wood=1), prestige=6, effect=Effect.OPTIONS,
                 options=(Option(deniers=2, gold=1), Option(deniers=5, gold=2)),
                 rule_ref="3.2 S8"),
    BuildingSpec(BuildingId.ALCHEMIST, "alchemist", "Alchemist", BuildingKind.STONE,
                 cost=_cubes(stone=1, food=1), prestige=6, effect=Effect.OPTIONS,
                 options=(Option(cube_kind=ANY_NON_GOLD, cube_count=2, gold=1),
                          Option(cube_kind=ANY_NON_GOLD, cube_count=4, gold=2)),
                 rule_ref="3.2 S9, 8.12 (non-gold inputs)"),
    BuildingSpec(BuildingId.JEWELLER, "jeweller", "Jeweller", BuildingKind.STONE,
                 cost=_cubes(stone=1, cloth=1), prestige=6, effect=Effect.OPTIONS,
                 options=(Option(cube_kind=G, cube_count=1, prestige=5),
                          Option(cube_kind=G, cube_count=2, prestige=9)),
                 copies=0, rule_ref="3.2 J (opt-in variant, 8.1)"),
    # -- residences (3.2 R): made only by the lawyer, unlimited (8.4) -----------------
    BuildingSpec(BuildingId.RESIDENCE, "residence", "Residence", BuildingKind.RESIDENTIAL,
                 prestige=2, income=1, copies=0, rule_ref="3.2 R, 8.4"),
    # -- prestige tiles (3.2 P1-P9) ------------------------------------------------------
    BuildingSpec(BuildingId.STATUE, "statue", "Statue", BuildingKind.PRESTIGE,
                 cost=_cubes(stone=2, gold=1), prestige=7, favors=1, rule_ref="3.2 P1"),
    BuildingSpec(BuildingId.THEATER, "theater", "Theater", BuildingKind.PRESTIGE,
                 cost=_cubes(wood=3, gold=2), prestige=14, favors=1, rule_ref="3.2 P2"),
    BuildingSpec(BuildingId.COLLEGE, "college", "College", BuildingKind.PRESTIGE,
                 cost=_cubes(stone=3, gold=2), prestige=14, favors=1, rule_ref="3.2 P3"),
    BuildingSpec(BuildingId.MONUMENT, "monument", "Monument", BuildingKind.PRESTIGE,
                 cost=_cubes(stone=4, gold=2), prestige=14, favors=2, rule_ref="3.2 P4"),
    BuildingSpec(BuildingId.GRANARY, "granary", "Granary", BuildingKind.PRESTIGE,
                 cost=_cubes(food=3, gold=1), prestige=10, rule_ref="3.2 P5"),
    BuildingSpec(BuildingId.WEAVER, "weaver", "Weaver", BuildingKind.PRESTIGE,
                 cost=_cubes(cloth=3, gold=1), prestige=12, rule_ref="3.2 P6"),
    BuildingSpec(BuildingId.LIBRARY, "library", "Library", BuildingKind.PRESTIGE,
                 cost=_cubes(wood=3, gold=1), prestige=10, income=1, rule_ref="3.2 P7"),
    BuildingSpec(BuildingId.HOTEL, "hotel", "Hotel", BuildingKind.PRESTIGE,
                 cost=_cubes(stone=3, gold=2), prestige=16, income=2, rule_ref="3.2 P8"),
    BuildingSpec(BuildingId.CATHEDRAL, "cathedral", "Cathedral", BuildingKind.PRESTIGE,
                 cost=_cubes(stone=5, gold=3), prestige=25, rule_ref="3.2 P9"),
)
# fmt: on

BUILDING_NAMES: tuple[str, ...] = tuple(b.name for b in BUILDINGS)
NEUTRAL_TILES: tuple[BuildingId, ...] = tuple(
    b.id for b in BUILDINGS if b.kind == BuildingKind.NEUTRAL
)
#: Buildings a carpenter, mason or architect may construct, in ``build:*`` action order.
CONSTRUCTIBLE: tuple[BuildingId, ...] = tuple(
    b.id
    for b in BUILDINGS
    if b.kind in (BuildingKind.WOOD, BuildingKind.STONE, BuildingKind.PRESTIGE)
)


def _compile() -> dict[str, np.ndarray]:
    """Turn the table into the flat int arrays the numba kernels read as constants."""
    n = len(BUILDINGS)
    arrays = {
        "kind": np.zeros(n, np.int64),
        "cost": np.zeros((n, NUM_RESOURCES), np.int64),
        "cost_any": np.zeros(n, np.int64),
        "prestige": np.zeros(n, np.int64),
        "favors": np.zeros(n, np.int64),
        "income": np.zeros(n, np.int64),
        "effect": np.zeros(n, np.int64),
        "num_produce": np.zeros(n, np.int64),
        "produce": np.zeros((n, 2, NUM_RESOURCES), np.int64),
        "owner_bonus": np.zeros(n, np.int64),  # bit mask of resource kinds
        "market_price": np.zeros(n, np.int64),
        "peddler_max": np.zeros(n, np.int64),
        "peddler_price": np.zeros(n, np.int64),
        # options: (deniers, cube_kind, cube_count, prestige, gold) per option
        "options": np.full((n, MAX_BUILDING_OPTIONS, NUM_OPTION_FIELDS), 0, np.int64),
        "copies": np.zeros(n, np.int64),
        "takes_worker": np.zeros(n, np.int64),
    }
    for i, b in enumerate(BUILDINGS):
        if int(b.id) != i:
            raise ValueError(f"BUILDINGS[{i}] is {b.name} with id {int(b.id)}: order must match")
        arrays["kind"][i] = b.kind
        arrays["cost"][i] = b.cost
        arrays["cost_any"][i] = b.cost_any
        arrays["prestige"][i] = b.prestige
        arrays["favors"][i] = b.favors
        arrays["income"][i] = b.income
        arrays["effect"][i] = b.effect
        arrays["num_produce"][i] = len(b.produce)
        for j, vec in enumerate(b.produce):
            arrays["produce"][i, j] = vec
        for kind in b.owner_bonus:
            arrays["owner_bonus"][i] |= 1 << kind
        arrays["market_price"][i] = b.market_price
        arrays["peddler_max"][i] = b.peddler_max
        arrays["peddler_price"][i] = b.peddler_price
        arrays["options"][i, :, OPTION_CUBE_KIND] = NO_KIND
        for j, o in enumerate(b.options):
            arrays["options"][i, j] = (o.deniers, o.cube_kind, o.cube_count, o.prestige, o.gold)
        arrays["copies"][i] = b.copies
        arrays["takes_worker"][i] = b.effect != Effect.NONE
    return arrays


_ARRAYS = _compile()
B_KIND = _ARRAYS["kind"]
B_COST = _ARRAYS["cost"]
B_COST_ANY = _ARRAYS["cost_any"]
B_PRESTIGE = _ARRAYS["prestige"]
B_FAVORS = _ARRAYS["favors"]
B_INCOME = _ARRAYS["income"]
B_EFFECT = _ARRAYS["effect"]
B_NUM_PRODUCE = _ARRAYS["num_produce"]
B_PRODUCE = _ARRAYS["produce"]
B_OWNER_BONUS = _ARRAYS["owner_bonus"]
B_MARKET_PRICE = _ARRAYS["market_price"]
B_PEDDLER_MAX = _ARRAYS["peddler_max"]
B_PEDDLER_PRICE = _ARRAYS["peddler_price"]
B_OPTIONS = _ARRAYS["options"]
B_COPIES = _ARRAYS["copies"]
B_TAKES_WORKER = _ARRAYS["takes_worker"]
for _a in _ARRAYS.values():
    _a.setflags(write=False)
