"""The road and what stands around it: the header, the special buildings, the bridge, the turn
order, the 28 road spaces with their buildings, owners and workers, the provost and the bailiff.

Each function draws one *slot* of the picture from the readable state dict
(``caylus_env.caylus.engine.state_dict``): the page stores every distinct slot drawing once and a step
only names which drawing each slot shows, so a slot must depend on as little of the state as
it can (one road space, one special building), and drawings are cached by their inputs.

The road runs in 4 rows of 7 spaces, left to right, then right to left (a snake, as on the
board), starting below the bridge.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from caylus_env.caylus.engine.board import SECTION_TRIGGER
from caylus_env.caylus.engine.constants import SECTION_NAMES, SPECIAL_NAMES
from caylus_env.caylus.viewer.theme import (
    BUILDING_KINDS,
    BUILDING_LABELS,
    KIND_FILL,
    SECTION_LABELS,
    SPECIAL_LABELS,
)
from caylus_env.core.viewer import svg
from caylus_env.core.viewer import theme as T

MARGIN = 12
HEADER_Y = 26

SPECIALS_X = 354
SPECIALS_Y = 46
SPECIAL_W = 142
SPECIAL_H = 80
SPECIAL_GAP = 8
SPECIALS_PER_ROW = 3
SPOT_R = 11
#: Worker spots of each special building, with their labels.
SPECIAL_SPOTS = {
    "gate": ("",),
    "trading_post": ("",),
    "merchants_guild": ("",),
    "joust_field": ("",),
    "stables": ("1", "2", "3"),
    "inn": ("left", "right"),
}

ORDER_Y = 232
ORDER_H = 64
ORDER_W = 380
BRIDGE_X = MARGIN + ORDER_W + 16

ROAD_X = MARGIN
ROAD_Y = 312
ROAD_COLUMNS = 7
ROAD_ROWS = 4
SPACE_W = 108
SPACE_H = 96
SPACE_GAP_X = 6
SPACE_GAP_Y = 20
LABEL_CHARS = 15
OWNER_BAND = 6
MARKER_W = 22
MARKER_H = 16

#: The castle section whose scoring the bailiff triggers on that space (rules 2.2).
TRIGGERS = {int(space): name for space, name in zip(SECTION_TRIGGER, SECTION_NAMES, strict=True)}


def house(x: int, y: int, seat: int, size: int = 12) -> str:
    """A house (on a road tile the seat owns, in a castle section): a square in its colour."""
    return svg.rect(x, y, size, size, T.SEAT_COLOURS[seat], stroke=T.INK, stroke_width=1)


def space_origin(space: int) -> tuple[int, int]:
    """Top-left corner of road space ``space`` (1-28) on the snake."""
    row, col = divmod(space - 1, ROAD_COLUMNS)
    if row % 2:
        col = ROAD_COLUMNS - 1 - col
    return ROAD_X + col * (SPACE_W + SPACE_GAP_X), ROAD_Y + row * (SPACE_H + SPACE_GAP_Y)


def _who(seat: int | None, names: tuple[str, ...]) -> str:
    return "nobody" if seat is None else f"player {seat} ({names[seat]})"


def header(d: dict[str, Any], names: tuple[str, ...]) -> str:
    """Turn, phase and the decision being asked, across the top."""
    phase = d["phase"].replace("_", " ")
    words = [f"Turn {d['turn']}", phase]
    if d["pending"]:
        top = d["pending"][-1]
        words.append(f"{top['kind'].replace('_', ' ')} for {_who(top['player'], names)}")
    return svg.text(
        MARGIN,
        HEADER_Y,
        " · ".join(words),
        size=T.FONT_TITLE + 2,
        weight="bold",
        class_="header",
    )


@lru_cache(maxsize=4096)
def _special(name: str, index: int, occupants: tuple[int | None, ...]) -> str:
    row, col = divmod(index, SPECIALS_PER_ROW)
    x = SPECIALS_X + col * (SPECIAL_W + SPECIAL_GAP)
    y = SPECIALS_Y + row * (SPECIAL_H + SPECIAL_GAP)
    parts = [
        svg.rect(x, y, SPECIAL_W, SPECIAL_H, T.PANEL, stroke=T.RULE, rx=6),
        svg.text(x + 8, y + 18, SPECIAL_LABELS[name], size=T.FONT_TEXT, weight="bold"),
    ]
    labels = SPECIAL_SPOTS[name]
    step = SPECIAL_W // len(labels)
    for i, (label, seat) in enumerate(zip(labels, occupants, strict=True)):
        cx, cy = x + step * i + step // 2, y + 46
        if seat is None:
            parts.append(svg.circle(cx, cy, SPOT_R, "none", stroke=T.RULE, stroke_dasharray="3 2"))
        else:
            parts.append(svg.seat_disc(cx, cy, seat, SPOT_R))
        if label:
            parts.append(
                svg.text(cx, y + 72, label, size=T.FONT_SMALL, fill=T.MUTED, anchor="middle")
            )
    return svg.group("".join(parts), class_="special", data_name=name)


def specials(d: dict[str, Any]) -> dict[str, str]:
    """The six special buildings (rules 2.1) with their workers, one slot each."""
    occupants: dict[str, tuple[int | None, ...]] = {
        name: (seat,) for name, seat in d["special_workers"].items()
    }
    occupants["stables"] = tuple(d["stables"])
    occupants["inn"] = (d["inn"]["left"], d["inn"]["right"])
    return {
        f"special:{name}": _special(name, i, occupants[name])
        for i, name in enumerate(SPECIAL_NAMES)
    }


@lru_cache(maxsize=1024)
def _order(title: str, x: int, seats: tuple[int, ...], numbered: bool, n: int) -> str:
    parts = [
        svg.rect(x, ORDER_Y, ORDER_W, ORDER_H, T.PANEL, stroke=T.RULE, rx=6),
        svg.text(x + 8, ORDER_Y + 18, title, size=T.FONT_TEXT, weight="bold"),
    ]
    for i in range(n):
        cx, cy = x + 24 + i * 44, ORDER_Y + 42
        if i < len(seats):
            parts.append(svg.seat_disc(cx, cy, seats[i], SPOT_R))
        else:
            parts.append(svg.circle(cx, cy, SPOT_R, "none", stroke=T.RULE, stroke_dasharray="3 2"))
        if numbered:
            parts.append(svg.text(cx + 15, cy + 12, i + 1, size=T.FONT_SMALL, fill=T.MUTED))
    return "".join(parts)


def turn_order(d: dict[str, Any]) -> str:
    """The turn order of this turn (rules 4, phase 2)."""
    seats = tuple(d["turn_order"])
    return _order("Turn order", MARGIN, seats, False, len(seats))


def bridge(d: dict[str, Any]) -> str:
    """The bridge: who has passed, in passing order (the next turn's order)."""
    passing = tuple(d["passing_order"])
    return _order("Bridge (passing order)", BRIDGE_X, passing, True, len(d["turn_order"]))


def _kind_fill(building: str | None) -> str:
    return T.EMPTY_SPACE if building is None else KIND_FILL[BUILDING_KINDS[building]]


@lru_cache(maxsize=8192)
def _space(
    space: int, building: str | None, owner: int | None, worker: int | None, lawyer: int | None
) -> str:
    x, y = space_origin(space)
    parts = [
        svg.rect(
            x,
            y,
            SPACE_W,
            SPACE_H,
            _kind_fill(building),
            stroke=T.RULE if building else T.MUTED,
            stroke_dasharray=None if building else "4 3",
            rx=4,
        ),
        svg.text(x + 6, y + 14, space, size=T.FONT_SMALL, fill=T.MUTED, weight="bold"),
    ]
    if space in TRIGGERS:
        parts.append(
            svg.text(
                x + SPACE_W - 6,
                y + 14,
                SECTION_LABELS[TRIGGERS[space]],
                size=T.FONT_SMALL,
                fill=T.MUTED,
                anchor="end",
            )
        )
    if owner is not None:
        parts.append(svg.rect(x, y, OWNER_BAND, SPACE_H, T.SEAT_COLOURS[owner]))
        parts.append(house(x + SPACE_W - 18, y + SPACE_H - 18, owner))
    if building is not None:
        label = svg.wrap(BUILDING_LABELS[building], LABEL_CHARS)
        for i, chunk in enumerate(label[:2]):
            parts.append(svg.text(x + 10, y + 34 + i * 15, chunk, size=T.FONT_TEXT))
    if worker is not None:
        parts.append(svg.seat_disc(x + SPACE_W // 2, y + SPACE_H - 18, worker, SPOT_R))
    if lawyer is not None:
        parts.append(
            svg.text(
                x + 10,
                y + 66,
                "→ residence",
                size=T.FONT_SMALL,
                fill=T.SEAT_COLOURS[lawyer],
                weight="bold",
                class_="lawyer",
            )
        )
    return svg.group(
        "".join(parts),
        class_="space",
        data_space=space,
        data_building=building or "",
        data_owner="" if owner is None else owner,
    )


def road(d: dict[str, Any]) -> dict[str, str]:
    """The 28 road spaces: building (named, tile colour of its kind), owner (a band and a house
    in the owner's colour), worker, and a lawyer's waiting transformation into a residence."""
    return {
        f"road:{r['space']}": _space(
            r["space"], r["building"], r["owner"], r["worker"], r["lawyer_pending"]
        )
        for r in d["road"]
    }


@lru_cache(maxsize=64)
def _marker(kind: str, space: int) -> str:
    x, y = space_origin(space)
    if kind == "provost":
        mx, fill, letter = x + 8, "#5b3a1a", "P"
    else:
        mx, fill, letter = x + SPACE_W - MARKER_W - 26, "#2d2d2d", "B"
    my = y + SPACE_H + 2
    return svg.group(
        svg.rect(mx, my, MARKER_W, MARKER_H, fill, rx=3)
        + svg.text(
            mx + MARKER_W // 2,
            my + 12,
            letter,
            size=T.FONT_SMALL,
            fill="#ffffff",
            anchor="middle",
            weight="bold",
        ),
        class_=kind,
        data_space=space,
    )


def provost(d: dict[str, Any]) -> str:
    """The provost: a brown P below its space (buildings beyond it are not activated)."""
    return _marker("provost", d["provost"])


def bailiff(d: dict[str, Any]) -> str:
    """The bailiff: a black B below its space."""
    return _marker("bailiff", d["bailiff"])


def road_legend() -> str:
    """What the road's marks mean (drawn once, it never changes)."""
    y = ROAD_Y + ROAD_ROWS * (SPACE_H + SPACE_GAP_Y) + 12
    return svg.text(
        MARGIN,
        y,
        "P provost · B bailiff · band and square: owner · disc: worker · "
        "tile colour: neutral, fixed, wood, stone, residence, prestige",
        size=T.FONT_SMALL,
        fill=T.MUTED,
    )


assert set(SPECIAL_SPOTS) == set(SPECIAL_NAMES)
