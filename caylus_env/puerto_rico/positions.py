"""Puerto Rico positions: puzzles, endgames and the scenario tests of the rules.

``build(num_players, **description)`` sets up a position from who holds what (the game
contract's position builder, ``caylus_env.core.positions``): every component the description
does not place is in its supply (colonists, VP chips, quarries, barrels, plantations, buildings)
and every doubloon a player or a role card holds was paid by the bank, so the position keeps the
conservation invariants the loader checks (rules 1.1, 6.7); the engine then validates it in
full and runs it to its first decision. ``build_dict`` gives the same position as a state dict.

For finer edits, start from ``position(...)`` (a new game, before any pick), edit it with the
helpers below (each moves components from their supply or through the bank), then ``start(d)``.
``play(game, *names)`` applies actions by their stable names; ``legal_names(game)`` lists the
legal ones. ``fresh``, ``game`` and ``act`` are the scenario tests' shorter names for
``position``, ``start`` and ``play``.

Example (an endgame: two VP chips left, and the captain's choice):
    >>> from caylus_env.puerto_rico import positions as P
    >>> g = P.build(
    ...     3,
    ...     role="captain",
    ...     players={0: {"goods": {"corn": 2, "indigo": 1}, "vp": 40}, 1: {"vp": 33}},
    ...     ships=[("corn", 2), None, None],
    ... )
    >>> g.state_dict()["vp_supply"], P.legal_names(g)
    (2, ['load:corn:ship1', 'load:indigo:ship2', 'load:indigo:ship3'])
    >>> P.play(g, "load:corn:ship1")  # 2 VP and the captain's 1: the last chips
    >>> g.state_dict()["vp_supply"], g.state_dict()["end_triggered"]
    (-1, True)
"""

from __future__ import annotations

import random
from typing import Any

from caylus_env.core import positions as core
from caylus_env.core.positions import PositionError, legal_names, play
from caylus_env.puerto_rico import GAME
from caylus_env.puerto_rico.engine import Game, GameConfig
from caylus_env.puerto_rico.engine.buildings import BUILDING_NAMES, BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    GOOD_NAMES,
    GOODS_IN_BOX,
    GOODS_REMOVED_2P,
    NUM_PLANTATION_KINDS,
    PLANTATIONS_IN_BOX,
    PLANTATIONS_REMOVED_2P,
    QUARRIES,
    TILE_NAMES,
    VP_CHIPS,
)

PHASE_OF_ROLE = {
    "settler": "settler",
    "mayor": "mayor",
    "builder": "builder",
    "craftsman": "craftsman",
    "trader": "trader",
    "captain": "captain",
}


def position(num_players: int = 3, seed: int = 0, **options: Any) -> dict[str, Any]:
    """The state dict of a new game, before any pick (with the expansion: after a random
    draft, rules 7.1, unless ``draft`` is given)."""
    config = GameConfig.from_dict({"draft": "random", **options, "num_players": num_players})
    return Game(config, seed=seed).state_dict()


def fresh(num_players: int = 3, seed: int = 0, expansion: bool = False) -> dict[str, Any]:
    """``position`` with the expansion as the one option (the scenario tests' name)."""
    return position(num_players, seed, expansion=expansion)


def drafted(d: dict[str, Any], *names: str) -> None:
    """Put these violet kinds on the supply board as if the draft had picked them."""
    for name in names:
        spec = BUILDINGS[BUILDING_NAMES.index(name)]
        if d["building_supply"][name] == 0:
            d["building_supply"][name] = spec.copies_2p if len(d["players"]) == 2 else spec.copies


def money(d: dict[str, Any], p: int, amount: int) -> None:
    """``amount`` doubloons from the bank to player ``p``."""
    d["players"][p]["money"] += amount
    d["bank_paid"] += amount


def goods(d: dict[str, Any], p: int, good: str, n: int) -> None:
    """``n`` barrels of ``good`` from the supply to player ``p``."""
    d["goods_supply"][good] -= n
    d["players"][p]["goods"][good] += n


def colonists(d: dict[str, Any], p: int, n: int) -> None:
    """``n`` colonists from the supply to San Juan."""
    d["colonist_supply"] -= n
    d["players"][p]["san_juan"] += n


