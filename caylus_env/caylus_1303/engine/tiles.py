"""Every tile of Caylus 1303 in one declarative table: printed spaces, starting, wood and
stone buildings (both sides) and monuments (rules 5.1-5.5, D11).

One frozen `Tile` row per kind says its group, copies, building cost and prestige, and what
each side does as data: an `Effect` is a type (options, a resource of choice, a construction,
a Provost move, the Lawyer's mark) with up to two `Option` rows of cost and gain. The
kernels read the compiled arrays below as globals and interpret them; no kernel names a
tile's numbers. The rows keep the numbers of ``docs/rules/caylus_1303.md`` 5.1-5.5, whose
test (``tests/caylus_1303/test_docs_rules.py``) compares them with this table.

Cost keys: ``food``, ``wood``, ``stone``, ``cloth``, ``gold``, ``any`` (one of food, wood,
stone, cloth, the payer's choice, D12) and ``workers`` (returned from hand to the Camp).
Gain keys: the five resources, ``workers`` (taken from the Camp, D15), ``pp`` and ``favor``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from caylus_env.caylus_1303.engine.rules import value


class Group(IntEnum):
    """Tile groups (rules 5): the flag colour of a building, or a printed space or monument."""

    PRINTED = 0
    STARTING = 1
    WOOD = 2
    STONE = 3
    MONUMENT = 4


class EffectType(IntEnum):
    """What a side of a tile does when a worker (or a Favor, rules 4.5) uses it."""

    NONE = 0  # a residence or a monument: no activated effect (D3)
    OPTIONS = 1  # one of its options: pay the cost, take the gain
    TAKE = 2  # pay option 0's cost, take 1 resource of choice (D12)
    CONSTRUCT = 3  # construct a tile of the effect's group (rules 4.2, D22)
    TOLL = 4  # move the Provost 0-2 steps (rules 5.1, D20)
    LAWYER = 5  # mark a starting building on R1-R8 (rules 5.1, D21)


#: Cost columns, in order; ``any`` is one of food, wood, stone, cloth (D12).
COST_KEYS = ("food", "wood", "stone", "cloth", "gold", "any", "workers")
#: Gain columns, in order.
GAIN_KEYS = ("food", "wood", "stone", "cloth", "gold", "workers", "pp", "favor")
SIDE_SETUP = 0
SIDE_CONSTRUCTION = 1
SIDE_RESIDENCE = 2  # starting tiles turned by the Lawyer (D3, D32)
SIDE_NAMES = ("setup", "construction", "residence")
MAX_OPTIONS = 2


@dataclass(frozen=True)
class Option:
    cost: Mapping[str, int] = field(default_factory=dict)
    gain: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Effect:
    type: EffectType
    options: tuple[Option, ...] = ()
    group: Group | None = None  # CONSTRUCT: the supply it builds from
    discount: Mapping[str, int] = field(default_factory=dict)  # CONSTRUCT: off the cost


@dataclass(frozen=True)
class Tile:
    """One kind of tile. ``setup`` is the side placed at setup (the only side of a printed
    space); ``construction`` the side of a constructed wood or stone building."""

    name: str
    title: str
    group: Group
    copies: int = 1
    cost: Mapping[str, int] = field(default_factory=dict)
    pp: int = 0
    setup: Effect = Effect(EffectType.NONE)
    construction: Effect = Effect(EffectType.NONE)
    owner_bonus: Mapping[str, int] = field(default_factory=dict)  # construction side (D19)
    income: Mapping[str, int] = field(default_factory=dict)  # monuments (D5, D35)
    favor_when_built: int = 0  # monuments: the Theatre (D4)


def _opts(*pairs: tuple[dict, dict]) -> Effect:
    return Effect(EffectType.OPTIONS, tuple(Option(c, g) for c, g in pairs))


def _same(e: Effect) -> dict:
    return {"setup": e, "construction": e}


def _produce(construction: dict, setup: dict) -> dict:
    return {"construction": _opts(({}, construction)), "setup": _opts(({}, setup))}


_LAWYER = value("lawyer_cost")
_CONSTRUCT_WOOD = Effect(EffectType.CONSTRUCT, group=Group.WOOD)
_TAKE = Effect(EffectType.TAKE, (Option(),))

#: Every tile kind, in id order (rules 5.1-5.5).
TILES: tuple[Tile, ...] = (
    # -- 5.1 printed spaces a-d (positions fixed, neutral) --------------------------------------
    Tile("fairground", "Fairground", Group.PRINTED, setup=_opts(({"wood": 1}, {"favor": 1}))),
    Tile(
        "lawyer",
        "Lawyer",
        Group.PRINTED,
        setup=Effect(EffectType.LAWYER, (Option({"cloth": _LAWYER["cloth"]}),)),
    ),
    Tile("carpenter", "Carpenter", Group.PRINTED, setup=_CONSTRUCT_WOOD),
    Tile("toll", "Toll", Group.PRINTED, setup=Effect(EffectType.TOLL)),
    # -- 5.2 starting buildings (Setup side; the other side is the residence, D32) -------------
    Tile("farm", "Farm", Group.STARTING, copies=2, setup=_opts(({}, {"food": 1}))),
    Tile("quarry", "Quarry", Group.STARTING, setup=_opts(({}, {"stone": 1}))),
    Tile("sawmill", "Sawmill", Group.STARTING, setup=_opts(({}, {"wood": 1}))),
    Tile(
        "market",
        "Market",
        Group.STARTING,
        copies=2,
        setup=Effect(EffectType.TAKE, (Option({"workers": 1}),)),
    ),
    Tile("guild_3", "Guild (3)", Group.STARTING, setup=_opts(({"any": 1}, {"workers": 3}))),
    Tile("guild_4", "Guild (4)", Group.STARTING, setup=_opts(({"stone": 1}, {"workers": 4}))),
    Tile("starting_carpenter", "Carpenter (starting)", Group.STARTING, setup=_CONSTRUCT_WOOD),
    # -- 5.3 wood buildings -----------------------------------------------------------------------
    Tile(
        "covered_market",
        "Covered market",
        Group.WOOD,
        cost={"wood": 1, "any": 1},
        pp=3,
        construction=_opts(({}, {"workers": 3})),
        setup=_opts(({}, {"workers": 2, "pp": 1})),
    ),
    Tile(
        "manor",
        "Manor",
        Group.WOOD,
        cost={"wood": 1, "cloth": 1},
        pp=4,
        construction=_opts(({}, {"favor": 1})),
        setup=_opts(({}, {"pp": 2})),
    ),
    Tile(
        "tailor",
        "Tailor",
        Group.WOOD,
        cost={"wood": 1, "any": 1},
        pp=4,
        **_same(_opts(({"cloth": 1}, {"pp": 4}), ({"cloth": 2}, {"pp": 6}))),
    ),
    Tile(
        "stonemason",
        "Stonemason",
        Group.WOOD,
        cost={"wood": 1, "any": 1},
        pp=4,
        construction=Effect(EffectType.CONSTRUCT, group=Group.STONE),
        setup=Effect(
            EffectType.CONSTRUCT,
            group=Group.STONE,
            discount=value("construction")["stonemason_setup_discount"],
        ),
    ),
    Tile(
        "wooden_market",
        "Wooden market",
        Group.WOOD,
        cost={"wood": 1, "food": 1},
        pp=3,
        **_same(_TAKE),
    ),
    Tile(
        "wooden_farm",
        "Wooden farm",
        Group.WOOD,
        cost={"wood": 1, "food": 1},
        pp=2,
        **_produce({"food": 2}, {"food": 1, "pp": 1}),
    ),
    Tile(
        "wooden_quarry",
        "Wooden quarry",
        Group.WOOD,
        cost={"wood": 1, "food": 1},
        pp=2,
        **_produce({"stone": 2}, {"stone": 1, "pp": 1}),
    ),
    Tile(
        "wooden_sawmill",
        "Wooden sawmill",
        Group.WOOD,
        cost={"wood": 1, "food": 1},
        pp=2,
        **_produce({"wood": 2}, {"wood": 1, "pp": 1}),
    ),
    Tile(
        "spinning_mill",
        "Spinning mill",
        Group.WOOD,
        cost={"wood": 2},
        pp=2,
        **_produce({"cloth": 2}, {"cloth": 1, "pp": 1}),
    ),
    # -- 5.4 stone buildings ----------------------------------------------------------------------
    Tile(
        "gold_mine",
        "Gold mine",
        Group.STONE,
        cost={"stone": 1, "food": 1},
        pp=4,
        **_same(_opts(({}, {"gold": 1}))),
    ),
    Tile(
        "foundry",
        "Foundry",
        Group.STONE,
        cost={"stone": 1, "wood": 1},
        pp=5,
        **_same(_opts(({"workers": 1}, {"gold": 1}), ({"workers": 3}, {"gold": 2}))),
    ),
    Tile(
        "alchemist",
        "Alchemist",
        Group.STONE,
        cost={"stone": 1, "wood": 1},
        pp=5,
        **_same(_opts(({"any": 1}, {"gold": 1}), ({"any": 2}, {"gold": 2}))),
    ),
    Tile(
        "stone_guild",
        "Stone guild",
        Group.STONE,
        cost={"stone": 1, "any": 1},
        pp=4,
        **_same(_opts(({"any": 1}, {"workers": 5}))),
    ),
    Tile(
        "church",
        "Church",
        Group.STONE,
        cost={"stone": 1, "cloth": 1},
        pp=5,
        **_same(_opts(({"workers": 2}, {"pp": 4}), ({"workers": 4}, {"pp": 6}))),
    ),
    Tile(
        "jeweler",
        "Jeweler",
        Group.STONE,
        cost={"stone": 1, "wood": 1},
        pp=5,
        **_same(_opts(({"gold": 1}, {"pp": 5}), ({"gold": 2}, {"pp": 9}))),
    ),
    Tile(
        "stone_farm",
        "Stone farm",
        Group.STONE,
        cost={"stone": 1, "food": 1},
        pp=3,
        owner_bonus={"food": 1},
        **_produce({"food": 2, "cloth": 1}, {"food": 1, "cloth": 1}),
    ),
    Tile(
        "stone_quarry",
        "Stone quarry",
        Group.STONE,
        cost={"stone": 1, "food": 1},
        pp=3,
        owner_bonus={"stone": 1},
        **_produce({"stone": 2, "cloth": 1}, {"stone": 1, "cloth": 1}),
    ),
    Tile(
        "stone_sawmill",
        "Stone sawmill",
        Group.STONE,
        cost={"stone": 1, "food": 1},
        pp=3,
        owner_bonus={"wood": 1},
        **_produce({"wood": 2, "cloth": 1}, {"wood": 1, "cloth": 1}),
    ),
    # -- 5.5 monuments ------------------------------------------------------------------------------
    Tile("mansion", "Mansion", Group.MONUMENT, cost={"gold": 5, "stone": 5}, pp=20),
    Tile("cathedral", "Cathedral", Group.MONUMENT, cost={"gold": 3, "stone": 3}, pp=15),
    Tile(
        "theatre", "Theatre", Group.MONUMENT, cost={"gold": 3, "wood": 4}, pp=12, favor_when_built=1
    ),
    Tile("statue", "Statue", Group.MONUMENT, cost={"gold": 1, "stone": 2}, pp=7),
    Tile(
        "granary", "Granary", Group.MONUMENT, cost={"gold": 1, "stone": 1}, pp=7, income={"food": 1}
    ),
    Tile(
        "factory",
        "Factory",
        Group.MONUMENT,
        cost={"gold": 1, "cloth": 1},
        pp=5,
        income={"cloth": 1},
    ),
    Tile(
        "garden",
        "Garden",
        Group.MONUMENT,
        cost={"gold": 1, "wood": 1},
        pp=4,
        income={"workers": value("worker_income")["per_garden"]},
    ),
)

NUM_KINDS = len(TILES)
KIND_NAMES: tuple[str, ...] = tuple(t.name for t in TILES)
KIND_OF: Mapping[str, int] = {t.name: i for i, t in enumerate(TILES)}


def kinds_of(group: Group) -> np.ndarray:
    """The kind ids of a group, in table order."""
    return np.array([i for i, t in enumerate(TILES) if t.group == group], np.int64)


PRINTED_KINDS = kinds_of(Group.PRINTED)
STARTING_KINDS = kinds_of(Group.STARTING)
WOOD_KINDS = kinds_of(Group.WOOD)
STONE_KINDS = kinds_of(Group.STONE)
MONUMENT_KINDS = kinds_of(Group.MONUMENT)
#: The 9 starting tiles, one entry per copy (the setup shuffle's deck, rules 3.2).
STARTING_DECK = np.array([i for i in STARTING_KINDS for _ in range(TILES[i].copies)], np.int64)
NUM_STARTING_TILES = len(STARTING_DECK)
NUM_WOOD = len(WOOD_KINDS)
NUM_STONE = len(STONE_KINDS)
NUM_MONUMENTS = len(MONUMENT_KINDS)
#: Kinds an agent constructs (wood then stone): the ``construct:<tile>`` block's order.
CONSTRUCTIBLE_KINDS = np.concatenate([WOOD_KINDS, STONE_KINDS])
STONEMASON = KIND_OF["stonemason"]
GARDEN = KIND_OF["garden"]


def _vec(d: Mapping[str, int], keys: tuple[str, ...]) -> list[int]:
    unknown = set(d) - set(keys)
    assert not unknown, f"unknown keys {unknown}; allowed: {keys}"
    return [int(d.get(k, 0)) for k in keys]


def _compile() -> dict[str, np.ndarray]:
    n = NUM_KINDS
    a = {
        "group": np.zeros(n, np.int64),
        "cost": np.zeros((n, len(COST_KEYS)), np.int64),
        "pp": np.zeros(n, np.int64),
        "etype": np.zeros((n, 2), np.int64),
        "egroup": np.full((n, 2), -1, np.int64),
        "nopt": np.zeros((n, 2), np.int64),
        "ocost": np.zeros((n, 2, MAX_OPTIONS, len(COST_KEYS)), np.int64),
        "ogain": np.zeros((n, 2, MAX_OPTIONS, len(GAIN_KEYS)), np.int64),
        "discount": np.zeros((n, 2, len(COST_KEYS)), np.int64),
        "bonus": np.zeros((n, len(GAIN_KEYS)), np.int64),
        "income": np.zeros((n, len(GAIN_KEYS)), np.int64),
        "favor": np.zeros(n, np.int64),
    }
    for k, t in enumerate(TILES):
        a["group"][k] = t.group
        a["cost"][k] = _vec(t.cost, COST_KEYS)
        a["pp"][k] = t.pp
        a["bonus"][k] = _vec(t.owner_bonus, GAIN_KEYS)
        a["income"][k] = _vec(t.income, GAIN_KEYS)
        a["favor"][k] = t.favor_when_built
        for side, e in ((SIDE_SETUP, t.setup), (SIDE_CONSTRUCTION, t.construction)):
            assert len(e.options) <= MAX_OPTIONS, t.name
            a["etype"][k, side] = e.type
            a["egroup"][k, side] = -1 if e.group is None else int(e.group)
            a["nopt"][k, side] = len(e.options)
            a["discount"][k, side] = _vec(e.discount, COST_KEYS)
            for o, opt in enumerate(e.options):
                a["ocost"][k, side, o] = _vec(opt.cost, COST_KEYS)
                a["ogain"][k, side, o] = _vec(opt.gain, GAIN_KEYS)
    for arr in a.values():
        arr.setflags(write=False)
    return a


_A = _compile()
T_GROUP = _A["group"]
T_COST = _A["cost"]  # [kind, COST_KEYS]: the price of constructing it (rules 5.3-5.5)
T_PP = _A["pp"]  # prestige when constructed
T_EFFECT = _A["etype"]  # [kind, side]: EffectType
T_EFFECT_GROUP = _A["egroup"]  # [kind, side]: CONSTRUCT's group
T_NUM_OPTIONS = _A["nopt"]  # [kind, side]
T_OPTION_COST = _A["ocost"]  # [kind, side, option, COST_KEYS]
T_OPTION_GAIN = _A["ogain"]  # [kind, side, option, GAIN_KEYS]
T_DISCOUNT = _A["discount"]  # [kind, side, COST_KEYS]: CONSTRUCT's discount (D22)
T_OWNER_BONUS = _A["bonus"]  # [kind, GAIN_KEYS]: construction side only (D19)
T_INCOME = _A["income"]  # [kind, GAIN_KEYS]: monuments' Stewardship income (D35)
T_FAVOR_WHEN_BUILT = _A["favor"]  # [kind]: the Theatre (D4)

C_FOOD, C_WOOD, C_STONE, C_CLOTH, C_GOLD, C_ANY, C_WORKERS = range(len(COST_KEYS))
G_FOOD, G_WOOD, G_STONE, G_CLOTH, G_GOLD, G_WORKERS, G_PP, G_FAVOR = range(len(GAIN_KEYS))
