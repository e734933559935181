"""Plain-text rendering of a Caylus 1303 game: the whole table in one screen of text.

``render_text(game)`` reads the game only (its flat state, ``Game.state``, through the
engine's layout and accessors, and ``Game.decision`` for the pending decision), so it can be
called at any time without side effects. The heading, the decision (or the end) and the
layout are every game's (``caylus_env.core.viewer.text``); this module draws Caylus 1303's
table with the rulebook's words: the Provost, the Road (printed spaces a-d, then R1-R23)
with each building's tile, side, owner, Lawyer's mark and workers, the Guilds Bridge, the
Construction Site (site buildings S1-S3 and slots W1..), the supplies, the characters and
each player's hand, Camp, resources, houses and prestige.

Hidden information (rules 4.7, D37): PP tokens lie face down. A text rendering has no
viewpoint, so with the option ``hide_opponent_pp`` it shows **no prestige at all** while the
game runs (nobody's PP, nobody's score); once the game is over the final scores are shown.
Characters not revealed at setup are out of play and never drawn.

Example (first lines, 3 players)::

    Caylus 1303 (reconstructed rules), 3 players, seed 1: round 1, phase draft
    First player: p1   Provost: 8 (R1-R8 activated)   Built Road: R1-R9
    Decision: draft for p0
    Legal (6): character:journeyman, character:thief, ...
"""

from __future__ import annotations

from caylus_env.caylus_1303.engine import layout as L
from caylus_env.caylus_1303.engine.constants import (
    CHARACTER_NAMES,
    CHARACTER_TITLES,
    MAX_WORKERS_ON_BUILDING,
    NUM_CHARACTERS,
    NUM_PRINTED,
    NUM_RESOURCES,
    ON_BOARD,
    PHASE_NAMES,
    RESOURCE_NAMES,
    ROAD0,
    ROAD_SPACES,
    SITE0,
    SITE_BUILDINGS,
    SPACE_NAMES,
)
from caylus_env.caylus_1303.engine.game import Game
from caylus_env.caylus_1303.engine.state import contiguous_road, final_score, pf, residences
from caylus_env.caylus_1303.engine.tiles import (
    KIND_NAMES,
    MONUMENT_KINDS,
    SIDE_NAMES,
    SIDE_RESIDENCE,
    SIDE_SETUP,
    STONE_KINDS,
    T_GROUP,
    TILES,
    WOOD_KINDS,
    Group,
)
from caylus_env.core.viewer import text
from caylus_env.core.viewer.text import who as _who

#: The printed spaces' letters on the board (rules 3.1: a Fairground .. d Toll).
PRINTED_LETTERS = "abcd"
#: One letter per resource in the compact text (food, wood, stone, cloth, gold).
SHORT = {"food": "F", "wood": "W", "stone": "S", "cloth": "C", "gold": "G"}
assert tuple(SHORT) == RESOURCE_NAMES


def _seat(v: int) -> int | None:
    """A seat field of the state as ``who`` reads it (None for nobody, -1)."""
    return None if v < 0 else int(v)


def prestige_shown(game: Game) -> bool:
    """Whether the text shows prestige: always, unless ``hide_opponent_pp`` is on and the game
    still runs (a text has no viewpoint, so it hides everyone's; rules 4.7, D37)."""
    return not game.state[L.OPT_HIDE_PP] or game.is_terminal()


def _label(sp: int) -> str:
    """A building space as the board names it: ``a Fairground`` .. ``R1`` .. ``S3``."""
    if sp < NUM_PRINTED:
        return PRINTED_LETTERS[sp]
    return SPACE_NAMES[sp]


def _tile(s, sp: int) -> str:
    """The tile on a space: its title and side (``Farm [residence]``), or ``empty``."""
    k = int(s[L.SPACE_KIND + sp])
    if k < 0:
        return "empty"
    tile = TILES[k]
    if tile.group == Group.PRINTED:
        return tile.title
    if tile.group == Group.MONUMENT:
        return f"{tile.title} [monument]"
    return f"{tile.title} [{SIDE_NAMES[int(s[L.SPACE_SIDE + sp])]}]"


def _workers(s, sp: int) -> list[int]:
    """The seats of the workers on a space, in placing order (D26)."""
    out = []
    for i in range(MAX_WORKERS_ON_BUILDING):
        w = int(s[L.SPACE_WORKER + sp * MAX_WORKERS_ON_BUILDING + i])
        if w >= 0:
            out.append(w)
    return out


def _space_line(s, sp: int) -> str:
    """One building space: label, tile, owner, Lawyer's mark and workers."""
    parts = [f"  {_label(sp):>3} {_tile(s, sp)}"]
    owner = _seat(int(s[L.SPACE_OWNER + sp]))
    if owner is not None:
        parts.append(f"house {_who(owner)}")
    mark = _seat(int(s[L.SPACE_MARK + sp]))
    if mark is not None:
        parts.append(f"Lawyer's mark {_who(mark)}")
    workers = _workers(s, sp)
    if workers:
        parts.append("workers " + ", ".join(_who(w) for w in workers))
    return ", ".join(parts)


