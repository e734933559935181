"""Colours, fonts and words shared by every drawing module of the viewer.

One place for what the viewer's pictures have in common, so that a seat has the same colour on
the road, in the castle, on the favor table, on its card and in the prestige chart, and a
building kind the same fill wherever it is drawn. Sizes that belong to one picture live in its
own module (``board``, ``castle``, ``favors``, ``players``, ``timeline``).
"""

from __future__ import annotations

from caylus_env.caylus.engine.buildings import BUILDINGS, BuildingKind
from caylus_env.caylus.engine.constants import SPECIAL_NAMES

#: One colour per seat, 0-4 (discs, houses, favor markers, cards, chart lines).
SEAT_COLOURS = ("#1f5fbf", "#c8312f", "#2b8a3e", "#d9730d", "#7048a8")
#: The colour names, for text that says which seat is which colour.
SEAT_COLOUR_NAMES = ("blue", "red", "green", "orange", "purple")
#: Text drawn on a seat's disc.
ON_SEAT = "#ffffff"

INK = "#1d1d1f"
MUTED = "#6b6b70"
RULE = "#b9b3a6"
PAPER = "#fbf8f1"
PANEL = "#f3eee2"
EMPTY_SPACE = "#ede7da"
HIGHLIGHT = "#f2c14e"
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

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FONT_SMALL = 10
FONT_TEXT = 12
FONT_TITLE = 14
FONT_BIG = 20

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
