"""Colours, fonts and words shared by every drawing module of the Puerto Rico viewer.

The seat colours, paper, ink and fonts are every game's (``caylus_env.core.viewer.theme``,
which the drawing modules import them from), so a seat looks the same in every game's page;
this module holds what only Puerto Rico has: the page's colours, the five goods and the island
tiles (docs/rules/puerto_rico.md 1.1), the building families (2.3-2.5) and the role cards (1.1,
4).
Sizes that belong to one picture live in its own module (``board``, ``players``).
"""

from __future__ import annotations

from caylus_env.core.viewer.theme import INK, ON_SEAT
from caylus_env.puerto_rico.engine.buildings import BUILDINGS, BuildingKind
from caylus_env.puerto_rico.engine.constants import GOOD_NAMES, ROLE_NAMES, TILE_NAMES

__all__ = [
    "BUILDING_FILL",
    "BUILDING_LABELS",
    "COLONIST",
    "FONT_TINY",
    "GOOD_COLOURS",
    "GOOD_TEXT",
    "HEADER_COLOUR",
    "OUT_OF_GAME",
    "PAGE_COLOUR",
    "PRODUCTION_FILL",
    "ROLE_FILL",
    "ROLE_LABELS",
    "TILE_COLOURS",
    "TILE_SHORT",
]

#: The replay page around the board: sea green, and a dark green header bar.
PAGE_COLOUR = "#dfe6e0"
HEADER_COLOUR = "#1f3a33"
#: Barrel colour of each good, in ``GOOD_NAMES`` order (the printed barrels, rules 1.1).
GOOD_COLOURS = dict(
    zip(GOOD_NAMES, ("#f2d43a", "#2f56b0", "#f4f1ea", "#8a5a2b", "#3b2417"), strict=True)
)
#: Fill of a production building of each good (a light tint of the barrel, rules 2.3).
PRODUCTION_FILL = dict(
    zip(GOOD_NAMES, ("#f8ecaa", "#bccbee", "#ffffff", "#e2c9aa", "#cdb8aa"), strict=True)
)
#: Text drawn on a barrel or tile of that colour.
GOOD_TEXT = dict(zip(GOOD_NAMES, (INK, ON_SEAT, INK, ON_SEAT, ON_SEAT), strict=True))
#: Fill of each island tile: a plantation in its good's colour, the quarry grey, the
#: expansion's forest green (rules 1.1, 7.3).
TILE_COLOURS = {**GOOD_COLOURS, "quarry": "#9a9a9f", "forest": "#2e6b34"}
#: A tile's name shortened to fit a face-up tile.
TILE_SHORT = {**{t: t for t in TILE_NAMES}, "tobacco": "tobac."}
#: A colonist (a brown disc).
COLONIST = "#6b3f1d"
#: Fill of a building tile by its family (rules 2.3-2.5); production buildings use their good.
BUILDING_FILL = {
    BuildingKind.SMALL_VIOLET: "#d9c8ef",
    BuildingKind.LARGE_VIOLET: "#b9a0e0",
}
#: The smallest text: labels inside tiles and buildings.
FONT_TINY = 9
#: Display name of each building (``BuildingSpec.label``).
BUILDING_LABELS = {b.name: b.label for b in BUILDINGS}
#: Display name of each role card; the two prospector cards read the same (rules 1.1).
ROLE_LABELS = {name: name.split("_")[0].capitalize() for name in ROLE_NAMES}
#: Fill of a role card that is still to be picked this round.
ROLE_FILL = "#f7e7c4"
#: Fill of a card or tile that is not part of this game (player count, expansion).
OUT_OF_GAME = "#d8d4cc"

assert set(TILE_COLOURS) == set(TILE_NAMES)
