"""Puerto Rico positions: puzzles, endgames and the scenario tests of the rules.

``build(num_players, **description)`` sets up a position from who holds what (the game
contract's position builder, ``caylus_env.core.positions``): every component the description
does not place is in its supply (colonists, VP chips, quarries, barrels, plantations, buildings)
and every doubloon a player or a role card holds was paid by the bank, so the position keeps the
conservation invariants the loader checks (rules 1.1, 6.7); the engine then validates it in
full and runs it to its first decision. ``build_dict`` gives the same position as a state dict.
A description reaches every decision, mid-step ones included (the pending stack, the phase and
the cursors the engine keeps, which default to the engine's own for that stack), and
``describe(position)`` is the builder's inverse: the description of any position.

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

import copy
import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from caylus_env.core import positions as core
from caylus_env.core.positions import PositionError, legal_names, play
from caylus_env.puerto_rico import GAME
from caylus_env.puerto_rico.engine import Game, GameConfig, dict_to_state, layout
from caylus_env.puerto_rico.engine.buildings import BUILDING_NAMES, BUILDINGS
from caylus_env.puerto_rico.engine.constants import (
    COLONIST_SUPPLY,
    COLONISTS_ON_SHIP,
    DEFAULT_MAX_DECISIONS,
    DRAFT_PICKS,
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
from caylus_env.puerto_rico.engine.roles.captain import STOREHOUSE_BARRELS, WINDROSE_BARRELS
from caylus_env.puerto_rico.engine.roles.mayor import STEP_FIRST_PLACEMENT, STEP_PRIVILEGE
from caylus_env.puerto_rico.engine.setup import RNG_MODULUS, rng_read, rng_write
from caylus_env.puerto_rico.engine.state_dict import BM_KINDS

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
    "forested", "drafted", "end_triggered", "pending", "phase", "decisions", "step", "idle",
    "guest_step", "doubled", "library_used", "produced", "black_market", "plantation_stack",
    "rng",
)  # fmt: skip
PLAYER_FIELDS = (
    "money", "vp", "goods", "plantations", "worked", "buildings", "san_juan", "shipped",
    "wharf_used", "small_wharf_used", "kept", "singles",
)  # fmt: skip
PLANTATION_KINDS = TILE_NAMES[:NUM_PLANTATION_KINDS]
ISLAND_TILES = (*PLANTATION_KINDS, "quarry", "forest")
WORKABLE_TILES = (*PLANTATION_KINDS, "quarry")
#: The phases of a role's card: the captain's loading, then its storage (rules 4.6, 4.7).
PHASES_OF_ROLE = {role: (phase,) for role, phase in PHASE_OF_ROLE.items()}
PHASES_OF_ROLE["captain"] = ("captain", "captain_storage")
#: The phases with no role being carried out: picking one, the draft (rules 7.1), the end.
ROLELESS_PHASES = ("role_selection", "draft", "game_over")
#: Phases whose start asks each owner's guest-house turn (rules 7.4): all a role has but the
#: mayor's.
GUEST_PHASES = ("settler", "builder", "craftsman", "trader", "captain", "captain_storage")
#: The craftsman's driver step that produces and asks the extra barrel (rules 4.4, 6.1); the
#: library's second barrel is the next one (7.2).
CRAFT_PRIVILEGE_DRIVER_STEP = 0
#: The most barrels of one good a player keeps singly in storage: the windrose's one and the
#: storehouse's three (rules 4.7, 7.2).
MAX_SINGLES = WINDROSE_BARRELS + STOREHOUSE_BARRELS
#: The generator state's range (``setup``'s Park-Miller generator, rules 6.8).
RNG_RANGE = (1, RNG_MODULUS - 1)
#: ``build``'s options when a description gives none (``position``: a random draft).
DEFAULT_OPTIONS = {
    "max_decisions": DEFAULT_MAX_DECISIONS,
    "expansion": False,
    "draft": "random",
    "library_limit": False,
}


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
      (``{name: colonists}`` or a list of names, unoccupied) and ``san_juan`` (colonists);
      the captain phase's marks ``shipped``, ``wharf_used`` and ``small_wharf_used``
      (true or false, default false: he has shipped, used his wharf, his small wharf this
      phase, rules 4.6, 2.4, 7.2), and the storage's ``kept`` (goods his warehouses keep
      whole) and ``singles`` (``{good: barrels}`` kept singly so far, at most 4 each), while
      his storage is asked (rules 4.7).
    - ``governor`` (seat, default 0), ``round`` (default 1), ``end_triggered`` (default False),
      ``decisions`` (decisions taken so far, at most ``options.max_decisions``; default 0).
    - ``role``: the role card whose phase is played now (``settler`` .. ``captain``), picked by
      ``picker`` (default: the seat whose pick it was); ``picked``: the role cards picked
      earlier this round. Without ``role``, the next player picks a role.
    - ``phase``: the phase of the state dict's names; with a ``role`` its phase (the default)
      or, for the captain, ``captain_storage`` (his storage, rules 4.7); without one
      ``role_selection`` (the default), ``draft`` (the expansion's draft by the players, rules
      7.1: the ``drafted`` kinds are its picks so far) or ``game_over``.
    - ``role_doubloons``: ``{role: doubloons}`` on role cards not yet picked.
    - ``ships``: one per cargo ship, smallest first: ``None`` (empty) or ``(good, barrels)``;
      ``trading_house``: ``{good: barrels}``; ``colonist_ship``: colonists on the colonist ship
      (default: the starting number).
    - ``face_up``, ``discards``: ``{plantation kind: tiles}`` (default face up: those of the
      start, then drawn at random); ``forested`` (expansion): ``{kind: tiles}`` the forests
      on the islands were made of (default: drawn from the most plentiful kinds);
      ``drafted`` (expansion): the violet buildings on the supply board besides the owned
      ones; given, they replace the seed's random draft (default: the seed's draft).
    - ``plantation_stack``: the face-down plantations, bottom first (the next draw last), as
      the state dict writes them: exactly the plantations of the game not on an island, face
      up, discarded or forested (default: the start's order less the tiles now in play, and
      face up then defaults to the start's tiles, without draws). It is the game's hidden
      information (rules 6.8). ``rng``: the state of the engine's generator, which reshuffles
      the discards (an int in 1..2**31-2; default: the seed's).
    - ``pending``: the decision stack, bottom first, as the state dict writes it (default:
      none; the engine asks the natural next decision of the phase). The phase's cursors
      default to those the engine has when it asks that stack: ``step`` (turns of the phase
      begun, counted from the picker; the captain's from 0 again each lap), ``idle`` (the
      captain's turns without a loading: 0, and in his storage ``num_players``; while nobody
      has shipped in the phase, every turn taken so far) and ``guest_step`` (the guest-house
      turns at the phase's start taken; ``num_players`` once its turns have begun, and in the
      storage ``num_players + 1`` while a guest turn before a player's storage is asked,
      rules 7.4). Give them to set up a turn the defaults do not reach, such as a loading
      turn after another player was passed over (``idle``).
    - ``doubled`` (the picker's library doubled a privilege this phase), ``library_used``
      (a library doubled one this round; the 2-player limit, rules 7.2): true or false,
      default false; ``produced``: the goods the craftsman received this phase (default: those
      of a pending ``craft_privilege``, else none, rules 4.4); ``black_market``:
      ``{"returned": [colonist, good, vp], "short": doubloons}`` while a black-market build
      is asked (rules 7.2; default none).

    Filled from the component totals (rules 1.1-1.3): ``colonist_supply``, ``vp_supply``
    (negative once VP are owed on paper, rules 4.6), ``quarry_supply``, ``goods_supply``,
    ``building_supply``, the face-down ``plantation_stack`` (the start's order, less the tiles
    now in play, taken from the top; tiles back from the start's islands go to the bottom,
    shuffled by ``seed``) and ``bank_paid``. An empty description is the start of a game;
    ``describe`` gives the description of any position.
    The dict is not yet validated by the engine: ``start`` does that.

    Raises:
        PositionError: an unknown field, name or seat, a value out of its domain, or more
            components than the game has, naming the field and what is allowed.
    """
    n, options = core.opening(
        num_players,
        description,
        FIELDS,
        GAME,
        ("expansion", "draft", "library_limit", "max_decisions"),
    )
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
    if "drafted" in description and expansion:
        for b in BUILDINGS:
            if b.kind != 0:
                d["building_supply"][b.name] = 0  # the seed's draft, replaced
    for name in drafts:
        drafted(d, name)

    # -- the clock: governor, round, the role being played ---------------------------------
    d["governor"] = core.seat(description.get("governor", 0), "governor", n)
    d["round"] = core.count(description.get("round", 1), "round", 1, 9999)
    d["decisions"] = core.count(
        description.get("decisions", 0),
        "decisions (at most options.max_decisions)",
        0,
        d["options"]["max_decisions"],
    )
    d["end_triggered"] = _flag(description, "end_triggered")
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
    d["pending"] = []
    if role is None:
        if "picker" in description:
            raise PositionError("picker: only with a role whose phase is played")
        d["picker"] = None
        phases = ROLELESS_PHASES if expansion else ("role_selection", "game_over")
        d["phase"] = core.name(
            description.get("phase", "role_selection"), "phase (without a role)", phases
        )
    else:
        default = (d["governor"] + len(picked) - 1) % n
        d["picker"] = core.seat(description.get("picker", default), "picker", n)
        d["phase"] = core.name(
            description.get("phase", PHASE_OF_ROLE[role]),
            f"phase (role {role})",
            PHASES_OF_ROLE[role],
        )
    doubloons = core.counts(description.get("role_doubloons", {}), "role_doubloons", in_game)
    for r, k in doubloons.items():
        if k and r in picked:
            raise PositionError(f"role_doubloons.{r}: a picked card's doubloons went to its picker")
        d["roles"][r]["doubloons"] = k
        gain += k
    d["bank_paid"] = gain
    d["rng"] = _rng(description["rng"]) if "rng" in description else d["rng"]

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

    _plantations(d, description, n, expansion, rng)
    # -- the decision pending and the phase's cursors ----------------------------------------
    if "pending" in description:
        d["pending"] = description["pending"]
    _progress(d, description, n)
    return d


