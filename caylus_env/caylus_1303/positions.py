"""Caylus 1303 positions: puzzles, endgames and the scenario tests of the rules.

``build(num_players, **description)`` sets up a position from who holds what (the game
contract's position builder, ``caylus_env.core.positions``): every tile the description does
not place is where the setup of ``seed`` put it or in its supply, every worker not in a hand or
on the board is in the Camp (D15), every house not on a building is in reserve (D14), and the
characters not held or on the board are out of play (rules 3.2 step 9), so the position keeps
the invariants the loader checks; the engine then validates it in full and runs it to its first
decision. ``build_dict`` gives the same position as a state dict. Any decision the engine
asks can be described, mid-step included: ``pending`` names it, and the builder sets the
engine's pointers (cursors, turn, the worker asked) where the phase's driver leaves them when
it asks. ``describe(game_or_state_dict)`` is the inverse: the description whose
``build_dict`` is that very state dict.

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

import copy
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
from caylus_env.caylus_1303.engine.state_dict import ON_BOARD_NAME, dict_to_state
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
PHASES = ("draft", "planning", "activation", "delivery", "stewardship", "game_over")
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


def _step_at(at: str) -> tuple[int, int]:
    """Activation's ``(stage, cursor)`` at the building ``at``: a printed space or a Road
    space (rules 4.2: the printed spaces, the bridge, the Bailiff, then the Road)."""
    if at in PRINTED_NAMES:
        return activation.STAGE_PRINTED, PRINTED_NAMES.index(at)
    core.name(at, "at", WORKER_SPACES)
    return activation.STAGE_ROAD, ROAD_NAMES.index(at) + 1


def start_activation(d: dict[str, Any], at: str | None = None) -> None:
    """Put the game at the start of Activation (rules 4.2), every player passed; with ``at``
    (a printed space or ``R1``..``R23``) at that building's activation: the spaces and the
    bridge and Bailiff steps before it are done."""
    if at is None:
        _clock(d, "activation")
    else:
        _clock(d, "activation", *_step_at(at))
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
    "options", "seed", "decisions", "round", "phase", "at", "first_player", "turn", "bridge",
    "provost", "players", "road", "site_buildings", "board_characters", "characters_used",
    "workers", "site", "marks", "pending",
)  # fmt: skip
PLAYER_FIELDS = (
    "hand", "resources", "pp", "characters", "buildings", "residences", "monuments", "bundles",
)  # fmt: skip
_SETUP_FIELDS = ("options", "seed")


def build_dict(num_players: int | None = None, **description: Any) -> dict[str, Any]:
    """The state dict of a position given by who holds what; everything else is in supply.

    Every field is optional; a description of only ``options`` and ``seed`` is the start of
    a game (``position``: the draft, rules 3.3); any other field starts the round's Planning
    unless ``phase`` says otherwise.

    - ``options``: ``{"hide_opponent_pp": bool}``; ``seed``: the setup (rules 3.2, D38):
      the starting tiles, the pre-built R9, R14 and site buildings, the first player and the
      revealed characters (default 0); ``decisions``: decisions taken so far (default 0).
    - ``round`` (1-9); ``phase``: ``draft`` (round 1: the seats holding characters have
      picked, in the draft's order from the seat before the first player's, rules 3.3),
      ``planning``, ``activation``, ``delivery``, ``stewardship`` (its start, or the step of
      the decision ``pending`` names) or ``game_over``; ``at``: with ``activation``, the
      printed space or Road space whose activation comes first (the earlier steps are done),
      or whose worker's effect gave the Favor or payment ``pending`` asks; ``first_player``;
      ``turn`` (Planning: the seat asked next; with a ``plan`` pending, the seat after it,
      its default); ``bridge``: seats in passing order (Planning: those who passed; later
      phases: every seat, default clockwise from the first player, who passed first, rules
      4.1 C); ``provost`` (default: just before the end of the built Road, D6).
    - ``players``: a list (seat 0 first) or ``{seat: entry}``; an entry's fields, each
      optional: ``hand`` (workers in hand; the rest of his 15 not on the board are in the
      Camp, D15), ``resources`` (``{resource: n}``, replaces the starting 1 food, 2 wood,
      1 stone), ``pp``, ``characters`` (names he holds), ``buildings`` (wood and stone tiles
      constructed for him on the lowest empty Road spaces, in order, D22), ``residences``
      (Road spaces R1-R8 whose starting tile is his residence, D3), ``monuments``
      (``{space: monument}`` on residences of his, or a list built on his residences,
      lowest first, D4), ``bundles`` (Delivery: delivered this round).
    - ``road``: ``{space: tile}`` for the starting tiles of R1-R8 and the pre-built R9 and
      R14, or ``{space: [tile, seat]}`` for a building constructed by that seat;
      ``site_buildings``: ``{"S1" | "S2" | "S3": tile}``. The seed's other tiles stay, moved
      aside when a description takes one of them.
    - ``board_characters``: the available characters (default: the seed's revealed ones not
      held, rules 3.2 step 9); ``characters_used``: powers used this round (D24).
    - ``workers``: ``{space: seat or [seats]}`` (placing order, D26), taken from the hands;
      in Activation ``[None, seat]`` is a second worker whose first already went to the Camp;
      ``site``: seats on the Construction Site in slot order (D17); ``marks``:
      ``{space: seat}``, the Lawyer's houses on starting buildings (D21).
    - ``pending``: the decision stack as the state dict writes it, bottom first (default:
      none, the engine asks the natural next decision; in the draft, the next pick). The
      engine's pointers follow from its first entry, as the phase's driver left them when
      it asked: the draft's cursor (the picks made and asked), Planning's turn (a ``plan``
      or the ``early_riser``), the Guilds Bridge's place of a ``bridge``, the Road's start
      for the ``bailiff``, the building and worker of an ``effect`` (its owner bonus is
      paid: give the resources and prestige after it), the site slot of a ``deliver`` (the
      Deliveryman's turn after all slots), the Delivery Favor's step for a Favor pending in
      Delivery, the monument turn of a ``monument``; a monument entry's ``placing`` (its
      residence is asked, D4) takes that monument from the supply, paid for.

    Filled from the component totals: the wood, stone and monument supplies, each player's
    Camp and houses in reserve (9 less his buildings, residences, monuments and marks), the
    passed flags and the characters out of play. The dict is not yet validated by the engine:
    ``start`` does that.

    Raises:
        PositionError: an unknown field, name or seat, a value out of its domain, or more
            components than the game has, naming the field and what is allowed.
    """
    n, options = core.opening(num_players, description, FIELDS, GAME, ("hide_opponent_pp",))
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
    d["decisions"] = core.count(description.get("decisions", 0), "decisions", 0, STATE_MAX)
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
        d["pending"] = _pending(description["pending"], d)
    elif d["phase"] == "draft":
        d["pending"] = _next_pick(d, n)
    _pointers(d, description, n)
    return d


#: ``start(build_dict(num_players, **description))`` (`caylus_env.core.positions.builder`).
build = core.builder(build_dict, start)


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
    placed = _monuments(entry.get("monuments", []), f"{where}.monuments", homes)
    for space in homes:
        sp = d["spaces"][space]
        if sp["owner"] is not None:
            raise PositionError(f"{where}.residences: {space} is player {sp['owner']}'s")
        sp.update(side="residence", owner=p)
    for space, m in placed.items():
        if m not in d["monument_supply"]:
            raise core.too_many(f"{m} monuments", 2, 1)
        d["monument_supply"].remove(m)
        d["spaces"][space].update(tile=m, side="construction")
    if len(homes) > pd["houses"]:
        raise core.too_many(f"{where} houses", HOUSES_FOR_BUILDINGS - pd["houses"] + len(homes),
                            HOUSES_FOR_BUILDINGS)  # fmt: skip
    pd["houses"] -= len(homes)


def _monuments(v: Any, where: str, homes: list[str]) -> dict[str, str]:
    """``{space: monument}`` of a player's ``monuments``: each on a residence of his own, the
    one he chose (rules 4.4 b, D4); a list goes on his residences, lowest first."""
    if isinstance(v, dict):
        placed: dict[str, str] = {}
        for space, m in v.items():
            core.name(space, f"{where} space", LAWYER_SPACES)
            if space not in homes:
                raise PositionError(
                    f"{where}.{space}: not one of his residences {homes}; a monument replaces "
                    "a residence of his own (D4)"
                )
            placed[space] = core.name(m, f"{where}.{space}", MONUMENT_NAMES)
        if len(set(placed.values())) != len(placed):
            raise PositionError(f"{where}: a monument is listed twice in {placed}")
        return placed
    monuments = _names_list(v, where, MONUMENT_NAMES)
    if len(monuments) > len(homes):
        raise PositionError(
            f"{where}: {len(monuments)} monuments need as many residences (D4), he has {len(homes)}"
        )
    return dict(zip(sorted(homes, key=ROAD_NAMES.index), monuments, strict=False))


def _place_workers(d: dict[str, Any], description: dict[str, Any], n: int) -> None:
    """Workers from the hands onto the board; the Camp holds the rest of each 15 (D15)."""
    for space, v in _dict(description.get("workers", {}), "workers").items():
        core.name(space, "workers", WORKER_SPACES)
        seats = v if isinstance(v, (list, tuple)) else [v]
        if len(seats) == 2 and seats[0] is None:  # the first already left (D26)
            d["spaces"][space]["workers"].append(None)
            seats = seats[1:]
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
    if phase in ("draft", "game_over"):
        if order:
            raise PositionError(f"bridge: nobody is on the bridge in {phase}")
        _clock(d, phase)
        _all_passed(d, [])
        if phase == "draft":  # the last seat picks first; its turn stays (rules 3.3)
            d["turn"] = (d["first_player"] - 1) % n
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


def _pending(v: Any, d: dict[str, Any]) -> list[Any]:
    """The description's ``pending`` (the engine validates each entry); a monument whose
    residence is asked (``placing``) leaves the supply: it is paid for (D4)."""
    if not isinstance(v, (list, tuple)):
        raise PositionError(
            f"pending must be a list of decisions {{'kind': ..., 'player': ...}}, bottom "
            f"first, got {v!r}"
        )
    out = [dict(e) if isinstance(e, dict) else e for e in v]
    for i, e in enumerate(out):
        if isinstance(e, dict) and e.get("kind") == "monument" and "placing" in e:
            m = core.name(e["placing"], f"pending[{i}].placing", MONUMENT_NAMES)
            if m not in d["monument_supply"]:
                raise PositionError(
                    f"pending[{i}].placing: {m} is not in the monument supply; allowed: "
                    f"{', '.join(d['monument_supply']) or 'none left'}"
                )
            d["monument_supply"].remove(m)
    return out


def _picks(d: dict[str, Any]) -> int:
    """Characters held: in the draft, the picks made (rules 3.3)."""
    return sum(1 for h in d["characters"].values() if isinstance(h, int))


def _next_pick(d: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The draft's next pick, from the seat before the first player's counter-clockwise
    (rules 3.3); none once every seat picked."""
    picks = _picks(d)
    if picks >= n:
        return []
    return [{"kind": "draft", "player": (d["first_player"] - 1 - picks) % n}]


