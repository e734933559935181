"""Colours, fonts and sizes every game's pictures share.

One place for what the replay pages of all games have in common, so that a seat has the same
colour on every board, card, panel and score chart of every game, and the pages read alike.
What only one game draws (its goods, its building kinds, its page's colours) lives in that
game's ``viewer/theme.py``, which re-exports these names for its drawing modules.
"""

from __future__ import annotations

#: One colour per seat, 0-4 (discs, houses, markers, cards, chart lines).
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

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
FONT_SMALL = 10
FONT_TEXT = 12
FONT_TITLE = 14
FONT_BIG = 20

__all__ = [
    "EMPTY_SPACE",
    "FONT",
    "FONT_BIG",
    "FONT_SMALL",
    "FONT_TEXT",
    "FONT_TITLE",
    "HIGHLIGHT",
    "INK",
    "MUTED",
    "ON_SEAT",
    "PANEL",
    "PAPER",
    "RULE",
    "SEAT_COLOURS",
    "SEAT_COLOUR_NAMES",
]