def tile(d: dict[str, Any], p: int, kind: str, n: int = 1, worked: int = 0) -> None:
    """``n`` tiles of a kind onto the island (``worked`` of them occupied)."""
    for _ in range(n):
        if kind == "quarry":
            d["quarry_supply"] -= 1
        else:
            stack = d["plantation_stack"]
            idx = len(stack) - 1 - stack[::-1].index(kind)
            del stack[idx]
    d["players"][p]["island"][kind] += n
    d["players"][p]["worked"][kind] += worked
    d["colonist_supply"] -= worked


def building(d: dict[str, Any], p: int, name: str, workers: int = 1) -> None:
    """Building ``name`` from the supply to player ``p``'s city, with ``workers`` colonists
    from the supply on it (drafted first with the expansion)."""
    if d["options"]["expansion"]:
        drafted(d, name)
    d["building_supply"][name] -= 1
    d["players"][p]["buildings"][name] = workers
    d["colonist_supply"] -= workers


def vp(d: dict[str, Any], p: int, n: int) -> None:
    """``n`` VP chips from the supply to player ``p``."""
    d["vp_supply"] -= n
    d["players"][p]["vp"] += n


def start_role(d: dict[str, Any], role: str, picker: int) -> None:
    """Put the game at the start of ``role``'s phase, picked by ``picker`` this round."""
    d["phase"] = PHASE_OF_ROLE[role]
    d["picker"] = picker
    d["step"] = 0
    d["idle"] = 0
    d["picks"] = 1
    d["roles"][role]["picked"] = True
    d["pending"] = []


def start(d: dict[str, Any]) -> Game:
    """Build the game from the position (validated in full) and run to its first decision."""
    return Game.from_state_dict(d)


#: The fields of ``build``'s description, and of each player's entry in it.
FIELDS = (
    "options", "seed", "players", "governor", "round", "role", "picker", "picked",
    "role_doubloons", "ships", "trading_house", "colonist_ship", "face_up", "discards",
    "forested", "drafted", "end_triggered", "pending",
)  # fmt: skip
PLAYER_FIELDS = ("money", "vp", "goods", "plantations", "worked", "buildings", "san_juan")
PLANTATION_KINDS = TILE_NAMES[:NUM_PLANTATION_KINDS]
ISLAND_TILES = (*PLANTATION_KINDS, "quarry", "forest")
WORKABLE_TILES = (*PLANTATION_KINDS, "quarry")


def build(num_players: int | None = None, **description: Any) -> Game:
    """The position ``description`` describes, validated and run to its first decision.

    ``build_dict`` documents the description; this is ``start(build_dict(...))``.

    Raises:
        PositionError: naming the description's field and what is allowed.
        InvalidStateError: for a position the rules do not allow (the engine's validation,
            naming the state dict's field).
    """
    return start(build_dict(num_players, **description))


