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

import hashlib

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


def _layout() -> tuple[dict[str, tuple[int, int]], list[str]]:
    blocks: dict[str, tuple[int, int]] = {}
    names: list[str] = []

    def block(key: str, labels: list[str]) -> None:
        blocks[key] = (len(names), len(labels))
        names.extend(labels)

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
    return blocks, names


BLOCKS, _NAMES = _layout()
ACTION_NAMES: tuple[str, ...] = tuple(_NAMES)
NUM_ACTIONS = len(ACTION_NAMES)
#: Raise when an id keeps its name but changes meaning (never within an engine version).
ACTION_SPACE_REVISION = 1
#: The revision and a digest of every id's name: any renamed, added or moved id changes it.
ACTION_SPACE_VERSION = (
    f"{ACTION_SPACE_REVISION}-" + hashlib.sha256("\n".join(ACTION_NAMES).encode()).hexdigest()[:8]
)
_NAME_TO_ID = {name: i for i, name in enumerate(ACTION_NAMES)}
assert len(_NAME_TO_ID) == NUM_ACTIONS, "action names must be unique"

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


def action_to_string(action_id: int) -> str:
    """The stable name of an action id, e.g. ``0 -> 'role:settler'``.

    Raises:
        ValueError: if the id is outside ``[0, NUM_ACTIONS)``.
    """
    if not 0 <= int(action_id) < NUM_ACTIONS:
        raise ValueError(f"action id {action_id} is out of range; allowed: 0..{NUM_ACTIONS - 1}")
    return ACTION_NAMES[int(action_id)]


def string_to_action(name: str) -> int:
    """The action id of a stable name, e.g. ``'load:corn:ship2'``.

    Raises:
        ValueError: naming the unknown string and the prefixes that exist.
    """
    try:
        return _NAME_TO_ID[name]
    except KeyError:
        prefixes = sorted({n.split(":")[0] for n in ACTION_NAMES})
        raise ValueError(
            f"unknown action name {name!r}; names look like 'role:mayor', 'build:wharf', "
            f"'load:corn:ship2'; known prefixes: {', '.join(prefixes)}"
        ) from None
