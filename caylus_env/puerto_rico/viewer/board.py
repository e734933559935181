"""The shared board of Puerto Rico: the header, the role cards, the colonists, the VP chips
and the tile supplies, the face-up plantations, the goods supply, the trading house, the cargo
ships and the building supply (docs/rules/puerto_rico.md 1.1-1.2).

Every function draws one *slot* in its own coordinates (its top-left corner is 0,0); the
position module places it with a ``translate``. So equal pieces are equal strings wherever
they stand (an empty cargo-ship place, a building with two tiles left) and the page stores
each once. Nothing here reads the face-down plantation order: only how many tiles are left
(rules 6.8).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    EMPTY_SPACE,
    FONT_SMALL,
    FONT_TEXT,
    FONT_TITLE,
    INK,
    MUTED,
    ON_SEAT,
    PANEL,
    RULE,
)
from caylus_env.puerto_rico.engine.buildings import B_KIND, B_PRODUCES, BUILDING_NAMES, BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    GOOD_NAMES,
    MAX_FACE_UP,
    MAX_SHIPS,
    NUM_PLANTATION_KINDS,
    ROLE_NAMES,
    TILE_NAMES,
    TRADING_HOUSE_SPACES,
)
from caylus_env.puerto_rico.viewer.theme import (
    BUILDING_FILL,
    BUILDING_LABELS,
    COLONIST,
    FONT_TINY,
    GOOD_COLOURS,
    GOOD_TEXT,
    OUT_OF_GAME,
    PRODUCTION_FILL,
    ROLE_FILL,
    ROLE_LABELS,
    TILE_COLOURS,
    TILE_SHORT,
)

MARGIN = 16
HEADER_Y = 24
# Role cards: one row of eight (rules 1.1).
ROLES_Y = 36
ROLE_W = 142
ROLE_H = 58
ROLE_STEP = 148
# The supply row: boxes side by side, each with a title line.
ROW_Y = 102
BOX_H = 92
BOX_TITLE_Y = 14
BOXES = {  # name: (x, width)
    "colonists": (MARGIN, 150),
    "supplies": (172, 150),
    "face_up": (328, 226),
    "goods_supply": (560, 200),
    "trading_house": (766, 150),
    "ships": (922, 272),
}
TILE_W = 34
TILE_H = 24
TILE_STEP = 36
BARREL_STEP = 38
SHIP_ROW = 24
SHIP_LABEL_W = 70
PLACE = 14
PLACE_STEP = 16
# The building supply: a grid of cells in BuildingId order.
SUPPLY_Y = 202
SUPPLY_COLS = 6
SUPPLY_W = 191
SUPPLY_H = 16
SUPPLY_STEP_X = 196
SUPPLY_STEP_Y = 18
SUPPLY_TITLE_H = 16
EMPTY_OPACITY = 0.45
# The lines of the supplies box: 3, or 4 once VP are counted on paper (closer together).
SUPPLY_FIRST_LINE = 34
SUPPLY_LINE_STEP = 18
SUPPLY_LINE_STEP_TIGHT = 15
SUPPLY_LINES_TIGHT = 4
PLANTATION_NAMES = TILE_NAMES[:NUM_PLANTATION_KINDS]


def building_fill(name: str) -> str:
    """A production building has its good's tint, a violet one its family's (rules 2.3-2.5)."""
    b = BUILDING_NAMES.index(name)
    good = int(B_PRODUCES[b])
    return PRODUCTION_FILL[GOOD_NAMES[good]] if good >= 0 else BUILDING_FILL[int(B_KIND[b])]


def supply_buildings(expansion: bool) -> tuple[str, ...]:
    """The building kinds of the supply board: the base game's, and with the expansion its
    violet buildings too (rules 1.2, 7.1)."""
    return tuple(b.name for b in BUILDINGS if expansion or not b.expansion)


def supply_origin(index: int) -> tuple[int, int]:
    """Top-left corner of building-supply cell ``index``."""
    row, col = divmod(index, SUPPLY_COLS)
    return MARGIN + col * SUPPLY_STEP_X, SUPPLY_Y + SUPPLY_TITLE_H + row * SUPPLY_STEP_Y


def supply_bottom(expansion: bool) -> int:
    """The y just below the building supply."""
    rows = -(-len(supply_buildings(expansion)) // SUPPLY_COLS)
    return SUPPLY_Y + SUPPLY_TITLE_H + rows * SUPPLY_STEP_Y


def slot_origins(expansion: bool) -> dict[str, tuple[int, int]]:
    """Top-left corner of every slot of the shared board, in drawing order."""
    out: dict[str, tuple[int, int]] = {"header": (0, 0)}
    out.update({f"role:{r}": (MARGIN + i * ROLE_STEP, ROLES_Y) for i, r in enumerate(ROLE_NAMES)})
    inside = ROW_Y + BOX_TITLE_Y + 12
    out["colonists"] = (BOXES["colonists"][0], ROW_Y)
    out["supplies"] = (BOXES["supplies"][0], ROW_Y)
    x = BOXES["face_up"][0] + 8
    out.update({f"face_up:{i}": (x + i * TILE_STEP, inside) for i in range(MAX_FACE_UP)})
    x = BOXES["goods_supply"][0] + 8
    out.update(
        {f"goods_supply:{g}": (x + i * BARREL_STEP, inside) for i, g in enumerate(GOOD_NAMES)}
    )
    x = BOXES["trading_house"][0] + 8
    out.update(
        {f"trading_house:{i}": (x + i * TILE_STEP, inside) for i in range(TRADING_HOUSE_SPACES)}
    )
    x = BOXES["ships"][0] + 8
    out.update({f"ship:{k + 1}": (x, inside - 4 + k * SHIP_ROW) for k in range(MAX_SHIPS)})
    for i, b in enumerate(supply_buildings(expansion)):
        out[f"supply:{b}"] = supply_origin(i)
    return out


def frame() -> str:
    """What never changes: the titles and frames of the supply boxes."""
    titles = {
        "colonists": "Colonists",
        "supplies": "Supplies",
        "face_up": "Face-up plantations",
        "goods_supply": "Goods supply",
        "trading_house": "Trading house",
        "ships": "Cargo ships",
    }
    parts = []
    for name, (x, w) in BOXES.items():
        parts.append(svg.rect(x, ROW_Y, w, BOX_H, PANEL, stroke=RULE, rx=4))
        parts.append(
            svg.text(x + 8, ROW_Y + BOX_TITLE_Y, titles[name], size=FONT_SMALL, fill=MUTED)
        )
    parts.append(
        svg.text(
            MARGIN,
            SUPPLY_Y + SUPPLY_TITLE_H - 4,
            "Building supply (tiles left)",
            size=FONT_SMALL,
            fill=MUTED,
        )
    )
    return "".join(parts)


def header(d: dict[str, Any], names: tuple[str, ...]) -> str:
    """Round, phase and who is asked what (rules 3)."""
    phase = d["phase"].replace("_", " ")
    words = f"Round {d['round']} · {phase} phase"
    if d["pending"]:
        top = d["pending"][-1]
        p = top["player"]
        words += f" · {top['kind'].replace('_', ' ')} for player {p} ({names[p]})"
    return svg.text(MARGIN, HEADER_Y, words, size=FONT_TITLE, weight="bold", class_="header")


def role_card(d: dict[str, Any], role: str, taker: int | None) -> str:
    """One role card: still to pick (with the doubloons on it, rules 3.2), picked this round
    (by whom, when known) or not in this game (1.2)."""
    state = d["roles"][role]
    label = ROLE_LABELS[role]
    if not state["in_game"]:
        return svg.rect(0, 0, ROLE_W, ROLE_H, OUT_OF_GAME, rx=5) + svg.text(
            8, 18, f"{label} (not in game)", size=FONT_SMALL, fill=MUTED
        )
    fill = PANEL if state["picked"] else ROLE_FILL
    parts = [
        svg.rect(0, 0, ROLE_W, ROLE_H, fill, stroke=INK if not state["picked"] else RULE, rx=5),
        svg.text(8, 18, label, size=FONT_TEXT, weight="bold"),
    ]
    coins = state["doubloons"]
    if not state["picked"]:
        parts.append(
            svg.text(8, 36, f"{coins} doubloon{'s' * (coins != 1)}", size=FONT_SMALL, fill=INK)
        )
        parts.append(svg.text(8, 51, "available", size=FONT_SMALL, fill=MUTED))
    elif taker is None:
        parts.append(svg.text(8, 44, "taken this round", size=FONT_SMALL, fill=MUTED))
    else:
        parts.append(svg.seat_disc(ROLE_W - 16, 40, taker, r=9))
        parts.append(svg.text(8, 44, f"taken by player {taker}", size=FONT_SMALL, fill=INK))
    return "".join(parts)


def colonists(d: dict[str, Any]) -> str:
    """The colonist ship and the colonist supply (rules 4.2)."""
    return "".join(
        [
            svg.circle(14, 34, 6, COLONIST),
            svg.text(26, 38, f"on the ship: {d['colonist_ship']}", size=FONT_TEXT),
            svg.text(26, 58, f"in the supply: {d['colonist_supply']}", size=FONT_TEXT),
        ]
    )


def supplies(d: dict[str, Any]) -> str:
    """The VP chips, the quarries and how many face-down plantations are left (their order is
    hidden, rules 6.8). The engine's chip supply goes below 0 once the chips run out, by the VP
    counted on paper (6.7): shown as 0 chips left and, on a line of its own, that many VP on
    paper (one line for both ran past the box into the face-up plantations)."""
    chips = d["vp_supply"]
    lines = [(f"VP chips left: {max(chips, 0)}", FONT_TEXT)]
    if chips < 0:
        lines.append((f"and {-chips} VP on paper", FONT_SMALL))
    lines += [
        (f"quarries left: {d['quarry_supply']}", FONT_TEXT),
        (f"face down: {len(d['plantation_stack'])}", FONT_TEXT),
    ]
    step = SUPPLY_LINE_STEP if len(lines) < SUPPLY_LINES_TIGHT else SUPPLY_LINE_STEP_TIGHT
    return "".join(
        svg.text(8, SUPPLY_FIRST_LINE + i * step, words, size=size)
        for i, (words, size) in enumerate(lines)
    )


def tile(kind: str, w: int = TILE_W, h: int = TILE_H, left: bool = False) -> str:
    """An island tile of ``kind`` with its name on it (``left``: the name at its left end,
    leaving room for a colonist circle; else centred and shortened to fit a small tile)."""
    text_fill = GOOD_TEXT.get(kind, ON_SEAT)
    label = kind if left else TILE_SHORT[kind]
    x, anchor = (3, None) if left else (w // 2, "middle")
    return svg.rect(0, 0, w, h, TILE_COLOURS[kind], stroke=INK, stroke_width=1, rx=3) + svg.text(
        x, h // 2 + 3, label, size=FONT_TINY, fill=text_fill, anchor=anchor
    )


def face_up(d: dict[str, Any]) -> dict[str, str]:
    """The face-up plantations, players + 1 after each settler phase (rules 4.1), one slot
    per place."""
    kinds = [k for k in PLANTATION_NAMES for _ in range(d["face_up"][k])]
    out = {f"face_up:{i}": tile(k) for i, k in enumerate(kinds)}
    out.update({f"face_up:{i}": "" for i in range(len(kinds), MAX_FACE_UP)})
    if not kinds:
        out["face_up:0"] = svg.text(0, 16, "none", size=FONT_SMALL, fill=MUTED)
    return out


def barrel(good: str, count: int | None = None) -> str:
    """A barrel of ``good``, with a count on it when one is given."""
    shape = svg.rect(0, 0, TILE_W, TILE_H - 4, GOOD_COLOURS[good], stroke=INK, rx=6)
    if count is None:
        return shape
    return shape + svg.text(
        TILE_W // 2, TILE_H // 2 + 2, count, size=FONT_SMALL, fill=GOOD_TEXT[good], anchor="middle"
    )


def counted_barrel(good: str, count: int) -> str:
    """A barrel with its count and the good's name under it (a supply or a player's goods)."""
    return barrel(good, count) + svg.text(
        TILE_W // 2, TILE_H + 8, good, size=FONT_TINY, anchor="middle"
    )


def goods_supply(d: dict[str, Any]) -> dict[str, str]:
    """Barrels left in the supply per good (rules 1.1, 6.2)."""
    return {f"goods_supply:{g}": counted_barrel(g, d["goods_supply"][g]) for g in GOOD_NAMES}


def trading_house(d: dict[str, Any]) -> dict[str, str]:
    """The trading house's four places (rules 4.5), filled in price order: the engine keeps
    how many barrels of each good it holds, not the order they were sold in."""
    sold = [g for g in GOOD_NAMES for _ in range(d["trading_house"][g])]
    empty = svg.rect(0, 0, TILE_W, TILE_H - 4, EMPTY_SPACE, stroke=RULE, rx=6)
    return {
        f"trading_house:{i}": barrel(sold[i]) if i < len(sold) else empty
        for i in range(TRADING_HOUSE_SPACES)
    }


def ship(s: dict[str, Any] | None) -> str:
    """A cargo ship: its places, the good it carries and its load (rules 4.6); ``None``
    draws nothing (the third ship of a 2-player game, rules 1.3)."""
    if s is None:
        return ""
    good = s["good"]
    parts = [svg.text(0, 11, f"{s['capacity']} places", size=FONT_SMALL)]
    for i in range(s["capacity"]):
        fill = GOOD_COLOURS[good] if good is not None and i < s["load"] else EMPTY_SPACE
        parts.append(
            svg.rect(SHIP_LABEL_W - 12 + i * PLACE_STEP, 0, PLACE, PLACE, fill, stroke=RULE)
        )
    parts.append(
        svg.text(
            SHIP_LABEL_W - 12 + s["capacity"] * PLACE_STEP + 4,
            11,
            f"{s['load']} {good}" if good is not None else "empty",
            size=FONT_SMALL,
            fill=MUTED if good is None else INK,
        )
    )
    return "".join(parts)


def ships(d: dict[str, Any]) -> dict[str, str]:
    """Every cargo-ship slot, smallest ship first."""
    return {
        f"ship:{k + 1}": ship(d["ships"][k] if k < len(d["ships"]) else None)
        for k in range(MAX_SHIPS)
    }


def supply_cell(name: str, left: int) -> str:
    """One building kind of the supply board and the tiles left (rules 4.3)."""
    parts = [
        svg.rect(0, 0, SUPPLY_W, SUPPLY_H, building_fill(name), stroke=RULE, rx=2),
        svg.text(5, 12, BUILDING_LABELS[name], size=FONT_SMALL),
        svg.text(SUPPLY_W - 5, 12, f"×{left}", size=FONT_SMALL, anchor="end", weight="bold"),
    ]
    return svg.group("".join(parts), opacity=EMPTY_OPACITY) if left == 0 else "".join(parts)


def building_supply(d: dict[str, Any]) -> dict[str, str]:
    return {
        f"supply:{name}": supply_cell(name, d["building_supply"][name])
        for name in supply_buildings(d["options"]["expansion"])
    }


def roles(d: dict[str, Any], takers: Mapping[str, int]) -> dict[str, str]:
    return {f"role:{r}": role_card(d, r, takers.get(r)) for r in ROLE_NAMES}


def slots(d: dict[str, Any], names: tuple[str, ...], takers: Mapping[str, int]) -> dict[str, str]:
    """The drawing of every slot of the shared board (``slot_origins`` gives where)."""
    return {
        "header": header(d, names),
        **roles(d, takers),
        "colonists": colonists(d),
        "supplies": supplies(d),
        **face_up(d),
        **goods_supply(d),
        **trading_house(d),
        **ships(d),
        **building_supply(d),
    }
