"""Caylus 1303 positions: puzzles, endgames and the scenario tests of the rules.

``build(num_players, **description)`` sets up a position from who holds what (the game
contract's position builder, ``caylus_env.core.positions``): every tile the description does
not place is where the setup of ``seed`` put it or in its supply, every worker not in a hand or
on the board is in the Camp (D15), every house not on a building is in reserve (D14), and the
characters not held or on the board are out of play (rules 3.2 step 9), so the position keeps
the invariants the loader checks; the engine then validates it in full and runs it to its first
decision. ``build_dict`` gives the same position as a state dict.

For finer edits, start from ``position(...)`` (a new game, at the draft) or ``build_dict``,
edit it with the helpers below (each moves a component from where it was), then ``start(d)``:
``worker`` (a worker onto a space or the Construction Site), ``give_character``,
``construct`` (a building from its supply onto the Road for a player), ``road`` (a tile onto
one Road space), and the phase starters ``start_planning``, ``start_activation`` (at a given
space, so that a test checks one building's effect), ``start_delivery`` and
``start_stewardship``. ``play(game, *names)`` applies actions by their stable names;
``legal_names(game)`` lists the legal ones.

Example (the Activation of a wooden farm on R10, its owner's worker on it):
    >>> from caylus_env.caylus_1303 import positions as P
    >>> g = P.build(
    ...     3,
    ...     phase="activation",
    ...     provost=10,
    ...     at="R10",
    ...     players={0: {"buildings": ["wooden_farm"], "hand": 4}},
    ...     workers={"R10": 0},
    ... )
    >>> P.legal_names(g)
    ['decline', 'option:1']
    >>> P.play(g, "option:1")  # the Construction side: 2 food
    >>> g.state_dict()["players"][0]["resources"]["food"]
    3
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from caylus_env.caylus_1303 import GAME
from caylus_env.caylus_1303.engine import Game, GameConfig
from caylus_env.caylus_1303.engine.constants import (
    CHARACTER_NAMES,
    CHARACTERS_EXTRA,
    HOUSES_FOR_BUILDINGS,
    LAWYER_FIRST,
    LAWYER_LAST,
    NUM_PRINTED,
    NUM_ROUNDS,
    PROVOST_MAX,
    RESOURCE_NAMES,
    ROAD_SPACES,
    SPACE_NAMES,
    STARTING_SPACES,
    STONE_SPACE,
    WOOD_SPACE,
    WORKERS_PER_COLOUR,
)
from caylus_env.caylus_1303.engine.headroom import STATE_MAX
from caylus_env.caylus_1303.engine.phases import activation, delivery, planning, stewardship
from caylus_env.caylus_1303.engine.tiles import (
    KIND_NAMES,
    MONUMENT_KINDS,
    STARTING_DECK,
    STONE_KINDS,
    TILES,
    WOOD_KINDS,
    Group,
)
from caylus_env.core import positions as core
from caylus_env.core.positions import PositionError, legal_names, play

ROAD_NAMES = tuple(f"R{k}" for k in range(1, ROAD_SPACES + 1))
SITE_NAMES = ("S1", "S2", "S3")
PRINTED_NAMES = SPACE_NAMES[:NUM_PRINTED]
#: Spaces a worker may be placed on (rules 4.1 A): the printed spaces and the Road.
WORKER_SPACES = PRINTED_NAMES + ROAD_NAMES
STARTING_NAMES = tuple(KIND_NAMES[k] for k in sorted(set(STARTING_DECK.tolist())))
WOOD_NAMES = tuple(KIND_NAMES[k] for k in WOOD_KINDS)
STONE_NAMES = tuple(KIND_NAMES[k] for k in STONE_KINDS)
MONUMENT_NAMES = tuple(KIND_NAMES[k] for k in MONUMENT_KINDS)
BUILDING_NAMES = WOOD_NAMES + STONE_NAMES
#: The spaces holding a starting tile at setup: S1, then R1..R8 (rules 3.2 step 1).
STARTING_PLACES = ("S1", *ROAD_NAMES[:STARTING_SPACES])
LAWYER_SPACES = tuple(f"R{k}" for k in range(LAWYER_FIRST, LAWYER_LAST + 1))
PHASES = ("draft", "planning", "activation", "delivery", "stewardship")
STONEMASON = "stonemason"  # never pre-built on R9 (D38)


def position(num_players: int = 3, seed: int = 0, **options: Any) -> dict[str, Any]:
    """The state dict of a new game (rules 3.2), at its first draft pick (rules 3.3)."""
    config = GameConfig.from_dict({**options, "num_players": num_players})
    return Game(config, seed=seed).state_dict()


def start(d: dict[str, Any]) -> Game:
    """Build the game from the position (validated in full) and run to its first decision."""
    return Game.from_state_dict(d)


# -- helpers that edit a state dict ---------------------------------------------------------------
def _supply_key(tile: str) -> str:
    group = TILES[KIND_NAMES.index(tile)].group
    return {Group.WOOD: "wood_supply", Group.STONE: "stone_supply"}.get(group, "monument_supply")


def worker(d: dict[str, Any], p: int, space: str) -> None:
    """A worker of seat ``p`` from his hand onto ``space`` (a printed space, ``R1``..``R23``,
    behind any worker already there, D26) or onto the Construction Site (``"site"``)."""
    pd = d["players"][p]
    if pd["hand"] < 1:
        raise PositionError(f"players[{p}].hand: no worker left to place on {space}")
    if space == "site":
        if p in d["site"]:
            raise PositionError(f"site: player {p} has a worker there already (D17)")
        d["site"].append(p)
    else:
        core.name(space, "worker space", WORKER_SPACES)
        workers = d["spaces"][space]["workers"]
        if len(workers) >= 2 or p in workers:
            raise PositionError(f"workers.{space}: room for one worker of each of two players")
        workers.append(p)
    pd["hand"] -= 1


def give_character(d: dict[str, Any], p: int, name: str) -> None:
    """Character ``name`` to seat ``p``; one out of play is revealed in place of an available
    one, so that players + 3 stay revealed (rules 3.2 step 9)."""
    core.name(name, "character", CHARACTER_NAMES)
    chars = d["characters"]
    if chars[name] == "out":
        board = [c for c in CHARACTER_NAMES if chars[c] == "board"]
        if not board:
            raise PositionError(
                f"characters.{name}: out of play and no available character to swap it with"
            )
        chars[board[-1]] = "out"
    chars[name] = p


def road(d: dict[str, Any], space: str, tile: str, owner: int | None = None) -> None:
    """A wood or stone building from its supply onto the empty Road space ``space``:
    constructed (its Construction side) with ``owner``'s house, or a neutral Setup side
    without one (only on R9 and R14 of the setup, rules 3.1)."""
    core.name(space, "road space", ROAD_NAMES)
    core.name(tile, "road tile", BUILDING_NAMES)
    sp = d["spaces"][space]
    if sp["tile"] is not None:
        raise PositionError(f"road.{space}: holds {sp['tile']} already")
    key = _supply_key(tile)
    if tile not in d[key]:
        raise PositionError(f"road.{space}: {tile} is not in the {key.replace('_', ' ')}")
    d[key].remove(tile)
    sp["tile"] = tile
    sp["side"] = "setup" if owner is None else "construction"
    if owner is not None:
        if d["players"][owner]["houses"] < 1:
            raise PositionError(f"players[{owner}].houses: none left for {tile} (D14)")
        d["players"][owner]["houses"] -= 1
        sp["owner"] = owner


def construct(d: dict[str, Any], p: int, tile: str) -> str:
    """Construct ``tile`` for seat ``p`` on the lowest-numbered empty Road space (D22), as the
    Carpenter or the Stonemason does, without its cost or prestige; returns the space."""
    for space in ROAD_NAMES:
        if d["spaces"][space]["tile"] is None:
            road(d, space, tile, p)
            return space
    raise PositionError(f"buildings: no empty Road space left for {tile}")


def _all_passed(d: dict[str, Any], order: list[int] | None = None) -> None:
    n = len(d["players"])
    first = d["first_player"]
    order = [(first + i) % n for i in range(n)] if order is None else order
    d["bridge"] = list(order)
    d["passes"] = len(order)
    d["first_player"] = order[0] if order else first
    for p, pd in enumerate(d["players"]):
        pd["passed"] = p in order


def _clock(d: dict[str, Any], phase: str, stage: int = 0, cursor: int = 0) -> None:
    d.update(phase=phase, stage=stage, cursor=cursor, worker_index=0, asked=False, pending=[])
    if phase not in ("draft", "planning"):
        d["turn"] = 0


def start_planning(d: dict[str, Any]) -> None:
    """Put the game at the start of Planning (rules 4.1): the Early Riser, then the first
    player; nobody has passed."""
    _clock(d, "planning")
    d["turn"] = d["first_player"]
    _all_passed(d, [])


def start_activation(d: dict[str, Any], at: str | None = None) -> None:
    """Put the game at the start of Activation (rules 4.2), every player passed; with ``at``
    (a printed space or ``R1``..``R23``) at that building's activation: the spaces and the
    bridge and Bailiff steps before it are done."""
    if at is None:
        _clock(d, "activation")
    elif at in PRINTED_NAMES:
        _clock(d, "activation", activation.STAGE_PRINTED, PRINTED_NAMES.index(at))
    else:
        core.name(at, "at", WORKER_SPACES)
        _clock(d, "activation", activation.STAGE_ROAD, ROAD_NAMES.index(at) + 1)
    if d["passes"] != len(d["players"]):
        _all_passed(d)


def start_delivery(d: dict[str, Any]) -> None:
    """Put the game at the start of Delivery (rules 4.3): the site workers deliver in slot
    order; every player passed."""
    _clock(d, "delivery", delivery.STAGE_SLOTS)
    if d["passes"] != len(d["players"]):
        _all_passed(d)


def start_stewardship(d: dict[str, Any]) -> None:
    """Put the game at the start of Stewardship (rules 4.4): residences, monuments, income."""
    _clock(d, "stewardship", stewardship.STAGE_RESIDENCES)
    if d["passes"] != len(d["players"]):
        _all_passed(d)


# -- the builder --------------------------------------------------------------------------------
#: The fields of ``build``'s description, and of each player's entry in it.
FIELDS = (
    "options", "seed", "round", "phase", "at", "first_player", "turn", "bridge", "provost",
    "players", "road", "site_buildings", "board_characters", "characters_used", "workers",
    "site", "marks", "pending",
)  # fmt: skip
PLAYER_FIELDS = (
    "hand", "resources", "pp", "characters", "buildings", "residences", "monuments", "bundles",
)  # fmt: skip
_SETUP_FIELDS = ("options", "seed")


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

    Every field is optional; a description of only ``options`` and ``seed`` is the start of
    a game (``position``: the draft, rules 3.3); any other field starts the round's Planning
    unless ``phase`` says otherwise.

    - ``options``: ``{"hide_opponent_pp": bool}``; ``seed``: the setup (rules 3.2, D38):
      the starting tiles, the pre-built R9, R14 and site buildings, the first player and the
      revealed characters (default 0).
    - ``round`` (1-9); ``phase``: ``draft``, ``planning``, ``activation``, ``delivery`` or
      ``stewardship`` (its start); ``at``: with ``activation``, the printed space or Road
      space whose activation comes first (the earlier steps are done); ``first_player``;
      ``turn`` (Planning: the seat asked next); ``bridge``: seats in passing order (Planning:
      those who passed; later phases: every seat, default clockwise from the first player,
      who passed first, rules 4.1 C); ``provost`` (default: just before the end of the built
      Road, D6).
    - ``players``: a list (seat 0 first) or ``{seat: entry}``; an entry's fields, each
      optional: ``hand`` (workers in hand; the rest of his 15 not on the board are in the
      Camp, D15), ``resources`` (``{resource: n}``, replaces the starting 1 food, 2 wood,
      1 stone), ``pp``, ``characters`` (names he holds), ``buildings`` (wood and stone tiles
      constructed for him on the lowest empty Road spaces, in order, D22), ``residences``
      (Road spaces R1-R8 whose starting tile is his residence, D3), ``monuments`` (built on
      his residences, lowest first, D4), ``bundles`` (Delivery: delivered this round).
    - ``road``: ``{space: tile}`` for the starting tiles of R1-R8 and the pre-built R9 and
      R14, or ``{space: [tile, seat]}`` for a building constructed by that seat;
      ``site_buildings``: ``{"S1" | "S2" | "S3": tile}``. The seed's other tiles stay, moved
      aside when a description takes one of them.
    - ``board_characters``: the available characters (default: the seed's revealed ones not
      held, rules 3.2 step 9); ``characters_used``: powers used this round (D24).
    - ``workers``: ``{space: seat or [seats]}`` (placing order, D26), taken from the hands;
      ``site``: seats on the Construction Site in slot order (D17); ``marks``:
      ``{space: seat}``, the Lawyer's houses on starting buildings (D21).
    - ``pending``: the decision stack as the state dict writes it (default: none; the engine
      asks the natural next decision).

    Filled from the component totals: the wood, stone and monument supplies, each player's
    Camp and houses in reserve (9 less his buildings, residences, monuments and marks), the
    passed flags and the characters out of play. The dict is not yet validated by the engine:
    ``start`` does that.

    Raises:
        PositionError: an unknown field, name or seat, a value out of its domain, or more
            components than the game has, naming the field and what is allowed.
    """
    core.fields(description, FIELDS, "description")
    n = core.players(num_players, GAME)
    options = description.get("options", {})
    core.fields(options, ("hide_opponent_pp",), "options")
    seed = core.count(description.get("seed", 0), "seed", 0, 2**31 - 2)
    try:
        d = position(n, seed, **options)
    except ValueError as e:
        raise PositionError(f"options: {e}") from None
    if not set(description) - set(_SETUP_FIELDS):
        return d
    entries = core.seats(description.get("players", {}), "players", n)
    for p, entry in entries.items():
        core.fields(entry, PLAYER_FIELDS, f"players[{p}]")
    d["round"] = core.count(description.get("round", 1), "round", 1, NUM_ROUNDS)
    d["first_player"] = core.seat(
        description.get("first_player", d["first_player"]), "first_player", n
    )

    _tiles(d, description, entries)
    _characters(d, description, entries, n)
    for p, entry in entries.items():
        _player(d, p, entry)
    _place_workers(d, description, n)
    for space, p in _dict(description.get("marks", {}), "marks").items():
        core.name(space, "marks", LAWYER_SPACES)
        p = core.seat(p, f"marks.{space}", n)
        if d["players"][p]["houses"] < 1:
            raise PositionError(f"marks.{space}: player {p} has no house left (D14)")
        d["players"][p]["houses"] -= 1
        d["spaces"][space]["mark"] = p
    _phase(d, description, n)
    if "provost" in description:
        d["provost"] = core.count(description["provost"], "provost", 0, PROVOST_MAX)
    else:
        built = 0
        while built < ROAD_SPACES and d["spaces"][ROAD_NAMES[built]]["tile"] is not None:
            built += 1
        d["provost"] = min(max(built - 1, 0), PROVOST_MAX)  # D6
    if "pending" in description:
        d["pending"] = description["pending"]
    return d


