"""The one validation layer between outside input and the compiled kernels.

Numba does no bounds checking: an unchecked integer that reaches a kernel is an
out-of-bounds read or write (a wrong result, a segfault, heap corruption), and a state
that breaks the rules can loop in compiled code. So every state that comes from outside
(a readable state dict, a record's start position, an env's ``load_state_dict``) passes
through this module, in order, before any kernel sees it:

1. ``check_state_dict(d)``: the readable dict (``state_dict``). Every key present and no
   other (a typo such as ``moneyy`` is an error, not a silently defaulted field), every
   value of its exact type and in its domain: seats < num_players, road spaces 1-28,
   counts >= 0, amounts within the int16 state, favor columns <= 5, turn <= ``TURN_CAP``,
   each pending entry's arguments in their ``decisions.SCHEMA`` domain.
2. ``check_state(s)``: the state array. The compiled invariant checker
   (``invariants.check_invariants``: seats, orders, bookkeeping, stock, the stack's
   shape), then what depends on the phase (which kinds may be pending in which phase,
   procedures below decisions as the engine builds them, the cursor against the stack, the
   decisions of a road space's activation against its building and worker, a favor chain
   one player's with its row used, the players' batches and favor rows used against the
   phase and its cursor: a stack or a cursor the engine could not have built is refused),
   then a checker per decision kind whose domain depends on the state (``pay_any`` only
   for a building the player can afford, ``alchemist_pay.remaining`` <= the player's
   non-gold cubes, ...), then the amounts' room for the rest of the game (``_check_room``),
   then a bounded ``advance`` on a copy (the engine's own run to the next decision must
   end, without error, in a consistent state).

Any failure is an ``InvalidStateError`` (a ``ValueError``) naming the field, the value
and what is allowed, raised before anything is built or changed.

Types are exact: an int is a Python ``int`` or a NumPy integer scalar (``np.int16`` ...,
what a state array yields), never a ``bool``, a float, a string, bytes or a ``Decimal``;
a flag is a ``bool`` (or ``np.bool_``), never ``0``/``1`` or ``"false"``.

The amounts: money, prestige and each cube count have no rules ceiling; each must leave room
in its int16 entry for the most the rest of the game can add to it (``headroom.room``: the
workers, decisions and favors still ahead, what the board has left to give, a whole turn per
turn before the cap, the final scoring of what a player holds, rules 4.8). So no legal play
from a valid state can overflow, and every position it reaches is valid again.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from caylus_env.caylus.engine import kernels
from caylus_env.caylus.engine import layout as L
from caylus_env.caylus.engine.actions import NUM_ACTIONS
from caylus_env.caylus.engine.board import (
    BAILIFF_START,
    FIXED_BUILDINGS,
    NUM_NEUTRAL,
    ROAD_LEN,
    SECTION_SIZE,
    SECTION_TRIGGER,
)
from caylus_env.caylus.engine.buildings import (
    ANY_NON_GOLD,
    B_COPIES,
    B_COST,
    B_COST_ANY,
    B_EFFECT,
    B_FAVORS,
    B_KIND,
    B_NUM_PRODUCE,
    B_OPTIONS,
    B_OWNER_BONUS,
    B_PEDDLER_MAX,
    BUILDING_NAMES,
    OPTION_CUBE_COUNT,
    OPTION_CUBE_KIND,
    BuildingId,
    BuildingKind,
    Effect,
)
from caylus_env.caylus.engine.config import LAWYER_PRESTIGE_CHOICES, GameConfig
from caylus_env.caylus.engine.constants import (
    FAVOR_ROW_NAMES,
    FAVOR_SWAP_TAKE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NON_GOLD,
    NUM_CASTLE_SPOTS,
    NUM_FAVOR_COLUMNS,
    NUM_RESOURCES,
    NUM_SECTIONS,
    NUM_SPECIALS,
    NUM_STABLES_SPOTS,
    NUM_WORKERS,
    PHASE_NAMES,
    RESOURCE_NAMES,
    SECTION_NAMES,
    SPECIAL_NAMES,
    TURN_CAP,
    TWO_PLAYER_GAME,
    BuildSource,
    DecisionKind,
    FavorRow,
    Phase,
    Procedure,
    Resource,
    Special,
)
from caylus_env.caylus.engine.decisions import (
    CODEC_BUILDING,
    CODEC_INT,
    CODEC_MASK,
    CODEC_ROW,
    CODEC_SECTION,
    CODEC_SOURCE,
    CODEC_SPACE,
    ENTRY_OF_KIND,
    ENTRY_OF_NAME,
    Arg,
)
from caylus_env.caylus.engine.headroom import STATE_MAX, room
from caylus_env.caylus.engine.invariants import (
    ARG_HIGH,
    INVARIANT_MESSAGES,
    Broken,
    check_invariants,
)
from caylus_env.core.errors import InvalidStateError

#: The readable state dict's format tag (``state_dict.FORMAT``).
STATE_FORMAT = "caylus-state/1"
#: Houses a player can have on the board: one per road space and per castle place.
MAX_HOUSES = ROAD_LEN + int(SECTION_SIZE.sum())
#: Batches one player can give in a turn: one per castle place.
MAX_BATCHES = int(SECTION_SIZE.sum())
#: Tiles of one building in a game (rules 3.2; the Jeweller's one copy, 8.1).
MAX_COPIES = max(int(B_COPIES.max()), 1)
#: Pending entries a loaded stack may hold. Legal play holds at most 6 (two procedures, a
#: favor taken from the buildings row whose building grants a favor, and its column and
#: cube choices); the stack holds ``layout.STACK_DEPTH``, so legal play from any accepted
#: stack never overflows it.
MAX_LOADED_DEPTH = L.STACK_DEPTH // 2
#: The most cubes one alchemist option takes (rules 8.12).
MAX_ALCHEMIST_CUBES = int(
    max(
        B_OPTIONS[b, j, OPTION_CUBE_COUNT]
        for b in range(len(BUILDING_NAMES))
        for j in range(B_OPTIONS.shape[1])
        if B_OPTIONS[b, j, OPTION_CUBE_KIND] == ANY_NON_GOLD
    )
)
#: Steps of phase 7 (phases/end_of_turn): the bailiff, one per section, the end.
_STEP_FIRST_SECTION = 1
#: The highest cursor of each phase (the phase drivers in ``phases/``): the turn-order
#: position in phase 2 (``None``: num_players - 1), the special building's step in phase 3,
#: the passing-order position in phase 4 (``None`` + 1: num_players), the road space in
#: phase 5, the castle spot in phase 6 (one more for the best builder), phase 7's step.
_CURSOR_HIGH: dict[int, int | None] = {
    Phase.INCOME: 0,
    Phase.PLACEMENT: None,
    Phase.SPECIAL: NUM_SPECIALS,
    Phase.PROVOST: None,
    Phase.ACTIVATION: ROAD_LEN + 1,
    Phase.CASTLE: NUM_CASTLE_SPOTS + 1,
    Phase.END_OF_TURN: _STEP_FIRST_SECTION + NUM_SECTIONS,
    Phase.GAME_OVER: 0,
}
_SOURCE_NAMES = tuple(s.name.lower() for s in BuildSource)
_NON_GOLD_MASK = sum(1 << int(r) for r in NON_GOLD)
_WOOD_OR_STONE_MASK = (1 << Resource.WOOD) | (1 << Resource.STONE)
#: (kinds, remaining) of the cube choices the favor table's resources row asks (rules 5.1
#: row c: column 2 wood or stone; column 4 two non-gold cubes).
_FAVOR_TAKES = ((_WOOD_OR_STONE_MASK, 1), (_NON_GOLD_MASK, 1), (_NON_GOLD_MASK, FAVOR_SWAP_TAKE))
_FAVOR_SOURCES = (
    BuildSource.FAVOR_CARPENTER,
    BuildSource.FAVOR_MASON,
    BuildSource.FAVOR_ARCHITECT,
    BuildSource.FAVOR_LAWYER,
)
_BUILD_SOURCES = tuple(s for s in BuildSource if s not in (BuildSource.LAWYER_TILE,))
_BUILD_SOURCES = tuple(s for s in _BUILD_SOURCES if s != BuildSource.FAVOR_LAWYER)
_LAWYER_SOURCES = (BuildSource.LAWYER_TILE, BuildSource.FAVOR_LAWYER)
_ARCHITECT_SOURCES = (BuildSource.ARCHITECT, BuildSource.FAVOR_ARCHITECT)
#: The decisions a royal favor can lead to (rules 5.1): its row, column and their choices.
_FAVOR_CHAIN = frozenset(
    {
        DecisionKind.FAVOR_ROW,
        DecisionKind.FAVOR_COLUMN,
        DecisionKind.FAVOR_TAKE,
        DecisionKind.FAVOR_GIVE,
        DecisionKind.BUILD,
        DecisionKind.PAY_ANY,
        DecisionKind.RESIDENCE,
        DecisionKind.LAWYER,
    }
)
#: The decisions a road building's worker leads to in phase 5 (above its FINISH_SPACE).
_ACTIVATION = frozenset(
    {
        DecisionKind.PRODUCE,
        DecisionKind.OWNER_BONUS,
        DecisionKind.MARKET,
        DecisionKind.PEDDLER,
        DecisionKind.OPTION,
        DecisionKind.ALCHEMIST_PAY,
    }
)
#: The one decision each phase's driver asks (alone on the stack).
_DRIVER_DECISIONS = {
    Phase.PLACEMENT: frozenset({DecisionKind.PLACE_WORKER}),
    Phase.SPECIAL: frozenset(
        {DecisionKind.GATE, DecisionKind.GUILD, DecisionKind.JOUST, DecisionKind.INN}
    ),
    Phase.PROVOST: frozenset({DecisionKind.PROVOST}),
    Phase.CASTLE: frozenset({DecisionKind.CASTLE}),
}
_PHASES_WITH_FAVORS = (Phase.SPECIAL, Phase.ACTIVATION, Phase.CASTLE, Phase.END_OF_TURN)
#: Decisions that pay what an answer just bought: each is judged affordable on its own, so
#: one at a time, asked at once (a second would pay from cubes the first already took).
_PAYMENTS = frozenset({DecisionKind.PAY_ANY, DecisionKind.RESIDENCE, DecisionKind.ALCHEMIST_PAY})
#: The source of the construction a builder's worker asks in phase 5 (5a, 5b), by its effect.
_BUILDER_SOURCE = {
    Effect.BUILD_WOOD: BuildSource.CARPENTER,
    Effect.BUILD_STONE: BuildSource.MASON,
    Effect.BUILD_PRESTIGE: BuildSource.ARCHITECT,
}
#: The decision each building's worker asks first in phase 5 (``phases.activation.activate``)
#: about the building itself, by its effect; a builder's is asked about its source.
_ASKED_OF_BUILDING = {
    Effect.PRODUCE: (DecisionKind.PRODUCE, DecisionKind.OWNER_BONUS),
    Effect.MARKET: (DecisionKind.MARKET,),
    Effect.PEDDLER: (DecisionKind.PEDDLER,),
    Effect.OPTIONS: (DecisionKind.OPTION,),
}
#: Building kinds with a tile whose construction grants royal favors (rules 3.2: the church
#: and some prestige buildings): a builder of such a kind may leave favors pending in phase 5.
_FAVOR_KINDS = frozenset(int(B_KIND[b]) for b in range(len(BUILDING_NAMES)) if B_FAVORS[b] > 0)
#: The favor row a favor's follow-up decision comes from (rules 5.1): its column choice is
#: asked only once the row is used (``favors.apply_favor_row`` marks it first).
_ROW_OF_FOLLOW_UP = {
    DecisionKind.FAVOR_TAKE: FavorRow.RESOURCES,
    DecisionKind.FAVOR_GIVE: FavorRow.RESOURCES,
    DecisionKind.BUILD: FavorRow.BUILDINGS,
    DecisionKind.LAWYER: FavorRow.BUILDINGS,
    DecisionKind.PAY_ANY: FavorRow.BUILDINGS,
    DecisionKind.RESIDENCE: FavorRow.BUILDINGS,
}
#: Phases whose favors are never granted (rules 5.3: a row is used once per phase, and
#: entering a phase clears the rows used): no row is marked used in them.
_PHASES_WITHOUT_FAVORS = (Phase.INCOME, Phase.PLACEMENT, Phase.PROVOST)
#: Phases of a turn before the castle is built: no batch given yet this turn (phase 6; the
#: count is cleared in phase 1).
_PHASES_BEFORE_CASTLE = (Phase.PLACEMENT, Phase.SPECIAL, Phase.PROVOST, Phase.ACTIVATION)


# ---------------------------------------------------------------------------------------
# Typed field readers: each returns the value or raises naming the field and the domain.
# ---------------------------------------------------------------------------------------
def is_int(v: Any) -> bool:
    """An ``int`` or NumPy integer scalar, not a ``bool``."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_int(v: Any, what: str, low: int, high: int) -> int:
    """``v`` as an int in ``[low, high]``."""
    if not is_int(v):
        raise InvalidStateError(
            f"{what}={v!r} is not allowed; allowed: an int {low}..{high} (got {type(v).__name__})"
        )
    if not low <= int(v) <= high:
        raise InvalidStateError(f"{what}={int(v)} is not allowed; allowed: {low}..{high}")
    return int(v)


