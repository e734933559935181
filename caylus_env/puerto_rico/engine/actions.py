"""The flat Puerto Rico action space: contiguous blocks, one stable name per id.

One ``Discrete(NUM_ACTIONS)`` space serves every player count and every decision;
which ids are legal depends on the pending decision (``DecisionKind``). Targets are
typed (a tile kind, a building kind, a good), never board slots, and the storage at
the end of the captain phase is asked one kind at a time (rules 6.3, 6.6), so the
space stays small.

=======  ====  ===================================================================
block    size  names and meaning
=======  ====  ===================================================================
ROLE     8     ``role:<role>``: pick that role card (both prospector cards listed)
ACCEPT   1     ``accept``: use an optional effect (hacienda, hospice, university,
               mayor's privilege colonist)
DECLINE  1     ``decline``: do not use it / take nothing / build nothing / sell
               nothing / no extra barrel / keep nothing more / pass when only the
               wharf could still ship
SETTLE   6     ``settle:<tile>``: take a face-up plantation of that kind, or a quarry
PLACE    29    ``place:<tile>`` (6) and ``place:<building>`` (23): one colonist onto
               an empty circle of that tile kind or building
BUILD    23    ``build:<building>``
CRAFT    5     ``craft:<good>``: the craftsman's extra barrel
SELL     5     ``sell:<good>``: one barrel to the trading house
LOAD     15    ``load:<good>:ship<k>``: load that good on cargo ship k (1 = smallest)
WHARF    5     ``wharf:<good>``: ship every barrel of that good with the wharf
KEEP     5     ``keep:<good>``: a warehouse keeps the whole kind, or (windrose,
               storehouse) keep one barrel of it
DRAFT    31    ``draft:<building>``: a violet building for the supply (expansion)
SWHARF   5     ``small_wharf:<good>``: one barrel through the small wharf
POST     5     ``post:<good>``: sell one barrel to one's trading post
RETURN   50    ``return:vp``, ``return:<good>``, ``return:colonist:san_juan``,
               ``return:colonist:<tile>``, ``return:colonist:<building>``: what the
               black market takes back (a VP chip, a barrel, or a colonist from where
               it stands)
=======  ====  ===================================================================

The SETTLE block includes ``settle:forest`` (expansion, forest house); the PLACE block
has no forest (a forest takes no colonist).

``action_to_string`` / ``string_to_action`` convert both ways; the names are part of
the API and never change meaning within an engine version. The ``ACT_*`` offsets are
globals of the numba kernels, so this module is part of the compiled code whose sources
key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

from caylus_env.core.actions import ActionSpace
from caylus_env.puerto_rico.engine.buildings import BUILDING_NAMES, NUM_BUILDINGS, VIOLET
from caylus_env.puerto_rico.engine.constants import (
    GOOD_NAMES,
    MAX_SHIPS,
    NUM_GOODS,
    NUM_ROLES,
    NUM_TILES,
    NUM_WORKABLE_TILES,
    ROLE_NAMES,
    TILE_NAMES,
)


def _blocks() -> list[tuple[str, list[str]]]:
    blocks: list[tuple[str, list[str]]] = []

    def block(key: str, labels: list[str]) -> None:
        blocks.append((key, labels))

    block("ROLE", [f"role:{r}" for r in ROLE_NAMES])
    block("ACCEPT", ["accept"])
    block("DECLINE", ["decline"])
    block("SETTLE", [f"settle:{t}" for t in TILE_NAMES])
    workable = TILE_NAMES[:NUM_WORKABLE_TILES]
    block("PLACE", [f"place:{t}" for t in workable] + [f"place:{b}" for b in BUILDING_NAMES])
    block("BUILD", [f"build:{b}" for b in BUILDING_NAMES])
    block("CRAFT", [f"craft:{g}" for g in GOOD_NAMES])
    block("SELL", [f"sell:{g}" for g in GOOD_NAMES])
    block("LOAD", [f"load:{g}:ship{k + 1}" for g in GOOD_NAMES for k in range(MAX_SHIPS)])
    block("WHARF", [f"wharf:{g}" for g in GOOD_NAMES])
    block("KEEP", [f"keep:{g}" for g in GOOD_NAMES])
    block("DRAFT", [f"draft:{BUILDING_NAMES[b]}" for b in VIOLET])
    block("SWHARF", [f"small_wharf:{g}" for g in GOOD_NAMES])
    block("POST", [f"post:{g}" for g in GOOD_NAMES])
    block(
        "RETURN",
        ["return:vp"]
        + [f"return:{g}" for g in GOOD_NAMES]
        + ["return:colonist:san_juan"]
        + [f"return:colonist:{t}" for t in workable]
        + [f"return:colonist:{b}" for b in BUILDING_NAMES],
    )
    return blocks


#: Raise when an action keeps its name but changes meaning.
ACTION_SPACE_REVISION = 1
#: The action space (``caylus_env.core.actions``): blocks, names, codec and version.
SPACE = ActionSpace(
    _blocks(), ("role:mayor", "build:wharf", "load:corn:ship2"), ACTION_SPACE_REVISION
)
#: Block key -> ``(first id, size)``.
BLOCKS: dict[str, tuple[int, int]] = SPACE.blocks
ACTION_NAMES: tuple[str, ...] = SPACE.names
NUM_ACTIONS = SPACE.size
#: The action space a trained policy was made for: the revision and a digest of every name
#: in order (so a renamed or moved action changes it by itself). Checkpoints store it and
#: ``policy:PATH`` refuses another one, naming both.
ACTION_SPACE_VERSION = SPACE.version

ACT_ROLE = BLOCKS["ROLE"][0]  # + Role
ACT_ACCEPT = BLOCKS["ACCEPT"][0]
ACT_DECLINE = BLOCKS["DECLINE"][0]
ACT_SETTLE = BLOCKS["SETTLE"][0]  # + Tile
ACT_PLACE_TILE = BLOCKS["PLACE"][0]  # + Tile
ACT_PLACE_BUILDING = ACT_PLACE_TILE + NUM_WORKABLE_TILES  # + BuildingId
ACT_BUILD = BLOCKS["BUILD"][0]  # + BuildingId
ACT_CRAFT = BLOCKS["CRAFT"][0]  # + Good
ACT_SELL = BLOCKS["SELL"][0]  # + Good
ACT_LOAD = BLOCKS["LOAD"][0]  # + Good * MAX_SHIPS + ship
ACT_WHARF = BLOCKS["WHARF"][0]  # + Good
ACT_KEEP = BLOCKS["KEEP"][0]  # + Good
ACT_DRAFT = BLOCKS["DRAFT"][0]  # + index into buildings.VIOLET
ACT_SMALL_WHARF = BLOCKS["SWHARF"][0]  # + Good
ACT_POST = BLOCKS["POST"][0]  # + Good
ACT_RETURN_VP = BLOCKS["RETURN"][0]
ACT_RETURN_GOOD = ACT_RETURN_VP + 1  # + Good
ACT_RETURN_SAN_JUAN = ACT_RETURN_GOOD + NUM_GOODS
ACT_RETURN_TILE = ACT_RETURN_SAN_JUAN + 1  # + Tile
ACT_RETURN_BUILDING = ACT_RETURN_TILE + NUM_WORKABLE_TILES  # + BuildingId
assert BLOCKS["ROLE"][1] == NUM_ROLES and BLOCKS["BUILD"][1] == NUM_BUILDINGS
assert BLOCKS["PLACE"][1] == NUM_WORKABLE_TILES + NUM_BUILDINGS
assert BLOCKS["KEEP"][1] == NUM_GOODS and BLOCKS["SETTLE"][1] == NUM_TILES
assert ACT_RETURN_BUILDING + NUM_BUILDINGS == NUM_ACTIONS


#: The stable name of an action id (``ValueError`` outside ``[0, NUM_ACTIONS)``).
action_to_string = SPACE.action_to_string
#: The id of a stable name (``ValueError`` naming the unknown name and the known prefixes).
string_to_action = SPACE.string_to_action
