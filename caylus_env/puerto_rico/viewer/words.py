"""Puerto Rico's actions in words: what an action does in a position, its cost and its effect,
in the rulebook's words (``caylus serve`` lists a decision's actions by them, never by engine
id).

``action_words(d, action)`` reads the position ``d`` (a state dict) for the context an id
needs: a role's doubloons, a building's price for this player (the quarry discount, the
builder's privilege, a library's doubling, a forest house's forests), a sale's price with the
trader's privilege and the markets, a loading's barrels and victory points, what ``accept``
and ``decline`` answer. The numbers come from the engine's tables (``engine.buildings``,
``engine.constants``) and the rules they cite (``docs/rules/puerto_rico.md``); the prices
follow the rules as the engine's ``roles.builder.price`` and ``roles.trader.sale_price`` do
(the tests compare them). Any id gets words, legal in ``d`` or not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from caylus_env.puerto_rico.engine.actions import action_to_string
from caylus_env.puerto_rico.engine.buildings import BUILDINGS, BuildingKind, BuildingSpec
from caylus_env.puerto_rico.engine.constants import (
    GOOD_NAMES,
    GOOD_PRICE,
    MAX_SHIPS,
    ROLE_NAMES,
    TILE_NAMES,
)
from caylus_env.puerto_rico.engine.roles.builder import BUILDER_PRIVILEGE, FORESTS_PER_DOUBLOON
from caylus_env.puerto_rico.engine.roles.captain import (
    CAPTAIN_PRIVILEGE,
    HARBOR_BONUS,
    SMALL_WHARF_BARRELS_PER_VP,
)
from caylus_env.puerto_rico.engine.roles.trader import (
    LARGE_MARKET_BONUS,
    SMALL_MARKET_BONUS,
    TRADER_PRIVILEGE,
)
from caylus_env.puerto_rico.viewer.theme import ROLE_LABELS

SPEC: dict[str, BuildingSpec] = {b.name: b for b in BUILDINGS}
#: Players of a 2-player game, whose library may double a privilege once a round only.
TWO_PLAYERS = 2

#: What each role does, its privilege last (rules 4.1-4.8).
ROLE_EFFECTS = {
    "settler": "everyone may take a plantation; you may take a quarry instead",
    "mayor": "colonists for everyone; you take 1 more from the supply",
    "builder": "everyone may build; you pay 1 doubloon less",
    "craftsman": "everyone produces goods; you take 1 extra barrel",
    "trader": "everyone may sell a barrel; you get 1 doubloon more",
    "captain": "everyone ships goods for victory points; your first shipment 1 more",
    "prospector": "you take 1 doubloon from the bank",
}
#: What each violet building does while occupied (rules 2.4, 2.5, 7.2), in a few words.
VIOLET_EFFECTS = {
    "small_market": "+1 doubloon on each sale",
    "hacienda": "settler: may first draw a face-down plantation",
    "construction_hut": "settler: may take a quarry",
    "small_warehouse": "captain: keeps every barrel of 1 good",
    "hospice": "settler: a colonist on each new tile",
    "office": "trader: may sell a good the house already holds",
    "large_market": "+2 doubloons on each sale",
    "large_warehouse": "captain: keeps every barrel of 2 goods",
    "factory": "craftsman: doubloons for the kinds produced",
    "university": "builder: a colonist on each new building",
    "harbor": "captain: +1 VP on each loading",
    "wharf": "captain: ships every barrel of a good once a phase",
    "guild_hall": "end: +1 VP per small, +2 per large production building",
    "residence": "end: 4-7 VP by filled island spaces",
    "fortress": "end: +1 VP per 3 colonists",
    "customs_house": "end: +1 VP per 4 VP of chips",
    "city_hall": "end: +1 VP per violet building",
    "aqueduct": "craftsman: +1 indigo and +1 sugar with the large plants",
    "black_market": "builder: colonist, barrel or VP chip pay 1 doubloon each",
    "forest_house": "settler: may take a forest; 1 doubloon off per 2 forests",
    "storehouse": "captain: keeps 3 more single barrels",
    "guest_house": "mayor: 2 colonists who later move where needed",
    "trading_post": "trader: may sell any good to the supply",
    "church": "builder: +1 VP for a column 2-3 building, +2 for column 4",
    "small_wharf": "captain: ships barrels one by one, 1 VP per 2",
    "lighthouse": "captain: +1 doubloon on each shipment, and as the captain",
    "library": "doubles the privilege of your roles",
    "specialty_factory": "craftsman: doubloons for your largest good received",
    "union_hall": "captain: 1 VP per 2 barrels of each good before shipping",
    "cloister": "end: VP for groups of 3 identical island tiles",
    "statue": "8 VP; takes no colonist",
}
#: ``accept`` of each decision that offers it.
ACCEPT = {
    "hacienda": "Draw the top face-down plantation onto your island (hacienda)",
    "mayor_privilege": "Take the mayor's extra colonist from the supply",
    "forest": "Lay the drawn plantation face down as a forest (no colonist)",
}
#: ``decline`` of each decision, where it says something of its own.
DECLINE = {
    "hacienda": "Draw no plantation with the hacienda",
    "settle": "Take no plantation",
    "hospice": "No colonist on the new tile",
    "mayor_privilege": "Take no extra colonist",
    "build": "Build nothing",
    "university": "No colonist on the new building",
    "craft_privilege": "Take no extra barrel",
    "sell": "Sell nothing",
    "load": "Pass: no cargo ship can take your barrels",
    "store_kind": "Keep no more whole kinds of goods",
    "store_barrel": "Keep no more single barrels",
    "forest": "Keep the drawn tile as a plantation",
    "guest_house": "Leave the guest house's colonists where they are",
    "small_wharf": "Ship no more barrels through the small wharf",
}
TILE_WORDS = {**{g: f"{g} plantation" for g in GOOD_NAMES}, "quarry": "quarry", "forest": "forest"}


def plural(count: int, word: str) -> str:
    """``1 doubloon``, ``3 doubloons`` (``VP`` and goods stay as they are)."""
    if count == 1 or word in (*GOOD_NAMES, "VP"):
        return f"{count} {word}"
    return f"{count} {word}s"


def article(noun: str) -> str:
    """``a corn plantation``, ``an indigo plantation``."""
    return f"{'an' if noun[0].lower() in 'aeiou' else 'a'} {noun}"


def barrels(count: int, good: str) -> str:
    """``1 corn barrel``, ``3 corn barrels``."""
    return f"{count} {good} {'barrel' if count == 1 else 'barrels'}"


def _doubloons(count: int, nothing: str = "free") -> str:
    return nothing if count == 0 else f"for {plural(count, 'doubloon')}"


def _top(d: Mapping[str, Any]) -> Mapping[str, Any]:
    return d["pending"][-1] if d.get("pending") else {}


def _player(d: Mapping[str, Any], top: Mapping[str, Any]) -> Mapping[str, Any] | None:
    seat = top.get("player")
    return None if seat is None else d["players"][seat]


def _occupied(player: Mapping[str, Any] | None, building: str) -> bool:
    """Whether the player owns ``building`` with a colonist on it: only then it works (2.1)."""
    return player is not None and player["buildings"].get(building, 0) > 0


def privilege_times(d: Mapping[str, Any]) -> int:
    """2 when the picker's library doubles his privilege, else 1 (rules 7.2; the engine's
    ``state.privilege_times``)."""
    if d.get("doubled"):
        return 2
    picker = d.get("picker")
    if picker is None or picker < 0 or not _occupied(d["players"][picker], "library"):
        return 1
    two = d["options"]["num_players"] == TWO_PLAYERS
    if d["options"].get("library_limit") and two and d.get("library_used"):
        return 1
    return 2


def building_price(d: Mapping[str, Any], seat: int, name: str) -> int:
    """What ``seat`` pays for building ``name`` now: its cost less the occupied quarries (at
    most its column), the builder's privilege (doubled by a library) and 1 per 2 forests of a
    forest-house owner, never below 0 (rules 4.3, 2.2, 7.2, 7.3)."""
    b = SPEC[name]
    player = d["players"][seat]
    price = b.cost - min(player["worked"].get("quarry", 0), b.column)
    if seat == d.get("picker"):
        price -= BUILDER_PRIVILEGE * privilege_times(d)
    if "forest_house" in player["buildings"]:
        price -= player["island"].get("forest", 0) // FORESTS_PER_DOUBLOON
    return max(0, price)


def sale_price(d: Mapping[str, Any], seat: int, good: str, post: bool = False) -> int:
    """A barrel's price to the trading house: the good's, +1 for the trader (+2 with a
    library), +1 small market, +2 large market; to a trading post no market counts (rules 4.5,
    2.4, 7.2)."""
    price = int(GOOD_PRICE[GOOD_NAMES.index(good)])
    if seat == d.get("picker"):
        price += TRADER_PRIVILEGE * privilege_times(d)
    player = d["players"][seat]
    if not post and _occupied(player, "small_market"):
        price += SMALL_MARKET_BONUS
    if not post and _occupied(player, "large_market"):
        price += LARGE_MARKET_BONUS
    return price


def building_effect(b: BuildingSpec) -> str:
    """What building ``b`` does (rules 2.3-2.5, 7.2)."""
    if b.kind == BuildingKind.PRODUCTION:
        good = GOOD_NAMES[b.produces]
        return f"makes {good}, {plural(b.circles, 'circle')} for colonists"
    return VIOLET_EFFECTS[b.name]


def _about(b: BuildingSpec) -> str:
    return f"({plural(b.vp, 'VP')}; {building_effect(b)})"


def _role(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    label = ROLE_LABELS[arg]
    card = arg.rpartition("_")[2]
    if card.isdigit():  # the two prospector cards are two cards (rules 1.1)
        label = f"{label} ({card})"
    coins = d.get("roles", {}).get(arg, {}).get("doubloons", 0)
    bonus = f" (+{plural(coins, 'doubloon')} on it)" if coins else ""
    effect = ROLE_EFFECTS[arg.split("_")[0]]
    return f"Take the {label} role{bonus}: {effect}"


def _accept(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    kind = top.get("kind")
    if kind == "hospice" and top.get("tile"):
        return f"Put a colonist on the new {TILE_WORDS[top['tile']]} (hospice)"
    if kind == "university" and top.get("building") in SPEC:
        return f"Put a colonist on the new {SPEC[top['building']].label} (university)"
    return ACCEPT.get(kind, "Use the optional effect")


def _decline(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    return DECLINE.get(top.get("kind"), "Decline: take nothing, do nothing")


def _settle(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    second = " as your second tile (library)" if top.get("library_extra") else ""
    if arg == "quarry":
        left = d.get("quarry_supply")
        return f"Take a quarry{second} (1 doubloon off buildings when occupied; {left} left)"
    if arg == "forest":
        return f"Take a forest{second}: the top face-down plantation, face down, no colonist"
    shown = d.get("face_up", {}).get(arg)
    up = "" if shown is None else f" ({shown} face up)"
    return f"Take {article(TILE_WORDS[arg])}{second}{up}"


def _place(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    verb = "Move a guest colonist to" if top.get("kind") == "guest_house" else "Put a colonist on"
    player = _player(d, top)
    if arg in SPEC:
        b = SPEC[arg]
        if player is None or arg not in player["buildings"]:
            return f"{verb} {article(b.label)} ({building_effect(b)})"
        on = player["buildings"][arg]
        return f"{verb} your {b.label} ({on} of {b.circles} filled; {building_effect(b)})"
    if player is None:
        return f"{verb} {article(TILE_WORDS[arg])}"
    empty = player["island"].get(arg, 0) - player["worked"].get(arg, 0)
    return f"{verb} {article(TILE_WORDS[arg])} ({empty} of yours without one)"


def _build(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    b = SPEC[arg]
    seat = top.get("player")
    if top.get("kind") != "build" or seat is None:
        return f"Build the {b.label}, cost {plural(b.cost, 'doubloon')} {_about(b)}"
    return f"Build the {b.label} {_doubloons(building_price(d, seat, arg))} {_about(b)}"


def _craft(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    return f"Take 1 extra {arg} barrel from the supply (craftsman's privilege)"


def _sell(d: Mapping[str, Any], top: Mapping[str, Any], arg: str, post: bool = False) -> str:
    where = "your trading post" if post else "the trading house"
    seat = top.get("player")
    if top.get("kind") != "sell" or seat is None:
        return f"Sell 1 {arg} barrel to {where}"
    price = _doubloons(sale_price(d, seat, arg, post), "for nothing")
    return f"Sell 1 {arg} barrel to {where} {price}"


def _post(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    return _sell(d, top, arg, post=True)


def _shipment_bonus(d: Mapping[str, Any], top: Mapping[str, Any]) -> int:
    """The VP a shipment adds to its barrels: the captain's first one (doubled by a library),
    an occupied harbor (rules 4.6, 2.4, 7.2)."""
    seat = top.get("player")
    player = _player(d, top)
    bonus = 0
    if seat == d.get("picker") and player is not None and not player.get("shipped"):
        bonus += CAPTAIN_PRIVILEGE * privilege_times(d)
    if _occupied(player, "harbor"):
        bonus += HARBOR_BONUS
    return bonus


def _load(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    good, _, ship = arg.partition(":")
    k = int(ship.removeprefix("ship")) - 1
    player = _player(d, top)
    ships = d.get("ships", ())
    if top.get("kind") != "load" or player is None or k >= len(ships):
        return f"Load {good} on cargo ship {k + 1} of {MAX_SHIPS}"
    s = ships[k]
    count = min(s["capacity"] - s["load"], player["goods"][good])
    vp = count + _shipment_bonus(d, top)
    held = f"{s['load']} of {s['capacity']} loaded"
    return f"Load {barrels(count, good)} on cargo ship {k + 1} ({held}): {plural(vp, 'VP')}"


def _wharf(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    player = _player(d, top)
    if top.get("kind") != "load" or player is None:
        return f"Ship every {arg} barrel with your wharf"
    count = player["goods"][arg]
    vp = count + _shipment_bonus(d, top)
    return f"Ship all {barrels(count, arg)} with your wharf: {plural(vp, 'VP')}"


def _small_wharf(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    per = SMALL_WHARF_BARRELS_PER_VP
    shipped = top.get("barrels") if top.get("kind") == "small_wharf" else None
    so_far = "" if shipped is None else f"; {shipped} shipped so far"
    return f"Ship 1 {arg} barrel through your small wharf (1 VP per {per} barrels{so_far})"


def _keep(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    player = _player(d, top)
    held = "" if player is None else f" ({player['goods'][arg]} held)"
    if top.get("kind") == "store_kind":
        return f"Keep every {arg} barrel in a warehouse{held}"
    return f"Keep 1 {arg} barrel{held}"


def _draft(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    b = SPEC[arg]
    cost = plural(b.cost, "doubloon")
    return f"Put the {b.label} on the supply board: cost {cost} {_about(b)}"


def _return(d: Mapping[str, Any], top: Mapping[str, Any], arg: str) -> str:
    what, _, where = arg.partition(":")
    off = "1 doubloon off (black market)"
    if what == "vp":
        return f"Give back 1 VP chip for {off}"
    if what in GOOD_NAMES:
        return f"Give back 1 {what} barrel for {off}"
    if where == "san_juan":
        return f"Give back a colonist from San Juan for {off}"
    place = SPEC[where].label if where in SPEC else TILE_WORDS[where]
    return f"Give back the colonist of your {place} for {off}"


#: Every block's words, by the head of its action names.
WORDS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any], str], str]] = {
    "role": _role,
    "accept": _accept,
    "decline": _decline,
    "settle": _settle,
    "place": _place,
    "build": _build,
    "craft": _craft,
    "sell": _sell,
    "load": _load,
    "wharf": _wharf,
    "keep": _keep,
    "draft": _draft,
    "small_wharf": _small_wharf,
    "post": _post,
    "return": _return,
}
assert {n.split(":")[0] for n in (f"role:{r}" for r in ROLE_NAMES)} <= set(WORDS)
assert set(TILE_WORDS) == set(TILE_NAMES)


def action_words(d: Mapping[str, Any], action: int) -> str:
    """What ``action`` does in the position ``d`` (a state dict), in words: the action, its
    cost and its effect (see the module docstring); any id of the action space.

    Example:
        >>> from caylus_env.puerto_rico.engine import Game, GameConfig
        >>> g = Game(GameConfig(num_players=3), seed=1)
        >>> action_words(g.state_dict(), g.string_to_action("role:builder"))
        'Take the Builder role: everyone may build; you pay 1 doubloon less'

    Raises:
        ValueError: for an id outside the action space.
    """
    head, _, arg = action_to_string(action).partition(":")
    return WORDS[head](d, _top(d), arg)


__all__ = ["action_words", "building_effect", "building_price", "sale_price"]