def _dict(v: Any, where: str) -> dict:
    if not isinstance(v, dict):
        raise PositionError(f"{where} must be a dict, got {type(v).__name__}")
    return v


def _names_list(v: Any, where: str, allowed: tuple[str, ...]) -> list[str]:
    if not isinstance(v, (list, tuple)):
        raise PositionError(f"{where} must be a list of names, got {v!r}")
    out = [core.name(x, where, allowed) for x in v]
    if len(set(out)) != len(out):
        raise PositionError(f"{where}: a name is listed twice in {out}")
    return out


def _tiles(d: dict[str, Any], description: dict[str, Any], entries: dict[int, Any]) -> None:
    """Starting tiles, pre-built and site buildings, and constructed buildings (rules 3.1,
    3.2): what the description names, the seed's setup for the rest."""
    spaces = d["spaces"]
    explicit: dict[str, str] = {}
    owned: list[tuple[str, str, int]] = []  # (space, tile, seat) from ``road``
    for space, v in _dict(description.get("road", {}), "road").items():
        core.name(space, "road", ROAD_NAMES)
        if isinstance(v, (list, tuple)):
            if len(v) != 2:
                raise PositionError(f"road.{space} must be a tile or [tile, seat], got {v!r}")
            tile = core.name(v[0], f"road.{space} tile", BUILDING_NAMES)
            owned.append((space, tile, core.seat(v[1], f"road.{space} seat", len(d["players"]))))
            continue
        k = ROAD_NAMES.index(space) + 1
        if k <= STARTING_SPACES:
            explicit[space] = core.name(v, f"road.{space}", STARTING_NAMES)
        elif k == WOOD_SPACE:
            explicit[space] = core.name(
                v, f"road.{space}", tuple(t for t in WOOD_NAMES if t != STONEMASON)
            )
        elif k == STONE_SPACE:
            explicit[space] = core.name(v, f"road.{space}", STONE_NAMES)
        else:
            raise PositionError(
                f"road.{space}: a constructed building is [tile, seat] (only R1-R9 and R14 "
                "hold neutral tiles, rules 3.1)"
            )
    groups = {"S1": STARTING_NAMES, "S2": WOOD_NAMES, "S3": STONE_NAMES}
    for space, v in _dict(description.get("site_buildings", {}), "site_buildings").items():
        core.name(space, "site_buildings", SITE_NAMES)
        explicit[space] = core.name(v, f"site_buildings.{space}", groups[space])
    # constructed buildings: the players' lists and ``road``'s [tile, seat]
    wanted = [t for _, t, _ in owned]
    for p, entry in entries.items():
        wanted += _names_list(entry.get("buildings", []), f"players[{p}].buildings", BUILDING_NAMES)
    taken = Counter(wanted) + Counter(t for s, t in explicit.items() if s not in STARTING_PLACES)
    for t, k in taken.items():
        if k > 1:
            raise core.too_many(f"{t} tiles", k, 1)
    # starting tiles: S1 and R1..R8 hold the deck (rules 3.2 step 1)
    deck = Counter(KIND_NAMES[k] for k in STARTING_DECK)
    fixed = Counter(t for s, t in explicit.items() if s in STARTING_PLACES)
    for t, k in fixed.items():
        if k > deck[t]:
            raise core.too_many(f"{t} starting tiles", k, deck[t])
    left = deck - fixed
    todo = []
    for s in STARTING_PLACES:
        if s in explicit:
            spaces[s]["tile"] = explicit[s]
        elif left[spaces[s]["tile"]] > 0:
            left[spaces[s]["tile"]] -= 1
        else:
            todo.append(s)
    rest = sorted(left.elements(), key=STARTING_NAMES.index)
    for s, t in zip(todo, rest, strict=True):
        spaces[s]["tile"] = t
    # pre-built R9, R14 and the site buildings S2, S3: the description's, else the seed's
    # unless taken, else the first of the supply (D38: never the Stonemason on R9)
    wood_space, stone_space = ROAD_NAMES[WOOD_SPACE - 1], ROAD_NAMES[STONE_SPACE - 1]
    prebuilt = (("S2", WOOD_NAMES), (wood_space, WOOD_NAMES), ("S3", STONE_NAMES),
                (stone_space, STONE_NAMES))  # fmt: skip
    on_board = {s: spaces[s]["tile"] for s, _ in prebuilt}
    used = set(taken)
    for s, _ in prebuilt:
        if s in explicit:
            on_board[s] = explicit[s]
    for s, names in prebuilt:
        if s in explicit:
            continue
        others = {t for x, t in on_board.items() if x != s}
        if on_board[s] in used or on_board[s] in others:
            on_board[s] = next(
                t
                for t in names
                if t not in used and t not in others and (s != wood_space or t != STONEMASON)
            )
        used.add(on_board[s])
    if len(set(on_board.values())) != len(on_board):
        raise PositionError(f"road, site_buildings: a tile is placed twice in {on_board}")
    d["wood_supply"] = list(WOOD_NAMES)
    d["stone_supply"] = list(STONE_NAMES)
    for s, t in on_board.items():
        spaces[s]["tile"] = t
        d[_supply_key(t)].remove(t)
    for space, tile, p in owned:
        road(d, space, tile, p)
    for p, entry in entries.items():
        for tile in entry.get("buildings", []):
            construct(d, p, tile)