def check_bool(v: Any, what: str) -> bool:
    """``v`` as a flag: ``True`` or ``False`` only."""
    if not isinstance(v, (bool, np.bool_)):
        raise InvalidStateError(
            f"{what}={v!r} is not allowed; allowed: True or False (got {type(v).__name__})"
        )
    return bool(v)


def check_seat(v: Any, what: str, n: int, none: bool = True) -> int:
    """A seat number below ``n`` (or ``None`` for nobody when ``none``), as -1 for None."""
    if v is None and none:
        return -1
    allowed = f"a seat 0..{n - 1}" + (" or None" if none else "")
    if not is_int(v) or not 0 <= int(v) < n:
        raise InvalidStateError(f"{what}={v!r} is not allowed; allowed: {allowed}")
    return int(v)


def check_name(v: Any, what: str, names: tuple[str, ...]) -> int:
    """The index of ``v`` in ``names``."""
    if not isinstance(v, str) or v not in names:
        raise InvalidStateError(f"{what}={v!r} is not allowed; allowed: {list(names)}")
    return names.index(v)


def check_dict(v: Any, what: str, keys: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """A dict with exactly ``keys``: a missing key or an unknown one is an error."""
    if not isinstance(v, dict):
        raise InvalidStateError(f"{what} must be a dict, got {type(v).__name__}")
    missing = [k for k in keys if k not in v]
    unknown = [k for k in v if k not in keys]
    if missing:
        raise InvalidStateError(f"{what} is missing the key(s) {missing}; keys: {list(keys)}")
    if unknown:
        raise InvalidStateError(f"{what} has unknown key(s) {unknown!r}; keys: {list(keys)}")
    return v


def check_list(v: Any, what: str, low: int, high: int) -> list[Any]:
    """A list of ``low`` to ``high`` items."""
    if not isinstance(v, list):
        raise InvalidStateError(f"{what} must be a list, got {type(v).__name__}")
    if not low <= len(v) <= high:
        size = f"{low}" if low == high else f"{low} to {high}"
        raise InvalidStateError(f"{what} must list {size} items, got {len(v)}")
    return v


# ---------------------------------------------------------------------------------------
# Stage 1: the readable dict.
# ---------------------------------------------------------------------------------------
_TOP_KEYS = (
    "format",
    "options",
    "turn",
    "phase",
    "cursor",
    "provost",
    "bailiff",
    "scored",
    "turn_order",
    "passing_order",
    "special_workers",
    "stables",
    "inn",
    "castle_workers",
    "stock",
    "road",
    "castle",
    "players",
    "pending",
)
_OPTION_KEYS = ("num_players", "simplified_favors", "lawyer_prestige", "jeweller", "house_cap")
_ROAD_KEYS = ("space", "building", "owner", "worker", "lawyer_pending")
_PLAYER_KEYS = (
    "money",
    "cubes",
    "prestige",
    "workers_out",
    "favor_columns",
    "passed",
    "batches",
    "rows_used",
    "houses",
)


def check_options(v: Any) -> GameConfig:
    """The ``options`` of a state dict as a ``GameConfig`` (exact types, no extra keys)."""
    o = check_dict(v, "options", _OPTION_KEYS)
    return GameConfig(
        num_players=check_int(o["num_players"], "options.num_players", MIN_PLAYERS, MAX_PLAYERS),
        simplified_favors=check_bool(o["simplified_favors"], "options.simplified_favors"),
        lawyer_prestige=check_int(
            o["lawyer_prestige"],
            "options.lawyer_prestige",
            min(LAWYER_PRESTIGE_CHOICES),
            max(LAWYER_PRESTIGE_CHOICES),
        ),
        jeweller=check_bool(o["jeweller"], "options.jeweller"),
        house_cap=check_bool(o["house_cap"], "options.house_cap"),
    )


def check_arg(arg: Arg, high: int, v: Any, what: str) -> int:
    """One pending entry's argument, spelled as its codec says, in its domain ``[low, high]``
    (the declared one, ``invariants.ARG_HIGH``)."""
    if arg.codec == CODEC_BUILDING:
        value = check_name(v, what, BUILDING_NAMES)
    elif arg.codec == CODEC_SOURCE:
        value = check_name(v, what, _SOURCE_NAMES)
    elif arg.codec == CODEC_ROW:
        value = check_name(v, what, FAVOR_ROW_NAMES)
    elif arg.codec == CODEC_SECTION:
        value = check_name(v, what, SECTION_NAMES)
    elif arg.codec == CODEC_MASK:
        kinds = check_list(v, what, 0, NUM_RESOURCES)
        if len(set(map(repr, kinds))) != len(kinds):
            raise InvalidStateError(f"{what}={v!r} lists a cube kind twice")
        value = sum(1 << check_name(r, what, RESOURCE_NAMES) for r in kinds)
    else:
        assert arg.codec in (CODEC_INT, CODEC_SPACE), arg.codec
        value = check_int(v, what, arg.low, high)
    if not arg.low <= value <= high:
        raise InvalidStateError(
            f"{what}={v!r} is not allowed; allowed: {arg.doc}, {arg.low}..{high}"
        )
    return value


def check_state_dict(d: Any) -> GameConfig:
    """Stage 1: every key, type and domain of a readable state dict (module docstring).

    Returns:
        The game options the dict holds.

    Raises:
        InvalidStateError: naming the first field that is wrong and what is allowed.
    """
    d = check_dict(d, "state dict", _TOP_KEYS)
    if d["format"] != STATE_FORMAT:
        raise InvalidStateError(f"format={d['format']!r} is not allowed; allowed: {STATE_FORMAT!r}")
    cfg = check_options(d["options"])
    n = cfg.num_players
    check_int(d["turn"], "turn", 1, TURN_CAP)
    phase = check_name(d["phase"], "phase", PHASE_NAMES[1:]) + 1
    high = _CURSOR_HIGH[phase]
    if high is None:
        high = n - 1 if phase == Phase.PLACEMENT else n
    check_int(d["cursor"], f"cursor (phase {PHASE_NAMES[phase]})", 0, high)
    check_int(d["provost"], "provost", 1, ROAD_LEN)
    check_int(d["bailiff"], "bailiff", BAILIFF_START, ROAD_LEN)
    scored = check_dict(d["scored"], "scored", SECTION_NAMES)
    for name in SECTION_NAMES:
        check_bool(scored[name], f"scored.{name}")
    order = check_list(d["turn_order"], "turn_order", n, n)
    for i, v in enumerate(order):
        check_seat(v, f"turn_order[{i}]", n, none=False)
    if sorted(int(v) for v in order) != list(range(n)):
        raise InvalidStateError(
            f"turn_order={order!r} is not allowed; allowed: a permutation of 0..{n - 1}"
        )
    passing = check_list(d["passing_order"], "passing_order", 0, n)
    for i, v in enumerate(passing):
        check_seat(v, f"passing_order[{i}]", n, none=False)
    if len({int(v) for v in passing}) != len(passing):
        raise InvalidStateError(f"passing_order={passing!r} lists a seat twice")
    specials = check_dict(d["special_workers"], "special_workers", SPECIAL_NAMES[:4])
    for name in SPECIAL_NAMES[:4]:
        check_seat(specials[name], f"special_workers.{name}", n)
    for i, v in enumerate(
        check_list(d["stables"], "stables", NUM_STABLES_SPOTS, NUM_STABLES_SPOTS)
    ):
        check_seat(v, f"stables[{i}]", n)
    inn = check_dict(d["inn"], "inn", ("left", "right"))
    check_seat(inn["left"], "inn.left", n)
    check_seat(inn["right"], "inn.right", n)
    workers = check_list(d["castle_workers"], "castle_workers", 0, NUM_CASTLE_SPOTS)
    for i, v in enumerate(workers):
        check_seat(v, f"castle_workers[{i}]", n, none=False)
    stock = check_dict(d["stock"], "stock", BUILDING_NAMES)
    for name in BUILDING_NAMES:
        check_int(stock[name], f"stock.{name}", 0, MAX_COPIES)
    road = check_list(d["road"], "road", ROAD_LEN, ROAD_LEN)
    for i, r in enumerate(road):
        k = i + 1
        r = check_dict(r, f"road[{i}]", _ROAD_KEYS)
        check_int(r["space"], f"road[{i}].space", k, k)
        if r["building"] is not None:
            check_name(r["building"], f"road[{i}].building", BUILDING_NAMES)
        for key in ("owner", "worker", "lawyer_pending"):
            check_seat(r[key], f"road[{i}].{key}", n)
    castle = check_dict(d["castle"], "castle", SECTION_NAMES)
    for sec, name in enumerate(SECTION_NAMES):
        houses = check_list(castle[name], f"castle.{name}", n, n)
        for p, h in enumerate(houses):
            check_int(h, f"castle.{name}[{p}]", 0, int(SECTION_SIZE[sec]))
    players = check_list(d["players"], "players", n, n)
    for p, pd in enumerate(players):
        _check_player(pd, p)
    pending = check_list(d["pending"], "pending", 0, MAX_LOADED_DEPTH)
    for i, e in enumerate(pending):
        _check_entry(e, i, n)
    return cfg


def _check_player(pd: Any, p: int) -> None:
    what = f"players[{p}]"
    pd = check_dict(pd, what, _PLAYER_KEYS)
    check_int(pd["money"], f"{what}.money", 0, STATE_MAX)
    cubes = check_dict(pd["cubes"], f"{what}.cubes", RESOURCE_NAMES)
    for r in RESOURCE_NAMES:
        check_int(cubes[r], f"{what}.cubes.{r}", 0, STATE_MAX)
    check_int(pd["prestige"], f"{what}.prestige", 0, STATE_MAX)
    check_int(pd["workers_out"], f"{what}.workers_out", 0, NUM_WORKERS)
    favors = check_dict(pd["favor_columns"], f"{what}.favor_columns", FAVOR_ROW_NAMES)
    for row in FAVOR_ROW_NAMES:
        check_int(favors[row], f"{what}.favor_columns.{row}", 0, NUM_FAVOR_COLUMNS)
    check_bool(pd["passed"], f"{what}.passed")
    check_int(pd["batches"], f"{what}.batches", 0, MAX_BATCHES)
    rows = check_list(pd["rows_used"], f"{what}.rows_used", 0, len(FAVOR_ROW_NAMES))
    for j, row in enumerate(rows):
        check_name(row, f"{what}.rows_used[{j}]", FAVOR_ROW_NAMES)
    if len(set(rows)) != len(rows):
        raise InvalidStateError(f"{what}.rows_used={rows!r} lists a row twice")
    check_int(pd["houses"], f"{what}.houses", 0, MAX_HOUSES)


def _check_entry(e: Any, i: int, n: int) -> None:
    what = f"pending[{i}]"
    if not isinstance(e, dict):
        raise InvalidStateError(f"{what} must be a dict, got {type(e).__name__}")
    if "kind" not in e:
        raise InvalidStateError(f"{what} is missing the key 'kind'")
    spec = ENTRY_OF_NAME[SCHEMA_NAMES[check_name(e["kind"], f"{what}.kind", SCHEMA_NAMES)]]
    check_dict(e, f"{what} ({spec.name})", ("kind", "player", *(a.name for a in spec.args)))
    if spec.is_decision:
        check_seat(e["player"], f"{what}.player ({spec.name})", n, none=False)
    elif spec.kind == Procedure.FINISH_SPACE:
        check_seat(e["player"], f"{what}.player (finish_space: the worker's seat)", n, False)
    elif e["player"] is not None:
        raise InvalidStateError(
            f"{what}.player={e['player']!r} is not allowed; allowed: None ({spec.name} is "
            "asked of nobody)"
        )
    for j, arg in enumerate(spec.args):
        high = int(ARG_HIGH[int(spec.kind), j])
        check_arg(arg, high, e[arg.name], f"{what}.{arg.name} ({spec.name})")


SCHEMA_NAMES: tuple[str, ...] = tuple(ENTRY_OF_NAME)


# ---------------------------------------------------------------------------------------
# Stage 2: the state array.
# ---------------------------------------------------------------------------------------
def _pf(p: int, field: int) -> int:
    return L.PLAYERS + p * L.PLAYER_STRIDE + field


def _seat_name(v: int) -> str:
    return "None" if v < 0 else str(v)


def _source_kind(src: int) -> int:
    if src in (BuildSource.CARPENTER, BuildSource.FAVOR_CARPENTER):
        return BuildingKind.WOOD
    if src in (BuildSource.MASON, BuildSource.FAVOR_MASON):
        return BuildingKind.STONE
    return BuildingKind.PRESTIGE


def _can_build(s: np.ndarray, p: int, b: int, src: int) -> bool:
    """Whether ``p`` may construct ``b`` through ``src`` now (5a, 5b, 5.1 row d, 8.3): in the
    stock, of the source's kind, a place for it, and the cubes to pay it."""
    if s[L.STOCK + b] <= 0 or B_KIND[b] != _source_kind(src):
        return False
    if B_KIND[b] == BuildingKind.PRESTIGE:
        if not any(
            s[L.ROAD_TILE + k] == BuildingId.RESIDENCE and s[L.ROAD_OWNER + k] == p
            for k in range(1, ROAD_LEN + 1)
        ):
            return False
    else:
        if all(s[L.ROAD_TILE + k] >= 0 for k in range(1, ROAD_LEN + 1)):
            return False
        cap = int(s[L.OPT_HOUSE_CAP])
        if cap and s[_pf(p, L.P_HOUSES)] >= cap:
            return False
    discount = {BuildSource.FAVOR_CARPENTER: Resource.WOOD, BuildSource.FAVOR_MASON: Resource.STONE}
    spare = 0
    for r in range(NUM_RESOURCES):
        have = int(s[_pf(p, L.P_CUBES + r)])
        need = int(B_COST[b, r]) - (1 if discount.get(src) == r else 0)
        if have < need:
            return False
        spare += have - need
    return spare >= int(B_COST_ANY[b])


Entry = tuple[int, int, int, int]  # kind, player, arg_a, arg_b


def _check_kind(s: np.ndarray, e: Entry, what: str) -> str | None:
    """The state-dependent domain of one pending entry; a message if it is outside."""
    kind, p, a, b = e
    name = ENTRY_OF_KIND[kind].name
    if kind in (DecisionKind.PRODUCE, DecisionKind.OWNER_BONUS, DecisionKind.MARKET):
        ok = {
            DecisionKind.PRODUCE: B_NUM_PRODUCE[a] >= 2,
            DecisionKind.OWNER_BONUS: B_OWNER_BONUS[a] != 0,
            DecisionKind.MARKET: B_EFFECT[a] == Effect.MARKET,
        }[kind]
        if not ok:
            return f"{what}.building={BUILDING_NAMES[a]!r} is not a building that asks {name}"
    if kind == DecisionKind.PEDDLER:
        if B_EFFECT[a] != Effect.PEDDLER:
            return f"{what}.building={BUILDING_NAMES[a]!r} is not a peddler"
        if b >= B_PEDDLER_MAX[a]:
            return f"{what}.bought={b} is not allowed; allowed: 0..{B_PEDDLER_MAX[a] - 1}"
    if kind == DecisionKind.OPTION and B_EFFECT[a] != Effect.OPTIONS:
        return f"{what}.building={BUILDING_NAMES[a]!r} has no options"
    if kind == DecisionKind.BUILD and a not in _BUILD_SOURCES:
        return f"{what}.source={_SOURCE_NAMES[a]!r} does not build; allowed: " + str(
            [_SOURCE_NAMES[x] for x in _BUILD_SOURCES]
        )
    if kind == DecisionKind.LAWYER and a not in _LAWYER_SOURCES:
        return f"{what}.source={_SOURCE_NAMES[a]!r} is not a lawyer's; allowed: " + str(
            [_SOURCE_NAMES[x] for x in _LAWYER_SOURCES]
        )
    if kind in (DecisionKind.PAY_ANY, DecisionKind.RESIDENCE):
        prestige = B_KIND[a] == BuildingKind.PRESTIGE
        if kind == DecisionKind.RESIDENCE and (not prestige or b not in _ARCHITECT_SOURCES):
            return (
                f"{what}: residence for {BUILDING_NAMES[a]!r} through {_SOURCE_NAMES[b]!r}; "
                "allowed: a prestige building through architect or favor_architect"
            )
        if kind == DecisionKind.PAY_ANY and (prestige or B_COST_ANY[a] == 0):
            return f"{what}.building={BUILDING_NAMES[a]!r} costs no 'any cube'"
        if not _can_build(s, p, a, b):
            return (
                f"{what}: player {p} cannot build {BUILDING_NAMES[a]!r} through "
                f"{_SOURCE_NAMES[b]!r} (stock, kind, place or cubes); {name} is asked only "
                "for a building the player can construct and pay"
            )
    if kind == DecisionKind.ALCHEMIST_PAY:
        cubes = sum(int(s[_pf(p, L.P_CUBES + r)]) for r in NON_GOLD)
        if not 1 <= a <= min(cubes, MAX_ALCHEMIST_CUBES):
            return (
                f"{what}.remaining={a} is not allowed; allowed: 1..{min(cubes, MAX_ALCHEMIST_CUBES)}"
                f" (player {p}'s non-gold cubes, at most {MAX_ALCHEMIST_CUBES})"
            )
    if kind == DecisionKind.CASTLE and a != s[_pf(p, L.P_BATCHES)]:
        return (
            f"{what}.batches_given={a} is not allowed; allowed: player {p}'s batches this "
            f"turn, {int(s[_pf(p, L.P_BATCHES)])}"
        )
    if kind == DecisionKind.FAVOR_ROW and s[L.OPT_SIMPLIFIED_FAVORS]:
        return f"{what}: no favor decision with simplified_favors (rules 6)"
    if kind == DecisionKind.FAVOR_COLUMN:
        if a not in (FavorRow.RESOURCES, FavorRow.BUILDINGS):
            return (
                f"{what}.row={FAVOR_ROW_NAMES[a]!r} is not allowed; allowed: resources, buildings"
            )
        if s[_pf(p, L.P_FAVOR + a)] < 1:
            return f"{what}: player {p}'s marker on row {FAVOR_ROW_NAMES[a]!r} is at column 0"
    if kind == DecisionKind.FAVOR_TAKE and (a, b) not in _FAVOR_TAKES:
        return (
            f"{what}: kinds={[RESOURCE_NAMES[r] for r in range(NUM_RESOURCES) if a >> r & 1]}, "
            f"remaining={b} is not allowed; allowed: [wood, stone] with 1, or the non-gold "
            f"kinds with 1 or {FAVOR_SWAP_TAKE} (rules 5.1 row c)"
        )
    if kind in _FAVOR_CHAIN and s[L.OPT_SIMPLIFIED_FAVORS] and _is_favor_entry(e):
        return f"{what}: no favor decision with simplified_favors (rules 6)"
    return None


def _is_favor_entry(e: Entry) -> bool:
    kind, _, a, b = e
    if kind in (DecisionKind.BUILD, DecisionKind.LAWYER):
        return a in _FAVOR_SOURCES
    if kind in (DecisionKind.PAY_ANY, DecisionKind.RESIDENCE):
        return b in _FAVOR_SOURCES
    return kind in _FAVOR_CHAIN


def _stack(s: np.ndarray) -> list[Entry]:
    return [
        (
            int(kernels.entry_kind(s, i)),
            int(kernels.entry_player(s, i)),
            int(kernels.entry_arg(s, i, 0)),
            int(kernels.entry_arg(s, i, 1)),
        )
        for i in range(int(s[L.STACK_SIZE]))
    ]


def _check_chain(s: np.ndarray, entries: list[Entry], base: int, phase: int) -> str | None:
    """Decisions above the procedures (from index ``base``): kinds the phase can ask.

    Scenario positions may keep a decision waiting below others (a sentinel that holds the
    game in its phase); the engine answers the top one and then the next, so this is
    allowed. What the engine relies on is checked: no procedure above a decision, the swap's
    give on its take, the phase's own decision alone, and at most two favor rows.
    """
    decisions = entries[base:]
    if not decisions:
        return None
    names = [ENTRY_OF_KIND[e[0]].name for e in decisions]
    for j, e in enumerate(decisions):
        kind = e[0]
        what = f"pending[{base + j}]"
        if kind >= min(int(x) for x in Procedure):
            return f"{what}: procedure {names[j]!r} above a decision; pending kinds: {names}"
        if kind == DecisionKind.FAVOR_GIVE and (
            j == 0
            or decisions[j - 1][:3] != (DecisionKind.FAVOR_TAKE, e[1], _NON_GOLD_MASK)
            or decisions[j - 1][3] != FAVOR_SWAP_TAKE
        ):
            return f"{what}: favor_give must sit on the swap's favor_take of the same player"
    first = decisions[0][0]
    driver = _DRIVER_DECISIONS.get(phase, frozenset())
    if first in driver:
        if len(decisions) > 1:
            return f"pending[{base}]: {names[0]!r} is asked alone; pending kinds: {names}"
    elif phase == Phase.ACTIVATION:
        if not all(e[0] in _ACTIVATION or e[0] in _FAVOR_CHAIN for e in decisions):
            return f"pending kinds {names} are not allowed in phase activation"
        for j, e in enumerate(decisions):
            favor_below = j > 0 and _is_favor_entry(decisions[j - 1])
            if favor_below and e[0] in _FAVOR_CHAIN and not _is_favor_entry(e):
                return f"pending[{base + j}]: a favor leads only to favor sources ({names})"
    elif phase in _PHASES_WITH_FAVORS:
        if not all(_is_favor_entry(e) for e in decisions):
            allowed = sorted(ENTRY_OF_KIND[k].name for k in driver)
            return (
                f"pending kinds {names} are not allowed in phase {PHASE_NAMES[phase]}; allowed: "
                f"{allowed} alone, or the decisions of a royal favor (favor sources)"
            )
    else:
        allowed = sorted(ENTRY_OF_KIND[k].name for k in driver)
        return f"pending kinds {names} are not allowed in phase {PHASE_NAMES[phase]}: {allowed}"
    favors = [(j, e) for j, e in enumerate(decisions) if _is_favor_entry(e)]
    for j, e in favors:
        what = f"pending[{base + j}]"
        if e[1] != favors[0][1][1]:
            return (
                f"{what}.player={e[1]} is not allowed; allowed: {favors[0][1][1]}, the player of "
                "the favors below it (a player takes his favors before anyone else's, 8.8)"
            )
        row = e[2] if e[0] == DecisionKind.FAVOR_COLUMN else _ROW_OF_FOLLOW_UP.get(e[0])
        if row is not None and not s[_pf(e[1], L.P_ROWS_USED)] >> row & 1:
            return (
                f"{what} {names[j]!r} comes from the favor row {FAVOR_ROW_NAMES[row]!r}, but "
                f"players[{e[1]}].rows_used does not list it (a favor marks its row used first)"
            )
    payments = [j for j, e in enumerate(decisions) if e[0] in _PAYMENTS]
    if payments and payments != [len(decisions) - 1]:
        return (
            f"pending kinds {names} hold a payment below another decision or two payments; "
            "allowed: one payment (pay_any, residence, alchemist_pay), on top (the engine "
            "asks it at once: rules 5a, 5b, 8.12)"
        )
    rows = [e for e in decisions if e[0] == DecisionKind.FAVOR_ROW]
    if len(rows) > 2 or (
        len(rows) == 2 and not s[_pf(rows[0][1], L.P_ROWS_USED)] >> FavorRow.BUILDINGS & 1
    ):
        return (
            f"pending holds {len(rows)} favor_row decisions; allowed: 1, or 2 when the lower one's "
            "player used the buildings row (a building bought with a favor grants a favor)"
        )
    return None


def _check_phase(s: np.ndarray) -> str | None:
    """What the phase allows: the pending stack, the cursor against it, and where workers may
    stand (the phase drivers in ``phases/``)."""
    n = int(s[L.NUM_PLAYERS])
    phase = int(s[L.PHASE])
    name = PHASE_NAMES[phase]
    cursor = int(s[L.CURSOR])
    high = _CURSOR_HIGH[phase]
    if high is None:
        high = n - 1 if phase == Phase.PLACEMENT else n
    if cursor > high:
        return f"cursor={cursor} is not allowed in phase {name}; allowed: 0..{high}"
    entries = _stack(s)
    names = [ENTRY_OF_KIND[e[0]].name for e in entries]
    for i, e in enumerate(entries):
        message = _check_kind(s, e, f"pending[{i}]")
        if message:
            return message
    passed = int(s[L.NUM_PASSED])
    if Phase.SPECIAL <= phase <= Phase.END_OF_TURN and passed != n:
        return f"phase {name} comes after every player passed; passing_order lists {passed} of {n}"
    if n == TWO_PLAYER_GAME and any(s[L.STABLES + i] >= 0 for i in range(NUM_STABLES_SPOTS)):
        return "stables are not used with 2 players (rules 1.4); allowed: [None, None, None]"
    cap = int(s[L.OPT_HOUSE_CAP])
    for p in range(n):
        if cap and s[_pf(p, L.P_HOUSES)] > cap:
            return f"players[{p}].houses={int(s[_pf(p, L.P_HOUSES)])} is above the cap {cap}"
    message = _check_clock(s, phase, cursor, entries)
    if message:
        return message
    message = _check_road(s, phase)
    if message:
        return message
    message = _check_workers(s, phase, cursor, entries)
    if message:
        return message
    message = _check_progress(s, phase, cursor)
    if message:
        return message
    base = 0
    if phase in (Phase.INCOME, Phase.GAME_OVER):
        if entries:
            return f"pending={names} is not allowed in phase {name}; allowed: nothing pending"
        return None
    if phase == Phase.ACTIVATION and entries and entries[0][0] == Procedure.FINISH_SPACE:
        kind, w, k, _ = entries[0]
        if k != cursor - 1 or s[L.ROAD_WORKER + k] != w or k > s[L.PROVOST]:
            return (
                f"pending[0] finish_space of player {w} on space {k} is not allowed; allowed: "
                f"the space before the cursor ({cursor - 1}), up to the provost, holding the "
                "player's worker"
            )
        base = 1
        message = _check_activated(s, entries, k, w)
        if message:
            return message
    elif phase == Phase.END_OF_TURN and entries:
        kind, _, sec, _ = entries[0]
        if kind != Procedure.SECTION_DONE:
            return f"pending[0]={names[0]!r}: a scoring's stack starts with section_done"
        if cursor != _STEP_FIRST_SECTION + sec + 1:
            return f"section_done of {SECTION_NAMES[sec]!r} at step {cursor}; allowed at {sec + 2}"
        if s[L.SCORED + sec] or not all(s[L.SCORED + x] for x in range(sec)):
            return f"section {SECTION_NAMES[sec]!r} is scored now: it is not scored yet and " + (
                "every section before it is"
            )
        base = 1
        if len(entries) > 1:
            kind, _, sec2, i = entries[1]
            if kind != Procedure.SCORE_PLAYER or sec2 != sec:
                return f"pending[1]={names[1]!r}: allowed: score_player of the same section"
            if i > n:
                return f"pending[1].turn_order_index={i} is not allowed; allowed: 0..{n}"
            base = 2
            if len(entries) > 2 and (i < 1 or entries[2][1] != s[L.TURN_ORDER + i - 1]):
                return (
                    f"favors of a section scoring go to the player scored last: turn_order[{i - 1}]"
                )
    elif phase == Phase.PLACEMENT and entries:
        p = entries[0][1]
        if p != s[L.TURN_ORDER + cursor] or s[_pf(p, L.P_PASSED)]:
            return (
                f"place_worker for player {p} is not allowed; allowed: turn_order[cursor] = "
                f"{int(s[L.TURN_ORDER + cursor])}, who has not passed"
            )
    elif phase == Phase.PROVOST and entries:
        p = entries[0][1]
        if cursor < 1 or p != s[L.PASS_ORDER + cursor - 1]:
            return "provost is asked of passing_order[cursor - 1] (cursor >= 1)"
    elif phase == Phase.SPECIAL and entries:
        kind, p = entries[0][:2]
        step = {
            DecisionKind.GATE: Special.GATE,
            DecisionKind.GUILD: Special.MERCHANTS_GUILD,
            DecisionKind.JOUST: Special.JOUST_FIELD,
            DecisionKind.INN: Special.INN,
        }.get(kind)
        if _is_favor_entry(entries[0]):
            step = Special.JOUST_FIELD  # phase 3's one favor is the joust field's (3d)
        if step is not None and cursor != step + 1:
            return f"{names[0]!r} is asked at special step {step + 1}; cursor={cursor}"
        if kind == DecisionKind.GATE and s[L.SPECIAL_WORKER + Special.GATE] != p:
            return f"gate for player {p}; allowed: the gate's worker"
        if kind == DecisionKind.INN and (s[L.INN_RIGHT] != p or s[L.INN_LEFT] >= 0):
            return f"inn for player {p}; allowed: the lone resident"
    elif phase == Phase.CASTLE and entries:
        kind, p = entries[0][:2]
        spots = [int(s[L.CASTLE_SPOTS + i]) for i in range(NUM_CASTLE_SPOTS)]
        asked = spots[cursor - 1] if 1 <= cursor <= NUM_CASTLE_SPOTS else None
        if kind == DecisionKind.CASTLE and asked != p:
            return f"castle for player {p}; allowed: castle worker {cursor - 1} (the cursor's)"
        if kind != DecisionKind.CASTLE and (cursor != NUM_CASTLE_SPOTS + 1 or p not in spots):
            return "a favor in phase castle goes to a castle worker, after the last one gave"
        best = _best_builder(s)
        if kind != DecisionKind.CASTLE and p != best:
            return (
                f"pending[0]: a favor for player {p} in phase castle is not allowed; allowed: "
                f"the best builder, {_seat_name(best)} (most batches, ties the earlier castle "
                "worker; nobody without a batch)"
            )
    return _check_chain(s, entries, base, phase)


def _check_activated(s: np.ndarray, entries: list[Entry], k: int, w: int) -> str | None:
    """The decisions above a space's ``finish_space`` (phase 5, ``phases.activation``): its
    worker's (the owner's cube: the owner's, 3.2), about the building on that space (what
    its effect asks: its production, its market, peddler or options, the construction or
    the lawyer's transformation it offers and their payments), and royal favors only after
    constructing a tile that grants them (rules 3.2, 5)."""
    tile = int(s[L.ROAD_TILE + k])
    effect = int(B_EFFECT[tile])
    owner = int(s[L.ROAD_OWNER + k])
    source = _BUILDER_SOURCE.get(effect)
    for i, e in enumerate(entries[1:], start=1):
        kind, p, a, b = e
        what = f"pending[{i}] {ENTRY_OF_KIND[kind].name!r}"
        on = f"the {BUILDING_NAMES[tile]!r} on space {k}"
        if _is_favor_entry(e):
            if source is None or _source_kind(source) not in _FAVOR_KINDS:
                return f"{what}: {on} grants no royal favor; allowed: its own decisions"
            asked = w
        elif kind in _ASKED_OF_BUILDING.get(effect, ()):
            if a != tile:
                return f"{what}.building={BUILDING_NAMES[a]!r} is not allowed; allowed: {on}"
            asked = owner if kind == DecisionKind.OWNER_BONUS else w
            if kind == DecisionKind.OWNER_BONUS and owner == w:
                return f"{what}: the owner of space {k} takes no cube of his own worker (3.2)"
        elif kind in (DecisionKind.BUILD, DecisionKind.PAY_ANY, DecisionKind.RESIDENCE):
            src = a if kind == DecisionKind.BUILD else b
            if source is None or src != source:
                return f"{what}: {on} does not ask it (rules 4 phase 5)"
            asked = w
        elif kind == DecisionKind.LAWYER and effect == Effect.LAWYER:
            if a != BuildSource.LAWYER_TILE:
                return f"{what}.source={_SOURCE_NAMES[a]!r} is not allowed; allowed: lawyer_tile"
            asked = w
        elif kind == DecisionKind.ALCHEMIST_PAY and effect == Effect.OPTIONS:
            if not any(
                B_OPTIONS[tile, j, OPTION_CUBE_KIND] == ANY_NON_GOLD
                for j in range(B_OPTIONS.shape[1])
            ):
                return f"{what}: {on} takes no cubes of any kind (rules 8.12)"
            asked = w
        else:
            return f"{what}: {on} does not ask it (rules 4 phase 5)"
        if p != asked:
            return f"{what}.player={p} is not allowed; allowed: {asked} ({on})"
    return None


def _best_builder(s: np.ndarray) -> int:
    """The castle worker who gave most batches this turn, ties the earlier one; -1 if none
    gave (phase 6, ``phases.castle.drive_castle``)."""
    best, most = -1, 0
    for i in range(NUM_CASTLE_SPOTS):
        p = int(s[L.CASTLE_SPOTS + i])
        if p >= 0 and s[_pf(p, L.P_BATCHES)] > most:
            best, most = p, int(s[_pf(p, L.P_BATCHES)])
    return best


def _check_progress(s: np.ndarray, phase: int, cursor: int) -> str | None:
    """The players' counters of the turn against the phase and its cursor: the batches given
    in phase 6 (none before it; none by a castle worker not asked yet; each one a house in
    the castle) and the favor rows used in this phase (rules 5.3: none in a phase that
    grants no favor, none before the special buildings' joust field, the castle's best
    builder or the first section scoring has granted one)."""
    n = int(s[L.NUM_PLAYERS])
    name = PHASE_NAMES[phase]
    spots = [int(s[L.CASTLE_SPOTS + i]) for i in range(NUM_CASTLE_SPOTS)]
    no_rows = (
        phase in _PHASES_WITHOUT_FAVORS
        or (phase == Phase.SPECIAL and cursor <= Special.JOUST_FIELD)
        or (phase == Phase.CASTLE and cursor <= NUM_CASTLE_SPOTS)
        or (phase == Phase.END_OF_TURN and cursor <= _STEP_FIRST_SECTION)
    )
    best = _best_builder(s) if phase == Phase.CASTLE else -1
    for p in range(n):
        what = f"players[{p}]"
        batches = int(s[_pf(p, L.P_BATCHES)])
        houses = sum(int(s[L.CASTLE_HOUSES + sec * MAX_PLAYERS + p]) for sec in range(NUM_SECTIONS))
        if batches > houses:
            return (
                f"{what}.batches={batches} is not allowed; allowed: 0..{houses} (each batch "
                "is a house in the castle)"
            )
        if batches and phase in _PHASES_BEFORE_CASTLE:
            return (
                f"{what}.batches={batches} is not allowed in phase {name}; allowed: 0 (batches "
                "are given in phase 6, counted from this turn's income)"
            )
        if batches and phase == Phase.CASTLE and p not in spots[: max(cursor, 0)]:
            return (
                f"{what}.batches={batches} is not allowed in phase castle, cursor {cursor}; "
                "allowed: 0 (only a castle worker already asked has given batches)"
            )
        rows = int(s[_pf(p, L.P_ROWS_USED)])
        late = phase == Phase.CASTLE and cursor > NUM_CASTLE_SPOTS and p != best
        if rows and (no_rows or late):
            used = [r for i, r in enumerate(FAVOR_ROW_NAMES) if rows >> i & 1]
            return (
                f"{what}.rows_used={used} is not allowed in phase {name}, cursor {cursor}; "
                "allowed: [] (no favor was granted to this player in this phase yet)"
            )
    return None


def _check_clock(s: np.ndarray, phase: int, cursor: int, entries: list[Entry]) -> str | None:
    """The bailiff against the turn and the scorings (rules 4 phase 7, 4.7, 4.8): it moves
    1 or 2 spaces at every end of turn, so by turn t it has moved at least t - 1 times; a
    section whose trigger it reached is scored at that end of turn; the towers' scoring
    ends the game. So a loaded game always ends long before the turn cap (rules 8.22)."""
    bailiff = int(s[L.BAILIFF])
    moved = int(s[L.TURN]) - 1
    if (phase == Phase.END_OF_TURN and cursor >= 1) or phase == Phase.GAME_OVER:
        moved += 1
    if bailiff < BAILIFF_START + moved:
        return (
            f"bailiff={bailiff} in turn {int(s[L.TURN])} ({PHASE_NAMES[phase]}) is not allowed; "
            f"allowed: at least {BAILIFF_START + moved} (it moves at every end of turn)"
        )
    scoring = entries[0][2] if entries and entries[0][0] == Procedure.SECTION_DONE else -1
    for sec in range(NUM_SECTIONS):
        due = phase != Phase.END_OF_TURN or (cursor > _STEP_FIRST_SECTION + sec and sec != scoring)
        if due and bailiff >= SECTION_TRIGGER[sec] and not s[L.SCORED + sec]:
            return (
                f"bailiff={bailiff} reached the {SECTION_NAMES[sec]} trigger "
                f"({int(SECTION_TRIGGER[sec])}) but scored.{SECTION_NAMES[sec]} is False"
            )
    towers = bool(s[L.SCORED + NUM_SECTIONS - 1])
    if (
        towers
        and phase != Phase.GAME_OVER
        and not (phase == Phase.END_OF_TURN and cursor > _STEP_FIRST_SECTION + NUM_SECTIONS - 1)
    ):
        return f"scored.towers is True in phase {PHASE_NAMES[phase]}: the towers' scoring ends the game"
    if phase == Phase.GAME_OVER and not towers:
        return "phase game_over comes only after the towers' scoring (rules 4.8)"
    return None


def _check_road(s: np.ndarray, phase: int) -> str | None:
    """Tiles where the rules put them (rules 1.2, 2.2, 3): neutral tiles on spaces 1-6 (or
    the residence the lawyer made of them, or a prestige building on it), the board's own
    buildings on their printed spaces, player tiles with their owner."""
    for k in range(1, ROAD_LEN + 1):
        tile = int(s[L.ROAD_TILE + k])
        owner = int(s[L.ROAD_OWNER + k])
        what = f"road[{k - 1}] (space {k})"
        if k in FIXED_BUILDINGS:
            if tile != FIXED_BUILDINGS[k]:
                return f"{what}.building must be {BUILDING_NAMES[FIXED_BUILDINGS[k]]!r} (rules 2.2)"
        elif tile >= 0:
            kind = B_KIND[tile]
            if kind == BuildingKind.FIXED:
                return f"{what}.building={BUILDING_NAMES[tile]!r} stands only on its printed space"
        elif k <= NUM_NEUTRAL:
            return (
                f"{what}.building=None is not allowed: spaces 1-{NUM_NEUTRAL} always hold a "
                "building (the neutral tiles, rules 1.2, or what a lawyer or an architect put "
                "in their place)"
            )
        owned = tile >= 0 and B_KIND[tile] not in (BuildingKind.NEUTRAL, BuildingKind.FIXED)
        if owned != (owner >= 0):
            rule = "a player's tile has its owner" if owned else "nobody owns this building"
            return f"{what}.owner={_seat_name(owner)} is not allowed: {rule}"
        lawyer = int(s[L.ROAD_LAWYER + k])
        if lawyer >= 0:
            if phase not in (Phase.SPECIAL, Phase.PROVOST, Phase.ACTIVATION):
                return f"{what}.lawyer_pending waits only from phase 3 to phase 5 (rules 8.6)"
            if B_KIND[tile] not in (BuildingKind.NEUTRAL, BuildingKind.WOOD, BuildingKind.STONE):
                return f"{what}.lawyer_pending on {BUILDING_NAMES[tile]!r}: not a lawyer target"
            if B_KIND[tile] != BuildingKind.NEUTRAL and (
                owner != lawyer or tile == BuildingId.LAWYER
            ):
                return f"{what}.lawyer_pending: a craft tile is transformed only by its owner"
    return None


def _check_workers(s: np.ndarray, phase: int, cursor: int, entries: list[Entry]) -> str | None:
    """Workers stand only where the turn has not yet sent them home (rules 4, phases 3-6)."""
    name = PHASE_NAMES[phase]
    gate_asked = bool(entries) and entries[0][0] == DecisionKind.GATE
    for i in range(4):
        if s[L.SPECIAL_WORKER + i] < 0:
            continue
        ok = phase == Phase.PLACEMENT or (
            phase == Phase.SPECIAL and (i >= cursor or (i == Special.GATE and gate_asked))
        )
        if not ok:
            return (
                f"special_workers.{SPECIAL_NAMES[i]} has a worker in phase {name}, cursor {cursor}"
            )
    in_placement = phase == Phase.PLACEMENT
    spots = [int(s[L.STABLES + i]) for i in range(NUM_STABLES_SPOTS)]
    if any(a < 0 <= b for a, b in pairwise(spots)):
        return (
            f"stables={[None if v < 0 else v for v in spots]} is not allowed: a worker takes the "
            "first free spot (rules 4 phase 2), so the taken spots come first"
        )
    stables = any(v >= 0 for v in spots)
    if stables and not (in_placement or (phase == Phase.SPECIAL and cursor <= Special.STABLES)):
        return f"stables hold workers in phase {name}, cursor {cursor}"
    if s[L.INN_LEFT] >= 0 and not (
        in_placement or (phase == Phase.SPECIAL and cursor <= Special.INN)
    ):
        return f"inn.left holds a worker in phase {name}, cursor {cursor}"
    castle = any(s[L.CASTLE_SPOTS + i] >= 0 for i in range(NUM_CASTLE_SPOTS))
    if castle and not Phase.PLACEMENT <= phase <= Phase.CASTLE:
        return f"castle_workers stand in phase {name}; allowed: phases 2-6"
    first = 1
    if phase == Phase.ACTIVATION:
        # The worker of the space being resolved stays until its finish_space procedure
        # sends it home; without that procedure nothing would (drive_activation goes on
        # from the cursor), and the worker would stay on the road for good.
        resolving = bool(entries) and entries[0][0] == Procedure.FINISH_SPACE
        first = max(1, cursor - 1 if resolving else cursor)
    elif not Phase.PLACEMENT <= phase <= Phase.ACTIVATION:
        first = ROAD_LEN + 1
    for k in range(1, ROAD_LEN + 1):
        if s[L.ROAD_WORKER + k] >= 0 and k < first:
            return (
                f"road[{k - 1}].worker={int(s[L.ROAD_WORKER + k])} in phase {name}, cursor "
                f"{cursor}: that worker went home already"
            )
    return None


def check_state(s: Any) -> None:
    """Stage 2: a state array the kernels may run (module docstring).

    Raises:
        InvalidStateError: naming what is inconsistent and what is allowed.
    """
    if not isinstance(s, np.ndarray) or s.dtype != L.STATE_DTYPE or s.shape != (L.STATE_SIZE,):
        raise InvalidStateError(
            f"a state must be a 1-D {np.dtype(L.STATE_DTYPE).name} array of {L.STATE_SIZE} "
            f"values, got {getattr(s, 'dtype', type(s).__name__)} {getattr(s, 'shape', '')}"
        )
    _invariants(s, "")
    if s[L.STACK_SIZE] > MAX_LOADED_DEPTH:
        raise InvalidStateError(
            f"pending holds {int(s[L.STACK_SIZE])} entries; allowed: at most {MAX_LOADED_DEPTH}"
        )
    if s[L.TURN] > TURN_CAP:
        raise InvalidStateError(f"turn={int(s[L.TURN])} is not allowed; allowed: 1..{TURN_CAP}")
    message = _check_phase(s)
    if message:
        raise InvalidStateError(f"inconsistent state: {message}")
    _check_room(s)
    copy = s.copy()
    out = np.empty(NUM_ACTIONS, np.int64)
    try:
        kernels.advance(copy, out)
    except RuntimeError as e:
        raise InvalidStateError(f"inconsistent state: the engine cannot run it on: {e}") from None
    _invariants(copy, "after running to the next decision, ")


def _check_room(s: np.ndarray) -> None:
    """Each amount leaves room in its int16 entry for what the rest of the game can add
    (``headroom``): legal play from here never wraps it, and every position it reaches is
    accepted here again. Cubes and money first: the final scoring turns them into prestige
    (rules 4.8)."""
    r = room(s)
    for p in range(int(s[L.NUM_PLAYERS])):
        amounts = [
            (f"cubes.{name}", int(s[_pf(p, L.P_CUBES + i)]), r.cubes[p], "")
            for i, name in enumerate(RESOURCE_NAMES)
        ]
        amounts.append(("money", int(s[_pf(p, L.P_MONEY)]), r.money[p], ""))
        why = f", {r.final[p]} of it by the final scoring of his gold, cubes and deniers"
        amounts.append(("prestige", int(s[_pf(p, L.P_PRESTIGE)]), r.prestige[p], why))
        for what, value, more, why in amounts:
            if value + more > STATE_MAX:
                raise InvalidStateError(
                    f"players[{p}].{what}={value} is not allowed at this point; allowed: "
                    f"0..{max(STATE_MAX - more, 0)} (legal play from here can still add "
                    f"{more}{why}; the state holds {STATE_MAX})"
                )


def _invariants(s: np.ndarray, when: str) -> None:
    code = int(check_invariants(s))
    if code != Broken.OK:
        raise InvalidStateError(
            f"inconsistent state: {when}{INVARIANT_MESSAGES[code]} (invariant {Broken(code).name})"
        )


__all__ = [
    "STATE_FORMAT",
    "InvalidStateError",
    "check_bool",
    "check_int",
    "check_state",
    "check_state_dict",
    "is_int",
]
