"""The flat Caylus 1303 action space: contiguous blocks, one stable name per id (D39).

One ``Discrete(NUM_ACTIONS)`` space serves every player count and every decision; which ids
are legal depends on the pending decision (``DecisionKind``). Each atomic choice is one
decision (D39), so the space stays small: a construction is one ``construct:<tile>``, and an
"any" resource still owed is asked afterwards as ``pay:<resource>``.

==========  ====  ===============================================================================
block       size  names and meaning
==========  ====  ===============================================================================
CHARACTER   12    ``character:<name>``: take that character (the draft, rules 3.3; a Favor's
                  available character, rules 4.5)
STEAL       12    ``steal:<name>``: a Favor takes that character from its holder (rules 4.5)
USE_SITE    3     ``use_site:S1``..``S3``: a Favor uses that Construction Site building
PLACE       27    ``place:<space>``: a worker on the Fairground, Lawyer, Carpenter, Toll or a
                  Road building R1..R23 (also the Journeyman's second worker, D26)
SITE        1     ``site``: a worker on the Construction Site (rules 4.1 B)
PASS        1     ``pass``: pass (rules 4.1 C)
DECLINE     1     ``decline``: use no effect / no Early Riser / no Provost move / deliver no
                  more bundles / build no more monuments (D18)
OPTION      2     ``option:1``, ``option:2``: the first or second option printed on the
                  activated building (rules 5.1-5.4)
TAKE        4     ``take:<resource>``: the resource of choice of a market (D12)
PAY         4     ``pay:<resource>``: one "any" resource still owed (D12)
CONSTRUCT   18    ``construct:<tile>``: a wood or stone building (rules 4.2, D22)
PROVOST     6     ``provost:-3``..``provost:+3`` (no 0): move the Provost (D20)
MARK        8     ``mark:R1``..``mark:R8``: the Lawyer's house on that starting building (D21)
BUNDLE      35    ``bundle:<r>+<r>+<r>``: deliver one bundle of those 3 resources (rules 4.3)
MONUMENT    7     ``monument:<name>``: build that monument (rules 4.4 b, D4)
RESIDENCE   8     ``residence:R1``..``residence:R8``: the residence of his own the monument just
                  paid for replaces, asked when he has two or more (rules 4.4 b, D4)
==========  ====  ===============================================================================

The blocks only ever grow at the end: RESIDENCE came with the rules fix that made the
residence a monument replaces the player's choice (the engine took the lowest-numbered one
before); its ids follow the Road order, so the first legal one is that old answer, which
older records replay with (``ADDED_CHOICES`` in ``caylus_env.caylus_1303.engine``) and older
policies, which score none of its ids, fall back to. A residence stands only on a starting
building, and those lie on R1..R8 only (rules 3.1; the Lawyer's targets, D21), so the block
has one id per such space.

``action_to_string`` / ``string_to_action`` convert both ways; the names are part of the API
and never change meaning within an engine version. The ``ACT_*`` offsets and the bundle table
are globals of the numba kernels, so this module is part of the compiled code whose sources
key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

from itertools import combinations_with_replacement

import numpy as np

from caylus_env.caylus_1303.engine.constants import (
    BUNDLE_SIZE,
    CHARACTER_NAMES,
    LAWYER_FIRST,
    LAWYER_LAST,
    MAX_PROVOST_STEPS,
    NUM_ANY,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_RESOURCES,
    RESOURCE_NAMES,
    ROAD_SPACES,
    SITE_BUILDINGS,
    SPACE_NAMES,
    STARTING_SPACES,
    Resource,
)
from caylus_env.caylus_1303.engine.tiles import CONSTRUCTIBLE_KINDS, KIND_NAMES, MONUMENT_KINDS
from caylus_env.core.actions import ActionSpace

#: Provost moves in block order: -3, -2, -1, +1, +2, +3.
PROVOST_DELTAS = np.array(
    [d for d in range(-MAX_PROVOST_STEPS, MAX_PROVOST_STEPS + 1) if d != 0], np.int64
)
#: Every bundle as counts per resource, in block order (multisets of 3 of the 5 resources).
BUNDLES = np.array(
    [
        np.bincount(np.array(c), minlength=NUM_RESOURCES)
        for c in combinations_with_replacement(range(NUM_RESOURCES), BUNDLE_SIZE)
    ],
    np.int64,
)
#: 1 for a bundle anybody may deliver: 3 different resources, food among them (rules 4.3);
#: the Chamberlain may deliver any bundle (D30).
BUNDLE_PLAIN = np.array([int(b.max() == 1 and b[Resource.FOOD] == 1) for b in BUNDLES], np.int64)
BUNDLES.setflags(write=False)
BUNDLE_PLAIN.setflags(write=False)


def _bundle_name(b: np.ndarray) -> str:
    return "+".join(RESOURCE_NAMES[r] for r in range(NUM_RESOURCES) for _ in range(b[r]))


def _blocks() -> list[tuple[str, list[str]]]:
    road = SPACE_NAMES[: NUM_PRINTED + ROAD_SPACES]
    return [
        ("CHARACTER", [f"character:{c}" for c in CHARACTER_NAMES]),
        ("STEAL", [f"steal:{c}" for c in CHARACTER_NAMES]),
        ("USE_SITE", [f"use_site:S{k}" for k in range(1, SITE_BUILDINGS + 1)]),
        ("PLACE", [f"place:{s}" for s in road]),
        ("SITE", ["site"]),
        ("PASS", ["pass"]),
        ("DECLINE", ["decline"]),
        ("OPTION", ["option:1", "option:2"]),
        ("TAKE", [f"take:{r}" for r in RESOURCE_NAMES[:NUM_ANY]]),
        ("PAY", [f"pay:{r}" for r in RESOURCE_NAMES[:NUM_ANY]]),
        ("CONSTRUCT", [f"construct:{KIND_NAMES[k]}" for k in CONSTRUCTIBLE_KINDS]),
        ("PROVOST", [f"provost:{d:+d}" for d in PROVOST_DELTAS]),
        ("MARK", [f"mark:R{k}" for k in range(LAWYER_FIRST, LAWYER_LAST + 1)]),
        ("BUNDLE", [f"bundle:{_bundle_name(b)}" for b in BUNDLES]),
        ("MONUMENT", [f"monument:{KIND_NAMES[k]}" for k in MONUMENT_KINDS]),
        ("RESIDENCE", [f"residence:R{k}" for k in range(1, STARTING_SPACES + 1)]),
    ]


#: Raise when an action keeps its name but changes meaning.
ACTION_SPACE_REVISION = 1
SPACE = ActionSpace(
    _blocks(), ("place:R3", "construct:manor", "bundle:food+wood+cloth"), ACTION_SPACE_REVISION
)
#: Block key -> ``(first id, size)``.
BLOCKS: dict[str, tuple[int, int]] = SPACE.blocks
ACTION_NAMES: tuple[str, ...] = SPACE.names
NUM_ACTIONS = SPACE.size
#: The action space a trained policy was made for (revision and a digest of every name).
ACTION_SPACE_VERSION = SPACE.version

ACT_CHARACTER = BLOCKS["CHARACTER"][0]  # + Character
ACT_STEAL = BLOCKS["STEAL"][0]  # + Character
ACT_USE_SITE = BLOCKS["USE_SITE"][0]  # + site building index (S1 = 0)
ACT_PLACE = BLOCKS["PLACE"][0]  # + space (printed a-d, then R1..R23)
ACT_SITE = BLOCKS["SITE"][0]
ACT_PASS = BLOCKS["PASS"][0]
ACT_DECLINE = BLOCKS["DECLINE"][0]
ACT_OPTION = BLOCKS["OPTION"][0]  # + option index
ACT_TAKE = BLOCKS["TAKE"][0]  # + Resource (food..cloth)
ACT_PAY = BLOCKS["PAY"][0]  # + Resource (food..cloth)
ACT_CONSTRUCT = BLOCKS["CONSTRUCT"][0]  # + index into tiles.CONSTRUCTIBLE_KINDS
ACT_PROVOST = BLOCKS["PROVOST"][0]  # + index into PROVOST_DELTAS
ACT_MARK = BLOCKS["MARK"][0]  # + k - LAWYER_FIRST for Rk
ACT_BUNDLE = BLOCKS["BUNDLE"][0]  # + index into BUNDLES
ACT_MONUMENT = BLOCKS["MONUMENT"][0]  # + index into tiles.MONUMENT_KINDS
ACT_RESIDENCE = BLOCKS["RESIDENCE"][0]  # + k - 1 for Rk
NUM_BUNDLES = len(BUNDLES)
assert BLOCKS["CHARACTER"][1] == NUM_CHARACTERS and NUM_BUNDLES == 35
assert ACT_MONUMENT + len(MONUMENT_KINDS) == ACT_RESIDENCE
assert ACT_RESIDENCE + STARTING_SPACES == NUM_ACTIONS

#: The stable name of an action id (``ValueError`` outside ``[0, NUM_ACTIONS)``).
action_to_string = SPACE.action_to_string
#: The id of a stable name (``ValueError`` naming the unknown name and the known prefixes).
string_to_action = SPACE.string_to_action
