"""Caylus 1303's actions in words: what an action does in a position, its cost and its effect,
in the rules' words (``caylus serve`` lists a decision's actions by them, never by engine id).

``action_words(d, action)`` reads the position ``d`` (a state dict) for the context an id
needs: ``option:1`` is the first option of the building being used, ``provost:+1`` is free at
the Toll and costs a worker on the Guilds Bridge, a placement costs the surcharge once somebody
passed (D16) and gives the building's owner its PP (D19, D27). Every effect is read from the
tile table (``engine.tiles.TILES``: each side's options with their costs and gains) and every
number from the decisions table (``engine.rules.RULES``) through ``engine.constants``: a
change of a table changes the words with it. The words of a block are found by the head of its
action names; a block this module has no words of its own for (one appended by a rules fix)
is said from its name, its argument read as a space, a tile, a character or a resource, so
every id of the space gets words, legal in ``d`` or not. The rules are
``docs/rules/caylus_1303.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from caylus_env.caylus_1303.engine.actions import BUNDLES, action_to_string
from caylus_env.caylus_1303.engine.constants import (
    BRIDGE_WORKERS_PER_STEP,
    BUNDLE_PRESTIGE,
    CHARACTER_NAMES,
    CHARACTER_TITLES,
    EARLY_RISER_EXTRA,
    FOREMAN_BONUS,
    GOLDSMITH_BONUS,
    OWNER_PRESTIGE,
    PLACED_WORKER,
    RESOURCE_NAMES,
    SPACE_NAMES,
    STEWARD_PRESTIGE,
    SURCHARGE,
    THIEF_PRESTIGE,
    TOLL_STEPS,
)
from caylus_env.caylus_1303.engine.rules import value
from caylus_env.caylus_1303.engine.tiles import (
    KIND_OF,
    SIDE_CONSTRUCTION,
    SIDE_NAMES,
    SIDE_RESIDENCE,
    SIDE_SETUP,
    TILES,
    Effect,
    EffectType,
    Group,
    Option,
    Tile,
)

TILE = {t.name: t for t in TILES}
CHARACTER_TITLE = dict(zip(CHARACTER_NAMES, CHARACTER_TITLES, strict=True))
ARCHITECT_BONUS = value("architect_scope")["bonus"]
#: What each character lets its holder do (rules 5.6), in a few words.
POWERS = {
    "early_riser": f"one placement before everyone, for {EARLY_RISER_EXTRA} extra worker",
    "night_worker": "no surcharge on your placements once others passed",
    "journeyman": "once a round, a worker on a building another worker holds",
    "thief": "owners gain no PP from your placements",
    "steward": f"{STEWARD_PRESTIGE} PP when others place on your buildings",
    "bailiff": "moves the Provost 1 step after the Guilds Bridge, free",
    "architect": f"+{ARCHITECT_BONUS} PP for each building or monument you construct",
    "chamberlain": "bundles of any 3 resources",
    "goldsmith": f"once a round, +{GOLDSMITH_BONUS} PP for a bundle with gold",
    "deliveryman": "delivers bundles without a worker on the Construction Site",
    "foreman": f"+{FOREMAN_BONUS} PP per bundle",
    "day_laborer": "+1 worker at each income",
}
#: ``decline`` of each decision, where it says something of its own.
DECLINE = {
    "early_riser": "Make no early placement",
    "bridge": "Do not move the Provost",
    "bailiff": "Leave the Provost where it is",
    "deliver": "Deliver no more bundles",
    "monument": "Build no more monuments",
}
GROUP_WORD = {Group.WOOD: "wood", Group.STONE: "stone"}


def plural(count: int, word: str) -> str:
    """``1 worker``, ``3 workers`` (resources and ``PP`` stay as they are)."""
    if count == 1 or word in (*RESOURCE_NAMES, "PP"):
        return f"{count} {word}"
    return f"{count} {word}s"


def joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


#: The words of the tile table's cost and gain keys that are not a resource's name.
#: ``any`` is one of food, wood, stone, cloth, the payer's choice (D12).
UNITS = {"any": "non-gold resource", "workers": "worker", "pp": "PP", "favor": "Favor"}


def amounts(counts: Mapping[str, int], units: bool = True) -> str:
    """A cost or a gain of the tile table in words: ``1 wood and 1 non-gold resource`` (the
    counts alone without ``units``); ``nothing`` when empty."""
    words = [plural(n, UNITS.get(key, key)) if units else str(n) for key, n in counts.items() if n]
    return joined(words) or "nothing"


def option_text(o: Option) -> str:
    """``pay 1 wood for 1 Favor``, or ``take 1 food`` for an option that costs nothing."""
    if not o.cost:
        return f"take {amounts(o.gain)}"
    return f"pay {amounts(o.cost)} for {amounts(o.gain)}"


def options_text(options: tuple[Option, ...]) -> str:
    """A building's options, the units said once when both trade the same kinds: ``pay 1
    worker for 1 gold or 3 for 2 gold``."""
    words = [option_text(options[0])]
    for o in options[1:]:
        same = [list(o.cost), list(o.gain)] == [list(options[0].cost), list(options[0].gain)]
        if same and o.cost:
            words.append(f"{amounts(o.cost, units=False)} for {amounts(o.gain)}")
        else:
            words.append(option_text(o))
    return " or ".join(words)


def effect_text(e: Effect) -> str:
    """What a side of a tile does when used (rules 5.1-5.4, from the tile table)."""
    if e.type == EffectType.OPTIONS:
        return options_text(e.options)
    if e.type == EffectType.TAKE:
        paid = amounts(e.options[0].cost)
        return "take 1 non-gold resource" + ("" if paid == "nothing" else f" for {paid}")
    if e.type == EffectType.CONSTRUCT:
        off = f", {amounts(e.discount)} less" if e.discount else ""
        return f"construct a {GROUP_WORD[e.group]} building{off}"
    if e.type == EffectType.TOLL:
        return f"may move the Provost up to {plural(TOLL_STEPS, 'step')}, free"
    if e.type == EffectType.LAWYER:
        return (
            f"mark a starting building to become your residence, for {amounts(e.options[0].cost)}"
        )
    return "no effect"


def _top(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return d["pending"][-1] if d.get("pending") else {}


def _space(d: Mapping[str, Any], space: str) -> Mapping[str, Any]:
    return d.get("spaces", {}).get(space) or {"tile": space if space in TILE else None}


def _side(d: Mapping[str, Any], space: str) -> Effect | None:
    """The effect a use of ``space`` applies: a site building's Setup side (rules 4.5), else
    the side up (``engine.phases.effects.effect_side``)."""
    info = _space(d, space)
    tile = TILE.get(info.get("tile") or "")
    if tile is None:
        return None
    side = info.get("side") or SIDE_NAMES[SIDE_SETUP]
    if space.startswith("S") or side == SIDE_NAMES[SIDE_SETUP]:
        return tile.setup
    return tile.construction if side == SIDE_NAMES[SIDE_CONSTRUCTION] else None


def _where(d: Mapping[str, Any], space: str, seat: int | None) -> str:
    """``the Farm (R3, player 1's)``: the tile on ``space``, where it stands and its owner."""
    info = _space(d, space)
    tile = TILE.get(info.get("tile") or "")
    if tile is None:
        return f"the empty space {space}"
    notes = [] if space == tile.name else [space]  # a printed space is named after its tile
    owner = info.get("owner")
    if owner is not None:
        notes.append("yours" if owner == seat else f"player {owner}'s")
    if info.get("side") == SIDE_NAMES[SIDE_RESIDENCE]:
        notes.append("a residence")
    if not notes:
        return f"the {tile.title}"
    if tile.title.endswith(")"):  # ``Carpenter (starting)``: one pair of brackets
        return f"the {tile.title[:-1]}, {', '.join(notes)})"
    return f"the {tile.title} ({', '.join(notes)})"


def _holder(d: Mapping[str, Any], character: str) -> Any:
    return d.get("characters", {}).get(character)


def _placement_cost(d: Mapping[str, Any], seat: int, early: bool) -> int:
    """Workers a placement costs (D16): the placed one, the surcharge once anybody passed
    unless the placer holds the Night Worker, 1 more for the Early Riser's."""
    cost = PLACED_WORKER
    if d.get("passes", 0) > 0 and _holder(d, "night_worker") != seat:
        cost += SURCHARGE
    if early:
        cost += EARLY_RISER_EXTRA
    return cost


def _owner_pp(d: Mapping[str, Any], seat: int, owner: int | None) -> int:
    """PP the owner gains from the placement (rules 4.1, D19, D27)."""
    if owner is None or owner == seat:
        return 0
    if _holder(d, "thief") == seat:
        return THIEF_PRESTIGE
    if _holder(d, "steward") == owner:
        return STEWARD_PRESTIGE
    return OWNER_PRESTIGE


def _place(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    seat = top.get("player")
    effect = _side(d, arg)
    does = "" if effect is None else f". It may {effect_text(effect)}"
    where = _where(d, arg, seat)
    if seat is None or top.get("kind") not in ("plan", "early_riser"):
        return f"Place a worker on {where}{does}"
    cost = plural(_placement_cost(d, seat, top["kind"] == "early_riser"), "worker")
    gain = _owner_pp(d, seat, _space(d, arg).get("owner"))
    if gain:  # rules 4.1: the owner gains his PP at once
        where = f"{where[:-1]}, who gains {gain} PP)"
    k = int(arg[1:]) if arg.startswith("R") else 0
    idle = ", past the Provost" if k > d.get("provost", k) else ""
    return f"Place a worker on {where}{idle}: pay {cost}{does}"


def _site(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    seat = top.get("player")
    text = "Place a worker on the Construction Site"
    if seat is not None and top.get("kind") in ("plan", "early_riser"):
        cost = plural(_placement_cost(d, seat, top["kind"] == "early_riser"), "worker")
        text += f": pay {cost}"
    return f"{text}; in Delivery, bundles of 3 resources for {BUNDLE_PRESTIGE} PP each"


def _pass(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    if d.get("passes", 0) == 0:
        return (
            "Pass: the first to pass takes the first-player tile; the others then pay "
            f"{plural(SURCHARGE, 'worker')} more per placement"
        )
    return "Pass: place no more workers this round"


def _decline(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    kind = top.get("kind")
    if kind == "effect" and top.get("space"):
        return f"Use no effect of {_where(d, top['space'], top.get('player'))}"
    return DECLINE.get(kind, "Decline: do nothing more here")


def _character(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    return f"Take the {CHARACTER_TITLE[arg]}: {POWERS[arg]}"


def _steal(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    holder = _holder(d, arg)
    source = f" from player {holder}" if isinstance(holder, int) else ""
    return f"Favor: take the {CHARACTER_TITLE[arg]}{source} ({POWERS[arg]})"


def _use_site(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    effect = _side(d, arg)
    does = "" if effect is None else f" ({effect_text(effect)})"
    return f"Favor: use {_where(d, arg, top.get('player'))}{does}, then take a character"


def _effect_tile(d: Mapping[str, Any], top: Mapping[str, Any]) -> tuple[Tile | None, Effect | None]:
    if top.get("kind") != "effect" or not top.get("space"):
        return None, None
    tile = TILE.get(_space(d, top["space"]).get("tile") or "")
    return tile, _side(d, top["space"])


def _option(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    index = int(arg) - 1
    tile, effect = _effect_tile(d, top)
    if tile is not None and effect is not None and index < len(effect.options):
        return f"{tile.title}: {option_text(effect.options[index])}"
    return f"Take the {('first', 'second')[index]} option printed on the building"


def _take(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    tile, effect = _effect_tile(d, top)
    if tile is not None and effect is not None and effect.type == EffectType.TAKE:
        paid = amounts(effect.options[0].cost)
        cost = "" if paid == "nothing" else f", paying {paid}"
        return f"Take 1 {arg} from the {tile.title}{cost}"
    return f"Take 1 {arg}"


def _pay(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    owed = top.get("owed") if top.get("kind") == "pay" else None
    left = "" if owed is None else f" ({owed} owed)"
    return f"Pay 1 {arg} as a non-gold resource still owed{left}"


def _lowest_empty(d: Mapping[str, Any]) -> str | None:
    return next(
        (s for s in SPACE_NAMES if s.startswith("R") and not _space(d, s).get("tile")), None
    )


def _pp(tile: Tile, d: Mapping[str, Any], seat: int | None) -> int:
    """A tile's PP for its builder: +1 with the Architect (D29)."""
    return tile.pp + (
        ARCHITECT_BONUS if seat is not None and _holder(d, "architect") == seat else 0
    )


def _construct(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    tile = TILE[arg]
    cost = dict(tile.cost)
    _, effect = _effect_tile(d, top)
    if effect is not None and effect.type == EffectType.CONSTRUCT:
        for key, off in effect.discount.items():
            cost[key] = max(0, cost.get(key, 0) - off)
    where = _lowest_empty(d)
    on = f" on {where}" if where else ""
    gain = plural(_pp(tile, d, top.get("player")), "PP")
    return (
        f"Construct the {tile.title}{on}: pay {amounts(cost)}; gain {gain}. "
        f"It may {effect_text(tile.construction)}"
    )


def _provost(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    delta = int(arg)
    way = "forward" if delta > 0 else "back"
    here = d.get("provost")
    move = f"Move the Provost {plural(abs(delta), 'step')} {way}"
    if here is not None:
        move += f", from {here} to {here + delta}"
    kind = top.get("kind")
    if kind == "bridge":
        return f"{move}: pay {plural(abs(delta) * BRIDGE_WORKERS_PER_STEP, 'worker')}"
    if kind == "bailiff":
        return f"{move}, free (the Bailiff)"
    if kind == "effect":
        return f"{move}, free (the Toll)"
    return move


def _mark(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    lawyer = TILE["lawyer"].setup.options[0].cost
    where = _where(d, arg, top.get("player"))
    return (
        f"Mark {where} with your house: it becomes your residence in Stewardship "
        f"(pay {amounts(lawyer)})"
    )


def _bundle(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    counts = dict(zip(RESOURCE_NAMES, BUNDLES[BUNDLE_NAMES.index(arg)].tolist(), strict=True))
    seat = top.get("player")
    gain = BUNDLE_PRESTIGE
    extra = ""
    if seat is not None and _holder(d, "foreman") == seat:
        gain += FOREMAN_BONUS
    gold_bonus = counts["gold"] and _holder(d, "goldsmith") == seat
    if seat is not None and gold_bonus and "goldsmith" not in d.get("characters_used", ()):
        gain += GOLDSMITH_BONUS
        extra = " (the Goldsmith's bonus)"
    return f"Deliver a bundle of {amounts(counts)}: {plural(gain, 'PP')}{extra}"


def _monument(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    tile = TILE[arg]
    gain = [plural(_pp(tile, d, top.get("player")), "PP")]
    if tile.favor_when_built:
        gain.append(plural(tile.favor_when_built, "Favor"))
    income = f"; income: {amounts(tile.income)} each Stewardship" if tile.income else ""
    return (
        f"Build the {tile.title} on a residence of yours: pay {amounts(tile.cost)}; "
        f"gain {joined(gain)}{income}"
    )


def _argument(d: Mapping[str, Any], arg: str, seat: int | None) -> str:
    """An action's argument in words, for a block without words of its own."""
    if arg in SPACE_NAMES:
        return _where(d, arg, seat)
    if arg in TILE:
        return f"the {TILE[arg].title}"
    if arg in CHARACTER_TITLE:
        return f"the {CHARACTER_TITLE[arg]}"
    if arg in RESOURCE_NAMES:
        return f"1 {arg}"
    return " ".join(arg.replace("_", " ").replace("+", " and ").split())


def _generic(head: str) -> Callable[[Mapping[str, Any], Mapping[str, Any], str], str]:
    def words(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
        name = head.replace("_", " ").capitalize()
        return f"{name}: {_argument(d, arg, top.get('player'))}" if arg else name

    return words


BUNDLE_NAMES = [
    "+".join(r for r, n in zip(RESOURCE_NAMES, b.tolist(), strict=True) for _ in range(n))
    for b in BUNDLES
]
#: Every block's words, by the head of its action names.
WORDS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], str], str]] = {
    "character": _character,
    "steal": _steal,
    "use_site": _use_site,
    "place": _place,
    "site": _site,
    "pass": _pass,
    "decline": _decline,
    "option": _option,
    "take": _take,
    "pay": _pay,
    "construct": _construct,
    "provost": _provost,
    "mark": _mark,
    "bundle": _bundle,
    "monument": _monument,
}
assert set(KIND_OF) == set(TILE)


def action_words(d: Mapping[str, Any], action: int) -> str:
    """What ``action`` does in the position ``d`` (a state dict), in words: the action, its
    cost and its effect (see the module docstring); any id of the action space.

    Example:
        >>> from caylus_env.caylus_1303.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=3), seed=1)
        >>> action_words(g.state_dict(), g.string_to_action("character:foreman"))
        'Take the Foreman: +1 PP per bundle'

    Raises:
        ValueError: for an id outside the action space.
    """
    head, _, arg = action_to_string(action).partition(":")
    return WORDS.get(head, _generic(head))(d, _top(d), arg)


__all__ = ["action_words", "effect_text"]