def _seat_of(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _pointers(d: dict[str, Any], description: dict[str, Any], n: int) -> None:
    """The engine's pointers where the phase's driver leaves them when it asks the first
    pending decision (``build_dict``: ``pending``); an entry the engine would refuse is left
    to its validation, which names it."""
    phase, pending = d["phase"], d["pending"]
    if phase == "draft":
        d["cursor"] = _picks(d) + int(bool(pending))  # the picks asked (rules 3.3)
        return
    if not pending or not isinstance(pending[0], dict):
        return
    base = pending[0]
    kind, seat = base.get("kind"), _seat_of(base.get("player"))
    if phase == "planning":
        if kind in ("early_riser", "plan"):
            d["stage"] = planning.STAGE_TURNS  # the Early Riser's step was run (D25)
        if kind == "plan" and seat is not None and "turn" not in description:
            d["turn"] = (seat + 1) % n  # the driver moves the turn on as it asks
    elif phase == "activation":
        _activation_pointers(d, description, kind, seat, base)
    elif phase == "delivery":
        if kind == "deliver" and base.get("deliveryman_turn") == 1:
            d.update(stage=delivery.STAGE_FAVOR, cursor=0)  # after every slot (rules 5.6)
        elif kind == "deliver":
            if seat in d["site"]:
                d.update(stage=delivery.STAGE_SLOTS, cursor=d["site"].index(seat) + 1)
        else:  # a Favor's decisions in Delivery: the Delivery Favor's (D9)
            d.update(stage=delivery.STAGE_CLEANUP, cursor=0)
    elif phase == "stewardship" and kind == "monument" and seat is not None:
        turn = (seat - d["first_player"]) % n + 1  # monument turns from the first player
        d.update(stage=stewardship.STAGE_MONUMENTS, cursor=turn)


#: Decisions that follow a worker's effect in Activation: its Favors (their site building,
#: their available character) and its "any" payments (rules 4.2, 4.5, D12, D23).
_EFFECT_FOLLOWS = ("favor", "board_character", "pay", "effect")


def _activation_pointers(
    d: dict[str, Any], description: dict[str, Any], kind: Any, seat: int | None, base: dict
) -> None:
    """Activation's step for the first pending decision: the Guilds Bridge's place of a
    ``bridge`` (rules 4.2), the Road's start for the ``bailiff`` (D28), the building of an
    ``effect`` or, for what an effect gave, ``at``; then that building's worker asked."""
    at = description.get("at")
    if kind in ("bridge", "bailiff"):
        if at is not None:
            raise PositionError(
                f"at={at!r}: the {kind}'s step comes before the buildings' activation "
                "(rules 4.2); leave at out"
            )
        if kind == "bailiff":
            d.update(stage=activation.STAGE_ROAD, cursor=1)
        elif seat in d["bridge"]:
            d.update(stage=activation.STAGE_BRIDGE, cursor=d["bridge"].index(seat) + 1)
        return
    space = base.get("space") if kind == "effect" else None
    if isinstance(space, str) and space in WORKER_SPACES:
        if at is not None and at != space:
            raise PositionError(f"at={at!r}: the effect pending is the one of {space}")
        stage, cursor = _step_at(space)
        d.update(stage=stage, cursor=cursor)
    elif kind not in _EFFECT_FOLLOWS:
        return
    elif at is None:
        raise PositionError(
            f"at: a {kind} pending in Activation follows the effect of a worker; name its "
            f"building (allowed: {', '.join(WORKER_SPACES)})"
        )
    else:
        space = at
    workers = d["spaces"][space]["workers"]
    if seat is not None and seat in workers:
        d.update(asked=True, worker_index=workers.index(seat))


# -- the builder's inverse ----------------------------------------------------------------------
def describe(position: Game | dict[str, Any]) -> dict[str, Any]:
    """The description of a position (a ``Game`` or its state dict) that ``build_dict`` turns
    back into that very state dict: who holds what, where every tile and worker stands, the
    pending stack (``pending``, from which the builder sets the engine's pointers) and the
    counters; what equals the builder's default is left out.

    The state dict does not keep the setup's seed, so the tiles of the seed-0 setup that
    differ are named (``road``, ``site_buildings``), as are the first player and the
    available characters when they differ from it.

    Raises:
        InvalidStateError: for a state dict the engine's loader refuses.
        PositionError: for a position the builder cannot express (one between two automatic
            steps of the engine, which no decision shows: a worker's effect answered and not
            yet sent to the Camp, a step done and the next not yet asked), naming the field.
    """
    d = position.state_dict() if isinstance(position, Game) else position
    dict_to_state(d)  # the loader's validation, first
    n = d["options"]["num_players"]
    options = {k: v for k, v in d["options"].items() if k != "num_players" and v}
    base = _seed_start(n, **options)
    out: dict[str, Any] = {"options": options} if options else {}
    for key, default in (("decisions", 0), ("round", 1)):
        if d[key] != default:
            out[key] = d[key]
    if d["phase"] != "planning":
        out["phase"] = d["phase"]
    if d["first_player"] != base["first_player"]:
        out["first_player"] = d["first_player"]
    out.update(_describe_tiles(d, base))
    out.update(_describe_players(d, n))
    out.update(_describe_characters(d, base, n))
    workers = {}
    for space in WORKER_SPACES:
        w = d["spaces"][space]["workers"]
        if w:
            workers[space] = w[0] if len(w) == 1 else list(w)
    if workers:
        out["workers"] = workers
    if d["site"]:
        out["site"] = list(d["site"])
    marks = {s: d["spaces"][s]["mark"] for s in LAWYER_SPACES if d["spaces"][s]["mark"] is not None}
    if marks:
        out["marks"] = marks
    out.update(_describe_clock(d, n))
    got = build_dict(n, **out)
    if got != d:
        wrong = next(k for k in d if got.get(k) != d[k])
        raise PositionError(
            f"{wrong}: this position lies between two automatic steps of the engine, which no "
            f"description sets up (the builder gives {_short(got.get(wrong))}, the position "
            f"holds {_short(d[wrong])}); describe a position where a decision is asked"
        )
    return out


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


_SEED_STARTS: dict[tuple[int, bool], dict[str, Any]] = {}


def _seed_start(num_players: int, **options: Any) -> dict[str, Any]:
    """A copy of the seed-0 start (``position``), which the builder fills what a description
    leaves out from (cached: the setup of a seed never changes)."""
    key = (num_players, bool(options.get("hide_opponent_pp", False)))
    if key not in _SEED_STARTS:
        _SEED_STARTS[key] = position(num_players, 0, **options)
    return copy.deepcopy(_SEED_STARTS[key])


def _describe_tiles(d: dict[str, Any], base: dict[str, Any]) -> dict[str, Any]:
    """``road`` and ``site_buildings``: the starting tiles still on S1 and R1-R8, all of them
    unless every one is the seed-0 setup's (the builder deals the rest of the deck onto the
    places a monument took, and those the description leaves out, in order: a partial list
    could deal a tile the position holds elsewhere), the pre-built R9, R14, S2 and S3 that
    differ from it, and every constructed building with its owner (rules 3.1, 3.2, D22)."""
    spaces, seeded = d["spaces"], base["spaces"]
    monument_places = [s for s in STARTING_PLACES if spaces[s]["tile"] in MONUMENT_NAMES]
    starting = [s for s in STARTING_PLACES if s not in monument_places]
    named = starting if any(spaces[s]["tile"] != seeded[s]["tile"] for s in starting) else []
    wood_space, stone_space = ROAD_NAMES[WOOD_SPACE - 1], ROAD_NAMES[STONE_SPACE - 1]
    named += [s for s in (wood_space, stone_space, "S2", "S3")
              if spaces[s]["tile"] != seeded[s]["tile"]]  # fmt: skip
    road: dict[str, Any] = {}
    site: dict[str, str] = {}
    for s in named:
        (site if s in SITE_NAMES else road)[s] = spaces[s]["tile"]
    for s in ROAD_NAMES:
        sp = spaces[s]
        if sp["tile"] in BUILDING_NAMES and sp["owner"] is not None:
            road[s] = [sp["tile"], sp["owner"]]
    out: dict[str, Any] = {}
    if road:
        out["road"] = dict(sorted(road.items(), key=lambda kv: ROAD_NAMES.index(kv[0])))
    if site:
        out["site_buildings"] = dict(sorted(site.items()))
    return out


def _describe_players(d: dict[str, Any], n: int) -> dict[str, Any]:
    """Each seat's entry: what differs from the start (rules 3.2 step 10), his characters,
    residences and the monuments on them, where they stand (D3, D4)."""
    start = _seed_start(n)["players"][0]
    entries: dict[int, dict[str, Any]] = {}
    for p, pd in enumerate(d["players"]):
        e: dict[str, Any] = {}
        # ``workers`` and ``site`` take their workers from the hand given (D15)
        placed = sum(sp["workers"].count(p) for sp in d["spaces"].values()) + d["site"].count(p)
        if pd["hand"] + placed != start["hand"]:
            e["hand"] = pd["hand"] + placed
        if pd["resources"] != start["resources"]:
            e["resources"] = {r: v for r, v in pd["resources"].items() if v}
        for key in ("pp", "bundles"):
            if pd[key]:
                e[key] = pd[key]
        held = [c for c in CHARACTER_NAMES if d["characters"][c] == p]
        if held:
            e["characters"] = held
        homes = [s for s in LAWYER_SPACES if d["spaces"][s]["owner"] == p]
        if homes:
            e["residences"] = homes
        monuments = {s: d["spaces"][s]["tile"] for s in homes
                     if d["spaces"][s]["tile"] in MONUMENT_NAMES}  # fmt: skip
        if monuments:
            e["monuments"] = monuments
        if e:
            entries[p] = e
    return {"players": entries} if entries else {}


def _describe_characters(d: dict[str, Any], base: dict[str, Any], n: int) -> dict[str, Any]:
    """``board_characters`` and ``characters_used`` where they differ from the builder's
    default (the seed-0 setup's revealed characters not held, then the others, rules 3.2
    step 9)."""
    chars = d["characters"]
    held = {c for c, h in chars.items() if isinstance(h, int)}
    board = [c for c in CHARACTER_NAMES if chars[c] == ON_BOARD_NAME]
    seeded = [
        c for c in CHARACTER_NAMES if base["characters"][c] == ON_BOARD_NAME and c not in held
    ]
    others = [c for c in CHARACTER_NAMES if c not in seeded and c not in held]
    default = (seeded + others)[: n + CHARACTERS_EXTRA - len(held)]
    out: dict[str, Any] = {}
    if set(board) != set(default):
        out["board_characters"] = board
    if d["characters_used"]:
        out["characters_used"] = list(d["characters_used"])
    return out


def _describe_clock(d: dict[str, Any], n: int) -> dict[str, Any]:
    """``bridge``, ``provost``, ``turn``, ``at`` and ``pending``: where the round stands,
    left out where the builder derives it (``_pointers``) or defaults to it."""
    out: dict[str, Any] = {}
    phase = d["phase"]
    pending = [dict(e) for e in d["pending"]]
    first = d["first_player"]
    clockwise = [(first + i) % n for i in range(n)]
    if d["bridge"] and (phase == "planning" or d["bridge"] != clockwise):
        out["bridge"] = list(d["bridge"])
    built = 0
    while built < ROAD_SPACES and d["spaces"][ROAD_NAMES[built]]["tile"] is not None:
        built += 1
    if d["provost"] != min(max(built - 1, 0), PROVOST_MAX):  # the builder's default (D6)
        out["provost"] = d["provost"]
    if phase == "draft":
        probe = {**d, "pending": []}
        if pending != _next_pick(probe, n):
            out["pending"] = pending
        return out
    if pending:
        out["pending"] = pending
    base = pending[0] if pending else {}
    if phase == "planning":
        derived = (base.get("player", -2) + 1) % n if base.get("kind") == "plan" else first
        mid = d["stage"] == planning.STAGE_TURNS
        if d["turn"] != derived or (mid and not pending and "bridge" not in out):
            out["turn"] = d["turn"]
    elif phase == "activation":
        follows = (
            bool(pending)
            and base["kind"] not in ("bridge", "bailiff")
            and not (base["kind"] == "effect" and base["space"] in WORKER_SPACES)
        )
        if follows or (not pending and (d["stage"], d["cursor"]) != (activation.STAGE_PRINTED, 0)):
            stage, cursor = d["stage"], d["cursor"]
            if stage == activation.STAGE_PRINTED and cursor < NUM_PRINTED:
                out["at"] = PRINTED_NAMES[cursor]
            elif stage == activation.STAGE_ROAD and 1 <= cursor <= ROAD_SPACES:
                out["at"] = ROAD_NAMES[cursor - 1]
    return out


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
    "describe",
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