def _board(s) -> list[str]:
    """The Provost, the Road from the printed spaces to R23, the Guilds Bridge."""
    provost = int(s[L.PROVOST])
    built = contiguous_road(s)
    activated = f"R1-R{provost} activated" if provost else "no Road building activated"
    lines = [
        f"First player: {_who(int(s[L.FIRST_PLAYER]))}   Provost: {provost} ({activated})   "
        f"Built Road: " + (f"R1-R{built}" if built else "none"),
        "Road:",
    ]
    lines += [_space_line(s, sp) for sp in range(NUM_PRINTED)]
    if provost == 0:
        lines.append("      -- Provost --")
    empty = []
    for k in range(1, ROAD_SPACES + 1):
        sp = ROAD0 + k
        if s[L.SPACE_KIND + sp] < 0 and not _workers(s, sp):
            empty.append(SPACE_NAMES[sp])
        else:
            lines.append(_space_line(s, sp))
        if k == provost:
            lines.append("      -- Provost --")
    if empty:
        lines.append(f"  empty: {', '.join(empty)}")
    n = int(s[L.NUM_PLAYERS])
    bridge = [_who(int(s[L.BRIDGE + i])) for i in range(n) if s[L.BRIDGE + i] >= 0]
    lines.append(f"Guilds Bridge (passing order): {', '.join(bridge) or 'nobody passed'}")
    return lines


def _site(s) -> list[str]:
    """The Construction Site: its three buildings and its worker slots (rules 3.1, 4.1 B)."""
    n = int(s[L.NUM_PLAYERS])
    buildings = ", ".join(f"S{i + 1} {_tile(s, SITE0 + i)}" for i in range(SITE_BUILDINGS))
    slots = ", ".join(f"W{i + 1} {_who(_seat(int(s[L.SITE + i])))}" for i in range(n))
    return [f"Construction Site: {buildings}", f"  site slots: {slots}"]


def _supplies(s) -> list[str]:
    """The wood, stone and monument supplies (rules 3.2 steps 2-4)."""

    def names(kinds, field: int) -> str:
        left = [TILES[int(k)].title for i, k in enumerate(kinds) if s[field + i]]
        return ", ".join(left) or "none"

    return [
        f"Wood supply: {names(WOOD_KINDS, L.WOOD_SUPPLY)}",
        f"Stone supply: {names(STONE_KINDS, L.STONE_SUPPLY)}",
        f"Monument supply: {names(MONUMENT_KINDS, L.MONUMENT_SUPPLY)}",
    ]


def _characters(s) -> list[str]:
    """Characters held (``(used)`` once the power was used this round, D24) and available
    (rules 4.5); those out of play are not drawn (D37)."""
    held, available = [], []
    for c in range(NUM_CHARACTERS):
        h = int(s[L.CHARACTER_HOLDER + c])
        if h >= 0:
            used = " (used)" if s[L.CHARACTER_USED + c] else ""
            held.append(f"{CHARACTER_TITLES[c]} {_who(h)}{used}")
        elif h == ON_BOARD:
            available.append(CHARACTER_TITLES[c])
    return [
        f"Characters held: {', '.join(held) or 'none'}",
        f"Characters available: {', '.join(available) or 'none'}",
    ]


def _players(game: Game) -> list[str]:
    """Each player's colour, hand, Camp, resources, houses, residences, prestige (unless
    hidden, see `prestige_shown`), pass and bundles."""
    s = game.state
    show = prestige_shown(game)
    lines = ["Players:"]
    for p in range(int(s[L.NUM_PLAYERS])):
        res = ", ".join(
            f"{RESOURCE_NAMES[r]} {int(s[pf(p, L.P_RESOURCES + r)])}" for r in range(NUM_RESOURCES)
        )
        chars = [
            CHARACTER_TITLES[c] for c in range(NUM_CHARACTERS) if s[L.CHARACTER_HOLDER + c] == p
        ]
        line = (
            f"  p{p}: hand {int(s[pf(p, L.P_HAND)])}, Camp "
            f"{int(s[pf(p, L.P_CAMP)])}, houses {int(s[pf(p, L.P_HOUSES)])}, "
            f"residences {residences(s, p)}"
        )
        if show:
            line += f", {int(s[pf(p, L.P_PP)])} prestige (score {final_score(s, p)})"
        flags = []
        if s[pf(p, L.P_PASSED)]:
            flags.append("passed")
        if s[pf(p, L.P_BUNDLES)]:
            flags.append(f"{int(s[pf(p, L.P_BUNDLES)])} bundles delivered")
        if flags:
            line += f" ({', '.join(flags)})"
        lines += [line, f"      {res}; characters: {', '.join(chars) or 'none'}"]
    if not show:
        lines.append("  (prestige is hidden until the game ends: hide_opponent_pp, D37)")
    return lines


