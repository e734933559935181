"""The pending-decision stack: one declared schema for every entry, and its kernels.

The state holds a small stack (``layout.STACK``) of entries ``(kind, player, arg)``; its top
is the question being asked (D39). A phase's driver pushes the next question when the stack is
empty; answering one may push more (an "any" resource owed after a construction, a Favor after
the Fairground, the available character after a site building, rules 4.5). ``SCHEMA`` says,
once, what ``arg`` means for each kind (its name, codec and inclusive domain); the state dict
and the invariants read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from caylus_env.caylus_1303.engine import layout
from caylus_env.caylus_1303.engine.constants import (
    NUM_DECISION_KINDS,
    NUM_SPACES,
    DecisionKind,
)
from caylus_env.caylus_1303.engine.layout import (
    KIND_OFFSET,
    STACK_ENTRY,
)
from caylus_env.caylus_1303.engine.tiles import C_ANY, NUM_MONUMENTS, T_COST, T_OPTION_COST
from caylus_env.core.loop import stack_kernels

E_KIND = 0
assert E_KIND == KIND_OFFSET
E_PLAYER = 1
E_ARG = 2
assert STACK_ENTRY == 3

CODEC_NONE = "none"  # the entry has no argument (stored as 0)
CODEC_INT = "int"  # a count
CODEC_SPACE = "space"  # a building space, spelled by its name (constants.SPACE_NAMES)
#: 0: none (the key is left out); 1 + i: the monument ``tiles.MONUMENT_KINDS[i]``, by its name.
CODEC_MONUMENT = "monument"
#: The most "any" resources one payment can owe (D12): the largest ``any`` of the tables.
MAX_ANY_OWED = int(max(T_COST[:, C_ANY].max(), T_OPTION_COST[..., C_ANY].max()))


@dataclass(frozen=True)
class Arg:
    """The argument of a stack entry: its name, codec and inclusive domain ``[low, high]``."""

    name: str
    codec: str
    low: int
    high: int
    doc: str


@dataclass(frozen=True)
class EntryKind:
    """One kind of pending decision and the meaning of its argument."""

    kind: int
    name: str
    arg: Arg
    doc: str


_NONE = Arg("", CODEC_NONE, 0, 0, "no argument")

#: Every decision kind, in id order.
SCHEMA: tuple[EntryKind, ...] = (
    EntryKind(DecisionKind.DRAFT, "draft", _NONE, "take a revealed character (rules 3.3)"),
    EntryKind(DecisionKind.EARLY_RISER, "early_riser", _NONE, "an early placement (D25)"),
    EntryKind(DecisionKind.PLAN, "plan", _NONE, "place a worker or pass (rules 4.1)"),
    EntryKind(
        DecisionKind.EFFECT,
        "effect",
        Arg("space", CODEC_SPACE, 0, NUM_SPACES - 1, "the building being used"),
        "use the building's effect or decline (rules 4.2, D18)",
    ),
    EntryKind(
        DecisionKind.PAY,
        "pay",
        Arg("owed", CODEC_INT, 1, MAX_ANY_OWED, '"any" resources still owed'),
        'pay one "any" resource (D12)',
    ),
    EntryKind(DecisionKind.BRIDGE, "bridge", _NONE, "the Guilds Bridge (rules 4.2, D20)"),
    EntryKind(DecisionKind.BAILIFF, "bailiff", _NONE, "the Bailiff's step (D28)"),
    EntryKind(DecisionKind.FAVOR, "favor", _NONE, "a Favor's option (rules 4.5, D23)"),
    EntryKind(
        DecisionKind.BOARD_CHARACTER, "board_character", _NONE, "an available character (D23)"
    ),
    EntryKind(
        DecisionKind.DELIVER,
        "deliver",
        Arg("deliveryman_turn", CODEC_INT, 0, 1, "1: the Deliveryman's turn after all slots"),
        "deliver one bundle or stop (rules 4.3)",
    ),
    EntryKind(
        DecisionKind.MONUMENT,
        "monument",
        Arg(
            "placing",
            CODEC_MONUMENT,
            0,
            NUM_MONUMENTS,
            "0: which monument, or done; 1 + i: on which of his residences monument i goes, "
            "asked when he has two or more (D4, rules 4.4 b)",
        ),
        "build a monument or stop, then choose the residence it replaces (rules 4.4 b, D4)",
    ),
)
assert [e.kind for e in SCHEMA] == list(range(NUM_DECISION_KINDS))
ENTRY_OF_NAME = {e.name: e for e in SCHEMA}


# The stack's kernels: the core's (``caylus_env.core.loop``), compiled over this layout.
STACK_KERNELS = stack_kernels("caylus_1303", "caylus 1303", layout)
push = STACK_KERNELS.push
pop = STACK_KERNELS.pop
read_top = STACK_KERNELS.read_top
depth = STACK_KERNELS.depth
entry = STACK_KERNELS.entry
entry_kind = STACK_KERNELS.entry_kind
entry_player = STACK_KERNELS.entry_player
entry_arg = STACK_KERNELS.entry_arg
decision_kind = STACK_KERNELS.decision_kind
decision_player = STACK_KERNELS.decision_player
decision_arg = STACK_KERNELS.decision_arg