def _characters(d: dict[str, Any], description: dict[str, Any], entries: dict[int, Any], n: int):
    """Held characters, then the available ones; players + 3 revealed (rules 3.2 step 9)."""
    held: dict[str, int] = {}
    for p, entry in entries.items():
        for c in _names_list(entry.get("characters", []), f"players[{p}].characters",
                             CHARACTER_NAMES):  # fmt: skip
            if c in held:
                raise PositionError(f"players[{p}].characters: {c} is held by player {held[c]}")
            held[c] = p
    revealed = n + CHARACTERS_EXTRA
    if "board_characters" in description:
        board = _names_list(description["board_characters"], "board_characters", CHARACTER_NAMES)
        for c in board:
            if c in held:
                raise PositionError(f"board_characters: {c} is held by player {held[c]}")
        if len(board) + len(held) != revealed:
            raise PositionError(
                f"board_characters: {len(board)} available and {len(held)} held; "
                f"allowed: {revealed} revealed in all (players + 3, rules 3.2 step 9)"
            )
    else:
        if len(held) > revealed:
            raise core.too_many("characters held", len(held), revealed)
        seeded = [c for c in CHARACTER_NAMES if d["characters"][c] == "board" and c not in held]
        others = [c for c in CHARACTER_NAMES if c not in seeded and c not in held]
        board = (seeded + others)[: revealed - len(held)]
    chars: dict[str, Any] = dict.fromkeys(CHARACTER_NAMES, "out")
    chars.update({c: "board" for c in board})
    chars.update(held)
    d["characters"] = chars
    d["characters_used"] = _names_list(
        description.get("characters_used", []), "characters_used", CHARACTER_NAMES
    )


