"""The pending-decision stack: one declared schema for every entry, and its kernels.

The state holds a small stack of pending entries (``layout.STACK``). Each entry is
``STACK_ENTRY`` int16 values: ``(kind, player, arg_a, arg_b)``. Its top is either a
``DecisionKind`` (a question to ``player``) or a ``Procedure`` (an automatic
continuation the engine runs once the decisions above it are resolved: TAG's
extended-sequence pattern).

``SCHEMA`` says, once, what ``arg_a`` and ``arg_b`` mean for each kind: their name,
their *codec* (how the readable state dict spells them) and their *domain* (the
values a well-formed state may hold). ``state_dict`` reads and writes entries from
it, the observation encoder copies each argument into the piece its codec names,
and the validation of untrusted states checks each argument against its domain.

The stack's kernels (``push``, ``pop``, ``top``, ``decision_kind`` ...) are the core's
(``caylus_env.core.loop``, compiled over this layout), the only code that touches stack
offsets; rules, bots and search read the stack through them.
"""

from __future__ import annotations

import numpy as np

from caylus_env.caylus.engine import layout
from caylus_env.caylus.engine.board import ROAD_LEN
from caylus_env.caylus.engine.buildings import B_PEDDLER_MAX, NUM_BUILDINGS
from caylus_env.caylus.engine.constants import (
    MAX_PLAYERS,
    NUM_BUILD_SOURCES,
    NUM_DECISION_KINDS,
    NUM_FAVOR_ROWS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    DecisionKind,
    Procedure,
)
from caylus_env.caylus.engine.layout import KIND_OFFSET, STACK_ENTRY
from caylus_env.core.loop import (
    CODEC_INT,
    E_ARG_A,
    E_KIND,
    Arg,
    EntryKind,
    stack_kernels,
)

# The field offsets inside one stack entry are the core's (E_KIND, E_PLAYER, E_ARG_A, E_ARG_B).
assert E_KIND == KIND_OFFSET
assert STACK_ENTRY == 4

#: Codecs of an argument (beside the core's ``CODEC_NONE`` and ``CODEC_INT``): how
#: ``state_dict`` spells it and which observation piece carries it
#: (``observation.DECISION_PIECE_OF``).
CODEC_BUILDING = "building"  # a BuildingId, spelled by its name
CODEC_SOURCE = "source"  # a BuildSource, spelled by its lower-case name
CODEC_ROW = "row"  # a FavorRow, spelled by its name
CODEC_MASK = "mask"  # a bit set of Resource kinds, spelled as a list of names
CODEC_SECTION = "section"  # a castle Section, spelled by its name
CODEC_SPACE = "space"  # a road space 1..28


_MAX_COUNT = 32  # no count on the stack (favors, batches, cubes) ever comes near it

_BUILDING = Arg("building", CODEC_BUILDING, 0, NUM_BUILDINGS - 1, "building the decision is about")
_SOURCE = Arg("source", CODEC_SOURCE, 0, NUM_BUILD_SOURCES - 1, "why it is asked: tiles and price")


def _count(name: str, low: int, high: int, doc: str) -> Arg:
    return Arg(name, CODEC_INT, low, high, doc)