def render_text(game: Game) -> str:
    """The whole game as plain text: header, decision, the Provost and the Road, the Guilds
    Bridge, the Construction Site, the supplies, the characters and each player's hand,
    Camp, resources, houses and prestige (no prestige while the game runs under
    ``hide_opponent_pp``, D37).

    Args:
        game: the game to draw; it is not modified.

    Returns:
        A multi-line string (no trailing newline).
    """
    s = game.state
    return text.join(
        (
            [text.heading(game), *text.decision(game)],
            _board(s),
            _site(s) + _supplies(s),
            _characters(s),
            _players(game),
        )
    )


def _short_space(s, sp: int) -> str:
    """A space in the compact text: ``R3:farm@p1!p2+p0,p1`` (tile, ``*`` residence, ``@``
    owner, ``!`` Lawyer's mark, ``+`` workers)."""
    k = int(s[L.SPACE_KIND + sp])
    tag = f"{_label(sp)}:{KIND_NAMES[k] if k >= 0 else '-'}"
    if k >= 0 and T_GROUP[k] != Group.PRINTED and s[L.SPACE_SIDE + sp] == SIDE_RESIDENCE:
        tag += "*"
    owner = int(s[L.SPACE_OWNER + sp])
    if owner >= 0:
        tag += f"@p{owner}"
    mark = int(s[L.SPACE_MARK + sp])
    if mark >= 0:
        tag += f"!p{mark}"
    workers = _workers(s, sp)
    if workers:
        tag += "+" + ",".join(f"p{w}" for w in workers)
    return tag


def compact_text(game: Game) -> list[str]:
    """A few short lines with everything that changes during a game (the golden playthroughs'
    state picture, ``caylus_env.core.playthrough``): round, phase, first player, Provost,
    Guilds Bridge and site slots; each player's hand, Camp, resources (`SHORT` letters),
    prestige (unless hidden, `prestige_shown`), houses, pass, bundles and characters; the
    Road's buildings that were built, turned or marked, or hold workers; the supplies left."""
    s = game.state
    n = int(s[L.NUM_PLAYERS])
    bridge = ",".join(f"p{int(s[L.BRIDGE + i])}" for i in range(n) if s[L.BRIDGE + i] >= 0)
    site = ",".join(_who(_seat(int(s[L.SITE + i]))) for i in range(n))
    lines = [
        f"round {int(s[L.ROUND])} {PHASE_NAMES[int(s[L.PHASE])]} first "
        f"{_who(int(s[L.FIRST_PLAYER]))} provost {int(s[L.PROVOST])} built "
        f"{contiguous_road(s)} | bridge {bridge or '-'} | site {site}"
    ]
    show = prestige_shown(game)
    for p in range(n):
        res = "".join(
            f"{SHORT[name]}{int(s[pf(p, L.P_RESOURCES + r)])}"
            for r, name in enumerate(RESOURCE_NAMES)
        )
        chars = ",".join(
            CHARACTER_NAMES[c] for c in range(NUM_CHARACTERS) if s[L.CHARACTER_HOLDER + c] == p
        )
        line = f"p{p} h{int(s[pf(p, L.P_HAND)])} c{int(s[pf(p, L.P_CAMP)])} {res}"
        if show:
            line += f" pp{int(s[pf(p, L.P_PP)])}"
        line += f" houses{int(s[pf(p, L.P_HOUSES)])}"
        if s[pf(p, L.P_PASSED)]:
            line += " passed"
        if s[pf(p, L.P_BUNDLES)]:
            line += f" bundles{int(s[pf(p, L.P_BUNDLES)])}"
        lines.append(line + f" chars {chars or '-'}")
    road = []
    for sp in range(NUM_PRINTED + ROAD_SPACES):
        k = int(s[L.SPACE_KIND + sp])
        changed = k >= 0 and T_GROUP[k] != Group.PRINTED and s[L.SPACE_SIDE + sp] != SIDE_SETUP
        if changed or s[L.SPACE_MARK + sp] >= 0 or _workers(s, sp):
            road.append(_short_space(s, sp))
    lines.append("road " + (" ".join(road) or "-"))
    available = ",".join(
        CHARACTER_NAMES[c] for c in range(NUM_CHARACTERS) if s[L.CHARACTER_HOLDER + c] == ON_BOARD
    )
    lines.append(
        f"supply wood {int(s[L.WOOD_SUPPLY : L.WOOD_SUPPLY + len(WOOD_KINDS)].sum())} stone "
        f"{int(s[L.STONE_SUPPLY : L.STONE_SUPPLY + len(STONE_KINDS)].sum())} monuments "
        f"{int(s[L.MONUMENT_SUPPLY : L.MONUMENT_SUPPLY + len(MONUMENT_KINDS)].sum())} | "
        f"characters available {available or '-'}"
    )
    return lines


__all__ = ["SHORT", "compact_text", "prestige_shown", "render_text"]
