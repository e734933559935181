"""One card per player: deniers, cubes, prestige, workers left, residences and houses, whether
the player has passed, and a highlight on the player asked the current decision.

Every number is its own slot (a ``<text>`` with ``data-seat`` and ``data-field``), so that a
step that changes one count stores one tiny new drawing, and tests can read any value off the
page. The card behind the numbers is drawn once per seat.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from caylus_env.caylus.engine.constants import NUM_WORKERS, RESOURCE_NAMES
from caylus_env.caylus.viewer.favors import TABLE_H, TABLE_X, TABLE_Y
from caylus_env.caylus.viewer.theme import CUBE_COLOURS
from caylus_env.core.viewer import svg
from caylus_env.core.viewer import theme as T

CARDS_X = TABLE_X
CARDS_Y = TABLE_Y + TABLE_H + 10
CARD_W = 368
CARD_H = 98
CARD_GAP = 6
BAND_W = 8
NAME_CHARS = 34
ROW1 = 20
ROW2 = 48
ROW3 = 76
CUBES_X = 104
CUBE_STEP = 38
CUBE = 11
#: ``(field, label, label x, value x, row)`` of the small counts on a card.
COUNTS = (
    ("deniers", "deniers", 16, 66, ROW2),
    ("workers", "workers", 16, 66, ROW3),
    ("residences", "residences", 104, 170, ROW3),
    ("houses", "houses", 204, 248, ROW3),
)
FIELDS = ("prestige", "deniers", *RESOURCE_NAMES, "workers", "residences", "houses")
"""Every value a card shows, each a slot ``player:<seat>:<field>``."""


def card_origin(seat: int) -> tuple[int, int]:
    return CARDS_X, CARDS_Y + seat * (CARD_H + CARD_GAP)


def card(seat: int, name: str) -> str:
    """The card of ``seat`` without its numbers: colour band, name, labels, cube swatches."""
    x, y = card_origin(seat)
    title = svg.shorten(f"player {seat} ({T.SEAT_COLOUR_NAMES[seat]}) · {name}", NAME_CHARS)
    parts = [
        svg.rect(x, y, CARD_W, CARD_H, T.PANEL, stroke=T.RULE, rx=6),
        svg.rect(x, y, BAND_W, CARD_H, T.SEAT_COLOURS[seat]),
        svg.text(x + 16, y + ROW1, title, size=T.FONT_TEXT, weight="bold"),
        svg.text(
            x + CARD_W - 12,
            y + ROW2 - 14,
            "prestige",
            size=T.FONT_SMALL,
            fill=T.MUTED,
            anchor="end",
        ),
    ]
    for _, label, lx, _, row in COUNTS:
        parts.append(svg.text(x + lx, y + row, label, size=T.FONT_SMALL, fill=T.MUTED))
    for i, cube in enumerate(RESOURCE_NAMES):
        cx = x + CUBES_X + i * CUBE_STEP
        parts.append(
            svg.rect(
                cx, y + ROW2 - CUBE, CUBE, CUBE, CUBE_COLOURS[cube], stroke=T.INK, stroke_width=1
            )
        )
    return svg.group("".join(parts), class_="card", data_seat=seat)


@lru_cache(maxsize=16384)
def _value(seat: int, field: str, value: int | str) -> str:
    x, y = card_origin(seat)
    if field == "prestige":
        return svg.text(
            x + CARD_W - 12,
            y + ROW3 + 2,
            value,
            size=T.FONT_BIG + 2,
            weight="bold",
            anchor="end",
            data_seat=seat,
            data_field=field,
        )
    if field in RESOURCE_NAMES:
        cx = x + CUBES_X + RESOURCE_NAMES.index(field) * CUBE_STEP + CUBE + 4
        return svg.text(
            cx, y + ROW2, value, size=T.FONT_TEXT, weight="bold", data_seat=seat, data_field=field
        )
    ((_, _, _, vx, row),) = (c for c in COUNTS if c[0] == field)
    return svg.text(
        x + vx, y + row, value, size=T.FONT_TEXT, weight="bold", data_seat=seat, data_field=field
    )


def values(d: dict[str, Any], seat: int) -> dict[str, str]:
    """The numbers on the card of ``seat``, one slot each."""
    p = d["players"][seat]
    residences = sum(1 for r in d["road"] if r["building"] == "residence" and r["owner"] == seat)
    numbers: dict[str, int | str] = {
        "prestige": p["prestige"],
        "deniers": p["money"],
        **p["cubes"],
        "workers": f"{NUM_WORKERS - p['workers_out']}/{NUM_WORKERS}",
        "residences": residences,
        "houses": p["houses"],
    }
    return {f"player:{seat}:{f}": _value(seat, f, numbers[f]) for f in FIELDS}


@lru_cache(maxsize=64)
def _status(seat: int, asked: bool, passed: bool) -> str:
    x, y = card_origin(seat)
    parts = []
    if asked:
        parts.append(
            svg.rect(
                x - 2,
                y - 2,
                CARD_W + 4,
                CARD_H + 4,
                "none",
                stroke=T.HIGHLIGHT,
                stroke_width=4,
                rx=8,
            )
        )
    words = [w for w, on in (("to play", asked), ("passed", passed)) if on]
    if words:
        parts.append(
            svg.text(
                x + CARD_W - 12,
                y + ROW1,
                " · ".join(words),
                size=T.FONT_SMALL,
                fill=T.MUTED,
                anchor="end",
                weight="bold",
            )
        )
    return svg.group("".join(parts), class_="status", data_seat=seat, data_asked=int(asked))


def status(d: dict[str, Any], seat: int) -> str:
    """Whether ``seat`` is asked the pending decision (a highlight) and whether it has passed."""
    asked = bool(d["pending"]) and d["pending"][-1]["player"] == seat
    return _status(seat, asked, bool(d["players"][seat]["passed"]))
