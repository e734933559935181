"""Each player's panel: colour, name, resources, workers in hand and in the Camp, houses left,
prestige, characters held, and whether he passed, plays now or holds the first-player tile
(rules 2.1, 2.2, 4.1, 4.7).

The panel's frame, name and labels never change (``card``, drawn once into the background);
every number is its own slot ``player:<seat>:<field>`` (so a new worker in hand changes one
small drawing), as are the status line and the characters held. Prestige is the one value
that may be hidden: with ``hide_opponent_pp`` the page shows nobody's prestige until the game
is over (D37), then the final scores.
"""

from __future__ import annotations

from functools import lru_cache

from caylus_env.caylus_1303.engine.constants import CHARACTER_NAMES, RESOURCE_NAMES
from caylus_env.caylus_1303.viewer.board import MARGIN, WIDTH
from caylus_env.caylus_1303.viewer.theme import (
    CHARACTER_LABELS,
    FONT_TINY,
    RESOURCE_COLOURS,
    SEAT_FILL,
)
from caylus_env.caylus_1303.viewer.view import View
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    FONT_SMALL,
    FONT_TEXT,
    FONT_TITLE,
    HIGHLIGHT,
    INK,
    MUTED,
    PANEL,
    RULE,
    SEAT_COLOUR_NAMES,
)

PANEL_H = 146
PANEL_GAP = 8
BAND_W = 6
ROW_NAME = 17
ROW_STATUS = 33
ROW_CUBES = 55
ROW_COUNTS = 77
ROW_PRESTIGE = 101
ROW_CHARACTERS = 120
LINE = 13
CUBE = 12
CUBE_STEP = 42
#: ``(field, label, label x, value x)`` of the worker and house counts.
COUNTS = (("hand", "hand", 12, 42), ("camp", "camp", 66, 98), ("houses", "houses", 124, 164))
#: Every value a panel shows, each a slot ``player:<seat>:<field>``.
FIELDS = (*RESOURCE_NAMES, "hand", "camp", "houses", "prestige", "characters", "status")
#: What the prestige slot shows while it is hidden (D37).
HIDDEN = "hidden"


def panel_width(num_players: int) -> int:
    """A panel's width: the seats share the picture's width."""
    return (WIDTH - 2 * MARGIN - (num_players - 1) * PANEL_GAP) // num_players


def slot_origins(seat: int, num_players: int, top: int) -> dict[str, tuple[int, int]]:
    """Every slot of the panel of ``seat`` (all drawn in the panel's coordinates)."""
    origin = (MARGIN + seat * (panel_width(num_players) + PANEL_GAP), top)
    return {f"player:{seat}:{field}": origin for field in FIELDS}


