"""Caylus positions: puzzles, endgames and the scenario tests of the rules (boardgame.io's
"override setup" idea).

``build(num_players, **description)`` sets up a position from who holds what (the game
contract's position builder, ``caylus_env.core.positions``): the buildings on the road and
the houses in the castle are counted with their owners, every tile not on the road is in the
stock, and workers placed are counted out of their owners' six; the engine then validates it
in full (``caylus_env.caylus.engine.validate``: a position that breaks a rule is refused
naming the field) and runs it to its first decision from the phase the description names.
``build_dict`` gives the same position as a state dict.

``describe(position)`` is the inverse: the description of a ``Game`` or a state dict that
``build_dict`` turns back into that very state dict, the decision pending mid-step included
(``activating``, ``scoring``, ``pending`` and the cursors the engine keeps), so a position
reached in play can be read, edited as a description and built again.

For finer edits, start from ``position(...)``, edit it with the helpers below (each keeps the
position consistent: a building taken from the stock, a house counted with its owner, a
worker counted out of its owner's six), then ``start(d)``. ``play(game, *names)`` applies
actions by their stable names; ``legal_names(game)`` lists the legal ones.

Example (an endgame puzzle: the last turn's placement, with a building to choose):
    >>> from caylus_env.caylus import positions as P
    >>> g = P.build(
    ...     2,
    ...     turn=12,
    ...     provost=22,
    ...     bailiff=22,
    ...     players=[
    ...         {"money": 9, "stone": 2, "gold": 1, "prestige": 40, "buildings": ["quarry"]},
    ...         {"money": 4, "cloth": 3, "prestige": 44, "buildings": ["mason", "tailor"]},
    ...     ],
    ...     castle={"dungeon": [3, 3], "walls": [2, 4]},
    ...     scored=["dungeon", "walls"],
    ... )
    >>> P.space(g.state_dict(), 11)["building"], P.player(g, 1)["houses"]
    ('tailor', 9)
    >>> "place:road:11" in P.legal_names(g)
    True
    >>> P.play(g, "place:road:11")  # a worker on the opponent's tailor
    >>> P.space(g.state_dict(), 11)["worker"], P.player(g, 1)["prestige"]
    (0, 45)
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from caylus_env.caylus import GAME
from caylus_env.caylus.engine import Game, GameConfig, dict_to_state, state_to_dict
from caylus_env.caylus.engine.board import FIXED_BUILDINGS, ROAD_LEN, SECTION_SIZE
from caylus_env.caylus.engine.buildings import (
    B_KIND,
    BUILDING_NAMES,
    BUILDINGS,
    NEUTRAL_TILES,
    BuildingKind,
)
from caylus_env.caylus.engine.constants import (
    FAVOR_ROW_NAMES,
    NUM_WORKERS,
    PHASE_NAMES,
    RESOURCE_NAMES,
    SECTION_NAMES,
    TURN_CAP,
)
from caylus_env.caylus.engine.decisions import SCHEMA
from caylus_env.caylus.engine.invariants import MAX_CURSOR
from caylus_env.caylus.engine.phases.end_of_turn import STEP_FIRST_SECTION
from caylus_env.caylus.engine.validate import MAX_BATCHES
from caylus_env.core import positions as core
from caylus_env.core.positions import PositionError, legal_names, play

NEUTRAL_ORDER = [BUILDINGS[b].name for b in NEUTRAL_TILES]  # farm, forest, sawmill, quarry, ...


def position(num_players: int = 4, phase: str = "placement", **options: Any) -> dict[str, Any]:
    """A clean position of turn 1 at the start of ``phase``, nothing pending.

    Neutral tiles stand on spaces 1-6 in table order (farm_neutral on 1 ...
    marketplace_neutral on 6), turn order is 0, 1, 2, ...; every player has
    5 deniers, 1 wood + 2 food, 0 prestige, no worker out.
    """
    d = Game(GameConfig(num_players=num_players, **options), seed=0).state_dict()
    d = copy.deepcopy(d)
    for k, name in enumerate(NEUTRAL_ORDER):
        d["road"][k]["building"] = name
    d["turn_order"] = list(range(num_players))
    d["passing_order"] = []
    d["phase"] = phase
    d["cursor"] = 0
    d["pending"] = []
    for p in d["players"]:
        p.update(money=5, prestige=0, workers_out=0, passed=False, batches=0, rows_used=[])
        p["cubes"] = {"food": 2, "wood": 1, "stone": 0, "cloth": 0, "gold": 0}
    return d


def set_player(d: dict[str, Any], p: int, **fields: Any) -> None:
    """Set fields of player ``p``; ``food=3`` etc. set cubes."""
    for k, v in fields.items():
        if k in d["players"][p]["cubes"]:
            d["players"][p]["cubes"][k] = v
        else:
            d["players"][p][k] = v


def space(d: dict[str, Any], k: int) -> dict[str, Any]:
    """The road entry of space ``k`` (1-28)."""
    return d["road"][k - 1]


def build_on(d: dict[str, Any], k: int, building: str, owner: int | None) -> None:
    """Put ``building`` on road space ``k`` (taking it from the stock if it is a tile)."""
    space(d, k)["building"] = building
    space(d, k)["owner"] = owner
    if d["stock"].get(building, 0) > 0:
        d["stock"][building] -= 1
    if owner is not None:
        d["players"][owner]["houses"] += 1


def set_castle(d: dict[str, Any], section: str, houses: list[int]) -> None:
    """Put ``houses[p]`` houses of each player in castle ``section``; each player's house
    count (buildings + castle houses) follows, so the position stays consistent."""
    old = d["castle"][section]
    for p, n in enumerate(houses):
        d["players"][p]["houses"] += n - old[p]
    d["castle"][section] = list(houses)


def put_worker(d: dict[str, Any], p: int, where: int | str) -> None:
    """A worker of ``p`` on road space ``where`` or on a special/castle target name."""
    d["players"][p]["workers_out"] += 1
    if isinstance(where, int):
        space(d, where)["worker"] = p
    elif where in d["special_workers"]:
        d["special_workers"][where] = p
    elif where == "castle":
        d["castle_workers"].append(p)
    elif where == "stables":
        d["stables"][d["stables"].index(None)] = p
    elif where in ("inn_left", "inn_right"):
        d["inn"][where[4:]] = p
    else:
        raise ValueError(
            f"unknown worker target {where!r}; allowed: a road space 1-28, "
            f"{', '.join(d['special_workers'])}, castle, stables, inn_left, inn_right"
        )


def all_passed(d: dict[str, Any], order: list[int] | None = None) -> None:
    """Mark every player as passed (phase 2 over), in ``order`` (default turn order)."""
    order = list(d["turn_order"]) if order is None else order
    d["passing_order"] = order
    for p in order:
        d["players"][p]["passed"] = True


#: The fields of ``build``'s description, and of each player's entry in it.
FIELDS = (
    "options", "turn", "phase", "cursor", "provost", "bailiff", "turn_order", "passed",
    "scored", "players", "road", "castle", "workers", "lawyers", "activating", "scoring",
    "pending",
)  # fmt: skip
PLAYER_FIELDS = (
    "money", "prestige", *RESOURCE_NAMES, "favors", "rows_used", "batches", "buildings",
)  # fmt: skip
#: Where a worker can stand besides a road space (``workers``).
WORKER_TARGETS = ("gate", "trading_post", "merchants_guild", "joust_field", "castle", "stables",
                  "inn_left", "inn_right")  # fmt: skip
#: Buildings whose tiles come from the stock (rules 3.2): wood, stone and prestige buildings.
STOCKED = tuple(
    b.name
    for i, b in enumerate(BUILDINGS)
    if B_KIND[i] in (BuildingKind.WOOD, BuildingKind.STONE, BuildingKind.PRESTIGE)
)
FIRST_FREE_SPACE = 9  # the first road space with no building printed or set at the start
#: The procedures of the decision stack (``decisions.SCHEMA``): ``activating`` and ``scoring``
#: put them below the pending decisions, as the engine does.
PROCEDURES = tuple(e.name for e in SCHEMA if not e.is_decision)
NEUTRAL_NAMES = frozenset(NEUTRAL_ORDER)


def build_dict(num_players: int | None = None, **description: Any) -> dict[str, Any]:
    """The state dict of a position given by who holds what; every tile not on the road is
    in the stock, every house and worker is counted with its owner.

    Every field is optional; what is left out is as in ``position``: turn 1, the start of the
    placement phase, turn order 0, 1, 2 ..., the neutral tiles on spaces 1-6 in table order,
    every player with 5 deniers, 2 food and 1 wood:

    - ``options``: the game's options (``simplified_favors``, ``lawyer_prestige``,
      ``jeweller``, ``house_cap``).
    - ``turn`` (1-30), ``phase`` (``income``, ``placement``, ``special_buildings``,
      ``provost``, ``activation``, ``castle``, ``end_of_turn``, ``game_over``: a finished
      game, its final scoring done), ``cursor`` (where the phase
      is, as the engine keeps it: in placement the turn-order position of the player to
      place, in special_buildings the next special building's step (1 gate ... 6 inn: the
      one asking now), in provost the passing-order position of the player asked, plus 1,
      in activation the road space after the one resolved, in castle the castle worker
      asked, plus 1 (6 once the best builder's favor is granted), in end_of_turn the step
      after the one running (1 the bailiff moved, 2-4 a section scored); default 0, or
      what ``activating`` / ``scoring`` fix), ``provost`` and ``bailiff`` (road spaces),
      ``turn_order`` (the seats, first player first), ``passed`` (the seats that passed, in
      passing order), ``scored`` (the castle sections already scored).
    - ``players``: a list (seat 0 first) or ``{seat: entry}``; an entry's fields, each
      optional: ``money``, ``prestige``, the cubes ``food``, ``wood``, ``stone``, ``cloth``,
      ``gold``, ``favors`` (``{row: column}`` over ``prestige``, ``deniers``, ``resources``,
      ``buildings``), ``rows_used`` (the favor rows the player used in this phase, rules
      5.3), ``batches`` (the batches he gave the castle this turn, phase 6) and
      ``buildings`` (the names of the buildings the player owns, built on the next empty
      road spaces in order).
    - ``road``: ``{space: name}`` for a building nobody owns or ``{space: (name, seat)}``, on
      spaces 1-28 (before the players' ``buildings`` are built).
    - ``castle``: ``{section: [houses per seat]}`` over ``dungeon``, ``walls``, ``towers``.
    - ``workers``: ``{where: seat}`` with ``where`` a road space or a special building
      (``gate``, ``trading_post``, ``merchants_guild``, ``joust_field``, ``inn_left``,
      ``inn_right``), or ``{"castle" | "stables": [seats in order]}``.
    - ``lawyers``: ``{space: seat}``, a lawyer's transformation the seat paid for on a
      road space whose worker is still there (rules 8.6: the residence replaces the
      building once that worker is done, in phase 5).
    - ``pending``: the decisions asked now, bottom first, each ``{"kind": name, "player":
      seat, ...}`` with its arguments named as the state dict writes them (``kind`` one of
      ``engine.DECISION_NAMES``; default: none, the engine runs the phase to its first
      decision). The top one is asked now; those below wait for it (a production choice
      below the owner's cube, a favor row with favors left below the column just chosen).
      The state dict's own form, procedures included, is accepted too when neither
      ``activating`` nor ``scoring`` is given.
    - ``activating`` (phase activation): the road space whose worker's building is being
      resolved (rules 4 phase 5); the worker goes home once the ``pending`` decisions it
      asked are answered. The cursor is the next space.
    - ``scoring`` (phase end_of_turn): the castle section being scored (rules 4 phase 7);
      the ``pending`` decisions are the favors of the player just scored, and the players
      after him in turn order are scored next. The cursor is the step after it.

    Filled in: the ``stock`` (each stocked tile's copies less those on the road), each
    player's ``houses`` (buildings owned, houses in the castle and residences a lawyer paid
    for on a neutral building), ``workers_out`` and ``passed``, and the stack's procedures
    below ``pending`` (``activating``, ``scoring``). The dict is not yet validated by the
    engine: ``start`` does that.

    Raises:
        PositionError: an unknown field, name or seat, a value out of its domain, or more
            components than the game has, naming the field and what is allowed.
    """
    n, options = core.opening(
        num_players, description, FIELDS, GAME, tuple(GameConfig.option_defaults())
    )
    phases = [p for p in PHASE_NAMES if p]
    phase = core.name(description.get("phase", "placement"), "phase", phases)
    try:
        d = position(n, phase, **options)
    except ValueError as e:
        raise PositionError(f"options: {e}") from None
    d["turn"] = core.count(description.get("turn", 1), "turn", 1, TURN_CAP)
    for key in ("provost", "bailiff"):
        if key in description:
            d[key] = core.count(description[key], key, 1, 28)
    if "turn_order" in description:
        order = description["turn_order"]
        if not isinstance(order, (list, tuple)) or sorted(
            core.seat(p, "turn_order", n) for p in order
        ) != list(range(n)):
            raise PositionError(f"turn_order={order!r} must list each seat 0..{n - 1} once")
        d["turn_order"] = list(order)
    passed = description.get("passed", [])
    if not isinstance(passed, (list, tuple)):
        raise PositionError(f"passed={passed!r} must list distinct seats in passing order")
    passed = [core.seat(p, "passed", n) for p in passed]
    if len(set(passed)) != len(passed):
        raise PositionError(f"passed={passed!r} must list distinct seats in passing order")
    all_passed(d, passed)
    scored = description.get("scored", [])
    if not isinstance(scored, (list, tuple)):
        raise PositionError(f"scored must be a list of castle sections, got {scored!r}")
    for section in scored:
        d["scored"][core.name(section, "scored", SECTION_NAMES)] = True

    for p, entry in core.seats(description.get("players", {}), "players", n).items():
        _player(d, p, entry)
    road = description.get("road", {})
    if not isinstance(road, dict):
        raise PositionError(f"road must be a dict {{space: name or (name, seat)}}, got {road!r}")
    for k, v in road.items():
        where = f"road[{k!r}]"
        k = core.count(k, "road space", 1, 28)
        name, owner = (v, None) if not isinstance(v, (list, tuple)) else _pair(v, where)
        core.name(name, where, BUILDING_NAMES)
        if k in FIXED_BUILDINGS:
            raise PositionError(f"{where}: space {k} holds its printed building (rules 2.2)")
        _place(d, k, name, None if owner is None else core.seat(owner, f"{where} owner", n))
    for p, entry in core.seats(description.get("players", {}), "players", n).items():
        for name in entry.get("buildings", ()):
            core.name(name, f"players[{p}].buildings", BUILDING_NAMES)
            free = next(
                (k for k in range(FIRST_FREE_SPACE, 29) if space(d, k)["building"] is None), None
            )
            if free is None:
                raise PositionError(f"players[{p}].buildings: no empty road space left for {name}")
            _place(d, free, name, p)
    for b in STOCKED:
        on_road = sum(r["building"] == b for r in d["road"])
        # The start's stock holds every copy of the game (rules 3.2), the optional
        # Jeweller's with its option (8.1).
        copies = d["stock"][b]
        if on_road > copies:
            raise core.too_many(f"{b} tiles", on_road, copies, "on the road")
        d["stock"][b] = copies - on_road

    castle = description.get("castle", {})
    if not isinstance(castle, dict):
        raise PositionError(f"castle must be a dict {{section: [houses per seat]}}, got {castle!r}")
    for section, houses in castle.items():
        i = SECTION_NAMES.index(core.name(section, "castle", SECTION_NAMES))
        where = f"castle.{section}"
        if not isinstance(houses, (list, tuple)) or len(houses) != n:
            raise PositionError(f"{where} must list the houses of each of the {n} seats")
        houses = [core.count(h, f"{where}[{p}]", 0, 14) for p, h in enumerate(houses)]
        if sum(houses) > SECTION_SIZE[i]:
            raise core.too_many(f"{where} houses", sum(houses), int(SECTION_SIZE[i]), "spaces")
        set_castle(d, section, houses)

    workers = description.get("workers", {})
    if not isinstance(workers, dict):
        raise PositionError(f"workers must be a dict {{where: seat or [seats]}}, got {workers!r}")
    for where, who in workers.items():
        what = f"workers[{where!r}]"
        if isinstance(where, str):
            core.name(where, "workers", WORKER_TARGETS)
        else:
            where = core.count(where, "workers road space", 1, 28)
            if space(d, where)["building"] is None:
                raise PositionError(f"{what}: no building on road space {where}")
        many = where in ("castle", "stables")
        if many != isinstance(who, (list, tuple)):
            form = "a list of seats in order" if many else "one seat"
            raise PositionError(f"{what} must be {form}, got {who!r}")
        for p in who if many else [who]:
            put_worker(d, core.seat(p, what, n), where)
    for p, pd in enumerate(d["players"]):
        if pd["workers_out"] > NUM_WORKERS:
            raise core.too_many(f"players[{p}] workers", pd["workers_out"], NUM_WORKERS)
    _lawyers(d, description.get("lawyers", {}), n)
    _pending(d, description, phase)
    return d


def describe(game_or_state: Game | Mapping[str, Any]) -> dict[str, Any]:
    """The description of a position (a ``Game`` or a state dict) that ``build_dict`` turns
    back into that very state dict: who holds what, and the decision pending mid-step
    (``activating`` or ``scoring`` for the engine's own steps below it, ``pending``, the
    cursor, each player's ``rows_used`` and ``batches``). Fields equal to the builder's
    default are left out; the buildings are given by ``road`` (space and owner).

    Raises:
        InvalidStateError: for a state dict the engine's loader refuses (its validation).
    """
    d = (
        game_or_state.state_dict()
        if isinstance(game_or_state, Game)
        else state_to_dict(
            dict_to_state(game_or_state)  # type: ignore[arg-type]
        )
    )
    n = d["options"]["num_players"]
    defaults = GameConfig.option_defaults()
    options = {k: v for k, v in d["options"].items() if k in defaults and v != defaults[k]}
    base = position(n, **options)  # what a description leaves out
    description: dict[str, Any] = {"options": options} if options else {}
    for key in ("turn", "phase", "provost", "bailiff", "turn_order"):
        if d[key] != base[key]:
            description[key] = d[key]
    if d["passing_order"]:
        description["passed"] = list(d["passing_order"])
    scored = [section for section in SECTION_NAMES if d["scored"][section]]
    if scored:
        description["scored"] = scored
    players = {
        p: _describe_player(pd, bd)
        for p, (pd, bd) in enumerate(zip(d["players"], base["players"], strict=True))
    }
    players = {p: entry for p, entry in players.items() if entry}
    if players:
        description["players"] = players
    road = {
        r["space"]: r["building"] if r["owner"] is None else (r["building"], r["owner"])
        for r, b in zip(d["road"], base["road"], strict=True)
        if (r["building"], r["owner"]) != (b["building"], b["owner"])
    }
    if road:
        description["road"] = road
    castle = {s: list(h) for s, h in d["castle"].items() if any(h)}
    if castle:
        description["castle"] = castle
    workers = _describe_workers(d)
    if workers:
        description["workers"] = workers
    lawyers = {
        r["space"]: r["lawyer_pending"] for r in d["road"] if r["lawyer_pending"] is not None
    }
    if lawyers:
        description["lawyers"] = lawyers
    pending, cursor = [dict(e) for e in d["pending"]], 0
    if _readable_activation(d):
        description["activating"] = pending[0]["space"]
        pending, cursor = pending[1:], d["cursor"]
    elif _readable_scoring(d):
        description["scoring"] = pending[0]["section"]
        pending, cursor = pending[2:], d["cursor"]
    if d["cursor"] != cursor:
        description["cursor"] = d["cursor"]
    if pending:
        description["pending"] = pending
    return description


def _describe_player(pd: dict[str, Any], bd: dict[str, Any]) -> dict[str, Any]:
    """One player's entry of ``describe``: what differs from the builder's default."""
    entry = {key: pd[key] for key in ("money", "prestige") if pd[key] != bd[key]}
    entry.update({r: pd["cubes"][r] for r in RESOURCE_NAMES if pd["cubes"][r] != bd["cubes"][r]})
    favors = {row: c for row, c in pd["favor_columns"].items() if c}
    if favors:
        entry["favors"] = favors
    if pd["rows_used"]:
        entry["rows_used"] = list(pd["rows_used"])
    if pd["batches"]:
        entry["batches"] = pd["batches"]
    return entry


def _describe_workers(d: dict[str, Any]) -> dict[Any, Any]:
    """The ``workers`` of ``describe``: road spaces, special buildings, stables and castle."""
    workers: dict[Any, Any] = {
        r["space"]: r["worker"] for r in d["road"] if r["worker"] is not None
    }
    workers.update({name: p for name, p in d["special_workers"].items() if p is not None})
    stables = [p for p in d["stables"] if p is not None]
    if stables:
        workers["stables"] = stables
    for side, p in d["inn"].items():
        if p is not None:
            workers[f"inn_{side}"] = p
    if d["castle_workers"]:
        workers["castle"] = list(d["castle_workers"])
    return workers


def _readable_activation(d: dict[str, Any]) -> bool:
    """Whether the stack is a road space's activation as ``activating`` builds it."""
    pending = d["pending"]
    if d["phase"] != "activation" or not pending or pending[0]["kind"] != "finish_space":
        return False
    k = pending[0]["space"]
    return d["cursor"] == k + 1 and space(d, k)["worker"] == pending[0]["player"]


def _readable_scoring(d: dict[str, Any]) -> bool:
    """Whether the stack is a section scoring waiting on favors, as ``scoring`` builds it."""
    pending = d["pending"]
    if d["phase"] != "end_of_turn" or len(pending) < 3 or pending[0]["kind"] != "section_done":
        return False
    section, score, first = pending[0]["section"], pending[1], pending[2]
    return (
        score["kind"] == "score_player"
        and score["section"] == section
        and first["kind"] not in PROCEDURES
        and not any(e["kind"] in PROCEDURES for e in pending[2:])
        and score["turn_order_index"] == d["turn_order"].index(first["player"]) + 1
        and d["cursor"] == STEP_FIRST_SECTION + SECTION_NAMES.index(section) + 1
    )


def _lawyers(d: dict[str, Any], lawyers: Any, n: int) -> None:
    """The lawyer's transformations paid for and waiting on their space's worker (rules 8.6);
    one on a neutral building already counts the residence's house (phase 5c)."""
    if not isinstance(lawyers, dict):
        raise PositionError(f"lawyers must be a dict {{space: seat}}, got {lawyers!r}")
    for k, who in lawyers.items():
        where = f"lawyers[{k!r}]"
        k = core.count(k, "lawyers road space", 1, ROAD_LEN)
        p = core.seat(who, where, n)
        name = space(d, k)["building"]
        if name is None:
            raise PositionError(f"{where}: no building on road space {k}")
        space(d, k)["lawyer_pending"] = p
        if name in NEUTRAL_NAMES:
            d["players"][p]["houses"] += 1


def _pending(d: dict[str, Any], description: dict[str, Any], phase: str) -> None:
    """The decision stack and the cursor: ``pending`` on top of the procedures that
    ``activating`` or ``scoring`` stand for, and the cursor the engine keeps with them."""
    pending = description.get("pending", [])
    if not isinstance(pending, (list, tuple)):
        raise PositionError(
            f"pending must be a list of decisions {{kind, player, ...}}, got {pending!r}"
        )
    pending = [dict(e) if isinstance(e, dict) else e for e in pending]
    below: list[dict[str, Any]] = []
    cursor = None  # the cursor the procedures fix, if any
    if "activating" in description and "scoring" in description:
        raise PositionError("activating and scoring are of different phases; give one of them")
    if "activating" in description:
        if phase != "activation":
            raise PositionError(f"activating is a road space of phase activation, not {phase}")
        k = core.count(description["activating"], "activating", 1, ROAD_LEN)
        w = space(d, k)["worker"]
        if w is None:
            raise PositionError(f"activating={k}: no worker on road space {k} (see workers)")
        below = [{"kind": "finish_space", "player": w, "space": k}]
        cursor = k + 1
    elif "scoring" in description:
        if phase != "end_of_turn":
            raise PositionError(f"scoring is a castle section of phase end_of_turn, not {phase}")
        section = core.name(description["scoring"], "scoring", SECTION_NAMES)
        first = pending[0] if pending else None
        p = first.get("player") if isinstance(first, dict) else None
        if isinstance(p, bool) or p not in d["turn_order"]:
            raise PositionError(
                f"scoring={section!r} waits on the favors of the player just scored: "
                "pending[0] must be a decision with his seat as player"
            )
        scored = d["turn_order"].index(p) + 1  # the players scored so far, in turn order
        below = [
            {"kind": "section_done", "player": None, "section": section},
            {
                "kind": "score_player",
                "player": None,
                "section": section,
                "turn_order_index": scored,
            },
        ]
        cursor = STEP_FIRST_SECTION + SECTION_NAMES.index(section) + 1
    if below:
        for i, e in enumerate(pending):
            if isinstance(e, dict) and e.get("kind") in PROCEDURES:
                raise PositionError(
                    f"pending[{i}]: {e['kind']!r} is the engine's own step, which activating "
                    "or scoring sets; pending lists the decisions only"
                )
    if "cursor" in description:
        given = core.count(description["cursor"], "cursor", 0, MAX_CURSOR)
        if cursor is not None and given != cursor:
            why = "activating" if "activating" in description else "scoring"
            raise PositionError(
                f"cursor={given} does not go with {why}={description[why]!r}; allowed: "
                f"{cursor} (or leave it out)"
            )
        cursor = given
    d["cursor"] = 0 if cursor is None else cursor
    d["pending"] = below + pending


def _pair(v: Any, where: str) -> tuple[Any, Any]:
    if len(v) != 2:
        raise PositionError(f"{where} must be a name or (name, seat), got {v!r}")
    return v[0], v[1]


def _place(d: dict[str, Any], k: int, name: str, owner: int | None) -> None:
    """``name`` on road space ``k`` with its owner (stock and houses are counted later)."""
    if space(d, k)["building"] is not None and k > len(NEUTRAL_ORDER):
        raise PositionError(f"road space {k} already holds {space(d, k)['building']}")
    old = space(d, k)["owner"]
    if old is not None:
        d["players"][old]["houses"] -= 1
    space(d, k)["building"] = name
    space(d, k)["owner"] = owner
    if owner is not None:
        d["players"][owner]["houses"] += 1


def _player(d: dict[str, Any], p: int, entry: Any) -> None:
    """Write one player's description (but his buildings) into the state dict ``d``."""
    where = f"players[{p}]"
    core.fields(entry, PLAYER_FIELDS, where)
    pd = d["players"][p]
    for key in ("money", "prestige"):
        if key in entry:
            pd[key] = core.count(entry[key], f"{where}.{key}")
    for cube in RESOURCE_NAMES:
        if cube in entry:
            pd["cubes"][cube] = core.count(entry[cube], f"{where}.{cube}")
    favors = core.counts(entry.get("favors", {}), f"{where}.favors", FAVOR_ROW_NAMES, 5)
    pd["favor_columns"].update(favors)
    rows = entry.get("rows_used", [])
    if not isinstance(rows, (list, tuple)):
        raise PositionError(f"{where}.rows_used must be a list of favor rows, got {rows!r}")
    rows = [core.name(r, f"{where}.rows_used", FAVOR_ROW_NAMES) for r in rows]
    if len(set(rows)) != len(rows):
        raise PositionError(f"{where}.rows_used={rows!r} lists a row twice")
    pd["rows_used"] = [r for r in FAVOR_ROW_NAMES if r in rows]  # the state dict's order
    if "batches" in entry:
        pd["batches"] = core.count(entry["batches"], f"{where}.batches", 0, MAX_BATCHES)
    owned = entry.get("buildings", [])
    if not isinstance(owned, (list, tuple)):
        raise PositionError(f"{where}.buildings must be a list of building names, got {owned!r}")


def start(d: dict[str, Any]) -> Game:
    """Build the game from the position and run to its first decision."""
    return Game.from_state_dict(d)


#: ``start(build_dict(num_players, **description))`` (`caylus_env.core.positions.builder`).
build = core.builder(build_dict, start)


def player(game: Game, p: int) -> dict[str, Any]:
    """Player ``p``'s part of the game's state dict."""
    return game.state_dict()["players"][p]


def cubes(game: Game, p: int) -> dict[str, int]:
    """Player ``p``'s cubes by kind."""
    return player(game, p)["cubes"]


__all__ = [
    "FIELDS",
    "NEUTRAL_ORDER",
    "PLAYER_FIELDS",
    "STOCKED",
    "WORKER_TARGETS",
    "PositionError",
    "all_passed",
    "build",
    "build_dict",
    "build_on",
    "cubes",
    "describe",
    "legal_names",
    "play",
    "player",
    "position",
    "put_worker",
    "set_castle",
    "set_player",
    "space",
    "start",
]
