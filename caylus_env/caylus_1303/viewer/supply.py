"""The supplies and the characters: the wood and stone buildings left to construct, the
monuments left to build, and the characters in play with who holds each (rules 3.2 steps 2-4,
3.3, 5.3-5.6).

One slot per supply tile (``wood:<tile>``, ``stone:<tile>``, ``monument:<tile>``: the place a
``construct:`` or ``monument:`` action is clicked), drawn empty once the tile has left the
supply; one for the counts left; one per character (``character:<name>``), drawn empty when
the character is out of play (not revealed at setup, D37: it never enters the game).
"""

from __future__ import annotations

from functools import lru_cache

from caylus_env.caylus_1303.engine.constants import CHARACTER_NAMES, ON_BOARD
from caylus_env.caylus_1303.engine.tiles import (
    COST_KEYS,
    MONUMENT_KINDS,
    STONE_KINDS,
    TILES,
    WOOD_KINDS,
)
from caylus_env.caylus_1303.viewer.board import MARGIN, WIDTH, worker
from caylus_env.caylus_1303.viewer.theme import CHARACTER_LABELS, FONT_TINY, GROUP_FILL
from caylus_env.caylus_1303.viewer.view import View
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import FONT_SMALL, MUTED, PANEL, RULE

SUPPLY_LABEL_W = 120
TILE_W = 112
TILE_H = 44
TILE_STEP_X = 118
TILE_STEP_Y = 48
CHARACTER_W = 92
CHARACTER_H = 48
CHARACTER_STEP = 98
#: The supplies in drawing order: slot prefix, title and the kinds of each.
SUPPLIES = (
    ("wood", "Wood supply", tuple(int(k) for k in WOOD_KINDS)),
    ("stone", "Stone supply", tuple(int(k) for k in STONE_KINDS)),
    ("monument", "Monuments", tuple(int(k) for k in MONUMENT_KINDS)),
)
assert max(len(kinds) for _, _, kinds in SUPPLIES) * TILE_STEP_X + SUPPLY_LABEL_W <= WIDTH


def _cost(kind: int) -> str:
    tile = TILES[kind]
    return ", ".join(f"{tile.cost[k]} {k}" for k in COST_KEYS if k in tile.cost)


def _gains(kind: int) -> str:
    """What building the tile gives: its prestige, and a monument's income or Favor (rules
    5.5, D4, D35)."""
    tile = TILES[kind]
    words = [f"{tile.pp} PP"]
    words += [f"+{n} {k}/round" for k, n in tile.income.items()]
    if tile.favor_when_built:
        words.append("a Favor")
    return ", ".join(words)


def supply_height() -> int:
    return (len(SUPPLIES) - 1) * TILE_STEP_Y + TILE_H


def slot_origins(top: int) -> dict[str, tuple[int, int]]:
    """Top-left corner of every supply slot (the supplies from ``top``), then of every
    character (under them), in drawing order."""
    out: dict[str, tuple[int, int]] = {"supplies": (MARGIN, top)}
    for row, (prefix, _, kinds) in enumerate(SUPPLIES):
        for i, kind in enumerate(kinds):
            x = MARGIN + SUPPLY_LABEL_W + i * TILE_STEP_X
            out[f"{prefix}:{TILES[kind].name}"] = (x, top + row * TILE_STEP_Y)
    y = characters_top(top)
    for i, name in enumerate(CHARACTER_NAMES):
        out[f"character:{name}"] = (MARGIN + i * CHARACTER_STEP, y)
    return out


def characters_top(top: int) -> int:
    """The y of the character row: under the supplies and the row's title."""
    return top + supply_height() + 28


def frame(top: int) -> str:
    """The character row's title (never changes)."""
    return svg.text(
        MARGIN,
        characters_top(top) - 8,
        "Characters in play (disc: holder; on the board: taken through a Favor, rules 4.5)",
        size=FONT_SMALL,
        fill=MUTED,
    )


@lru_cache(maxsize=512)
def _tile(kind: int, present: bool) -> str:
    if not present:
        return ""
    tile = TILES[kind]
    return svg.group(
        svg.rect(0, 0, TILE_W, TILE_H, GROUP_FILL[tile.group], stroke=RULE, rx=4)
        + svg.text(5, 14, svg.shorten(tile.title, 18), size=FONT_SMALL, weight="bold")
        + svg.text(5, 27, svg.shorten(_cost(kind), 22), size=FONT_TINY)
        + svg.text(5, 39, svg.shorten(_gains(kind), 22), size=FONT_TINY, fill=MUTED),
        class_="supply-tile",
        data_tile=tile.name,
    )


@lru_cache(maxsize=1024)
def _counts(left: tuple[int, ...]) -> str:
    parts = []
    for row, ((_, title, _), count) in enumerate(zip(SUPPLIES, left, strict=True)):
        y = row * TILE_STEP_Y
        parts.append(svg.text(0, y + 14, title, size=FONT_SMALL, weight="bold"))
        parts.append(
            svg.text(0, y + 29, f"{count} left", size=FONT_SMALL, fill=MUTED, data_left=count)
        )
    return svg.group("".join(parts), class_="supplies")


def supplies(v: View) -> dict[str, str]:
    """Every supply tile still there (the wood and stone supplies are Construction side up,
    rules 3.2; the monuments, rules 5.5) with its cost and prestige, and the counts left."""
    present = {"wood": v.wood, "stone": v.stone, "monument": v.monuments}
    out = {"supplies": _counts(tuple(sum(present[p]) for p, _, _ in SUPPLIES))}
    for prefix, _, kinds in SUPPLIES:
        for i, kind in enumerate(kinds):
            out[f"{prefix}:{TILES[kind].name}"] = _tile(kind, present[prefix][i])
    return out


@lru_cache(maxsize=1024)
def _character(c: int, holder: int, used: bool) -> str:
    if holder < ON_BOARD:
        return ""
    name = CHARACTER_NAMES[c]
    parts = [
        svg.rect(0, 0, CHARACTER_W, CHARACTER_H, PANEL, stroke=RULE, rx=5),
        svg.text(5, 14, svg.shorten(CHARACTER_LABELS[name], 15), size=FONT_SMALL, weight="bold"),
    ]
    if holder == ON_BOARD:
        parts.append(svg.text(5, 36, "on the board", size=FONT_TINY, fill=MUTED))
    else:
        parts.append(worker(15, 32, holder, 8))
        parts.append(svg.text(28, 36, f"player {holder}", size=FONT_TINY))
    if used:
        parts.append(
            svg.text(CHARACTER_W - 5, 46, "used", size=FONT_TINY, fill=MUTED, anchor="end")
        )
    return svg.group(
        "".join(parts),
        class_="character",
        data_character=name,
        data_holder="board" if holder == ON_BOARD else holder,
        data_used=int(used),
    )


def characters(v: View) -> dict[str, str]:
    """Every character in play: on the board or held (by whom), and whether its once-a-round
    power was used (D24); the ones out of play are not drawn."""
    return {
        f"character:{name}": _character(c, v.holders[c], v.used[c])
        for c, name in enumerate(CHARACTER_NAMES)
    }


__all__ = ["characters", "frame", "slot_origins", "supplies"]
