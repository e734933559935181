"""Caylus 1303's decisions D1-D39: every rule no official text gives, as named data.

The official rulebook we hold stops inside Phase 3 (rules 1.1), so everything after it, and
every detail it leaves open, is a numbered decision of ``docs/rules/caylus_1303.md``
section 7. Each one is a row of ``RULES`` (key, number, value, what it fills, confidence), and
the engine reads its numbers from here and from the tile tables of ``tiles`` (D11), never
from a literal in a kernel: a corrected rulebook changes this data, not the code. Procedures
(the order of the Stewardship steps, D2) are data too: their kernels follow the order this
table names, and ``tests/caylus_1303/test_c1303_decisions.py`` checks that they do.

This module is imported by the compiled kernels (through ``constants``), so it is part of
the code whose sources key the kernel cache (``caylus_env.core._cache``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

CONFIDENCES = ("HIGH", "MED", "LOW", "engine")


@dataclass(frozen=True)
class Decision:
    """One decision of rules section 7.

    Attributes:
        number: its number (``D20`` is 20).
        key: its name in ``RULES``.
        value: what the engine uses (numbers, names, or a procedure as an ordered tuple).
        fills: the gap in the official text it fills.
        confidence: ``HIGH``, ``MED``, ``LOW`` or ``engine`` (a choice of the engine only).
    """

    number: int
    key: str
    value: Any
    fills: str
    confidence: str


_ROWS = (
    Decision(
        1, "lawyer_cost", {"cloth": 1, "houses": 1}, "the Lawyer's price (its icon is lost)", "LOW"
    ),
    Decision(
        2,
        "stewardship_steps",
        ("residences", "monuments", "income", "provost_reset", "bridge", "round_marker"),
        "the procedure of Phase 4",
        "MED",
    ),
    Decision(
        3,
        "residence",
        {"workers": 1, "takes_workers": False, "effect": None},
        "what a residence does",
        "LOW",
    ),
    Decision(
        4,
        "monument_rules",
        {
            "step": "stewardship",
            "per_residence": 1,
            "order": "turn_order",
            "residence_choice": "player",
        },
        "how monuments are built",
        "LOW",
    ),
    Decision(
        5,
        "worker_income",
        {"base": {2: 3, 3: 3, 4: 3, 5: 2}, "per_residence": 1, "per_garden": 2, "day_laborer": 1},
        "how many workers each player gains in Stewardship",
        "LOW",
    ),
    Decision(
        6,
        "provost_reset",
        {"offset_from_last_contiguous": -1},
        "where the Provost starts each round",
        "MED",
    ),
    Decision(
        7,
        "road_layout",
        {"spaces": 23, "starting": (1, 8), "wood": 9, "stone": 14, "provost_max": 23},
        "the number of Road spaces and the end of the Road",
        "LOW",
    ),
    Decision(
        8,
        "favor_site_gating",
        {1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 6: 2, 7: 3, 8: 3, 9: 3},
        "which Construction Site buildings a Favor may use (round -> S1..Sk)",
        "LOW",
    ),
    Decision(
        9,
        "delivery_favor",
        {
            "min_bundles": 1,
            "tie": "lowest_site_slot",
            "deliveryman_without_worker": "after_all_slots",
        },
        "the Delivery Favor's edge cases",
        "MED",
    ),
    Decision(
        10,
        "character_names",
        (
            "Early Riser",
            "Night Worker",
            "Journeyman",
            "Thief",
            "Steward",
            "Bailiff",
            "Architect",
            "Chamberlain",
            "Goldsmith",
            "Deliveryman",
            "Foreman",
            "Day Laborer",
        ),
        "the names of six powers",
        "MED",
    ),
    Decision(
        11,
        "building_data",
        "tiles.TILES",
        "the lost building appendix (the table of caylus_1303.engine.tiles)",
        "LOW",
    ),
    Decision(
        12,
        "any_resource",
        ("food", "wood", "stone", "cloth"),
        "the wild-card cost and 'resource of choice' (never gold)",
        "MED",
    ),
    Decision(13, "ties", "shared", "the tie-break (none: tied players share the rank)", "LOW"),
    Decision(
        14,
        "supply_and_counts",
        {
            "houses": 10,
            "pass_houses": 1,
            "building_houses": 9,
            "resources": "unlimited",
            "prestige": "unlimited",
        },
        "component counts the rulebook does not split",
        "MED",
    ),
    Decision(
        15,
        "worker_accounting",
        {"per_colour": 15, "start_hand": {2: 10, 3: 6, 4: 6, 5: 10}},
        "how the 15-worker limit works (hand, board, Camp)",
        "MED",
    ),
    Decision(
        16,
        "placement_cost",
        {"placed": 1, "surcharge": 1, "early_riser": 1},
        "what a placement costs, and forced passes",
        "HIGH",
    ),
    Decision(
        17,
        "site_slots",
        {"per_player": 1, "penalty": 0},
        "Construction Site capacity and clean-up",
        "MED",
    ),
    Decision(
        18,
        "optional_effects",
        {"optional": True, "options_per_activation": 1},
        "whether effects are compulsory",
        "MED",
    ),
    Decision(
        19,
        "ownership",
        {"owner_prestige": 1, "owned_groups": ("wood", "stone")},
        "which buildings pay owner prestige and owner bonuses",
        "MED",
    ),
    Decision(
        20,
        "provost_moves",
        {
            "toll": 2,
            "bridge": 3,
            "bridge_worker_per_step": 1,
            "bailiff": 1,
            "out_of_bounds": "illegal",
        },
        "Provost step counting, direction and bounds",
        "MED",
    ),
    Decision(
        21,
        "lawyer_targets",
        {"road_spaces": (1, 8), "occupied_ok": True, "past_provost_ok": True},
        "which buildings the Lawyer may mark",
        "MED",
    ),
    Decision(
        22,
        "construction",
        {
            "space": "lowest_empty",
            "side": "construction",
            "stonemason_setup_discount": {"stone": 1},
        },
        "details of building on the Road",
        "MED",
    ),
    Decision(
        23,
        "favor_procedure",
        {"options": ("steal_character", "site_building"), "board_character": "compulsory"},
        "how a Favor is resolved",
        "LOW",
    ),
    Decision(
        24,
        "character_transfer",
        {"once_per_round": "per_tile", "limit": None},
        "what moving a character does",
        "MED",
    ),
    Decision(
        25,
        "early_riser",
        {"extra_workers": 1, "every_round": True},
        "details of the Early Riser",
        "MED",
    ),
    Decision(
        26, "journeyman", {"per_round": 1, "max_workers": 2}, "details of the Journeyman", "MED"
    ),
    Decision(
        27,
        "thief_steward",
        {"steward": 2, "thief": 0},
        "how owner-prestige modifiers combine",
        "HIGH",
    ),
    Decision(
        28, "bailiff", {"steps": 1, "when": "after_bridge"}, "when and how the Bailiff acts", "HIGH"
    ),
    Decision(
        29,
        "architect_scope",
        {"bonus": 1, "groups": ("wood", "stone", "monument")},
        "which constructions give the Architect's +1",
        "MED",
    ),
    Decision(
        30,
        "bundle_modifiers",
        {"bundle_size": 3, "prestige": 5, "foreman": 1, "goldsmith": 5},
        "bundle rules and their modifiers at Delivery",
        "MED",
    ),
    Decision(31, "day_laborer", {"workers": 1}, "the 12th power's timing", "MED"),
    Decision(
        32, "starting_reverse_side", "residence", "the second side of the starting tiles", "MED"
    ),
    Decision(
        33,
        "same_effect_both_sides",
        (
            "gold_mine",
            "foundry",
            "alchemist",
            "stone_guild",
            "church",
            "jeweler",
            "tailor",
            "wooden_market",
        ),
        "the Setup side of tiles the sources give one effect for",
        "LOW",
    ),
    Decision(
        34,
        "effect_order",
        ("planning", "activation", "delivery", "stewardship"),
        "the order of chained effects",
        "MED",
    ),
    Decision(
        35,
        "monument_income_timing",
        "same_stewardship",
        "when Granary, Factory and Garden first pay",
        "LOW",
    ),
    Decision(
        36,
        "end_of_game",
        {"rounds": 9, "prestige_per_gold": 2},
        "when the game ends and what scores",
        "HIGH",
    ),
    Decision(
        37, "observation", {"hide_opponent_pp": False}, "public and hidden information", "MED"
    ),
    Decision(
        38,
        "setup_rng",
        {"generator": "park_miller", "warmup": 4},
        "how setup randomness is drawn",
        "MED",
    ),
    Decision(
        39,
        "decision_protocol",
        "one decision per atomic choice",
        "how multi-part choices become agent decisions",
        "engine",
    ),
)

#: Every decision by key (read-only); ``RULES["worker_income"].value``.
RULES: Mapping[str, Decision] = MappingProxyType({d.key: d for d in _ROWS})
#: The same rows by number (``BY_NUMBER[20]`` is D20).
BY_NUMBER: Mapping[int, Decision] = MappingProxyType({d.number: d for d in _ROWS})
assert sorted(BY_NUMBER) == list(range(1, 40)) and len(RULES) == 39
assert all(d.confidence in CONFIDENCES for d in _ROWS)


def value(key: str) -> Any:
    """The value of decision ``key`` (``KeyError`` naming the known keys)."""
    try:
        return RULES[key].value
    except KeyError:
        raise KeyError(f"no decision {key!r}; known: {', '.join(RULES)}") from None
