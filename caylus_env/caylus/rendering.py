"""Plain-text rendering of a Caylus game: the whole board in one screen of text.

``render_text(game)`` reads the game only (through ``Game.state_dict`` and
``Game.decision``), so it can be called at any time without side effects. The heading, the
decision (or the end) and the layout are every game's (``caylus_env.core.viewer.text``); this
module draws Caylus's table: the options, the turn order, the road, the special buildings,
the castle, the favor table and the players' holdings.

Example (first lines, 2 players)::

    Caylus, 2 players, seed 7: turn 1, phase placement
    Decision: place_worker for p1
    Legal (31): pass, place:gate, place:trading_post, ...
"""

from __future__ import annotations

from typing import Any

from caylus_env.caylus.engine.board import COLUMNS_OPEN, NUM_SINGLE_SPECIALS, SECTION_SIZE
from caylus_env.caylus.engine.constants import (
    FAVOR_ROW_NAMES,
    NUM_WORKERS,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SPECIAL_NAMES,
)
from caylus_env.caylus.engine.game import Game
from caylus_env.core.viewer import text
from caylus_env.core.viewer.text import who as _who


def _options(d: dict[str, Any]) -> list[str]:
    opts = d["options"]
    variants = [k for k in ("simplified_favors", "jeweller", "house_cap") if opts[k]]
    variants.append(f"lawyer_prestige={opts['lawyer_prestige']}")
    return [f"Options: {', '.join(variants)}"]


def _order(d: dict[str, Any]) -> list[str]:
    passing = " ".join(_who(p) for p in d["passing_order"]) or "nobody"
    return [
        f"Turn order: {' '.join(_who(p) for p in d['turn_order'])}   Passed: {passing}",
        f"Provost on {d['provost']}, bailiff on {d['bailiff']}",
    ]


def _road(d: dict[str, Any]) -> list[str]:
    lines = ["Road:", "  space  building              owner  worker  marks"]
    for r in d["road"]:
        k = r["space"]
        marks = []
        if d["provost"] == k:
            marks.append("P")
        if d["bailiff"] == k:
            marks.append("B")
        if r["lawyer_pending"] is not None:
            marks.append(f"lawyer:{_who(r['lawyer_pending'])}")
        building = r["building"] or "(empty)"
        lines.append(
            f"  {k:>5}  {building:<20}  {_who(r['owner']):<5}  {_who(r['worker']):<6}  "
            f"{' '.join(marks)}".rstrip()
        )
    return lines


def _specials(d: dict[str, Any]) -> list[str]:
    singles = "  ".join(
        f"{name}: {_who(d['special_workers'][name])}"
        for name in SPECIAL_NAMES[:NUM_SINGLE_SPECIALS]
    )
    stables = " ".join(_who(p) for p in d["stables"])
    castle = " ".join(_who(p) for p in d["castle_workers"]) or "-"
    return [
        "Special buildings:",
        f"  {singles}",
        f"  stables: {stables}   inn: left {_who(d['inn']['left'])}, "
        f"right {_who(d['inn']['right'])}   castle workers: {castle}",
    ]


def _castle(d: dict[str, Any], n: int) -> list[str]:
    seats = " ".join(f"{'p' + str(p):>3}" for p in range(n))
    lines = [f"Castle:   section   fill   scored  {seats}"]
    for sec, name in enumerate(SECTION_NAMES):
        houses = d["castle"][name]
        fill = f"{sum(houses)}/{SECTION_SIZE[sec]}"
        scored = "yes" if d["scored"][name] else "no"
        per = " ".join(f"{h:>3}" for h in houses)
        lines.append(f"          {name:<8}  {fill:<5}  {scored:<6}  {per}")
    return lines


def _favors(d: dict[str, Any], n: int) -> list[str]:
    open_columns = COLUMNS_OPEN[sum(d["scored"].values())]
    seats = " ".join(f"{'p' + str(p):>3}" for p in range(n))
    lines = [
        f"Favor table: {open_columns} columns open; each player's marker column (0 = start)",
        f"  row        {seats}",
    ]
    for row in FAVOR_ROW_NAMES:
        cols = " ".join(f"{pl['favor_columns'][row]:>3}" for pl in d["players"])
        lines.append(f"  {row:<9}  {cols}")
    return lines


def _players(d: dict[str, Any]) -> list[str]:
    cubes = " ".join(f"{r:>5}" for r in RESOURCE_NAMES)
    lines = [
        "Players:",
        f"  seat  money  {cubes}  prestige  workers  houses  batches  passed  rows used",
    ]
    for p, pl in enumerate(d["players"]):
        counts = " ".join(f"{pl['cubes'][r]:>5}" for r in RESOURCE_NAMES)
        home = NUM_WORKERS - pl["workers_out"]
        lines.append(
            f"  {'p' + str(p):<4}  {pl['money']:>5}  {counts}  {pl['prestige']:>8}  "
            f"{home:>4}/{NUM_WORKERS}  {pl['houses']:>6}  {pl['batches']:>7}  "
            f"{'yes' if pl['passed'] else 'no':<6}  {','.join(pl['rows_used']) or '-'}"
        )
    return lines


def render_text(game: Game) -> str:
    """The whole game as plain text: header, decision, order, road, buildings, castle,
    favor table and player holdings.

    Args:
        game: the game to draw; it is not modified.

    Returns:
        A multi-line string (no trailing newline).
    """
    d = game.state_dict()
    n = game.num_players
    return text.join(
        (
            [text.heading(game), *_options(d), *text.decision(game)],
            _order(d),
            _road(d),
            _specials(d),
            _castle(d, n),
            _favors(d, n),
            _players(d),
        )
    )


def compact_text(game: Game) -> list[str]:
    """A few short lines with everything that changes during a game (the golden playthroughs'
    state picture, ``caylus_env.core.playthrough``): turn, phase, provost, bailiff, orders and
    scored sections; each player's money, cubes, prestige, workers out, houses and favor
    columns; the road's buildings with owners, workers and pending lawyers; the special
    buildings and the castle."""
    d = game.state_dict()
    lines = [
        f"turn {d['turn']} {d['phase']} | provost {d['provost']} bailiff {d['bailiff']} | "
        f"order {d['turn_order']} passed {d['passing_order']} | "
        f"scored {[k for k, v in d['scored'].items() if v]}"
    ]
    for p, pd in enumerate(d["players"]):
        cubes = " ".join(f"{r[0].upper()}{pd['cubes'][r]}" for r in RESOURCE_NAMES)
        fav = ",".join(str(c) for c in pd["favor_columns"].values())
        lines.append(
            f"p{p}: {pd['money']}d {cubes} pp{pd['prestige']} out{pd['workers_out']} "
            f"houses{pd['houses']} favors[{fav}]"
        )
    road = []
    for r in d["road"]:
        if r["building"] is None:
            continue
        tag = r["building"]
        if r["owner"] is not None:
            tag += f"@{r['owner']}"
        if r["worker"] is not None:
            tag += f"+w{r['worker']}"
        if r["lawyer_pending"] is not None:
            tag += f"!L{r['lawyer_pending']}"
        road.append(f"{r['space']}:{tag}")
    lines.append("road " + " ".join(road))
    specials = {k: v for k, v in d["special_workers"].items() if v is not None}
    lines.append(
        f"specials {specials} stables {d['stables']} inn {d['inn']} "
        f"castle_workers {d['castle_workers']} castle {d['castle']}"
    )
    return lines