#: ``start(build_dict(num_players, **description))`` (`caylus_env.core.positions.builder`).
build = core.builder(build_dict, start)


def _plantations(
    d: dict[str, Any], description: dict[str, Any], n: int, expansion: bool, rng: random.Random
) -> None:
    """The plantations: islands (placed already), forests, face up, discards; the rest face
    down, in the given order or the start's (rules 4.1, 6.8, 7.3)."""
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
    if "plantation_stack" in description:
        stack = _stack(description["plantation_stack"], pool, total)
    else:
        # The start's order, less tiles from the top; tiles back in play at the bottom.
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


def _stack(v: Any, pool: dict[str, int], total: dict[str, int]) -> list[str]:
    """A given face-down stack: exactly the plantations left for it (``pool``)."""
    where = "plantation_stack"
    if not isinstance(v, (list, tuple)):
        raise PositionError(f"{where} must be a list of plantation kinds, got {v!r}")
    stack = [core.name(k, f"{where}[{i}]", PLANTATION_KINDS) for i, k in enumerate(v)]
    for k in PLANTATION_KINDS:
        if stack.count(k) != pool[k]:
            raise PositionError(
                f"{where} holds {stack.count(k)} {k} plantations; allowed: {pool[k]} (the "
                f"game's {total[k]} less those on the islands, face up, discarded or forested)"
            )
    return stack


