"""The favor table (rules 5.1): four rows, the start column and columns 1-5, each player's
marker in every row, and the columns not open yet (rules 5.2) shaded.

Slots: one per row (the markers of every player on that row) and one for the shading, which
changes only after a section scoring. The grid and the effect of each cell are drawn once.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from caylus_env.caylus.engine.board import COLUMNS_OPEN, FAVOR_DENIERS, FAVOR_PRESTIGE
from caylus_env.caylus.engine.constants import FAVOR_ROW_NAMES, NUM_FAVOR_COLUMNS
from caylus_env.caylus.viewer.theme import CLOSED, CLOSED_OPACITY
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    FONT_SMALL,
    FONT_TEXT,
    FONT_TITLE,
    MUTED,
    PANEL,
    RULE,
    SEAT_COLOURS,
)

TABLE_X = 820
TABLE_Y = 46
TABLE_W = 368
TITLE_H = 26
HEAD_H = 18
LABEL_W = 76
CELL_W = 48
CELL_H = 40
TABLE_H = TITLE_H + HEAD_H + len(FAVOR_ROW_NAMES) * CELL_H + 8
MARKER_R = 5
MARKER_STEP = 9
CELL_FONT = 8

#: What each cell gives (rules 5.1), in the rules' words, by row and column 1-5.
CELL_TEXT = {
    "prestige": tuple(f"{int(v)} prestige" for v in FAVOR_PRESTIGE[1:]),
    "deniers": tuple(f"{int(v)} deniers" for v in FAVOR_DENIERS[1:]),
    "resources": ("food", "wood/stone", "cloth", "swap", "gold"),
    "buildings": ("nothing", "carpenter", "mason", "lawyer", "architect"),
}
ROW_LABELS = {
    "prestige": "Prestige",
    "deniers": "Deniers",
    "resources": "Resources",
    "buildings": "Buildings",
}


def _cell_x(column: int) -> int:
    return TABLE_X + LABEL_W + column * CELL_W


def _row_y(row: int) -> int:
    return TABLE_Y + TITLE_H + HEAD_H + row * CELL_H


def grid() -> str:
    """The table itself: title, column numbers, row names and each cell's effect."""
    parts = [
        svg.rect(TABLE_X, TABLE_Y, TABLE_W, TABLE_H, PANEL, stroke=RULE, rx=6),
        svg.text(TABLE_X + 10, TABLE_Y + 18, "Favor table", size=FONT_TITLE, weight="bold"),
    ]
    for column in range(NUM_FAVOR_COLUMNS + 1):
        parts.append(
            svg.text(
                _cell_x(column) + CELL_W // 2,
                TABLE_Y + TITLE_H + 12,
                "start" if column == 0 else column,
                size=FONT_SMALL,
                fill=MUTED,
                anchor="middle",
            )
        )
    for r, row in enumerate(FAVOR_ROW_NAMES):
        y = _row_y(r)
        parts.append(svg.text(TABLE_X + 10, y + 24, ROW_LABELS[row], size=FONT_TEXT))
        for column in range(NUM_FAVOR_COLUMNS + 1):
            x = _cell_x(column)
            parts.append(svg.rect(x, y, CELL_W, CELL_H, "none", stroke=RULE))
            if column:
                parts.append(
                    svg.text(
                        x + CELL_W // 2,
                        y + 12,
                        CELL_TEXT[row][column - 1],
                        size=CELL_FONT,
                        fill=MUTED,
                        anchor="middle",
                    )
                )
    return "".join(parts)


@lru_cache(maxsize=8)
def _closed(open_columns: int) -> str:
    top = _row_y(0)
    height = len(FAVOR_ROW_NAMES) * CELL_H
    parts = [
        svg.rect(_cell_x(column), top, CELL_W, height, CLOSED, fill_opacity=CLOSED_OPACITY)
        for column in range(open_columns + 1, NUM_FAVOR_COLUMNS + 1)
    ]
    return svg.group("".join(parts), class_="closed-columns", data_open=open_columns)


def closed_columns(d: dict[str, Any]) -> str:
    """The columns not open yet, shaded: 2 are open, 4 after the dungeon scoring, 5 after the
    walls scoring (rules 5.2)."""
    return _closed(int(COLUMNS_OPEN[sum(d["scored"].values())]))


@lru_cache(maxsize=4096)
def _row(r: int, columns: tuple[int, ...]) -> str:
    y = _row_y(r) + CELL_H - 12
    parts = [
        svg.circle(
            _cell_x(column) + MARKER_STEP // 2 + 1 + seat * MARKER_STEP,
            y,
            MARKER_R,
            SEAT_COLOURS[seat],
            stroke="#ffffff",
            stroke_width=1,
        )
        for seat, column in enumerate(columns)
    ]
    return svg.group(
        "".join(parts),
        class_="favor-row",
        data_row=FAVOR_ROW_NAMES[r],
        data_columns=",".join(map(str, columns)),
    )


def rows(d: dict[str, Any]) -> dict[str, str]:
    """Each player's marker on each row, at its column (0 = not moved yet), side by side in
    seat order inside a cell."""
    return {
        f"favors:{row}": _row(r, tuple(p["favor_columns"][row] for p in d["players"]))
        for r, row in enumerate(FAVOR_ROW_NAMES)
    }