#: Every entry kind, in id order for decisions, then the procedures.
SCHEMA: tuple[EntryKind, ...] = (
    EntryKind(DecisionKind.PLACE_WORKER, "place_worker", True, (), "phase 2: place or pass"),
    EntryKind(DecisionKind.GATE, "gate", True, (), "phase 3a: where the gate worker goes"),
    EntryKind(DecisionKind.GUILD, "guild", True, (), "phase 3c: move the provost, free"),
    EntryKind(DecisionKind.JOUST, "joust", True, (), "phase 3d: 1 denier + 1 cloth for a favor"),
    EntryKind(DecisionKind.INN, "inn", True, (), "phase 3f: the resident stays or leaves"),
    EntryKind(DecisionKind.PROVOST, "provost", True, (), "phase 4: move the provost, paid"),
    EntryKind(DecisionKind.PRODUCE, "produce", True, (_BUILDING,), "phase 5: an 'or' output"),
    EntryKind(
        DecisionKind.OWNER_BONUS, "owner_bonus", True, (_BUILDING,), "phase 5: the owner's cube"
    ),
    EntryKind(DecisionKind.MARKET, "market", True, (_BUILDING,), "phase 5d: sell one cube"),
    EntryKind(
        DecisionKind.PEDDLER,
        "peddler",
        True,
        (_BUILDING, _count("bought", 0, int(B_PEDDLER_MAX.max()) - 1, "cubes bought so far")),
        "phase 5e: buy a cube or stop",
    ),
    EntryKind(DecisionKind.BUILD, "build", True, (_SOURCE,), "which building to construct"),
    EntryKind(
        DecisionKind.PAY_ANY, "pay_any", True, (_BUILDING, _SOURCE), "which cube pays 'any cube'"
    ),
    EntryKind(
        DecisionKind.RESIDENCE,
        "residence",
        True,
        (_BUILDING, _SOURCE),
        "which own residence a prestige building replaces",
    ),
    EntryKind(
        DecisionKind.LAWYER, "lawyer", True, (_SOURCE,), "which building becomes a residence"
    ),
    EntryKind(DecisionKind.OPTION, "option", True, (_BUILDING,), "which option of the building"),
    EntryKind(
        DecisionKind.ALCHEMIST_PAY,
        "alchemist_pay",
        True,
        (_count("remaining", 1, _MAX_COUNT, "cubes still to give"),),
        "which cube the alchemist takes next",
    ),
    EntryKind(
        DecisionKind.CASTLE,
        "castle",
        True,
        (_count("batches_given", 0, _MAX_COUNT, "batches given so far this turn"),),
        "phase 6: one more batch or stop",
    ),
    EntryKind(
        DecisionKind.FAVOR_ROW,
        "favor_row",
        True,
        (_count("favors", 1, _MAX_COUNT, "favors left to take"),),
        "which row of the favor table",
    ),
    EntryKind(
        DecisionKind.FAVOR_COLUMN,
        "favor_column",
        True,
        (Arg("row", CODEC_ROW, 0, NUM_FAVOR_ROWS - 1, "the row whose column is chosen"),),
        "which column (effect) of the row",
    ),
    EntryKind(
        DecisionKind.FAVOR_TAKE,
        "favor_take",
        True,
        (
            Arg("kinds", CODEC_MASK, 1, (1 << NUM_RESOURCES) - 1, "cube kinds that may be taken"),
            _count("remaining", 1, _MAX_COUNT, "cubes left to take"),
        ),
        "resources row: which cube to take",
    ),
    EntryKind(DecisionKind.FAVOR_GIVE, "favor_give", True, (), "resources row: cube to give up"),
    EntryKind(
        Procedure.FINISH_SPACE,
        "finish_space",
        False,
        (Arg("space", CODEC_SPACE, 1, ROAD_LEN, "road space whose worker goes home"),),
        "phase 5: the worker goes home, a waiting lawyer swap happens",
    ),
    EntryKind(
        Procedure.SCORE_PLAYER,
        "score_player",
        False,
        (
            Arg("section", CODEC_SECTION, 0, NUM_SECTIONS - 1, "section being scored"),
            _count(
                "turn_order_index",
                0,
                MAX_PLAYERS,
                "turn-order position scored next (num_players once all are scored)",
            ),
        ),
        "phase 7: one player's result of a section scoring",
    ),
    EntryKind(
        Procedure.SECTION_DONE,
        "section_done",
        False,
        (Arg("section", CODEC_SECTION, 0, NUM_SECTIONS - 1, "section just scored"),),
        "phase 7: the scoring is over; favor columns open",
    ),
)

ENTRY_OF_NAME: dict[str, EntryKind] = {e.name: e for e in SCHEMA}
ENTRY_OF_KIND: dict[int, EntryKind] = {int(e.kind): e for e in SCHEMA}
DECISION_SCHEMA: tuple[EntryKind, ...] = tuple(e for e in SCHEMA if e.is_decision)
PROCEDURE_BASE = min(int(p) for p in Procedure)

assert [int(e.kind) for e in DECISION_SCHEMA] == list(range(NUM_DECISION_KINDS))
assert all(e.name == DecisionKind(e.kind).name.lower() for e in DECISION_SCHEMA)
assert all(len(e.args) <= STACK_ENTRY - E_ARG_A for e in SCHEMA)


def codec_table(codec: str) -> np.ndarray:
    """``(NUM_DECISION_KINDS, 2)`` int64: 1 where a decision's argument has ``codec``.

    The observation encoder compiles these tables, so the context it shows for a
    decision is exactly what the schema declares.
    """
    table = np.zeros((NUM_DECISION_KINDS, STACK_ENTRY - E_ARG_A), np.int64)
    for e in DECISION_SCHEMA:
        for j, arg in enumerate(e.args):
            table[int(e.kind), j] = arg.codec == codec
    return table


# ---------------------------------------------------------------------------------------
# Kernels: the core's decision stack (``caylus_env.core.loop``), compiled over this layout and
# bound here by the names of its ``STACK_EXPORTS`` (``push``, ``pop``, ``read_top`` ...).
# ---------------------------------------------------------------------------------------
STACK_KERNELS = stack_kernels("caylus", "caylus", layout, globals())
