"""The board of Caylus 1303: the header, the printed buildings, the Guilds Bridge, the
Construction Site, the Road R1..R23 with its tiles, houses, Lawyer's marks and workers, and the
Provost (docs/rules/caylus_1303.md 3.1).

Every function draws one *slot* in its own coordinates (its top-left corner is 0,0) except the
header and the Provost, which stand at the picture's origin; the position module places the
others with a ``translate``. A slot depends on as little of the state as it can (one space, the
bridge) and its drawing is cached by those values, so the page stores each distinct drawing
once. The Road runs as on the board, in a snake: R1-R8 left to right, R9-R16 back, R17-R23
forward again.
"""

from __future__ import annotations

from functools import lru_cache

from caylus_env.caylus_1303.engine.constants import (
    FAVOR_SITES,
    LAWYER_FIRST,
    LAWYER_LAST,
    NUM_PRINTED,
    NUM_ROUNDS,
    RESIDENCE_INCOME,
    ROAD0,
    ROAD_SPACES,
    SITE0,
    SITE_BUILDINGS,
    SPACE_NAMES,
    TOLL_STEPS,
)
from caylus_env.caylus_1303.engine.tiles import (
    SIDE_CONSTRUCTION,
    SIDE_NAMES,
    SIDE_RESIDENCE,
    SIDE_SETUP,
    TILES,
    Effect,
    EffectType,
    Group,
)
from caylus_env.caylus_1303.viewer.theme import (
    FONT_TINY,
    GROUP_FILL,
    PROVOST,
    RESIDENCE_FILL,
    SEAT_FILL,
    SEAT_TEXT,
)
from caylus_env.caylus_1303.viewer.view import Space, View
from caylus_env.core.viewer import svg
from caylus_env.core.viewer.theme import (
    EMPTY_SPACE,
    FONT_SMALL,
    FONT_TITLE,
    INK,
    MUTED,
    PANEL,
    RULE,
)