def build_dict(num_players: int | None = None, **description: Any) -> dict[str, Any]:
    """The state dict of a position given by who holds what; everything else is in supply.

    Every field is optional; what is left out is as at the start of a game (``position``):

    - ``options``: the game's options (``expansion``, ``draft``, ``library_limit``,
      ``max_decisions``); with the expansion the violet buildings are drafted at random
      (rules 7.1) unless ``draft`` is given. ``seed``: the setup, the draft, the order of the
      face-down plantations and the engine's generator (default 0).
    - ``players``: a list (seat 0 first) or ``{seat: entry}``; an entry's fields, each
      optional (left out: the start of the game): ``money`` (doubloons), ``vp`` (VP chips),
      ``goods`` (``{good: barrels}``), ``plantations`` (``{tile: n}`` over the plantation
      kinds, ``quarry`` and, with the expansion, ``forest``; replaces the starting
      plantation), ``worked`` (``{tile: colonists}``, at most one per tile), ``buildings``
      (``{name: colonists}`` or a list of names, unoccupied) and ``san_juan`` (colonists).
    - ``governor`` (seat, default 0), ``round`` (default 1), ``end_triggered`` (default False).
    - ``role``: the role card whose phase starts now (``settler`` .. ``captain``), picked by
      ``picker`` (default: the seat whose pick it was); ``picked``: the role cards picked
      earlier this round. Without ``role``, the next player picks a role.
    - ``role_doubloons``: ``{role: doubloons}`` on role cards not yet picked.
    - ``ships``: one per cargo ship, smallest first: ``None`` (empty) or ``(good, barrels)``;
      ``trading_house``: ``{good: barrels}``; ``colonist_ship``: colonists on the colonist ship
      (default: the starting number).
    - ``face_up``, ``discards``: ``{plantation kind: tiles}`` (default face up: those of the
      start, then drawn at random); ``forested`` (expansion): ``{kind: tiles}`` the forests
      on the islands were made of (default: drawn from the most plentiful kinds);
      ``drafted`` (expansion): violet buildings on the supply board besides the owned ones.
    - ``pending``: the decision stack, as the state dict writes it (default: none; the engine
      asks the natural next decision).

    Filled from the component totals (rules 1.1-1.3): ``colonist_supply``, ``vp_supply``
    (negative once VP are owed on paper, rules 4.6), ``quarry_supply``, ``goods_supply``,
    ``building_supply``, the face-down ``plantation_stack`` (the start's order, less the tiles
    now in play, taken from the top; tiles back from the start's islands go to the bottom,
    shuffled by ``seed``) and ``bank_paid``. An empty description is the start of a game.
    The dict is not yet validated by the engine: ``start`` does that.

    Raises:
        PositionError: an unknown field, name or seat, a value out of its domain, or more
            components than the game has, naming the field and what is allowed.
    """
    core.fields(description, FIELDS, "description")
    n = core.players(num_players, GAME)
    options = description.get("options", {})
    core.fields(options, ("expansion", "draft", "library_limit", "max_decisions"), "options")
    seed = core.count(description.get("seed", 0), "seed", 0, 2**31 - 2)
    try:
        d = position(n, seed, **options)
    except ValueError as e:
        raise PositionError(f"options: {e}") from None
    expansion = d["options"]["expansion"]
    rng = random.Random(seed)
    gain = 0  # doubloons the bank paid in all

    for p, entry in core.seats(description.get("players", {}), "players", n).items():
        _player(d, p, entry, expansion)
    gain += sum(pd["money"] for pd in d["players"])
    drafts = description.get("drafted", [])
    if not isinstance(drafts, (list, tuple)):
        raise PositionError(f"drafted must be a list of violet buildings, got {drafts!r}")
    for name in drafts:
        where = "drafted"
        core.name(name, where, [b.name for b in BUILDINGS if b.kind != 0])
        if not expansion:
            raise PositionError("drafted: violet expansion buildings need options.expansion")
        drafted(d, name)

    # -- the clock: governor, round, the role being played ---------------------------------
    d["governor"] = core.seat(description.get("governor", 0), "governor", n)
    d["round"] = core.count(description.get("round", 1), "round", 1, 9999)
    end = description.get("end_triggered", False)
    if not isinstance(end, bool):
        raise PositionError(f"end_triggered must be true or false, got {end!r}")
    d["end_triggered"] = end
    in_game = [r for r, v in d["roles"].items() if v["in_game"]]
    picked = description.get("picked", [])
    if not isinstance(picked, (list, tuple)):
        raise PositionError(f"picked must be a list of role cards, got {picked!r}")
    picked = [core.name(r, "picked", in_game) for r in picked]
    role = description.get("role")
    phase_roles = [r for r in in_game if r in PHASE_OF_ROLE]
    if role is not None:
        core.name(role, "role", phase_roles)
        picked.append(role)
    if len(set(picked)) != len(picked):
        raise PositionError(f"picked: a role card is picked at most once a round, got {picked}")
    per_round = 6 if n == 2 else n
    if len(picked) > per_round:
        raise PositionError(f"picked: {len(picked)} role cards; allowed: at most {per_round}")
    for r in picked:
        d["roles"][r]["picked"] = True
    d["picks"] = len(picked)
    d["step"] = d["idle"] = 0
    d["pending"] = []
    if role is None:
        if "picker" in description:
            raise PositionError("picker: only with a role whose phase is played")
        d["phase"], d["picker"] = "role_selection", None
    else:
        default = (d["governor"] + len(picked) - 1) % n
        d["picker"] = core.seat(description.get("picker", default), "picker", n)
        d["phase"] = PHASE_OF_ROLE[role]
    doubloons = core.counts(description.get("role_doubloons", {}), "role_doubloons", in_game)
    for r, k in doubloons.items():
        if k and r in picked:
            raise PositionError(f"role_doubloons.{r}: a picked card's doubloons went to its picker")
        d["roles"][r]["doubloons"] = k
        gain += k
    d["bank_paid"] = gain

    # -- barrels: players, ships, the trading house; the rest in supply --------------------
    goods_total = {g: int(GOODS_IN_BOX[i]) - (GOODS_REMOVED_2P if n == 2 else 0)
                   for i, g in enumerate(GOOD_NAMES)}  # fmt: skip
    used = {g: sum(pd["goods"][g] for pd in d["players"]) for g in GOOD_NAMES}
    ships = description.get("ships", [])
    if not isinstance(ships, (list, tuple)) or len(ships) > len(d["ships"]):
        raise PositionError(
            f"ships must be a list of at most {len(d['ships'])} ships (None or (good, barrels))"
        )
    for k, ship in enumerate(ships):
        where = f"ships[{k}]"
        cap = d["ships"][k]["capacity"]
        if ship is None:
            continue
        if not isinstance(ship, (list, tuple)) or len(ship) != 2:
            raise PositionError(f"{where} must be None or (good, barrels), got {ship!r}")
        good = core.name(ship[0], f"{where} good", GOOD_NAMES)
        load = core.count(ship[1], f"{where} barrels", 1, cap)
        if any(s["good"] == good for s in d["ships"][:k]):
            raise PositionError(f"{where}: {good} is already on another ship (rules 4.6)")
        d["ships"][k].update(good=good, load=load)
        used[good] += load
    house = core.counts(description.get("trading_house", {}), "trading_house", GOOD_NAMES, 4)
    if sum(house.values()) > 4:
        raise PositionError(f"trading_house holds {sum(house.values())} barrels; allowed: 4")
    for g, k in house.items():
        d["trading_house"][g] = k
        used[g] += k
    for g in GOOD_NAMES:
        if used[g] > goods_total[g]:
            raise core.too_many(f"{g} barrels", used[g], goods_total[g])
        d["goods_supply"][g] = goods_total[g] - used[g]

    # -- colonists, VP chips, quarries, buildings ------------------------------------------
    colonists_total = int(COLONIST_SUPPLY[n] + COLONISTS_ON_SHIP[n])
    ship = core.count(
        description.get("colonist_ship", int(COLONISTS_ON_SHIP[n])), "colonist_ship", 0, 999
    )
    on_boards = sum(
        pd["san_juan"] + sum(pd["worked"].values()) + sum(pd["buildings"].values())
        for pd in d["players"]
    )
    if on_boards + ship > colonists_total:
        raise core.too_many("colonists", on_boards + ship, colonists_total, f"{ship} on the ship")
    d["colonist_ship"] = ship
    d["colonist_supply"] = colonists_total - on_boards - ship
    d["vp_supply"] = int(VP_CHIPS[n]) - sum(pd["vp"] for pd in d["players"])
    quarries = sum(pd["island"]["quarry"] for pd in d["players"])
    if quarries > QUARRIES[n]:
        raise core.too_many("quarries", quarries, int(QUARRIES[n]))
    d["quarry_supply"] = int(QUARRIES[n]) - quarries
    for b in BUILDINGS:
        owners = sum(b.name in pd["buildings"] for pd in d["players"])
        copies = b.copies_2p if n == 2 else b.copies
        if owners and b.expansion and not expansion:
            raise PositionError(f"{b.name} is a building of the expansion (options.expansion)")
        if owners > copies:
            raise core.too_many(f"{b.name} buildings", owners, copies)
        if owners and expansion and b.kind != 0:
            drafted(d, b.name)  # owned, so on the supply board (rules 7.1)
        if d["building_supply"][b.name]:
            d["building_supply"][b.name] = copies - owners

    # -- plantations: islands, forests, face up, discards; the rest face down --------------
    total = {k: int(PLANTATIONS_IN_BOX[i]) - (PLANTATIONS_REMOVED_2P if n == 2 else 0)
             for i, k in enumerate(PLANTATION_KINDS)}  # fmt: skip
    pool = {k: total[k] - sum(pd["island"][k] for pd in d["players"]) for k in total}
    forests = sum(pd["island"]["forest"] for pd in d["players"])
    if forests and not expansion:
        raise PositionError("players: forest tiles need options.expansion (rules 7.3)")
    discards = core.counts(description.get("discards", {}), "discards", PLANTATION_KINDS)
    forested = core.counts(description.get("forested", {}), "forested", PLANTATION_KINDS)
    if "forested" in description and sum(forested.values()) != forests:
        raise PositionError(
            f"forested: {sum(forested.values())} tiles but {forests} forests on the islands"
        )
    for k in PLANTATION_KINDS:
        pool[k] -= discards.get(k, 0) + forested.get(k, 0)
    if "forested" not in description:
        for _ in range(forests):
            k = max(PLANTATION_KINDS, key=lambda kind: pool[kind])
            forested[k] = forested.get(k, 0) + 1
            pool[k] -= 1
    for k in PLANTATION_KINDS:
        if pool[k] < 0:
            raise core.too_many(f"{k} plantations", total[k] - pool[k], total[k])
    face_up = {k: 0 for k in PLANTATION_KINDS}
    if "face_up" in description:
        for k, m in core.counts(description["face_up"], "face_up", PLANTATION_KINDS).items():
            if m > pool[k]:
                raise core.too_many(f"{k} plantations", total[k] - pool[k] + m, total[k])
            face_up[k] = m
            pool[k] -= m
        if sum(face_up.values()) > n + 1:
            raise PositionError(f"face_up: {sum(face_up.values())} tiles; allowed: {n + 1}")
    else:
        for k, m in d["face_up"].items():
            take = min(m, pool[k])
            face_up[k] += take
            pool[k] -= take
    # Face down: the start's order, less tiles from the top; tiles back in play at the bottom.
    kept = dict.fromkeys(PLANTATION_KINDS, 0)
    stack = []
    for k in d["plantation_stack"]:
        if kept[k] < pool[k]:
            stack.append(k)
            kept[k] += 1
    back = [k for k in PLANTATION_KINDS for _ in range(pool[k] - kept[k])]
    rng.shuffle(back)
    stack = back + stack
    if "face_up" not in description:
        while sum(face_up.values()) < n + 1 and stack:
            face_up[stack.pop()] += 1  # drawn from the top, as the engine draws
    d["face_up"], d["plantation_stack"] = face_up, stack
    d["discards"] = {k: discards.get(k, 0) for k in PLANTATION_KINDS}
    d["forested"] = {k: forested.get(k, 0) for k in PLANTATION_KINDS}
    if "pending" in description:
        d["pending"] = description["pending"]
    return d