def _player(d: dict[str, Any], p: int, entry: dict[str, Any]) -> None:
    """Write one player's description into the state dict ``d`` (his buildings are placed
    by ``_tiles``)."""
    where = f"players[{p}]"
    pd = d["players"][p]
    if "hand" in entry:
        pd["hand"] = core.count(entry["hand"], f"{where}.hand", 0, WORKERS_PER_COLOUR)
    if "resources" in entry:
        pd["resources"] = dict.fromkeys(RESOURCE_NAMES, 0)
        pd["resources"].update(
            core.counts(entry["resources"], f"{where}.resources", RESOURCE_NAMES, STATE_MAX)
        )
    if "pp" in entry:
        pd["pp"] = core.count(entry["pp"], f"{where}.pp", 0, STATE_MAX)
    if "bundles" in entry:
        pd["bundles"] = core.count(entry["bundles"], f"{where}.bundles", 0, STATE_MAX)
    homes = _names_list(entry.get("residences", []), f"{where}.residences", LAWYER_SPACES)
    monuments = _names_list(entry.get("monuments", []), f"{where}.monuments", MONUMENT_NAMES)
    if len(monuments) > len(homes):
        raise PositionError(
            f"{where}.monuments: {len(monuments)} monuments need as many residences (D4), "
            f"he has {len(homes)}"
        )
    for space in homes:
        sp = d["spaces"][space]
        if sp["owner"] is not None:
            raise PositionError(f"{where}.residences: {space} is player {sp['owner']}'s")
        sp.update(side="residence", owner=p)
    for space, m in zip(sorted(homes, key=ROAD_NAMES.index), monuments, strict=False):
        if m not in d["monument_supply"]:
            raise core.too_many(f"{m} monuments", 2, 1)
        d["monument_supply"].remove(m)
        d["spaces"][space].update(tile=m, side="construction")
    if len(homes) > pd["houses"]:
        raise core.too_many(f"{where} houses", HOUSES_FOR_BUILDINGS - pd["houses"] + len(homes),
                            HOUSES_FOR_BUILDINGS)  # fmt: skip
    pd["houses"] -= len(homes)


