"""The pending-decision stack: one declared schema for every entry, and its kernels.

The state holds a small stack (``layout.STACK``) of entries ``(kind, player, arg)``;
its top is the question being asked. A role's driver pushes the next question when the
stack is empty; answering one may push another (a hospice colonist after a settled
tile, a university colonist after a build). ``SCHEMA`` says, once, what ``arg`` means
for each kind (its name, codec and inclusive domain); ``state_dict`` and the
invariants read it from here.
"""

from __future__ import annotations

from caylus_env.core.loop import CODEC_INT, E_KIND, NO_ARG, Arg, EntryKind, decision, stack_kernels
from caylus_env.puerto_rico.engine import layout
from caylus_env.puerto_rico.engine.buildings import NUM_BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    NUM_DECISION_KINDS,
    NUM_GOODS,
    NUM_PLANTATION_KINDS,
    NUM_TILES,
    DecisionKind,
)
from caylus_env.puerto_rico.engine.layout import (
    KIND_OFFSET,
    STACK_ENTRY,
)

# The field offsets inside one stack entry are the core's (E_KIND, E_PLAYER, E_ARG_A).
assert E_KIND == KIND_OFFSET
assert STACK_ENTRY == 3

CODEC_TILE = "tile"  # a Tile, spelled by its name
CODEC_BUILDING = "building"  # a BuildingId, spelled by its name
CODEC_GOODS = "goods"  # a bit set of goods, spelled as a list of names


#: Every decision kind, in id order.
SCHEMA: tuple[EntryKind, ...] = (
    decision(DecisionKind.ROLE, "role", NO_ARG, "pick a role card (rules 3.1)"),
    decision(DecisionKind.HACIENDA, "hacienda", NO_ARG, "draw a face-down plantation (2.4)"),
    decision(
        DecisionKind.SETTLE,
        "settle",
        Arg("library_extra", CODEC_INT, 0, 1, "1: the library's second tile (7.2)"),
        "take a face-up tile, a quarry or a forest (4.1, 7.3)",
    ),
    decision(
        DecisionKind.HOSPICE,
        "hospice",
        Arg("tile", CODEC_TILE, 0, NUM_TILES - 1, "the tile just placed"),
        "a colonist on the new tile (2.4)",
    ),
    decision(DecisionKind.MAYOR_PRIVILEGE, "mayor_privilege", NO_ARG, "the extra colonist (4.2)"),
    decision(DecisionKind.PLACE_COLONIST, "place_colonist", NO_ARG, "place one colonist (4.2)"),
    decision(DecisionKind.BUILD, "build", NO_ARG, "build one building or none (4.3)"),
    decision(
        DecisionKind.UNIVERSITY,
        "university",
        Arg("building", CODEC_BUILDING, 0, NUM_BUILDINGS - 1, "the building just built"),
        "a colonist on the new building (2.4)",
    ),
    decision(
        DecisionKind.CRAFT_PRIVILEGE,
        "craft_privilege",
        Arg("produced", CODEC_GOODS, 1, (1 << NUM_GOODS) - 1, "goods produced this phase"),
        "the craftsman's extra barrel (4.4)",
    ),
    decision(DecisionKind.SELL, "sell", NO_ARG, "sell one barrel or none (4.5)"),
    decision(DecisionKind.LOAD, "load", NO_ARG, "a loading turn (4.6)"),
    decision(
        DecisionKind.STORE_KIND,
        "store_kind",
        Arg("warehouse_kinds", CODEC_INT, 1, 3, "whole kinds the warehouses may still keep"),
        "a warehouse keeps a whole kind (4.7)",
    ),
    decision(
        DecisionKind.STORE_BARREL,
        "store_barrel",
        Arg("barrels", CODEC_INT, 1, 4, "single barrels he may still keep"),
        "the windrose barrel and the storehouse's (4.7, 7.2)",
    ),
    decision(DecisionKind.DRAFT, "draft", NO_ARG, "a violet building for the supply (7.1)"),
    decision(
        DecisionKind.FOREST,
        "forest",
        Arg("tile", CODEC_TILE, 0, NUM_PLANTATION_KINDS - 1, "the plantation drawn"),
        "the hacienda's tile as a forest (7.3)",
    ),
    decision(
        DecisionKind.BLACK_MARKET,
        "black_market",
        Arg("building", CODEC_BUILDING, 0, NUM_BUILDINGS - 1, "the building being bought"),
        "what to return to the black market (7.2)",
    ),
    decision(DecisionKind.GUEST_HOUSE, "guest_house", NO_ARG, "move a guest colonist (7.4)"),
    decision(
        DecisionKind.SMALL_WHARF,
        "small_wharf",
        Arg("barrels", CODEC_INT, 1, 60, "barrels shipped so far this turn"),
        "one more barrel or stop (7.2)",
    ),
)
assert [e.kind for e in SCHEMA] == list(range(NUM_DECISION_KINDS))
ENTRY_OF_NAME = {e.name: e for e in SCHEMA}


# The stack's kernels: the core's (``caylus_env.core.loop``), compiled over this layout and bound
# here by the names of its ``STACK_EXPORTS`` (``push``, ``pop``, ``read_top``, ``decision_kind`` ...).
STACK_KERNELS = stack_kernels("puerto_rico", "puerto rico", layout, globals())