def _progress(d: dict[str, Any], description: dict[str, Any], n: int) -> None:
    """The phase's cursors and the privilege's bookkeeping; each defaults to what the engine
    keeps when it asks the pending decision (``_cursors``)."""
    defaults = dict(zip(("step", "idle", "guest_step"), _cursors(d, n), strict=True))
    highest = {"step": max(n + 2, DRAFT_PICKS), "idle": n, "guest_step": n + 1}
    for key, default in defaults.items():
        given = key in description
        d[key] = core.count(description[key], key, 0, highest[key]) if given else default
    d["doubled"] = _flag(description, "doubled")
    d["library_used"] = _flag(description, "library_used")
    crafting = [
        e for e in d["pending"] if isinstance(e, dict) and e.get("kind") == "craft_privilege"
    ]
    produced = crafting[0].get("produced", []) if crafting else []
    d["produced"] = _goods(description.get("produced", produced), "produced")
    bm = description.get("black_market", {})
    core.fields(bm, ("returned", "short"), "black_market")
    returned = bm.get("returned", [])
    if not isinstance(returned, (list, tuple)) or len(set(returned)) != len(returned):
        raise PositionError(f"black_market.returned must be a list of distinct {list(BM_KINDS)}")
    returned = {core.name(k, "black_market.returned", BM_KINDS) for k in returned}
    d["black_market"] = {
        "returned": [k for k in BM_KINDS if k in returned],
        "short": core.count(bm.get("short", 0), "black_market.short", 0, len(BM_KINDS)),
    }


