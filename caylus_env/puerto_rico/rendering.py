"""Plain-text rendering of a Puerto Rico game: the whole table in one screen of text.

``render_text(game)`` reads the game only (through ``Game.state_dict`` and
``Game.decision``), so it can be called at any time without side effects. The heading, the
decision (or the end) and the layout are every game's (``caylus_env.core.viewer.text``); this
module draws Puerto Rico's table: the options, the roles, the supplies, the ships, the
trading house and each player's board.

What a player at the table could not see is not drawn: the face-down plantations appear
as a count, never in their order, and a forest's plantation kind stays face down
(docs/rules/puerto_rico.md 6.8, 7.3).

Example (first lines, 3 players)::

    Puerto Rico, 3 players, seed 7: round 1, phase role_selection
    Options: base game, truncation after 4000 decisions (0 taken)
    Decision: role for p0
    Legal (6): role:settler, role:mayor, role:builder, ...
"""

from __future__ import annotations

from typing import Any

from caylus_env.core.viewer import text
from caylus_env.core.viewer.text import who as _who
from caylus_env.puerto_rico.engine.buildings import B_CIRCLES, B_SPACES, BUILDING_NAMES, BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    CITY_SPACES,
    GOOD_NAMES,
    ISLAND_SPACES,
    TILE_NAMES,
    TRADING_HOUSE_SPACES,
)
from caylus_env.puerto_rico.engine.game import Game

#: Characters of the building-supply line before it wraps.
LINE_WIDTH = 96
_INDEX = {name: b for b, name in enumerate(BUILDING_NAMES)}


def _counts(counts: dict[str, int], names: tuple[str, ...] | None = None) -> str:
    """``name n`` for every non-zero count, in the order of ``names`` (or of the dict)."""
    keys = names if names is not None else tuple(counts)
    return ", ".join(f"{k} {counts[k]}" for k in keys if counts.get(k, 0)) or "none"


def _options(game: Game, d: dict[str, Any]) -> list[str]:
    opts = d["options"]
    if opts["expansion"]:
        variant = f"expansion (draft: {opts['draft']})"
        if opts["library_limit"]:
            variant += ", library limit"
    else:
        variant = "base game"
    lines = [
        f"Options: {variant}, truncation after {opts['max_decisions']} decisions "
        f"({d['decisions']} taken)",
    ]
    if d["end_triggered"] and not game.is_terminal():
        lines.append("The end of the game is triggered: this is the last round (rules 5.1)")
    return lines


def _roles(d: dict[str, Any]) -> list[str]:
    cards = []
    for name, role in d["roles"].items():
        if not role["in_game"]:
            continue
        mark = "taken" if role["picked"] else f"{role['doubloons']} db"
        cards.append(f"{name} [{mark}]")
    lines = [
        f"Governor: {_who(d['governor'])}   Picks this round: {d['picks']}   "
        f"Role carried out by: {_who(d['picker'])}"
        + ("   (library: privilege doubled)" if d["doubled"] else ""),
        f"Roles: {', '.join(cards)}",
    ]
    if d["produced"]:
        lines.append(f"Craftsman produced: {', '.join(d['produced'])}")
    return lines


def _supply(d: dict[str, Any]) -> list[str]:
    vp = d["vp_supply"]
    chips = f"{vp}" if vp >= 0 else f"0 ({-vp} owed on paper)"
    ships = "   ".join(
        f"[{k + 1}] {s['load']}/{s['capacity']} {s['good'] or 'empty'}"
        for k, s in enumerate(d["ships"])
    )
    house = sum(d["trading_house"].values())
    lines = [
        f"Colonist ship: {d['colonist_ship']}   Colonist supply: {d['colonist_supply']}   "
        f"VP chips: {chips}   Quarries: {d['quarry_supply']}",
        f"Cargo ships: {ships}",
        f"Trading house ({house}/{TRADING_HOUSE_SPACES}): {_counts(d['trading_house'], GOOD_NAMES)}",
        f"Goods supply: {_counts(d['goods_supply'], GOOD_NAMES)}",
        f"Plantations: face up {_counts(d['face_up'])}; "
        f"{len(d['plantation_stack'])} face down; discards {_counts(d['discards'])}",
    ]
    supply = [
        f"{b.name} {d['building_supply'][b.name]}"
        for b in BUILDINGS
        if d["building_supply"][b.name] > 0
    ]
    line = "Buildings for sale:"
    for item in supply:
        if len(line) + len(item) + 1 > LINE_WIDTH:
            lines.append(line)
            line = " "
        line += f" {item},"
    lines.append(line.rstrip(","))
    return lines


