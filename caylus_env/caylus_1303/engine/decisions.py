"""The pending-decision stack: one declared schema for every entry, and its kernels.

The state holds a small stack (``layout.STACK``) of entries ``(kind, player, arg)``; its top
is the question being asked (D39). A phase's driver pushes the next question when the stack is
empty; answering one may push more (an "any" resource owed after a construction, a Favor after
the Fairground, the available character after a site building, rules 4.5). ``SCHEMA`` says,
once, what ``arg`` means for each kind (its name, codec and inclusive domain); the state dict
and the invariants read it from here.
"""

from __future__ import annotations

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
from caylus_env.core.loop import CODEC_INT, E_KIND, NO_ARG, Arg, EntryKind, decision, stack_kernels

# The field offsets inside one stack entry are the core's (E_KIND, E_PLAYER, E_ARG_A).
assert E_KIND == KIND_OFFSET
assert STACK_ENTRY == 3

CODEC_SPACE = "space"  # a building space, spelled by its name (constants.SPACE_NAMES)
#: 0: none (the key is left out); 1 + i: the monument ``tiles.MONUMENT_KINDS[i]``, by its name.
CODEC_MONUMENT = "monument"
#: The most "any" resources one payment can owe (D12): the largest ``any`` of the tables.
MAX_ANY_OWED = int(max(T_COST[:, C_ANY].max(), T_OPTION_COST[..., C_ANY].max()))


#: Every decision kind, in id order.
SCHEMA: tuple[EntryKind, ...] = (
    decision(DecisionKind.DRAFT, "draft", NO_ARG, "take a revealed character (rules 3.3)"),
    decision(DecisionKind.EARLY_RISER, "early_riser", NO_ARG, "an early placement (D25)"),
    decision(DecisionKind.PLAN, "plan", NO_ARG, "place a worker or pass (rules 4.1)"),
    decision(
        DecisionKind.EFFECT,
        "effect",
        Arg("space", CODEC_SPACE, 0, NUM_SPACES - 1, "the building being used"),
        "use the building's effect or decline (rules 4.2, D18)",
    ),
    decision(
        DecisionKind.PAY,
        "pay",
        Arg("owed", CODEC_INT, 1, MAX_ANY_OWED, '"any" resources still owed'),
        'pay one "any" resource (D12)',
    ),
    decision(DecisionKind.BRIDGE, "bridge", NO_ARG, "the Guilds Bridge (rules 4.2, D20)"),
    decision(DecisionKind.BAILIFF, "bailiff", NO_ARG, "the Bailiff's step (D28)"),
    decision(DecisionKind.FAVOR, "favor", NO_ARG, "a Favor's option (rules 4.5, D23)"),
    decision(
        DecisionKind.BOARD_CHARACTER, "board_character", NO_ARG, "an available character (D23)"
    ),
    decision(
        DecisionKind.DELIVER,
        "deliver",
        Arg("deliveryman_turn", CODEC_INT, 0, 1, "1: the Deliveryman's turn after all slots"),
        "deliver one bundle or stop (rules 4.3)",
    ),
    decision(
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


# The stack's kernels: the core's (``caylus_env.core.loop``), compiled over this layout and bound
# here by the names of its ``STACK_EXPORTS`` (``push``, ``pop``, ``read_top``, ``decision_kind`` ...).
STACK_KERNELS = stack_kernels("caylus_1303", "caylus 1303", layout, globals())