def _cursors(d: dict[str, Any], n: int) -> tuple[int, int, int]:
    """``(step, idle, guest_step)`` as the phase's driver leaves them when it asks the bottom
    decision of ``d``'s pending stack, its turn's (``roles/``): a phase's guest-house turns
    first, each owner in turn from the picker (rules 7.4), then its turns from the picker; the
    captain's idle turns while nobody has shipped (rules 4.6). A stack the engine could not
    have built gets cursors the engine's validation then refuses."""
    phase, picker, pending = d["phase"], d["picker"], d["pending"]
    storage = n if phase == "captain_storage" else 0
    if phase == "draft":
        board = [b.name for b in BUILDINGS if b.kind != 0 and d["building_supply"][b.name] > 0]
        return len(board), 0, 0
    if picker is None or not isinstance(pending, list) or not pending:
        return 0, storage, 0
    bottom = pending[0]
    seat = bottom.get("player") if isinstance(bottom, dict) else None
    if not isinstance(seat, int) or isinstance(seat, bool):
        return 0, storage, 0
    kind = bottom.get("kind")
    turn = (seat - picker) % n  # seats after the picker
    guest = n if phase in GUEST_PHASES else 0
    if kind == "guest_house" and len(pending) == 1 and phase in GUEST_PHASES:
        return 0, storage, turn + 1  # a guest-house turn at the phase's start
    # A driver counts its step as it asks that step's decision: ``step`` is then one more.
    if phase == "mayor":
        k = STEP_PRIVILEGE if kind == "mayor_privilege" else STEP_FIRST_PLACEMENT + turn
        return k + 1, 0, 0
    if phase == "settler":
        extra = kind == "settle" and bottom.get("library_extra") == 1
        return (n if extra else turn) + 1, 0, guest  # the library's tile after every seat's
    if phase == "craftsman":
        return CRAFT_PRIVILEGE_DRIVER_STEP + 1, 0, guest
    if phase == "captain":
        shipped = any(pd["shipped"] for pd in d["players"]) or kind == "small_wharf"
        return (turn + 1) % n, (0 if shipped else turn), guest  # laps from 0 again
    return turn + 1, storage, guest


def _flag(description: dict[str, Any], key: str, where: str | None = None) -> bool:
    v = description.get(key, False)
    if not isinstance(v, bool):
        raise PositionError(f"{where or key} must be true or false, got {v!r}")
    return v


def _goods(v: Any, where: str) -> list[str]:
    """A list of distinct goods, in the goods' order."""
    if (
        not isinstance(v, (list, tuple))
        or not all(isinstance(g, str) for g in v)
        or len(set(v)) != len(v)
    ):
        raise PositionError(f"{where} must be a list of distinct goods, got {v!r}")
    named = {core.name(g, where, GOOD_NAMES) for g in v}
    return [g for g in GOOD_NAMES if g in named]


def _rng(v: Any) -> list[int]:
    """The generator state as the state dict stores it (``setup.rng_write``)."""
    x = core.count(v, "rng", *RNG_RANGE)
    s = np.zeros(layout.STATE_SIZE, layout.STATE_DTYPE)
    rng_write(s, x)
    return [int(s[layout.RNG]), int(s[layout.RNG + 1])]


def _rng_value(pair: list[int]) -> int:
    s = np.zeros(layout.STATE_SIZE, layout.STATE_DTYPE)
    s[layout.RNG], s[layout.RNG + 1] = pair
    return int(rng_read(s))


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
    for key in ("shipped", "wharf_used", "small_wharf_used"):
        pd[key] = _flag(entry, key, f"{where}.{key}")
    pd["kept"] = _goods(entry.get("kept", []), f"{where}.kept")
    singles = core.counts(entry.get("singles", {}), f"{where}.singles", GOOD_NAMES, MAX_SINGLES)
    pd["singles"] = {g: singles.get(g, 0) for g in GOOD_NAMES}


# -- describe: the builder's inverse -----------------------------------------------------------


def describe(position: Game | Mapping[str, Any]) -> dict[str, Any]:
    """The description of a position (a ``Game`` or a state dict) that ``build_dict`` turns
    back into that very state dict: who holds what, the role and phase being played, the
    pending decisions as the state dict writes them, the phase's cursors and the hidden
    ``plantation_stack`` and ``rng``. What equals the builder's default is left out (each
    field is tried against ``build_dict``, so the description follows its defaults).

    Raises:
        InvalidStateError: for a state dict the engine's loader refuses (naming its field).
        PositionError: for a position the description's fields cannot express (naming the
            field that differs; every position the engine reaches can be described).
    """
    d = position.state_dict() if isinstance(position, Game) else copy.deepcopy(dict(position))
    dict_to_state(d)  # validated as the engine loads it
    n = len(d["players"])
    full = _full_description(d)
    back = build_dict(n, **full)
    if back != d:
        wrong = next(k for k in d if back.get(k) != d[k])
        raise PositionError(f"describe: the description cannot give this position's {wrong}")
    for key in _OPTIONAL:
        if key in full:
            trial = {k: v for k, v in full.items() if k != key}
            if _builds(n, trial, d):
                full = trial
    for p, entry in list(full.get("players", {}).items()):
        for key in ("money", "plantations"):
            if key in entry:
                trial_entry = {k: v for k, v in entry.items() if k != key}
                trial = {**full, "players": {**full["players"], p: trial_entry}}
                if _builds(n, trial, d):
                    full, entry = trial, trial_entry
        if not entry:
            full["players"] = {q: e for q, e in full["players"].items() if q != p}
    if full.get("players") == {}:
        del full["players"]
    return full


