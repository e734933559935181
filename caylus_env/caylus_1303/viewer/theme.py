"""Colours, fonts and words of Caylus 1303's pictures.

Paper, ink and fonts are every game's (``caylus_env.core.viewer.theme``, which the drawing
modules import them from), and so are the seat colours: a seat has the same colour on the board, its
panel and the page's score chart, as in every game's pages (the box's colours of rules 2.1 are
a table's choice, not a rule). This module adds what only
Caylus 1303 has: the tile colours by group and side (rules 2.1, 5), the resources, and the
display names of spaces, tiles and characters. Sizes that belong to one picture live in its own
module (``board``, ``supply``, ``players``).
"""

from __future__ import annotations

from caylus_env.caylus_1303.engine.constants import (
    CHARACTER_NAMES,
    CHARACTER_TITLES,
    MAX_PLAYERS,
    RESOURCE_NAMES,
    SPACE_NAMES,
)
from caylus_env.caylus_1303.engine.tiles import SIDE_NAMES, TILES, Group
from caylus_env.core.viewer.theme import ON_SEAT, SEAT_COLOURS

__all__ = [
    "CHARACTER_LABELS",
    "FONT_TINY",
    "GROUP_FILL",
    "HEADER_COLOUR",
    "LABELS",
    "PAGE_COLOUR",
    "PROVOST",
    "RESIDENCE_FILL",
    "RESOURCE_COLOURS",
    "SEAT_FILL",
    "SEAT_TEXT",
    "SIDE_NAMES",
    "SPACE_LABELS",
    "TILE_LABELS",
]

#: The replay page around the board: stone grey, and a slate header bar.
PAGE_COLOUR = "#e4e2dc"
HEADER_COLOUR = "#2c3440"
#: The smallest text: the effects printed on a tile.
FONT_TINY = 9

#: Each seat's colour, in seat order: the platform's (``caylus_env.core.viewer.theme``).
SEAT_FILL: tuple[str, ...] = SEAT_COLOURS
#: Text drawn on a seat's worker or house.
SEAT_TEXT: tuple[str, ...] = (ON_SEAT,) * MAX_PLAYERS
assert len(SEAT_FILL) == MAX_PLAYERS

#: Fill of a tile by its group (the flag colours of rules 2.1: starting yellow, wood brown,
#: stone grey; the printed spaces parchment, the monuments violet).
GROUP_FILL = {
    Group.PRINTED: "#efe4c8",
    Group.STARTING: "#f6e7a8",
    Group.WOOD: "#e2c7a0",
    Group.STONE: "#d2d6dc",
    Group.MONUMENT: "#d9c8ef",
}
#: Fill of a residence (a starting tile turned by the Lawyer, rules 4.4 a, D3).
RESIDENCE_FILL = "#cfe8c6"
#: The Provost's marker.
PROVOST = "#7a2e12"
#: Colour of each resource, by name (rules 2.1).
RESOURCE_COLOURS = dict(
    zip(RESOURCE_NAMES, ("#e493b4", "#8b5a2b", "#8d949a", "#7d5fc6", "#e3b21c"), strict=True)
)

#: Display name of each tile kind (``tiles.Tile.title``).
TILE_LABELS = {t.name: t.title for t in TILES}
#: Display name of each building space: the printed buildings by name, R1..R23, S1..S3.
SPACE_LABELS = {name: TILE_LABELS.get(name, name) for name in SPACE_NAMES}
#: Display name of each character (the rules reference's names, D10).
CHARACTER_LABELS = dict(zip(CHARACTER_NAMES, CHARACTER_TITLES, strict=True))
#: Every value a decision may be about, in words (the replay page's decision line).
LABELS = {**TILE_LABELS, **SPACE_LABELS, **CHARACTER_LABELS}