def _players(game: Game, d: dict[str, Any]) -> list[str]:
    scores = game.scores()
    lines = ["Players:"]
    for p, pl in enumerate(d["players"]):
        tiles = sum(pl["island"].values())
        island = ", ".join(
            f"{t} {pl['worked'][t]}/{pl['island'][t]}"
            if t in pl["worked"]
            else f"{t} {pl['island'][t]}"
            for t in TILE_NAMES
            if pl["island"][t]
        )
        city = ", ".join(
            f"{name} {workers}/{B_CIRCLES[_INDEX[name]]}"
            for name, workers in pl["buildings"].items()
        )
        spaces = sum(int(B_SPACES[_INDEX[name]]) for name in pl["buildings"])
        flags = [
            name
            for name, on in (
                ("shipped", pl["shipped"]),
                ("wharf used", pl["wharf_used"]),
                ("small wharf used", pl["small_wharf_used"]),
            )
            if on
        ]
        lines += [
            f"  {'p' + str(p)}: {pl['money']} doubloons, {pl['vp']} VP chips, score {scores[p]}, "
            f"San Juan {pl['san_juan']}" + (f" ({', '.join(flags)})" if flags else ""),
            f"      goods: {_counts(pl['goods'], GOOD_NAMES)}",
            f"      island ({tiles}/{ISLAND_SPACES}, worked/tiles): {island or 'empty'}",
            f"      city ({spaces}/{CITY_SPACES}, colonists/circles): {city or 'empty'}",
        ]
    return lines


def render_text(game: Game) -> str:
    """The whole game as plain text: header, decision, roles, supply, ships, trading house,
    and each player's doubloons, VP, goods, island and city.

    Args:
        game: the game to draw; it is not modified.

    Returns:
        A multi-line string (no trailing newline).
    """
    d = game.state_dict()
    return text.join(
        (
            [text.heading(game), *_options(game, d), *text.decision(game)],
            _roles(d),
            _supply(d),
            _players(game, d),
        )
    )


#: One letter per good and tile in the compact text (coffee is K: corn has the C).
SHORT = {
    "corn": "C",
    "indigo": "I",
    "sugar": "S",
    "tobacco": "T",
    "coffee": "K",
    "quarry": "Q",
    "forest": "F",
}


def _short(counts: dict[str, int]) -> str:
    """``C3I1`` for the non-zero counts of goods or tiles (`SHORT` letters), ``-`` for none."""
    return "".join(f"{SHORT[k]}{v}" for k, v in counts.items() if v) or "-"


def compact_text(game: Game) -> list[str]:
    """A few short lines with everything that changes during a game (the golden playthroughs'
    state picture, ``caylus_env.core.playthrough``), goods and tiles written with the letters
    of `SHORT`: round, phase, governor, picks and the role cards (``*`` picked, else the
    doubloons on it); the supplies, the trading house and the ships; the plantations
    (face-down ones as a count only, rules 6.8); each player's doubloons, VP chips, San Juan,
    goods, island (worked/tiles) and city (colonists per building)."""
    d = game.state_dict()
    roles = " ".join(
        f"{name}:{'*' if r['picked'] else r['doubloons']}"
        for name, r in d["roles"].items()
        if r["in_game"]
    )
    ships = " ".join(
        f"{s['load']}/{s['capacity']}{SHORT[s['good']] if s['good'] else ''}" for s in d["ships"]
    )
    lines = [
        f"round {d['round']} {d['phase']} gov {_who(d['governor'])} picks {d['picks']} "
        f"picker {_who(d['picker'])} | {roles}" + (" | last round" if d["end_triggered"] else ""),
        f"colonists {d['colonist_ship']}/{d['colonist_supply']} vp {d['vp_supply']} quarries "
        f"{d['quarry_supply']} goods {_short(d['goods_supply'])} house "
        f"{_short(d['trading_house'])} ships {ships} | up {_short(d['face_up'])} down "
        f"{len(d['plantation_stack'])} out {_short(d['discards'])}",
    ]
    for p, pl in enumerate(d["players"]):
        island = " ".join(
            f"{SHORT[t]}{pl['worked'].get(t, 0)}/{n}" for t, n in pl["island"].items() if n
        )
        city = " ".join(f"{name}{n}" for name, n in pl["buildings"].items())
        lines.append(
            f"p{p} ${pl['money']} vp{pl['vp']} sj{pl['san_juan']} goods {_short(pl['goods'])} "
            f"island {island or '-'} city {city or '-'}"
        )
    return lines