def _builds(n: int, description: dict[str, Any], d: dict[str, Any]) -> bool:
    """Whether ``description`` builds exactly ``d`` (a description it refuses does not)."""
    try:
        return build_dict(n, **description) == d
    except PositionError:
        return False


#: ``describe`` tries leaving these out, in this order: their defaults depend on the position.
_OPTIONAL = (
    "picker", "step", "idle", "guest_step", "produced", "rng", "plantation_stack",
    "face_up", "forested", "drafted", "colonist_ship", "phase",
)  # fmt: skip


def _full_description(d: dict[str, Any]) -> dict[str, Any]:
    """Every field of ``d``'s description, constant defaults left out."""
    phase = d["phase"]
    picked = [r for r, v in d["roles"].items() if v["picked"]]
    role = None
    if d["picker"] is not None:
        role = next(r for r, phases in PHASES_OF_ROLE.items() if phase in phases)
    out: dict[str, Any] = {}
    options = {k: v for k, v in d["options"].items() if k in DEFAULT_OPTIONS}
    options = {k: v for k, v in options.items() if DEFAULT_OPTIONS[k] != v}
    expansion = d["options"]["expansion"]
    if options:
        out["options"] = options
    players = {p: _player_description(pd) for p, pd in enumerate(d["players"])}
    out["players"] = {p: e for p, e in players.items() if e}
    constants = {
        "governor": (d["governor"], 0),
        "round": (d["round"], 1),
        "decisions": (d["decisions"], 0),
        "end_triggered": (d["end_triggered"], False),
        "doubled": (d["doubled"], False),
        "library_used": (d["library_used"], False),
    }
    out.update({k: v for k, (v, default) in constants.items() if v != default})
    if role is not None:
        out["role"] = role
        out["picker"] = d["picker"]
        picked.remove(role)
    if picked:
        out["picked"] = picked
    out["phase"] = phase
    doubloons = {r: v["doubloons"] for r, v in d["roles"].items() if v["doubloons"]}
    if doubloons:
        out["role_doubloons"] = doubloons
    ships = [None if s["good"] is None else (s["good"], s["load"]) for s in d["ships"]]
    while ships and ships[-1] is None:
        ships.pop()
    if ships:
        out["ships"] = ships
    for key in ("trading_house", "face_up", "discards", "forested"):
        held = {k: v for k, v in d[key].items() if v}
        if held or key == "face_up":
            out[key] = held
    out["colonist_ship"] = d["colonist_ship"]
    if expansion:
        owned = {b for pd in d["players"] for b in pd["buildings"]}
        out["drafted"] = [
            b.name
            for b in BUILDINGS
            if b.kind != 0 and d["building_supply"][b.name] > 0 and b.name not in owned
        ]
    out["plantation_stack"] = list(d["plantation_stack"])
    out["rng"] = _rng_value(d["rng"])
    if d["pending"]:
        out["pending"] = copy.deepcopy(d["pending"])
    out.update(step=d["step"], idle=d["idle"], guest_step=d["guest_step"])
    out["produced"] = list(d["produced"])
    bm = d["black_market"]
    if bm["returned"] or bm["short"]:
        out["black_market"] = {"returned": list(bm["returned"]), "short": bm["short"]}
    return out


def _player_description(pd: dict[str, Any]) -> dict[str, Any]:
    """One player's entry: what he holds, the phase's marks; zeros left out."""
    entry: dict[str, Any] = {"money": pd["money"]}
    if pd["vp"]:
        entry["vp"] = pd["vp"]
    for key, field in (("goods", "goods"), ("plantations", "island"), ("worked", "worked")):
        held = {k: v for k, v in pd[field].items() if v}
        if held or key == "plantations":
            entry[key] = held
    if pd["buildings"]:
        entry["buildings"] = dict(pd["buildings"])
    if pd["san_juan"]:
        entry["san_juan"] = pd["san_juan"]
    for key in ("shipped", "wharf_used", "small_wharf_used"):
        if pd[key]:
            entry[key] = True
    if pd["kept"]:
        entry["kept"] = list(pd["kept"])
    singles = {g: k for g, k in pd["singles"].items() if k}
    if singles:
        entry["singles"] = singles
    return entry


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
    "describe",
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
