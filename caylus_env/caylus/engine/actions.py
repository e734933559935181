"""The flat action space: contiguous blocks, one stable name per id.

One ``Discrete(NUM_ACTIONS)`` space serves every player count and every decision.
Which ids are legal depends on the pending decision (``DecisionKind``); a block
may serve several decisions (``take:*`` answers a production "or", the stone
building owner's bonus, a peddler purchase and the favor resource row).

======  =========  ===============================================================
block    size       names and meaning
======  =========  ===============================================================
PASS     1          ``pass``: pass in phase 2 (placement) or phase 4 (provost)
DECLINE  1          ``decline``: do not use an optional effect / build nothing /
                    stop giving batches / the gate worker goes home
PLACE    35         ``place:<target>``: a worker on gate, trading_post,
                    merchants_guild, joust_field, stables, inn, castle, road:1-28
GATE     34         ``gate:<target>``: where the gate moves its worker (no gate)
GUILD    6          ``guild:-3`` .. ``guild:+3`` (no 0): merchants' guild provost move
JOUST    1          ``joust``: pay 1 denier + 1 cloth for a favor
INN      2          ``inn:stay``, ``inn:leave``: the resident's choice
PROVOST  6          ``provost:-3`` .. ``provost:+3`` (no 0): 1 denier per space
TAKE     5          ``take:<cube>``: food, wood, stone, cloth, gold
PAY      5          ``pay:<cube>``: give or sell a cube of that kind
OPTION   2          ``option:1``, ``option:2``: church/tailor/bank/alchemist/jeweller
BUILD    26         ``build:<building>``: every wood, stone and prestige tile
SPACE    28         ``space:1`` .. ``space:28``: lawyer target, architect residence
BATCH    6          ``batch:food+<a>+<b>``: a castle batch of that composition
FAVOR    4          ``favor:<row>``: prestige, deniers, resources, buildings
COLUMN   5          ``column:1`` .. ``column:5``: the effect used on the chosen row
======  =========  ===============================================================

``action_to_string`` / ``string_to_action`` convert both ways; the names are part
of the API (records, playthroughs and logs use them) and never change meaning
within an env version.
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus.engine.board import NUM_TARGETS, ROAD_LEN, TARGET_NAMES
from caylus_env.caylus.engine.buildings import BUILDINGS, CONSTRUCTIBLE, NUM_BUILDINGS
from caylus_env.caylus.engine.constants import (
    FAVOR_ROW_NAMES,
    MAX_PROVOST_STEP,
    NUM_FAVOR_COLUMNS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    RESOURCE_NAMES,
    Resource,
)
from caylus_env.core.actions import ActionSpace

# Castle batch compositions (phase 6): food plus two different kinds of W, S, C, G.
BATCH_PAIRS: tuple[tuple[int, int], ...] = (
    (Resource.WOOD, Resource.STONE),
    (Resource.WOOD, Resource.CLOTH),
    (Resource.WOOD, Resource.GOLD),
    (Resource.STONE, Resource.CLOTH),
    (Resource.STONE, Resource.GOLD),
    (Resource.CLOTH, Resource.GOLD),
)
NUM_BATCH_KINDS = len(BATCH_PAIRS)
# Signed moves of the provost (phase 4) and of the merchants' guild (phase 3c).
PROVOST_DELTAS: tuple[int, ...] = tuple(
    d for d in range(-MAX_PROVOST_STEP, MAX_PROVOST_STEP + 1) if d != 0
)
NUM_PROVOST_MOVES = len(PROVOST_DELTAS)


def _blocks() -> list[tuple[str, list[str]]]:
    blocks: list[tuple[str, list[str]]] = []

    def block(key: str, labels: list[str]) -> None:
        blocks.append((key, labels))

    block("PASS", ["pass"])
    block("DECLINE", ["decline"])
    block("PLACE", [f"place:{t}" for t in TARGET_NAMES])
    block("GATE", [f"gate:{t}" for t in TARGET_NAMES[1:]])
    block("GUILD", [f"guild:{d:+d}" for d in PROVOST_DELTAS])
    block("JOUST", ["joust"])
    block("INN", ["inn:stay", "inn:leave"])
    block("PROVOST", [f"provost:{d:+d}" for d in PROVOST_DELTAS])
    block("TAKE", [f"take:{r}" for r in RESOURCE_NAMES])
    block("PAY", [f"pay:{r}" for r in RESOURCE_NAMES])
    block("OPTION", ["option:1", "option:2"])
    block("BUILD", [f"build:{BUILDINGS[b].name}" for b in CONSTRUCTIBLE])
    block("SPACE", [f"space:{k}" for k in range(1, ROAD_LEN + 1)])
    block("BATCH", [f"batch:food+{RESOURCE_NAMES[a]}+{RESOURCE_NAMES[b]}" for a, b in BATCH_PAIRS])
    block("FAVOR", [f"favor:{r}" for r in FAVOR_ROW_NAMES])
    block("COLUMN", [f"column:{c}" for c in range(1, NUM_FAVOR_COLUMNS + 1)])
    return blocks


#: Raise when an action keeps its name but changes meaning.
ACTION_SPACE_REVISION = 1
#: The action space (``caylus_env.core.actions``): blocks, names, codec and version.
SPACE = ActionSpace(_blocks(), ("place:gate", "provost:-2", "build:statue"), ACTION_SPACE_REVISION)
#: Block key -> ``(first id, size)``.
BLOCKS: dict[str, tuple[int, int]] = SPACE.blocks
ACTION_NAMES: tuple[str, ...] = SPACE.names
NUM_ACTIONS = SPACE.size
#: The action space a trained policy was made for: the revision and a digest of every name
#: in order (so a renamed or moved action changes it by itself). Checkpoints store it and
#: ``policy:PATH`` refuses another one, naming both.
ACTION_SPACE_VERSION = SPACE.version

ACT_PASS = BLOCKS["PASS"][0]
ACT_DECLINE = BLOCKS["DECLINE"][0]
ACT_PLACE = BLOCKS["PLACE"][0]  # + target
ACT_GATE = BLOCKS["GATE"][0] - 1  # + target (target 0, the gate itself, has no id)
ACT_GUILD = BLOCKS["GUILD"][0]  # + index into PROVOST_DELTAS
ACT_JOUST = BLOCKS["JOUST"][0]
ACT_INN_STAY = BLOCKS["INN"][0]
ACT_INN_LEAVE = ACT_INN_STAY + 1
ACT_PROVOST = BLOCKS["PROVOST"][0]  # + index into PROVOST_DELTAS
ACT_TAKE = BLOCKS["TAKE"][0]  # + Resource
ACT_PAY = BLOCKS["PAY"][0]  # + Resource
ACT_OPTION = BLOCKS["OPTION"][0]  # + option index 0/1
ACT_BUILD = BLOCKS["BUILD"][0]  # + (BuildingId - BUILD_ID_BASE)
ACT_SPACE = BLOCKS["SPACE"][0] - 1  # + road space 1..28
ACT_BATCH = BLOCKS["BATCH"][0]  # + index into BATCH_PAIRS
ACT_FAVOR = BLOCKS["FAVOR"][0]  # + FavorRow
ACT_COLUMN = BLOCKS["COLUMN"][0] - 1  # + column 1..5

#: ``build:*`` action id of each BuildingId (-1 for buildings nobody constructs).
BUILD_ACTION_OF = np.full(NUM_BUILDINGS, -1, np.int64)
for _i, _b in enumerate(CONSTRUCTIBLE):
    BUILD_ACTION_OF[_b] = ACT_BUILD + _i
#: BuildingId of each ``build:*`` action, in block order.
BUILDING_OF_BUILD = np.array([int(b) for b in CONSTRUCTIBLE], np.int64)
NUM_BUILD_ACTIONS = len(CONSTRUCTIBLE)
BATCH_A = np.array([a for a, _ in BATCH_PAIRS], np.int64)
BATCH_B = np.array([b for _, b in BATCH_PAIRS], np.int64)
DELTAS = np.array(PROVOST_DELTAS, np.int64)
for _a in (BUILD_ACTION_OF, BUILDING_OF_BUILD, BATCH_A, BATCH_B, DELTAS):
    _a.setflags(write=False)
assert BLOCKS["PLACE"][1] == NUM_TARGETS
assert BLOCKS["TAKE"][1] == NUM_RESOURCES and BLOCKS["FAVOR"][1] == NUM_FAVOR_ROWS


#: The stable name of an action id (``ValueError`` outside ``[0, NUM_ACTIONS)``).
action_to_string = SPACE.action_to_string
#: The id of a stable name (``ValueError`` naming the unknown name and the known prefixes).
string_to_action = SPACE.string_to_action
