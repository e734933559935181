"""The player boards: doubloons, VP chips and score, goods, San Juan, the island and the city
(docs/rules/puerto_rico.md 1.1, 2.1).

One panel per seat, side by side under the shared board. The panel's frame and name are drawn
once (``card``); each changing part is a slot drawn in its own coordinates (see ``board``): the
numbers, the goods, San Juan, each row of the island and each row of the city.

The engine stores how many tiles of each kind a player has and how many are worked, and which
buildings he owns with their colonists, not where they lie on his board (no rule depends on
it). The island is drawn kind by kind, worked tiles first; the city puts the small buildings
two to a row from the top, in building order, and each large building (two spaces, rules 2.1)
on a row of its own from the bottom.
"""

from __future__ import annotations

from typing import Any

from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    EMPTY_SPACE,
    FONT_SMALL,
    FONT_TEXT,
    HIGHLIGHT,
    INK,
    MUTED,
    ON_SEAT,
    PAPER,
    RULE,
    SEAT_COLOURS,
)
from caylus_env.puerto_rico.engine.buildings import B_CIRCLES, B_SPACES, BUILDING_NAMES
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    GOOD_NAMES,
    ISLAND_SPACES,
    NUM_WORKABLE_TILES,
    TILE_NAMES,
)
from caylus_env.puerto_rico.viewer import board
from caylus_env.puerto_rico.viewer.theme import BUILDING_LABELS, COLONIST, FONT_TINY

PANEL_W = 228
PANEL_STEP = 236
TITLE_H = 22
NAME_CHARS = 24
ISLAND_COLS = 4
ISLAND_TILE_W = 52
ISLAND_TILE_H = 20
ISLAND_STEP_X = 54
ISLAND_STEP_Y = 22
CITY_COLS = 2
CITY_ROWS = CITY_SPACES // CITY_COLS
CITY_W = 108
CITY_H = 26
CITY_STEP_X = 110
CITY_STEP_Y = 28
CIRCLE_R = 4
CIRCLE_STEP = 11
INSET = 8
#: Where each changing part of a panel sits, from the panel's top-left corner.
FIELDS = {
    "money": (74, 42),
    "vp": (190, 42),
    "score": (74, 62),
    "san_juan": (74, 118),
}
LABELS = {
    "money": (INSET, 42, "doubloons"),
    "vp": (118, 42, "VP chips"),
    "score": (INSET, 62, "score"),
}
GOODS_Y = 72
SAN_JUAN_LABEL = (INSET, 118, "San Juan")
ISLAND_Y = 142
CITY_Y = 220
PANEL_H = CITY_Y + CITY_ROWS * CITY_STEP_Y + 6
WORKABLE = set(TILE_NAMES[:NUM_WORKABLE_TILES])


def panel_origin(seat: int, top: int) -> tuple[int, int]:
    """Top-left corner of seat ``seat``'s panel when the panels start at ``top``."""
    return board.MARGIN + seat * PANEL_STEP, top


def slot_origins(seat: int, top: int) -> dict[str, tuple[int, int]]:
    """Where each slot of seat ``seat``'s panel sits on the picture, in drawing order: the
    numbers, one slot per good, per island space and per city space, then the status (on
    top)."""
    x, y = panel_origin(seat, top)
    out = {f"player:{seat}:{f}": (x + fx, y + fy) for f, (fx, fy) in FIELDS.items()}
    for i, g in enumerate(GOOD_NAMES):
        out[f"player:{seat}:good:{g}"] = (x + INSET + i * board.BARREL_STEP, y + GOODS_Y)
    for i in range(ISLAND_SPACES):
        row, col = divmod(i, ISLAND_COLS)
        out[f"player:{seat}:island:{i}"] = (
            x + INSET + col * ISLAND_STEP_X,
            y + ISLAND_Y + row * ISLAND_STEP_Y,
        )
    for i in range(CITY_SPACES):
        row, col = divmod(i, CITY_COLS)
        out[f"player:{seat}:city:{i}"] = (
            x + INSET + col * CITY_STEP_X,
            y + CITY_Y + row * CITY_STEP_Y,
        )
    out[f"player:{seat}:status"] = (x, y)
    return out


def card(seat: int, name: str, top: int) -> str:
    """What never changes on a panel: its frame, the seat's colour and name, the labels."""
    x, y = panel_origin(seat, top)
    parts = [
        svg.rect(0, 0, PANEL_W, PANEL_H, PAPER, stroke=RULE, rx=5),
        svg.rect(0, 0, PANEL_W, TITLE_H, SEAT_COLOURS[seat], rx=5),
        svg.text(
            INSET,
            15,
            f"player {seat} · {svg.shorten(name, NAME_CHARS)}",
            fill=ON_SEAT,
            weight="bold",
        ),
    ]
    for lx, ly, label in (*LABELS.values(), SAN_JUAN_LABEL):
        parts.append(svg.text(lx, ly, label, size=FONT_SMALL, fill=MUTED))
    parts.append(svg.text(INSET, ISLAND_Y - 4, "Island", size=FONT_SMALL, fill=MUTED))
    parts.append(svg.text(INSET, CITY_Y - 4, "City", size=FONT_SMALL, fill=MUTED))
    return svg.group("".join(parts), transform=f"translate({x},{y})", data_seat=seat)


def _number(value: int, field: str) -> str:
    return svg.text(0, 0, value, size=FONT_TEXT, weight="bold", data_field=field)