WIDTH = 1200
MARGIN = 12
HEADER_Y = 26
# The top row: printed buildings a-d, the Guilds Bridge, the Construction Site (rules 3.1).
TOP_Y = 40
TOP_H = 120
SPACE_W = 140
SPACE_H = 92
SPACE_STEP_X = SPACE_W + 8
PRINTED_Y = TOP_Y + (TOP_H - SPACE_H) // 2
BRIDGE_X = MARGIN + NUM_PRINTED * SPACE_STEP_X
BRIDGE_W = 226
SITE_X = BRIDGE_X + BRIDGE_W + 8
SITE_W = WIDTH - MARGIN - SITE_X
SITE_TILE_W = 108
SITE_TILE_H = 62
SITE_TILE_STEP = 112
BOX_TITLE_Y = 15
# The Road: 3 rows of 8 spaces (the last row 7), a snake.
ROAD_X = MARGIN
ROAD_Y = TOP_Y + TOP_H + 12
ROAD_COLUMNS = 8
ROAD_ROWS = -(-ROAD_SPACES // ROAD_COLUMNS)
ROAD_GAP_Y = 18
ROAD_STEP_Y = SPACE_H + ROAD_GAP_Y
ROAD_BOTTOM = ROAD_Y + ROAD_ROWS * SPACE_H + (ROAD_ROWS - 1) * ROAD_GAP_Y
LEGEND_Y = ROAD_BOTTOM + 16
WORKER_R = 9
HOUSE = 12
LABEL_CHARS = 17
#: The title of a starting tile turned by the Lawyer (rules 4.4 a, D3).
RESIDENCE_TITLE = "Residence"
EFFECT_CHARS = 24
#: The printed buildings' letters on the board (rules 3.1: a Fairground .. d Toll).
PRINTED_LETTERS = "abcd"
#: Words of an effect's cost and gain keys (``tiles.COST_KEYS``, ``tiles.GAIN_KEYS``).
WORDS = {"any": "any", "workers": "worker", "pp": "PP", "favor": "Favor"}
SIDE_WORDS = {SIDE_SETUP: "setup", SIDE_CONSTRUCTION: "construction", SIDE_RESIDENCE: "residence"}
assert set(SIDE_WORDS.values()) == set(SIDE_NAMES)


def house_path(x: int, y: int, seat: int, size: int = HOUSE, dashed: bool = False) -> str:
    """A house of ``seat`` (rules 2.1: 10 a colour) at ``x, y``: a pentagon in its colour, or
    an outline in its colour for the Lawyer's mark that waits for Stewardship (D21)."""
    roof = size // 3
    d = f"M{x} {y + roof}L{x + size // 2} {y}L{x + size} {y + roof}V{y + size}H{x}Z"
    if dashed:
        return (
            f'<path d="{d}" fill="none" stroke="{SEAT_FILL[seat]}" stroke-width="2" '
            f'stroke-dasharray="3 2" class="mark" data-seat="{seat}"/>'
        )
    return (
        f'<path d="{d}" fill="{SEAT_FILL[seat]}" stroke="{INK}" stroke-width="1" '
        f'class="house" data-seat="{seat}"/>'
    )


def worker(cx: int, cy: int, seat: int, r: int = WORKER_R) -> str:
    """A worker of ``seat``: a disc in its colour with the seat number on it."""
    size = max(8, r + 1)
    return svg.group(
        svg.circle(cx, cy, r, SEAT_FILL[seat], stroke=INK, stroke_width=1)
        + svg.text(
            cx,
            cy + size // 2 - 1,
            seat,
            size=size,
            fill=SEAT_TEXT[seat],
            anchor="middle",
            weight="bold",
        ),
        class_="worker",
        data_seat=seat,
    )


def free_place(cx: int, cy: int, r: int = WORKER_R) -> str:
    """An empty place (a bridge place, a site slot): a dashed circle."""
    return svg.circle(cx, cy, r, "none", stroke=RULE, stroke_dasharray="3 2")


def _amounts(values: dict[str, int]) -> str:
    """``{"wood": 1, "workers": 3}`` in words: ``1 wood, 3 workers``."""
    words = []
    for key, count in values.items():
        word = WORDS.get(key, key)
        if word == "worker" and count != 1:
            word = "workers"
        words.append(word if word == "Favor" and count == 1 else f"{count} {word}")
    return ", ".join(words)


def effect_lines(effect: Effect) -> list[str]:
    """What a side of a tile does, in at most two short lines (rules 5.1-5.4)."""
    kind = effect.type
    if kind == EffectType.OPTIONS:
        return [
            f"{_amounts(dict(o.cost))} → {_amounts(dict(o.gain))}"
            if o.cost
            else f"+{_amounts(dict(o.gain))}"
            for o in effect.options
        ]
    if kind == EffectType.TAKE:
        cost = dict(effect.options[0].cost)
        return [f"{_amounts(cost)} → 1 any" if cost else "+1 any (not gold)"]
    if kind == EffectType.CONSTRUCT:
        group = "stone" if effect.group == Group.STONE else "wood"
        off = f" ({_amounts(dict(effect.discount))} off)" if effect.discount else ""
        return [f"construct {group}{off}"]
    if kind == EffectType.TOLL:
        return [f"Provost 0-{TOLL_STEPS} steps"]
    if kind == EffectType.LAWYER:
        cost = _amounts(dict(effect.options[0].cost))
        return [f"{cost} → mark R{LAWYER_FIRST}-R{LAWYER_LAST}", "(a residence)"]
    return []


def tile_lines(kind: int, side: int) -> list[str]:
    """The effect lines of tile ``kind`` on ``side``: a residence's income (D3), a
    monument's prestige and income (rules 5.5, D35), else its side's effect."""
    tile = TILES[kind]
    if side == SIDE_RESIDENCE:
        return [f"+{RESIDENCE_INCOME} worker a round", f"(was {tile.title})"]
    if tile.group == Group.MONUMENT:
        income = f"+{_amounts(dict(tile.income))} a round" if tile.income else "no worker"
        return [f"monument, {tile.pp} PP", income]
    return effect_lines(tile.construction if side == SIDE_CONSTRUCTION else tile.setup)


def side_word(kind: int, side: int) -> str:
    """The side a tile shows, in words (``printed`` and ``monument`` for those groups)."""
    group = TILES[kind].group
    if group == Group.PRINTED:
        return "printed"
    if group == Group.MONUMENT:
        return "monument"
    return SIDE_WORDS[side]


def tile_fill(kind: int, side: int) -> str:
    if kind < 0:
        return EMPTY_SPACE
    if side == SIDE_RESIDENCE:
        return RESIDENCE_FILL
    return GROUP_FILL[TILES[kind].group]


def short_name(space: int) -> str:
    """A space's name as printed on it: ``a``..``d``, ``R1``..``R23``, ``S1``..``S3``."""
    return PRINTED_LETTERS[space] if space < NUM_PRINTED else SPACE_NAMES[space]


@lru_cache(maxsize=8192)
def _space(
    space: int, kind: int, side: int, owner: int, mark: int, workers: tuple[int, ...]
) -> str:
    w, h = SPACE_W, SPACE_H
    parts = [
        svg.rect(
            0,
            0,
            w,
            h,
            tile_fill(kind, side),
            stroke=RULE if kind >= 0 else MUTED,
            stroke_dasharray=None if kind >= 0 else "4 3",
            rx=4,
        ),
        svg.text(6, 13, short_name(space), size=FONT_SMALL, fill=MUTED, weight="bold"),
    ]
    if kind >= 0:
        tile = TILES[kind]
        parts.append(
            svg.text(w - 6, 13, side_word(kind, side), size=FONT_TINY, fill=MUTED, anchor="end")
        )
        title = RESIDENCE_TITLE if side == SIDE_RESIDENCE else tile.title
        parts.append(
            svg.text(
                8,
                30,
                title,
                size=FONT_SMALL if len(title) > LABEL_CHARS else FONT_SMALL + 1,
                weight="bold",
            )
        )
        for i, line in enumerate(tile_lines(kind, side)):
            parts.append(svg.text(8, 44 + 12 * i, svg.shorten(line, EFFECT_CHARS), size=FONT_TINY))
    if owner >= 0:
        parts.append(svg.rect(0, 0, 5, h, SEAT_FILL[owner]))
        parts.append(house_path(w - 18, h - 19, owner))
    if mark >= 0:
        parts.append(house_path(w - 38, h - 19, mark, dashed=True))
        parts.append(
            svg.text(
                w - 42,
                h - 9,
                "→ residence",
                size=FONT_TINY,
                fill=SEAT_FILL[mark],
                anchor="end",
                weight="bold",
            )
        )
    for i, seat in enumerate(workers):
        parts.append(worker(16 + 22 * i, h - 13, seat))
    return svg.group(
        "".join(parts),
        class_="space",
        data_space=SPACE_NAMES[space],
        data_tile=TILES[kind].name if kind >= 0 else "",
        data_side=SIDE_NAMES[side] if kind >= 0 else "",
        data_owner="" if owner < 0 else owner,
        data_mark="" if mark < 0 else mark,
        data_workers=" ".join(map(str, workers)),
    )


def space(index: int, s: Space) -> str:
    """Building space ``index`` (a printed building or R1..R23): its tile (name, side, what it
    does), its owner's house and band (D19), the Lawyer's mark (a dashed house: it becomes a
    residence in Stewardship, rules 4.4 a) and its workers in placing order (up to 2 with the
    Journeyman, D26)."""
    return _space(index, s.kind, s.side, s.owner, s.mark, s.workers)


def road_origin(k: int) -> tuple[int, int]:
    """Top-left corner of Road space R``k`` (1-23) on the snake."""
    row, col = divmod(k - 1, ROAD_COLUMNS)
    if row % 2:
        col = ROAD_COLUMNS - 1 - col
    return ROAD_X + col * SPACE_STEP_X, ROAD_Y + row * ROAD_STEP_Y


def space_origin(index: int) -> tuple[int, int]:
    """Top-left corner of building space ``index`` (printed a-d, then R1..R23)."""
    if index < NUM_PRINTED:
        return MARGIN + index * SPACE_STEP_X, PRINTED_Y
    return road_origin(index - ROAD0)


@lru_cache(maxsize=64)
def _provost(p: int) -> str:
    """The Provost after R``p``: a bar in the gap between R``p`` and R``p + 1`` (a bar under
    R``p`` where the Road turns), with a P on it."""
    gap = SPACE_STEP_X - SPACE_W
    if p == 0:
        x, y = road_origin(1)
        bar = (x - gap // 2 - 2, y - 4, 4, SPACE_H + 8)
    else:
        x, y = road_origin(p)
        turns = p % ROAD_COLUMNS == 0 and p < ROAD_SPACES
        forward = ((p - 1) // ROAD_COLUMNS) % 2 == 0
        if turns:
            bar = (x - 4, y + SPACE_H + ROAD_GAP_Y // 2 - 2, SPACE_W + 8, 4)
        elif forward:
            bar = (x + SPACE_W + gap // 2 - 2, y - 4, 4, SPACE_H + 8)
        else:
            bar = (x - gap // 2 - 2, y - 4, 4, SPACE_H + 8)
    bx, by, bw, bh = bar
    cx, cy = bx + bw // 2, by + bh // 2
    active = f"R1-R{p} activated" if p else "no Road building activated"
    return svg.group(
        svg.rect(bx, by, bw, bh, PROVOST)
        + svg.circle(cx, cy, 10, PROVOST, stroke=INK, stroke_width=1)
        + svg.text(
            cx, cy + 4, "P", size=FONT_SMALL + 1, fill="#ffffff", anchor="middle", weight="bold"
        )
        + svg.text(
            WIDTH - MARGIN,
            LEGEND_Y,
            f"Provost after R{p}: {active}" if p else f"Provost before R1: {active}",
            size=FONT_SMALL,
            fill=PROVOST,
            anchor="end",
            weight="bold",
        ),
        class_="provost",
        data_provost=p,
    )


def provost(v: View) -> str:
    """The Provost between two Road spaces (rules 3.1: R1..Rp are activated)."""
    return _provost(v.provost)


@lru_cache(maxsize=1024)
def _bridge(seats: tuple[int, ...], n: int) -> str:
    parts = []
    step = (BRIDGE_W - 16) // n
    for i in range(n):
        cx = 8 + step * i + step // 2
        if i < len(seats):
            parts.append(house_path(cx - 9, 48, seats[i], 18))
        else:
            parts.append(free_place(cx, 57))
        parts.append(svg.text(cx, 88, i + 1, size=FONT_SMALL, fill=MUTED, anchor="middle"))
    return svg.group("".join(parts), class_="bridge", data_order=" ".join(map(str, seats)))


def bridge(v: View) -> str:
    """The Guilds Bridge: the pass houses in passing order, the bridge order of Activation
    (rules 4.1 C, 4.2)."""
    return _bridge(v.bridge, v.num_players)


def bridge_frame() -> str:
    """The bridge's box and title (never changes)."""
    return (
        svg.rect(0, 0, BRIDGE_W, TOP_H, PANEL, stroke=RULE, rx=6)
        + svg.text(
            8, BOX_TITLE_Y, "e Guilds Bridge (passing order)", size=FONT_SMALL + 1, weight="bold"
        )
        + svg.text(8, 30, "moves the Provost 1-3 steps, 1 worker each", size=FONT_TINY, fill=MUTED)
        + svg.text(8, TOP_H - 12, "pass: your house to the next place", size=FONT_TINY, fill=MUTED)
    )


def site_frame() -> str:
    """The Construction Site's box and titles (never changes)."""
    return (
        svg.rect(0, 0, SITE_W, TOP_H, PANEL, stroke=RULE, rx=6)
        + svg.text(8, BOX_TITLE_Y, "Construction Site", size=FONT_SMALL + 1, weight="bold")
        + svg.text(
            124,
            BOX_TITLE_Y,
            "buildings: through Favors · slots: Delivery",
            size=FONT_TINY,
            fill=MUTED,
        )
    )


def site_tile_origin(k: int) -> tuple[int, int]:
    """Top-left corner of site building S``k`` (1-3), in the site box."""
    return 8 + (k - 1) * SITE_TILE_STEP, 22


def _first_round(k: int) -> int:
    """The first round in which a Favor may use S``k`` (D8)."""
    return next(r for r in range(1, NUM_ROUNDS + 1) if FAVOR_SITES[r] >= k)


@lru_cache(maxsize=256)
def _site_building(k: int, kind: int, side: int, open_now: bool) -> str:
    w, h = SITE_TILE_W, SITE_TILE_H
    tile = TILES[kind]
    parts = [
        svg.rect(
            0, 0, w, h, tile_fill(kind, side), stroke=RULE, rx=4, opacity=None if open_now else 0.55
        ),
        svg.text(5, 12, f"S{k}", size=FONT_SMALL, fill=MUTED, weight="bold"),
        svg.text(
            w - 5,
            12,
            "open" if open_now else f"from round {_first_round(k)}",
            size=FONT_TINY,
            fill=MUTED,
            anchor="end",
        ),
        svg.text(5, 26, svg.shorten(tile.title, 17), size=FONT_SMALL, weight="bold"),
    ]
    for i, line in enumerate(tile_lines(kind, side)):
        parts.append(svg.text(5, 39 + 11 * i, svg.shorten(line, 19), size=FONT_TINY - 1))
    return svg.group(
        "".join(parts),
        class_="site-building",
        data_space=f"S{k}",
        data_tile=tile.name,
        data_open=int(open_now),
    )


def site_buildings(v: View) -> dict[str, str]:
    """The site buildings S1-S3 (rules 3.1), each with whether a Favor may use it this round
    (D8)."""
    out = {}
    for k in range(1, SITE_BUILDINGS + 1):
        s = v.spaces[SITE0 + k - 1]
        out[f"site:S{k}"] = _site_building(k, s.kind, s.side, k <= FAVOR_SITES[v.round])
    return out


@lru_cache(maxsize=1024)
def _site_slots(seats: tuple[int, ...], n: int) -> str:
    parts = [svg.text(0, 4, "slots", size=FONT_TINY, fill=MUTED)]
    for i in range(n):
        cx = 42 + i * 26
        parts.append(worker(cx, 0, seats[i]) if i < len(seats) else free_place(cx, 0))
    return svg.group("".join(parts), class_="site", data_slots=" ".join(map(str, seats)))


def site_slots(v: View) -> str:
    """The Construction Site's worker slots W1.. in placing order (rules 4.1 B, D17)."""
    return _site_slots(v.site, v.num_players)


def header(v: View, names: tuple[str, ...]) -> str:
    """Round, phase, first player and the decision being asked, across the top."""
    words = [f"Round {v.round} of {NUM_ROUNDS}", v.phase.replace("_", " ")]
    words.append(f"first player: {v.first_player} ({svg.shorten(names[v.first_player], 16)})")
    if v.asked is not None:
        kind, seat = v.asked
        words.append(f"{kind.replace('_', ' ')} for player {seat} ({svg.shorten(names[seat], 16)})")
    return svg.text(
        MARGIN, HEADER_Y, " · ".join(words), size=FONT_TITLE + 2, weight="bold", class_="header"
    )


def legend() -> str:
    """What the road's marks mean (drawn once)."""
    return svg.text(
        MARGIN,
        LEGEND_Y,
        "band and house: owner · dashed house: the Lawyer's mark · discs: workers (seat "
        "number) · P: the Provost",
        size=FONT_SMALL,
        fill=MUTED,
    )


__all__ = [
    "bridge",
    "header",
    "house_path",
    "legend",
    "provost",
    "site_buildings",
    "site_slots",
    "space",
    "space_origin",
    "tile_lines",
    "worker",
]
