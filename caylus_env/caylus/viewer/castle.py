"""The castle: its three sections with each player's houses, and this turn's castle workers.

One slot per section (its houses change only in phase 6 and its scored mark in phase 7) and
one for the workers waiting at the castle, drawn from the readable state dict.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from caylus_env.caylus.engine.board import SECTION_PRESTIGE, SECTION_SIZE
from caylus_env.caylus.engine.constants import NUM_CASTLE_SPOTS, SECTION_NAMES
from caylus_env.caylus.viewer.board import house
from caylus_env.caylus.viewer.theme import SECTION_LABELS
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import FONT_SMALL, FONT_TEXT, FONT_TITLE, MUTED, PANEL, RULE

CASTLE_X = 12
CASTLE_Y = 46
CASTLE_W = 330
CASTLE_H = 176
TITLE_H = 26
SECTION_H = 48
HOUSE = 14
HOUSE_GAP = 3
WORKER_R = 9
WORKER_STEP = 22


@lru_cache(maxsize=1024)
def _section(index: int, houses: tuple[int, ...], scored: bool) -> str:
    name = SECTION_NAMES[index]
    size = int(SECTION_SIZE[index])
    filled = sum(houses)
    y = CASTLE_Y + TITLE_H + index * SECTION_H
    status = "scored" if scored else f"{int(SECTION_PRESTIGE[index])} prestige a house"
    parts = [
        svg.text(
            CASTLE_X + 10,
            y + 14,
            f"{SECTION_LABELS[name]} {filled}/{size}",
            size=FONT_TEXT,
            weight="bold",
        ),
        svg.text(
            CASTLE_X + CASTLE_W - 10, y + 14, status, size=FONT_SMALL, fill=MUTED, anchor="end"
        ),
    ]
    seats = [seat for seat, count in enumerate(houses) for _ in range(count)]
    for i in range(max(size, len(seats))):
        x = CASTLE_X + 10 + i * (HOUSE + HOUSE_GAP)
        if i < len(seats):
            parts.append(house(x, y + 22, seats[i], HOUSE))
        else:
            parts.append(svg.rect(x, y + 22, HOUSE, HOUSE, "none", stroke=RULE))
    return svg.group("".join(parts), class_="section", data_section=name, data_scored=int(scored))


def sections(d: dict[str, Any]) -> dict[str, str]:
    """Each section (rules 2.1): houses per player in the seat colours, free spaces as outlines,
    and whether it has been scored."""
    return {
        f"castle:{name}": _section(i, tuple(d["castle"][name]), bool(d["scored"][name]))
        for i, name in enumerate(SECTION_NAMES)
    }


def frame() -> str:
    """The castle's panel and title (drawn once, it never changes)."""
    return svg.rect(CASTLE_X, CASTLE_Y, CASTLE_W, CASTLE_H, PANEL, stroke=RULE, rx=6) + svg.text(
        CASTLE_X + 10, CASTLE_Y + 18, "Castle", size=FONT_TITLE, weight="bold"
    )


@lru_cache(maxsize=1024)
def _workers(seats: tuple[int, ...]) -> str:
    x0 = CASTLE_X + CASTLE_W - 10 - NUM_CASTLE_SPOTS * WORKER_STEP
    parts = [svg.text(x0 - 6, CASTLE_Y + 18, "workers", size=FONT_SMALL, fill=MUTED, anchor="end")]
    for i in range(NUM_CASTLE_SPOTS):
        cx = x0 + i * WORKER_STEP + WORKER_STEP // 2
        if i < len(seats):
            parts.append(svg.seat_disc(cx, CASTLE_Y + 14, seats[i], WORKER_R))
        else:
            parts.append(
                svg.circle(cx, CASTLE_Y + 14, WORKER_R, "none", stroke=RULE, stroke_dasharray="3 2")
            )
    return svg.group("".join(parts), class_="castle-workers")


def workers(d: dict[str, Any]) -> str:
    """The workers placed at the castle this turn, in the order they will give batches."""
    return _workers(tuple(d["castle_workers"]))