def san_juan(p: dict[str, Any]) -> str:
    """Colonists waiting in San Juan (rules 4.2)."""
    count = p["san_juan"]
    return svg.circle(5, -4, CIRCLE_R + 1, COLONIST) + svg.text(
        14, 0, count, size=FONT_TEXT, weight="bold", data_field="san_juan"
    )


def island_tiles(p: dict[str, Any]) -> list[tuple[str, bool] | None]:
    """The twelve island spaces: ``(tile kind, worked)`` kind by kind, worked tiles first,
    then ``None`` for the empty spaces (rules 2.1)."""
    spaces: list[tuple[str, bool] | None] = []
    for kind in TILE_NAMES:
        owned = p["island"][kind]
        worked = p["worked"].get(kind, 0)
        spaces += [(kind, True)] * worked + [(kind, False)] * (owned - worked)
    return spaces + [None] * (ISLAND_SPACES - len(spaces))


def island_tile(space: tuple[str, bool] | None) -> str:
    """One island space: empty, or a tile with its colonist circle (a forest has none,
    rules 7.3)."""
    if space is None:
        return svg.rect(0, 0, ISLAND_TILE_W, ISLAND_TILE_H, EMPTY_SPACE, stroke=RULE, rx=3)
    kind, worked = space
    parts = [board.tile(kind, ISLAND_TILE_W, ISLAND_TILE_H, left=True)]
    if kind in WORKABLE:
        cx, cy = ISLAND_TILE_W - CIRCLE_R - 3, ISLAND_TILE_H // 2
        fill = COLONIST if worked else PAPER
        parts.append(svg.circle(cx, cy, CIRCLE_R, fill, stroke=INK, stroke_width=1))
    return "".join(parts)


def city_rows(p: dict[str, Any]) -> list[list[tuple[str, int]]]:
    """The city's rows of ``(building, colonists)``: small buildings two to a row from the
    top, large ones (two spaces, rules 2.1) one to a row from the bottom."""
    small = [(b, c) for b, c in p["buildings"].items() if B_SPACES[BUILDING_NAMES.index(b)] == 1]
    large = [(b, c) for b, c in p["buildings"].items() if B_SPACES[BUILDING_NAMES.index(b)] > 1]
    rows: list[list[tuple[str, int]]] = [
        small[i : i + CITY_COLS] for i in range(0, len(small), CITY_COLS)
    ]
    rows += [[]] * (CITY_ROWS - len(rows) - len(large))
    return rows + [[item] for item in reversed(large)]


def building(name: str, colonists: int, width: int) -> str:
    """A building of the city with its circles, filled by its colonists (rules 2.1)."""
    b = BUILDING_NAMES.index(name)
    parts = [
        svg.rect(0, 0, width, CITY_H, board.building_fill(name), stroke=INK, stroke_width=1, rx=3),
        svg.text(4, 10, BUILDING_LABELS[name], size=FONT_TINY),
    ]
    for i in range(int(B_CIRCLES[b])):
        fill = COLONIST if i < colonists else PAPER
        cx = 4 + CIRCLE_R + i * CIRCLE_STEP
        parts.append(svg.circle(cx, CITY_H - 7, CIRCLE_R, fill, stroke=INK, stroke_width=1))
    return svg.group("".join(parts), data_building=name, data_colonists=colonists)


def city_spaces(p: dict[str, Any]) -> list[str]:
    """The drawing of each of the twelve city spaces, row by row (``city_rows``); a large
    building is drawn on the first space of its row, and the second stays blank."""
    out = []
    for row in city_rows(p):
        if len(row) == 1 and B_SPACES[BUILDING_NAMES.index(row[0][0])] > 1:
            out += [building(*row[0], CITY_STEP_X + CITY_W), ""]
            continue
        for i in range(CITY_COLS):
            if i < len(row):
                out.append(building(*row[i], CITY_W))
            else:
                out.append(svg.rect(0, 0, CITY_W, CITY_H, EMPTY_SPACE, stroke=RULE, rx=3))
    return out


def status(d: dict[str, Any], seat: int) -> str:
    """The governor's mark (rules 3.1) and a frame round the panel of the seat asked now."""
    parts = []
    if d["pending"] and d["pending"][-1]["player"] == seat:
        parts.append(
            svg.rect(0, 0, PANEL_W, PANEL_H, "none", stroke=HIGHLIGHT, stroke_width=4, rx=5)
        )
    if d["governor"] == seat:
        parts.append(svg.rect(PANEL_W - 70, 4, 64, 14, PAPER, rx=7))
        parts.append(svg.text(PANEL_W - 38, 15, "governor", size=FONT_SMALL, anchor="middle"))
    return "".join(parts)


def values(d: dict[str, Any], seat: int, score: int) -> dict[str, str]:
    """Every changing slot of seat ``seat``'s panel; ``score`` is its VP as if the game ended
    now (rules 5.2, computed by the engine)."""
    p = d["players"][seat]
    out = {
        f"player:{seat}:money": _number(p["money"], "money"),
        f"player:{seat}:vp": _number(p["vp"], "vp"),
        f"player:{seat}:score": _number(score, "score"),
        f"player:{seat}:san_juan": san_juan(p),
    }
    for g in GOOD_NAMES:
        out[f"player:{seat}:good:{g}"] = board.counted_barrel(g, p["goods"][g])
    for i, space in enumerate(island_tiles(p)):
        out[f"player:{seat}:island:{i}"] = island_tile(space)
    for i, piece in enumerate(city_spaces(p)):
        out[f"player:{seat}:city:{i}"] = piece
    out[f"player:{seat}:status"] = status(d, seat)
    return out
