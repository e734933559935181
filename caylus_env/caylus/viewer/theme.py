"""Colours, fonts and words of Caylus's pictures.

The seat colours, paper, ink and fonts are every game's (``caylus_env.core.viewer.theme``, which
the drawing modules import them from), so a seat looks the same in every game's page; this
module holds what only Caylus has: the tile colours, the cubes, the favor table's closed
columns and the names of the buildings, castle sections and special buildings. Sizes that
belong to one picture live in its own module (``board``, ``castle``, ``favors``, ``players``).
"""

from __future__ import annotations

from caylus_env.caylus.engine.buildings import BUILDINGS, BuildingKind
from caylus_env.caylus.engine.constants import SPECIAL_NAMES

__all__ = [
    "BUILDING_KINDS",
    "BUILDING_LABELS",
    "CLOSED",
    "CLOSED_OPACITY",
    "CUBE_COLOURS",
    "HEADER_COLOUR",
    "KIND_FILL",
    "PAGE_COLOUR",
    "SECTION_LABELS",
    "SPECIAL_LABELS",
]

#: The replay page around the board: parchment, and a dark brown header bar.
PAGE_COLOUR = "#e9e4d8"
HEADER_COLOUR = "#2f2a22"
#: The favor table's closed columns: a dark veil.
CLOSED = "#000000"
CLOSED_OPACITY = 0.28

#: Fill of a road tile by its kind (the tile colours of rules 3.2).
KIND_FILL = {
    BuildingKind.NEUTRAL: "#f6d3df",
    BuildingKind.FIXED: "#ece2c6",
    BuildingKind.WOOD: "#e3c9a0",
    BuildingKind.STONE: "#d3d6da",
    BuildingKind.RESIDENTIAL: "#cde7c4",
    BuildingKind.PRESTIGE: "#cadcf3",
}
#: Cube colours, in ``RESOURCE_NAMES`` order's names.
CUBE_COLOURS = {
    "food": "#e493b4",
    "wood": "#8b5a2b",
    "stone": "#8d949a",
    "cloth": "#7d5fc6",
    "gold": "#e3b21c",
}

#: Display name of each special building (the glossary's words).
SPECIAL_LABELS = dict(
    zip(
        SPECIAL_NAMES,
        ("Gate", "Trading post", "Merchants' guild", "Joust field", "Stables", "Inn"),
        strict=True,
    )
)
#: Display name of each building (the rules reference's English names, ``BuildingSpec.label``).
BUILDING_LABELS = {b.name: b.label for b in BUILDINGS}
#: Kind of each building, by its name.
BUILDING_KINDS = {b.name: b.kind for b in BUILDINGS}
#: Display name of each castle section.
SECTION_LABELS = {"dungeon": "Dungeon", "walls": "Walls", "towers": "Towers"}