def card(seat: int, name: str, num_players: int, top: int) -> str:
    """The panel of ``seat`` without its values: frame, colour band, name, labels and
    resource swatches."""
    x, y = slot_origins(seat, num_players, top)[f"player:{seat}:hand"]
    w = panel_width(num_players)
    title = svg.shorten(f"player {seat} ({SEAT_COLOUR_NAMES[seat]}) · {name}", w // 7)
    parts = [
        svg.rect(x, y, w, PANEL_H, PANEL, stroke=RULE, rx=6),
        svg.rect(x, y, BAND_W, PANEL_H, SEAT_FILL[seat]),
        svg.text(x + 12, y + ROW_NAME, title, size=FONT_TEXT, weight="bold"),
        svg.text(x + 12, y + ROW_PRESTIGE, "prestige", size=FONT_SMALL, fill=MUTED),
    ]
    for _, label, lx, _ in COUNTS:
        parts.append(svg.text(x + lx, y + ROW_COUNTS, label, size=FONT_SMALL, fill=MUTED))
    for i, r in enumerate(RESOURCE_NAMES):
        cx = x + 12 + i * CUBE_STEP
        parts.append(
            svg.rect(
                cx,
                y + ROW_CUBES - CUBE + 1,
                CUBE,
                CUBE,
                RESOURCE_COLOURS[r],
                stroke=INK,
                stroke_width=1,
            )
        )
    return svg.group("".join(parts), class_="card", data_seat=seat)


def legend(num_players: int, top: int) -> str:
    """The resource swatches' names, under the panels (drawn once)."""
    words = " · ".join(RESOURCE_NAMES)
    return svg.text(MARGIN, top + PANEL_H + 14, f"resources: {words}", size=FONT_SMALL, fill=MUTED)


@lru_cache(maxsize=16384)
def _value(seat: int, field: str, value: int | str) -> str:
    if field in RESOURCE_NAMES:
        x = 12 + RESOURCE_NAMES.index(field) * CUBE_STEP + CUBE + 4
        return svg.text(
            x, ROW_CUBES, value, size=FONT_TEXT, weight="bold", data_seat=seat, data_field=field
        )
    if field == "prestige":
        hidden = value == HIDDEN
        return svg.text(
            64,
            ROW_PRESTIGE + 1,
            value,
            size=FONT_SMALL if hidden else FONT_TITLE + 2,
            fill=MUTED if hidden else INK,
            weight=None if hidden else "bold",
            data_seat=seat,
            data_field=field,
        )
    ((_, _, _, vx),) = (c for c in COUNTS if c[0] == field)
    return svg.text(
        vx, ROW_COUNTS, value, size=FONT_TEXT, weight="bold", data_seat=seat, data_field=field
    )


def prestige_shown(v: View, seat: int, scores: list[int] | tuple[int, ...]) -> int | str:
    """What the prestige slot of ``seat`` shows: ``hidden`` while the option hides prestige
    and the game runs (D37: a replay page has no viewpoint, so nobody's is shown); the final
    score (prestige + 2 per gold, rules 4.6) once the game is over; else the prestige."""
    if v.pp_hidden:
        return HIDDEN
    return int(scores[seat]) if v.over else v.seats[seat].pp


@lru_cache(maxsize=4096)
def _characters(seat: int, held: tuple[tuple[int, bool], ...], width: int) -> str:
    if not held:
        words = "no character"
    else:
        words = ", ".join(
            CHARACTER_LABELS[CHARACTER_NAMES[c]] + (" (used)" if used else "") for c, used in held
        )
    lines = svg.wrap(words, max(12, (width - 16) // 6))
    return svg.group(
        "".join(
            svg.text(
                12,
                ROW_CHARACTERS + i * LINE,
                line,
                size=FONT_TINY + 1,
                fill=MUTED if not held else INK,
            )
            for i, line in enumerate(lines[:2])
        ),
        class_="characters",
        data_seat=seat,
        data_characters=" ".join(CHARACTER_NAMES[c] for c, _ in held),
    )


@lru_cache(maxsize=256)
def _status(seat: int, width: int, asked: bool, passed: bool, first: bool) -> str:
    parts = []
    if asked:
        parts.append(
            svg.rect(-2, -2, width + 4, PANEL_H + 4, "none", stroke=HIGHLIGHT, stroke_width=4, rx=8)
        )
    words = [w for w, on in (("to play", asked), ("passed", passed), ("first player", first)) if on]
    if words:
        parts.append(
            svg.text(12, ROW_STATUS, " · ".join(words), size=FONT_SMALL, fill=MUTED, weight="bold")
        )
    return svg.group("".join(parts), class_="status", data_seat=seat, data_asked=int(asked))


def values(v: View, seat: int, scores: list[int] | tuple[int, ...]) -> dict[str, str]:
    """Every value slot of the panel of ``seat``."""
    p = v.seats[seat]
    numbers: dict[str, int | str] = {
        **dict(zip(RESOURCE_NAMES, p.resources, strict=True)),
        "hand": p.hand,
        "camp": p.camp,
        "houses": p.houses,
        "prestige": prestige_shown(v, seat, scores),
    }
    me = f"player:{seat}"
    out = {f"{me}:{field}": _value(seat, field, value) for field, value in numbers.items()}
    width = panel_width(v.num_players)
    held = tuple((c, v.used[c]) for c, h in enumerate(v.holders) if h == seat)
    out[f"{me}:characters"] = _characters(seat, held, width)
    asked = v.asked is not None and v.asked[1] == seat
    out[f"{me}:status"] = _status(seat, width, asked, p.passed, v.first_player == seat)
    return out


__all__ = [
    "FIELDS",
    "HIDDEN",
    "PANEL_H",
    "card",
    "legend",
    "prestige_shown",
    "slot_origins",
    "values",
]