def _place_workers(d: dict[str, Any], description: dict[str, Any], n: int) -> None:
    """Workers from the hands onto the board; the Camp holds the rest of each 15 (D15)."""
    for space, v in _dict(description.get("workers", {}), "workers").items():
        core.name(space, "workers", WORKER_SPACES)
        seats = v if isinstance(v, (list, tuple)) else [v]
        for p in seats:
            worker(d, core.seat(p, f"workers.{space}", n), space)
    site = description.get("site", [])
    if not isinstance(site, (list, tuple)):
        raise PositionError(f"site must be a list of seats, got {site!r}")
    for p in site:
        worker(d, core.seat(p, "site", n), "site")
    for p, pd in enumerate(d["players"]):
        on_board = sum(sp["workers"].count(p) for sp in d["spaces"].values()) + d["site"].count(p)
        camp = WORKERS_PER_COLOUR - pd["hand"] - on_board
        if camp < 0:
            raise core.too_many(f"players[{p}] workers", pd["hand"] + on_board,
                                WORKERS_PER_COLOUR, "hand and board")  # fmt: skip
        pd["camp"] = camp


def _phase(d: dict[str, Any], description: dict[str, Any], n: int) -> None:
    phase = core.name(description.get("phase", "planning"), "phase", PHASES)
    order = None
    if "bridge" in description:
        v = description["bridge"]
        if not isinstance(v, (list, tuple)):
            raise PositionError(f"bridge must be a list of seats, got {v!r}")
        order = [core.seat(p, "bridge", n) for p in v]
        if len(set(order)) != len(order):
            raise PositionError(f"bridge: a seat is listed twice in {order}")
    if "at" in description and phase != "activation":
        raise PositionError("at: only with phase='activation'")
    if "turn" in description and phase != "planning":
        raise PositionError("turn: only with phase='planning'")
    if phase == "draft":
        if order:
            raise PositionError("bridge: nobody passes in the draft")
        return
    if phase == "planning":
        start_planning(d)
        if order:
            if "first_player" in description and order[0] != d["first_player"]:
                raise PositionError(
                    "bridge: the first to pass takes the first-player tile "
                    f"(rules 4.1 C), so bridge[0] must be {d['first_player']}"
                )
            _all_passed(d, order)
        if order or "turn" in description:  # mid-Planning: the Early Riser was asked (D25)
            d["stage"] = planning.STAGE_TURNS
        d["turn"] = core.seat(description.get("turn", d["first_player"]), "turn", n)
        return
    if order is not None and len(order) != n:
        raise PositionError(f"bridge: every seat passed before {phase}; got {order}")
    if order and "first_player" in description and order[0] != d["first_player"]:
        raise PositionError(
            "bridge: the first to pass takes the first-player tile "
            f"(rules 4.1 C), so bridge[0] must be {d['first_player']}"
        )
    _all_passed(d, order)
    if phase == "activation":
        at = description.get("at")
        if at is not None:
            core.name(at, "at", WORKER_SPACES)
        start_activation(d, at)
    elif phase == "delivery":
        start_delivery(d)
    else:
        start_stewardship(d)


#: The names the scenario tests use for `start` and `play`.
game = start
act = play


__all__ = [
    "FIELDS",
    "PLAYER_FIELDS",
    "PositionError",
    "act",
    "build",
    "build_dict",
    "construct",
    "game",
    "give_character",
    "legal_names",
    "play",
    "position",
    "road",
    "start",
    "start_activation",
    "start_delivery",
    "start_planning",
    "start_stewardship",
    "worker",
]