def _player(d: dict[str, Any], p: int, entry: Any, expansion: bool) -> None:
    """Write one player's description into the state dict ``d`` (supplies are filled later)."""
    where = f"players[{p}]"
    core.fields(entry, PLAYER_FIELDS, where)
    pd = d["players"][p]
    if "money" in entry:
        pd["money"] = core.count(entry["money"], f"{where}.money")
    if "vp" in entry:
        pd["vp"] = core.count(entry["vp"], f"{where}.vp")
    if "goods" in entry:
        pd["goods"] = {g: 0 for g in GOOD_NAMES}
        pd["goods"].update(core.counts(entry["goods"], f"{where}.goods", GOOD_NAMES))
    if "plantations" in entry:
        tiles = ISLAND_TILES if expansion else WORKABLE_TILES
        pd["island"] = {t: 0 for t in ISLAND_TILES}
        pd["island"].update(core.counts(entry["plantations"], f"{where}.plantations", tiles, 12))
    if "worked" in entry:
        pd["worked"] = {t: 0 for t in WORKABLE_TILES}
        for t, k in core.counts(entry["worked"], f"{where}.worked", WORKABLE_TILES, 12).items():
            if k > pd["island"][t]:
                raise PositionError(
                    f"{where}.worked.{t}={k}: more colonists than {t} tiles ({pd['island'][t]})"
                )
            pd["worked"][t] = k
    if "buildings" in entry:
        owned = entry["buildings"]
        if isinstance(owned, (list, tuple)):
            owned = [core.name(b, f"{where}.buildings", BUILDING_NAMES) for b in owned]
            if len(set(owned)) != len(owned):
                raise PositionError(f"{where}.buildings: a player owns one of each kind (2.1)")
            owned = dict.fromkeys(owned, 0)
        if not isinstance(owned, dict):
            raise PositionError(f"{where}.buildings must be a list or {{name: colonists}}")
        pd["buildings"] = {}
        for name, k in owned.items():
            core.name(name, f"{where}.buildings", BUILDING_NAMES)
            circles = BUILDINGS[BUILDING_NAMES.index(name)].circles
            pd["buildings"][name] = core.count(k, f"{where}.buildings.{name}", 0, circles)
    if "san_juan" in entry:
        pd["san_juan"] = core.count(entry["san_juan"], f"{where}.san_juan")


#: The names the scenario tests use for `start` and `play`.
game = start
act = play


__all__ = [
    "FIELDS",
    "PHASE_OF_ROLE",
    "PLAYER_FIELDS",
    "PositionError",
    "act",
    "build",
    "build_dict",
    "building",
    "colonists",
    "drafted",
    "fresh",
    "game",
    "goods",
    "legal_names",
    "money",
    "play",
    "position",
    "start",
    "start_role",
    "tile",
    "vp",
]
