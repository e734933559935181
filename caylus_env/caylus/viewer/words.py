"""Caylus's actions in words: what an action does in a position, its cost and its effect, in
the rulebook's words (``caylus serve`` lists a decision's actions by them, never by engine id).

``action_words(d, action)`` reads the position ``d`` (a state dict) for the context an id
needs: ``take:food`` is 2 food from a farm at a production's "or", a cube bought at a peddler
or a royal favor's cube; ``option:1`` is the first option of the building asked about;
``place:road:9`` costs what the bridge shows and gives the building's owner 1 prestige. Every
number comes from the engine's tables (``engine.buildings.BUILDINGS``, ``engine.board``,
``engine.constants``) and the rules they cite (``docs/rules/caylus.md``): a change of a table
changes the words with it. Any id gets words, legal in ``d`` or not (without its context, what
the action does in general).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from caylus_env.caylus.engine.actions import BATCH_PAIRS, action_to_string
from caylus_env.caylus.engine.board import (
    COLUMNS_OPEN,
    FAVOR_DENIERS,
    FAVOR_PRESTIGE,
    SECTION_PRESTIGE,
    SECTION_SIZE,
)
from caylus_env.caylus.engine.buildings import (
    ANY_NON_GOLD,
    BUILDINGS,
    BuildingKind,
    BuildingSpec,
    Effect,
)
from caylus_env.caylus.engine.constants import (
    BRIDGE_BASE_PRICE,
    CASTLE_PENALTY,
    FAVOR_SWAP_TAKE,
    INN_RESIDENT_PRICE,
    JOUST_COST_CLOTH,
    JOUST_COST_DENIERS,
    JOUST_FAVORS,
    LAWYER_COST_CLOTH,
    LAWYER_COST_DENIERS,
    LAWYER_PRESTIGE,
    OWNER_PRESTIGE_PER_VISITOR,
    PASS_BONUS,
    PROVOST_COST_PER_SPACE,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SIMPLIFIED_FAVOR_PRESTIGE,
    SUBSEQUENT_PLACEMENT_FLOOR,
    TRADING_POST_DENIERS,
    TWO_PLAYER_GAME,
    TWO_PLAYER_PRICE,
    BuildingsColumn,
    BuildSource,
    ResourcesColumn,
)
from caylus_env.caylus.viewer.theme import SECTION_LABELS, SPECIAL_LABELS

SPEC = {b.name: b for b in BUILDINGS}
LABEL = {b.name: b.label for b in BUILDINGS}
KIND_WORD = {
    BuildingKind.WOOD: "wood",
    BuildingKind.STONE: "stone",
    BuildingKind.PRESTIGE: "prestige",
}
#: What the worker of each special building does (rules 2.1, phase 3).
SPECIAL_EFFECTS = {
    "gate": "later moves, free, to any free spot",
    "trading_post": f"gains {TRADING_POST_DENIERS} deniers",
    "merchants_guild": "may move the provost 1-3 spaces, free",
    "joust_field": (
        f"may pay {JOUST_COST_DENIERS} denier and {JOUST_COST_CLOTH} cloth for "
        f"{JOUST_FAVORS} royal favor"
    ),
    "stables": "gives you a better place in the turn order",
    "inn": f"may stay: each of your placements then costs {INN_RESIDENT_PRICE} denier",
}
#: The buildings row of the favor table (rules 5.1 d), by column.
BUILDING_FAVORS = {
    BuildingsColumn.NOTHING: "nothing",
    BuildingsColumn.CARPENTER: "build a wood building for 1 wood less",
    BuildingsColumn.MASON: "build a stone building for 1 stone less",
    BuildingsColumn.LAWYER: (
        f"turn a building into a residence for {LAWYER_COST_CLOTH} cloth only"
    ),
    BuildingsColumn.ARCHITECT: "build a prestige building over a residence of yours",
}
#: The resources row of the favor table (rules 5.1 c), by column.
RESOURCE_FAVORS = {
    ResourcesColumn.FOOD: "take 1 food",
    ResourcesColumn.WOOD_OR_STONE: "take 1 wood or 1 stone",
    ResourcesColumn.CLOTH: "take 1 cloth",
    ResourcesColumn.SWAP: f"give 1 cube, take {FAVOR_SWAP_TAKE} non-gold cubes",
    ResourcesColumn.GOLD: "take 1 gold",
}
#: What a build decision's source takes off a building's cost (rules 5.1 d, columns 2-3).
DISCOUNT = {BuildSource.FAVOR_CARPENTER: "wood", BuildSource.FAVOR_MASON: "stone"}
SOURCE_WORD = {s.name.lower(): s for s in BuildSource}
#: The two cubes beside the food of each batch, by its action's argument (``food+wood+stone``).
BATCH_OF_NAME = {f"food+{RESOURCE_NAMES[a]}+{RESOURCE_NAMES[b]}": (a, b) for a, b in BATCH_PAIRS}


def plural(count: int, word: str) -> str:
    """``1 denier``, ``3 deniers`` (cube names and ``prestige`` stay as they are)."""
    if count == 1 or word in (*RESOURCE_NAMES, "prestige") or word.endswith("s"):
        return f"{count} {word}"
    return f"{count} {word}s"


def joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(words) < 2:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def cubes(counts: Mapping[str, int] | tuple[int, ...], extra: str = "") -> str:
    """``1 wood and 1 food`` of a cost or production vector (food, wood, stone, cloth,
    gold)."""
    if not isinstance(counts, Mapping):
        counts = dict(zip(RESOURCE_NAMES, counts, strict=True))
    words = [f"{n} {kind}" for kind, n in counts.items() if n]
    return joined([*words, *([extra] if extra else [])]) or "nothing"


def noted(label: str, note: str) -> str:
    """``the Quarry (space 9)``; a label with brackets of its own keeps one pair:
    ``the Farm (neutral, space 4)``."""
    if label.endswith(")"):
        return f"the {label[:-1]}, {note})"
    return f"the {label} ({note})"


def _who(seat: int) -> str:
    return f"player {seat}"


def _top(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return d["pending"][-1] if d.get("pending") else {}


def building_effect(b: BuildingSpec) -> str:
    """What a worker on building ``b`` does (rules 3.2's last column, from the table)."""
    if b.effect == Effect.PRODUCE:
        made = " or ".join(cubes(p) for p in b.produce)
        if b.owner_bonus:
            kinds = " or ".join(f"1 {RESOURCE_NAMES[k]}" for k in b.owner_bonus)
            return f"takes {made}; its owner takes {kinds}"
        return f"takes {made}"
    if b.effect in (Effect.BUILD_WOOD, Effect.BUILD_STONE, Effect.BUILD_PRESTIGE):
        kind = {Effect.BUILD_WOOD: "wood", Effect.BUILD_STONE: "stone"}.get(b.effect, "prestige")
        return f"may build a {kind} building"
    if b.effect == Effect.LAWYER:
        cost = f"{LAWYER_COST_CLOTH} cloth and {plural(LAWYER_COST_DENIERS, 'denier')}"
        return f"may turn a building into a residence for {cost}"
    if b.effect == Effect.MARKET:
        return f"may sell 1 cube for {b.market_price} deniers"
    if b.effect == Effect.PEDDLER:
        price = plural(b.peddler_price, "denier")
        return f"may buy up to {plural(b.peddler_max, 'cube')}, {price} each"
    if b.effect == Effect.OPTIONS:
        return f"may {options_text(b.options)}"
    return "takes no worker"


def _option_parts(o: Any) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """``(what is paid, what is gained)`` of one option, as ``(count, unit)`` pairs."""
    paid = []
    if o.deniers:
        paid.append((o.deniers, "denier"))
    if o.cube_count:
        kind = "non-gold cubes" if o.cube_kind == ANY_NON_GOLD else RESOURCE_NAMES[o.cube_kind]
        paid.append((o.cube_count, kind))
    gains = [(n, unit) for n, unit in ((o.prestige, "prestige"), (o.gold, "gold")) if n]
    return paid, gains


def _amounts(parts: list[tuple[int, str]], units: bool = True) -> str:
    return " and ".join(plural(n, unit) if units else str(n) for n, unit in parts)


def option_text(o: Any) -> str:
    """One option of a church-like building: ``pay 2 deniers for 3 prestige``."""
    paid, gains = _option_parts(o)
    return f"pay {_amounts(paid)} for {_amounts(gains)}"


def options_text(options: tuple[Any, ...]) -> str:
    """A building's options, the units said once when both options trade the same kinds:
    ``pay 2 deniers for 3 prestige or 4 for 5 prestige``."""
    words = [option_text(options[0])]
    first = [[u for _, u in part] for part in _option_parts(options[0])]
    for o in options[1:]:
        paid, gains = _option_parts(o)
        if [[u for _, u in paid], [u for _, u in gains]] == first:
            words.append(f"{_amounts(paid, units=False)} for {_amounts(gains)}")
        else:
            words.append(option_text(o))
    return " or ".join(words)


def _cost(b: BuildingSpec, source: int | None) -> str:
    counts = dict(zip(RESOURCE_NAMES, b.cost, strict=True))
    off = DISCOUNT.get(source) if source is not None else None
    if off is not None and counts[off]:
        counts[off] -= 1
    extra = "1 cube of any kind" if b.cost_any else ""
    return cubes(counts, extra)


def _gains(b: BuildingSpec, d: Mapping[str, Any]) -> str:
    prestige = b.prestige
    if b.name == "lawyer":
        prestige = int(d.get("options", {}).get("lawyer_prestige", prestige))
    words = [f"{prestige} prestige"]
    if b.favors:
        words.append(plural(b.favors, "royal favor"))
    if b.income:
        words.append(f"{plural(b.income, 'denier')} of income")
    return joined(words)


def _road(d: Mapping[str, Any], space: int) -> Mapping[str, Any]:
    for r in d.get("road", ()):
        if r["space"] == space:
            return r
    return {"space": space, "building": None, "owner": None}


def _space_text(d: Mapping[str, Any], space: int, seat: int | None) -> str:
    r = _road(d, space)
    if r["building"] is None:
        return f"road space {space}"
    owner = r["owner"]
    whose = "" if owner is None else (", yours" if owner == seat else f", {_who(owner)}'s")
    return noted(LABEL[r["building"]], f"space {space}{whose}")


def _price(d: Mapping[str, Any], seat: int, own: bool) -> int:
    """The price of a placement (rules, phase 2): 1 on one's own building or as the inn's
    resident, 3 with 2 players once the opponent passed, else 1 + the players who passed."""
    if own:
        return SUBSEQUENT_PLACEMENT_FLOOR
    if d.get("inn", {}).get("right") == seat:
        return INN_RESIDENT_PRICE
    passed = len(d.get("passing_order", ()))
    if d["options"]["num_players"] == TWO_PLAYER_GAME and passed > 0:
        return TWO_PLAYER_PRICE
    return passed + BRIDGE_BASE_PRICE


def _target(d: Mapping[str, Any], seat: int | None, target: str) -> tuple[str, str, bool]:
    """``(where a worker goes, what it does there, whether the building is the seat's)``."""
    if target in SPECIAL_LABELS:
        return f"the {SPECIAL_LABELS[target]}", SPECIAL_EFFECTS[target], False
    if target == "castle":
        return "the castle", "may give batches of cubes for houses and prestige in phase 6", False
    space = int(target.partition(":")[2])
    r = _road(d, space)
    if r["building"] is None:
        return f"road space {space}", "nothing stands there", False
    owner = r["owner"]
    own = seat is not None and owner == seat
    if owner is None:
        whose = ""
    elif own:
        whose = ", yours"
    else:  # rules, phase 2: the owner gains his prestige at once
        whose = f", {_who(owner)}'s, who gains {OWNER_PRESTIGE_PER_VISITOR} prestige"
    where = noted(LABEL[r["building"]], f"space {space}{whose}")
    return where, building_effect(SPEC[r["building"]]), own


def _place(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    seat = top.get("player")
    where, effect, own = _target(d, seat, arg)
    if seat is None or top.get("kind") != "place_worker":
        return f"Place a worker on {where}. It {effect}"
    price = plural(_price(d, seat, own), "denier")
    return f"Place a worker on {where}: pay {price}. It {effect}"


def _gate(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    where, effect, _ = _target(d, top.get("player"), arg)
    return f"Move the gate's worker, free, to {where}. It {effect}"


def _provost_move(d: Mapping[str, Any], delta: int) -> str:
    way = "forward" if delta > 0 else "back"
    spaces = plural(abs(delta), "space")
    if "provost" not in d:
        return f"Move the provost {spaces} {way}"
    return f"Move the provost {spaces} {way}, from space {d['provost']} to {d['provost'] + delta}"


def _guild(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    return f"{_provost_move(d, int(arg))}, free (merchants' guild)"


def _provost(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    cost = plural(abs(int(arg)) * PROVOST_COST_PER_SPACE, "denier")
    return f"{_provost_move(d, int(arg))}: pay {cost}"


def _pass(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    if top.get("kind") == "provost":
        return f"Leave the provost on space {d['provost']} (free)"
    if top.get("kind") == "place_worker" and not d.get("passing_order"):
        return f"Pass: place no more workers this turn; +{PASS_BONUS} denier as the first to pass"
    return "Pass: place no more workers this turn"


def _decline(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    kind = top.get("kind")
    if kind == "gate":
        return "Leave the gate's worker where it is: it goes home"
    if kind == "guild":
        return f"Leave the provost on space {d['provost']}"
    if kind == "joust":
        return "Do not joust"
    if kind == "market":
        return f"Sell nothing at the {LABEL[top['building']]}"
    if kind == "peddler":
        more = " more" if top.get("bought") else ""
        return f"Buy nothing{more} at the {LABEL[top['building']]}"
    if kind == "build":
        return "Build nothing"
    if kind == "lawyer":
        return "Transform nothing"
    if kind == "option":
        return f"Use neither option of the {LABEL[top['building']]}"
    if kind == "castle":
        if top.get("batches_given"):
            return "Give no more batches to the castle"
        return f"Give no batch to the castle: lose {CASTLE_PENALTY} prestige"
    return "Decline: do not use this effect"


def _joust(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    cost = f"{plural(JOUST_COST_DENIERS, 'denier')} and {JOUST_COST_CLOTH} cloth"
    return f"Joust: pay {cost} for {plural(JOUST_FAVORS, 'royal favor')}"


def _inn(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    if arg == "stay":
        return (
            "Stay at the inn: next turn every placement costs you "
            f"{plural(INN_RESIDENT_PRICE, 'denier')}, with one worker fewer"
        )
    return "Leave the inn: the worker goes home"


def _take(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    kind = top.get("kind")
    building = SPEC.get(top.get("building") or "")
    if kind == "produce" and building is not None:
        made = next((p for p in building.produce if p[RESOURCE_NAMES.index(arg)]), None)
        if made is not None:
            return f"Take {cubes(made)} from the {building.label}"
    if kind == "owner_bonus" and building is not None:
        return f"Take 1 {arg}: your bonus as the owner of the {building.label}"
    if kind == "peddler" and building is not None:
        return f"Buy 1 {arg} at the {building.label} for {plural(building.peddler_price, 'denier')}"
    if kind == "favor_take":
        return f"Take 1 {arg} (royal favor)"
    return f"Take 1 {arg}"


def _pay(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    kind = top.get("kind")
    building = SPEC.get(top.get("building") or "")
    if kind == "market" and building is not None:
        return f"Sell 1 {arg} at the {building.label} for {building.market_price} deniers"
    if kind == "pay_any" and building is not None:
        return f"Pay 1 {arg} as the cube of any kind the {building.label} costs"
    if kind == "alchemist_pay":
        left = top.get("remaining", 1)
        return f"Give 1 {arg} to the alchemist ({plural(left, 'cube')} still to give)"
    if kind == "favor_give":
        return f"Give up 1 {arg}, then take {FAVOR_SWAP_TAKE} non-gold cubes (royal favor)"
    return f"Pay 1 {arg}"


def _option(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    index = int(arg) - 1
    building = SPEC.get(top.get("building") or "")
    if top.get("kind") == "option" and building is not None and index < len(building.options):
        return f"{building.label}: {option_text(building.options[index])}"
    which = ("first", "second")[index]
    return f"Take the {which} option of the church, tailor, bank, alchemist or jeweller"


def _lowest_empty(d: Mapping[str, Any]) -> int | None:
    return next((r["space"] for r in d.get("road", ()) if r["building"] is None), None)


def _build(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    b = SPEC[arg]
    source = SOURCE_WORD.get(top.get("source", "")) if top.get("kind") == "build" else None
    deal = f"pay {_cost(b, source)}; gain {_gains(b, d)}"
    if b.kind == BuildingKind.PRESTIGE:
        return f"Build the {b.label} over a residence of yours: {deal}"
    where = _lowest_empty(d)
    place = f" on space {where}" if where is not None else ""
    return f"Build the {b.label}{place}: {deal}; its worker {building_effect(b)}"


def _space(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    space = int(arg)
    kind = top.get("kind")
    if kind == "lawyer":
        favor = SOURCE_WORD.get(top.get("source", "")) == BuildSource.FAVOR_LAWYER
        cost = f"{LAWYER_COST_CLOTH} cloth"
        if not favor:
            cost += f" and {plural(LAWYER_COST_DENIERS, 'denier')}"
        return (
            f"Turn {_space_text(d, space, top.get('player'))} into a residence: pay {cost}, "
            f"gain {LAWYER_PRESTIGE} prestige"
        )
    if kind == "residence" and top.get("building") in SPEC:
        return f"Build the {LABEL[top['building']]} over your residence on space {space}"
    return f"Choose {_space_text(d, space, top.get('player'))}"


def _section(d: Mapping[str, Any]) -> str | None:
    """The castle section a batch builds in now (rules, phase 6): the first not yet scored,
    or the next one when it is full."""
    castle = d.get("castle", {})
    scored = d.get("scored", {})
    for k, name in enumerate(SECTION_NAMES):
        if scored.get(name):
            continue
        if sum(castle.get(name, ())) < SECTION_SIZE[k]:
            return name
    return None


def _batch(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    a, b = BATCH_OF_NAME[arg]
    given = f"1 food, 1 {RESOURCE_NAMES[a]} and 1 {RESOURCE_NAMES[b]}"
    section = _section(d)
    if section is None:
        return f"Give a batch to the castle: {given}"
    prestige = SECTION_PRESTIGE[SECTION_NAMES.index(section)]
    return (
        f"Give a batch to the castle: {given}, for a house in the "
        f"{SECTION_LABELS[section]} and {prestige} prestige"
    )


def _open_column(d: Mapping[str, Any], top: Mapping[str, Any], row: str) -> int | None:
    """The column a favor on ``row`` reaches (rules 5.3: the marker advances when the next
    column is open), or None without a player to ask."""
    seat = top.get("player")
    if seat is None or "players" not in d:
        return None
    column = d["players"][seat]["favor_columns"][row]
    opened = COLUMNS_OPEN[sum(bool(v) for v in d.get("scored", {}).values())]
    return column + 1 if column < opened else column


def _favor(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    if d.get("options", {}).get("simplified_favors"):
        return f"Royal favor: {SIMPLIFIED_FAVOR_PRESTIGE} prestige"
    column = _open_column(d, top, arg) if top.get("kind") == "favor_row" else None
    row = arg.capitalize()
    if column is None or column == 0:
        return f"Royal favor from the {arg} row"
    if arg == "prestige":
        return f"Royal favor, {row} row: gain {FAVOR_PRESTIGE[column]} prestige (column {column})"
    if arg == "deniers":
        return f"Royal favor, {row} row: gain {FAVOR_DENIERS[column]} deniers (column {column})"
    table = RESOURCE_FAVORS if arg == "resources" else BUILDING_FAVORS
    effects = "; ".join(table[c] for c in range(1, column + 1))
    return f"Royal favor, {row} row, up to column {column}: {effects}"


def _column(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    column = int(arg)
    row = top.get("row") if top.get("kind") == "favor_column" else None
    if row == "resources":
        return f"Favor column {column}: {RESOURCE_FAVORS[column]}"
    if row == "buildings":
        return f"Favor column {column}: {BUILDING_FAVORS[column]}"
    if row == "prestige":
        return f"Favor column {column}: gain {FAVOR_PRESTIGE[column]} prestige"
    if row == "deniers":
        return f"Favor column {column}: gain {FAVOR_DENIERS[column]} deniers"
    return f"Take the effect of column {column} of the favor row"


#: Every block's words, by the head of its action names.
WORDS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], str], str]] = {
    "pass": _pass,
    "decline": _decline,
    "place": _place,
    "gate": _gate,
    "guild": _guild,
    "joust": _joust,
    "inn": _inn,
    "provost": _provost,
    "take": _take,
    "pay": _pay,
    "option": _option,
    "build": _build,
    "space": _space,
    "batch": _batch,
    "favor": _favor,
    "column": _column,
}


def action_words(d: Mapping[str, Any], action: int) -> str:
    """What ``action`` does in the position ``d`` (a state dict), in words: the action, its
    cost and its effect (see the module docstring); any id of the action space.

    Example:
        >>> from caylus_env.caylus.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=2), seed=1)
        >>> action_words(g.state_dict(), g.string_to_action("place:trading_post"))
        'Place a worker on the Trading post: pay 1 denier. It gains 3 deniers'

    Raises:
        ValueError: for an id outside the action space.
    """
    head, _, arg = action_to_string(action).partition(":")
    return WORDS[head](d, _top(d), arg)


__all__ = ["action_words", "building_effect"]
